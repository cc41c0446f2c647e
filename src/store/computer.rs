//! The computer player: its account and its level on each board.

use super::{BoardId, Cached};
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::Result;

/// The password hash of the computer's account: no PHC string, so no
/// password ever matches it.
pub(crate) const COMPUTER_PASSWORD_HASH: &str = "computer: no password";

/// Create the computer's account (no password, no address) unless the
/// userid exists already.
pub(crate) fn ensure_computer_user(
    conn: &Connection,
    userid: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    if super::user(conn, userid)?.is_none() {
        super::insert_user(conn, userid, COMPUTER_PASSWORD_HASH, &[], now)?;
    }
    Ok(())
}

pub(crate) fn set_computer_level(conn: &Connection, id: BoardId<'_>, level: u8) -> Result<()> {
    let (game, board) = (id.game, id.number);
    conn.exec(
        "INSERT OR REPLACE INTO computer_levels (game, board, level) VALUES (?1, ?2, ?3)",
        params![game, board, level],
    )?;
    Ok(())
}

/// The computer's level on a board, if it plays there.
pub(crate) fn computer_level(conn: &Connection, id: BoardId<'_>) -> Result<Option<u8>> {
    let (game, board) = (id.game, id.number);
    Ok(conn
        .prepare_cached("SELECT level FROM computer_levels WHERE game = ?1 AND board = ?2")?
        .query_row(params![game, board], |r| r.get(0))
        .optional()?)
}
