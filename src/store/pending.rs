//! Pending moves: queued (played when the player's turn comes) and
//! submitted (played by confirm).

use super::{BoardId, Cached};
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{Result, StoreError, StoredTime};

/// Which kind of pending move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PendingKind {
    /// `queue`: played automatically when it is the player's turn.
    Queued,
    /// `submit`: played when the player confirms it.
    Submitted,
}

impl PendingKind {
    fn text(self) -> &'static str {
        match self {
            PendingKind::Queued => "queue",
            PendingKind::Submitted => "submit",
        }
    }
}

/// One pending move of one player on one board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingMove {
    pub game: String,
    pub board: u32,
    pub seat: rules::Color,
    pub kind: PendingKind,
    /// The move text to play.
    pub notation: String,
    /// Play it only as this ply (the `#N` guard).
    pub guard: Option<u32>,
    /// How many plies had been played when it was stored.
    pub at_ply: u32,
    /// The position text when it was stored.
    pub position: String,
    /// The player's comment to relay when it is played (password masked).
    pub comment: String,
    pub created_at: DateTime<Utc>,
}

/// The pending move of `kind` of the player in `seat`, if any.
pub fn pending_move(
    conn: &Connection,
    id: BoardId<'_>,
    seat: rules::Color,
    kind: PendingKind,
) -> Result<Option<PendingMove>> {
    let (game, number) = (id.game, id.number);
    let row = conn
        .row(
            "SELECT notation, guard_ply, at_ply, position, comment, created_at
             FROM pending_moves WHERE game = ?1 AND board = ?2 AND seat = ?3 AND kind = ?4",
            params![game, number, seat.index() as i64, kind.text()],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<u32>>(1)?,
                    r.get::<_, u32>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, StoredTime>(5)?,
                ))
            },
        )
        .optional()?;
    let Some((notation, guard, at_ply, position, comment, created_at)) = row else {
        return Ok(None);
    };
    Ok(Some(PendingMove {
        game: game.to_string(),
        board: number,
        seat,
        kind,
        notation,
        guard,
        at_ply,
        position,
        comment,
        created_at: created_at.0,
    }))
}

/// Store a pending move, replacing the player's earlier one of that kind;
/// returns the replaced one.
pub(crate) fn set_pending_move(
    conn: &Connection,
    pending: &PendingMove,
) -> Result<Option<PendingMove>> {
    let old = take_pending_move(
        conn,
        BoardId::new(&pending.game, pending.board),
        pending.seat,
        pending.kind,
    )?;
    let n = conn.exec(
        "INSERT INTO pending_moves (game, board, seat, kind, notation, guard_ply, at_ply,
                                    position, comment, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            pending.game,
            pending.board,
            pending.seat.index() as i64,
            pending.kind.text(),
            pending.notation,
            pending.guard,
            pending.at_ply,
            pending.position,
            pending.comment,
            StoredTime(pending.created_at)
        ],
    )?;
    if n != 1 {
        return Err(StoreError::Corrupt(format!(
            "pending move on {} {} not stored",
            pending.game, pending.board
        )));
    }
    Ok(old)
}

/// Remove and return the pending move of `kind` of the player in `seat`.
pub(crate) fn take_pending_move(
    conn: &Connection,
    id: BoardId<'_>,
    seat: rules::Color,
    kind: PendingKind,
) -> Result<Option<PendingMove>> {
    let (game, number) = (id.game, id.number);
    let found = pending_move(conn, id, seat, kind)?;
    if found.is_some() {
        conn.exec(
            "DELETE FROM pending_moves WHERE game = ?1 AND board = ?2 AND seat = ?3 AND kind = ?4",
            params![game, number, seat.index() as i64, kind.text()],
        )?;
    }
    Ok(found)
}

/// Forget every pending move on a board (an accepted undo, the game's end),
/// the players' conditional moves too; returns how many
/// queued or submitted moves there were.
pub(crate) fn clear_pending_moves(conn: &Connection, id: BoardId<'_>) -> Result<usize> {
    super::clear_conditional_trees(conn, id)?;
    let (game, number) = (id.game, id.number);
    Ok(conn.exec(
        "DELETE FROM pending_moves WHERE game = ?1 AND board = ?2",
        params![game, number],
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{insert_board, insert_user, open_in_memory, NewBoard};

    fn pending(kind: PendingKind, notation: &str) -> PendingMove {
        PendingMove {
            game: "chess".into(),
            board: 101,
            seat: rules::Color::Black,
            kind,
            notation: notation.into(),
            guard: Some(2),
            at_ply: 0,
            position: "start".into(),
            comment: "hi".into(),
            created_at: DateTime::parse_from_rfc3339("2026-11-22T10:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
        }
    }

    #[test]
    fn one_pending_move_per_kind_replaced_taken_and_cleared() {
        let conn = open_in_memory().unwrap();
        for u in ["alice", "bob"] {
            insert_user(&conn, u, "h", &[format!("{u}@x")], Utc::now()).unwrap();
        }
        insert_board(
            &conn,
            &NewBoard {
                game: "chess",
                options: &[],
                start_position: "start",
                players: &["alice".into(), "bob".into()],
                nag_days: None,
                forfeit_days: None,
                total_days: None,
                now: Utc::now(),
            },
        )
        .unwrap();
        let q = PendingKind::Queued;
        assert_eq!(set_pending_move(&conn, &pending(q, "e5")).unwrap(), None);
        let old = set_pending_move(&conn, &pending(q, "c5")).unwrap();
        assert_eq!(old.map(|p| p.notation), Some("e5".to_string()));
        set_pending_move(&conn, &pending(PendingKind::Submitted, "d5")).unwrap();
        let got = pending_move(&conn, BoardId::new("chess", 101), rules::Color::Black, q)
            .unwrap()
            .unwrap();
        assert_eq!(got, pending(q, "c5"));
        assert_eq!(
            take_pending_move(&conn, BoardId::new("chess", 101), rules::Color::Black, q)
                .unwrap()
                .map(|p| p.notation),
            Some("c5".to_string())
        );
        assert_eq!(
            pending_move(&conn, BoardId::new("chess", 101), rules::Color::Black, q).unwrap(),
            None
        );
        assert_eq!(
            clear_pending_moves(&conn, BoardId::new("chess", 101)).unwrap(),
            1
        );
        assert_eq!(
            clear_pending_moves(&conn, BoardId::new("chess", 101)).unwrap(),
            0
        );
    }
}
