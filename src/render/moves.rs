//! Move lists, one ply a line.

use std::fmt::Write;

/// One ply of a game as stored: its number (from 1), its canonical notation
/// and the automatic consequences told to the players.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveRecord {
    pub ply: u32,
    pub notation: String,
    pub events: Vec<String>,
}

impl MoveRecord {
    pub fn new(ply: u32, notation: impl Into<String>) -> MoveRecord {
        MoveRecord {
            ply,
            notation: notation.into(),
            events: Vec::new(),
        }
    }
}

impl From<(u32, String, Vec<String>)> for MoveRecord {
    fn from((ply, notation, events): (u32, String, Vec<String>)) -> MoveRecord {
        MoveRecord {
            ply,
            notation,
            events,
        }
    }
}

/// The plies given (all of a game, or the recent ones), one a line:
/// ` 9. Nf3`, numbers right-aligned to the widest, each event on its own
/// line under its ply, indented to the notation. Empty for no plies.
pub fn move_list(plies: &[MoveRecord]) -> String {
    let width = plies
        .iter()
        .map(|p| p.ply.to_string().len())
        .max()
        .unwrap_or(1);
    let indent = " ".repeat(width + 2);
    let mut out = String::new();
    for p in plies {
        let line = format!("{:>width$}. {}", p.ply, p.notation);
        let _ = writeln!(out, "{}", line.trim_end());
        for event in &p.events {
            for event_line in event.lines() {
                let _ = writeln!(out, "{}", format!("{indent}{event_line}").trim_end());
            }
        }
    }
    out
}
