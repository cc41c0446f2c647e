//! Hard bounces of the server's mail, per address (`address_bounces`,
//! `mail_bounces`), the notice owed to an address whose stop ended
//! (`bounce_notices`), and the key of the outgoing Message-IDs. What counts
//! is decided in `crate::server::bounces`; addresses are kept ASCII
//! lower-cased (`lower()` of SQLite folds ASCII only, as
//! [`str::to_ascii_lowercase`] does).

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{Cached, Result, StoredTime};

/// One address that bounced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bounced {
    pub address: String,
    /// Distinct mails bounced since the last delivery accepted.
    pub bounces: u32,
    pub last_at: DateTime<Utc>,
    /// When it was stopped and got no more mail.
    pub stopped_at: Option<DateTime<Utc>>,
}

/// The run of bounces of one address, as [`count_bounce`] leaves it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BounceRun {
    /// False when this mail's bounce was counted before (quoted again).
    pub new: bool,
    /// Distinct mails bounced since the last delivery accepted.
    pub bounces: u32,
    /// The first and the last of those bounces.
    pub first_at: Option<DateTime<Utc>>,
    pub last_at: Option<DateTime<Utc>>,
}

fn folded(address: &str) -> String {
    address.trim().to_ascii_lowercase()
}

/// The key of the Message-IDs made from an outbox row: drawn at random by
/// the migration that made it, kept in the database, never shown.
pub fn message_id_key(conn: &Connection) -> Result<Vec<u8>> {
    Ok(conn.row(
        "SELECT value FROM server_secrets WHERE name = 'message_id'",
        [],
        |r| r.get(0),
    )?)
}

/// Record that the outbox mail `outbox_id` to `address` bounced (once per
/// mail: a second bounce of it changes nothing), and read the run of
/// bounces it belongs to: the distinct mails to the address that bounced
/// after the last one the relay accepted without a bounce, and queued
/// after mail last came from the address.
pub(crate) fn count_bounce(
    conn: &Connection,
    address: &str,
    outbox_id: i64,
    now: DateTime<Utc>,
) -> Result<BounceRun> {
    let address = folded(address);
    let new = conn.exec(
        "INSERT OR IGNORE INTO mail_bounces (address, outbox_id, bounced_at) VALUES (?1, ?2, ?3)",
        params![address, outbox_id, StoredTime(now)],
    )? == 1;
    // The newest mail to the address the relay accepted that did not bounce.
    let accepted: i64 = conn.row(
        "SELECT coalesce(max(o.id), 0) FROM outbox o
         WHERE lower(trim(o.recipient)) = ?1 AND o.sent_at IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM mail_bounces b WHERE b.address = ?1 AND b.outbox_id = o.id)",
        [&address],
        |r| r.get(0),
    )?;
    let read_after: i64 = conn
        .row(
            "SELECT read_after_outbox_id FROM address_bounces WHERE address = ?1",
            [&address],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(0);
    let (bounces, first, last): (u32, Option<StoredTime>, Option<StoredTime>) = conn.row(
        "SELECT count(*), min(bounced_at), max(bounced_at) FROM mail_bounces
         WHERE address = ?1 AND outbox_id > ?2",
        params![address, accepted.max(read_after)],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    conn.exec(
        "INSERT INTO address_bounces (address, bounces, last_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (address) DO UPDATE SET bounces = excluded.bounces, last_at = excluded.last_at",
        params![address, bounces, StoredTime(now)],
    )?;
    Ok(BounceRun {
        new,
        bounces,
        first_at: first.map(|t| t.0),
        last_at: last.map(|t| t.0),
    })
}

/// Stop mail to `address` (from `now`, unless it is stopped already).
pub(crate) fn stop_address(conn: &Connection, address: &str, now: DateTime<Utc>) -> Result<()> {
    conn.exec(
        "UPDATE address_bounces SET stopped_at = coalesce(stopped_at, ?2) WHERE address = ?1",
        params![folded(address), StoredTime(now)],
    )?;
    Ok(())
}

/// Mail came from `address`: it is read, so its bounces are forgotten
/// (and a bounce of any mail queued before now counts for nothing), and
/// it gets mail again. A stopped address is owed a notice (see
/// [`take_bounce_notice`]). True when it had bounced.
pub(crate) fn clear_bounces(conn: &Connection, address: &str) -> Result<bool> {
    let address = folded(address);
    let row: Option<(u32, Option<String>)> = conn
        .row(
            "SELECT bounces, stopped_at FROM address_bounces WHERE address = ?1",
            [&address],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((bounces, stopped_at)) = row else {
        return Ok(false);
    };
    if let Some(stopped_at) = &stopped_at {
        conn.exec(
            "INSERT INTO bounce_notices (address, bounces, stopped_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (address) DO UPDATE SET bounces = excluded.bounces,
                 stopped_at = excluded.stopped_at",
            params![address, bounces, stopped_at],
        )?;
    }
    conn.exec("DELETE FROM mail_bounces WHERE address = ?1", [&address])?;
    conn.exec(
        "UPDATE address_bounces SET bounces = 0, stopped_at = NULL,
             read_after_outbox_id = (SELECT coalesce(max(id), 0) FROM outbox)
         WHERE address = ?1",
        [&address],
    )?;
    Ok(bounces > 0 || stopped_at.is_some())
}

/// The notice owed to `address` since its stop ended: how many mails had
/// bounced and when it was stopped. Taken once, and only while the
/// address is not stopped again (a mail to it then is not sent).
pub(crate) fn take_bounce_notice(
    conn: &Connection,
    address: &str,
) -> Result<Option<(u32, DateTime<Utc>)>> {
    let address = folded(address);
    let notice: Option<(u32, StoredTime)> = conn
        .row(
            "SELECT n.bounces, n.stopped_at FROM bounce_notices n WHERE n.address = ?1
             AND NOT EXISTS (SELECT 1 FROM address_bounces b
                             WHERE b.address = ?1 AND b.stopped_at IS NOT NULL)",
            [&address],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((bounces, stopped_at)) = notice else {
        return Ok(None);
    };
    conn.exec("DELETE FROM bounce_notices WHERE address = ?1", [&address])?;
    Ok(Some((bounces, stopped_at.0)))
}

/// Whether mail to `address` is stopped by its bounces.
pub(crate) fn bounces_stopped(conn: &Connection, address: &str) -> Result<bool> {
    Ok(conn
        .row(
            "SELECT 1 FROM address_bounces WHERE address = ?1 AND stopped_at IS NOT NULL",
            [folded(address)],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Every address with bounces counted, stopped ones first, then by address.
pub(crate) fn bounced_addresses(conn: &Connection) -> Result<Vec<Bounced>> {
    let mut stmt = conn.prepare_cached(
        "SELECT address, bounces, last_at, stopped_at FROM address_bounces
         WHERE bounces > 0 OR stopped_at IS NOT NULL
         ORDER BY stopped_at IS NULL, address",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, u32>(1)?,
            r.get::<_, StoredTime>(2)?,
            r.get::<_, Option<StoredTime>>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (address, bounces, last, stopped) = row?;
        out.push(Bounced {
            address,
            bounces,
            last_at: last.0,
            stopped_at: stopped.map(|t| t.0),
        });
    }
    Ok(out)
}

/// The outbox mail sent with `message_id` (without brackets): the row
/// whose own Message-ID it is, or the row `N` of a `pbmchess.N.…` id. The
/// caller checks the id is really that row's (see
/// [`crate::mail::outgoing_message_id`]). Returns (row id, recipient, the
/// mail as queued, its own Message-ID).
pub(crate) fn outbox_mail_for_id(
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
    use crate::mail::Outgoing;

    fn at(h: i64) -> DateTime<Utc> {
        DateTime::UNIX_EPOCH + chrono::Duration::hours(h)
    }

    /// A mail to `to` queued and sent (the relay accepted it) at hour `h`.
    fn sent(conn: &Connection, to: &str, h: i64) -> i64 {
        let out = Outgoing {
            to: to.into(),
            subject: "s".into(),
            body: "b".into(),
            in_reply_to: None,
        };
        let id = crate::store::enqueue(conn, &out, at(h)).unwrap();
        crate::store::mark_sent(conn, id, at(h)).unwrap();
        id
    }

    #[test]
    fn a_mail_bounced_twice_counts_once() {
        let conn = crate::store::open_in_memory().unwrap();
        let m = sent(&conn, "a@x.test", 0);
        let run = count_bounce(&conn, "A@X.test", m, at(1)).unwrap();
        assert!(run.new);
        assert_eq!(run.bounces, 1);
        for h in 2..10 {
            let run = count_bounce(&conn, "a@x.test", m, at(h)).unwrap();
            assert!(!run.new);
            assert_eq!(run.bounces, 1);
            assert_eq!((run.first_at, run.last_at), (Some(at(1)), Some(at(1))));
        }
    }

    #[test]
    fn a_delivery_accepted_after_a_bounced_mail_ends_its_run() {
        let conn = crate::store::open_in_memory().unwrap();
        let m1 = sent(&conn, "a@x.test", 0);
        let m2 = sent(&conn, "a@x.test", 1);
        let ok = sent(&conn, "a@x.test", 2);
        let m3 = sent(&conn, "a@x.test", 3);
        assert_eq!(
            count_bounce(&conn, "a@x.test", m1, at(4)).unwrap().bounces,
            0
        );
        assert_eq!(
            count_bounce(&conn, "a@x.test", m2, at(5)).unwrap().bounces,
            0
        );
        // Only the mail after the accepted one counts.
        assert_eq!(
            count_bounce(&conn, "a@x.test", m3, at(6)).unwrap().bounces,
            1
        );
        // The accepted one bounces after all: the run is all four.
        let run = count_bounce(&conn, "a@x.test", ok, at(7)).unwrap();
        assert_eq!(run.bounces, 4);
        assert_eq!(run.first_at, Some(at(4)));
        // Another address's mail is not this one's delivery.
        let m5 = sent(&conn, "b@x.test", 8);
        count_bounce(&conn, "b@x.test", m5, at(9)).unwrap();
        assert_eq!(bounced_addresses(&conn).unwrap().len(), 2);
    }

    #[test]
    fn mail_from_the_address_ends_its_run_and_its_stop_and_owes_a_notice() {
        let conn = crate::store::open_in_memory().unwrap();
        let m1 = sent(&conn, "a@x.test", 0);
        // Queued now, sent later.
        let out = Outgoing {
            to: "a@x.test".into(),
            subject: "s".into(),
            body: "b".into(),
            in_reply_to: None,
        };
        let m2 = crate::store::enqueue(&conn, &out, at(1)).unwrap();
        assert_eq!(
            count_bounce(&conn, "a@x.test", m1, at(2)).unwrap().bounces,
            1
        );
        stop_address(&conn, "a@x.test", at(2)).unwrap();
        assert!(bounces_stopped(&conn, "A@x.TEST").unwrap());
        assert_eq!(take_bounce_notice(&conn, "a@x.test").unwrap(), None);
        assert!(clear_bounces(&conn, "a@x.test").unwrap());
        assert!(!bounces_stopped(&conn, "a@x.test").unwrap());
        assert!(bounced_addresses(&conn).unwrap().is_empty());
        // A bounce of a mail queued before the mail came counts for nothing.
        crate::store::mark_sent(&conn, m2, at(3)).unwrap();
        assert_eq!(
            count_bounce(&conn, "a@x.test", m2, at(3)).unwrap().bounces,
            0
        );
        let m3 = sent(&conn, "a@x.test", 4);
        assert_eq!(
            count_bounce(&conn, "a@x.test", m3, at(5)).unwrap().bounces,
            1
        );
        // Told once.
        assert_eq!(
            take_bounce_notice(&conn, "a@x.test").unwrap(),
            Some((1, at(2)))
        );
        assert_eq!(take_bounce_notice(&conn, "a@x.test").unwrap(), None);
        assert!(!clear_bounces(&conn, "nobody@x.test").unwrap());
        // A notice owed while the address is stopped again waits.
        stop_address(&conn, "a@x.test", at(6)).unwrap();
        clear_bounces(&conn, "a@x.test").unwrap();
        stop_address(&conn, "a@x.test", at(7)).unwrap();
        assert_eq!(take_bounce_notice(&conn, "a@x.test").unwrap(), None);
        clear_bounces(&conn, "a@x.test").unwrap();
        assert!(take_bounce_notice(&conn, "a@x.test").unwrap().is_some());
    }

    #[test]
    fn addresses_fold_ascii_case_only() {
        let conn = crate::store::open_in_memory().unwrap();
        let m = sent(&conn, "karl@x.test", 0);
        count_bounce(&conn, "KARL@x.test", m, at(1)).unwrap();
        stop_address(&conn, "karl@x.test", at(1)).unwrap();
        assert!(bounces_stopped(&conn, "Karl@X.test").unwrap());
        // KELVIN SIGN: another address.
        assert!(!bounces_stopped(&conn, "\u{212a}arl@x.test").unwrap());
    }
}
