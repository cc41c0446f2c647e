//! What the password and masking mails cost:
//! `cargo bench --bench passwords`.
//!
//! Each mail goes through the release binary's `process` (a fresh process,
//! as an MTA pipe runs it), on a server with two players and a board. The
//! bench prints the CPU time and peak memory of each (`wait4`) and asserts
//! that none costs more than 1 s of CPU or 200 MB:
//!
//! - Subject `xyzzy a a a …` (120k words): masking the quoted comment was
//!   quadratic (4.8 s), now one pass with a set;
//! - the same with a 120 KB body of other words (28 s before);
//! - a `multiple` of 50 wrong passwords for fresh userids (250 argon2id
//!   checks before, now at most 5);
//! - five guesses and three long answers, too large to send (rolled back
//!   uncounted before; now counted, and it asserts so).
//!
//! The mails are small and few: there is no quick mode. `max_message_bytes`
//! is raised to 1 MiB so that the 360 KB mail is read, not refused unread.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const CPU_LIMIT_S: f64 = 1.0;
const RSS_LIMIT_KB: i64 = 200 * 1024;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let config = root.join("pbmchess.toml");
    std::fs::write(
        &config,
        "[server]\naddress = \"pbm@bench.test\"\nname = \"Bench PBM\"\n\n[database]\npath = \"var/db.sqlite\"\n\n[inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\n[outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n\n[accounts]\nconfirm_addresses = false\n\n[limits]\nmax_reply_bytes = 3000\nmax_message_bytes = 1048576\n",
    )
    .expect("config");
    let bin = env!("CARGO_BIN_EXE_pbmchess");
    let run = |args: &[&str]| {
        let ok = Command::new(bin)
            .arg("--config")
            .arg(&config)
            .args(args)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .status()
            .expect("pbmchess runs")
            .success();
        assert!(ok, "pbmchess {args:?} failed");
    };
    run(&["init"]);
    run(&["admin", "user", "add", "alice", "apw", "alice@bench.test"]);
    run(&["admin", "user", "add", "bob", "bpw", "bob@bench.test"]);
    run(&["admin", "challenge", "chess", "alice", "bob"]);

    let long_subject = format!("xyzzy{}", " a".repeat(120_000));
    let other_words = "lorem ipsum dolor ".repeat(120_000 / 18);
    let fresh: String = (0..50)
        .map(|i| format!("chess move 101 fresh{i} guess{i} e4\n"))
        .collect();
    let mut guesses: String = (1..=5)
        .map(|i| format!("chess set alice g{i} small\n"))
        .collect();
    guesses.push_str("help\nhelp chess\nhelp commands\n");
    let mails: Vec<(&str, String, String)> = vec![
        ("Subject of 120k words", long_subject.clone(), String::new()),
        ("the same + 120 KB body", long_subject, other_words),
        (
            "50 wrong passwords, fresh userids",
            "multiple".into(),
            fresh,
        ),
        ("5 guesses, answers too large", "multiple".into(), guesses),
    ];

    println!("{:<36} {:>9} {:>10}", "mail", "CPU s", "peak MB");
    let mut worst: Vec<String> = Vec::new();
    for (n, (name, subject, body)) in mails.iter().enumerate() {
        let raw = format!(
            "From: mallory{n}@evil.test\r\nTo: pbm@bench.test\r\nSubject: {subject}\r\nMessage-ID: <pw{n}@evil.test>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
        );
        let (cpu, rss_kb) = process(bin, &config, &raw);
        println!("{name:<36} {cpu:>9.3} {:>10.1}", rss_kb as f64 / 1024.0);
        if cpu > CPU_LIMIT_S || rss_kb > RSS_LIMIT_KB {
            worst.push(format!("{name}: {cpu:.2} s, {} MB", rss_kb / 1024));
        }
    }
    // The too-large mail was charged all the same.
    let conn = rusqlite::Connection::open(root.join("var/db.sqlite")).expect("db");
    let failures: i64 = conn
        .query_row(
            "SELECT coalesce(sum(failures), 0) FROM password_failures WHERE userid = 'stranger:alice'",
            [],
            |r| r.get(0),
        )
        .expect("failures");
    assert_eq!(failures, 5, "the guesses of the too-large mail are counted");
    assert!(worst.is_empty(), "over the bound: {worst:?}");
}

/// Run `process` on `raw`; its CPU seconds (user + system) and peak RSS in KiB.
// The child is reaped by `wait4` (for its own rusage), not by `wait`.
#[allow(clippy::zombie_processes)]
fn process(bin: &str, config: &Path, raw: &str) -> (f64, i64) {
    let mut child = Command::new(bin)
        .arg("--config")
        .arg(config)
        .arg("process")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("process runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(raw.as_bytes())
        .expect("write mail");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child writes one status and one rusage.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "process failed: {status}"
    );
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        seconds(usage.ru_utime) + seconds(usage.ru_stime),
        usage.ru_maxrss,
    )
}
