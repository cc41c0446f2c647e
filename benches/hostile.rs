//! What one hostile mail costs: `cargo bench --bench hostile`.
//!
//! Builds each mail of the table below, hands it to the release binary's
//! `process` (a child of its own, on an installation with a long board,
//! aiming at 4,200 plies: its generator stops where it finds
//! no chess move that does not end the game; the users alice and bob and
//! the computer player), and measures
//! the child's processor time (user + system) and peak resident memory
//! with `wait4`. Every mail must cost at most 1 s of processor time and
//! 200 MB, the 50 computer challenges included: the computer's budget for
//! one mail (`[computer] seconds_per_mail`, 0.8 s) is under that second.
//! The installation reads mails of up to 1 MiB (`max_message_bytes`,
//! four times the default), so that every mail of the table is read, not
//! refused by its size. Then:
//! - the poison case: the quote bomb and a `help` behind it in a Maildir
//!   inbox, `poll` under `ulimit -v 1500000` until the `help` is answered
//!   (at most `failures_before_quarantine` + 2 passes);
//! - the 50 computer challenges sent twice from one address are charged
//!   both times (the address's count of commands in the database grows by
//!   at least 50 with each).
//!
//! It prints one table and asserts the bounds after printing it, so a
//! failing row still shows its figures. Quick mode (`PBMCHESS_BENCH_QUICK=1`,
//! or without `--bench`: under `cargo test --all-targets`, a debug build)
//! makes each mail a tenth the size and a 420-ply board, and checks only
//! what is not a speed: the poison case and the charges.

mod support;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use pbmchess::store::{self, NewBoard, Ply};
use support::{quick, Rng};

/// Processor time one mail may cost, in seconds.
const MAX_CPU: f64 = 1.0;
/// Peak memory one mail may cost, in KiB (200 MB).
const MAX_RSS_KIB: i64 = 200 * 1000 * 1000 / 1024;

struct Install {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    seq: usize,
}

impl Install {
    fn new() -> Install {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().to_path_buf();
        let config = root.join("pbmchess.toml");
        std::fs::write(
            &config,
            "[server]\naddress = \"pbm@bench.test\"\nname = \"Bench PBM\"\n\n\
             [database]\npath = \"var/db.sqlite\"\n\n\
             [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\n\
             [outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n\n\
             [limits]\nmax_message_bytes = 1048576\n\n\
             [accounts]\nconfirm_addresses = false\n",
        )
        .expect("config");
        let install = Install {
            _dir: dir,
            root,
            config,
            seq: 0,
        };
        let out = install.command(&["init"]).output().expect("init");
        assert!(out.status.success(), "init failed");
        for sub in ["new", "cur", "tmp"] {
            std::fs::create_dir_all(install.root.join("var/inbox").join(sub)).expect("inbox");
        }
        install
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_pbmchess"));
        c.arg("--config")
            .arg(&self.config)
            .args(args)
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    }

    fn db(&self) -> rusqlite::Connection {
        store::open(&self.root.join("var/db.sqlite")).expect("db")
    }

    /// `process` one mail in a child; its processor seconds and peak KiB.
    /// (`wait_measured` reaps the child with `wait4`, which clippy does
    /// not see.)
    #[allow(clippy::zombie_processes)]
    fn process(&mut self, raw: &[u8]) -> (f64, i64) {
        self.seq += 1;
        let file = self.root.join(format!("mail{}.eml", self.seq));
        std::fs::write(&file, raw).expect("mail file");
        let child = self
            .command(&["process", file.to_str().expect("path")])
            .spawn()
            .expect("process");
        wait_measured(child.id())
    }

    fn deliver(&mut self, raw: &[u8]) {
        self.seq += 1;
        let inbox = self.root.join("var/inbox");
        let name = format!("{}.M{}P1.bench", 1_700_000_000 + self.seq, self.seq);
        std::fs::write(inbox.join("tmp").join(&name), raw).expect("write");
        std::fs::rename(inbox.join("tmp").join(&name), inbox.join("new").join(&name))
            .expect("deliver");
    }

    fn outbox_to(&self, to: &str) -> usize {
        let mut n = 0;
        for sub in ["new", "cur"] {
            let Ok(dir) = std::fs::read_dir(self.root.join("var/outbox").join(sub)) else {
                continue;
            };
            for e in dir {
                let text = std::fs::read_to_string(e.expect("entry").path()).unwrap_or_default();
                if text.contains(&format!("To: {to}")) {
                    n += 1;
                }
            }
        }
        n
    }

    fn address_count(&self, address: &str) -> i64 {
        self.db()
            .query_row(
                "SELECT coalesce(sum(count), 0) FROM command_counts
                 WHERE scope = 'address' AND key = ?1",
                [address],
                |r| r.get(0),
            )
            .expect("counts")
    }
}

/// Wait for child `pid`; its processor seconds and peak resident KiB.
fn wait_measured(pid: u32) -> (f64, i64) {
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 writes one status and one rusage into ones we own; the
    // child is ours and not waited for elsewhere.
    let rc = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid as libc::pid_t, "wait4");
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        seconds(usage.ru_utime) + seconds(usage.ru_stime),
        usage.ru_maxrss,
    )
}

fn mail(from: &str, subject: &str, headers: &str, content_type: &str, body: &str) -> Vec<u8> {
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    format!(
        "From: {from}\r\nTo: pbm@bench.test\r\nSubject: {subject}\r\nMessage-ID: <h{n}@bench.test>\r\n{headers}Date: Sun, 22 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: {content_type}; charset=utf-8\r\n\r\n{body}\r\n"
    )
    .into_bytes()
}

fn text_mail(from: &str, subject: &str, body: &str) -> Vec<u8> {
    mail(from, subject, "", "text/plain", body)
}

/// The quote bomb: nested quotes and line breaks (`scale` 1: 256 KB).
fn quote_bomb(scale: usize) -> Vec<u8> {
    let html = format!(
        "<html><body>{}{}</body></html>",
        "<blockquote>".repeat(10_900 / scale),
        "<br>".repeat(32_700 / scale)
    );
    mail("mallory@evil.test", "help", "", "text/html", &html)
}

/// A chess game of about `plies` plies that has not ended, stretched by
/// preferring moves that can be taken back (the 50-move rule and
/// repetition are avoided, a pawn move or capture taken when needed).
fn long_game(plies: usize) -> Vec<String> {
    let chess = rules::game("chess").expect("chess");
    let mut rng = Rng::with_seed(0x1234_5678_9abc_def1);
    let mut position = chess.start(&[]).expect("start");
    let mut moves = Vec::new();
    while moves.len() < plies {
        let actions = position.legal_actions();
        if actions.is_empty() {
            break;
        }
        let start = rng.usize(..actions.len());
        let mut progress = None;
        let mut reversible = None;
        for k in 0..actions.len() {
            let a = &actions[(start + k) % actions.len()];
            let mut next = position.clone_box();
            next.play(a).expect("legal");
            if next.outcome().is_over() || next.legal_actions().is_empty() {
                continue;
            }
            if next.history_plies() > 0 {
                reversible = Some((a.clone(), next));
                break;
            }
            if progress.is_none() {
                progress = Some((a.clone(), next));
            }
        }
        let Some((a, next)) = reversible.or(progress) else {
            break;
        };
        moves.push(a);
        position = next;
    }
    moves
}

/// Board 101 between alice and bob with `moves` played, stored as the
/// server stores them (position keys, resume point). Returns its plies.
fn add_long_board(conn: &rusqlite::Connection, moves: &[String]) -> u32 {
    let chess = rules::game("chess").expect("chess");
    let now = chrono::Utc::now();
    let number = store::insert_board(
        conn,
        &NewBoard {
            game: "chess",
            options: &[],
            start_position: rules::chess::START_FEN,
            players: &["alice".to_string(), "bob".to_string()],
            nag_days: Some(7),
            forfeit_days: Some(14),
            total_days: None,
            now,
        },
    )
    .expect("board");
    let mut position = chess.start(&[]).expect("start");
    let mut resume = (0, None);
    for (i, mv) in moves.iter().enumerate() {
        let seat = position.to_act();
        position.play(mv).expect("legal");
        let ply = Ply {
            ply: i as u32 + 1,
            seat,
            notation: mv.clone(),
            events: Vec::new(),
            comment: String::new(),
            played_at: now,
            auto: false,
            conditional: false,
        };
        store::append_ply(
            conn,
            store::BoardId::new("chess", number),
            &ply,
            Some(position.position_key()),
        )
        .expect("ply");
        if position.history_plies() == 0 {
            resume = (ply.ply, Some(position.to_text()));
        }
    }
    store::set_resume_point(
        conn,
        store::BoardId::new("chess", number),
        resume.0,
        resume.1.as_deref(),
    )
    .expect("resume");
    store::update_position(
        conn,
        store::BoardId::new("chess", number),
        &position.to_text(),
        now,
    )
    .expect("position");
    moves.len() as u32
}

struct Row {
    what: &'static str,
    bytes: usize,
    cpu: f64,
    rss_kib: i64,
    max_cpu: f64,
}

fn main() {
    let quick = quick();
    let scale = if quick { 10 } else { 1 };
    let mut install = Install::new();
    let target_plies = 4200 / scale;
    let moves = long_game(target_plies);
    let plies = {
        let conn = install.db();
        conn.execute_batch("BEGIN").expect("begin");
        let hash = support::password_hash();
        for (user, address) in [("alice", "alice@bench.test"), ("bob", "bob@bench.test")] {
            store::insert_user(
                &conn,
                user,
                &hash,
                &[address.to_string()],
                chrono::Utc::now(),
            )
            .expect("user");
        }
        let plies = add_long_board(&conn, &moves);
        conn.execute_batch("COMMIT").expect("commit");
        plies
    };
    let preview_from = plies.saturating_sub(50).max(1);

    let words = 120_000 / scale;
    let mut other_words = String::new();
    let mut r = Rng::with_seed(7);
    while other_words.len() < 120_000 / scale {
        other_words.push_str(&format!("w{} ", r.usize(..1_000_000)));
    }
    let references: String = (0..34_000 / scale)
        .map(|i| format!("<{i:x}@r>"))
        .collect::<Vec<_>>()
        .chunks(20)
        .map(|c| c.join(" "))
        .collect::<Vec<_>>()
        .join("\r\n ");
    let wrong_passwords: String = (0..50)
        .map(|i| format!("message fresh{i} lion bear wolf tiger\n"))
        .collect();
    let computer_challenges = "chess challenge computer alice -level=5\n".repeat(50);
    let previews = format!("chess preview 101#{preview_from} zz\n").repeat(50);
    let long_id = format!("<{}@evil.test>", "i".repeat(250_000 / scale));

    let mails: Vec<(&'static str, Vec<u8>, f64)> = vec![
        (
            "Subject `xyzzy a a a ...` (120k words)",
            text_mail("m1@evil.test", &format!("xyzzy{}", " a".repeat(words)), ""),
            MAX_CPU,
        ),
        (
            "the same with a 120 KB body of other words",
            text_mail(
                "m2@evil.test",
                &format!("xyzzy{}", " a".repeat(words)),
                &other_words,
            ),
            MAX_CPU,
        ),
        (
            "one 250 KB word as the Subject",
            text_mail("m3@evil.test", &"x".repeat(250_000 / scale), ""),
            MAX_CPU,
        ),
        (
            "HTML <blockquote> x10,900 + <br> x32,700",
            quote_bomb(scale),
            MAX_CPU,
        ),
        (
            "multiple, 50 wrong-password lines, fresh userids",
            text_mail("m5@evil.test", "multiple", &wrong_passwords),
            MAX_CPU,
        ),
        (
            "multiple, 50 challenge computer -level=5",
            text_mail("alice@bench.test", "multiple", &computer_challenges),
            MAX_CPU,
        ),
        (
            "multiple, 50 preview 101#N zz (long board)",
            text_mail("m7@evil.test", "multiple", &previews),
            MAX_CPU,
        ),
        (
            "References: 34,000 ids + Precedence: bulk",
            mail(
                "m8@evil.test",
                "help",
                &format!("References: {references}\r\nPrecedence: bulk\r\n"),
                "text/plain",
                "",
            ),
            MAX_CPU,
        ),
        (
            "Precedence: bulk + a 250,000-char Message-ID",
            format!(
                "From: m9@evil.test\r\nTo: pbm@bench.test\r\nSubject: help\r\nMessage-ID: {long_id}\r\nPrecedence: bulk\r\n\r\nhi\r\n"
            )
            .into_bytes(),
            MAX_CPU,
        ),
    ];

    let mut rows = Vec::new();
    for (what, raw, max_cpu) in mails {
        let (cpu, rss_kib) = install.process(&raw);
        rows.push(Row {
            what,
            bytes: raw.len(),
            cpu,
            rss_kib,
            max_cpu,
        });
    }
    let stored_id: i64 = install
        .db()
        .query_row(
            "SELECT coalesce(max(length(message_id)), 0) FROM processed_mail",
            [],
            |r| r.get(0),
        )
        .expect("ids");

    println!(
        "hostile mails ({}; board of {plies} plies, previews from ply {preview_from}):",
        if quick {
            "quick mode, a tenth of each"
        } else {
            "release"
        }
    );
    println!(
        "{:<50} {:>9} {:>8} {:>9}  bound",
        "mail", "bytes", "CPU s", "peak MB"
    );
    for r in &rows {
        let ok = r.cpu <= r.max_cpu && r.rss_kib <= MAX_RSS_KIB;
        println!(
            "{:<50} {:>9} {:>8.3} {:>9.1}  {:.0} s, 200 MB {}",
            r.what,
            r.bytes,
            r.cpu,
            r.rss_kib as f64 * 1024.0 / 1e6,
            r.max_cpu,
            if ok { "ok" } else { "OVER" }
        );
    }
    println!("longest Message-ID stored in processed_mail: {stored_id} characters");

    // The poison case: the quote bomb under a 1.5 GB address space limit
    // does not stop the mail behind it.
    let poisoned = poison_case(scale);
    println!("poison: the mail behind the quote bomb was answered after {poisoned} pass(es) under ulimit -v 1500000");

    // The computer mail twice from one address: charged both times.
    let charged = charged_twice();
    println!(
        "50 computer challenges twice from one address: commands counted {} after the first, {} after the second",
        charged.0, charged.1
    );
    assert!(charged.0 >= 50, "the first mail is charged: {charged:?}");
    assert!(
        charged.1 >= charged.0 + 10,
        "the second mail is charged too: {charged:?}"
    );

    if !quick {
        let over: Vec<&str> = rows
            .iter()
            .filter(|r| r.cpu > r.max_cpu || r.rss_kib > MAX_RSS_KIB)
            .map(|r| r.what)
            .collect();
        assert!(over.is_empty(), "mails over their bound: {over:?}");
    }
}

/// The quote bomb and a `help` behind it; `poll` under `ulimit -v
/// 1500000` until the `help` is answered. Returns the passes it took.
fn poison_case(scale: usize) -> usize {
    let mut install = Install::new();
    install.deliver(&quote_bomb(scale));
    install.deliver(&text_mail("bob@bench.test", "help chess", ""));
    let limit = 3 + 2;
    for pass in 1..=limit {
        let status = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1500000 && exec \"$0\" --config \"$1\" poll")
            .arg(env!("CARGO_BIN_EXE_pbmchess"))
            .arg(&install.config)
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("poll");
        let _ = status;
        if install.outbox_to("bob@bench.test") > 0 {
            return pass;
        }
    }
    panic!("the mail behind the quote bomb was not answered in {limit} passes");
}

/// The 50 computer challenges from alice's address, twice: the address's
/// command counts after each.
fn charged_twice() -> (i64, i64) {
    let mut install = Install::new();
    {
        let conn = install.db();
        let hash = support::password_hash();
        store::insert_user(
            &conn,
            "alice",
            &hash,
            &["alice@bench.test".to_string()],
            chrono::Utc::now(),
        )
        .expect("alice");
    }
    let body = "chess challenge computer alice -level=5\n".repeat(50);
    install.process(&text_mail("alice@bench.test", "multiple", &body));
    let first = install.address_count("alice@bench.test");
    install.process(&text_mail("alice@bench.test", "multiple", &body));
    let second = install.address_count("alice@bench.test");
    (first, second)
}
