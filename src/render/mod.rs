//! Boards and move lists as text. Pure: no I/O.

use crate::command::BoardSize;
use crate::rules::Diagram;

/// Draw a position's diagram in the player's chosen size (commands.md §6).
pub fn board(diagram: &Diagram, size: BoardSize) -> String {
    let _ = (diagram, size);
    todo!("render::board")
}

/// One ply of a move list. (Temporary until the render branch lands.)
pub struct MoveLine {
    pub ply: u32,
    pub notation: String,
    pub events: Vec<String>,
}

pub fn move_list(lines: &[MoveLine]) -> String {
    let _ = lines;
    todo!()
}
