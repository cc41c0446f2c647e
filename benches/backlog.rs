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
//! Then the same backlog once more with an SMTP outbox: the poll sends
//! every reply to a local aiosmtpd (a handler that counts the mails and
//! keeps none) and the bench prints mails per second and replies delivered
//! (skipped without python3-aiosmtpd).
//!
//! Quick mode (`PBMCHESS_BENCH_QUICK=1`, or without `--bench`): 10 boards
//! x 20 plies.

mod support;

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use support::{add_board, add_users, deliver, durable_commit_rate, game, move_mail, quick};

fn main() {
    run(None);
    match start_counting_relay() {
        Some(relay) => run(Some(relay)),
        None => println!("backlog over SMTP skipped: python3 with aiosmtpd is missing"),
    }
}

/// An aiosmtpd on a loopback port that counts the mails it takes and
/// prints the count when it gets SIGTERM.
struct Relay {
    child: Child,
    port: u16,
}

const COUNTING_RELAY: &str = r#"
import asyncio, signal, sys
from aiosmtpd.smtp import SMTP
class Count:
    n = 0
    async def handle_DATA(self, server, session, envelope):
        Count.n += 1
        return "250 OK"
loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
loop.run_until_complete(loop.create_server(lambda: SMTP(Count()), "127.0.0.1", int(sys.argv[1])))
def stop():
    print(Count.n, flush=True)
    loop.stop()
loop.add_signal_handler(signal.SIGTERM, stop)
print("ready", flush=True)
loop.run_forever()
"#;

fn start_counting_relay() -> Option<Relay> {
    let python = ["/usr/bin/python3", "python3"].into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import aiosmtpd"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let mut child = Command::new(python)
        .args(["-c", COUNTING_RELAY, &port.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut()?)
        .read_line(&mut line)
        .ok()?;
    (line.trim() == "ready").then_some(Relay { child, port })
}

impl Relay {
    /// Stops the relay; how many mails it took.
    fn count(mut self) -> usize {
        // SAFETY: kill(2) with SIGTERM on the child this bench started.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let out = std::mem::replace(&mut self.child, Command::new("true").spawn().unwrap());
        let out = out.wait_with_output().expect("relay");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("the relay's count")
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The backlog bench with a Maildir outbox, or with an SMTP one to `relay`.
fn run(relay: Option<Relay>) {
    let (boards, plies) = if quick() { (10, 20) } else { (100, 100) };
    let players = boards * 2;
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let config = root.join("pbmchess.toml");
    let outbox = match &relay {
        None => "kind = \"maildir\"\npath = \"var/outbox\"\n".to_string(),
        Some(r) => format!(
            "kind = \"smtp\"\nhost = \"127.0.0.1\"\nport = {}\ntls = \"none\"\n",
            r.port
        ),
    };
    std::fs::write(
        &config,
        format!("[server]\naddress = \"pbm@bench.test\"\nname = \"Bench PBM\"\n\n[database]\npath = \"var/db.sqlite\"\n\n[inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\n[outbox]\n{outbox}"),
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
        "backlog ({} outbox): {mails} move mails ({boards} boards x {plies} plies, {players} players) built in {:.1} s",
        if relay.is_some() { "SMTP" } else { "Maildir" },
        t.elapsed().as_secs_f64()
    );

    let rate_before = durable_commit_rate(root, if quick() { 100 } else { 500 });

    // One poll, as cron would run it.
    let (_, cpu_before) = child_usage();
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
    let cpu_seconds = cpu_seconds - cpu_before;

    let rate_after = durable_commit_rate(root, if quick() { 100 } else { 500 });
    let commit_rate = (rate_before + rate_after) / 2.0;

    // Nothing lost: every mail done, every board at its last ply, every reply sent.
    let left = std::fs::read_dir(inbox.join("new")).expect("new").count();
    let done = std::fs::read_dir(inbox.join("cur")).expect("cur").count();
    assert_eq!((left, done), (0, mails), "every mail filed as done");
    let conn = pbmchess::store::open(&root.join("var/db.sqlite")).expect("db");
    for b in 0..boards {
        let n = pbmchess::store::ply_count(
            &conn,
            pbmchess::store::BoardId::new("chess", 101 + b as u32),
        )
        .expect("plies");
        assert_eq!(n as usize, plies, "board {}", 101 + b);
    }
    assert_eq!(pbmchess::store::pending_count(&conn).expect("outbox"), 0);
    let sent = match relay {
        None => std::fs::read_dir(root.join("var/outbox/new"))
            .expect("outbox")
            .count(),
        Some(r) => r.count(),
    };
    assert_eq!(sent, 2 * mails, "a board mail to each player per move");

    let log_text = std::fs::read_to_string(&log).expect("log");
    let (verifications, password_seconds) = password_figures(&log_text);
    let per_second = mails as f64 / seconds;
    println!(
        "poll: {mails} mails in {seconds:.2} s = {per_second:.1} mails/s; {sent} replies delivered"
    );
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
