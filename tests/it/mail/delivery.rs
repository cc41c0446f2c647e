//! Delivery by the real `pbmchess serve` (SMTP and the sendmail
//! program, with its timeout):
//!
//! - a SIGKILL while replies go out over SMTP costs seconds, not the claim's
//!   ten-minute lease: after the restart every reply committed before the
//!   kill is delivered within 10 s, and a reply goes twice at most once per
//!   kill (the one send in flight), with the same Message-ID;
//! - a `poll` run beside a sending `serve` never sends a mail `serve` is
//!   sending (the send lock beside the database);
//! - a `sendmail` that never ends is killed after `[outbox]
//!   timeout_seconds`: `serve` goes on reading mail and stops on SIGTERM
//!   within 10 s even while one hangs.
//!
//! The SMTP server is an in-process sink ([`SlowSink`]) that takes a few
//! milliseconds per mail, so a kill lands while mail is being sent.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Install;

/// An SMTP server that records the Message-ID of every mail it accepts,
/// and waits `delay` before it accepts each.
struct SlowSink {
    port: u16,
    received: Arc<Mutex<Vec<String>>>,
}

impl SlowSink {
    fn start(delay: Duration) -> SlowSink {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let shared = received.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { return };
                let shared = shared.clone();
                std::thread::spawn(move || {
                    let _ = serve_smtp(conn, delay, &shared);
                });
            }
        });
        SlowSink { port, received }
    }

    fn ids(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }
}

fn serve_smtp(
    conn: TcpStream,
    delay: Duration,
    received: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let mut w = conn.try_clone()?;
    let mut r = BufReader::new(conn);
    w.write_all(b"220 slow sink\r\n")?;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let upper = line.trim_end().to_ascii_uppercase();
        if upper.starts_with("EHLO") {
            w.write_all(b"250-sink\r\n250 8BITMIME\r\n")?;
        } else if upper == "DATA" {
            w.write_all(b"354 go on\r\n")?;
            let mut id = String::new();
            loop {
                let mut l = String::new();
                if r.read_line(&mut l)? == 0 {
                    return Ok(());
                }
                if l == ".\r\n" {
                    break;
                }
                if id.is_empty() && l.to_ascii_lowercase().starts_with("message-id:") {
                    id = l[11..].trim().to_string();
                }
            }
            std::thread::sleep(delay);
            received.lock().unwrap().push(id);
            w.write_all(b"250 queued\r\n")?;
        } else if upper == "QUIT" {
            w.write_all(b"221 bye\r\n")?;
            return Ok(());
        } else {
            w.write_all(b"250 ok\r\n")?;
        }
    }
}

/// Maildir in, SMTP out to `port`; the default send lease (600 s).
fn smtp_install(port: u16) -> Install {
    Install::with_whole_config(&format!(
        r#"[server]
address = "pbm@games.test"
name = "Test PBM"

[database]
path = "var/db.sqlite"

[inbox]
kind = "maildir"
path = "var/inbox"

[outbox]
kind = "smtp"
host = "127.0.0.1"
port = {port}
tls = "none"
timeout_seconds = 5
hello_name = "pbm.games.test"

[accounts]
confirm_addresses = false

[poll]
interval_seconds = 1

[limits]
commands_per_hour = 100000
"#
    ))
}

fn serve(install: &Install) -> Child {
    common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .arg("serve")
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Two players and a board between them; its number.
fn players_and_board(install: &Install) -> u32 {
    for u in ["ann", "ben"] {
        install.ok(&[
            "admin",
            "user",
            "add",
            u,
            "pw",
            &format!("{u}@players.test"),
        ]);
    }
    let out = install.ok(&["admin", "challenge", "chess", "ann", "ben"]);
    out.split(|c: char| !c.is_ascii_digit())
        .find_map(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("a board number in {out:?}"))
}

/// The Message-IDs (with brackets) of the outbox rows committed and not
/// yet recorded sent, and how many of them are claimed.
fn unsent(install: &Install) -> (Vec<String>, usize) {
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    let key = pbmchess::store::message_id_key(&conn).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT id, recipient, subject, body, in_reply_to, message_id, claimed FROM outbox
             WHERE sent_at IS NULL AND failed_at IS NULL",
        )
        .unwrap();
    let mut claimed = 0;
    let ids = stmt
        .query_map([], |r| {
            let out = pbmchess::mail::Outgoing {
                to: r.get(1)?,
                subject: r.get(2)?,
                body: r.get(3)?,
                in_reply_to: r.get(4)?,
            };
            let own: Option<String> = r.get(5)?;
            let is_claimed: i64 = r.get(6)?;
            let id = own.unwrap_or_else(|| {
                pbmchess::mail::outgoing_message_id(&out, r.get(0).unwrap(), "games.test", &key)
            });
            Ok((format!("<{id}>"), is_claimed == 1))
        })
        .unwrap()
        .map(Result::unwrap)
        .inspect(|(_, c)| claimed += usize::from(*c))
        .map(|(id, _)| id)
        .collect();
    (ids, claimed)
}

/// The rows not sent, for a failure's message.
fn outbox_state(install: &Install) -> String {
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT id, attempts, next_attempt_at, claimed, last_error FROM outbox
             WHERE sent_at IS NULL AND failed_at IS NULL",
        )
        .unwrap();
    let rows: Vec<String> = stmt
        .query_map([], |r| {
            Ok(format!(
                "{}: {} attempts, due {}, claimed {}, {:?}",
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, Option<String>>(4)?
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows.join("\n")
}

fn wait_for(secs: u64, what: &str, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "gave up waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    start.elapsed()
}

#[test]
fn after_a_sigkill_mid_send_every_committed_reply_goes_out_within_seconds_once_or_twice() {
    let sink = SlowSink::start(Duration::from_millis(15));
    let mut install = smtp_install(sink.port);
    let board = players_and_board(&install);
    install.poll();
    let before = sink.ids().len();
    assert!(before > 0, "the challenge went out over SMTP");
    let mut inbound = Vec::new();
    for i in 0..240 {
        let who = ["ann", "ben"][i % 2];
        inbound.push(install.send(
            &format!("{who}@players.test"),
            &format!("chess show {board}"),
            "",
        ));
    }
    // Kill `serve` while it sends, a few times.
    let mut kills = 0;
    let mut claims_left = 0;
    for round in 0..4 {
        let mut child = serve(&install);
        let at = sink.ids().len();
        wait_for(30, "serve to send", || {
            sink.ids().len() >= at + 5 + 3 * round
        });
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;
        claims_left += unsent(&install).1;
    }
    assert!(claims_left > 0, "some kill left mail claimed");
    // The restart: what was committed goes out within seconds, though
    // its claim's lease (600 s) has not run out.
    let (committed, claimed) = unsent(&install);
    assert!(!committed.is_empty());
    let mut child = serve(&install);
    let took = wait_for(10, "the committed replies after the restart", || {
        let got = sink.ids();
        committed.iter().all(|id| got.contains(id))
    });
    wait_for(60, "every mail answered", || {
        unsent(&install).0.is_empty()
            && std::fs::read_dir(install.path("var/inbox/new"))
                .unwrap()
                .count()
                == 0
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let mut times: BTreeMap<String, usize> = BTreeMap::new();
    for id in sink.ids() {
        *times.entry(id).or_default() += 1;
    }
    let twice: Vec<_> = times.iter().filter(|(_, n)| **n > 1).collect();
    assert!(times.values().all(|n| *n <= 2), "{twice:?}");
    assert!(
        twice.len() <= kills,
        "at most the one mail in flight per kill goes twice: {twice:?}"
    );
    // Every inbound mail answered, once per Message-ID.
    let answered = times.len() - before;
    assert_eq!(
        answered,
        inbound.len(),
        "{claimed} claimed at the last kill; took {took:?}"
    );
}

#[test]
fn a_poll_beside_a_sending_serve_never_sends_what_serve_is_sending() {
    let sink = SlowSink::start(Duration::from_millis(10));
    let mut install = smtp_install(sink.port);
    let board = players_and_board(&install);
    install.poll();
    for i in 0..150 {
        let who = ["ann", "ben"][i % 2];
        install.send(
            &format!("{who}@players.test"),
            &format!("chess show {board}"),
            "",
        );
    }
    let mut child = serve(&install);
    let at = sink.ids().len();
    wait_for(30, "serve to send", || sink.ids().len() > at);
    // cron's poll, again and again, while serve sends (a poll that finds
    // the send lock taken is over at once, leaving the sending to serve).
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut polls = 0;
    while !unsent(&install).0.is_empty() || polls < 3 {
        install.poll();
        polls += 1;
        assert!(
            Instant::now() < deadline,
            "the outbox never emptied: {}",
            outbox_state(&install)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    wait_for(30, "every mail answered", || {
        std::fs::read_dir(install.path("var/inbox/new"))
            .unwrap()
            .count()
            == 0
            && unsent(&install).0.is_empty()
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let ids = sink.ids();
    let mut seen = std::collections::HashSet::new();
    let twice: Vec<_> = ids.iter().filter(|id| !seen.insert(*id)).collect();
    assert!(twice.is_empty(), "sent twice without a crash: {twice:?}");
    assert_eq!(ids.len(), at + 150);
}

#[test]
fn a_sendmail_that_never_ends_stops_neither_reading_nor_sigterm() {
    let mut install = Install::with_whole_config(
        r#"[server]
address = "pbm@games.test"
name = "Test PBM"

[database]
path = "var/db.sqlite"

[inbox]
kind = "maildir"
path = "var/inbox"

[outbox]
kind = "sendmail"
command = "./hang-sendmail"
timeout_seconds = 2

[accounts]
confirm_addresses = false

[poll]
interval_seconds = 1
"#,
    );
    {
        use std::os::unix::fs::PermissionsExt;
        let script = install.path("hang-sendmail");
        // Reads nothing and sleeps for ever.
        std::fs::write(&script, "#!/bin/sh\nexec sleep 100000\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let processed = |install: &Install| -> i64 {
        let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
        conn.query_row("SELECT count(*) FROM processed_mail", [], |r| r.get(0))
            .unwrap()
    };
    install.send("someone@players.test", "help", "");
    let mut child = serve(&install);
    wait_for(10, "the first mail read", || processed(&install) == 1);
    // Its answer hangs in sendmail now; more mail is read all the same.
    install.send("other@players.test", "help", "");
    install.send("third@players.test", "help", "");
    wait_for(20, "the later mails read", || processed(&install) == 3);
    // A stop while a send hangs: serve is gone within 10 s.
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill(2) with SIGTERM on the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let stopped = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success() || status.code().is_some(), "{status}");
            break;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(10),
            "serve did not stop within 10 s of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Nothing was lost: the answers wait in the outbox.
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    let waiting: i64 = conn
        .query_row(
            "SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(waiting, 3);
}
