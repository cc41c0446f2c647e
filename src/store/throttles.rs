//! Throttles: wrong passwords per userid and commands per clock hour.
//!
//! `password_failures` is keyed by a *bucket*, not only a userid (see
//! `server::guard`): `alice` (wrong passwords from alice's addresses on
//! file), `stranger:alice` (from any other address), `code:alice` and
//! `code:stranger:alice` (wrong confirmation codes), and `#<hex>` for a
//! userid that does not exist (a keyed hash of it: see [`throttle_key`]).

use super::Cached;
use chrono::{DateTime, Duration, DurationRound, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{Result, StoredTime};

/// Until when `userid` takes no password, if it is locked now.
pub(crate) fn locked_until(
    conn: &Connection,
    userid: &str,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>> {
    let until: Option<Option<StoredTime>> = conn
        .row(
            "SELECT locked_until FROM password_failures WHERE userid = ?1",
            params![userid],
            |r| r.get(0),
        )
        .optional()?;
    Ok(until.flatten().map(|t| t.0).filter(|t| *t > now))
}

/// Count one wrong password for `userid`. The failures are counted in a
/// window of `window` from the first; at `max` failures within it the
/// userid is locked for `window`. Returns the end of the lockout when this
/// failure began it (so the owner is told once).
pub(crate) fn record_password_failure(
    conn: &Connection,
    userid: &str,
    now: DateTime<Utc>,
    max: u32,
    window: Duration,
) -> Result<Option<DateTime<Utc>>> {
    let row: Option<(i64, StoredTime)> = conn
        .row(
            "SELECT failures, first_failed_at FROM password_failures WHERE userid = ?1",
            params![userid],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (failures, first) = match row {
        Some((n, first)) if first.0 + window > now => (n + 1, first),
        _ => (1, StoredTime(now)),
    };
    let lock = (failures >= i64::from(max.max(1))).then(|| now + window);
    conn.exec(
        "INSERT INTO password_failures (userid, failures, first_failed_at, locked_until)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (userid) DO UPDATE SET failures = excluded.failures,
             first_failed_at = excluded.first_failed_at, locked_until = excluded.locked_until",
        params![userid, failures, first, lock.map(StoredTime)],
    )?;
    Ok(lock)
}

/// A new password set by the admin: the wrong ones before it are
/// forgotten, from the account's own addresses and from strangers alike
/// (wrong confirmation codes are not).
pub(crate) fn clear_password_failures(conn: &Connection, userid: &str) -> Result<()> {
    conn.exec(
        "DELETE FROM password_failures WHERE userid IN (?1, 'stranger:' || ?1)",
        params![userid],
    )?;
    Ok(())
}

/// A right password: the wrong ones before it in its bucket are
/// forgotten (only there: a player's own move does not give a stranger
/// five more guesses).
pub(crate) fn clear_failures_bucket(conn: &Connection, key: &str) -> Result<()> {
    conn.exec(
        "DELETE FROM password_failures WHERE userid = ?1",
        params![key],
    )?;
    Ok(())
}

/// The key of the throttle's keyed hashes: drawn at random by the
/// migration that made it, kept in the database (so every process counts
/// a nonexistent userid under the same hash).
pub(crate) fn throttle_key(conn: &Connection) -> Result<Vec<u8>> {
    Ok(conn.row(
        "SELECT value FROM server_secrets WHERE name = 'throttle'",
        [],
        |r| r.get(0),
    )?)
}

/// Whether `userid` was told of a lockout since `since`.
pub(crate) fn lockout_noticed_since(
    conn: &Connection,
    userid: &str,
    since: DateTime<Utc>,
) -> Result<bool> {
    let at: Option<StoredTime> = conn
        .row(
            "SELECT sent_at FROM lockout_notices WHERE userid = ?1",
            params![userid],
            |r| r.get(0),
        )
        .optional()?;
    Ok(at.is_some_and(|at| at.0 > since))
}

/// `userid` is told of a lockout now.
pub(crate) fn record_lockout_notice(
    conn: &Connection,
    userid: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "INSERT INTO lockout_notices (userid, sent_at) VALUES (?1, ?2)
         ON CONFLICT (userid) DO UPDATE SET sent_at = excluded.sent_at",
        params![userid, StoredTime(now)],
    )?;
    Ok(())
}

/// What a command count is kept for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CountScope {
    /// Per sender address.
    Address,
    /// Per account whose password was right.
    Account,
    /// The whole server (key `""`).
    Server,
}

impl CountScope {
    fn text(self) -> &'static str {
        match self {
            CountScope::Address => "address",
            CountScope::Account => "account",
            CountScope::Server => "server",
        }
    }
}

fn hour_of(now: DateTime<Utc>) -> StoredTime {
    StoredTime(now.duration_trunc(Duration::hours(1)).unwrap_or(now))
}

/// Commands counted for `key` in the clock hour of `now`.
pub(crate) fn commands_this_hour(
    conn: &Connection,
    scope: CountScope,
    key: &str,
    now: DateTime<Utc>,
) -> Result<u32> {
    let n: Option<i64> = conn
        .row(
            "SELECT count FROM command_counts WHERE scope = ?1 AND key = ?2 AND hour = ?3",
            params![scope.text(), key, hour_of(now)],
            |r| r.get(0),
        )
        .optional()?;
    Ok(n.unwrap_or(0).clamp(0, i64::from(u32::MAX)) as u32)
}

/// Count one command for `key` in the clock hour of `now`; returns the
/// count after it. Counts of hours before the last are dropped as it goes.
pub(crate) fn count_command(
    conn: &Connection,
    scope: CountScope,
    key: &str,
    now: DateTime<Utc>,
) -> Result<u32> {
    let hour = hour_of(now);
    let n: i64 = conn.row(
        "INSERT INTO command_counts (scope, key, hour, count) VALUES (?1, ?2, ?3, 1)
         ON CONFLICT (scope, key, hour) DO UPDATE SET count = count + 1
         RETURNING count",
        params![scope.text(), key, hour],
        |r| r.get(0),
    )?;
    if n == 1 {
        conn.exec(
            "DELETE FROM command_counts WHERE scope = ?1 AND key = ?2 AND hour < ?3",
            params![scope.text(), key, hour],
        )?;
    }
    Ok(n.clamp(0, i64::from(u32::MAX)) as u32)
}

/// Boards `userid` asked for by mail since `since` (their challenges and
/// seeks), as [`record_board_start`] recorded them (no rollback undoes
/// them); with `opponent`, only those against that player.
pub(crate) fn boards_started_since(
    conn: &Connection,
    userid: &str,
    opponent: Option<&str>,
    since: DateTime<Utc>,
) -> Result<u32> {
    let n: i64 = conn.row(
        "SELECT count(*) FROM board_starts
         WHERE userid = ?1 AND started_at >= ?2 AND (?3 IS NULL OR opponent = ?3)",
        params![userid, StoredTime(since), opponent],
        |r| r.get(0),
    )?;
    Ok(n.clamp(0, i64::from(u32::MAX)) as u32)
}

/// `userid` asked for a board against `opponent` by mail now. Starts
/// older than two days are dropped as it goes.
pub(crate) fn record_board_start(
    conn: &Connection,
    userid: &str,
    opponent: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "DELETE FROM board_starts WHERE userid = ?1 AND started_at < ?2",
        params![userid, StoredTime(now - Duration::days(2))],
    )?;
    conn.exec(
        "INSERT INTO board_starts (userid, opponent, started_at) VALUES (?1, ?2, ?3)",
        params![userid, opponent, StoredTime(now)],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::open_in_memory;

    #[test]
    fn the_fifth_failure_in_the_window_locks_and_says_so_once() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        let w = Duration::minutes(15);
        for i in 0..4 {
            let t = now + Duration::minutes(i);
            assert_eq!(record_password_failure(&conn, "a", t, 5, w).unwrap(), None);
            assert_eq!(locked_until(&conn, "a", t).unwrap(), None);
        }
        let t = now + Duration::minutes(4);
        let until = record_password_failure(&conn, "a", t, 5, w).unwrap();
        assert_eq!(until, Some(t + w));
        assert!(locked_until(&conn, "a", t + Duration::minutes(1))
            .unwrap()
            .is_some());
        assert_eq!(locked_until(&conn, "a", t + w).unwrap(), None);
        // After the window, counting starts again.
        assert_eq!(
            record_password_failure(&conn, "a", t + w + Duration::minutes(1), 5, w).unwrap(),
            None
        );
        clear_password_failures(&conn, "a").unwrap();
        assert_eq!(locked_until(&conn, "a", t).unwrap(), None);
    }

    #[test]
    fn a_new_password_clears_both_buckets_of_its_userid_but_not_codes() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        let w = Duration::minutes(15);
        for key in ["a", "stranger:a", "code:a", "ab"] {
            for _ in 0..5 {
                record_password_failure(&conn, key, now, 5, w).unwrap();
            }
        }
        clear_password_failures(&conn, "a").unwrap();
        assert_eq!(locked_until(&conn, "a", now).unwrap(), None);
        assert_eq!(locked_until(&conn, "stranger:a", now).unwrap(), None);
        assert!(locked_until(&conn, "code:a", now).unwrap().is_some());
        assert!(locked_until(&conn, "ab", now).unwrap().is_some());
        clear_failures_bucket(&conn, "ab").unwrap();
        assert_eq!(locked_until(&conn, "ab", now).unwrap(), None);
        assert!(locked_until(&conn, "code:a", now).unwrap().is_some());
    }

    #[test]
    fn a_lockout_notice_is_remembered() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        assert!(!lockout_noticed_since(&conn, "a", now - Duration::days(1)).unwrap());
        record_lockout_notice(&conn, "a", now).unwrap();
        assert!(lockout_noticed_since(&conn, "a", now - Duration::days(1)).unwrap());
        assert!(!lockout_noticed_since(&conn, "a", now).unwrap());
        assert_eq!(throttle_key(&conn).unwrap().len(), 32);
    }

    #[test]
    fn commands_are_counted_per_hour_and_key() {
        let conn = open_in_memory().unwrap();
        let now = "2026-11-22T10:59:00Z".parse().unwrap();
        assert_eq!(
            count_command(&conn, CountScope::Address, "a@x", now).unwrap(),
            1
        );
        assert_eq!(
            count_command(&conn, CountScope::Address, "a@x", now).unwrap(),
            2
        );
        assert_eq!(
            count_command(&conn, CountScope::Account, "a@x", now).unwrap(),
            1
        );
        let next = now + Duration::minutes(2);
        assert_eq!(
            commands_this_hour(&conn, CountScope::Address, "a@x", next).unwrap(),
            0
        );
        assert_eq!(
            count_command(&conn, CountScope::Address, "a@x", next).unwrap(),
            1
        );
        let rows: i64 = conn
            .row(
                "SELECT count(*) FROM command_counts WHERE scope = 'address'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(rows, 1, "the old hour was dropped");
    }
}
