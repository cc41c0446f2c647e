//! Mail that fails inside the server (a database or template failure,
//! never the player's mistake): the one place that decides when such a
//! mail stops being retried, and that replays it.
//!
//! Each failure is counted per Message-ID in the database. Below
//! `[limits] failures_before_quarantine` tries the mail stays in the
//! inbox and is tried again on the next pass; at that number it is
//! quarantined: its bytes and the error are kept in the database, the
//! inbox moves it out of the way (Maildir `.Quarantine/`, IMAP
//! `quarantine_mailbox`) and the rest of the inbox goes on. `pbmchess
//! admin inbox list` shows failing and quarantined mail; `admin inbox
//! retry ID` replays a quarantined mail from its kept bytes once the fault
//! is fixed. The `process` pipe counts the same way: below the limit it
//! exits 75 so the MTA delivers again later; at the limit it takes the
//! mail into quarantine and exits 0.
//!
//! A mail that kills the process (a crash, or the kernel or systemd
//! ending it for its memory) is counted too, before it can run again:
//! every mail's attempt is recorded and committed before it runs (keyed
//! by a hash of its bytes: [`mail_key`]; see migration 0035)
//! and forgotten in the transaction that commits it. An attempt found
//! still open when the mail is taken again is a death: [`check_attempts`]
//! counts it as a failure of that mail when the mail ran alone, and after
//! `failures_before_quarantine` quarantines it without running it, so the
//! mails behind it are answered. When it ran in a group (the daemon's group
//! commit), which mail died is not known: each mail of the group then runs
//! alone, once, and only deaths while running alone count. A kill from
//! outside (SIGKILL, a power cut) while a mail runs alone cannot be told
//! from a death the mail caused and counts too: a mail quarantined so is
//! replayed with `admin inbox retry`.

use rusqlite::Connection;
use tracing::{error, warn};

use crate::mail::Envelope;
use crate::server::{MailOutcome, Server, ServerError};
use crate::store::{self, FailedMail, InboundFailure, StoreError};

/// What a failure means for the mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Leave it where it is; it is tried again (this was try `attempts`;
    /// 0 when the failure did not count: the database was busy).
    TryAgain { attempts: u32 },
    /// Taken out of the inbox: the database keeps it as this quarantine row.
    Quarantined { id: i64 },
}

/// Count a failure of `envelope` (read from `raw`; `subject` is its
/// subject with passwords masked) and decide. A busy database (another
/// process holds it) is waited out, not counted. An error here (the
/// database itself is failing) leaves the mail in the inbox.
pub(crate) fn note_failure(
    server: &Server<'_>,
    conn: &Connection,
    envelope: &Envelope,
    subject: &str,
    raw: &[u8],
    failure: &ServerError,
) -> Result<Verdict, StoreError> {
    if let ServerError::Store(StoreError::Sqlite(e)) = failure {
        if store::is_busy(e) {
            warn!(message_id = %crate::limits::log_field(&envelope.message_id), error = %failure,
                  "the database is busy; the mail stays in the inbox and is tried again");
            return Ok(Verdict::TryAgain { attempts: 0 });
        }
    }
    let error = failure.to_string();
    let now = server.clock.now();
    let tx = conn.unchecked_transaction()?;
    let row = store::note_inbound_failure(
        &tx,
        &FailedMail {
            message_id: &envelope.message_id,
            sender: envelope.sender.as_deref(),
            subject,
            error: &error,
        },
        now,
    )?;
    let limit = server.config.limits.failures_before_quarantine.max(1);
    let verdict = if row.quarantined_at.is_some() {
        Verdict::Quarantined { id: row.id }
    } else if row.attempts >= limit {
        store::quarantine_inbound(&tx, row.id, Some(raw), now)?;
        error!(id = row.id, message_id = %crate::limits::log_field(&envelope.message_id), attempts = row.attempts, error = %error,
               "a mail failed too often and is quarantined; see `pbmchess admin inbox list`");
        Verdict::Quarantined { id: row.id }
    } else {
        warn!(message_id = %crate::limits::log_field(&envelope.message_id), attempts = row.attempts, limit, error = %error,
              "a mail failed inside the server; it stays in the inbox and is tried again");
        Verdict::TryAgain {
            attempts: row.attempts,
        }
    };
    tx.commit()?;
    Ok(verdict)
}

/// The key of a mail's attempts: the SHA-256 of its bytes, hex (known
/// before the mail is parsed, and the same on every delivery of it).
pub(crate) fn mail_key(raw: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    crate::hex::encode(&Sha256::digest(raw))
}

/// What an open attempt at a mail, found before it runs, means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Before {
    /// No attempt was open: run it as planned.
    Fresh,
    /// The process died while it ran (in a group, or alone but fewer than
    /// `failures_before_quarantine` times): run it alone.
    Suspect,
    /// It killed the process too often: quarantined (this row), not run.
    Quarantined { id: i64 },
}

/// For each mail (`key`, bytes) about to be taken, whether an attempt at it
/// is still open, i.e. the process died while it ran (see the module
/// docs): counted and decided, and the new attempts of the mails that are
/// not quarantined begun (alone when there is one), all in one
/// transaction: one commit for a group. A caller that then runs mails of
/// a group one at a time begins each one's attempt again, alone, with
/// [`store::begin_attempts`].
pub(crate) fn check_attempts(
    server: &Server<'_>,
    conn: &Connection,
    mails: &[(&str, &[u8])],
) -> Result<Vec<Before>, StoreError> {
    let now = server.clock.now();
    let limit = server.config.limits.failures_before_quarantine.max(1);
    let tx = conn.unchecked_transaction()?;
    let mut out = Vec::with_capacity(mails.len());
    for &(key, raw) in mails {
        let before = match store::take_attempt(&tx, key)? {
            None => Before::Fresh,
            Some(false) => Before::Suspect,
            Some(true) => {
                // Its header only: the body may be what killed it.
                let envelope = server.envelope_of(crate::limits::header_of(raw));
                let message_id = if envelope.message_id.starts_with("hash:") {
                    format!("hash:{key}")
                } else {
                    envelope.message_id.clone()
                };
                let error = ServerError::Stopped.to_string();
                let row = store::note_inbound_failure(
                    &tx,
                    &FailedMail {
                        message_id: &message_id,
                        sender: envelope.sender.as_deref(),
                        subject: &crate::server::log_subject(&envelope.subject),
                        error: &error,
                    },
                    now,
                )?;
                if row.quarantined_at.is_some() {
                    Before::Quarantined { id: row.id }
                } else if row.attempts >= limit {
                    store::quarantine_inbound(&tx, row.id, Some(raw), now)?;
                    error!(id = row.id, message_id = %crate::limits::log_field(&message_id), attempts = row.attempts,
                           "a mail stopped the server too often and is quarantined; see `pbmchess admin inbox list`");
                    Before::Quarantined { id: row.id }
                } else {
                    warn!(message_id = %crate::limits::log_field(&message_id), attempts = row.attempts, limit,
                          "the server stopped while it handled a mail; it is tried again, alone");
                    Before::Suspect
                }
            }
        };
        out.push(before);
    }
    let runs: Vec<&str> = mails
        .iter()
        .zip(&out)
        .filter(|(_, b)| !matches!(b, Before::Quarantined { .. }))
        .map(|(&(key, _), _)| key)
        .collect();
    store::begin_attempts(&tx, &runs, runs.len() == 1, now)?;
    tx.commit()?;
    Ok(out)
}

/// Quarantine at once an inbox message that cannot be read at all (`id`
/// is the inbox's handle, `error` why): recorded without its bytes under
/// the Message-ID `unreadable:<id>`, so `admin inbox list` shows it and
/// the inbox moves it out of the way. Returns its quarantine row.
pub(crate) fn unreadable(
    server: &Server<'_>,
    conn: &Connection,
    id: &str,
    error: &str,
) -> Result<i64, StoreError> {
    let now = server.clock.now();
    let message_id = format!("unreadable:{id}");
    let error = format!("the inbox file cannot be read: {error}");
    let tx = conn.unchecked_transaction()?;
    let row = store::note_inbound_failure(
        &tx,
        &FailedMail {
            message_id: &message_id,
            sender: None,
            subject: "",
            error: &error,
        },
        now,
    )?;
    if row.quarantined_at.is_none() {
        store::quarantine_inbound(&tx, row.id, None, now)?;
    }
    tx.commit()?;
    error!(id = row.id, file = %crate::limits::log_field(id), error = %crate::limits::log_field(&error),
           "an unreadable inbox file is quarantined; see `pbmchess admin inbox list`");
    Ok(row.id)
}

/// Why a replay did not happen.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReplayError {
    #[error("there is no quarantined mail {0}; `pbmchess admin inbox list` shows them")]
    NotQuarantined(i64),
    #[error("mail {0} has no bytes kept here (it could not be read, or this database is a backup, which keeps none); find it in the inbox's quarantine folder")]
    NoBytes(i64),
    #[error("mail {id} still fails: {error}")]
    StillFails { id: i64, error: ServerError },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Replay quarantined mail `id` through the server. On success (also when
/// it turns out to have been processed meanwhile) it leaves the
/// quarantine; on failure it stays, with the new error recorded.
pub(crate) fn replay(
    server: &Server<'_>,
    conn: &mut Connection,
    id: i64,
) -> Result<MailOutcome, ReplayError> {
    let Some((row, raw)) = store::inbound_failure(conn, id)? else {
        return Err(ReplayError::NotQuarantined(id));
    };
    if row.quarantined_at.is_none() {
        return Err(ReplayError::NotQuarantined(id));
    }
    let Some(raw) = raw else {
        return Err(ReplayError::NoBytes(id));
    };
    let envelope = server.envelope_of(&raw);
    match server.handle_mail(conn, &envelope, raw.len()) {
        Ok(outcome) => {
            tracing::info!(id, message_id = %crate::limits::log_field(&envelope.message_id), outcome = ?outcome, "quarantined mail replayed");
            store::forget_inbound_failure(conn, id)?;
            Ok(outcome)
        }
        Err(error) => {
            store::note_replay_failure(conn, id, &error.to_string(), server.clock.now())?;
            Err(ReplayError::StillFails { id, error })
        }
    }
}

/// Forget quarantined mail `id` for good (the copy in the quarantine
/// folder stays). False when there is none.
pub(crate) fn discard(conn: &Connection, id: i64) -> Result<bool, StoreError> {
    match store::inbound_failure(conn, id)? {
        Some((row, _)) if row.quarantined_at.is_some() => store::forget_inbound_failure(conn, id),
        _ => Ok(false),
    }
}

/// Failing and quarantined mail, oldest first.
pub(crate) fn list(conn: &Connection) -> Result<Vec<InboundFailure>, StoreError> {
    store::inbound_failures(conn)
}
