//! A board as the commands work on it: loaded from the store with its plies
//! and the position they lead to, and the writes that change it (a ply
//! played, a game finished and rated).

use std::cell::OnceCell;

use super::compose::{BoardView, Occasion, RECENT_PLIES};
use super::{Ctx, Handled, Refusal, ServerError};
use crate::command::BoardFilter;
use crate::ratings::{self, Score};
use crate::rules::{self, Game, Position};
use crate::store::{self, BoardStatus, Ply};

/// A board with its recent plies and the position they lead to.
///
/// Loading costs the same at ply 4 as at ply 400: the position is rebuilt
/// from the board's resume point (the position text after the last
/// irreversible action, see migration 0014) and the plies after it, which
/// the move rule keeps under 100; only the recent plies are read. What
/// needs the whole game (a view of an earlier ply, an undo, the full move
/// list of a finished board) reads it then.
pub(crate) struct Loaded {
    pub row: store::BoardRow,
    /// Plies played so far.
    pub played: u32,
    /// The last plies (at least [`RECENT_PLIES`] + 1 of them, or all: the
    /// recent window's first line may begin one ply earlier), ending
    /// with ply `played`.
    pub plies: Vec<Ply>,
    pub position: Box<dyn Position>,
}

impl Loaded {
    pub(crate) fn view<'a>(&'a self, game: &'static dyn Game, news: Vec<String>) -> BoardView<'a> {
        BoardView {
            game,
            row: &self.row,
            plies: &self.plies,
            position: self.position.as_ref(),
            news,
            recent_only: true,
            comment: None,
            occasion: Occasion::Turn,
            whole: OnceCell::new(),
            bodies: Default::default(),
        }
    }
}

/// The position the stored plies lead to from the board's start.
pub(crate) fn replay(
    game: &'static dyn Game,
    row: &store::BoardRow,
    plies: &[Ply],
) -> Result<Box<dyn Position>, ServerError> {
    replay_from(game, row, &row.start_position, plies)
}

/// The position `plies` lead to from the position text `from`.
fn replay_from(
    game: &'static dyn Game,
    row: &store::BoardRow,
    from: &str,
    plies: &[Ply],
) -> Result<Box<dyn Position>, ServerError> {
    let corrupt = |reason: String| ServerError::Replay {
        game: row.game.clone(),
        board: row.board,
        reason,
    };
    let mut position = game
        .position(from, &row.options)
        .map_err(|e| corrupt(e.to_string()))?;
    for ply in plies {
        position
            .play(&ply.notation)
            .map_err(|e| corrupt(format!("ply {}: {e}", ply.ply)))?;
    }
    Ok(position)
}

/// Replay the whole game from the start, and store the resume point it
/// leads to (after an undo).
pub(crate) fn replay_all(ctx: &Ctx<'_>, loaded: &mut Loaded) -> Handled<()> {
    let game = crate::rules::game(&loaded.row.game).ok_or_else(|| ServerError::Replay {
        game: loaded.row.game.clone(),
        board: loaded.row.board,
        reason: "no such game".into(),
    })?;
    let plies = store::plies(ctx.conn, game.name(), loaded.row.board)?;
    let mut position = game
        .position(&loaded.row.start_position, &loaded.row.options)
        .map_err(|e| ServerError::Replay {
            game: loaded.row.game.clone(),
            board: loaded.row.board,
            reason: e.to_string(),
        })?;
    let mut resume = (0, None);
    for ply in &plies {
        position
            .play(&ply.notation)
            .map_err(|e| ServerError::Replay {
                game: loaded.row.game.clone(),
                board: loaded.row.board,
                reason: format!("ply {}: {e}", ply.ply),
            })?;
        if position.history_plies() == 0 {
            resume = (ply.ply, Some(position.to_text()));
        }
    }
    store::set_resume_point(
        ctx.conn,
        game.name(),
        loaded.row.board,
        resume.0,
        resume.1.as_deref(),
    )?;
    loaded.played = plies.len() as u32;
    let skip = plies.len().saturating_sub(RECENT_PLIES + 1);
    loaded.plies = plies[skip..].to_vec();
    loaded.position = position;
    Ok(())
}

/// Every ply of a board, given the plies held for it (a loaded board
/// holds only its recent ones, ending with the last): those when they
/// begin at ply 1, else all of them read from the store.
pub(crate) fn every_ply(
    ctx: &Ctx<'_>,
    game: &str,
    board: u32,
    held: &[Ply],
) -> Handled<Option<Vec<Ply>>> {
    match held.first() {
        Some(first) if first.ply > 1 => Ok(Some(store::plies(ctx.conn, game, board)?)),
        _ => Ok(None),
    }
}

/// Every ply of a loaded board (read again when only the recent ones are held).
pub(crate) fn all_plies(ctx: &Ctx<'_>, loaded: &Loaded) -> Handled<Vec<Ply>> {
    Ok(
        every_ply(ctx, &loaded.row.game, loaded.row.board, &loaded.plies)?
            .unwrap_or_else(|| loaded.plies.clone()),
    )
}

/// The seat to act on an active board, read from its stored position (no
/// replay needed).
pub(crate) fn seat_to_act(game: &'static dyn Game, row: &store::BoardRow) -> Handled<usize> {
    let position = game
        .position(&row.position, &row.options)
        .map_err(|e| ServerError::Replay {
            game: row.game.clone(),
            board: row.board,
            reason: e.to_string(),
        })?;
    Ok(position.to_act().index())
}

/// Whether a board passes a listing filter; for `next`, whether one of
/// `users` (anyone when empty) is to act on it.
pub(crate) fn passes(
    game: &'static dyn Game,
    b: &store::BoardRow,
    filter: BoardFilter,
    users: &[String],
) -> Handled<bool> {
    Ok(match filter {
        BoardFilter::All => true,
        BoardFilter::Active => b.is_active(),
        BoardFilter::Inactive => !b.is_active(),
        BoardFilter::Next => {
            b.is_active() && {
                let to_act = &b.players[seat_to_act(game, b)?];
                users.is_empty() || users.iter().any(|u| *to_act == u.to_lowercase())
            }
        }
    })
}

/// Refuse a board number that does not exist.
pub(crate) fn require_board(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> Handled<()> {
    if store::board_exists(ctx.conn, game.name(), number)? {
        Ok(())
    } else {
        Err(no_such_board(game, number).into())
    }
}

fn no_such_board(game: &'static dyn Game, number: u32) -> Refusal {
    Refusal::new(format!(
        "There is no {} board {number}; send \"{} games all\" for the list of boards.",
        game.name(),
        game.name()
    ))
}

pub(crate) fn load(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> Handled<Loaded> {
    let Some(row) = store::board(ctx.conn, game.name(), number)? else {
        return Err(no_such_board(game, number).into());
    };
    let played = store::ply_count(ctx.conn, game.name(), number)?;
    let (resume_ply, from) = match store::resume_point(ctx.conn, game.name(), number)? {
        (ply, Some(text)) if ply <= played => (ply, text),
        _ => (0, row.start_position.clone()),
    };
    let first = resume_ply.min(played.saturating_sub(RECENT_PLIES as u32 + 1));
    let plies = store::plies_after(ctx.conn, game.name(), number, first)?;
    let after_resume = (resume_ply - first) as usize;
    let position = replay_from(game, &row, &from, &plies[after_resume.min(plies.len())..])?;
    Ok(Loaded {
        row,
        played,
        plies,
        position,
    })
}

/// Judge and apply a board move of the player in `seat` (whose turn it is)
/// and store it: the ply, the position, the end of a pending proposal and,
/// when the move ends the game, the result. Returns the rating sentences of
/// a finished game, or the rules' refusal (nothing changed then).
/// `from_queue` marks a ply played from the player's queue (listed
/// `(Auto)`).
pub(crate) fn apply_move(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    loaded: &mut Loaded,
    seat: usize,
    text: &str,
    comment: String,
    from_queue: bool,
) -> Handled<Result<Vec<String>, rules::MoveError>> {
    let number = loaded.row.board;
    let played = match loaded.position.play(text) {
        Ok(played) => played,
        Err(e) => return Ok(Err(e)),
    };
    let ply = Ply {
        ply: loaded.played + 1,
        seat,
        notation: played.notation,
        events: played.events,
        comment,
        played_at: ctx.now,
        auto: from_queue,
    };
    store::append_ply(ctx.conn, game.name(), number, &ply)?;
    loaded.played = ply.ply;
    let text = loaded.position.to_text();
    if loaded.position.history_plies() == 0 {
        // Nothing before this ply matters to the rules any more.
        store::set_resume_point(ctx.conn, game.name(), number, ply.ply, Some(&text))?;
    }
    loaded.plies.push(ply);
    store::update_position(ctx.conn, game.name(), number, &text, ctx.now)?;
    loaded.row.last_action_at = ctx.now;
    if loaded.row.proposal.is_some() {
        store::set_proposal(ctx.conn, game.name(), number, None)?;
        loaded.row.proposal = None;
    }
    Ok(Ok(match loaded.position.outcome() {
        rules::Outcome::Ongoing => vec![],
        rules::Outcome::Won { winner, ending } => {
            finish(ctx, loaded, Some(winner.index()), &ending.to_string())?
        }
        rules::Outcome::Drawn { ending } => finish(ctx, loaded, None, &ending.to_string())?,
    }))
}

/// End a board and rate it; returns the rating sentences.
pub(crate) fn finish(
    ctx: &Ctx<'_>,
    loaded: &mut Loaded,
    winner: Option<usize>,
    ending: &str,
) -> Handled<Vec<String>> {
    finish_unrated(ctx, loaded, winner, ending)?;
    let game = loaded.row.game.clone();
    let players = loaded.row.players.clone();
    let [a, b] = players.as_slice() else {
        return Ok(vec![]);
    };
    let current = |userid: &str| -> Handled<store::Rating> {
        Ok(
            store::rating(ctx.conn, &game, userid)?.unwrap_or(store::Rating {
                rating: ratings::START_RATING,
                games: 0,
            }),
        )
    };
    let (ra, rb) = (current(a)?, current(b)?);
    let score = match winner {
        Some(0) => Score::Win,
        Some(_) => Score::Loss,
        None => Score::Draw,
    };
    let (na, nb) = ratings::update(ra.rating, rb.rating, score);
    store::set_rating(
        ctx.conn,
        &game,
        a,
        store::Rating {
            rating: na,
            games: ra.games + 1,
        },
    )?;
    store::set_rating(
        ctx.conn,
        &game,
        b,
        store::Rating {
            rating: nb,
            games: rb.games + 1,
        },
    )?;
    Ok(vec![
        ratings::change_sentence(a, ra.rating, na),
        ratings::change_sentence(b, rb.rating, nb),
    ])
}

/// Finish a board without rating it (see [`finish`]); no rating lines.
pub(crate) fn finish_unrated(
    ctx: &Ctx<'_>,
    loaded: &mut Loaded,
    winner: Option<usize>,
    ending: &str,
) -> Handled<Vec<String>> {
    let game = loaded.row.game.clone();
    store::finish_board(ctx.conn, &game, loaded.row.board, winner, ending, ctx.now)?;
    store::clear_pending_moves(ctx.conn, &game, loaded.row.board)?;
    loaded.row.finished_at = Some(ctx.now);
    loaded.row.status = BoardStatus::Finished {
        winner_seat: winner,
        ending: ending.to_string(),
    };
    Ok(vec![])
}
