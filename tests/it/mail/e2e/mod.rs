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

mod game;
mod outages;

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
