//! `pbmchess check`: try what the daemon needs, the way the daemon does
//! it, and print one line per item: the config, the database, the inbox
//! (a Maildir's folders, or an IMAP login and `SELECT`), the outbox (a
//! Maildir's folders, an SMTP login, or `sendmail -bv` of the server's
//! address for the sendmail outbox). Exit 0 when all work, 2 when one does
//! not. It never prints a secret: errors name servers and files, and every
//! line is scrubbed of the config's secrets ([`crate::config::scrub`]).
//!
//! The systemd unit runs it as `ExecStartPre=-…check` (the `-`: a mail
//! server that is down at boot must not keep the daemon from starting;
//! the daemon rides out outages), so its lines land in the journal.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::app::App;
use crate::mail::{self, InboxConfig, OutboxConfig};

/// One line of `check`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    /// `config`, `database`, `inbox`, `outbox`.
    pub what: &'static str,
    pub ok: bool,
    pub detail: String,
}

impl Item {
    fn new(what: &'static str, result: Result<String, String>) -> Item {
        let (ok, detail) = match result {
            Ok(d) => (true, d),
            Err(d) => (false, d),
        };
        Item {
            what,
            ok,
            detail: crate::config::scrub(&detail),
        }
    }

    /// `ok      inbox: Maildir /var/lib/pbmchess/inbox`
    pub(crate) fn line(&self) -> String {
        format!(
            "{:<6} {}: {}",
            if self.ok { "ok" } else { "FAILED" },
            self.what,
            self.detail
        )
    }
}

/// How long `sendmail -bv` may take before it is killed.
const SENDMAIL_CHECK_TIMEOUT: Duration = Duration::from_secs(20);

/// Run every check (the config was loaded already: `app`).
pub(crate) fn check(app: &App) -> Vec<Item> {
    let mut items = vec![Item::new("config", config_item(app))];
    items.push(Item::new("database", database_item(app)));
    items.push(Item::new("inbox", inbox_item(app)));
    items.push(Item::new("outbox", outbox_item(app)));
    items
}

fn config_item(app: &App) -> Result<String, String> {
    let Some(path) = &app.config_path else {
        return Ok("none: the built-in defaults (no --config, no PBMCHESS_CONFIG)".into());
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .permissions()
            .mode();
        if mode & 0o004 != 0 && !crate::config::secrets().is_empty() {
            return Err(format!(
                "{} holds a password and every user may read it (mode {:o}); chmod 0640 it",
                path.display(),
                mode & 0o777
            ));
        }
    }
    Ok(format!("{} is valid", path.display()))
}

/// Complaints of `integrity_check` shown on the `database` line.
const INTEGRITY_LINES: u32 = 3;

/// The database opens (an empty or foreign file is refused, see
/// `store::open`) and SQLite's `integrity_check` finds it sound: every
/// page read, every index compared with its table (`quick_check` skips
/// that and passes a damaged index). It reads the whole file: on a large
/// database it takes a while, once per start.
fn database_item(app: &App) -> Result<String, String> {
    let path = &app.config.database.path;
    let conn = app.open_database().map_err(|e| e.to_string())?;
    sidecars_match(path)?;
    let problems = crate::store::integrity_problems(&conn, INTEGRITY_LINES)
        .map_err(|e| format!("{}: integrity_check cannot run: {e}", path.display()))?;
    if !problems.is_empty() {
        return Err(format!(
            "{} is damaged, SQLite's integrity_check says: {}; stop the daemon and restore the database from a backup (`pbmchess admin backup` makes one)",
            path.display(),
            crate::limits::log_field(&problems.join("; "))
        ));
    }
    Ok(format!("{} opens, integrity_check ok", path.display()))
}

/// SQLite's `-wal` and `-shm` files beside the database must belong to the
/// database's owner and be readable and writable by it: an admin command
/// run as another user (root) can leave them so that the daemon cannot
/// open the database. Said with the command that repairs it.
fn sidecars_match(db: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(main) = std::fs::metadata(db) else {
            return Ok(());
        };
        for suffix in ["-wal", "-shm"] {
            let mut name = db.as_os_str().to_owned();
            name.push(suffix);
            let side = Path::new(&name);
            let Ok(meta) = std::fs::metadata(side) else {
                continue;
            };
            if meta.uid() != main.uid() || meta.mode() & 0o600 != 0o600 {
                return Err(format!(
                    "{} has owner {} and mode {:o}, the database owner {} and mode {:o}: stop the daemon and run `chown --reference={} {}` and `chmod u+rw {}`, and run admin commands as the database's owner",
                    side.display(),
                    meta.uid(),
                    meta.mode() & 0o777,
                    main.uid(),
                    main.mode() & 0o777,
                    db.display(),
                    side.display(),
                    side.display()
                ));
            }
        }
    }
    Ok(())
}

fn inbox_item(app: &App) -> Result<String, String> {
    let mut inbox = mail::open_inbox(&app.config.inbox).map_err(|e| e.to_string())?;
    // Fetching none: the folders are opened (IMAP: connect, log in,
    // select, search), nothing is read or marked.
    inbox.fetch(0).map_err(|e| e.to_string())?;
    Ok(match &app.config.inbox {
        InboxConfig::Maildir { path } => format!("Maildir {} opens", path.display()),
        InboxConfig::Imap(imap) => format!(
            "IMAP {}@{}:{} logged in, mailbox {} selected",
            imap.username,
            imap.host,
            imap.port(),
            imap.mailbox
        ),
    })
}

fn outbox_item(app: &App) -> Result<String, String> {
    match &app.config.outbox {
        OutboxConfig::Maildir { path } => {
            mail::open_sender(&app.config.outbox).map_err(|e| e.to_string())?;
            Ok(format!("Maildir {} opens", path.display()))
        }
        OutboxConfig::Smtp(smtp) => {
            let outbox = mail::SmtpOutbox::new(smtp).map_err(|e| e.to_string())?;
            outbox.test_login()?;
            Ok(match &smtp.host {
                Some(host) => format!("SMTP {host}:{} logged in", smtp.port()),
                None => "SMTP (the url's server) logged in".to_string(),
            })
        }
        OutboxConfig::Sendmail { command, .. } => {
            sendmail_verify(command, &app.config.server.address, SENDMAIL_CHECK_TIMEOUT)
        }
    }
}

/// How many waiting inbox mails `check --probe` looks through for its
/// probe at each look (the probe is among the newest; a larger backlog
/// is the daemon's, which files the probe away and records it).
const PROBE_FETCH: usize = 500;

/// `check --probe`: prove the path from the outbox to the inbox. A probe
/// mail (From and To the server's address, `Auto-Submitted:
/// auto-generated`, Subject `pbmchess probe TOKEN`) goes out through the
/// configured outbox; then, for at most `wait`, the inbox is looked
/// through for it. It reached the inbox when it is there (then it is
/// filed away as ignored, never answered) or when the database records
/// its Message-ID (a running daemon took it first: mail from the
/// server's own address is ignored, never answered nor charged to a
/// player). Otherwise the line says where to look: mail to the server's
/// address is delivered somewhere the daemon does not read (with Postfix,
/// a `mailbox_command` such as procmail wins over `home_mailbox`).
pub(crate) fn probe_item(app: &App, wait: Duration) -> Item {
    Item::new("probe", probe(app, wait))
}

fn probe(app: &App, wait: Duration) -> Result<String, String> {
    let address = app.config.server.address.trim();
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness from the OS: {e}"))?;
    let token = crate::hex::encode(&bytes);
    let out = mail::Outgoing {
        to: address.to_string(),
        subject: format!("pbmchess probe {token}"),
        body: "A probe sent by `pbmchess check --probe` to see that mail to this\n\
               server's address reaches its inbox. It is never answered; if\n\
               you find it anywhere, delete it.\n"
            .to_string(),
        in_reply_to: None,
    };
    let own_id = format!("probe.{token}@{}", app.config.server.domain());
    let from = format!("{} <{address}>", app.config.server.name);
    let message = mail::build_message_with_id(
        &out,
        mail::MessageId::Own(&own_id),
        &from,
        std::time::SystemTime::now(),
    )
    .map_err(|e| format!("the probe to {address} cannot be built: {e}"))?;
    let server = app.server();
    let probe = server.envelope_of(&message.formatted());
    let fingerprint = probe.fingerprint();
    let message_id = probe.message_id;
    let mut sender = mail::open_sender(&app.config.outbox).map_err(|e| e.to_string())?;
    let sent = sender.send(&message).and_then(|()| sender.flush());
    sender.end_pass();
    sent.map_err(|e| format!("the probe to {address} was not sent: {e}"))?;
    let conn = app.open_database().map_err(|e| e.to_string())?;
    let mut inbox = mail::open_inbox(&app.config.inbox).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut crowded: bool;
    loop {
        let waited = started.elapsed().as_secs();
        if crate::store::mail_seen(&conn, &message_id, &fingerprint).map_err(|e| e.to_string())? {
            return Ok(format!(
                "a mail to {address} sent through the outbox reached the inbox within {waited} s (the daemon filed it away unanswered)"
            ));
        }
        let waiting = inbox.fetch(PROBE_FETCH).map_err(|e| e.to_string())?;
        crowded = waiting.len() >= PROBE_FETCH;
        if let Some(found) = waiting
            .iter()
            .find(|m| server.envelope_of(&m.raw).message_id == message_id)
        {
            inbox.mark_done(found, mail::Done::Ignored).map_err(|e| {
                format!("the probe reached the inbox but cannot be filed away: {e}")
            })?;
            return Ok(format!(
                "a mail to {address} sent through the outbox reached the inbox within {waited} s (filed away unanswered)"
            ));
        }
        let Some(left) = wait.checked_sub(started.elapsed()) else {
            break;
        };
        std::thread::sleep(left.min(Duration::from_secs(1)));
    }
    if crowded {
        return Err(format!(
            "the probe to {address} was not found among the first {PROBE_FETCH} mails waiting in the inbox ({}) within {} s: let the daemon read the inbox (it files the probe away unanswered) and run `pbmchess check --probe` again",
            inbox_name(&app.config.inbox),
            wait.as_secs()
        ));
    }
    Err(format!(
        "a mail to {address} sent through the outbox ({}) did not reach the inbox ({}) within {} s: mail to {address} is delivered somewhere the daemon does not read. Look where the mail host puts it: with Postfix, `postconf mailbox_command home_mailbox` (a mailbox_command such as procmail wins over home_mailbox and delivers to /var/mail/USER: set `mailbox_command =` empty, or make ~/.procmailrc deliver to the Maildir); the probe waits there, Subject \"pbmchess probe {token}\", and may be deleted. See docs/deployment.md",
        outbox_name(&app.config.outbox),
        inbox_name(&app.config.inbox),
        wait.as_secs()
    ))
}

fn outbox_name(outbox: &OutboxConfig) -> String {
    match outbox {
        OutboxConfig::Maildir { path } => format!("Maildir {}", path.display()),
        OutboxConfig::Smtp(smtp) => match &smtp.host {
            Some(host) => format!("SMTP {host}:{}", smtp.port()),
            None => "SMTP".to_string(),
        },
        OutboxConfig::Sendmail { command, .. } => format!("sendmail {}", command.display()),
    }
}

fn inbox_name(inbox: &InboxConfig) -> String {
    match inbox {
        InboxConfig::Maildir { path } => format!("Maildir {}", path.display()),
        InboxConfig::Imap(imap) => format!(
            "IMAP {}@{}:{} mailbox {}",
            imap.username,
            imap.host,
            imap.port(),
            imap.mailbox
        ),
    }
}

/// Run `COMMAND -bv ADDRESS` (verify the address, deliver nothing;
/// Postfix mails a report to the caller, handing it to its own
/// `postdrop`, so this also proves that the MTA's queue can be written
/// under the unit's settings). The program and all it started (its
/// process group) are killed after `timeout`: a `postdrop` that cannot
/// write the queue retries for ever.
pub(crate) fn sendmail_verify(
    command: &Path,
    address: &str,
    timeout: Duration,
) -> Result<String, String> {
    let mut cmd = Command::new(command);
    cmd.arg("-bv")
        .arg(address)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", command.display()))?;
    let (rx, readers) = read_aside(&mut child);
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Ok(None) => {
                kill_group(&mut child);
                break None;
            }
            Err(e) => {
                kill_group(&mut child);
                return Err(format!("{}: {e}", command.display()));
            }
        }
    };
    let said = what_it_said(&rx, readers);
    match status {
        Some(status) if status.success() => {
            Ok(format!("{} -bv {address} accepted", command.display()))
        }
        Some(status) => Err(format!(
            "{} -bv {address} failed ({status}){said}",
            command.display()
        )),
        None => Err(format!(
            "{} -bv {address} did not end within {} s and was killed{said}",
            command.display(),
            timeout.as_secs()
        )),
    }
}

/// The child's standard error and output, each read aside by a thread (so
/// that a full pipe never blocks it): the first 4 KiB of each, sent on the
/// channel, and how many readers there are.
fn read_aside(child: &mut std::process::Child) -> (std::sync::mpsc::Receiver<String>, usize) {
    // What it says, read aside so that a full pipe never blocks it.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let pipes: Vec<Box<dyn Read + Send>> = [
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    .collect();
    let readers = pipes.len();
    for pipe in pipes {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut pipe = pipe;
            let mut text = String::new();
            let _ = (&mut pipe).take(4096).read_to_string(&mut text);
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            let _ = tx.send(text);
        });
    }
    drop(tx);
    (rx, readers)
}

/// What the readers of [`read_aside`] got, whitespace folded, as `: text`
/// for an error line (empty when the child said nothing). A reader still
/// blocked after two seconds (a grandchild holding the pipe) is not waited
/// for.
fn what_it_said(rx: &std::sync::mpsc::Receiver<String>, readers: usize) -> String {
    let mut said = String::new();
    for _ in 0..readers {
        match rx.recv_timeout(Duration::from_secs(2)) {
            Ok(text) => said.push_str(&text),
            Err(_) => break,
        }
    }
    let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
    if said.is_empty() {
        String::new()
    } else {
        format!(": {}", crate::limits::log_field(&said))
    }
}

/// Kill `child` and every process of its group, and reap it.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group;
        // the group is the child's own (process_group(0) above).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn script(dir: &Path, body: &str) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("sendmail");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[cfg(unix)]
    #[test]
    fn sendmail_verify_reports_success_failure_and_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let ok = script(dir.path(), "[ \"$1\" = -bv ] && exit 0; exit 64");
        let said = sendmail_verify(&ok, "pbm@games.test", Duration::from_secs(5)).unwrap();
        assert!(said.contains("accepted"), "{said}");
        let failing = script(
            dir.path(),
            "echo 'postdrop: warning: mail_queue_enter: create file maildrop/x: Permission denied' >&2; exit 75",
        );
        let e = sendmail_verify(&failing, "pbm@games.test", Duration::from_secs(5)).unwrap_err();
        assert!(e.contains("Permission denied") && e.contains("75"), "{e}");
        let hanging = script(dir.path(), "exec sleep 60");
        let t0 = Instant::now();
        let e =
            sendmail_verify(&hanging, "pbm@games.test", Duration::from_millis(300)).unwrap_err();
        assert!(e.contains("killed"), "{e}");
        // What it said before it hung is kept.
        let hanging = script(
            dir.path(),
            "echo 'postdrop: warning: Permission denied' >&2; exec sleep 60",
        );
        let e = sendmail_verify(&hanging, "a@b", Duration::from_millis(300)).unwrap_err();
        assert!(
            e.contains("killed") && e.contains("Permission denied"),
            "{e}"
        );
        assert!(t0.elapsed() < Duration::from_secs(10));
        let e =
            sendmail_verify(&dir.path().join("none"), "a@b", Duration::from_secs(1)).unwrap_err();
        assert!(e.contains("cannot run"), "{e}");
    }
}
