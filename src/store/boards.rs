//! Boards and their players: insert, load, update, observe. Their plies
//! are in `plies`, how they ended in `endings`.

use super::Cached;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};
use std::fmt;

use super::{BoardEnding, Result, StoreError, StoredTime};

/// Which board: its game's name and its number, as pbmserv writes them
/// (`chess 101`). Every store function about one board takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardId<'a> {
    pub game: &'a str,
    pub number: u32,
}

impl<'a> BoardId<'a> {
    pub fn new(game: &'a str, number: u32) -> BoardId<'a> {
        BoardId { game, number }
    }
}

impl fmt::Display for BoardId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.game, self.number)
    }
}

/// A pending proposal on a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proposal {
    Draw,
    Undo,
}

impl Proposal {
    fn text(self) -> &'static str {
        match self {
            Proposal::Draw => "draw",
            Proposal::Undo => "undo",
        }
    }
}

/// How a board stands in the database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardStatus {
    Active,
    /// `winner_seat` `None` is a tie; `ending` says why.
    Finished {
        winner_seat: Option<rules::Color>,
        ending: BoardEnding,
    },
}

/// One board row with its players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardRow {
    /// The game's name as stored. Ruling: kept as text (see `BoardRow::id`
    /// for the pair), not a `&'static` name of the rules' registry, so a
    /// row of a game this build does not know is still listed and skipped
    /// as before rather than failing every listing it is in.
    pub game: String,
    pub board: u32,
    pub options: Vec<String>,
    pub start_position: String,
    pub position: String,
    pub status: BoardStatus,
    /// The pending proposal and the seat that made it.
    pub proposal: Option<(Proposal, rules::Color)>,
    pub nag_days: Option<u32>,
    pub forfeit_days: Option<u32>,
    pub total_days: Option<u32>,
    pub created_at: DateTime<Utc>,
    pub last_action_at: DateTime<Utc>,
    pub last_nag_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// Userids by seat (seat 0 moves first). Every board has two players:
    /// a row with another number of them is refused as corrupt.
    pub players: [String; 2],
}

impl BoardRow {
    /// Which board this is.
    pub(crate) fn id(&self) -> BoardId<'_> {
        BoardId::new(&self.game, self.board)
    }

    pub fn is_active(&self) -> bool {
        self.status == BoardStatus::Active
    }

    /// The seat of `userid` on this board.
    pub fn seat_of(&self, userid: &str) -> Option<rules::Color> {
        self.players
            .iter()
            .position(|p| p == userid)
            .and_then(rules::Color::from_index)
    }
}
/// What a new board starts with.
pub struct NewBoard<'a> {
    pub game: &'a str,
    pub options: &'a [String],
    pub start_position: &'a str,
    pub players: &'a [String; 2],
    pub nag_days: Option<u32>,
    pub forfeit_days: Option<u32>,
    pub total_days: Option<u32>,
    pub now: DateTime<Utc>,
}

/// Insert a board under the next number of its game (from 101; a number
/// is never given twice, even after its board was deleted) and return it.
pub fn insert_board(conn: &Connection, new: &NewBoard<'_>) -> Result<u32> {
    let number: u32 = conn.row(
        "INSERT INTO board_counters (game, last_board) VALUES (?1, 101)
         ON CONFLICT (game) DO UPDATE SET last_board = last_board + 1
         RETURNING last_board",
        params![new.game],
        |r| r.get(0),
    )?;
    let now = StoredTime(new.now);
    conn.exec(
        "INSERT INTO boards (game, board, options, start_position, position, status,
                             nag_days, forfeit_days, total_days, created_at, last_action_at)
         VALUES (?1, ?2, ?3, ?4, ?4, 'active', ?5, ?6, ?7, ?8, ?8)",
        params![
            new.game,
            number,
            new.options.join(" "),
            new.start_position,
            new.nag_days,
            new.forfeit_days,
            new.total_days,
            now
        ],
    )?;
    for (seat, userid) in new.players.iter().enumerate() {
        conn.exec(
            "INSERT INTO board_players (game, board, seat, userid) VALUES (?1, ?2, ?3, ?4)",
            params![new.game, number, seat as i64, userid],
        )?;
    }
    Ok(number)
}

const BOARD_COLUMNS: &str = "game, board, options, start_position, position, status, winner_seat,
     ending, proposal, proposal_seat, nag_days, forfeit_days, total_days, created_at,
     last_action_at, last_nag_at, finished_at";

fn board_from_row(conn: &Connection, r: &Row<'_>) -> Result<BoardRow> {
    let game: String = r.get(0)?;
    let board: u32 = r.get(1)?;
    let options: String = r.get(2)?;
    let status: String = r.get(5)?;
    let status = match status.as_str() {
        "active" => BoardStatus::Active,
        _ => BoardStatus::Finished {
            winner_seat: r.get::<_, Option<i64>>(6)?.map(seat_color).transpose()?,
            ending: BoardEnding::read(&r.get::<_, Option<String>>(7)?.unwrap_or_default()),
        },
    };
    let proposal = match (
        r.get::<_, Option<String>>(8)?.as_deref(),
        r.get::<_, Option<i64>>(9)?,
    ) {
        (Some("draw"), Some(seat)) => Some((Proposal::Draw, seat_color(seat)?)),
        (Some("undo"), Some(seat)) => Some((Proposal::Undo, seat_color(seat)?)),
        _ => None,
    };
    let players = {
        let mut stmt = conn.prepare_cached(
            "SELECT userid FROM board_players WHERE game = ?1 AND board = ?2 ORDER BY seat",
        )?;
        let rows = stmt.query_map(params![game, board], |r| r.get::<_, String>(0))?;
        let players = rows.collect::<rusqlite::Result<Vec<_>>>()?;
        <[String; 2]>::try_from(players).map_err(|players| {
            StoreError::Corrupt(format!(
                "board {game} {board} has {} players, not two",
                players.len()
            ))
        })?
    };
    Ok(BoardRow {
        options: options.split_whitespace().map(String::from).collect(),
        start_position: r.get(3)?,
        position: r.get(4)?,
        status,
        proposal,
        nag_days: r.get(10)?,
        forfeit_days: r.get(11)?,
        total_days: r.get(12)?,
        created_at: r.get::<_, StoredTime>(13)?.0,
        last_action_at: r.get::<_, StoredTime>(14)?.0,
        last_nag_at: r.get::<_, Option<StoredTime>>(15)?.map(|t| t.0),
        finished_at: r.get::<_, Option<StoredTime>>(16)?.map(|t| t.0),
        players,
        game,
        board,
    })
}

/// The colour of a stored seat number (0 White, 1 Black).
pub(super) fn seat_color(seat: i64) -> Result<rules::Color> {
    usize::try_from(seat)
        .ok()
        .and_then(rules::Color::from_index)
        .ok_or_else(|| StoreError::Corrupt(format!("seat {seat} on a board of two")))
}

/// Boards matching a WHERE clause, in (game, board) order.
fn boards_where(
    conn: &Connection,
    clause: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<BoardRow>> {
    let sql = format!("SELECT {BOARD_COLUMNS} FROM boards WHERE {clause} ORDER BY game, board");
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(board_from_row(conn, row)?);
    }
    Ok(out)
}

pub fn board(conn: &Connection, id: BoardId<'_>) -> Result<Option<BoardRow>> {
    let (game, number) = (id.game, id.number);
    Ok(
        boards_where(conn, "game = ?1 AND board = ?2", params![game, number])?
            .into_iter()
            .next(),
    )
}

/// Every board of `game`.
pub fn boards_of_game(conn: &Connection, game: &str) -> Result<Vec<BoardRow>> {
    boards_where(conn, "game = ?1", params![game])
}

/// Boards of `game` (or of every game when `None`) where `userid` plays.
pub(crate) fn boards_of_user(
    conn: &Connection,
    game: Option<&str>,
    userid: &str,
) -> Result<Vec<BoardRow>> {
    boards_where(
        conn,
        "(?1 IS NULL OR game = ?1) AND EXISTS (SELECT 1 FROM board_players p
            WHERE p.game = boards.game AND p.board = boards.board AND p.userid = ?2)",
        params![game, userid],
    )
}

/// The active boards the timers may have to act on at `now`: those idle
/// (since their last action) at least their reminder or forfeit days (the
/// defaults where the board has none), those with a total time limit, and
/// those the computer player (`computer`) plays. Time on vacation only
/// ever shortens the idle time, so no board left out can be due; a board
/// whose time cannot be read is kept in.
pub(crate) fn boards_for_timers(
    conn: &Connection,
    now: DateTime<Utc>,
    nag_days: u32,
    forfeit_days: u32,
    computer: &str,
) -> Result<Vec<BoardRow>> {
    boards_where(
        conn,
        "status = 'active' AND (
           total_days IS NOT NULL
           OR julianday(last_action_at) IS NULL
           OR julianday(last_action_at)
              <= julianday(?1) - min(coalesce(nag_days, ?2), coalesce(forfeit_days, ?3))
           OR EXISTS (SELECT 1 FROM board_players p
                      WHERE p.game = boards.game AND p.board = boards.board
                        AND p.userid = ?4 COLLATE NOCASE))",
        params![StoredTime(now), nag_days, forfeit_days, computer],
    )
}

/// Store the position reached and when the board last saw an action.
pub fn update_position(
    conn: &Connection,
    id: BoardId<'_>,
    position: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    let (game, number) = (id.game, id.number);
    conn.exec(
        "UPDATE boards SET position = ?3, last_action_at = ?4, last_nag_at = NULL
         WHERE game = ?1 AND board = ?2",
        params![game, number, position, StoredTime(now)],
    )?;
    Ok(())
}

/// Record that the board saw an action now (a proposal or its answer).
pub(crate) fn touch(conn: &Connection, id: BoardId<'_>, now: DateTime<Utc>) -> Result<()> {
    let (game, number) = (id.game, id.number);
    conn.exec(
        "UPDATE boards SET last_action_at = ?3, last_nag_at = NULL WHERE game = ?1 AND board = ?2",
        params![game, number, StoredTime(now)],
    )?;
    Ok(())
}

pub(crate) fn set_proposal(
    conn: &Connection,
    id: BoardId<'_>,
    proposal: Option<(Proposal, rules::Color)>,
) -> Result<()> {
    let (game, number) = (id.game, id.number);
    conn.exec(
        "UPDATE boards SET proposal = ?3, proposal_seat = ?4 WHERE game = ?1 AND board = ?2",
        params![
            game,
            number,
            proposal.map(|(p, _)| p.text()),
            proposal.map(|(_, s)| s.index() as i64)
        ],
    )?;
    Ok(())
}

/// End a board.
pub(crate) fn finish_board(
    conn: &Connection,
    id: BoardId<'_>,
    winner_seat: Option<rules::Color>,
    ending: &BoardEnding,
    now: DateTime<Utc>,
) -> Result<()> {
    let (game, number) = (id.game, id.number);
    let n = conn.exec(
        "UPDATE boards SET status = 'finished', winner_seat = ?3, ending = ?4, finished_at = ?5,
                proposal = NULL, proposal_seat = NULL
         WHERE game = ?1 AND board = ?2 AND status = 'active'",
        params![
            game,
            number,
            winner_seat.map(|s| s.index() as i64),
            ending.to_string(),
            StoredTime(now)
        ],
    )?;
    if n != 1 {
        return Err(StoreError::Corrupt(format!(
            "board {game} {number} was not active when it was finished"
        )));
    }
    Ok(())
}

/// Remove a board entirely (a game resigned before both players moved).
pub(crate) fn delete_board(conn: &Connection, id: BoardId<'_>) -> Result<()> {
    let (game, number) = (id.game, id.number);
    conn.exec(
        "DELETE FROM boards WHERE game = ?1 AND board = ?2",
        params![game, number],
    )?;
    Ok(())
}

pub(crate) fn set_last_nag(conn: &Connection, id: BoardId<'_>, now: DateTime<Utc>) -> Result<()> {
    let (game, number) = (id.game, id.number);
    conn.exec(
        "UPDATE boards SET last_nag_at = ?3 WHERE game = ?1 AND board = ?2",
        params![game, number, StoredTime(now)],
    )?;
    Ok(())
}

/// The observers of a board, by userid.
pub fn observers(conn: &Connection, id: BoardId<'_>) -> Result<Vec<String>> {
    let (game, number) = (id.game, id.number);
    let mut stmt = conn.prepare_cached(
        "SELECT userid FROM observers WHERE game = ?1 AND board = ?2 ORDER BY userid",
    )?;
    let rows = stmt.query_map(params![game, number], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Start observing; false when `userid` observed the board already.
pub(crate) fn add_observer(conn: &Connection, id: BoardId<'_>, userid: &str) -> Result<bool> {
    let (game, number) = (id.game, id.number);
    let n = conn.exec(
        "INSERT OR IGNORE INTO observers (game, board, userid) VALUES (?1, ?2, ?3)",
        params![game, number, userid],
    )?;
    Ok(n == 1)
}

/// Stop observing one board (or every board of `game` when `number` is
/// `None`); returns how many subscriptions ended.
pub(crate) fn remove_observer(
    conn: &Connection,
    game: &str,
    number: Option<u32>,
    userid: &str,
) -> Result<usize> {
    Ok(conn.exec(
        "DELETE FROM observers WHERE game = ?1 AND (?2 IS NULL OR board = ?2) AND userid = ?3",
        params![game, number, userid],
    )?)
}

/// Whether a board with this number exists (used before a board is loaded).
pub(crate) fn board_exists(conn: &Connection, id: BoardId<'_>) -> Result<bool> {
    let (game, number) = (id.game, id.number);
    Ok(conn
        .row(
            "SELECT 1 FROM boards WHERE game = ?1 AND board = ?2",
            params![game, number],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::*;
    use crate::store::{insert_user, open_in_memory};

    pub(crate) fn setup() -> Connection {
        let conn = open_in_memory().unwrap();
        for u in ["alice", "bob"] {
            insert_user(&conn, u, "h", &[format!("{u}@x")], Utc::now()).unwrap();
        }
        conn
    }

    pub(crate) fn new_board(conn: &Connection, game: &str) -> u32 {
        insert_board(
            conn,
            &NewBoard {
                game,
                options: &[],
                start_position: "start",
                players: &["alice".into(), "bob".into()],
                nag_days: None,
                forfeit_days: Some(10),
                total_days: None,
                now: Utc::now(),
            },
        )
        .unwrap()
    }

    #[test]
    fn the_timers_look_only_at_boards_that_may_be_due() {
        let conn = setup();
        insert_user(&conn, "computer", "h", &[], Utc::now()).unwrap();
        let now = Utc::now();
        let board_at = |idle_days: i64, nag: Option<u32>, total: Option<u32>, black: &str| {
            insert_board(
                &conn,
                &NewBoard {
                    game: "chess",
                    options: &[],
                    start_position: "start",
                    players: &["alice".into(), black.into()],
                    nag_days: nag,
                    forfeit_days: None,
                    total_days: total,
                    now: now - chrono::Duration::days(idle_days),
                },
            )
            .unwrap()
        };
        let fresh = board_at(1, None, None, "bob");
        let due_by_default = board_at(7, None, None, "bob");
        let due_by_own_nag = board_at(2, Some(2), None, "bob");
        let total_time = board_at(0, None, Some(30), "bob");
        let computer = board_at(0, None, None, "computer");
        // The configured userid matches whatever its case.
        let found: Vec<u32> = boards_for_timers(&conn, now, 7, 21, "Computer")
            .unwrap()
            .iter()
            .map(|b| b.board)
            .collect();
        assert!(!found.contains(&fresh), "{found:?}");
        for b in [due_by_default, due_by_own_nag, total_time, computer] {
            assert!(found.contains(&b), "{b} in {found:?}");
        }
        finish_board(
            &conn,
            BoardId::new("chess", due_by_default),
            None,
            &BoardEnding::Agreement,
            now,
        )
        .unwrap();
        let found = boards_for_timers(&conn, now, 7, 21, "computer").unwrap();
        assert!(found.iter().all(|b| b.board != due_by_default));
    }

    #[test]
    fn board_numbers_count_from_101_per_game() {
        let conn = setup();
        assert_eq!(new_board(&conn, "chess"), 101);
        assert_eq!(new_board(&conn, "chess"), 102);
        assert_eq!(new_board(&conn, "doublechess"), 101);
        let b = board(&conn, BoardId::new("chess", 102)).unwrap().unwrap();
        assert_eq!(b.players, ["alice", "bob"]);
        assert_eq!(b.forfeit_days, Some(10));
        assert!(b.is_active());
        assert_eq!(
            boards_of_user(&conn, Some("chess"), "bob").unwrap().len(),
            2
        );
        assert_eq!(boards_of_user(&conn, None, "bob").unwrap().len(), 3);
        // A deleted board's number is not given again.
        delete_board(&conn, BoardId::new("chess", 102)).unwrap();
        assert_eq!(new_board(&conn, "chess"), 103);
    }

    /// A board is played by two: a row with one player (hand-edited) is
    /// reported as a malformed value, not read with a seat missing.
    #[test]
    fn a_board_without_two_players_is_corrupt() {
        let conn = setup();
        let n = new_board(&conn, "chess");
        conn.execute("DELETE FROM board_players WHERE seat = 1", [])
            .unwrap();
        match board(&conn, BoardId::new("chess", n)) {
            Err(StoreError::Corrupt(why)) => assert!(why.contains("1 players"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    /// The winner is a colour: a stored seat that is neither White's (0)
    /// nor Black's (1) is reported as a malformed value.
    #[test]
    fn the_winner_is_read_as_a_colour() {
        let conn = setup();
        let n = new_board(&conn, "chess");
        let id = BoardId::new("chess", n);
        finish_board(
            &conn,
            id,
            Some(rules::Color::Black),
            &BoardEnding::Resignation,
            Utc::now(),
        )
        .unwrap();
        let winner = |conn: &Connection| match board(conn, id)?.map(|b| b.status) {
            Some(BoardStatus::Finished { winner_seat, .. }) => Ok(winner_seat),
            other => panic!("{other:?}"),
        };
        assert_eq!(winner(&conn).unwrap(), Some(rules::Color::Black));
        conn.execute("UPDATE boards SET winner_seat = 2", [])
            .unwrap();
        assert!(matches!(winner(&conn), Err(StoreError::Corrupt(_))));
    }

    /// A ply's seat, a proposal's seat and the seats that played are
    /// colours: a stored seat other than 0 or 1 is reported as corrupt.
    #[test]
    fn stored_seats_are_read_as_colours() {
        let conn = setup();
        let n = new_board(&conn, "chess");
        let id = BoardId::new("chess", n);
        let ply = Ply {
            ply: 1,
            seat: rules::Color::White,
            notation: "e4".into(),
            events: vec![],
            comment: String::new(),
            played_at: Utc::now(),
            auto: false,
            conditional: false,
        };
        append_ply(&conn, id, &ply, None).unwrap();
        set_proposal(&conn, id, Some((Proposal::Undo, rules::Color::Black))).unwrap();
        assert_eq!(plies(&conn, id).unwrap()[0].seat, rules::Color::White);
        assert_eq!(
            board(&conn, id).unwrap().unwrap().proposal,
            Some((Proposal::Undo, rules::Color::Black))
        );
        conn.execute("UPDATE plies SET seat = 2", []).unwrap();
        assert!(matches!(plies(&conn, id), Err(StoreError::Corrupt(_))));
        conn.execute("UPDATE boards SET proposal_seat = -1", [])
            .unwrap();
        assert!(matches!(board(&conn, id), Err(StoreError::Corrupt(_))));
    }
}
