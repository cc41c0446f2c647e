//! End to end through the real `pbmchess` binary and real mail servers:
//! players' mail goes in over SMTP (aiosmtpd, `tests/servers/smtp_router.py`)
//! and lands in the server's IMAP mailbox (Dovecot); `pbmchess poll` or
//! `serve` reads it over IMAP and answers over SMTP; the answers land in the
//! players' mailboxes: alice@test.local is an IMAP account, any other
//! address lands in the sink Maildir `DIR/sink`. The outage tests stop and
//! start one server alone on its port with `tests/servers/service.sh`.
//!
//! When the packages (dovecot-imapd, python3-aiosmtpd) are missing, each
//! test prints `skipped: ...` and passes, unless
//! `PBMCHESS_TEST_SERVERS_REQUIRED=1` is set, where it fails.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{parse_sent, Install, SentMail};
use pbmchess::mail::{outgoing_message_id, Outgoing};

const SERVER: &str = "pbm@test.local";
const ALICE: &str = "alice@test.local";
/// Lands in the sink: no mailbox of its own.
const BOB: &str = "bob@elsewhere.example";
const CAROL: &str = "carol@elsewhere.example";

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers")
        .join(name)
}

/// Dovecot and the SMTP router, started by `tests/servers/start.sh` in a
/// temp dir; stopped on drop.
struct Servers {
    dir: tempfile::TempDir,
    imap_port: u16,
    smtp_port: u16,
}

impl Servers {
    /// Starts the servers, or returns `None` (after printing why, to the
    /// real stderr) when the packages are missing.
    fn start(test: &str) -> Option<Servers> {
        let dir = tempfile::Builder::new()
            .prefix("pbmchess-e2e-")
            .tempdir()
            .unwrap();
        let out = Command::new(script("start.sh"))
            .arg(dir.path())
            .output()
            .expect("run tests/servers/start.sh");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() == Some(77) {
            let required = std::env::var("PBMCHESS_TEST_SERVERS_REQUIRED").is_ok_and(|v| v == "1");
            assert!(!required, "{test}: mail test servers required but {stderr}");
            // Not eprintln!, which the test harness captures.
            let _ = writeln!(std::io::stderr(), "skipped: {test}: {}", stderr.trim());
            return None;
        }
        assert!(out.status.success(), "start.sh failed: {stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let port = |name: &str| -> u16 {
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{name}=")))
                .unwrap_or_else(|| panic!("start.sh printed no {name}: {stdout}"))
                .parse()
                .unwrap()
        };
        Some(Servers {
            imap_port: port("PBMCHESS_TEST_IMAP_PORT"),
            smtp_port: port("PBMCHESS_TEST_SMTP_PORT"),
            dir,
        })
    }

    /// `tests/servers/service.sh DIR stop|start dovecot|smtp`: returns once
    /// the port is closed or open.
    fn service(&self, action: &str, name: &str) {
        let out = Command::new(script("service.sh"))
            .arg(self.dir.path())
            .args([action, name])
            .output()
            .expect("run tests/servers/service.sh");
        assert!(
            out.status.success(),
            "service.sh {action} {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A pbmchess installation reading pbm's IMAP inbox and sending over
    /// SMTP, with retries after one second.
    fn install(&self) -> Install {
        Install::with_whole_config(&self.config(None))
    }

    /// The config of [`Servers::install`]; with `smtp_password`, the SMTP
    /// client logs in as pbm with it.
    fn config(&self, smtp_password: Option<&str>) -> String {
        let auth = smtp_password
            .map(|pw| format!("username = \"pbm\"\npassword = \"{pw}\"\n"))
            .unwrap_or_default();
        format!(
            r#"[server]
address = "{SERVER}"
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
timeout_seconds = 5

[outbox]
kind = "smtp"
host = "127.0.0.1"
port = {smtp}
tls = "none"
timeout_seconds = 5
{auth}
[poll]
interval_seconds = 1

[retry]
first_seconds = 1
max_seconds = 1
give_up_hours = 1
"#,
            imap = self.imap_port,
            smtp = self.smtp_port,
        )
    }

    /// A raw IMAP session as `user` (password `user-secret`).
    fn session(&self, user: &str) -> imap::Session<std::net::TcpStream> {
        let tcp = std::net::TcpStream::connect(("127.0.0.1", self.imap_port)).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut client = imap::Client::new(tcp);
        client.read_greeting().unwrap();
        client
            .login(user, format!("{user}-secret"))
            .map_err(|(e, _)| e)
            .unwrap()
    }

    /// How many messages `mailbox` of `user` holds.
    fn count(&self, user: &str, mailbox: &str) -> u32 {
        let mut s = self.session(user);
        let n = s.examine(mailbox).unwrap().exists;
        s.logout().unwrap();
        n
    }

    /// Every mail in `user`'s INBOX, read over IMAP, in arrival order.
    fn mailbox(&self, user: &str) -> Vec<SentMail> {
        let mut s = self.session(user);
        let exists = s.examine("INBOX").unwrap().exists;
        let mut out = Vec::new();
        if exists > 0 {
            let fetches = s.fetch("1:*", "BODY.PEEK[]").unwrap();
            for f in fetches.iter() {
                out.push(parse_sent(&String::from_utf8_lossy(f.body().unwrap())));
            }
        }
        s.logout().unwrap();
        out
    }

    /// Every mail delivered to the sink Maildir, in delivery order.
    fn sink(&self) -> Vec<SentMail> {
        let mut files = Vec::new();
        for sub in ["new", "cur"] {
            if let Ok(rd) = std::fs::read_dir(self.dir.path().join("sink").join(sub)) {
                files.extend(rd.map(|e| e.unwrap().path()));
            }
        }
        // smtp_router.py names files `<secs>.M<micros>P<pid>Q<counter>...`.
        files.sort_by_key(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let num = |s: &str| s.parse::<u64>().unwrap_or(0);
            let (secs, rest) = name.split_once(".M").unwrap_or((&name, ""));
            let micros = rest.split('P').next().unwrap_or("");
            (num(secs), num(micros), name.clone())
        });
        files
            .iter()
            .map(|f| parse_sent(&std::fs::read_to_string(f).unwrap()))
            .collect()
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        let _ = Command::new(script("stop.sh"))
            .arg(self.dir.path())
            .status();
    }
}

/// A player's mail to the server, as a mail client writes it.
fn player_mail(from: &str, subject: &str, body: &str, message_id: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: PBM Chess <{SERVER}>\r\nSubject: {subject}\r\n\
         Message-ID: <{message_id}>\r\nDate: Sun, 22 Nov 2026 06:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
    .into_bytes()
}

/// Submits `raw` from `from` to the server's address over SMTP, with a tiny
/// client of its own (not the code under test).
fn submit(smtp_port: u16, from: &str, raw: &[u8]) {
    let mut smtp = std::net::TcpStream::connect(("127.0.0.1", smtp_port)).unwrap();
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
        (format!("RCPT TO:<{SERVER}>"), "250"),
        ("DATA".to_string(), "354"),
    ] {
        write!(smtp, "{cmd}\r\n").unwrap();
        expect(code);
    }
    smtp.write_all(raw).unwrap();
    smtp.write_all(b"\r\n.\r\n").unwrap();
    expect("250");
    smtp.write_all(b"QUIT\r\n").unwrap();
}

/// One mail from a player, submitted over SMTP.
fn send(servers: &Servers, from: &str, subject: &str, message_id: &str) {
    submit(
        servers.smtp_port,
        from,
        &player_mail(from, subject, "", message_id),
    );
}

/// Runs `poll` (which must succeed) until `done` holds; at most 20 s.
/// Returns the stderr of every poll run.
fn poll_until(s: &Install, what: &str, mut done: impl FnMut() -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut log = String::new();
    loop {
        let out = s.run(&["poll"]);
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "poll failed: {stderr}");
        log.push_str(&stderr);
        if done() {
            return log;
        }
        assert!(
            Instant::now() < deadline,
            "gave up waiting for {what}:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Waits (at most `secs`) until `done` holds.
fn wait_until(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One outbox row as the database holds it.
#[derive(Debug)]
struct Row {
    to: String,
    attempts: u32,
    sent: bool,
    failed: bool,
    last_error: Option<String>,
    /// The Message-ID its mail carries.
    message_id: String,
}

fn outbox_rows(s: &Install) -> Vec<Row> {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT id, recipient, subject, body, in_reply_to, attempts,
                    sent_at IS NOT NULL, failed_at IS NOT NULL, last_error
             FROM outbox ORDER BY id",
        )
        .unwrap();
    stmt.query_map([], |r| {
        let out = Outgoing {
            to: r.get(1)?,
            subject: r.get(2)?,
            body: r.get(3)?,
            in_reply_to: r.get(4)?,
        };
        Ok(Row {
            message_id: format!("<{}>", outgoing_message_id(&out, r.get(0)?, "test.local")),
            to: out.to,
            attempts: r.get(5)?,
            sent: r.get(6)?,
            failed: r.get(7)?,
            last_error: r.get(8)?,
        })
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn pending(s: &Install) -> usize {
    outbox_rows(s)
        .iter()
        .filter(|r| !r.sent && !r.failed)
        .count()
}

/// Mails by Message-ID, with how often each arrived.
fn by_message_id(mails: &[SentMail]) -> BTreeMap<String, usize> {
    let mut ids = BTreeMap::new();
    for m in mails {
        let id = m.header("Message-ID").expect("a Message-ID");
        *ids.entry(id).or_default() += 1;
    }
    ids
}

#[test]
fn a_whole_game_by_real_mail_with_poll() {
    let Some(servers) = Servers::start("a_whole_game_by_real_mail_with_poll") else {
        return;
    };
    let s = servers.install();
    let alice = || servers.mailbox("alice").len();

    // Sign up: alice has an IMAP mailbox, bob's mail lands in the sink.
    send(&servers, ALICE, "signup alice AlicePw", "a1@test.local");
    send(&servers, BOB, "signup bob BobPw", "b1@elsewhere.example");
    poll_until(&s, "the welcome mails", || {
        alice() >= 1 && !servers.sink().is_empty()
    });
    let welcome = &servers.mailbox("alice")[0];
    assert_eq!(welcome.to, ALICE);
    assert!(welcome.subject.contains("Welcome"), "{}", welcome.subject);
    for (name, value) in [
        ("Return-Path", "<pbm@test.local>"),
        ("From", "\"PBM Chess\" <pbm@test.local>"),
        ("To", ALICE),
        ("In-Reply-To", "<a1@test.local>"),
        ("References", "<a1@test.local>"),
        ("Auto-Submitted", "auto-replied"),
        ("Content-Type", "text/plain; charset=utf-8"),
    ] {
        assert_eq!(
            welcome.header(name).as_deref(),
            Some(value),
            "{name} in\n{}",
            welcome.raw
        );
    }
    let mid = welcome.header("Message-ID").unwrap();
    assert!(
        mid.starts_with("<pbmchess.") && mid.ends_with("@test.local>"),
        "{mid}"
    );
    assert!(welcome.header("Date").is_some_and(|d| !d.is_empty()));
    assert_eq!(servers.sink()[0].to, BOB);
    assert_eq!(
        servers.sink()[0].header("In-Reply-To").as_deref(),
        Some("<b1@elsewhere.example>")
    );

    // Bob challenges alice and plays White: fool's mate.
    send(
        &servers,
        BOB,
        "chess challenge bob alice",
        "b2@elsewhere.example",
    );
    let mut alice_has = 2;
    poll_until(&s, "the challenge", || {
        alice() >= alice_has && servers.sink().len() >= alice_has
    });
    for m in [
        servers.mailbox("alice").last().unwrap().clone(),
        servers.sink().last().unwrap().clone(),
    ] {
        assert_eq!(m.subject, "Chess Board 101 bob", "{}", m.raw);
        assert!(m.body.starts_with("It is bob's turn."), "{}", m.body);
    }
    let moves = [
        (BOB, "bob BobPw", "f3", "alice"),
        (ALICE, "alice AlicePw", "e5", "bob"),
        (BOB, "bob BobPw", "g4", "alice"),
        (ALICE, "alice alicepw", "Qh4#", "finished **"),
    ];
    // The mating move carries a comment in UTF-8, relayed to both.
    let comment = "Échec et mat ♛ — merci !";
    for (n, (from, user_pw, mv, next)) in moves.into_iter().enumerate() {
        let id = format!("move{n}@players.test");
        let body = if mv == "Qh4#" { comment } else { "" };
        submit(
            servers.smtp_port,
            from,
            &player_mail(from, &format!("chess move 101 {user_pw} {mv}"), body, &id),
        );
        alice_has += 1;
        poll_until(&s, mv, || {
            alice() >= alice_has && servers.sink().len() >= alice_has
        });
        let alice_mails = servers.mailbox("alice");
        let sink = servers.sink();
        assert_eq!(alice_mails.len(), alice_has, "{alice_mails:#?}");
        assert_eq!(sink.len(), alice_has, "{sink:#?}");
        for m in [alice_mails.last().unwrap(), sink.last().unwrap()] {
            assert_eq!(m.subject, format!("Chess Board 101 {next}"), "{}", m.raw);
            // Every board mail answers the move that caused it.
            assert_eq!(
                m.header("In-Reply-To").as_deref(),
                Some(format!("<{id}>").as_str())
            );
        }
    }
    let alice_mails = servers.mailbox("alice");
    let sink = servers.sink();
    for m in [alice_mails.last().unwrap(), sink.last().unwrap()] {
        assert!(
            m.body.starts_with("Game won by alice (checkmate)."),
            "{}",
            m.body
        );
        assert!(m.body.contains("Qh4#"), "{}", m.body);
        assert!(m.body.contains(comment), "{}", m.body);
    }
    // An auto-reply to the server is filed (flagged), never answered.
    submit(
        servers.smtp_port,
        ALICE,
        format!(
            "From: {ALICE}\r\nTo: {SERVER}\r\nSubject: Out of office\r\n\
             Auto-Submitted: auto-replied\r\nMessage-ID: <ooo@test.local>\r\n\r\naway\r\n"
        )
        .as_bytes(),
    );
    poll_until(&s, "the auto-reply to be filed", || {
        servers.count("pbm", "INBOX") == 0
    });

    // Processed mail left the inbox for Processed: a poll answers nothing.
    assert_eq!(servers.count("pbm", "INBOX"), 0);
    assert_eq!(servers.count("pbm", "Processed"), 8);
    let mut session = servers.session("pbm");
    session.examine("Processed").unwrap();
    assert_eq!(session.search("FLAGGED").unwrap().len(), 1);
    assert_eq!(session.search("SEEN").unwrap().len(), 8);
    session.logout().unwrap();
    s.poll();
    assert_eq!(servers.mailbox("alice").len(), 6);
    assert_eq!(servers.sink().len(), 6);
    // Every mail arrived once, no password left the server.
    let all: Vec<SentMail> = alice_mails.into_iter().chain(sink).collect();
    assert!(by_message_id(&all).values().all(|&n| n == 1));
    for m in &all {
        let lower = m.raw.to_lowercase();
        assert!(
            !lower.contains("alicepw") && !lower.contains("bobpw"),
            "{}",
            m.raw
        );
    }
    assert_eq!(pending(&s), 0);
}

#[test]
fn replies_due_while_smtp_is_down_are_delivered_once_after_it_is_back() {
    let Some(servers) =
        Servers::start("replies_due_while_smtp_is_down_are_delivered_once_after_it_is_back")
    else {
        return;
    };
    let s = servers.install();
    // Three commands wait in the inbox, worth four replies.
    send(&servers, BOB, "signup bob BobPw", "b1@elsewhere.example");
    send(
        &servers,
        CAROL,
        "signup carol CarolPw",
        "c1@elsewhere.example",
    );
    send(
        &servers,
        BOB,
        "chess challenge bob carol",
        "b2@elsewhere.example",
    );
    servers.service("stop", "smtp");

    // Polls while SMTP is down: the mail is read and filed, the replies wait.
    let out = s.run(&["poll"]);
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{log}");
    assert!(log.contains("will retry"), "{log}");
    assert_eq!(servers.count("pbm", "INBOX"), 0);
    assert_eq!(servers.count("pbm", "Processed"), 3);
    assert_eq!(pending(&s), 4);
    // More mail meanwhile (put straight into the mailbox: SMTP is down).
    let mut session = servers.session("pbm");
    session
        .append(
            "INBOX",
            &player_mail(
                BOB,
                "chess move 101 bob BobPw f3",
                "",
                "b3@elsewhere.example",
            ),
        )
        .finish()
        .unwrap();
    session.logout().unwrap();
    for _ in 0..3 {
        let out = s.run(&["poll"]);
        assert!(out.status.success());
    }
    let last_failure = Instant::now();
    assert_eq!(servers.count("pbm", "INBOX"), 0);
    assert_eq!(pending(&s), 6, "{:#?}", outbox_rows(&s));
    assert!(servers.sink().is_empty());
    let tried = outbox_rows(&s);
    assert!(tried.iter().any(|r| r.attempts > 0), "{tried:#?}");
    assert!(tried
        .iter()
        .all(|r| r.last_error.is_some() == (r.attempts > 0)));

    // Back on the same port: after the retry delay (one second), one poll
    // delivers it all.
    servers.service("start", "smtp");
    let due = last_failure + Duration::from_millis(1100);
    std::thread::sleep(due.saturating_duration_since(Instant::now()));
    s.poll();
    let rows = outbox_rows(&s);
    assert_eq!(rows.len(), 6);
    assert!(rows.iter().all(|r| r.sent && !r.failed), "{rows:#?}");
    // One more poll a little later sends nothing again.
    std::thread::sleep(Duration::from_millis(1100));
    s.poll();
    let sink = servers.sink();
    assert_eq!(sink.len(), 6, "{sink:#?}");
    let got = by_message_id(&sink);
    for row in &rows {
        assert_eq!(got.get(&row.message_id), Some(&1), "{row:?} in {got:#?}");
    }
    let to_bob = sink.iter().filter(|m| m.to == BOB).count();
    assert_eq!(to_bob, 3);
    // Delivery order after the outage follows the retry times, not the
    // order the replies were queued in.
    let mut to_carol: Vec<&str> = sink
        .iter()
        .filter(|m| m.to == CAROL)
        .map(|m| m.subject.as_str())
        .collect();
    to_carol.sort_unstable();
    assert_eq!(
        to_carol,
        [
            "Chess Board 101 bob",
            "Chess Board 101 carol",
            "Welcome to PBM Chess, carol"
        ]
    );
}

#[test]
fn a_rejected_recipient_is_given_up_and_the_others_still_go() {
    let Some(servers) = Servers::start("a_rejected_recipient_is_given_up_and_the_others_still_go")
    else {
        return;
    };
    let s = servers.install();
    // The router answers 550 for reject@..., 451 for tempfail@...
    send(
        &servers,
        "reject@elsewhere.example",
        "help",
        "r1@elsewhere.example",
    );
    send(
        &servers,
        "tempfail@elsewhere.example",
        "help",
        "t1@elsewhere.example",
    );
    send(&servers, CAROL, "help", "c1@elsewhere.example");
    let log = poll_until(&s, "carol's answer", || {
        servers.sink().iter().any(|m| m.to == CAROL)
    });
    assert!(log.contains("given up"), "{log}");
    let rows = outbox_rows(&s);
    assert_eq!(rows.len(), 3, "{rows:#?}");
    let row = |to: &str| rows.iter().find(|r| r.to == to).unwrap();
    let rejected = row("reject@elsewhere.example");
    assert!(rejected.failed && !rejected.sent, "{rejected:?}");
    assert_eq!(rejected.attempts, 1);
    assert!(
        rejected.last_error.as_deref().unwrap().contains("550"),
        "{rejected:?}"
    );
    let tempfail = row("tempfail@elsewhere.example");
    assert!(!tempfail.failed && !tempfail.sent, "{tempfail:?}");
    assert!(tempfail.attempts >= 1);
    assert!(row(CAROL).sent);

    // Later polls try the temporary failure again, never the rejected one.
    let before = tempfail.attempts;
    poll_until(&s, "another attempt at tempfail", || {
        outbox_rows(&s)
            .iter()
            .any(|r| r.to == "tempfail@elsewhere.example" && r.attempts > before)
    });
    let rows = outbox_rows(&s);
    let rejected = rows
        .iter()
        .find(|r| r.to == "reject@elsewhere.example")
        .unwrap();
    assert_eq!(rejected.attempts, 1, "{rejected:?}");
    assert!(rows.iter().all(|r| !r.failed || r.to.starts_with("reject")));
    let sink = servers.sink();
    assert_eq!(sink.len(), 1, "{sink:#?}");
}

#[test]
fn poll_while_imap_is_down_exits_2_still_sends_and_catches_up_later() {
    let Some(servers) =
        Servers::start("poll_while_imap_is_down_exits_2_still_sends_and_catches_up_later")
    else {
        return;
    };
    let s = servers.install();
    send(&servers, BOB, "signup bob BobPw", "b1@elsewhere.example");
    poll_until(&s, "bob's welcome", || servers.sink().len() == 1);

    servers.service("stop", "dovecot");
    // Mail arriving meanwhile waits in the Maildir behind Dovecot; replies
    // queued by the admin still go out.
    send(
        &servers,
        CAROL,
        "signup carol CarolPw",
        "c1@elsewhere.example",
    );
    s.ok(&[
        "admin",
        "user",
        "add",
        "dave",
        "DavePw",
        "dave@elsewhere.example",
    ]);
    s.ok(&["admin", "challenge", "chess", "bob", "dave"]);
    let out = s.run(&["poll"]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{log}");
    assert!(log.contains("cannot read the inbox"), "{log}");
    let sink = servers.sink();
    assert_eq!(sink.len(), 3, "{sink:#?}");
    for m in &sink[1..] {
        assert_eq!(m.subject, "Chess Board 101 bob");
    }
    assert_eq!(pending(&s), 0);

    servers.service("start", "dovecot");
    let out = s.run(&["poll"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sink = servers.sink();
    assert_eq!(sink.len(), 4, "{sink:#?}");
    assert_eq!(sink[3].to, CAROL);
    assert_eq!(
        sink[3].header("In-Reply-To").as_deref(),
        Some("<c1@elsewhere.example>")
    );
    assert_eq!(servers.count("pbm", "INBOX"), 0);
}

#[test]
fn a_refused_smtp_login_holds_the_replies_until_the_password_is_fixed() {
    let Some(servers) =
        Servers::start("a_refused_smtp_login_holds_the_replies_until_the_password_is_fixed")
    else {
        return;
    };
    let s = Install::with_whole_config(&servers.config(Some("wrong-secret")));
    send(&servers, BOB, "help", "b1@elsewhere.example");
    send(&servers, CAROL, "help", "c1@elsewhere.example");
    let out = s.run(&["poll"]);
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{log}");
    assert!(log.contains("535"), "{log}");
    // A 535 is about the server's own account, not the recipient: a
    // configuration error that the admin fixes; the replies wait.
    let rows = outbox_rows(&s);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| !r.failed && !r.sent), "{rows:#?}");
    assert!(servers.sink().is_empty());

    std::fs::write(&s.config, servers.config(Some("pbm-secret"))).unwrap();
    poll_until(&s, "the held-back replies", || pending(&s) == 0);
    let sink = servers.sink();
    assert_eq!(sink.len(), 2, "{sink:#?}");
    assert!(by_message_id(&sink).values().all(|&n| n == 1));
    assert!(outbox_rows(&s).iter().all(|r| r.sent));
}

/// A running `pbmchess serve` whose log goes to a file; killed on drop if
/// still running.
struct Serve {
    child: Child,
    log: PathBuf,
}

impl Serve {
    fn start(s: &Install) -> Serve {
        let log = s.path("serve.log");
        let child = Command::new(env!("CARGO_BIN_EXE_pbmchess"))
            .arg("--config")
            .arg(&s.config)
            .arg("serve")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Serve { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn assert_alive(&mut self) {
        let exit = self.child.try_wait().unwrap();
        assert!(exit.is_none(), "serve exited: {exit:?}\n{}", self.log());
    }

    /// Waits until the log holds `text` `n` times or more.
    fn wait_log(&mut self, text: &str, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.log().matches(text).count() < n {
            self.assert_alive();
            assert!(
                Instant::now() < deadline,
                "no {text:?} in the log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGTERM; returns the exit status.
    fn terminate(&mut self) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(exit) = self.child.try_wait().unwrap() {
                return exit;
            }
            assert!(
                Instant::now() < deadline,
                "serve did not stop on SIGTERM:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn serve_survives_imap_and_smtp_outages_and_stops_on_sigterm() {
    let Some(servers) = Servers::start("serve_survives_imap_and_smtp_outages_and_stops_on_sigterm")
    else {
        return;
    };
    let s = servers.install();
    let mut serve = Serve::start(&s);
    let answered = |to: &str, n: usize| servers.sink().iter().filter(|m| m.to == to).count() >= n;

    send(&servers, BOB, "help", "b1@elsewhere.example");
    wait_until(20, "the first answer", || answered(BOB, 1));

    // Dovecot goes away: the daemon logs it and keeps running.
    servers.service("stop", "dovecot");
    // Mail arriving meanwhile waits in the Maildir behind Dovecot.
    send(&servers, CAROL, "help", "c1@elsewhere.example");
    serve.wait_log("cannot read the inbox", 2);
    serve.assert_alive();
    assert!(!answered(CAROL, 1));
    // Back: the daemon catches up.
    servers.service("start", "dovecot");
    wait_until(30, "the answer to mail sent during the outage", || {
        answered(CAROL, 1)
    });
    serve.assert_alive();
    assert_eq!(servers.count("pbm", "INBOX"), 0);

    // SMTP goes away: the reply waits in the outbox, and goes once SMTP is back.
    servers.service("stop", "smtp");
    let mut session = servers.session("pbm");
    session
        .append(
            "INBOX",
            &player_mail(BOB, "help chess", "", "b2@elsewhere.example"),
        )
        .finish()
        .unwrap();
    session.logout().unwrap();
    serve.wait_log("will retry", 1);
    assert_eq!(pending(&s), 1);
    servers.service("start", "smtp");
    wait_until(30, "the answer held back by the SMTP outage", || {
        answered(BOB, 2)
    });
    serve.assert_alive();

    let exit = serve.terminate();
    assert!(exit.success(), "{exit}\n{}", serve.log());
    let log = serve.log();
    assert!(log.contains("stopped"), "{log}");
    assert!(!log.contains("panicked"), "{log}");
    let sink = servers.sink();
    assert_eq!(sink.len(), 3, "{sink:#?}");
    assert!(by_message_id(&sink).values().all(|&n| n == 1), "{sink:#?}");
    assert_eq!(pending(&s), 0);
}
