//! What the admin looks at: the outbox rows one by one, counts for
//! `admin stats`, and a copy of the whole database.

use super::Cached;
use std::path::Path;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::{parse_opt_time, parse_time, time_text, Result};

/// One outbox mail not yet sent, as `admin outbox list` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxEntry {
    pub id: i64,
    pub to: String,
    pub subject: String,
    pub created_at: DateTime<Utc>,
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    /// Given up (a permanent rejection, or too old).
    pub failed_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

/// The outbox mails not yet sent (waiting and given up), oldest first.
pub fn unsent_mail(conn: &Connection) -> Result<Vec<OutboxEntry>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, recipient, subject, created_at, attempts, next_attempt_at, failed_at,
                last_error
         FROM outbox WHERE sent_at IS NULL ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, u32>(4)?,
            r.get::<_, String>(5)?,
            r.get::<_, Option<String>>(6)?,
            r.get::<_, Option<String>>(7)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, to, subject, created, attempts, next, failed, last_error) = row?;
        out.push(OutboxEntry {
            id,
            to,
            subject,
            created_at: parse_time(&created)?,
            attempts,
            next_attempt_at: parse_time(&next)?,
            failed_at: parse_opt_time(failed)?,
            last_error,
        });
    }
    Ok(out)
}

/// Make an unsent mail (waiting or given up) due now. False when there is
/// no unsent mail with that id.
pub fn retry_mail(conn: &Connection, id: i64, now: DateTime<Utc>) -> Result<bool> {
    Ok(conn.exec(
        "UPDATE outbox SET failed_at = NULL, next_attempt_at = ?2
         WHERE id = ?1 AND sent_at IS NULL",
        params![id, time_text(now)],
    )? == 1)
}

/// Remove an unsent mail from the outbox. False when there is none with that id.
pub fn drop_mail(conn: &Connection, id: i64) -> Result<bool> {
    Ok(conn.exec(
        "DELETE FROM outbox WHERE id = ?1 AND sent_at IS NULL",
        params![id],
    )? == 1)
}

/// The numbers of `admin stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub users: u32,
    pub signed_off: u32,
    /// Per game: (game, active boards, finished boards), by game name.
    pub boards: Vec<(String, u32, u32)>,
    /// Per UTC day since the start given: (day `YYYY-MM-DD`, mails in, mails out).
    pub days: Vec<(String, u32, u32)>,
    /// Outbox mails waiting to be sent, and given up.
    pub outbox_waiting: u32,
    pub outbox_failed: u32,
    /// Inbound mails failing (still in the inbox) and quarantined.
    pub inbox_failing: u32,
    pub quarantined: u32,
}

/// Count what `admin stats` shows; mail per day from `since` on.
pub fn stats(conn: &Connection, since: DateTime<Utc>) -> Result<Stats> {
    let count = |sql: &str| -> Result<u32> { Ok(conn.row(sql, [], |r| r.get(0))?) };
    let mut s = Stats {
        users: count("SELECT count(*) FROM users WHERE signed_off_at IS NULL")?,
        signed_off: count("SELECT count(*) FROM users WHERE signed_off_at IS NOT NULL")?,
        outbox_waiting: count(
            "SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL",
        )?,
        outbox_failed: count(
            "SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NOT NULL",
        )?,
        inbox_failing: count(
            "SELECT count(*) FROM inbound_failures f WHERE quarantined_at IS NULL
             AND NOT EXISTS (SELECT 1 FROM processed_mail p WHERE p.message_id = f.message_id)",
        )?,
        quarantined: count(
            "SELECT count(*) FROM inbound_failures WHERE quarantined_at IS NOT NULL",
        )?,
        ..Stats::default()
    };
    let mut stmt = conn.prepare_cached(
        "SELECT game, sum(status = 'active'), sum(status = 'finished')
         FROM boards GROUP BY game ORDER BY game",
    )?;
    for row in stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))? {
        s.boards.push(row?);
    }
    // Days are the first ten characters of the stored RFC 3339 UTC times.
    let mut stmt = conn.prepare_cached(
        "SELECT day, sum(inbound), sum(outbound) FROM (
             SELECT substr(processed_at, 1, 10) AS day, 1 AS inbound, 0 AS outbound
             FROM processed_mail WHERE processed_at >= ?1
             UNION ALL
             SELECT substr(sent_at, 1, 10), 0, 1 FROM outbox
             WHERE sent_at IS NOT NULL AND sent_at >= ?1)
         GROUP BY day ORDER BY day",
    )?;
    for row in stmt.query_map(params![time_text(since)], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })? {
        s.days.push(row?);
    }
    Ok(s)
}

/// Write a consistent copy of the database to `file` (`VACUUM INTO`):
/// safe while the daemon runs, as it is one read transaction. SQLite
/// refuses a file that exists.
pub fn backup_into(conn: &Connection, file: &Path) -> Result<()> {
    let path = file.to_str().ok_or_else(|| {
        super::StoreError::Corrupt(format!("the path {} is not UTF-8", file.display()))
    })?;
    super::create_owner_only(file)?;
    conn.exec("VACUUM INTO ?1", params![path])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::Outgoing;
    use crate::store::{enqueue, mark_failed, mark_sent, open_in_memory, record_mail};
    use chrono::Duration;

    fn mail(to: &str) -> Outgoing {
        Outgoing {
            to: to.into(),
            subject: "s".into(),
            body: "b".into(),
            in_reply_to: None,
        }
    }

    #[test]
    fn unsent_mail_can_be_retried_or_dropped() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        let a = enqueue(&conn, &mail("a@x"), now).unwrap();
        let b = enqueue(&conn, &mail("b@x"), now).unwrap();
        let c = enqueue(&conn, &mail("c@x"), now).unwrap();
        mark_sent(&conn, a, now).unwrap();
        mark_failed(&conn, b, now, "550 no such user").unwrap();
        let listed = unsent_mail(&conn).unwrap();
        assert_eq!(listed.iter().map(|e| e.id).collect::<Vec<_>>(), [b, c]);
        assert_eq!(listed[0].last_error.as_deref(), Some("550 no such user"));
        assert!(
            !retry_mail(&conn, a, now).unwrap(),
            "sent mail is not retried"
        );
        assert!(retry_mail(&conn, b, now).unwrap());
        assert_eq!(crate::store::due_mail(&conn, now).unwrap().len(), 2);
        assert!(drop_mail(&conn, c).unwrap());
        assert!(!drop_mail(&conn, c).unwrap());
        assert_eq!(unsent_mail(&conn).unwrap().len(), 1);
    }

    #[test]
    fn stats_count_mail_per_day() {
        let conn = open_in_memory().unwrap();
        let now: DateTime<Utc> = "2026-11-22T10:00:00Z".parse().unwrap();
        record_mail(
            &conn,
            ("m1", "f"),
            Some("a@x"),
            "answered",
            now - Duration::days(1),
        )
        .unwrap();
        record_mail(&conn, ("m2", "f"), Some("a@x"), "answered", now).unwrap();
        record_mail(&conn, ("m3", "f"), Some("a@x"), "answered", now).unwrap();
        let id = enqueue(&conn, &mail("a@x"), now).unwrap();
        mark_sent(&conn, id, now).unwrap();
        enqueue(&conn, &mail("b@x"), now).unwrap();
        let s = stats(&conn, now - Duration::days(7)).unwrap();
        assert_eq!(
            s.days,
            [
                ("2026-11-21".to_string(), 1, 0),
                ("2026-11-22".to_string(), 2, 1)
            ]
        );
        assert_eq!(s.outbox_waiting, 1);
        assert_eq!(s.outbox_failed, 0);
    }
}
