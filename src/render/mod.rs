//! Boards and move lists as text. Pure: no I/O.

use crate::command::BoardSize;
use crate::rules::Diagram;

/// Draw a position's diagram in the player's chosen size (commands.md §6).
pub fn board(diagram: &Diagram, size: BoardSize) -> String {
    let _ = (diagram, size);
    todo!("render::board")
}
