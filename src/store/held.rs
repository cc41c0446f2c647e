//! Messages held back from accounts without a confirmed address (see
//! `server::social::message_users` and migration 0039): who wrote to whom,
//! never what.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::{Cached, Result, StoredTime};

/// Count one message from `author` held back from `userid`.
pub(crate) fn hold_back(
    conn: &Connection,
    userid: &str,
    author: &str,
    at: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "INSERT INTO held_back (userid, author, count, last_at) VALUES (?1, ?2, 1, ?3)
         ON CONFLICT (userid, author) DO UPDATE SET count = count + 1, last_at = excluded.last_at",
        params![
            userid.to_ascii_lowercase(),
            author.to_ascii_lowercase(),
            StoredTime(at)
        ],
    )?;
    Ok(())
}

/// The authors of the messages held back from `userid`, with how many
/// each, by author; forgotten once read (each is told once).
pub(crate) fn take_held_back(conn: &Connection, userid: &str) -> Result<Vec<(String, i64)>> {
    let userid = userid.to_ascii_lowercase();
    let mut stmt = conn
        .prepare_cached("SELECT author, count FROM held_back WHERE userid = ?1 ORDER BY author")?;
    let held = stmt
        .query_map(params![userid], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<Vec<(String, i64)>>>()?;
    conn.exec("DELETE FROM held_back WHERE userid = ?1", params![userid])?;
    Ok(held)
}
