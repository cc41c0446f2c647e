//! Tournaments: their rows, entrants, games by round and byes. The
//! pairing and scoring are `game::tournament`'s; the server maps these
//! rows to its `Record`.

use super::Cached;
use chrono::{DateTime, Utc};
use game::tournament::{tiebreak_codes, Kind, Tiebreak};
use rusqlite::{params, Connection, OptionalExtension};

use super::{Result, StoreError, StoredTime};

/// A tournament's kind as its row holds it: `kind` (`roundrobin` or
/// `swiss`), `double` (a round robin twice over) and, for a Swiss,
/// `rounds`. The one place that maps the columns to [`Kind`] and back.
fn kind_columns(kind: Kind) -> (&'static str, bool) {
    match kind {
        Kind::RoundRobin { double } => ("roundrobin", double),
        Kind::Swiss { .. } => ("swiss", false),
    }
}

fn read_kind(text: &str, double: bool, rounds: u32) -> Result<Kind> {
    match text {
        "roundrobin" => Ok(Kind::RoundRobin { double }),
        "swiss" => Ok(Kind::Swiss { rounds }),
        other => Err(StoreError::Corrupt(format!("tournament kind {other:?}"))),
    }
}

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentState {
    /// Taking entrants.
    Open,
    /// Its boards are being played.
    Running,
    Finished,
}

impl TournamentState {
    fn read(text: &str) -> Result<TournamentState> {
        match text {
            "open" => Ok(TournamentState::Open),
            "running" => Ok(TournamentState::Running),
            "finished" => Ok(TournamentState::Finished),
            other => Err(StoreError::Corrupt(format!("tournament state {other:?}"))),
        }
    }
}

/// One tournament row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tournament {
    pub id: i64,
    pub game: String,
    pub name: String,
    /// Round robin (once or twice over) or Swiss (its rounds).
    pub kind: Kind,
    /// Swiss: the rounds asked for; round robin: set at the start.
    pub rounds: u32,
    /// The players wanted: the tournament starts when this many joined.
    pub size: u32,
    pub options: Vec<String>,
    pub nag_days: Option<u32>,
    pub forfeit_days: Option<u32>,
    pub total_days: Option<u32>,
    /// `None`: opened from the admin CLI.
    pub creator: Option<String>,
    pub state: TournamentState,
    /// The rounds paired so far.
    pub round: u32,
    /// Why it ended early, if it did.
    pub note: String,
    /// The tiebreaks in order, published with it.
    pub tiebreaks: Vec<Tiebreak>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// A tournament to open.
pub(crate) struct NewTournament<'a> {
    pub game: &'a str,
    pub name: &'a str,
    pub kind: Kind,
    /// Swiss: the rounds asked for (as in `kind`); round robin: 0 until
    /// the start.
    pub rounds: u32,
    pub size: u32,
    pub options: &'a [String],
    pub nag_days: Option<u32>,
    pub forfeit_days: Option<u32>,
    pub total_days: Option<u32>,
    pub creator: Option<&'a str>,
    pub tiebreaks: &'a [Tiebreak],
    pub now: DateTime<Utc>,
}

/// One entrant of a tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntrantRow {
    pub userid: String,
    /// Join order, from 1.
    pub joined: u32,
    /// The place in the seeding (0-based), from the start on.
    pub seed: Option<usize>,
    /// The rating at the start.
    pub rating: Option<i64>,
    /// Withdrawn (or forfeited for silence) after this many finished games.
    pub withdrawn_after: Option<u32>,
}

/// One game of a tournament: a round's pairing of two seeds and its board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentGame {
    pub round: u32,
    pub white: usize,
    pub black: usize,
    /// The board in the tournament's game; `None` until it is made.
    pub board: Option<u32>,
    /// A withdrawal's ruling on the game (`white`, `black`, `draw`,
    /// `white-forfeits`, `black-forfeits`, `annulled`), which stands over
    /// the board's result.
    pub ruled: Option<String>,
}

const COLUMNS: &str = "id, game, name, kind, double, rounds, size, options, nag_days,
    forfeit_days, total_days, creator, state, round, note, created_at, started_at, finished_at,
    tiebreaks";

fn read_tournament(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawTournament> {
    Ok(RawTournament {
        id: r.get(0)?,
        game: r.get(1)?,
        name: r.get(2)?,
        kind: r.get(3)?,
        double: r.get(4)?,
        rounds: r.get(5)?,
        size: r.get(6)?,
        options: r.get(7)?,
        nag_days: r.get(8)?,
        forfeit_days: r.get(9)?,
        total_days: r.get(10)?,
        creator: r.get(11)?,
        state: r.get(12)?,
        round: r.get(13)?,
        note: r.get(14)?,
        created_at: r.get(15)?,
        started_at: r.get(16)?,
        finished_at: r.get(17)?,
        tiebreaks: r.get(18)?,
    })
}

/// A row as SQLite gives it, before its texts are read.
struct RawTournament {
    id: i64,
    game: String,
    name: String,
    kind: String,
    double: bool,
    rounds: u32,
    size: u32,
    options: String,
    nag_days: Option<u32>,
    forfeit_days: Option<u32>,
    total_days: Option<u32>,
    creator: Option<String>,
    state: String,
    round: u32,
    note: String,
    created_at: StoredTime,
    started_at: Option<StoredTime>,
    finished_at: Option<StoredTime>,
    tiebreaks: String,
}

impl RawTournament {
    fn cook(self) -> Result<Tournament> {
        let kind = read_kind(&self.kind, self.double, self.rounds)?;
        let tiebreaks = if self.tiebreaks.is_empty() {
            Tiebreak::defaults(&kind)
        } else {
            self.tiebreaks
                .split_whitespace()
                .map(|code| {
                    Tiebreak::from_code(code)
                        .ok_or_else(|| StoreError::Corrupt(format!("tiebreak {code:?}")))
                })
                .collect::<Result<_>>()?
        };
        Ok(Tournament {
            id: self.id,
            game: self.game,
            name: self.name,
            kind,
            rounds: self.rounds,
            size: self.size,
            options: self.options.split_whitespace().map(String::from).collect(),
            nag_days: self.nag_days,
            forfeit_days: self.forfeit_days,
            total_days: self.total_days,
            creator: self.creator,
            state: TournamentState::read(&self.state)?,
            round: self.round,
            note: self.note,
            tiebreaks,
            created_at: self.created_at.0,
            started_at: self.started_at.map(|t| t.0),
            finished_at: self.finished_at.map(|t| t.0),
        })
    }
}

fn many(conn: &Connection, sql: &str, p: impl rusqlite::Params) -> Result<Vec<Tournament>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let raws = stmt
        .query_map(p, read_tournament)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    raws.into_iter().map(RawTournament::cook).collect()
}

/// Open a tournament; its id. The caller checked that the name is free.
pub(crate) fn insert_tournament(conn: &Connection, new: &NewTournament<'_>) -> Result<i64> {
    let (kind, double) = kind_columns(new.kind);
    conn.exec(
        "INSERT INTO tournaments (game, name, kind, double, rounds, size, options, nag_days,
                                  forfeit_days, total_days, creator, created_at, tiebreaks)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            new.game,
            new.name,
            kind,
            double,
            new.rounds,
            new.size,
            new.options.join(" "),
            new.nag_days,
            new.forfeit_days,
            new.total_days,
            new.creator,
            StoredTime(new.now),
            tiebreak_codes(new.tiebreaks, " "),
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// The tournament of `game` called `name`.
pub fn tournament(conn: &Connection, game: &str, name: &str) -> Result<Option<Tournament>> {
    let sql = format!("SELECT {COLUMNS} FROM tournaments WHERE game = ?1 AND name = ?2");
    let raw = conn
        .row(&sql, params![game, name], read_tournament)
        .optional()?;
    raw.map(RawTournament::cook).transpose()
}

/// The tournament with this id.
pub(crate) fn tournament_by_id(conn: &Connection, id: i64) -> Result<Option<Tournament>> {
    let sql = format!("SELECT {COLUMNS} FROM tournaments WHERE id = ?1");
    let raw = conn.row(&sql, params![id], read_tournament).optional()?;
    raw.map(RawTournament::cook).transpose()
}

/// The tournaments of `game` (every game when `None`): open, then
/// running, then finished, each newest first.
pub fn tournaments(conn: &Connection, game: Option<&str>) -> Result<Vec<Tournament>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM tournaments WHERE ?1 IS NULL OR game = ?1
         ORDER BY CASE state WHEN 'open' THEN 0 WHEN 'running' THEN 1 ELSE 2 END,
                  created_at DESC, id DESC"
    );
    many(conn, &sql, params![game])
}

/// How many tournaments not finished `creator` opened (every one's when
/// `None`).
pub(crate) fn unfinished_tournaments(conn: &Connection, creator: Option<&str>) -> Result<u32> {
    Ok(conn.row(
        "SELECT COUNT(*) FROM tournaments
         WHERE state != 'finished' AND (?1 IS NULL OR creator = ?1)",
        params![creator],
        |r| r.get(0),
    )?)
}

/// Remove an open tournament with its entrants (an admin's cancel, or its
/// creator's account removed).
pub(crate) fn delete_tournament(conn: &Connection, tournament: i64) -> Result<()> {
    for sql in [
        "DELETE FROM tournament_entrants WHERE tournament = ?1",
        "DELETE FROM tournament_games WHERE tournament = ?1",
        "DELETE FROM tournament_byes WHERE tournament = ?1",
        "DELETE FROM tournaments WHERE id = ?1",
    ] {
        conn.exec(sql, params![tournament])?;
    }
    Ok(())
}

/// A tournament's entrants in seeding order (join order before the start).
pub fn entrants(conn: &Connection, tournament: i64) -> Result<Vec<EntrantRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT userid, joined, seed, rating, withdrawn_after FROM tournament_entrants
         WHERE tournament = ?1 ORDER BY seed, joined",
    )?;
    let rows = stmt
        .query_map(params![tournament], |r| {
            Ok(EntrantRow {
                userid: r.get(0)?,
                joined: r.get(1)?,
                seed: r.get::<_, Option<i64>>(2)?.map(|s| s as usize),
                rating: r.get(3)?,
                withdrawn_after: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Add `userid` to an open tournament, last in join order; false when
/// already in.
pub(crate) fn add_entrant(conn: &Connection, tournament: i64, userid: &str) -> Result<bool> {
    let n = conn.exec(
        "INSERT OR IGNORE INTO tournament_entrants (tournament, userid, joined)
         SELECT ?1, ?2, COALESCE(MAX(joined), 0) + 1 FROM tournament_entrants
         WHERE tournament = ?1",
        params![tournament, userid],
    )?;
    Ok(n == 1)
}

/// Take `userid` off an open tournament; false when not in it.
pub(crate) fn remove_entrant(conn: &Connection, tournament: i64, userid: &str) -> Result<bool> {
    let n = conn.exec(
        "DELETE FROM tournament_entrants WHERE tournament = ?1 AND userid = ?2",
        params![tournament, userid],
    )?;
    Ok(n == 1)
}

/// Fix the seeding at the start: each entrant's place and rating.
pub(crate) fn set_seed(
    conn: &Connection,
    tournament: i64,
    userid: &str,
    seed: usize,
    rating: i64,
) -> Result<()> {
    conn.exec(
        "UPDATE tournament_entrants SET seed = ?3, rating = ?4
         WHERE tournament = ?1 AND userid = ?2",
        params![tournament, userid, seed as i64, rating],
    )?;
    Ok(())
}

/// Mark `userid` withdrawn after `finished` of their games; false when
/// they had withdrawn already.
pub(crate) fn set_withdrawn(
    conn: &Connection,
    tournament: i64,
    userid: &str,
    finished: u32,
) -> Result<bool> {
    let n = conn.exec(
        "UPDATE tournament_entrants SET withdrawn_after = ?3
         WHERE tournament = ?1 AND userid = ?2 AND withdrawn_after IS NULL",
        params![tournament, userid, finished],
    )?;
    Ok(n == 1)
}

/// Start a tournament: running, with its number of rounds.
pub(crate) fn start_tournament(
    conn: &Connection,
    tournament: i64,
    rounds: u32,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "UPDATE tournaments SET state = 'running', rounds = ?2, started_at = ?3
         WHERE id = ?1 AND state = 'open'",
        params![tournament, rounds, StoredTime(now)],
    )?;
    Ok(())
}

/// The rounds paired so far.
pub(crate) fn set_tournament_round(conn: &Connection, tournament: i64, round: u32) -> Result<()> {
    conn.exec(
        "UPDATE tournaments SET round = ?2 WHERE id = ?1",
        params![tournament, round],
    )?;
    Ok(())
}

/// Finish a tournament, with a note when it ended early.
pub(crate) fn finish_tournament(
    conn: &Connection,
    tournament: i64,
    note: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "UPDATE tournaments SET state = 'finished', note = ?2, finished_at = ?3
         WHERE id = ?1 AND state != 'finished'",
        params![tournament, note, StoredTime(now)],
    )?;
    Ok(())
}

/// Record a pairing (once: the key is tournament, round, white, black).
pub(crate) fn add_tournament_game(
    conn: &Connection,
    tournament: i64,
    round: u32,
    white: usize,
    black: usize,
) -> Result<()> {
    conn.exec(
        "INSERT OR IGNORE INTO tournament_games (tournament, round, white, black)
         VALUES (?1, ?2, ?3, ?4)",
        params![tournament, round, white as i64, black as i64],
    )?;
    Ok(())
}

/// Link a game to its board once made, with the players' ratings in the
/// game at its start (White's, Black's).
pub(crate) fn set_tournament_board(
    conn: &Connection,
    tournament: i64,
    game: &TournamentGame,
    board: u32,
    ratings: [i64; 2],
) -> Result<()> {
    conn.exec(
        "UPDATE tournament_games SET board = ?5, white_rating = ?6, black_rating = ?7
         WHERE tournament = ?1 AND round = ?2 AND white = ?3 AND black = ?4 AND board IS NULL",
        params![
            tournament,
            game.round,
            game.white as i64,
            game.black as i64,
            board,
            ratings[0],
            ratings[1]
        ],
    )?;
    Ok(())
}

/// Rule on a game's score (a withdrawal's forfeit or annulment).
pub(crate) fn rule_tournament_game(
    conn: &Connection,
    tournament: i64,
    game: &TournamentGame,
    score: &str,
) -> Result<()> {
    conn.exec(
        "UPDATE tournament_games SET score = ?5
         WHERE tournament = ?1 AND round = ?2 AND white = ?3 AND black = ?4",
        params![
            tournament,
            game.round,
            game.white as i64,
            game.black as i64,
            score
        ],
    )?;
    Ok(())
}

/// Every game of a tournament, by round, then in the pairing's order (a
/// Swiss: best board first), which is the order their boards are made in.
pub fn tournament_games(conn: &Connection, tournament: i64) -> Result<Vec<TournamentGame>> {
    let mut stmt = conn.prepare_cached(
        "SELECT round, white, black, board, score FROM tournament_games
         WHERE tournament = ?1 ORDER BY round, rowid",
    )?;
    let rows = stmt
        .query_map(params![tournament], |r| {
            Ok(TournamentGame {
                round: r.get(0)?,
                white: r.get::<_, i64>(1)? as usize,
                black: r.get::<_, i64>(2)? as usize,
                board: r.get(3)?,
                ruled: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Record a bye (one per round).
pub(crate) fn add_bye(
    conn: &Connection,
    tournament: i64,
    round: u32,
    entrant: usize,
) -> Result<()> {
    conn.exec(
        "INSERT OR IGNORE INTO tournament_byes (tournament, round, entrant) VALUES (?1, ?2, ?3)",
        params![tournament, round, entrant as i64],
    )?;
    Ok(())
}

/// The byes given: (round, seed).
pub fn byes(conn: &Connection, tournament: i64) -> Result<Vec<(u32, usize)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT round, entrant FROM tournament_byes WHERE tournament = ?1 ORDER BY round",
    )?;
    let rows = stmt
        .query_map(params![tournament], |r| {
            Ok((r.get(0)?, r.get::<_, i64>(1)? as usize))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// A tournament board's place in its tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BoardInTournament {
    /// The tournament's name.
    pub name: String,
    pub round: u32,
    /// The board's place among its round's boards, from 1, in the
    /// pairing's order (a Swiss: best first).
    pub board_in_round: u32,
    /// When the tournament started.
    pub started_at: Option<DateTime<Utc>>,
    /// White's and Black's ratings when the board was made; `None` for a
    /// board made before they were stored.
    pub ratings: Option<[i64; 2]>,
}

/// The tournament (and round) board `board` of `game` belongs to, if any.
pub(crate) fn tournament_of_board(
    conn: &Connection,
    game: &str,
    board: u32,
) -> Result<Option<BoardInTournament>> {
    Ok(conn
        .row(
            "SELECT t.name, g.round,
                    (SELECT COUNT(*) FROM tournament_games h
                     WHERE h.tournament = g.tournament AND h.round = g.round
                       AND h.rowid <= g.rowid),
                    t.started_at, g.white_rating, g.black_rating
             FROM tournament_games g
             JOIN tournaments t ON t.id = g.tournament
             WHERE t.game = ?1 AND g.board = ?2",
            params![game, board],
            |r| {
                let white: Option<i64> = r.get(4)?;
                let black: Option<i64> = r.get(5)?;
                Ok(BoardInTournament {
                    name: r.get(0)?,
                    round: r.get(1)?,
                    board_in_round: r.get(2)?,
                    started_at: r.get::<_, Option<StoredTime>>(3)?.map(|t| t.0),
                    ratings: white.zip(black).map(|(w, b)| [w, b]),
                })
            },
        )
        .optional()?)
}

/// The running tournaments that may have to move on: every board made has
/// ended (a round over), or a board ended by a forfeit for silence (or
/// annulled by the timers for one) whose player has not left the
/// tournament yet.
pub(crate) fn tournaments_to_advance(conn: &Connection) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.id FROM tournaments t
         WHERE t.state = 'running' AND (
           NOT EXISTS (
             SELECT 1 FROM tournament_games g
             LEFT JOIN boards b ON b.game = t.game AND b.board = g.board
             WHERE g.tournament = t.id AND (g.board IS NULL OR b.status = 'active'))
           OR EXISTS (
             SELECT 1 FROM tournament_games g
             JOIN boards b ON b.game = t.game AND b.board = g.board
             JOIN board_players p ON p.game = b.game AND p.board = b.board
                                  AND p.seat = 1 - b.winner_seat
             JOIN tournament_entrants e ON e.tournament = t.id AND e.userid = p.userid
             WHERE g.tournament = t.id AND b.status = 'finished'
               AND b.ending LIKE 'forfeit: %' AND e.withdrawn_after IS NULL)
           OR EXISTS (
             SELECT 1 FROM tournament_games g
             JOIN boards b ON b.game = t.game AND b.board = g.board
             JOIN board_players p ON p.game = b.game AND p.board = b.board
             JOIN tournament_entrants e ON e.tournament = t.id AND e.userid = p.userid
             WHERE g.tournament = t.id AND b.status = 'finished'
               AND substr(b.ending, 1, length(p.userid) + 11) = 'annulled: ' || p.userid || ' '
               AND e.withdrawn_after IS NULL))
         ORDER BY t.id",
    )?;
    let ids = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}
