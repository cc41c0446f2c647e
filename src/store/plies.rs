//! A board's plies: stored in order with their position keys and move-list
//! lines, taken back, and where loading a board starts.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::boards::seat_color;
use super::{BoardId, Cached, Result, StoredTime};

/// One played ply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    pub ply: u32,
    pub seat: rules::Color,
    pub notation: String,
    pub events: Vec<String>,
    pub comment: String,
    pub played_at: DateTime<Utc>,
    /// Played from the player's queue or conditional moves, not by a
    /// mail of theirs.
    pub auto: bool,
    /// Played from the player's conditional moves; stored as
    /// `auto` = 2.
    pub conditional: bool,
}

pub fn plies(conn: &Connection, id: BoardId<'_>) -> Result<Vec<Ply>> {
    plies_after(conn, id, 0)
}

/// The plies after ply `first` (all of them for 0), in order.
pub(crate) fn plies_after(conn: &Connection, id: BoardId<'_>, first: u32) -> Result<Vec<Ply>> {
    let (game, number) = (id.game, id.number);
    let mut stmt = conn.prepare_cached(
        "SELECT ply, seat, notation, events, comment, played_at, auto FROM plies
         WHERE game = ?1 AND board = ?2 AND ply > ?3 ORDER BY ply",
    )?;
    let mut rows = stmt.query(params![game, number, first])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let events: String = r.get(3)?;
        out.push(Ply {
            ply: r.get(0)?,
            seat: seat_color(r.get::<_, i64>(1)?)?,
            notation: r.get(2)?,
            events: events
                .lines()
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect(),
            comment: r.get(4)?,
            played_at: r.get::<_, StoredTime>(5)?.0,
            auto: r.get::<_, i64>(6)? != 0,
            conditional: r.get::<_, i64>(6)? == 2,
        });
    }
    Ok(out)
}

/// Store a ply with the key of the position after it (`None`: not known;
/// a load then replays, see migration 0026) and the move-list line it
/// stands on, counted from the ply before it (once per board, a board
/// whose earlier plies have no lines gets them counted first).
pub fn append_ply(
    conn: &Connection,
    id: BoardId<'_>,
    ply: &Ply,
    position_key: Option<u64>,
) -> Result<()> {
    let (game, number) = (id.game, id.number);
    let line = line_after(conn, id, ply)?;
    conn.exec(
        "INSERT INTO plies (game, board, ply, seat, notation, events, comment, played_at, auto,
                            position_key, line)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            game,
            number,
            ply.ply,
            ply.seat.index() as i64,
            ply.notation,
            ply.events.join("\n"),
            ply.comment,
            StoredTime(ply.played_at),
            if ply.conditional {
                2
            } else {
                i64::from(ply.auto)
            },
            position_key.map(|k| k as i64),
            line
        ],
    )?;
    Ok(())
}

/// The move-list line of a ply about to be stored: its predecessor's, or
/// the next when it opens a line (a seat-0 turn, or a turn whose last
/// turn before is not seat 0's; a decision never opens one, see
/// [`game::render::is_decision`]). `None` when the predecessor is missing.
fn line_after(conn: &Connection, id: BoardId<'_>, ply: &Ply) -> Result<Option<u32>> {
    let (game, number) = (id.game, id.number);
    if ply.ply <= 1 {
        return Ok(Some(1));
    }
    let before = |conn: &Connection| -> Result<Option<Option<u32>>> {
        Ok(conn
            .prepare_cached("SELECT line FROM plies WHERE game = ?1 AND board = ?2 AND ply = ?3")?
            .query_row(params![game, number, ply.ply - 1], |r| r.get(0))
            .optional()?)
    };
    let line = match before(conn)? {
        None => return Ok(None),
        Some(Some(line)) => line,
        Some(None) => {
            count_lines(conn, id)?;
            match before(conn)? {
                Some(Some(line)) => line,
                _ => return Ok(None),
            }
        }
    };
    if game::render::is_decision(&ply.notation) {
        return Ok(Some(line));
    }
    let opens = ply.seat == rules::Color::White || last_turn_seat(conn, id, ply.ply)? != Some(0);
    Ok(Some(line + u32::from(opens)))
}

/// Whether a stored ply is a turn, not a decision, in SQL over `plies`
/// (the same test as [`game::render::is_decision`]).
const IS_TURN: &str = "substr(notation, 1, 7) <> 'reveal '";

/// The seat of the last turn (not decision) before ply `ply`, if any.
fn last_turn_seat(conn: &Connection, id: BoardId<'_>, ply: u32) -> Result<Option<usize>> {
    let (game, number) = (id.game, id.number);
    Ok(conn
        .prepare_cached(&format!(
            "SELECT seat FROM plies WHERE game = ?1 AND board = ?2 AND ply < ?3 AND {IS_TURN}
             ORDER BY ply DESC LIMIT 1"
        ))?
        .query_row(params![game, number, ply], |r| r.get::<_, i64>(0))
        .optional()?
        .map(|s| s as usize))
}

/// Write the move-list line of every ply of a board (for plies stored
/// before migration 0026, or before decisions were told from turns).
fn count_lines(conn: &Connection, id: BoardId<'_>) -> Result<()> {
    let (game, number) = (id.game, id.number);
    conn.exec(
        &format!(
            "UPDATE plies SET line = counted.line FROM (
               SELECT ply, sum(opens) OVER (ORDER BY ply) AS line FROM (
                 SELECT ply, CASE WHEN turn
                   THEN (seat = 0 OR lag(seat) OVER (PARTITION BY turn ORDER BY ply) IS NOT 0)
                   ELSE ply = 1 END AS opens
                 FROM (SELECT ply, seat, {IS_TURN} AS turn
                       FROM plies WHERE game = ?1 AND board = ?2))) AS counted
             WHERE plies.game = ?1 AND plies.board = ?2 AND plies.ply = counted.ply"
        ),
        params![game, number],
    )?;
    Ok(())
}

/// The position keys stored with ply `from` and every ply after it, in
/// order (`None` for a ply stored without one).
pub(crate) fn ply_keys(conn: &Connection, id: BoardId<'_>, from: u32) -> Result<Vec<Option<u64>>> {
    let (game, number) = (id.game, id.number);
    let mut stmt = conn.prepare_cached(
        "SELECT position_key FROM plies WHERE game = ?1 AND board = ?2 AND ply >= ?3 ORDER BY ply",
    )?;
    let rows = stmt.query_map(params![game, number, from], |r| r.get::<_, Option<i64>>(0))?;
    Ok(rows
        .map(|r| r.map(|k| k.map(|k| k as u64)))
        .collect::<rusqlite::Result<_>>()?)
}

/// Store the squares ply `ply` changed (its last-move mark: words
/// `board:file:rank`, see `server::picture`).
pub(crate) fn set_ply_changed(
    conn: &Connection,
    id: BoardId<'_>,
    ply: u32,
    changed: &str,
) -> Result<()> {
    conn.exec(
        "UPDATE plies SET changed = ?4 WHERE game = ?1 AND board = ?2 AND ply = ?3",
        params![id.game, id.number, ply, changed],
    )?;
    Ok(())
}

/// The squares ply `ply` changed, as [`set_ply_changed`] stored them;
/// `None` for a ply stored without them (or no such ply).
pub(crate) fn ply_changed(conn: &Connection, id: BoardId<'_>, ply: u32) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT changed FROM plies WHERE game = ?1 AND board = ?2 AND ply = ?3")?
        .query_row(params![id.game, id.number, ply], |r| r.get(0))
        .optional()?
        .flatten())
}

/// Store the position keys of plies (by ply number) stored without them.
pub(crate) fn set_ply_keys(conn: &Connection, id: BoardId<'_>, keys: &[(u32, u64)]) -> Result<()> {
    let (game, number) = (id.game, id.number);
    for &(ply, key) in keys {
        conn.exec(
            "UPDATE plies SET position_key = ?4 WHERE game = ?1 AND board = ?2 AND ply = ?3",
            params![game, number, ply, key as i64],
        )?;
    }
    Ok(())
}

/// Where ply `ply` stands in a board's move list (pairs, as
/// `render::move_list` writes them): how many lines the plies before it
/// fill, and whether the last of those holds a White turn still waiting
/// for Black's (the last turn before it is seat 0's; decisions do not
/// count, see [`game::render::is_decision`]). Read from the line stored
/// with the ply before it (migration 0026); counted by the database from
/// the seats where that has none.
pub(crate) fn move_line_of(conn: &Connection, id: BoardId<'_>, ply: u32) -> Result<(u32, bool)> {
    let (game, number) = (id.game, id.number);
    let stored: Option<(Option<u32>, bool)> = conn
        .prepare_cached(
            "SELECT q.line, q.ply IS NOT NULL
             FROM plies p LEFT JOIN plies q
               ON q.game = p.game AND q.board = p.board AND q.ply = p.ply - 1
             WHERE p.game = ?1 AND p.board = ?2 AND p.ply = ?3",
        )?
        .query_row(params![game, number, ply], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    match stored {
        Some((Some(line), true)) => {
            let open = last_turn_seat(conn, id, ply)? == Some(0);
            return Ok((line, open));
        }
        Some((_, false)) => return Ok((0, false)),
        _ => {}
    }
    counted_move_line_of(conn, id, ply)
}

/// [`move_line_of`] counted over every ply before `ply`.
fn counted_move_line_of(conn: &Connection, id: BoardId<'_>, ply: u32) -> Result<(u32, bool)> {
    let (game, number) = (id.game, id.number);
    let lines: u32 = conn
        .prepare_cached(&format!(
            "SELECT count(*) FROM (
               SELECT seat, lag(seat) OVER (ORDER BY ply) AS before FROM plies
               WHERE game = ?1 AND board = ?2 AND ply < ?3 AND {IS_TURN})
             WHERE seat = 0 OR before IS NOT 0"
        ))?
        .query_row(params![game, number, ply], |r| r.get(0))?;
    let open = last_turn_seat(conn, id, ply)? == Some(0);
    Ok((lines, open))
}

/// How many plies a board has seen (plies are numbered from 1 without gaps).
pub fn ply_count(conn: &Connection, id: BoardId<'_>) -> Result<u32> {
    let (game, number) = (id.game, id.number);
    Ok(conn
        .prepare_cached("SELECT coalesce(max(ply), 0) FROM plies WHERE game = ?1 AND board = ?2")?
        .query_row(params![game, number], |r| r.get(0))?)
}

/// The seats that have played at least one ply on a board (each seat's
/// search stops at its first ply, so a long game costs no more).
pub(crate) fn seats_that_played(conn: &Connection, id: BoardId<'_>) -> Result<Vec<rules::Color>> {
    let (game, number) = (id.game, id.number);
    let mut stmt = conn.prepare_cached(
        "SELECT s.seat FROM board_players s
         WHERE s.game = ?1 AND s.board = ?2
           AND EXISTS (SELECT 1 FROM plies p
                       WHERE p.game = ?1 AND p.board = ?2 AND p.seat = s.seat)
         ORDER BY s.seat",
    )?;
    let rows = stmt.query_map(params![game, number], |r| r.get::<_, i64>(0))?;
    rows.map(|r| seat_color(r?)).collect()
}

/// Take back the last ply (undo). A resume point after the plies left is
/// dropped (loading then replays from the start until a new one is set).
pub(crate) fn remove_last_ply(conn: &Connection, id: BoardId<'_>) -> Result<()> {
    let (game, number) = (id.game, id.number);
    conn.exec(
        "DELETE FROM plies WHERE game = ?1 AND board = ?2
           AND ply = (SELECT MAX(ply) FROM plies WHERE game = ?1 AND board = ?2)",
        params![game, number],
    )?;
    conn.exec(
        "UPDATE boards SET resume_ply = 0, resume_position = NULL
         WHERE game = ?1 AND board = ?2 AND resume_ply >
           (SELECT coalesce(max(ply), 0) FROM plies WHERE game = ?1 AND board = ?2)",
        params![game, number],
    )?;
    Ok(())
}

/// Where loading a board starts: a ply and the position text after it
/// (`None`: ply 0, the start position). See migration 0014.
pub(crate) fn resume_point(conn: &Connection, id: BoardId<'_>) -> Result<(u32, Option<String>)> {
    let (game, number) = (id.game, id.number);
    Ok(conn
        .prepare_cached(
            "SELECT resume_ply, resume_position FROM boards WHERE game = ?1 AND board = ?2",
        )?
        .query_row(params![game, number], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .unwrap_or((0, None)))
}

/// Set where loading a board starts: the position text after ply `ply`.
pub fn set_resume_point(
    conn: &Connection,
    id: BoardId<'_>,
    ply: u32,
    position: Option<&str>,
) -> Result<()> {
    let (game, number) = (id.game, id.number);
    conn.exec(
        "UPDATE boards SET resume_ply = ?3, resume_position = ?4 WHERE game = ?1 AND board = ?2",
        params![game, number, ply, position],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::boards::tests::{new_board, setup};
    use crate::store::*;

    #[test]
    fn plies_append_undo_and_finish() {
        let conn = setup();
        let n = new_board(&conn, "chess");
        for (i, m) in ["e4", "e5"].iter().enumerate() {
            append_ply(
                &conn,
                BoardId::new("chess", n),
                &Ply {
                    ply: i as u32 + 1,
                    seat: rules::Color::from_index(i).unwrap(),
                    notation: m.to_string(),
                    events: vec!["x".into()],
                    comment: String::new(),
                    played_at: Utc::now(),
                    auto: i == 1,
                    conditional: false,
                },
                Some(i as u64),
            )
            .unwrap();
        }
        assert_eq!(plies(&conn, BoardId::new("chess", n)).unwrap().len(), 2);
        assert_eq!(
            seats_that_played(&conn, BoardId::new("chess", n)).unwrap(),
            vec![rules::Color::White, rules::Color::Black]
        );
        remove_last_ply(&conn, BoardId::new("chess", n)).unwrap();
        assert_eq!(
            seats_that_played(&conn, BoardId::new("chess", n)).unwrap(),
            vec![rules::Color::White]
        );
        let p = plies(&conn, BoardId::new("chess", n)).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].events, vec!["x"]);
        set_proposal(
            &conn,
            BoardId::new("chess", n),
            Some((Proposal::Draw, rules::Color::Black)),
        )
        .unwrap();
        assert_eq!(
            board(&conn, BoardId::new("chess", n))
                .unwrap()
                .unwrap()
                .proposal,
            Some((Proposal::Draw, rules::Color::Black))
        );
        finish_board(
            &conn,
            BoardId::new("chess", n),
            None,
            &BoardEnding::Agreement,
            Utc::now(),
        )
        .unwrap();
        let b = board(&conn, BoardId::new("chess", n)).unwrap().unwrap();
        assert_eq!(
            b.status,
            BoardStatus::Finished {
                winner_seat: None,
                ending: BoardEnding::Agreement
            }
        );
        assert_eq!(b.proposal, None);
        assert!(finish_board(
            &conn,
            BoardId::new("chess", n),
            None,
            &BoardEnding::Resignation,
            Utc::now()
        )
        .is_err());
    }

    /// The stored move-list lines number the plies as the count over the
    /// whole board does, seats acting twice included, and plies stored
    /// without lines (before migration 0026) get them when the next is.
    #[test]
    fn stored_move_lines_agree_with_the_count() {
        let conn = setup();
        let n = new_board(&conn, "chess");
        let seats = [0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0];
        let append = |i: usize| {
            let ply = Ply {
                ply: i as u32 + 1,
                seat: rules::Color::from_index(seats[i]).unwrap(),
                notation: "x".into(),
                events: vec![],
                comment: String::new(),
                played_at: Utc::now(),
                auto: false,
                conditional: false,
            };
            append_ply(&conn, BoardId::new("chess", n), &ply, None).unwrap();
        };
        let agree = |upto: usize| {
            for p in 1..=upto as u32 + 1 {
                assert_eq!(
                    move_line_of(&conn, BoardId::new("chess", n), p).unwrap(),
                    counted_move_line_of(&conn, BoardId::new("chess", n), p).unwrap(),
                    "ply {p}"
                );
            }
        };
        for i in 0..12 {
            append(i);
            agree(i + 1);
        }
        conn.execute_batch("UPDATE plies SET line = NULL").unwrap();
        agree(12);
        for i in 12..seats.len() {
            append(i);
            agree(i + 1);
        }
        let unlined: i64 = conn
            .query_row("SELECT count(*) FROM plies WHERE line IS NULL", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(unlined, 0);
    }

    /// With decisions among the plies (a Shadow reveal, whoever makes it),
    /// the stored lines still agree with the count, and a list of a
    /// board's later plies from any ply on, numbered from `move_line_of`,
    /// reads as the same lines of the whole game's list.
    #[test]
    fn stored_move_lines_number_decisions_inside_their_move() {
        use game::render::{move_list, move_list_after, MoveRecord};
        let conn = setup();
        let n = new_board(&conn, "shadowchess");
        // (seat, decision): W, B, W, B decides, B, W decides, W, W decides,
        // B, B decides, W decides, W, B, Black first again, ...
        let plies: [(usize, bool); 18] = [
            (0, false),
            (1, false),
            (0, false),
            (1, true),
            (1, false),
            (0, true),
            (0, false),
            (0, true),
            (1, false),
            (1, true),
            (0, true),
            (0, false),
            (1, false),
            (1, false),
            (0, false),
            (1, true),
            (0, true),
            (1, false),
        ];
        let records: Vec<MoveRecord> = plies
            .iter()
            .enumerate()
            .map(|(i, &(seat, decision))| MoveRecord {
                seat: rules::Color::from_index(seat).unwrap(),
                ..MoveRecord::new(
                    i as u32 + 1,
                    if decision {
                        format!("reveal a{}", i % 8 + 1)
                    } else {
                        format!("Nf{}", i % 8 + 1)
                    },
                )
            })
            .collect();
        for r in &records {
            let ply = Ply {
                ply: r.ply,
                seat: r.seat,
                notation: r.notation.clone(),
                events: vec![],
                comment: String::new(),
                played_at: Utc::now(),
                auto: false,
                conditional: false,
            };
            append_ply(&conn, BoardId::new("shadowchess", n), &ply, None).unwrap();
        }
        let words = |text: &str| -> Vec<String> {
            text.lines()
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect()
        };
        let whole = words(&move_list(&records, None));
        assert_eq!(
            whole[..4],
            [
                "1. Nf1 Nf2",
                "2. Nf3 reveal a4 Nf5 reveal a6",
                "3. Nf7 reveal a8 Nf1 reveal a2 reveal a3",
                "4. Nf4 Nf5",
            ]
        );
        let stored = |p: u32| move_line_of(&conn, BoardId::new("shadowchess", n), p).unwrap();
        for p in 2..=records.len() as u32 {
            assert_eq!(
                stored(p),
                counted_move_line_of(&conn, BoardId::new("shadowchess", n), p).unwrap(),
                "ply {p}"
            );
            let (lines_before, open) = stored(p);
            let part = words(&move_list_after(
                &records[p as usize - 1..],
                None,
                lines_before,
                open,
            ));
            // Plies that only finish a line whose start is left out show
            // nothing (from ply 16 on here).
            assert_eq!(part.is_empty(), p >= 16, "ply {p}");
            assert_eq!(part[..], whole[whole.len() - part.len()..], "ply {p}");
        }
        // Counted again from scratch (boards stored before), the same.
        let before: Vec<(u32, bool)> = (2..=18).map(stored).collect();
        conn.execute_batch("UPDATE plies SET line = NULL").unwrap();
        count_lines(&conn, BoardId::new("shadowchess", n)).unwrap();
        assert_eq!((2..=18).map(stored).collect::<Vec<_>>(), before);
    }
}
