//! The one way a board act finds its player: [`seat`] loads the board,
//! authenticates the player, seats them on it, and checks that the board
//! has not ended and that the act's `#N` guard names the next ply. Every
//! refusal of it carries the board (its drawing goes under the sentence).

use super::loaded::{load, Loaded};
use super::{Ctx, Failure, Handled, Refusal};
use crate::store::{self, BoardStatus};
use game::command::Credentials;
use rules::{Color, Game};

/// A board loaded and the player seated on it.
pub(crate) struct Seated {
    pub loaded: Loaded,
    pub user: store::User,
    pub seat: Color,
}

/// Board `number` of `game` loaded, and the player `who` names
/// authenticated and seated on it. Refused when there is no such board,
/// the password is wrong, `who` does not play on it, the board is over,
/// or `guard` (`#N`) is not the next ply. `None` checks no ply: a verb
/// without a guard, or one that reads its own (`queue`).
pub(crate) fn seat(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
    guard: Option<u32>,
) -> Handled<Seated> {
    let on_board = |f: Failure| f.on_board(game.name(), Some(number));
    let refuse = |sentence: String| -> Failure {
        Refusal::new(sentence).on(game.name(), Some(number)).into()
    };
    let loaded = load(ctx, game, number).map_err(on_board)?;
    let user = ctx.authenticate(who).map_err(on_board)?;
    let Some(seat) = loaded.row.seat_of(&user.userid) else {
        return Err(refuse(format!(
            "{} does not play on {} board {number}; check the board number.",
            user.userid,
            game.name()
        )));
    };
    if let BoardStatus::Finished { .. } = loaded.row.status {
        return Err(refuse(format!(
            "{} board {number} is over; nothing more can be played on it.",
            game.title()
        )));
    }
    let next_ply = loaded.played + 1;
    if let Some(n) = guard.filter(|&n| n != next_ply) {
        return Err(refuse(format!(
            "Your command is guarded as ply {n}, but the next ply on {} board {number} is {next_ply}; look at the board and send it again with #{next_ply} if it still fits.",
            game.name()
        )));
    }
    Ok(Seated { loaded, user, seat })
}
