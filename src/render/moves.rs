//! Move lists in move pairs, two columns.

use std::fmt::Write;

/// One ply of a game as stored: its number (from 1), the seat that played
/// it (0 White, 1 Black), its canonical notation, a mark written after it
/// (`(Auto)` for a ply played from the player's queue, `(preview)` for a
/// hypothetical one; empty for none), and the automatic consequences told
/// to the players.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveRecord {
    pub ply: u32,
    pub seat: usize,
    pub notation: String,
    pub mark: &'static str,
    pub events: Vec<String>,
}

/// The mark of a ply played from the player's queue.
pub const AUTO: &str = "(Auto)";

impl MoveRecord {
    /// A ply of a game where the seats alternate from White: odd plies are
    /// White's.
    pub fn new(ply: u32, notation: impl Into<String>) -> MoveRecord {
        MoveRecord {
            ply,
            seat: if ply % 2 == 1 { 0 } else { 1 },
            notation: notation.into(),
            mark: "",
            events: Vec::new(),
        }
    }

    /// The notation as listed, with its mark.
    fn shown(&self) -> String {
        if self.mark.is_empty() {
            self.notation.clone()
        } else {
            format!("{} {}", self.notation, self.mark)
        }
    }
}

/// One line of the list: a move number, White's ply and Black's answer.
struct Pair<'a> {
    number: u32,
    white: Option<&'a MoveRecord>,
    black: Option<&'a MoveRecord>,
}

/// The plies paired into moves: a line starts with a White ply (or with
/// `...` when Black acts first or again); a Black ply closes its line.
fn pairs(plies: &[MoveRecord], lines_before: u32) -> Vec<Pair<'_>> {
    let mut out: Vec<Pair<'_>> = Vec::new();
    for p in plies {
        let open = out.last_mut().filter(|l| l.black.is_none());
        match (p.seat, open) {
            (0, Some(line)) if line.white.is_none() => line.white = Some(p),
            (0, _) => out.push(Pair {
                number: lines_before + out.len() as u32 + 1,
                white: Some(p),
                black: None,
            }),
            (_, Some(line)) => line.black = Some(p),
            (_, None) => out.push(Pair {
                number: lines_before + out.len() as u32 + 1,
                white: None,
                black: Some(p),
            }),
        }
    }
    out
}

/// The move list of a game's plies (all of them, in order from ply 1):
/// ` 9. Nf3      Nc6`, numbers right-aligned, the second column aligned;
/// each event on its own line under its move, indented to the first
/// column. With `recent`, only the lines holding the last `recent` plies.
/// Empty for no plies.
pub fn move_list(plies: &[MoveRecord], recent: Option<usize>) -> String {
    move_list_after(plies, recent, 0)
}

/// [`move_list`] of the plies from the start of line `lines_before + 1` of
/// the game's list on (a game's later plies, without reading the earlier
/// ones: `plies` must begin a line).
pub fn move_list_after(plies: &[MoveRecord], recent: Option<usize>, lines_before: u32) -> String {
    let lines = pairs(plies, lines_before);
    let first_shown = recent.map_or(0, |n| {
        let cut = plies.len().saturating_sub(n);
        plies.get(cut).map_or(lines.len(), |first| {
            lines
                .iter()
                .position(|l| {
                    l.white
                        .into_iter()
                        .chain(l.black)
                        .any(|q| q.ply == first.ply)
                })
                .unwrap_or(0)
        })
    });
    let shown = &lines[first_shown..];
    let width = shown
        .iter()
        .map(|l| l.number.to_string().len())
        .max()
        .unwrap_or(1);
    let column = shown
        .iter()
        .filter_map(|l| l.white.map(|w| w.shown().chars().count()))
        .max()
        .unwrap_or(3)
        .max(8);
    let indent = " ".repeat(width + 2);
    let mut out = String::new();
    for line in shown {
        let white = line
            .white
            .map_or_else(|| "...".to_string(), MoveRecord::shown);
        let black = line.black.map(MoveRecord::shown).unwrap_or_default();
        let text = format!("{:>width$}. {white:<column$}   {black}", line.number);
        let _ = writeln!(out, "{}", text.trim_end());
        for p in line.white.into_iter().chain(line.black) {
            for event in &p.events {
                for event_line in event.lines() {
                    let _ = writeln!(out, "{}", format!("{indent}{event_line}").trim_end());
                }
            }
        }
    }
    out
}
