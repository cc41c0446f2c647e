//! Move latency over IMAP + SMTP: `cargo bench --bench latency`.
//!
//! Starts Dovecot and the SMTP router of the mail tests
//! (`tests/servers/start.sh`: mail for pbm@test.local lands in its IMAP
//! mailbox, any other address in a sink Maildir), and `pbmchess serve`
//! reading pbm's mailbox over IMAP (IDLE) and answering over SMTP, with a
//! poll interval of 60 s, so that only IDLE wakes it. Then plays one chess
//! game by mail, one move every 1.5 s, each submitted over SMTP, and times
//! for each move:
//!
//! - arrival: from the submission to the mail's file in pbm's Maildir;
//! - the server: from that file to the first answer in the sink Maildir;
//! - in all: from the submission to the answer.
//!
//! It prints p50 and p95 of each, and, apart from the server, Dovecot's own
//! IDLE notification delay: a bare IMAP session of the bench's own IDLEs on
//! alice's mailbox while mail is submitted to her, from the file appearing
//! to the untagged EXISTS.
//!
//! Needs dovecot-imapd and python3-aiosmtpd (it says so and exits
//! otherwise). Quick mode (`PBMCHESS_BENCH_QUICK=1`, or without
//! `--bench`): 3 moves.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::quick;

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers")
        .join(name)
}

struct Servers {
    dir: tempfile::TempDir,
    imap: u16,
    smtp: u16,
}

impl Drop for Servers {
    fn drop(&mut self) {
        let _ = Command::new(script("stop.sh"))
            .arg(self.dir.path())
            .status();
    }
}

fn start_servers() -> Option<Servers> {
    let dir = tempfile::Builder::new()
        .prefix("pbmchess-latency-")
        .tempdir()
        .unwrap();
    let out = Command::new(script("start.sh"))
        .arg(dir.path())
        .output()
        .expect("run tests/servers/start.sh");
    if out.status.code() == Some(77) {
        println!(
            "latency bench skipped: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    assert!(out.status.success(), "start.sh failed");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let port = |name: &str| -> u16 {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .expect(name)
            .parse()
            .unwrap()
    };
    Some(Servers {
        imap: port("PBMCHESS_TEST_IMAP_PORT"),
        smtp: port("PBMCHESS_TEST_SMTP_PORT"),
        dir,
    })
}

/// Submits `raw` over SMTP with a bare client (one segment per command).
fn submit(port: u16, from: &str, to: &str, raw: &[u8]) {
    let mut smtp = TcpStream::connect(("127.0.0.1", port)).unwrap();
    smtp.set_nodelay(true).unwrap();
    smtp.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(smtp.try_clone().unwrap());
    let mut expect = |code: &str| loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert!(line.starts_with(code), "expected {code}, got {line:?}");
        if line.as_bytes().get(3) != Some(&b'-') {
            break;
        }
    };
    expect("220");
    for (cmd, code) in [
        ("HELO player.test".to_string(), "250"),
        (format!("MAIL FROM:<{from}>"), "250"),
        (format!("RCPT TO:<{to}>"), "250"),
        ("DATA".to_string(), "354"),
    ] {
        smtp.write_all(format!("{cmd}\r\n").as_bytes()).unwrap();
        expect(code);
    }
    let mut data = raw.to_vec();
    data.extend_from_slice(b"\r\n.\r\n");
    smtp.write_all(&data).unwrap();
    expect("250");
    smtp.write_all(b"QUIT\r\n").unwrap();
}

/// Whether a file in `new/` or `cur/` of `maildir` contains `needle`;
/// files already looked at and found wanting are in `seen`.
fn find_in(maildir: &Path, needle: &str, seen: &mut std::collections::HashSet<PathBuf>) -> bool {
    for sub in ["new", "cur", ".Processed/new", ".Processed/cur"] {
        let Ok(rd) = std::fs::read_dir(maildir.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if seen.contains(&p) {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&p) {
                if text.contains(needle) {
                    return true;
                }
                seen.insert(p);
            }
        }
    }
    false
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn summary(name: &str, mut ms: Vec<f64>) {
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "  {name:<34} p50 {:>6.0} ms   p95 {:>6.0} ms",
        percentile(&ms, 0.5),
        percentile(&ms, 0.95)
    );
}

fn wait_until(what: &str, secs: u64, mut done: impl FnMut() -> bool) -> Instant {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if done() {
            return Instant::now();
        }
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn main() {
    let Some(servers) = start_servers() else {
        return;
    };
    let moves = if quick() { 3 } else { 40 };
    let root = tempfile::tempdir().unwrap();
    let config = root.path().join("pbmchess.toml");
    std::fs::write(
        &config,
        format!(
            r#"[server]
address = "pbm@test.local"
name = "PBM Chess"

[database]
path = "var/db.sqlite"

[inbox]
kind = "imap"
host = "127.0.0.1"
port = {imap}
tls = "plain"
username = "pbm"
password = "pbm-secret"
processed_mailbox = "Processed"
timeout_seconds = 10

[outbox]
kind = "smtp"
host = "127.0.0.1"
port = {smtp}
tls = "none"
timeout_seconds = 10

[poll]
interval_seconds = 60

[accounts]
confirm_addresses = false
"#,
            imap = servers.imap,
            smtp = servers.smtp
        ),
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_pbmchess");
    let run = |args: &[&str]| -> String {
        let out = Command::new(bin)
            .arg("--config")
            .arg(&config)
            .args(args)
            .env("RUST_LOG", "warn")
            .output()
            .unwrap();
        assert!(out.status.success(), "pbmchess {args:?} failed");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    run(&["init"]);
    for u in ["ann", "ben"] {
        run(&[
            "admin",
            "user",
            "add",
            u,
            "pw",
            &format!("{u}@elsewhere.example"),
        ]);
    }
    let out = run(&["admin", "challenge", "chess", "ann", "ben"]);
    let board: u32 = out
        .split(|c: char| !c.is_ascii_digit())
        .find_map(|w| w.parse().ok())
        .expect("board number");
    let _serve = Serve(
        Command::new(bin)
            .arg("--config")
            .arg(&config)
            .arg("serve")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let pbm_maildir = servers.dir.path().join("mail/pbm/Maildir");
    let sink = servers.dir.path().join("sink");
    let game = support::game(7, moves);
    // The first pass (the challenge mails, connecting) before timing.
    std::thread::sleep(Duration::from_secs(2));
    let mut arrival = Vec::new();
    let mut server = Vec::new();
    let mut total = Vec::new();
    for (i, mv) in game.iter().enumerate() {
        let player = ["ann", "ben"][i % 2];
        let id = format!("lat{i}.{}@elsewhere.example", std::process::id());
        let raw = format!(
            "From: {player}@elsewhere.example\r\nTo: pbm@test.local\r\nSubject: chess move {board} {player} pw {mv}\r\nMessage-ID: <{id}>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\r\nMy move.\r\n"
        );
        let started = Instant::now();
        submit(
            servers.smtp,
            &format!("{player}@elsewhere.example"),
            "pbm@test.local",
            raw.as_bytes(),
        );
        let mut seen_in = std::collections::HashSet::new();
        let mut seen_out = std::collections::HashSet::new();
        let landed = wait_until("the move in pbm's mailbox", 30, || {
            find_in(&pbm_maildir, &id, &mut seen_in)
        });
        let answered = wait_until("the answer", 30, || {
            find_in(&sink, &format!("In-Reply-To: <{id}>"), &mut seen_out)
        });
        arrival.push((landed - started).as_secs_f64() * 1e3);
        server.push((answered - landed).as_secs_f64() * 1e3);
        total.push((answered - started).as_secs_f64() * 1e3);
        std::thread::sleep(Duration::from_millis(1500).saturating_sub(started.elapsed()));
    }
    let idle = dovecot_idle_delays(&servers, if quick() { 3 } else { 10 });
    println!("latency: {moves} moves over IMAP (IDLE) + SMTP, 1.5 s apart");
    summary("submitted -> in pbm's mailbox", arrival);
    summary("in the mailbox -> answer sent", server);
    summary("in all", total);
    summary("Dovecot: file -> IDLE's EXISTS", idle);
}

/// Dovecot's own delay between a mail's file appearing in a mailbox and
/// the untagged EXISTS to a session in IDLE on it (alice's INBOX).
fn dovecot_idle_delays(servers: &Servers, n: usize) -> Vec<f64> {
    let maildir = servers.dir.path().join("mail/alice/Maildir");
    let mut out = Vec::new();
    for i in 0..n {
        let tcp = TcpStream::connect(("127.0.0.1", servers.imap)).unwrap();
        tcp.set_nodelay(true).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut client = imap::Client::new(tcp);
        client.read_greeting().unwrap();
        let mut session = client
            .login("alice", "alice-secret")
            .map_err(|(e, _)| e)
            .unwrap();
        session.select("INBOX").unwrap();
        let id = format!("idle{i}.{}@elsewhere.example", std::process::id());
        let raw = format!(
            "From: carol@elsewhere.example\r\nTo: alice@test.local\r\nSubject: hi\r\nMessage-ID: <{id}>\r\n\r\nhello\r\n"
        );
        let port = servers.smtp;
        let dir = maildir.clone();
        let needle = id.clone();
        let watcher = std::thread::spawn(move || {
            // Give the IDLE below time to start.
            std::thread::sleep(Duration::from_millis(300));
            submit(
                port,
                "carol@elsewhere.example",
                "alice@test.local",
                raw.as_bytes(),
            );
            let mut seen = std::collections::HashSet::new();
            wait_until("the file in alice's mailbox", 30, || {
                find_in(&dir, &needle, &mut seen)
            })
        });
        let mut handle = session.idle();
        handle.timeout(Duration::from_secs(20)).keepalive(false);
        handle
            .wait_while(imap::extensions::idle::stop_on_any)
            .unwrap();
        let woke = Instant::now();
        drop(handle);
        let landed = watcher.join().unwrap();
        out.push(woke.saturating_duration_since(landed).as_secs_f64() * 1e3);
        let _ = session.logout();
    }
    out
}
