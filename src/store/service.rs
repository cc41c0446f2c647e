//! What the admin's `pbmchess status` reads beyond the queues: when the
//! last pass ended and the inbox's last error (`service_state`); the
//! addresses that bounced are in `super::bounces`.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{Cached, Result, StoredTime};

/// Record that a pass ended at `now`; `inbox_error` is why the inbox could
/// not be read in it (kept, with its time, until the next error).
pub(crate) fn record_pass(
    conn: &Connection,
    now: DateTime<Utc>,
    inbox_error: Option<&str>,
) -> Result<()> {
    let set = "INSERT INTO service_state (key, value, at) VALUES (?1, ?2, ?3)
               ON CONFLICT (key) DO UPDATE SET value = excluded.value, at = excluded.at";
    conn.exec(set, params!["last_pass", "", StoredTime(now)])?;
    if let Some(error) = inbox_error {
        conn.exec(set, params!["inbox_error", error, StoredTime(now)])?;
    }
    Ok(())
}

/// Record that an inbound mail was handled (committed) at `now`: `status`
/// shows its age beside the last pass's, so a busy server is told from a
/// stuck one.
pub(crate) fn record_mail_handled(conn: &Connection, now: DateTime<Utc>) -> Result<()> {
    conn.exec(
        "INSERT INTO service_state (key, value, at) VALUES ('last_mail', '', ?1)
         ON CONFLICT (key) DO UPDATE SET at = excluded.at",
        params![StoredTime(now)],
    )?;
    Ok(())
}

/// What `status` shows of the daemon itself and of the outbox.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ServiceState {
    /// When the last pass ended (never: `None`).
    pub last_pass_at: Option<DateTime<Utc>>,
    /// When the last inbound mail was handled (never: `None`).
    pub last_mail_at: Option<DateTime<Utc>>,
    /// The inbox's last error and when it happened.
    pub inbox_error: Option<(DateTime<Utc>, String)>,
    /// Outbox mails waiting, and when the oldest of them was queued.
    pub outbox_waiting: u32,
    pub outbox_oldest_at: Option<DateTime<Utc>>,
    /// Outbox mails given up.
    pub outbox_given_up: u32,
    /// The last error of the newest unsent mail that has one: (its id, the error).
    pub outbox_error: Option<(i64, String)>,
}

pub(crate) fn service_state(conn: &Connection) -> Result<ServiceState> {
    let get = |key: &str| -> Result<Option<(String, StoredTime)>> {
        Ok(conn
            .row(
                "SELECT value, at FROM service_state WHERE key = ?1",
                [key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    };
    let last_pass_at = get("last_pass")?.map(|(_, at)| at.0);
    let last_mail_at = get("last_mail")?.map(|(_, at)| at.0);
    let inbox_error = get("inbox_error")?.map(|(error, at)| (at.0, error));
    let (outbox_waiting, oldest): (u32, Option<StoredTime>) = conn.row(
        "SELECT count(*), min(created_at) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let outbox_given_up: u32 = conn.row(
        "SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NOT NULL",
        [],
        |r| r.get(0),
    )?;
    let outbox_error = conn
        .row(
            "SELECT id, last_error FROM outbox
             WHERE sent_at IS NULL AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    Ok(ServiceState {
        last_pass_at,
        last_mail_at,
        inbox_error,
        outbox_waiting,
        outbox_oldest_at: oldest.map(|t| t.0),
        outbox_given_up,
        outbox_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: u32) -> DateTime<Utc> {
        chrono::TimeZone::with_ymd_and_hms(&Utc, 2026, 11, 1, h, 0, 0).unwrap()
    }

    #[test]
    fn a_pass_and_the_inbox_error_are_recorded() {
        let conn = crate::store::open_in_memory().unwrap();
        assert_eq!(service_state(&conn).unwrap(), ServiceState::default());
        record_pass(&conn, at(1), Some("login refused")).unwrap();
        record_pass(&conn, at(2), None).unwrap();
        let s = service_state(&conn).unwrap();
        assert_eq!(s.last_pass_at, Some(at(2)));
        assert_eq!(s.inbox_error, Some((at(1), "login refused".to_string())));
    }
}
