//! The record of processed mail and the outbox.

use super::Cached;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{Result, StoredTime};
use crate::mail::Outgoing;

/// Whether a mail with this Message-ID and this fingerprint (its sender
/// and text: `mail::Envelope::fingerprint`) was processed before: a mail
/// of another sender, or with other text, under the same Message-ID is
/// another mail.
pub fn mail_seen(conn: &Connection, message_id: &str, fingerprint: &str) -> Result<bool> {
    Ok(conn
        .row(
            "SELECT 1 FROM processed_mail WHERE message_id = ?1 AND fingerprint = ?2",
            params![message_id, fingerprint],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Record a processed mail. `outcome` is a short word for the log
/// (`answered`, `ignored`, `rate-limited`).
pub(crate) fn record_mail(
    conn: &Connection,
    (message_id, fingerprint): (&str, &str),
    sender: Option<&str>,
    outcome: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "INSERT INTO processed_mail (message_id, fingerprint, sender, processed_at, outcome)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![message_id, fingerprint, sender, StoredTime(now), outcome],
    )?;
    Ok(())
}

/// How many mails from `sender` were processed since `since`.
#[cfg(test)]
pub(crate) fn mails_from_since(
    conn: &Connection,
    sender: &str,
    since: DateTime<Utc>,
) -> Result<u32> {
    Ok(conn.row(
        "SELECT count(*) FROM processed_mail WHERE sender = ?1 AND processed_at >= ?2",
        params![sender, StoredTime(since)],
        |r| r.get(0),
    )?)
}

/// One row of the outbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboxMail {
    pub id: i64,
    pub mail: Outgoing,
    pub created_at: DateTime<Utc>,
    pub attempts: u32,
    /// The Message-ID it is sent with when it has its own (a board mail's
    /// reply token); otherwise one made from `id`.
    pub message_id: Option<String>,
    /// Whether it goes out with an HTML part.
    pub html: bool,
    /// The board's picture (PNG) its HTML part shows, if any.
    pub picture: Option<Vec<u8>>,
    /// The secrets it carries until it is sent (a reply token, the
    /// confirmation codes it shows), blanked then.
    pub secrets: Vec<String>,
}

impl OutboxMail {
    /// Its Subject as a log line may show it: every secret it carries
    /// blanked, as in the row once it is sent. A log holds nothing that
    /// can be replayed.
    pub fn log_subject(&self) -> String {
        let mut subject = self.mail.subject.clone();
        for secret in &self.secrets {
            subject = subject.replace(secret.as_str(), "******");
        }
        subject
    }
}

/// A mail to queue with everything its outbox row holds from the start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NewOutboxMail {
    pub mail: Outgoing,
    /// It goes out with an HTML part.
    pub html: bool,
    /// The board's picture (PNG) its HTML part shows (only with `html`).
    pub picture: Option<Vec<u8>>,
    /// The Message-ID it is sent with, when not the one made from its row
    /// as it is sent (a reply token's, or one fixed while the codes it
    /// shows are in it).
    pub message_id: Option<String>,
    /// The secrets it carries (a reply token, confirmation codes): kept in
    /// clear until it is sent, then blanked ([`super::forget_secrets`]). A
    /// mail given up keeps them (it reached nobody, and `admin outbox
    /// retry` sends it as it was).
    pub secrets: Vec<String>,
}

/// The id the next mail queued on `conn` gets (the row's id is part of
/// a Message-ID made before the row is written): the one SQLite's
/// `AUTOINCREMENT` would give, past every id the outbox ever had.
pub(crate) fn next_outbox_id(conn: &Connection) -> Result<i64> {
    Ok(conn.row(
        "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'outbox'), 0),
                    coalesce((SELECT max(id) FROM outbox), 0)) + 1",
        [],
        |r| r.get(0),
    )?)
}

/// Queue a plain mail; it is due at once.
pub fn enqueue(conn: &Connection, mail: &Outgoing, now: DateTime<Utc>) -> Result<i64> {
    let id = next_outbox_id(conn)?;
    let plain = NewOutboxMail {
        mail: mail.clone(),
        html: false,
        picture: None,
        message_id: None,
        secrets: Vec::new(),
    };
    queue_mail(conn, id, &plain, now)?;
    Ok(id)
}

/// The mails queued to `recipient` and not yet sent (subject and body,
/// in order), taken out of the outbox: the web site's move form shows
/// the answers to its own sender's address on the page instead of
/// sending them.
pub(crate) fn take_queued_to(conn: &Connection, recipient: &str) -> Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, subject, body FROM outbox
         WHERE recipient = ?1 AND sent_at IS NULL AND failed_at IS NULL ORDER BY id",
    )?;
    let rows: Vec<(i64, String, String)> = stmt
        .query_map(params![recipient], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    for (id, _, _) in &rows {
        conn.exec("DELETE FROM outbox WHERE id = ?1", params![id])?;
    }
    Ok(rows.into_iter().map(|(_, s, b)| (s, b)).collect())
}

/// Queue `new` as outbox row `id` (from [`next_outbox_id`], in the same
/// transaction), in one insert; it is due at once. An address stopped by
/// its hard bounces gets nothing until mail comes from it: the mail is
/// given up at once (`admin outbox list` shows it).
pub(crate) fn queue_mail(
    conn: &Connection,
    id: i64,
    new: &NewOutboxMail,
    now: DateTime<Utc>,
) -> Result<()> {
    let words: Vec<&str> = new
        .secrets
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty() && !s.contains(char::is_whitespace))
        .collect();
    let secrets = (!words.is_empty()).then(|| words.join(" "));
    let now = StoredTime(now);
    let failed = super::bounces_stopped(conn, &new.mail.to)?.then_some((
        &now,
        "not sent: the address bounced too often; it gets mail again once mail comes from it",
    ));
    let mail = &new.mail;
    conn.exec(
        "INSERT INTO outbox (id, recipient, subject, body, in_reply_to, created_at,
             next_attempt_at, html, message_id, secrets, failed_at, last_error, picture)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            id,
            mail.to,
            mail.subject,
            mail.body,
            mail.in_reply_to,
            now,
            new.html,
            new.message_id,
            secrets,
            failed.map(|f| f.0),
            failed.map(|f| f.1),
            new.picture.as_deref().filter(|_| new.html),
        ],
    )?;
    Ok(())
}

/// Mails not yet sent nor given up whose next attempt is due at `now`, oldest first.
pub fn due_mail(conn: &Connection, now: DateTime<Utc>) -> Result<Vec<OutboxMail>> {
    due_mail_first(conn, now, u32::MAX)
}

/// The due rows, found by the partial index of rows waiting to be sent.
/// Without `INDEXED BY` SQLite walks the whole table in id order to spare
/// a sort, sent rows included: a pass sending a backlog in batches slowed
/// with every mail it had sent.
const DUE_MAIL: &str =
    "SELECT id, recipient, subject, body, in_reply_to, created_at, attempts, message_id, html,
            secrets, picture
     FROM outbox INDEXED BY outbox_due
     WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ?1 ORDER BY id
     LIMIT ?2";

/// The first `limit` outbox mails due at `now` (oldest first): a sending
/// pass works through a long outbox in batches of these, so that it never
/// holds more than one batch in memory.
pub(crate) fn due_mail_first(
    conn: &Connection,
    now: DateTime<Utc>,
    limit: u32,
) -> Result<Vec<OutboxMail>> {
    let mut stmt = conn.prepare_cached(DUE_MAIL)?;
    let mut rows = stmt.query(params![StoredTime(now), limit])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(OutboxMail {
            id: r.get(0)?,
            mail: Outgoing {
                to: r.get(1)?,
                subject: r.get(2)?,
                body: r.get(3)?,
                in_reply_to: r.get(4)?,
            },
            created_at: r.get::<_, StoredTime>(5)?.0,
            attempts: r.get(6)?,
            message_id: r.get(7)?,
            html: r.get(8)?,
            secrets: r
                .get::<_, Option<String>>(9)?
                .map(|s| s.split_whitespace().map(String::from).collect())
                .unwrap_or_default(),
            picture: r.get(10)?,
        });
    }
    Ok(out)
}

/// Every outbox mail not yet sent nor given up (for status displays and tests).
pub fn pending_count(conn: &Connection) -> Result<u32> {
    Ok(conn.row(
        "SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL",
        [],
        |r| r.get(0),
    )?)
}

/// Claim a due row for sending until `until`, so that another process
/// draining the same outbox (two overlapping cron passes) skips it. False
/// when the row is no longer due (sent, given up, or claimed by another).
///
/// The row is marked claimed until [`mark_sent`], [`mark_retry`],
/// [`mark_failed`] or [`unclaim`] records what became of it; a claim
/// still marked when the next sender takes the [`SendLock`] was left by a
/// sender that died, and [`reclaim_orphans`] makes it due again at once.
pub(crate) fn claim(
    conn: &Connection,
    id: i64,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<bool> {
    let n = conn.exec(
        "UPDATE outbox SET next_attempt_at = ?3, claimed = 1
         WHERE id = ?1 AND sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ?2",
        params![id, StoredTime(now), StoredTime(until)],
    )?;
    Ok(n == 1)
}

/// Give back a claimed mail that was not tried: due again at `at`.
pub(crate) fn unclaim(conn: &Connection, id: i64, at: DateTime<Utc>) -> Result<()> {
    conn.exec(
        "UPDATE outbox SET next_attempt_at = ?2, claimed = 0
         WHERE id = ?1 AND sent_at IS NULL AND failed_at IS NULL",
        params![id, StoredTime(at)],
    )?;
    Ok(())
}

pub fn mark_sent(conn: &Connection, id: i64, now: DateTime<Utc>) -> Result<()> {
    conn.exec(
        "UPDATE outbox SET sent_at = ?2, attempts = attempts + 1, last_error = NULL, claimed = 0
         WHERE id = ?1",
        params![id, StoredTime(now)],
    )?;
    // Sent: its reply token and codes are no longer kept in clear.
    super::forget_secrets(conn, id)?;
    Ok(())
}

/// A temporary failure: try again at `next`.
pub(crate) fn mark_retry(
    conn: &Connection,
    id: i64,
    next: DateTime<Utc>,
    error: &str,
) -> Result<()> {
    conn.exec(
        "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?2, last_error = ?3,
             claimed = 0
         WHERE id = ?1",
        params![id, StoredTime(next), error],
    )?;
    Ok(())
}

/// A permanent failure: never tried again.
pub(crate) fn mark_failed(
    conn: &Connection,
    id: i64,
    now: DateTime<Utc>,
    error: &str,
) -> Result<()> {
    conn.exec(
        "UPDATE outbox SET attempts = attempts + 1, failed_at = ?2, last_error = ?3, claimed = 0
         WHERE id = ?1",
        params![id, StoredTime(now), error],
    )?;
    Ok(())
}

/// Makes every claimed row not yet sent nor given up due at `now` and no
/// longer claimed: called by a sender that has just taken the
/// [`SendLock`], when no other process can be sending them (so a crash
/// strands no batch for the lease). Returns how many.
pub(crate) fn reclaim_orphans(conn: &Connection, now: DateTime<Utc>) -> Result<usize> {
    Ok(conn.exec(
        "UPDATE outbox SET claimed = 0, next_attempt_at = ?1
         WHERE claimed = 1 AND sent_at IS NULL AND failed_at IS NULL",
        params![StoredTime(now)],
    )?)
}

/// Whether any outbox row is due at `now`.
pub(crate) fn any_due(conn: &Connection, now: DateTime<Utc>) -> Result<bool> {
    Ok(!due_mail_first(conn, now, 1)?.is_empty())
}

/// The send lock of a database: an exclusive advisory lock (`flock`) on the
/// file `<database>.send-lock` beside it, held by the one process that
/// sends outbox mail at a time, for as long as it sends (released when
/// dropped, and by the kernel when the process dies, SIGKILL included).
/// So a second process (a cron `poll` beside `serve`, the MTA pipe's
/// `process`) never sends a row another live process is sending, and a
/// claim found by the next holder was left by a dead one.
#[derive(Debug)]
pub(crate) struct SendLock {
    _file: std::fs::File,
}

/// What [`SendLock::try_take`] found.
#[derive(Debug)]
pub(crate) enum SendLockState {
    /// Taken: this process may send.
    Taken(SendLock),
    /// Another live process holds it and is sending.
    Busy,
    /// No lock applies: an in-memory database, or the lock file cannot be
    /// opened (then claims and their lease alone keep senders apart).
    Unavailable(Option<std::io::Error>),
}

impl SendLock {
    /// The lock file of the database `conn` has open, if it is a file.
    pub(crate) fn path_for(conn: &Connection) -> Option<std::path::PathBuf> {
        conn.path()
            .filter(|p| !p.is_empty())
            .map(|p| std::path::PathBuf::from(format!("{p}.send-lock")))
    }

    /// Tries to take the send lock of `conn`'s database without waiting.
    pub(crate) fn try_take(conn: &Connection) -> SendLockState {
        let Some(path) = SendLock::path_for(conn) else {
            return SendLockState::Unavailable(None);
        };
        use std::os::unix::fs::OpenOptionsExt;
        let file = match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
        {
            Ok(f) => f,
            Err(e) => return SendLockState::Unavailable(Some(e)),
        };
        match file.try_lock() {
            Ok(()) => SendLockState::Taken(SendLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => SendLockState::Busy,
            Err(std::fs::TryLockError::Error(e)) => SendLockState::Unavailable(Some(e)),
        }
    }
}

/// Forget processed Message-IDs recorded before `processed_before` and
/// outbox mails sent before `sent_before`, at most `batch` of each (both
/// found by index). Returns how many of each were deleted.
///
/// Reply tokens go with the processed mail's days: a token made before
/// `processed_before` is forgotten once it no longer stands for a board as
/// it is (its game ended, or a later ply was played); a reply to its mail
/// is then answered as one to a mail the server does not know. The token
/// of a board's current ply stays, however old.
///
/// A once-a-day notice's record (see `notice_due_daily`) goes a day after
/// it was sent, when it no longer holds anything back: a sender who
/// rotates addresses leaves at most a day of them.
pub(crate) fn prune(
    conn: &Connection,
    processed_before: DateTime<Utc>,
    sent_before: DateTime<Utc>,
    now: DateTime<Utc>,
    batch: u32,
) -> Result<Pruned> {
    let processed = conn.exec(
        "DELETE FROM processed_mail WHERE rowid IN
             (SELECT rowid FROM processed_mail WHERE processed_at < ?1 LIMIT ?2)",
        params![StoredTime(processed_before), batch],
    )?;
    let sent = conn.exec(
        "DELETE FROM outbox WHERE id IN
             (SELECT id FROM outbox WHERE sent_at IS NOT NULL AND sent_at < ?1 LIMIT ?2)",
        params![StoredTime(sent_before), batch],
    )?;
    let reply_tokens = conn.exec(
        "DELETE FROM reply_tokens WHERE token_hash IN
             (SELECT t.token_hash FROM reply_tokens t
              WHERE t.created_at < ?1
                AND (t.expired_at IS NOT NULL
                     OR t.ply < (SELECT coalesce(max(p.ply), 0) FROM plies p
                                 WHERE p.game = t.game AND p.board = t.board))
              LIMIT ?2)",
        params![StoredTime(processed_before), batch],
    )?;
    let notices = conn.exec(
        "DELETE FROM notices_sent WHERE key IN
             (SELECT key FROM notices_sent WHERE sent_at <= ?1 LIMIT ?2)",
        params![StoredTime(now - chrono::Duration::days(1)), batch],
    )?;
    Ok(Pruned {
        processed,
        sent,
        reply_tokens,
        notices,
    })
}

/// Rows [`prune`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pruned {
    pub processed: usize,
    pub sent: usize,
    pub reply_tokens: usize,
    /// Once-a-day notices' records older than a day.
    pub notices: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::open_in_memory;
    use chrono::Duration;

    fn mail(to: &str) -> Outgoing {
        Outgoing {
            to: to.into(),
            subject: "s".into(),
            body: "b".into(),
            in_reply_to: Some("m1@x".into()),
        }
    }

    #[test]
    fn old_processed_mail_and_sent_outbox_mail_are_pruned() {
        let conn = open_in_memory().unwrap();
        let now = chrono::Utc::now();
        let old = now - Duration::days(100);
        record_mail(&conn, ("old@x", "f"), Some("a@x"), "answered", old).unwrap();
        record_mail(&conn, ("new@x", "f"), Some("a@x"), "answered", now).unwrap();
        let sent_old = enqueue(&conn, &mail("a@x"), old).unwrap();
        mark_sent(&conn, sent_old, old).unwrap();
        let sent_new = enqueue(&conn, &mail("b@x"), now).unwrap();
        mark_sent(&conn, sent_new, now).unwrap();
        let failed_old = enqueue(&conn, &mail("c@x"), old).unwrap();
        mark_failed(&conn, failed_old, old, "550").unwrap();
        let waiting_old = enqueue(&conn, &mail("d@x"), old).unwrap();
        crate::store::notice_due_daily(&conn, "old-notice", now - Duration::days(1)).unwrap();
        crate::store::notice_due_daily(&conn, "new-notice", now - Duration::hours(23)).unwrap();
        let pruned = prune(
            &conn,
            now - Duration::days(90),
            now - Duration::days(30),
            now,
            100,
        )
        .unwrap();
        assert_eq!((pruned.processed, pruned.sent), (1, 1));
        // The notice of a day ago is due again, so its record goes; the
        // one of 23 hours ago still holds the next one back.
        assert_eq!(pruned.notices, 1);
        assert!(crate::store::notice_due_daily(&conn, "old-notice", now).unwrap());
        assert!(!crate::store::notice_due_daily(&conn, "new-notice", now).unwrap());
        assert!(!mail_seen(&conn, "old@x", "f").unwrap());
        assert!(mail_seen(&conn, "new@x", "f").unwrap());
        let left: Vec<i64> = conn
            .prepare_cached("SELECT id FROM outbox ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(left, vec![sent_new, failed_old, waiting_old]);
        // The deletes find their rows by index.
        for sql in [
            "EXPLAIN QUERY PLAN SELECT rowid FROM processed_mail WHERE processed_at < '2026'",
            "EXPLAIN QUERY PLAN SELECT id FROM outbox WHERE sent_at IS NOT NULL AND sent_at < '2026'",
            "EXPLAIN QUERY PLAN SELECT token_hash FROM reply_tokens WHERE created_at < '2026'",
            "EXPLAIN QUERY PLAN SELECT key FROM notices_sent WHERE sent_at <= '2026'",
        ] {
            let plan: String = conn.row(sql, [], |r| r.get(3)).unwrap();
            assert!(plan.contains("USING") && plan.contains("INDEX"), "{plan}");
        }
    }

    #[test]
    fn due_mail_is_found_by_index_in_order() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        let ids: Vec<i64> = ["a@x", "b@x", "c@x", "d@x"]
            .iter()
            .map(|to| enqueue(&conn, &mail(to), now).unwrap())
            .collect();
        mark_sent(&conn, ids[0], now).unwrap();
        // A later attempt time does not reorder the due ones.
        conn.exec(
            "UPDATE outbox SET next_attempt_at = ?2 WHERE id = ?1",
            params![ids[1], StoredTime(now - Duration::minutes(5))],
        )
        .unwrap();
        let due: Vec<i64> = due_mail_first(&conn, now, 2)
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(due, vec![ids[1], ids[2]]);
        let plan: String = conn
            .row(
                &format!("EXPLAIN QUERY PLAN {DUE_MAIL}"),
                params!["", 1],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains("USING INDEX outbox_due"), "{plan}");
    }

    #[test]
    fn processed_mail_is_remembered() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        assert!(!mail_seen(&conn, "a@b", "f1").unwrap());
        record_mail(&conn, ("a@b", "f1"), Some("p@x"), "answered", now).unwrap();
        assert!(mail_seen(&conn, "a@b", "f1").unwrap());
        assert!(record_mail(&conn, ("a@b", "f1"), Some("p@x"), "answered", now).is_err());
        // The same Message-ID on another mail (another sender or text).
        assert!(!mail_seen(&conn, "a@b", "f2").unwrap());
        record_mail(&conn, ("a@b", "f2"), Some("q@x"), "answered", now).unwrap();
        assert!(mail_seen(&conn, "a@b", "f2").unwrap());
        assert_eq!(
            mails_from_since(&conn, "p@x", now - Duration::hours(1)).unwrap(),
            1
        );
        assert_eq!(
            mails_from_since(&conn, "p@x", now + Duration::hours(1)).unwrap(),
            0
        );
    }

    #[test]
    fn outbox_rows_move_from_due_to_sent_retry_or_failed() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        let a = enqueue(&conn, &mail("a@x"), now).unwrap();
        let b = enqueue(&conn, &mail("b@x"), now).unwrap();
        let c = enqueue(&conn, &mail("c@x"), now).unwrap();
        let due = due_mail(&conn, now).unwrap();
        assert_eq!(due.iter().map(|m| m.id).collect::<Vec<_>>(), vec![a, b, c]);
        assert_eq!(due[0].mail, mail("a@x"));
        assert!(claim(&conn, a, now, now + Duration::minutes(5)).unwrap());
        assert!(
            !claim(&conn, a, now, now + Duration::minutes(5)).unwrap(),
            "claimed once"
        );
        mark_sent(&conn, a, now).unwrap();
        mark_retry(&conn, b, now + Duration::minutes(5), "timeout").unwrap();
        mark_failed(&conn, c, now, "550 no such user").unwrap();
        assert!(due_mail(&conn, now).unwrap().is_empty());
        let later = due_mail(&conn, now + Duration::minutes(6)).unwrap();
        assert_eq!(later.len(), 1);
        assert_eq!(later[0].id, b);
        assert_eq!(later[0].attempts, 1);
        assert_eq!(pending_count(&conn).unwrap(), 1);
    }

    #[test]
    fn a_queued_row_never_takes_the_id_of_a_row_deleted_before() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        enqueue(&conn, &mail("a@x"), now).unwrap();
        let last = enqueue(&conn, &mail("b@x"), now).unwrap();
        conn.execute("DELETE FROM outbox WHERE id = ?1", [last])
            .unwrap();
        let next = next_outbox_id(&conn).unwrap();
        assert_eq!(next, last + 1);
        assert_eq!(enqueue(&conn, &mail("c@x"), now).unwrap(), next);
    }
}
