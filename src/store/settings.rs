//! Per-player settings: challenge acceptance and limits, result
//! notifications, vacations.

use super::{BoardId, Cached};
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{Result, StoredTime};

/// Whether `userid` takes challenges of `game`, and how many active boards at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChallengeSettings {
    pub accepts: bool,
    pub limit: Option<u32>,
}

impl Default for ChallengeSettings {
    fn default() -> Self {
        ChallengeSettings {
            accepts: true,
            limit: None,
        }
    }
}

pub(crate) fn challenge_settings(
    conn: &Connection,
    userid: &str,
    game: &str,
) -> Result<ChallengeSettings> {
    Ok(conn
        .row(
            "SELECT accepts, board_limit FROM challenge_settings WHERE userid = ?1 AND game = ?2",
            params![userid, game],
            |r| {
                Ok(ChallengeSettings {
                    accepts: r.get(0)?,
                    limit: r.get(1)?,
                })
            },
        )
        .optional()?
        .unwrap_or_default())
}

pub(crate) fn set_challenge_settings(
    conn: &Connection,
    userid: &str,
    game: &str,
    settings: ChallengeSettings,
) -> Result<()> {
    conn.exec(
        "INSERT INTO challenge_settings (userid, game, accepts, board_limit) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (userid, game) DO UPDATE SET accepts = excluded.accepts,
                                                 board_limit = excluded.board_limit",
        params![userid, game, settings.accepts, settings.limit],
    )?;
    Ok(())
}

/// Ask for the results of board `number` of `game` (`None`: every board).
pub(crate) fn add_result_notification(
    conn: &Connection,
    game: &str,
    number: Option<u32>,
    userid: &str,
) -> Result<()> {
    conn.exec(
        "INSERT OR IGNORE INTO result_notifications (game, board, userid) VALUES (?1, ?2, ?3)",
        params![game, number.unwrap_or(0), userid],
    )?;
    Ok(())
}

/// Who asked for the result of this board, by userid.
pub(crate) fn result_watchers(conn: &Connection, id: BoardId<'_>) -> Result<Vec<String>> {
    let (game, number) = (id.game, id.number);
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT userid FROM result_notifications
         WHERE game = ?1 AND board IN (0, ?2) ORDER BY userid",
    )?;
    let rows = stmt.query_map(params![game, number], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One vacation, possibly still running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vacation {
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

/// Every vacation of `userid` that ends after `since`, oldest first.
pub(crate) fn vacations(
    conn: &Connection,
    userid: &str,
    since: DateTime<Utc>,
) -> Result<Vec<Vacation>> {
    let mut stmt = conn.prepare_cached(
        "SELECT starts_at, ends_at FROM vacations WHERE userid = ?1 AND ends_at > ?2
         ORDER BY starts_at",
    )?;
    let mut rows = stmt.query(params![userid, StoredTime(since)])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(Vacation {
            starts_at: r.get::<_, StoredTime>(0)?.0,
            ends_at: r.get::<_, StoredTime>(1)?.0,
        });
    }
    Ok(out)
}

pub(crate) fn add_vacation(conn: &Connection, userid: &str, vacation: Vacation) -> Result<()> {
    conn.exec(
        "INSERT INTO vacations (userid, starts_at, ends_at) VALUES (?1, ?2, ?3)",
        params![
            userid,
            StoredTime(vacation.starts_at),
            StoredTime(vacation.ends_at)
        ],
    )?;
    Ok(())
}

/// End every running vacation of `userid` at `now`; returns how many ended.
pub(crate) fn end_vacations(conn: &Connection, userid: &str, now: DateTime<Utc>) -> Result<usize> {
    Ok(conn.exec(
        "UPDATE vacations SET ends_at = ?2 WHERE userid = ?1 AND ends_at > ?2",
        params![userid, StoredTime(now)],
    )?)
}

/// A player on the waiting list of `seek`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Seek {
    pub userid: String,
    pub note: String,
    pub created_at: DateTime<Utc>,
}

/// Put `userid` on the waiting list of `game` (a second seek replaces the
/// note and keeps the place).
pub(crate) fn add_seek(
    conn: &Connection,
    game: &str,
    userid: &str,
    note: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "INSERT INTO seeks (game, userid, note, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (game, userid) DO UPDATE SET note = excluded.note",
        params![game, userid, note, StoredTime(now)],
    )?;
    Ok(())
}

/// The longest-waiting seeker of `game` other than `except`, taken off the list.
pub(crate) fn take_seek(conn: &Connection, game: &str, except: &str) -> Result<Option<Seek>> {
    let found = conn
        .row(
            "SELECT userid, note, created_at FROM seeks
             WHERE game = ?1 AND userid != ?2 ORDER BY created_at, userid LIMIT 1",
            params![game, except],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, StoredTime>(2)?,
                ))
            },
        )
        .optional()?;
    let Some((userid, note, at)) = found else {
        return Ok(None);
    };
    conn.exec(
        "DELETE FROM seeks WHERE game = ?1 AND userid = ?2",
        params![game, userid],
    )?;
    Ok(Some(Seek {
        userid,
        note,
        created_at: at.0,
    }))
}

/// Whether `userid` asked for only the last moves in turn mails (`<game>
/// set <userid> <pw> moves last`); the default is the whole score. The
/// choice holds for every game.
pub(crate) fn last_moves_only(conn: &Connection, userid: &str) -> Result<bool> {
    Ok(conn
        .row(
            "SELECT last_moves_only FROM users WHERE userid = ?1",
            params![userid],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(false))
}

/// `set … moves last` (true) or `set … moves all` (false).
pub(crate) fn set_last_moves_only(conn: &Connection, userid: &str, last: bool) -> Result<()> {
    conn.exec(
        "UPDATE users SET last_moves_only = ?2 WHERE userid = ?1",
        params![userid, last],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{insert_user, open_in_memory};
    use chrono::Duration;

    #[test]
    fn settings_default_to_accepting_without_limit() {
        let conn = open_in_memory().unwrap();
        insert_user(&conn, "a", "h", &["a@x".into()], Utc::now()).unwrap();
        assert_eq!(
            challenge_settings(&conn, "a", "chess").unwrap(),
            ChallengeSettings::default()
        );
        let s = ChallengeSettings {
            accepts: false,
            limit: Some(3),
        };
        set_challenge_settings(&conn, "a", "chess", s).unwrap();
        assert_eq!(challenge_settings(&conn, "a", "chess").unwrap(), s);
    }

    #[test]
    fn vacations_end_early_and_notifications_cover_all_boards() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        insert_user(&conn, "a", "h", &["a@x".into()], now).unwrap();
        add_vacation(
            &conn,
            "a",
            Vacation {
                starts_at: now,
                ends_at: now + Duration::days(5),
            },
        )
        .unwrap();
        assert_eq!(vacations(&conn, "a", now).unwrap().len(), 1);
        assert_eq!(
            end_vacations(&conn, "a", now + Duration::days(1)).unwrap(),
            1
        );
        assert!(vacations(&conn, "a", now + Duration::days(2))
            .unwrap()
            .is_empty());
        add_result_notification(&conn, "chess", None, "a").unwrap();
        add_result_notification(&conn, "chess", Some(7), "a").unwrap();
        assert_eq!(
            result_watchers(&conn, BoardId::new("chess", 9)).unwrap(),
            vec!["a"]
        );
        assert!(result_watchers(&conn, BoardId::new("doublechess", 9))
            .unwrap()
            .is_empty());
    }
}
