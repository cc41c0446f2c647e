//! The backlog after an outage: `cargo bench --bench backlog`.
//!
//! Builds, in a temp folder, a Maildir inbox holding 10,000 legal move
//! mails (100 chess boards x 100 plies, 200 players, ply by ply across the
//! boards), then runs one `pbmchess poll` (the release binary, durable
//! commits: WAL with `synchronous=FULL`) and prints mails per second, the
//! time the poll spent in argon2id password checks, the rest per mail and
//! the poll's peak memory. In the same run it measures the disk's durable
//! commit rate (one small transaction per commit, WAL, `synchronous=FULL`)
//! and prints the ratio of mails per second to it (target: at least 0.4).
//! Afterwards it checks that nothing was lost: every mail filed as done,
//! every board at its last ply, every reply sent.
//!
//! Quick mode (`PBMCHESS_BENCH_QUICK=1`, or without `--bench`): 10 boards
//! x 20 plies.

mod support;

use std::process::Command;
use std::time::Instant;

use support::{add_board, add_users, deliver, durable_commit_rate, game, move_mail, quick};

fn main() {
    let (boards, plies) = if quick() { (10, 20) } else { (100, 100) };
    let players = boards * 2;
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let config = root.join("pbmchess.toml");
    std::fs::write(
        &config,
        "[server]\naddress = \"pbm@bench.test\"\nname = \"Bench PBM\"\n\n[database]\npath = \"var/db.sqlite\"\n\n[inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\n[outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n",
    )
    .expect("config");
    let bin = env!("CARGO_BIN_EXE_pbmchess");
    let status = Command::new(bin)
        .arg("--config")
        .arg(&config)
        .arg("init")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .status()
        .expect("init");
    assert!(status.success(), "init failed");

    // Players and boards straight in the store; the moves as mails.
    let t = Instant::now();
    {
        let conn = pbmchess::store::open(&root.join("var/db.sqlite")).expect("db");
        conn.execute_batch("BEGIN").expect("begin");
        add_users(&conn, players);
        for b in 0..boards {
            add_board(&conn, &format!("p{}", 2 * b), &format!("p{}", 2 * b + 1));
        }
        conn.execute_batch("COMMIT").expect("commit");
    }
    let games: Vec<Vec<String>> = (0..boards).map(|b| game(b as u64 + 1, plies)).collect();
    let inbox = root.join("var/inbox");
    let mut seq = 0;
    for ply in 0..plies {
        for (b, moves) in games.iter().enumerate() {
            seq += 1;
            let player = 2 * b + ply % 2;
            let subject = format!(
                "chess move {} p{player} {} {}",
                101 + b,
                support::PASSWORD,
                moves[ply]
            );
            let raw = move_mail(
                &format!("m{seq}@bench.test"),
                &format!("p{player}@bench.test"),
                &subject,
            );
            deliver(&inbox, seq, &raw);
        }
    }
    let mails = seq;
    println!(
        "backlog: {mails} move mails ({boards} boards x {plies} plies, {players} players) built in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let rate_before = durable_commit_rate(root, if quick() { 100 } else { 500 });

    // One poll, as cron would run it.
    let log = root.join("poll.log");
    let t = Instant::now();
    let status = Command::new(bin)
        .arg("--config")
        .arg(&config)
        .arg("poll")
        .env("RUST_LOG", "info")
        .stderr(std::fs::File::create(&log).expect("log"))
        .status()
        .expect("poll");
    let seconds = t.elapsed().as_secs_f64();
    assert!(status.success(), "poll failed: see {}", log.display());
    let (peak_kib, cpu_seconds) = child_usage();

    let rate_after = durable_commit_rate(root, if quick() { 100 } else { 500 });
    let commit_rate = (rate_before + rate_after) / 2.0;

    // Nothing lost: every mail done, every board at its last ply, every reply sent.
    let left = std::fs::read_dir(inbox.join("new")).expect("new").count();
    let done = std::fs::read_dir(inbox.join("cur")).expect("cur").count();
    assert_eq!((left, done), (0, mails), "every mail filed as done");
    let conn = pbmchess::store::open(&root.join("var/db.sqlite")).expect("db");
    for b in 0..boards {
        let n = pbmchess::store::ply_count(&conn, "chess", 101 + b as u32).expect("plies");
        assert_eq!(n as usize, plies, "board {}", 101 + b);
    }
    assert_eq!(pbmchess::store::pending_count(&conn).expect("outbox"), 0);
    let sent = std::fs::read_dir(root.join("var/outbox/new"))
        .expect("outbox")
        .count();
    assert_eq!(sent, 2 * mails, "a board mail to each player per move");

    let log_text = std::fs::read_to_string(&log).expect("log");
    let (verifications, password_seconds) = password_figures(&log_text);
    let per_second = mails as f64 / seconds;
    println!("poll: {mails} mails in {seconds:.2} s = {per_second:.1} mails/s");
    println!(
        "  password checks: {verifications} argon2id verifications, {password_seconds:.2} s in all"
    );
    println!(
        "  the rest: {:.2} ms per mail",
        (seconds - password_seconds) / mails as f64 * 1e3
    );
    println!("  peak memory: {:.1} MiB", peak_kib as f64 / 1024.0);
    println!(
        "  processor time (user + system): {cpu_seconds:.2} s; {:.2} ms per mail besides the password checks",
        (cpu_seconds - password_seconds).max(0.0) / mails as f64 * 1e3
    );
    println!(
        "disk: {commit_rate:.0} durable commits/s (WAL, synchronous=FULL; {rate_before:.0} before, {rate_after:.0} after)"
    );
    println!(
        "ratio mails/s / commits/s = {:.2} (target >= 0.4)",
        per_second / commit_rate
    );
}

/// The poll's argon2id verifications and their time, from its `pass done`
/// log line (`password_verifications=N password_ms=M`).
fn password_figures(log: &str) -> (u64, f64) {
    let line = log
        .lines()
        .rev()
        .find(|l| l.contains("pass done"))
        .expect("a pass done line in the poll's log");
    let field = |name: &str| -> &str {
        let at = line.find(name).expect(name) + name.len();
        let rest = &line[at..];
        let end = rest.find([',', ' ', '}']).unwrap_or(rest.len());
        &rest[..end]
    };
    let n = field("password_verifications=").parse().expect("count");
    let ms: f64 = field("password_ms=").parse().expect("milliseconds");
    (n, ms / 1000.0)
}

/// The largest peak resident set (KiB) of the children waited for (the
/// poll; `init` is smaller), and their processor time in seconds.
fn child_usage() -> (i64, f64) {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes one rusage struct into the one we own.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(rc, 0, "getrusage");
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        usage.ru_maxrss,
        seconds(usage.ru_utime) + seconds(usage.ru_stime),
    )
}
