//! Boards, their players and their plies.

use super::Cached;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension, Row};
use std::fmt;

use super::{Result, StoreError, StoredTime};

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

/// Why a board ended. Its `Display` is the prose the players read in the
/// status line (`won by alice (checkmate)`); the `ending` column stores
/// that prose, as it always did, and [`BoardEnding::read`] turns it back
/// into the enum, so rows written before this type existed read the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardEnding {
    /// Decided on the board by the rules (checkmate, stalemate, the
    /// automatic draws, the games' own endings).
    Board(rules::Ending),
    Resignation,
    /// A draw proposal accepted.
    Agreement,
    /// A draw proposal left unanswered until the timers would have
    /// forfeited the player to act: it counts as accepted.
    AgreementBySilence {
        days: i64,
    },
    /// The timers ended the board against `absent`. `rated` is false for a
    /// board `absent` never made a ply on.
    Forfeit {
        absent: String,
        limit: ForfeitLimit,
        rated: bool,
    },
    /// Ended by the administrator (`admin board adjudicate`).
    Adjudication,
    /// A tournament board `absent` lost by forfeit, unrated, as they
    /// withdrew from the tournament or were forfeited for silence on
    /// another of its boards.
    LeftTournament {
        absent: String,
    },
    /// Resigned before both players had acted: the board is deleted, so
    /// this ending is only ever told, never stored.
    Withdrawn,
    /// Stored prose none of the above writes (a row edited by hand): kept
    /// and shown as it is.
    Other(String),
}

/// The time limit a forfeited player went past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForfeitLimit {
    /// `days` without acting (at least the board's forfeit days).
    Idle { days: i64 },
    /// The board's total time limit of `days` days.
    TotalTime { days: u32 },
}

/// Every ending the rules report, for reading stored prose back.
const RULES_ENDINGS: [rules::Ending; 7] = [
    rules::Ending::Checkmate,
    rules::Ending::Stalemate,
    rules::Ending::Repetition,
    rules::Ending::FiftyMoveRule,
    rules::Ending::InsufficientMaterial,
    rules::Ending::KingsCaptured,
    rules::Ending::OriginalCaptured,
];

impl BoardEnding {
    /// The ending whose prose is `text` (the `ending` column). Ruling:
    /// text that reads as an ending but would not be written back letter
    /// for letter (or reads as none) is [`BoardEnding::Other`], so what a
    /// player is shown never changes.
    pub(crate) fn read(text: &str) -> BoardEnding {
        match Self::parse(text) {
            Some(ending) if ending == text => ending,
            _ => BoardEnding::Other(text.to_string()),
        }
    }

    fn parse(text: &str) -> Option<BoardEnding> {
        let fixed = match text {
            "resignation" => Some(BoardEnding::Resignation),
            "agreement" => Some(BoardEnding::Agreement),
            "adjudication" => Some(BoardEnding::Adjudication),
            "withdrawn" => Some(BoardEnding::Withdrawn),
            _ => RULES_ENDINGS
                .into_iter()
                .find(|e| e.to_string() == text)
                .map(BoardEnding::Board),
        };
        if fixed.is_some() {
            return fixed;
        }
        if let Some(days) = text
            .strip_prefix("agreement by silence: the draw proposal stood unanswered for ")
            .and_then(|t| t.strip_suffix(" days"))
        {
            return Some(BoardEnding::AgreementBySilence {
                days: days.parse().ok()?,
            });
        }
        let forfeit = text.strip_prefix("forfeit: ")?;
        if let Some(absent) = forfeit.strip_suffix(" left the tournament; unrated") {
            return Some(BoardEnding::LeftTournament {
                absent: absent.to_string(),
            });
        }
        let (forfeit, rated) = match forfeit
            .strip_suffix(" never moved on this board")
            .and_then(|t| t.rsplit_once("; unrated, as "))
        {
            Some((head, _)) => (head, false),
            None => (forfeit, true),
        };
        let (absent, limit) = if let Some(head) = forfeit.strip_suffix(" days of total time") {
            let (absent, days) = head.rsplit_once(" used up the ")?;
            (
                absent,
                ForfeitLimit::TotalTime {
                    days: days.parse().ok()?,
                },
            )
        } else {
            let head = forfeit.strip_suffix(" days")?;
            let (absent, days) = head.rsplit_once(" did not act for ")?;
            (
                absent,
                ForfeitLimit::Idle {
                    days: days.parse().ok()?,
                },
            )
        };
        Some(BoardEnding::Forfeit {
            absent: absent.to_string(),
            limit,
            rated,
        })
    }

    /// The PGN `Termination` tag of a board that ended so.
    pub(crate) fn termination(&self) -> &'static str {
        match self {
            BoardEnding::Forfeit { .. } => "time forfeit",
            BoardEnding::LeftTournament { .. } => "abandoned",
            // Prose of unknown form: the rule used before this type.
            BoardEnding::Other(text) if text.starts_with("forfeit") => "time forfeit",
            BoardEnding::Board(_)
            | BoardEnding::Resignation
            | BoardEnding::Agreement
            | BoardEnding::AgreementBySilence { .. }
            | BoardEnding::Adjudication
            | BoardEnding::Withdrawn
            | BoardEnding::Other(_) => "normal",
        }
    }
}

impl fmt::Display for BoardEnding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardEnding::Board(ending) => write!(f, "{ending}"),
            BoardEnding::Resignation => f.write_str("resignation"),
            BoardEnding::Agreement => f.write_str("agreement"),
            BoardEnding::AgreementBySilence { days } => write!(
                f,
                "agreement by silence: the draw proposal stood unanswered for {days} days"
            ),
            BoardEnding::Forfeit {
                absent,
                limit,
                rated,
            } => {
                match limit {
                    ForfeitLimit::TotalTime { days } => {
                        write!(f, "forfeit: {absent} used up the {days} days of total time")?
                    }
                    ForfeitLimit::Idle { days } => {
                        write!(f, "forfeit: {absent} did not act for {days} days")?
                    }
                }
                if !rated {
                    write!(f, "; unrated, as {absent} never moved on this board")?;
                }
                Ok(())
            }
            BoardEnding::Adjudication => f.write_str("adjudication"),
            BoardEnding::LeftTournament { absent } => {
                write!(f, "forfeit: {absent} left the tournament; unrated")
            }
            BoardEnding::Withdrawn => f.write_str("withdrawn"),
            BoardEnding::Other(text) => f.write_str(text),
        }
    }
}

/// An ending equals the prose it is shown as.
impl PartialEq<&str> for BoardEnding {
    fn eq(&self, text: &&str) -> bool {
        self.to_string().as_str() == *text
    }
}

/// One board row with its players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardRow {
    /// The game's name as stored. Ruling: kept as text (see [`BoardRow::id`]
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
fn seat_color(seat: i64) -> Result<rules::Color> {
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
mod tests {
    use super::*;
    use crate::store::{insert_user, open_in_memory};

    fn setup() -> Connection {
        let conn = open_in_memory().unwrap();
        for u in ["alice", "bob"] {
            insert_user(&conn, u, "h", &[format!("{u}@x")], Utc::now()).unwrap();
        }
        conn
    }

    fn new_board(conn: &Connection, game: &str) -> u32 {
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

    /// Every ending is stored as the prose it is shown as and read back as
    /// the same ending: the prose written before the type existed included.
    #[test]
    fn endings_are_stored_as_their_prose_and_read_back() {
        let mut endings: Vec<BoardEnding> =
            RULES_ENDINGS.into_iter().map(BoardEnding::Board).collect();
        endings.extend([
            BoardEnding::Resignation,
            BoardEnding::Agreement,
            BoardEnding::AgreementBySilence { days: 9 },
            BoardEnding::Adjudication,
            BoardEnding::Withdrawn,
        ]);
        for limit in [
            ForfeitLimit::Idle { days: 21 },
            ForfeitLimit::TotalTime { days: 60 },
        ] {
            for rated in [true, false] {
                endings.push(BoardEnding::Forfeit {
                    absent: "bob".into(),
                    limit,
                    rated,
                });
            }
        }
        let conn = setup();
        for ending in &endings {
            let n = new_board(&conn, "chess");
            finish_board(
                &conn,
                BoardId::new("chess", n),
                Some(rules::Color::Black),
                ending,
                Utc::now(),
            )
            .unwrap();
            let stored: String = conn
                .query_row(
                    "SELECT ending FROM boards WHERE game = 'chess' AND board = ?1",
                    [n],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(stored, ending.to_string());
            let BoardStatus::Finished { ending: read, .. } = board(&conn, BoardId::new("chess", n))
                .unwrap()
                .unwrap()
                .status
            else {
                panic!("board {n} is not finished");
            };
            assert_eq!(&read, ending, "{stored}");
            assert!(!matches!(read, BoardEnding::Other(_)), "{stored}");
        }
        // The prose the server wrote before, word for word.
        for (old, ending) in [
            ("threefold repetition", BoardEnding::Board(rules::Ending::Repetition)),
            ("capture of every king", BoardEnding::Board(rules::Ending::KingsCaptured)),
            (
                "forfeit: bob did not act for 22 days",
                BoardEnding::Forfeit {
                    absent: "bob".into(),
                    limit: ForfeitLimit::Idle { days: 22 },
                    rated: true,
                },
            ),
            (
                "forfeit: bob used up the 30 days of total time; unrated, as bob never moved on this board",
                BoardEnding::Forfeit {
                    absent: "bob".into(),
                    limit: ForfeitLimit::TotalTime { days: 30 },
                    rated: false,
                },
            ),
            (
                "agreement by silence: the draw proposal stood unanswered for 7 days",
                BoardEnding::AgreementBySilence { days: 7 },
            ),
        ] {
            assert_eq!(BoardEnding::read(old), ending);
        }
    }

    /// Prose that is no ending the server writes is kept as it is, and
    /// decides the PGN termination as before (a forfeit by its first word).
    #[test]
    fn unknown_ending_prose_is_kept_and_shown_as_it_is() {
        for text in [
            "",
            "time ran out",
            "forfeit: bob did not act for many days",
            "forfeit: bob did not act for 007 days",
            "forfeit: bob did not act for 5 days; unrated, as carol never moved on this board",
            "Resignation",
        ] {
            let read = BoardEnding::read(text);
            assert_eq!(read, BoardEnding::Other(text.to_string()));
            assert_eq!(read.to_string(), text);
        }
        assert_eq!(
            BoardEnding::read("forfeit by hand").termination(),
            "time forfeit"
        );
        assert_eq!(BoardEnding::read("time ran out").termination(), "normal");
    }

    #[test]
    fn only_a_forfeit_terminates_on_time() {
        let forfeit = BoardEnding::Forfeit {
            absent: "alice".into(),
            limit: ForfeitLimit::Idle { days: 3 },
            rated: false,
        };
        assert_eq!(forfeit.termination(), "time forfeit");
        for normal in [
            BoardEnding::Board(rules::Ending::Checkmate),
            BoardEnding::Resignation,
            BoardEnding::Agreement,
            BoardEnding::AgreementBySilence { days: 3 },
            BoardEnding::Adjudication,
        ] {
            assert_eq!(normal.termination(), "normal", "{normal}");
        }
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
