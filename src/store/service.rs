//! What the admin's `pbmchess status` reads beyond the queues: when the
//! last pass ended and the inbox's last error (`service_state`), and the
//! addresses that bounced (`address_bounces`; see `crate::mail::bounce`).

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{parse_opt_time, parse_time, time_text, Cached, Result};

/// Record that a pass ended at `now`; `inbox_error` is why the inbox could
/// not be read in it (kept, with its time, until the next error).
pub fn record_pass(conn: &Connection, now: DateTime<Utc>, inbox_error: Option<&str>) -> Result<()> {
    let set = "INSERT INTO service_state (key, value, at) VALUES (?1, ?2, ?3)
               ON CONFLICT (key) DO UPDATE SET value = excluded.value, at = excluded.at";
    conn.exec(set, params!["last_pass", "", time_text(now)])?;
    if let Some(error) = inbox_error {
        conn.exec(set, params!["inbox_error", error, time_text(now)])?;
    }
    Ok(())
}

/// Record that an inbound mail was handled (committed) at `now`: `status`
/// shows its age beside the last pass's, so a busy server is told from a
/// stuck one.
pub fn record_mail_handled(conn: &Connection, now: DateTime<Utc>) -> Result<()> {
    conn.exec(
        "INSERT INTO service_state (key, value, at) VALUES ('last_mail', '', ?1)
         ON CONFLICT (key) DO UPDATE SET at = excluded.at",
        params![time_text(now)],
    )?;
    Ok(())
}

/// What `status` shows of the daemon itself and of the outbox.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServiceState {
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

pub fn service_state(conn: &Connection) -> Result<ServiceState> {
    let get = |key: &str| -> Result<Option<(String, String)>> {
        Ok(conn
            .row(
                "SELECT value, at FROM service_state WHERE key = ?1",
                [key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    };
    let last_pass_at = parse_opt_time(get("last_pass")?.map(|(_, at)| at))?;
    let last_mail_at = parse_opt_time(get("last_mail")?.map(|(_, at)| at))?;
    let inbox_error = match get("inbox_error")? {
        Some((error, at)) => Some((parse_time(&at)?, error)),
        None => None,
    };
    let (outbox_waiting, oldest): (u32, Option<String>) = conn.row(
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
        outbox_oldest_at: parse_opt_time(oldest)?,
        outbox_given_up,
        outbox_error,
    })
}

/// One address that bounced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounced {
    pub address: String,
    /// Hard bounces in a row.
    pub bounces: u32,
    pub last_at: DateTime<Utc>,
    /// When it reached the limit and stopped getting mail.
    pub stopped_at: Option<DateTime<Utc>>,
}

/// Count a hard bounce of mail to `address` (lower-cased here); at `limit`
/// bounces in a row the address is stopped. Returns the count and whether
/// it is stopped now. A `limit` of 0 never stops an address.
pub fn count_bounce(
    conn: &Connection,
    address: &str,
    limit: u32,
    now: DateTime<Utc>,
) -> Result<(u32, bool)> {
    let address = address.trim().to_lowercase();
    conn.exec(
        "INSERT INTO address_bounces (address, bounces, last_at) VALUES (?1, 1, ?2)
         ON CONFLICT (address) DO UPDATE SET bounces = bounces + 1, last_at = excluded.last_at",
        params![address, time_text(now)],
    )?;
    let bounces: u32 = conn.row(
        "SELECT bounces FROM address_bounces WHERE address = ?1",
        [&address],
        |r| r.get(0),
    )?;
    if limit > 0 && bounces >= limit {
        conn.exec(
            "UPDATE address_bounces SET stopped_at = coalesce(stopped_at, ?2) WHERE address = ?1",
            params![address, time_text(now)],
        )?;
        return Ok((bounces, true));
    }
    Ok((bounces, false))
}

/// Mail came from `address`: it is read, so its bounces are forgotten and
/// it gets mail again. True when it had bounced.
pub fn clear_bounces(conn: &Connection, address: &str) -> Result<bool> {
    Ok(conn.exec(
        "DELETE FROM address_bounces WHERE address = ?1",
        [address.trim().to_lowercase()],
    )? > 0)
}

/// Whether mail to `address` is stopped by its bounces.
pub fn bounces_stopped(conn: &Connection, address: &str) -> Result<bool> {
    Ok(conn
        .row(
            "SELECT 1 FROM address_bounces WHERE address = ?1 AND stopped_at IS NOT NULL",
            [address.trim().to_lowercase()],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Every address that bounced, stopped ones first, then by address.
pub fn bounced_addresses(conn: &Connection) -> Result<Vec<Bounced>> {
    let mut stmt = conn.prepare_cached(
        "SELECT address, bounces, last_at, stopped_at FROM address_bounces
         ORDER BY stopped_at IS NULL, address",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, u32>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (address, bounces, last, stopped) = row?;
        out.push(Bounced {
            address,
            bounces,
            last_at: parse_time(&last)?,
            stopped_at: parse_opt_time(stopped)?,
        });
    }
    Ok(out)
}

/// The outbox mail sent with `message_id` (without brackets): the row
/// whose own Message-ID it is, or the row `N` of a `pbmchess.N.…` id. The
/// caller checks the id is really that row's (see
/// [`crate::mail::outgoing_message_id`]). Returns (row id, recipient, the
/// mail as queued, its own Message-ID).
pub fn outbox_mail_for_id(
    conn: &Connection,
    message_id: &str,
) -> Result<Option<(i64, crate::mail::Outgoing, Option<String>)>> {
    let by_row = message_id
        .strip_prefix("pbmchess.")
        .and_then(|rest| rest.split('.').next())
        .and_then(|n| n.parse::<i64>().ok())
        .unwrap_or(-1);
    Ok(conn
        .row(
            "SELECT id, recipient, subject, body, in_reply_to, message_id FROM outbox
             WHERE message_id = ?1 OR message_id = ?3 OR (id = ?2 AND message_id IS NULL)
             LIMIT 1",
            params![
                message_id,
                by_row,
                super::message_id_at_rest(message_id).unwrap_or_default()
            ],
            |r| {
                Ok((
                    r.get(0)?,
                    crate::mail::Outgoing {
                        to: r.get(1)?,
                        subject: r.get(2)?,
                        body: r.get(3)?,
                        in_reply_to: r.get(4)?,
                    },
                    r.get(5)?,
                ))
            },
        )
        .optional()?)
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

    #[test]
    fn bounces_stop_an_address_at_the_limit_and_mail_from_it_clears_them() {
        let conn = crate::store::open_in_memory().unwrap();
        assert_eq!(
            count_bounce(&conn, "A@x.test", 3, at(1)).unwrap(),
            (1, false)
        );
        assert_eq!(
            count_bounce(&conn, "a@x.test", 3, at(2)).unwrap(),
            (2, false)
        );
        assert!(!bounces_stopped(&conn, "a@x.test").unwrap());
        assert_eq!(
            count_bounce(&conn, "a@x.test", 3, at(3)).unwrap(),
            (3, true)
        );
        assert!(bounces_stopped(&conn, "A@X.test").unwrap());
        let listed = bounced_addresses(&conn).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].stopped_at, Some(at(3)));
        assert!(clear_bounces(&conn, "a@x.test").unwrap());
        assert!(!bounces_stopped(&conn, "a@x.test").unwrap());
        assert!(bounced_addresses(&conn).unwrap().is_empty());
        // Limit 0: never stopped.
        for h in 0..10 {
            assert!(!count_bounce(&conn, "b@x.test", 0, at(h)).unwrap().1);
        }
    }
}
