//! A board as the commands work on it: loaded from the store with its plies
//! and the position they lead to, and the writes that change it (a ply
//! played, a game finished and rated).

use super::compose::{BoardView, Occasion};
use super::{Ctx, Handled, Refusal, ServerError};
use crate::command::BoardFilter;
use crate::ratings::{self, Score};
use crate::rules::{self, Game, Position};
use crate::store::{self, BoardStatus, Ply};

/// A board with its plies and the position they lead to.
pub(crate) struct Loaded {
    pub row: store::BoardRow,
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
        }
    }
}

/// The position the stored plies lead to from the board's start.
pub(crate) fn replay(
    game: &'static dyn Game,
    row: &store::BoardRow,
    plies: &[Ply],
) -> Result<Box<dyn Position>, ServerError> {
    let corrupt = |reason: String| ServerError::Replay {
        game: row.game.clone(),
        board: row.board,
        reason,
    };
    let mut position = game
        .position(&row.start_position, &row.options)
        .map_err(|e| corrupt(e.to_string()))?;
    for ply in plies {
        position
            .play(&ply.notation)
            .map_err(|e| corrupt(format!("ply {}: {e}", ply.ply)))?;
    }
    Ok(position)
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
    let plies = store::plies(ctx.conn, game.name(), number)?;
    let position = replay(game, &row, &plies)?;
    Ok(Loaded {
        row,
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
        ply: loaded.plies.len() as u32 + 1,
        seat,
        notation: played.notation,
        events: played.events,
        comment,
        played_at: ctx.now,
        auto: from_queue,
    };
    store::append_ply(ctx.conn, game.name(), number, &ply)?;
    loaded.plies.push(ply);
    store::update_position(
        ctx.conn,
        game.name(),
        number,
        &loaded.position.to_text(),
        ctx.now,
    )?;
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
    let game = loaded.row.game.clone();
    store::finish_board(ctx.conn, &game, loaded.row.board, winner, ending, ctx.now)?;
    store::clear_pending_moves(ctx.conn, &game, loaded.row.board)?;
    loaded.row.finished_at = Some(ctx.now);
    loaded.row.status = BoardStatus::Finished {
        winner_seat: winner,
        ending: ending.to_string(),
    };
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
