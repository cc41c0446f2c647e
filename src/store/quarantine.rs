//! Inbound mail that failed inside the server: counted per Message-ID,
//! quarantined after a number of tries (the table `inbound_failures`).

use super::Cached;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{Result, StoredTime};

/// One failing or quarantined inbound mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InboundFailure {
    pub id: i64,
    pub message_id: String,
    pub sender: Option<String>,
    /// The subject with passwords masked.
    pub subject: String,
    pub attempts: u32,
    pub first_failed_at: DateTime<Utc>,
    pub last_failed_at: DateTime<Utc>,
    pub last_error: String,
    /// `None`: still in the inbox, tried again on the next pass.
    pub quarantined_at: Option<DateTime<Utc>>,
}

/// Whether a failure is another process holding the database (busy or
/// locked): a wait, not a fault of the mail, so it does not count towards
/// the quarantine.
pub(crate) fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// What is known of a failing mail when it fails.
pub(crate) struct FailedMail<'a> {
    pub message_id: &'a str,
    pub sender: Option<&'a str>,
    pub subject: &'a str,
    pub error: &'a str,
}

const COLUMNS: &str = "id, message_id, sender, subject, attempts, first_failed_at, \
                       last_failed_at, last_error, quarantined_at";

fn failure_row(r: &Row<'_>) -> rusqlite::Result<InboundFailure> {
    Ok(InboundFailure {
        id: r.get(0)?,
        message_id: r.get(1)?,
        sender: r.get(2)?,
        subject: r.get(3)?,
        attempts: r.get(4)?,
        first_failed_at: r.get::<_, StoredTime>(5)?.0,
        last_failed_at: r.get::<_, StoredTime>(6)?.0,
        last_error: r.get(7)?,
        quarantined_at: r.get::<_, Option<StoredTime>>(8)?.map(|t| t.0),
    })
}

/// Count one more failure of a mail; returns its row as it now stands.
/// A mail already quarantined stays so (its count still grows).
pub(crate) fn note_inbound_failure(
    conn: &Connection,
    mail: &FailedMail<'_>,
    now: DateTime<Utc>,
) -> Result<InboundFailure> {
    let now = StoredTime(now);
    conn.exec(
        "INSERT INTO inbound_failures
             (message_id, sender, subject, attempts, first_failed_at, last_failed_at, last_error)
         VALUES (?1, ?2, ?3, 1, ?4, ?4, ?5)
         ON CONFLICT (message_id) DO UPDATE SET
             attempts = attempts + 1, last_failed_at = ?4, last_error = ?5",
        params![mail.message_id, mail.sender, mail.subject, now, mail.error],
    )?;
    inbound_failure_by_message_id(conn, mail.message_id)?
        .ok_or_else(|| super::StoreError::Corrupt("a failure row vanished".into()))
}

fn inbound_failure_by_message_id(
    conn: &Connection,
    message_id: &str,
) -> Result<Option<InboundFailure>> {
    conn.row(
        &format!("SELECT {COLUMNS} FROM inbound_failures WHERE message_id = ?1"),
        params![message_id],
        failure_row,
    )
    .optional()
    .map_err(Into::into)
}

/// Quarantine a failing mail: keep its bytes (`None` when they could not
/// be read) so that it can be replayed.
pub(crate) fn quarantine_inbound(
    conn: &Connection,
    id: i64,
    raw: Option<&[u8]>,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "UPDATE inbound_failures SET quarantined_at = ?2, raw = ?3 WHERE id = ?1",
        params![id, StoredTime(now), raw],
    )?;
    Ok(())
}

/// The failing mails still waiting in the inbox (those that went through
/// meanwhile are left out) and the quarantined ones, oldest first.
pub(crate) fn inbound_failures(conn: &Connection) -> Result<Vec<InboundFailure>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM inbound_failures f
         WHERE quarantined_at IS NOT NULL
            OR NOT EXISTS (SELECT 1 FROM processed_mail p WHERE p.message_id = f.message_id)
         ORDER BY id"
    ))?;
    let rows = stmt.query_map([], failure_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One failing or quarantined mail with its bytes (when kept).
pub(crate) fn inbound_failure(
    conn: &Connection,
    id: i64,
) -> Result<Option<(InboundFailure, Option<Vec<u8>>)>> {
    Ok(conn
        .row(
            &format!("SELECT {COLUMNS}, raw FROM inbound_failures WHERE id = ?1"),
            params![id],
            |r| Ok((failure_row(r)?, r.get::<_, Option<Vec<u8>>>(9)?)),
        )
        .optional()?)
}

/// A replay failed again: count it and keep the newest error.
pub(crate) fn note_replay_failure(
    conn: &Connection,
    id: i64,
    error: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "UPDATE inbound_failures SET attempts = attempts + 1, last_failed_at = ?2, last_error = ?3
         WHERE id = ?1",
        params![id, StoredTime(now), error],
    )?;
    Ok(())
}

/// Forget a failing mail (replayed, or dropped by the admin).
pub(crate) fn forget_inbound_failure(conn: &Connection, id: i64) -> Result<bool> {
    Ok(conn.exec("DELETE FROM inbound_failures WHERE id = ?1", params![id])? == 1)
}

/// Note that the mails `keys` (see `inbound_attempts`, migration 0035)
/// are being handled, `alone` or as a group; committed before they run.
pub(crate) fn begin_attempts(
    conn: &Connection,
    keys: &[&str],
    alone: bool,
    now: DateTime<Utc>,
) -> Result<()> {
    let now = StoredTime(now);
    for key in keys {
        conn.exec(
            "INSERT INTO inbound_attempts (mail_key, alone, started_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (mail_key) DO UPDATE SET alone = ?2, started_at = ?3",
            params![key, alone, now],
        )?;
    }
    Ok(())
}

/// The mail `key` was handled to the end (committed, or its failure
/// counted): forget its attempt.
pub(crate) fn end_attempt(conn: &Connection, key: &str) -> Result<()> {
    conn.exec(
        "DELETE FROM inbound_attempts WHERE mail_key = ?1",
        params![key],
    )?;
    Ok(())
}

/// An attempt at mail `key` that never ended (the process died during
/// it), taken away: `Some(alone)`, or `None` when there was none.
pub(crate) fn take_attempt(conn: &Connection, key: &str) -> Result<Option<bool>> {
    Ok(conn
        .row(
            "DELETE FROM inbound_attempts WHERE mail_key = ?1 RETURNING alone",
            params![key],
            |r| r.get(0),
        )
        .optional()?)
}

/// How many mails are quarantined.
#[cfg(test)]
pub(crate) fn quarantined_count(conn: &Connection) -> Result<u32> {
    Ok(conn.row(
        "SELECT count(*) FROM inbound_failures WHERE quarantined_at IS NOT NULL",
        [],
        |r| r.get(0),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{open_in_memory, record_mail};

    fn failed<'a>(id: &'a str, error: &'a str) -> FailedMail<'a> {
        FailedMail {
            message_id: id,
            sender: Some("a@x"),
            subject: "help",
            error,
        }
    }

    #[test]
    fn failures_count_up_and_a_quarantined_mail_keeps_its_bytes() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        let first = note_inbound_failure(&conn, &failed("m1", "boom"), now).unwrap();
        assert_eq!(first.attempts, 1);
        let second = note_inbound_failure(&conn, &failed("m1", "bang"), now).unwrap();
        assert_eq!((second.id, second.attempts), (first.id, 2));
        assert_eq!(second.last_error, "bang");
        assert_eq!(quarantined_count(&conn).unwrap(), 0);
        quarantine_inbound(&conn, first.id, Some(b"raw mail"), now).unwrap();
        let (row, raw) = inbound_failure(&conn, first.id).unwrap().unwrap();
        assert!(row.quarantined_at.is_some());
        assert_eq!(raw.as_deref(), Some(&b"raw mail"[..]));
        assert_eq!(quarantined_count(&conn).unwrap(), 1);
        assert!(forget_inbound_failure(&conn, first.id).unwrap());
        assert!(inbound_failures(&conn).unwrap().is_empty());
    }

    #[test]
    fn a_locked_database_is_busy_other_errors_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let holder = crate::store::open(&path).unwrap();
        holder.execute_batch("BEGIN IMMEDIATE").unwrap();
        let other = crate::store::open(&path).unwrap();
        other.busy_timeout(std::time::Duration::ZERO).unwrap();
        let e = other.execute_batch("BEGIN IMMEDIATE").unwrap_err();
        assert!(is_busy(&e), "{e}");
        let e = other
            .execute_batch("SELECT * FROM no_such_table")
            .unwrap_err();
        assert!(!is_busy(&e), "{e}");
    }

    #[test]
    fn an_attempt_is_taken_once_and_ended_attempts_are_gone() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        begin_attempts(&conn, &["a", "b"], false, now).unwrap();
        begin_attempts(&conn, &["c"], true, now).unwrap();
        end_attempt(&conn, "b").unwrap();
        assert_eq!(take_attempt(&conn, "a").unwrap(), Some(false));
        assert_eq!(take_attempt(&conn, "a").unwrap(), None);
        assert_eq!(take_attempt(&conn, "b").unwrap(), None);
        assert_eq!(take_attempt(&conn, "c").unwrap(), Some(true));
        // Begun again alone, a group's attempt becomes the mail's own.
        begin_attempts(&conn, &["d"], false, now).unwrap();
        begin_attempts(&conn, &["d"], true, now).unwrap();
        assert_eq!(take_attempt(&conn, "d").unwrap(), Some(true));
    }

    #[test]
    fn a_failure_that_later_went_through_is_not_listed() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        note_inbound_failure(&conn, &failed("m1", "boom"), now).unwrap();
        note_inbound_failure(&conn, &failed("m2", "boom"), now).unwrap();
        record_mail(&conn, ("m1", "f"), Some("a@x"), "answered", now).unwrap();
        let listed: Vec<_> = inbound_failures(&conn)
            .unwrap()
            .into_iter()
            .map(|f| f.message_id)
            .collect();
        assert_eq!(listed, ["m2"]);
    }
}
