//! Whether a move can be queued: legal after at least one of the answers
//! the opponent can make now (docs/commands.md: `queue`). A game question, so
//! it lives with the rules; the server decides what to say.
//!
//! The walk follows the actions from the position until the queuer has a
//! turn of their own (the opponent's move, and the decisions it may set
//! off, such as Shadow reveals, which can alternate between the players)
//! and tries the queued move there. It walks by [`Position::any_successor`],
//! so no notation is written or read on the way, and stops at the first
//! answer after which the move is legal: in a game with thousands of
//! actions per position, a move legal after the first answer costs one
//! position's actions, and one refused everywhere costs a read of the move
//! in each position the walk reaches, at most [`POSITIONS`] of them.

use super::{Color, MoveError, Position};

/// How many actions the walk follows before the queuer's turn.
pub const DEPTH: u32 = 4;
/// How many positions the walk may look at.
pub const POSITIONS: u32 = 5_000;

/// Whether `text` is legal for `queuer` after some answer from `position`
/// (where the opponent acts). `Err` carries what the first try said (an
/// unreadable move, or why it is illegal). A walk that runs out of depth
/// or of positions gives the move the benefit of the doubt, and so does a
/// position where the game ends before the queuer's turn.
pub fn legal_after_some_answer(
    position: &dyn Position,
    queuer: Color,
    text: &str,
) -> Result<(), MoveError> {
    let mut first_error = None;
    let mut budget = POSITIONS;
    if walk(position, queuer, text, DEPTH, &mut budget, &mut first_error) {
        return Ok(());
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Walk the actions from `position` until `queuer` has a turn (not a
/// decision), and try `text` there: whether it is legal in some position
/// reached. Errors of the tries are kept in `first_error`.
fn walk(
    position: &dyn Position,
    queuer: Color,
    text: &str,
    depth: u32,
    budget: &mut u32,
    first_error: &mut Option<MoveError>,
) -> bool {
    if *budget == 0 || depth == 0 {
        return true;
    }
    *budget -= 1;
    if position.to_act() == queuer && !position.is_decision() {
        return match position.clone_box().play(text) {
            Ok(_) => true,
            Err(e) => {
                first_error.get_or_insert(e);
                false
            }
        };
    }
    let mut any_action = false;
    let found = position.any_successor(&mut |after| {
        any_action = true;
        walk(after, queuer, text, depth - 1, budget, first_error)
    });
    // No action at all: the game ends first, nothing to refuse.
    found || (!any_action && first_error.is_none())
}
