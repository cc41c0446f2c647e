//! What anyone may see, read for the web site: a board (as an observer's
//! board mail shows it, at any ply), a game's boards, a player's record and
//! rating history, standings, tournaments and the help pages. Each is read
//! through the loaders the mail commands use, in one read transaction (see
//! [`Server::reading`](super::Server::reading)).
//!
//! Rulings (docs/web.md):
//! - public is what an observer's board mail shows: the boards, whose turn,
//!   the players with their ratings, the plies with their comments (a
//!   comment is relayed to every observer, with the password masked, so it
//!   is public), the observers' count (not who they are), the game record;
//! - never shown: an address (not even the server's own: the help pages say
//!   "the server's address"; a word with an `@` in a comment is hidden),
//!   a password or its hash, a reply token, a conditional tree, a queued
//!   or submitted move, a vacation;
//! - Shadow Chess hides nothing from a spectator in its rules (both boards
//!   are in every board mail, docs/rules.md §4): the web draws what an
//!   observer's mail draws, the position's own diagram.

use super::compose::colour;
use super::loaded::{all_plies, load, replay};
use super::record::game_record_at;
pub(crate) use super::record::record;
use super::tournament::table::Table;
use super::{Ctx, Handled, Refusal};
use crate::store::{self, BoardStatus, Ply, Rating, RatingPoint, Tournament, TournamentState};
use game::ratings;
use game::render::svg::Mark;
use rules::{Color, Diagram, Game};

/// One side of a board: the player, their colour and rating in the game.
#[derive(Clone, Debug)]
pub(crate) struct Side {
    pub userid: String,
    pub colour: &'static str,
    pub rating: i64,
    pub provisional: bool,
}

/// A board as the public sees it, at ply `shown` of `played`.
pub(crate) struct BoardPage {
    pub game: &'static dyn Game,
    pub board: u32,
    pub active: bool,
    /// Plies played so far, all of them, in order.
    pub plies: Vec<Ply>,
    pub played: u32,
    pub shown: u32,
    pub diagram: Diagram,
    /// The marks of ply `shown` on the picture: the squares it changed and
    /// a king it put in check, as a board mail's picture marks them.
    pub last_move: Vec<Mark>,
    /// The position at `shown` in the game's own notation.
    pub position_text: String,
    /// Whose turn it is (or was, at `shown`): the player's userid, and
    /// whether it is a decision rather than a move; none once over.
    pub to_act: Option<(String, bool)>,
    /// `It is bob's turn.`, `Game won by alice (checkmate).`: the board
    /// mail's status line (of the board now).
    pub status: String,
    pub sides: [Side; 2],
    pub observers: usize,
    /// The tournament and round of a tournament's board.
    pub event: Option<(String, u32)>,
    pub options: Vec<String>,
    pub computer: Option<String>,
    pub started: chrono::DateTime<chrono::Utc>,
    pub last_action: chrono::DateTime<chrono::Utc>,
    /// The legal actions of an active board as it stands (for the move
    /// form), at most [`LEGAL_OFFERED`]; none for an earlier ply.
    pub legal: Vec<String>,
}

/// Legal actions a board page offers at most (Temporal and Double Chess
/// can have more; any move may still be typed).
pub(crate) const LEGAL_OFFERED: usize = 400;

/// The board `number` of `game` at ply `at` (now when `None`).
pub(crate) fn board_page(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    at: Option<u32>,
) -> Handled<BoardPage> {
    let loaded = load(ctx, game, number)?;
    let plies = all_plies(ctx, &loaded)?;
    let played = loaded.played;
    let shown = match at {
        Some(n) if n > played => {
            return Err(Refusal::new(format!(
                "{} board {number} has {played} plies so far; there is no ply {n}.",
                game.title()
            ))
            .into())
        }
        Some(n) => n,
        None => played,
    };
    let status = loaded.view(game, vec![]).status();
    // The position shown, and the one before its last ply with that ply's
    // notation (for its marks).
    let (position, before) = match shown {
        0 => (replay(game, &loaded.row, &[])?, None),
        n => {
            let before = replay(game, &loaded.row, &plies[..n as usize - 1])?;
            let mut after = before.clone();
            let last = &plies[n as usize - 1];
            after
                .play(&last.notation)
                .map_err(|e| super::ServerError::Replay {
                    game: game.name().to_string(),
                    board: number,
                    reason: format!("ply {}: {e}", last.ply),
                })?;
            (after, Some((before, last.notation.as_str())))
        }
    };
    let diagram = position.diagram();
    let last_move = before.map_or_else(Vec::new, |(b, notation)| {
        super::picture::ply_marks(&b.diagram(), position.as_ref(), notation)
    });
    let row = &loaded.row;
    let to_act = (position.outcome() == rules::Outcome::Ongoing
        && (shown < played || row.is_active()))
    .then(|| {
        (
            row.players[position.to_act().index()].clone(),
            position.is_decision(),
        )
    });
    let side = |seat: Color| -> Handled<Side> {
        let userid = row.players[seat.index()].clone();
        let rating = store::rating(ctx.conn, game.name(), &userid)?;
        let (points, games) = rating.map_or((ratings::START_RATING, 0), |r| (r.rating, r.games));
        Ok(Side {
            userid,
            colour: colour(seat),
            rating: points,
            provisional: games < ratings::PROVISIONAL_GAMES,
        })
    };
    let id = store::BoardId::new(game.name(), number);
    let computer = store::computer_level(ctx.conn, id)?.map(|level| {
        let userid = &ctx.server.config.computer.userid;
        format!("{userid} is the computer player, at level {level} of 5.")
    });
    Ok(BoardPage {
        game,
        board: number,
        active: row.is_active(),
        played,
        shown,
        diagram,
        last_move,
        position_text: position.to_text(),
        to_act,
        status,
        sides: [side(Color::White)?, side(Color::Black)?],
        observers: store::observers(ctx.conn, id)?.len(),
        event: store::tournament_of_board(ctx.conn, game.name(), number)?
            .map(|t| (t.name, t.round)),
        options: row.options.clone(),
        computer,
        started: row.created_at,
        last_action: row.finished_at.unwrap_or(row.last_action_at),
        legal: if row.is_active() && shown == played {
            let mut legal = position.legal_actions();
            legal.truncate(LEGAL_OFFERED);
            legal
        } else {
            Vec::new()
        },
        plies,
    })
}

/// The site a web page's game record names: the server's name, without
/// its address (see the module's rulings).
fn site(ctx: &Ctx<'_>) -> String {
    ctx.server.config.server.name.clone()
}

/// The game record (PGN) of a board.
pub(crate) fn board_record(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> Handled<String> {
    let loaded = load(ctx, game, number)?;
    let plies = all_plies(ctx, &loaded)?;
    game_record_at(ctx, game, &loaded.row, &plies, &site(ctx))
}

/// One line of a list of boards.
#[derive(Clone)]
pub(crate) struct BoardLine {
    pub game: &'static dyn Game,
    pub board: u32,
    pub players: [String; 2],
    /// `bob to act, ply 12`, `won by alice (checkmate)`, `tie (stalemate)`.
    pub state: String,
    pub active: bool,
    pub last_action: chrono::DateTime<chrono::Utc>,
}

fn board_line(ctx: &Ctx<'_>, game: &'static dyn Game, b: &store::BoardRow) -> Handled<BoardLine> {
    let state = super::show::board_state(ctx, game, b)?;
    Ok(BoardLine {
        game,
        board: b.board,
        players: b.players.clone(),
        state,
        active: b.is_active(),
        last_action: b.finished_at.unwrap_or(b.last_action_at),
    })
}

/// Every board of `game`, the active first, each group newest first.
pub(crate) fn boards_of_game(ctx: &Ctx<'_>, game: &'static dyn Game) -> Handled<Vec<BoardLine>> {
    let mut lines = store::boards_of_game(ctx.conn, game.name())?
        .iter()
        .map(|b| board_line(ctx, game, b))
        .collect::<Handled<Vec<_>>>()?;
    lines.sort_by(|a, b| b.active.cmp(&a.active).then(b.board.cmp(&a.board)));
    Ok(lines)
}

/// A player's record in one game.
pub(crate) struct GameRecord {
    pub game: &'static dyn Game,
    pub rating: Option<Rating>,
    pub won: i64,
    pub lost: i64,
    pub tied: i64,
}

/// A player as the public sees them.
pub(crate) struct PlayerPage {
    pub userid: String,
    pub boards: Vec<BoardLine>,
    pub records: Vec<GameRecord>,
    pub history: Vec<RatingPoint>,
}

/// The page of `userid`; refused when there is no such player.
pub(crate) fn player_page(ctx: &Ctx<'_>, userid: &str) -> Handled<PlayerPage> {
    let userid = userid.to_ascii_lowercase();
    if store::user(ctx.conn, &userid)?.is_none() {
        return Err(Refusal::new(format!("There is no player called {userid}.")).into());
    }
    let mut boards = Vec::new();
    for b in store::boards_of_user(ctx.conn, None, &userid)? {
        if let Some(game) = rules::game(&b.game) {
            boards.push(board_line(ctx, game, &b)?);
        }
    }
    boards.sort_by(|a, b| {
        b.active
            .cmp(&a.active)
            .then(b.last_action.cmp(&a.last_action))
    });
    let mut records = Vec::new();
    for &game in rules::registry() {
        let rating = store::rating(ctx.conn, game.name(), &userid)?;
        let record = store::records(ctx.conn, game.name())?
            .into_iter()
            .find(|(u, _)| *u == userid)
            .map(|(_, r)| r)
            .unwrap_or_default();
        if rating.is_some() || record.won + record.lost + record.tied > 0 {
            records.push(GameRecord {
                game,
                rating,
                won: record.won,
                lost: record.lost,
                tied: record.tied,
            });
        }
    }
    Ok(PlayerPage {
        history: store::rating_history(ctx.conn, &userid)?,
        userid,
        boards,
        records,
    })
}

/// The latest plies on the boards of `userid`, newest first, at most
/// `limit` (the player's feed).
pub(crate) fn player_plies(
    ctx: &Ctx<'_>,
    userid: &str,
    limit: usize,
) -> Handled<Vec<(BoardLine, Ply)>> {
    let userid = userid.to_ascii_lowercase();
    if store::user(ctx.conn, &userid)?.is_none() {
        return Err(Refusal::new(format!("There is no player called {userid}.")).into());
    }
    let mut out = Vec::new();
    for b in store::boards_of_user(ctx.conn, None, &userid)? {
        let Some(game) = rules::game(&b.game) else {
            continue;
        };
        let line = board_line(ctx, game, &b)?;
        for ply in store::plies(ctx.conn, b.id())? {
            out.push((line.clone(), ply));
        }
    }
    out.sort_by(|a, b| {
        b.1.played_at
            .cmp(&a.1.played_at)
            .then(b.1.ply.cmp(&a.1.ply))
    });
    out.truncate(limit);
    Ok(out)
}

/// One line of the standings: a rated player of the game.
pub(crate) struct Standing {
    pub userid: String,
    pub rating: Rating,
    pub won: i64,
    pub lost: i64,
    pub tied: i64,
}

/// The rated players of `game`, best first.
pub(crate) fn standings(ctx: &Ctx<'_>, game: &'static dyn Game) -> Handled<Vec<Standing>> {
    let records = store::records(ctx.conn, game.name())?;
    Ok(store::standings(ctx.conn, game.name())?
        .into_iter()
        .map(|(userid, rating)| {
            let r = records
                .iter()
                .find(|(u, _)| *u == userid)
                .map(|(_, r)| *r)
                .unwrap_or_default();
            Standing {
                userid,
                rating,
                won: r.won,
                lost: r.lost,
                tied: r.tied,
            }
        })
        .collect())
}

/// A tournament in a list: its name, kind and state in words.
pub(crate) struct TournamentLine {
    pub game: &'static dyn Game,
    pub name: String,
    pub described: String,
    pub state: String,
}

/// Every tournament of every game.
pub(crate) fn tournaments(ctx: &Ctx<'_>) -> Handled<Vec<TournamentLine>> {
    let mut out = Vec::new();
    for t in store::tournaments(ctx.conn, None)? {
        let Some(game) = rules::game(&t.game) else {
            continue;
        };
        let joined = store::entrants(ctx.conn, t.id)?.len();
        out.push(TournamentLine {
            game,
            described: super::tournament::describe(&t),
            state: super::tournament::show::state_words(&t, joined),
            name: t.name,
        });
    }
    Ok(out)
}

/// One game of a tournament's rounds.
pub(crate) struct RoundGame {
    pub round: u32,
    pub white: String,
    pub black: String,
    pub board: Option<u32>,
    /// `1-0`, `0-1`, `1/2-1/2`, `*` (in play), or the ruling's words.
    pub result: String,
}

/// A tournament as the public sees it.
pub(crate) struct TournamentPage {
    pub name: String,
    pub described: String,
    pub state: String,
    pub note: String,
    pub entrants: Vec<String>,
    /// The crosstable's lines as `tournament show` writes them (empty
    /// while the tournament is open).
    pub crosstable: Vec<String>,
    pub rounds: Vec<RoundGame>,
    pub byes: Vec<(u32, String)>,
}

fn find(ctx: &Ctx<'_>, game: &'static dyn Game, name: &str) -> Handled<Tournament> {
    super::tournament::find(ctx, game, name)
}

/// The tournament `name` of `game`.
pub(crate) fn tournament_page(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    name: &str,
) -> Handled<TournamentPage> {
    let t = find(ctx, game, name)?;
    let table = Table::read(ctx, &t)?;
    let names: Vec<&str> = table.entrants.iter().map(|e| e.userid.as_str()).collect();
    let seat_name = |seat: usize| names.get(seat).copied().unwrap_or("?").to_string();
    let crosstable = if t.state == TournamentState::Open {
        Vec::new()
    } else {
        game::tournament::crosstable(&t.kind, &table.record(), &names, &t.tiebreaks)
    };
    let rounds = table
        .rows
        .iter()
        .zip(&table.boards)
        .map(|(g, b)| RoundGame {
            round: g.round,
            white: seat_name(g.white),
            black: seat_name(g.black),
            board: g.board,
            result: match (&g.ruled, b) {
                (Some(ruled), _) => ruled.clone(),
                (None, Some(b)) => match &b.status {
                    BoardStatus::Active => "*".into(),
                    BoardStatus::Finished {
                        winner_seat: Some(Color::White),
                        ..
                    } => "1-0".into(),
                    BoardStatus::Finished {
                        winner_seat: Some(_),
                        ..
                    } => "0-1".into(),
                    BoardStatus::Finished { ending, .. } => match ending {
                        store::BoardEnding::AnnulledInTournament { .. } => "annulled".into(),
                        _ => "1/2-1/2".into(),
                    },
                },
                (None, None) => "-".into(),
            },
        })
        .collect();
    Ok(TournamentPage {
        described: super::tournament::describe(&t),
        state: super::tournament::show::state_words(&t, table.entrants.len()),
        note: t.note.clone(),
        entrants: names.iter().map(|s| s.to_string()).collect(),
        crosstable,
        rounds,
        byes: table
            .byes
            .iter()
            .map(|(round, seat)| (*round, seat_name(*seat)))
            .collect(),
        name: t.name,
    })
}

/// Every game of a tournament made so far, in round order, as one PGN
/// file (bounded by the tournament's size: at most 132 boards).
pub(crate) fn tournament_record(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    name: &str,
) -> Handled<String> {
    let t = find(ctx, game, name)?;
    let table = Table::read(ctx, &t)?;
    let mut body = String::new();
    for board in table.boards.iter().flatten() {
        let loaded = load(ctx, game, board.board)?;
        let plies = all_plies(ctx, &loaded)?;
        let record = game_record_at(ctx, game, &loaded.row, &plies, &site(ctx))?;
        body.push_str(record.trim_end());
        body.push_str("\n\n");
    }
    if body.is_empty() {
        body = format!("% Tournament {} has no games yet.\n", t.name);
    }
    Ok(body)
}

/// The help page `topic` as the web shows it: the mail's help text, with
/// "the server's address" for the address. `None`: no such page.
pub(crate) fn help_page(ctx: &Ctx<'_>, topic: &str) -> Handled<Option<String>> {
    super::help::page(ctx.server, topic, "the server's address")
}

/// The help topics the web lists: the general page first, then the
/// others, then one per game.
pub(crate) fn help_topics(ctx: &Ctx<'_>) -> Vec<String> {
    let mut topics: Vec<String> = [
        "general",
        "commands",
        "reply",
        "if",
        "tournament",
        "drawing",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    topics.extend(rules::registry().iter().map(|g| g.name().to_string()));
    topics.retain(|t| ctx.server.templates.has(&format!("help/{t}.txt")));
    topics
}
