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

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::servers::{submit, wait_until, Servers, Service};
use common::{Install, SentMail};
use pbmchess::mail::{outgoing_message_id, Outgoing};

const SERVER: &str = "pbm@test.local";
const ALICE: &str = "alice@test.local";
/// Lands in the sink: no mailbox of its own.
const BOB: &str = "bob@elsewhere.example";
const CAROL: &str = "carol@elsewhere.example";

/// How the binary is set up against [`Servers`].
impl Servers {
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

# Transport tests: addresses count as confirmed at once (mail::accounts
# tests confirmation).
[accounts]
confirm_addresses = false

[retry]
first_seconds = 1
max_seconds = 1
give_up_hours = 1
"#,
            imap = self.imap_port,
            smtp = self.smtp_port,
        )
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

/// One mail from a player, submitted over SMTP.
fn send(servers: &Servers, from: &str, subject: &str, message_id: &str) {
    submit(
        servers.smtp_port,
        from,
        SERVER,
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
    let key = pbmchess::store::message_id_key(&conn).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT id, recipient, subject, body, in_reply_to, attempts,
                    sent_at IS NOT NULL, failed_at IS NOT NULL, last_error, message_id
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
            // A board mail's own (reply token) Message-ID, else the row's.
            message_id: match r.get::<_, Option<String>>(9)? {
                Some(own) => format!("<{own}>"),
                None => format!(
                    "<{}>",
                    outgoing_message_id(&out, r.get(0)?, "test.local", &key)
                ),
            },
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

/// Mails by Message-ID, with how often each arrived. A reply token's
/// Message-ID (`<t.TOKEN@domain>`) is counted as the outbox keeps it once
/// sent: `<t.SHA256(TOKEN)@domain>` (no token at rest).
fn by_message_id(mails: &[SentMail]) -> BTreeMap<String, usize> {
    use sha2::Digest;
    let mut ids = BTreeMap::new();
    for m in mails {
        let id = m.header("Message-ID").expect("a Message-ID");
        let id = match id.strip_prefix("<t.").and_then(|rest| rest.split_once('@')) {
            Some((token, domain)) => {
                let hash: String = sha2::Sha256::digest(token.as_bytes())
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                format!("<t.{hash}@{domain}")
            }
            None => id,
        };
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
        assert_eq!(m.subject, "New Chess Board 101 bob", "{}", m.raw);
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
            SERVER,
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
        for (m, to) in [
            (alice_mails.last().unwrap(), ALICE),
            (sink.last().unwrap(), BOB),
        ] {
            assert_eq!(m.subject, format!("Chess Board 101 {next}"), "{}", m.raw);
            // The mover's board mail answers the move; the opponent's
            // does not name it (it would show the mover's mail domain).
            let expected = (to == from).then(|| format!("<{id}>"));
            assert_eq!(m.header("In-Reply-To"), expected, "{}", m.raw);
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
        SERVER,
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
    servers.stop(Service::Smtp);

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
    servers.restart(Service::Smtp);
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
            "Chess Board 101 carol",
            "New Chess Board 101 bob",
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

    servers.stop(Service::Dovecot);
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
        assert_eq!(m.subject, "New Chess Board 101 bob");
    }
    assert_eq!(pending(&s), 0);

    servers.restart(Service::Dovecot);
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
        let child = common::pbmchess()
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
    servers.stop(Service::Dovecot);
    // Mail arriving meanwhile waits in the Maildir behind Dovecot.
    send(&servers, CAROL, "help", "c1@elsewhere.example");
    serve.wait_log("cannot read the inbox", 2);
    serve.assert_alive();
    assert!(!answered(CAROL, 1));
    // Back: the daemon catches up.
    servers.restart(Service::Dovecot);
    wait_until(30, "the answer to mail sent during the outage", || {
        answered(CAROL, 1)
    });
    serve.assert_alive();
    assert_eq!(servers.count("pbm", "INBOX"), 0);

    // SMTP goes away: the reply waits in the outbox, and goes once SMTP is back.
    servers.stop(Service::Smtp);
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
    servers.restart(Service::Smtp);
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

/// Playing by reply over real IMAP and SMTP: the board mail
/// alice finds in her IMAP mailbox is answered with just the move; bob's
/// board mail shows it.
#[test]
fn a_reply_to_a_board_mail_plays_over_imap_and_smtp() {
    let Some(servers) = Servers::start("a_reply_to_a_board_mail_plays_over_imap_and_smtp") else {
        return;
    };
    let s = servers.install();
    send(&servers, ALICE, "signup alice AlicePw", "ra1@test.local");
    send(&servers, BOB, "signup bob BobPw", "rb1@elsewhere.example");
    send(
        &servers,
        BOB,
        "chess challenge alice bob",
        "rb2@elsewhere.example",
    );
    poll_until(&s, "the board mails", || {
        servers.mailbox("alice").len() >= 2 && servers.sink().len() >= 2
    });
    let board = servers.mailbox("alice").last().unwrap().clone();
    assert_eq!(board.subject, "New Chess Board 101 alice", "{}", board.raw);
    let token = board.header("Message-ID").unwrap();
    assert!(
        token.starts_with("<t.") && token.ends_with("@test.local>"),
        "{token}"
    );
    let quote: String = board.body.lines().map(|l| format!("> {l}\r\n")).collect();
    let reply = format!(
        "From: {ALICE}\r\nTo: PBM Chess <{SERVER}>\r\nSubject: Re: {}\r\n\
         Message-ID: <ra2@test.local>\r\nIn-Reply-To: {token}\r\nReferences: {token}\r\n\
         Date: Mon, 23 Nov 2026 10:05:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n\
         e4\r\nOver IMAP.\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, PBM Chess <{SERVER}> wrote:\r\n{quote}",
        board.subject
    );
    submit(servers.smtp_port, ALICE, SERVER, reply.as_bytes());
    poll_until(&s, "the move by reply", || servers.sink().len() >= 3);
    let to_bob = servers.sink().last().unwrap().clone();
    assert_eq!(to_bob.subject, "Chess Board 101 bob **", "{}", to_bob.raw);
    assert!(to_bob.body.contains("\n1. e4\n"), "{}", to_bob.body);
    assert!(
        to_bob.body.contains("Comment from alice:\nOver IMAP."),
        "{}",
        to_bob.body
    );
    assert!(to_bob.header("Message-ID").unwrap().starts_with("<t."));
    assert_eq!(pending(&s), 0);
}
