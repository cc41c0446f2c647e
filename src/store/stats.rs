//! What the admin looks at: the outbox rows one by one, counts for
//! `admin stats`, and a copy of the whole database.

use super::Cached;
use std::path::Path;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::{Result, StoredTime};

/// One outbox mail not yet sent, as `admin outbox list` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OutboxEntry {
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
pub(crate) fn unsent_mail(conn: &Connection) -> Result<Vec<OutboxEntry>> {
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
            r.get::<_, StoredTime>(3)?,
            r.get::<_, u32>(4)?,
            r.get::<_, StoredTime>(5)?,
            r.get::<_, Option<StoredTime>>(6)?,
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
            created_at: created.0,
            attempts,
            next_attempt_at: next.0,
            failed_at: failed.map(|t| t.0),
            last_error,
        });
    }
    Ok(out)
}

/// Make an unsent mail (waiting or given up) due now. False when there is
/// no unsent mail with that id.
pub(crate) fn retry_mail(conn: &Connection, id: i64, now: DateTime<Utc>) -> Result<bool> {
    Ok(conn.exec(
        "UPDATE outbox SET failed_at = NULL, next_attempt_at = ?2
         WHERE id = ?1 AND sent_at IS NULL",
        params![id, StoredTime(now)],
    )? == 1)
}

/// Remove an unsent mail from the outbox. False when there is none with that id.
pub(crate) fn drop_mail(conn: &Connection, id: i64) -> Result<bool> {
    Ok(conn.exec(
        "DELETE FROM outbox WHERE id = ?1 AND sent_at IS NULL",
        params![id],
    )? == 1)
}

/// The numbers of `admin stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stats {
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
pub(crate) fn stats(conn: &Connection, since: DateTime<Utc>) -> Result<Stats> {
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
    for row in stmt.query_map(params![StoredTime(since)], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })? {
        s.days.push(row?);
    }
    Ok(s)
}

/// Write a consistent copy of the database to `file`, safe while the
/// daemon runs (`VACUUM INTO`: one read transaction), with the secrets
/// that still work scrubbed from the copy (see [`scrub_live_secrets`]; the
/// live database is not changed).
///
/// Rulings: the copy is written to a temporary file beside `file` (named
/// `.NAME.partial-PID`, made 0600 and new: never through a symlink),
/// synced, and linked to `file` only when it is complete; `file` never
/// replaces anything there (a file or a symlink, dangling or not). On any
/// failure (a full disk) the temporary file is removed: nothing named
/// like the backup is left, so a file of that name is a whole backup.
pub(crate) fn backup_into(conn: &Connection, file: &Path, now: DateTime<Utc>) -> Result<()> {
    let partial = partial_name(file)?;
    let written = write_copy(conn, &partial, now).and_then(|()| publish(&partial, file));
    // Linked (or failed): the temporary name goes either way.
    let _ = std::fs::remove_file(&partial);
    let mut journal = partial.clone().into_os_string();
    journal.push("-journal");
    let _ = std::fs::remove_file(journal);
    written
}

/// `.NAME.partial-PID` in the folder of `file`.
fn partial_name(file: &Path) -> Result<std::path::PathBuf> {
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| file_error(file, "is not a file name in UTF-8"))?;
    Ok(file.with_file_name(format!(".{name}.partial-{}", std::process::id())))
}

fn file_error(path: &Path, what: impl std::fmt::Display) -> super::StoreError {
    super::StoreError::File(format!("{} {what}", path.display()))
}

/// The copy at `partial` (a new 0600 file), scrubbed and synced.
fn write_copy(conn: &Connection, partial: &Path, now: DateTime<Utc>) -> Result<()> {
    let path = partial
        .to_str()
        .ok_or_else(|| file_error(partial, "is not UTF-8"))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(partial) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(file_error(
            partial,
            "exists (another backup is being written, or one was cut off); remove it and try again",
        )),
        Err(e) => return Err(file_error(partial, format!("cannot be created: {e}"))),
    }
    conn.exec("VACUUM INTO ?1", params![path])?;
    {
        let copy = Connection::open(partial)?;
        // Scrubbed cells are overwritten, not left in free space.
        copy.pragma_update(None, "secure_delete", "ON")?;
        copy.pragma_update(None, "journal_mode", "MEMORY")?;
        if scrub_live_secrets(&copy, now)? {
            copy.execute_batch("VACUUM")?;
        }
    }
    let sync = |e: std::io::Error| file_error(partial, format!("cannot be synced: {e}"));
    let f = std::fs::File::open(partial).map_err(sync)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(sync)?;
    }
    f.sync_all().map_err(sync)?;
    Ok(())
}

/// Give the complete copy its name: a hard link, which fails when
/// anything is at `file` (a symlink is not followed); where the file
/// system has no hard links, a rename, once nothing is there. Then the
/// folder is synced.
fn publish(partial: &Path, file: &Path) -> Result<()> {
    match std::fs::hard_link(partial, file) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(file_error(
                file,
                "exists already; give a new file name (a backup never overwrites)",
            ))
        }
        Err(_) if std::fs::symlink_metadata(file).is_err() => std::fs::rename(partial, file)
            .map_err(|e| file_error(file, format!("cannot be written: {e}")))?,
        Err(e) => return Err(file_error(file, format!("cannot be written: {e}"))),
    }
    let folder = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Ok(dir) = std::fs::File::open(folder) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// What the reason of an outbox mail scrubbed from a backup says.
pub(crate) const SCRUBBED_IN_BACKUP: &str =
    "not sent from this backup: its reply token and codes were removed when the backup was made";

/// In a backup copy: remove every secret that still works, so that the
/// copy (and whoever reads it) can replay nothing. Outbox mails not yet
/// sent (or given up) carry their reply token and confirmation codes in
/// clear until sent (see `forget_secrets`): they are blanked as after
/// sending, and the mail is given up in the copy (restored, it is not sent
/// with holes; `admin outbox list` shows it). Codes of addresses waiting
/// for confirmation are removed (a 6-letter code's hash can be searched):
/// restored, such an address asks for a new code. The kept bytes of
/// quarantined mail are removed: a player's mail holds their password in
/// clear and its `In-Reply-To` a reply token that plays; restored,
/// `admin inbox retry` names the quarantine folder, which still holds the
/// mail. Reply tokens and passwords are kept as hashes only, and stay.
/// True when anything was scrubbed.
pub(crate) fn scrub_live_secrets(copy: &Connection, now: DateTime<Utc>) -> Result<bool> {
    let tx = copy.unchecked_transaction()?;
    let ids: Vec<i64> = tx
        .prepare("SELECT id FROM outbox WHERE secrets IS NOT NULL")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for &id in &ids {
        super::forget_secrets(&tx, id)?;
        tx.exec(
            "UPDATE outbox SET failed_at = coalesce(failed_at, ?2), claimed = 0,
                 last_error = CASE WHEN failed_at IS NULL OR last_error IS NULL THEN ?3
                                   ELSE last_error || '; ' || ?3 END
             WHERE id = ?1 AND sent_at IS NULL",
            params![id, StoredTime(now), SCRUBBED_IN_BACKUP],
        )?;
    }
    let codes = tx.exec(
        "UPDATE user_addresses SET code_hash = NULL WHERE code_hash IS NOT NULL",
        [],
    )?;
    let mails = tx.exec(
        "UPDATE confirmation_mails SET code_hash = '', code_expires_at = sent_at
         WHERE code_hash <> ''",
        [],
    )?;
    let quarantined = tx.exec(
        "UPDATE inbound_failures SET raw = NULL WHERE raw IS NOT NULL",
        [],
    )?;
    tx.commit()?;
    Ok(!ids.is_empty() || codes + mails + quarantined > 0)
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
    fn a_backup_copy_keeps_no_live_secret_and_sends_nothing_with_holes() {
        use crate::store::{next_outbox_id, queue_mail, NewOutboxMail};
        let copy = open_in_memory().unwrap();
        let now = Utc::now();
        let carrying = |to: &str| {
            let out = Outgoing {
                to: to.into(),
                subject: "confirm address K7Q3P9".into(),
                body: "code K7Q3P9".into(),
                in_reply_to: None,
            };
            let id = next_outbox_id(&copy).unwrap();
            let new = NewOutboxMail {
                mail: out,
                html: false,
                picture: None,
                message_id: Some("t.0a1b2c3d@games.test".into()),
                secrets: vec!["K7Q3P9".into(), "0a1b2c3d".into()],
            };
            queue_mail(&copy, id, &new, now).unwrap();
            id
        };
        carrying("a@x");
        let given_up = carrying("b@x");
        mark_failed(&copy, given_up, now, "550 no such user").unwrap();
        assert!(scrub_live_secrets(&copy, now).unwrap());
        let rows: Vec<(String, String, String, Option<String>, String)> = copy
            .prepare(
                "SELECT subject, body, message_id, secrets, last_error FROM outbox
                 WHERE failed_at IS NOT NULL ORDER BY id",
            )
            .unwrap()
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(rows.len(), 2, "both given up: {rows:?}");
        for (subject, body, message_id, secrets, _) in &rows {
            let all = format!("{subject} {body} {message_id}");
            assert!(
                !all.contains("K7Q3P9") && !all.contains("0a1b2c3d"),
                "{all}"
            );
            assert_eq!(secrets, &None);
        }
        assert_eq!(rows[0].4, SCRUBBED_IN_BACKUP);
        assert_eq!(rows[1].4, format!("550 no such user; {SCRUBBED_IN_BACKUP}"));
        assert_eq!(crate::store::pending_count(&copy).unwrap(), 0);
        // Nothing left: a second scrub changes nothing.
        assert!(!scrub_live_secrets(&copy, now).unwrap());
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
