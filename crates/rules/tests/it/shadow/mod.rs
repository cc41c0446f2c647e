//! Shadow Chess (docs/rules.md §4): the published counts, and every rule as a
//! scenario from position text.

use rules::{self, Color, Ending, MoveError, Outcome, Position};

mod castling_rights;
mod counts;
mod moves;
mod notation;
mod reveals;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -";

fn pos(text: &str) -> Box<dyn Position> {
    rules::game("shadowchess")
        .unwrap()
        .position(text, &[])
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play(p: &mut Box<dyn Position>, action: &str) -> Vec<String> {
    let before = p.to_text();
    match p.play(action) {
        Ok(played) => played.events,
        Err(e) => panic!("{before}: {action} refused: {e}"),
    }
}

fn main_board(p: &dyn Position) -> String {
    p.to_text().split(' ').next().unwrap().to_string()
}

fn shadow_board(p: &dyn Position) -> String {
    p.to_text().split(' ').nth(1).unwrap().to_string()
}
