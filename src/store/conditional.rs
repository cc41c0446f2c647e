//! Conditional moves: each player's tree of lines on a board,
//! one row per line (migration 0040). The tree itself is
//! [`game::conditional::Tree`].

use rusqlite::{params, Connection};

use super::{BoardId, Cached, Result, StoreError};
use game::conditional::{Line, Step, Tree};
use rules::Color;

/// The tree of the player in `seat`, with how many plies had been played
/// when its lines start (their first ply is the one after); `None` when
/// the player holds no conditional moves there.
pub fn conditional_tree(
    conn: &Connection,
    id: BoardId<'_>,
    seat: Color,
) -> Result<Option<(u32, Tree)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT from_ply, plies, mine FROM conditional_lines
         WHERE game = ?1 AND board = ?2 AND seat = ?3 ORDER BY line",
    )?;
    let mut rows = stmt.query(params![id.game, id.number, seat.index() as i64])?;
    let mut from = None;
    let mut lines = Vec::new();
    while let Some(r) = rows.next()? {
        let from_ply: u32 = r.get(0)?;
        let plies: String = r.get(1)?;
        let mine: String = r.get(2)?;
        let notations: Vec<&str> = plies.split('\n').collect();
        if notations.len() != mine.len() || from.is_some_and(|f| f != from_ply) {
            return Err(StoreError::Corrupt(format!(
                "conditional line on {} {} does not read",
                id.game, id.number
            )));
        }
        from = Some(from_ply);
        let line: Line = notations
            .iter()
            .zip(mine.chars())
            .map(|(n, m)| Step::new(*n, m == '1'))
            .collect();
        lines.push(line);
    }
    Ok(from.map(|f| (f, Tree::from_lines(lines))))
}

/// Store the tree of the player in `seat` (replacing theirs), its lines
/// starting after `from_ply` plies; an empty tree removes it.
pub(crate) fn set_conditional_tree(
    conn: &Connection,
    id: BoardId<'_>,
    seat: Color,
    from_ply: u32,
    tree: &Tree,
) -> Result<()> {
    clear_conditional_tree(conn, id, seat)?;
    for (i, line) in tree.lines().iter().enumerate() {
        let plies: Vec<&str> = line.iter().map(|s| s.notation.as_str()).collect();
        let mine: String = line
            .iter()
            .map(|s| if s.mine { '1' } else { '0' })
            .collect();
        conn.exec(
            "INSERT INTO conditional_lines (game, board, seat, line, from_ply, plies, mine)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                id.game,
                id.number,
                seat.index() as i64,
                i as i64,
                from_ply,
                plies.join("\n"),
                mine
            ],
        )?;
    }
    Ok(())
}

/// Forget the tree of the player in `seat`; whether there was one.
pub(crate) fn clear_conditional_tree(
    conn: &Connection,
    id: BoardId<'_>,
    seat: Color,
) -> Result<bool> {
    Ok(conn.exec(
        "DELETE FROM conditional_lines WHERE game = ?1 AND board = ?2 AND seat = ?3",
        params![id.game, id.number, seat.index() as i64],
    )? > 0)
}

/// Forget every tree on a board (a draw offer, an undo, the game's end).
pub(crate) fn clear_conditional_trees(conn: &Connection, id: BoardId<'_>) -> Result<usize> {
    Ok(conn.exec(
        "DELETE FROM conditional_lines WHERE game = ?1 AND board = ?2",
        params![id.game, id.number],
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{clear_pending_moves, insert_board, insert_user, open_in_memory, NewBoard};

    #[test]
    fn a_tree_is_stored_read_back_and_cleared_with_the_pending_moves() {
        let conn = open_in_memory().unwrap();
        let now = chrono::Utc::now();
        for u in ["alice", "bob"] {
            insert_user(&conn, u, "h", &[format!("{u}@x")], now).unwrap();
        }
        let number = insert_board(
            &conn,
            &NewBoard {
                game: "chess",
                options: &[],
                start_position: "start",
                players: &["alice".into(), "bob".into()],
                nag_days: None,
                forfeit_days: None,
                total_days: None,
                now,
            },
        )
        .unwrap();
        let id = BoardId::new("chess", number);
        let mut tree = Tree::default();
        tree.add(
            vec![
                Step::new("e5", false),
                Step::new("Nf3", true),
                Step::new("reveal c4", false),
            ],
            20,
            50,
        )
        .unwrap();
        tree.add(vec![Step::new("c5", false), Step::new("Nc3", true)], 20, 50)
            .unwrap();
        set_conditional_tree(&conn, id, Color::Black, 7, &tree).unwrap();
        assert_eq!(
            conditional_tree(&conn, id, Color::Black).unwrap(),
            Some((7, tree))
        );
        assert_eq!(conditional_tree(&conn, id, Color::White).unwrap(), None);
        clear_pending_moves(&conn, id).unwrap();
        assert_eq!(conditional_tree(&conn, id, Color::Black).unwrap(), None);
    }
}
