//! Move lists in move pairs, two columns.

use rules::Color;
use std::fmt::Write;

/// One ply of a game as stored: its number (from 1), the seat that played
/// it, its canonical notation, a mark written after it
/// (`(Auto)` for a ply played from the player's queue, `(Cond)` from
/// their conditional moves, `(preview)` for a
/// hypothetical one; empty for none), and the automatic consequences told
/// to the players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    pub ply: u32,
    pub seat: Color,
    pub notation: String,
    pub mark: &'static str,
    pub events: Vec<String>,
}

/// The mark of a ply played from the player's queue.
pub const AUTO: &str = "(Auto)";

/// The mark of a ply played from the player's conditional moves.
pub const COND: &str = "(Cond)";

impl MoveRecord {
    /// A ply of a game where the seats alternate from White: odd plies are
    /// White's.
    pub fn new(ply: u32, notation: impl Into<String>) -> MoveRecord {
        MoveRecord {
            ply,
            seat: if ply % 2 == 1 {
                Color::White
            } else {
                Color::Black
            },
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

/// The canonical notation of every decision the games ask for: Shadow
/// Chess's `reveal <square>` (`rules::shadow::notation`), the only one.
/// Decisions are told from turns by their notation alone, so that a stored
/// ply (whose row holds no more) is numbered the same way everywhere:
/// here, in the PGN record and in `store`'s move-list lines.
pub const DECISION_PREFIX: &str = "reveal ";

/// Whether a canonical notation is a decision (see [`DECISION_PREFIX`]).
pub fn is_decision(notation: &str) -> bool {
    notation.starts_with(DECISION_PREFIX)
}

/// The number a move list gives a ply (see [`Numbering`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbered {
    /// A White turn: it opens line `n` (`n. e4`).
    White(u32),
    /// A Black turn that opens line `n` of its own, White's half empty
    /// (`n...e5`: Black acts first, or again).
    BlackOpens(u32),
    /// A Black turn that closes line `n`, opened by White's turn.
    BlackCloses(u32),
    /// A decision: part of the move that set it off, no number.
    Decision,
}

impl Numbered {
    /// The ply written inline, as a line of moves in a text writes it:
    /// `5. Nf3`, `5...e5`, `e5`, `reveal d5`. A Black turn that closes a
    /// line is numbered too where a drawn row starts with it (`5...e5`),
    /// since White's half is not beside it there.
    pub fn written(self, notation: &str, row_start: bool) -> String {
        match self {
            Numbered::White(n) => format!("{n}. {notation}"),
            Numbered::BlackOpens(n) => format!("{n}...{notation}"),
            Numbered::BlackCloses(n) if row_start => format!("{n}...{notation}"),
            Numbered::BlackCloses(_) | Numbered::Decision => notation.to_string(),
        }
    }
}

/// How a move list numbers plies, one after the other: a White turn opens
/// a line; a Black turn closes the line of the White turn before it, or
/// opens a line of its own when Black acts first or again; a decision
/// takes no number. The one place of that rule: the move list's lines
/// (`pairs`) and the numbers of a line of conditional moves come from
/// it.
#[derive(Clone, Copy, Debug)]
pub struct Numbering {
    /// Lines of the list so far.
    pub lines: u32,
    /// The last line holds a White turn still waiting for Black's.
    pub white_open: bool,
}

impl Numbering {
    /// After `lines_before` lines of a game's list (`white_open` as in
    /// [`move_list_after`]).
    pub fn after(lines_before: u32, white_open: bool) -> Numbering {
        Numbering {
            lines: lines_before,
            white_open,
        }
    }

    /// The number of the next ply, by `seat`, a decision when `decision`.
    pub fn next(&mut self, seat: Color, decision: bool) -> Numbered {
        if decision {
            Numbered::Decision
        } else if seat == Color::White {
            self.lines += 1;
            self.white_open = true;
            Numbered::White(self.lines)
        } else if self.white_open {
            self.white_open = false;
            Numbered::BlackCloses(self.lines)
        } else {
            self.lines += 1;
            Numbered::BlackOpens(self.lines)
        }
    }
}

/// One line of the list: a move number, White's cell and Black's. A cell
/// holds a turn ply and the decisions that follow it (whoever makes them):
/// a decision is part of the move that set it off, and takes no number.
pub(super) struct Pair<'a> {
    pub number: u32,
    pub white: Vec<&'a MoveRecord>,
    pub black: Vec<&'a MoveRecord>,
    /// A line begun before the plies given (only its later plies are
    /// here): paired, but not written.
    pub hidden: bool,
}

/// The plies paired into moves: a White turn opens a line; a Black turn
/// closes the line of the White turn before it, or opens a line of its
/// own (`...` for White's half) when Black acts first or again; a decision
/// joins the cell of the ply before it. `lines_before` lines come before
/// the first ply; with `white_open` the last of them holds a White turn
/// still waiting for Black's (its plies are not in `plies`), and `plies`
/// may begin with the rest of that line, which is paired but hidden.
pub(super) fn pairs(plies: &[MoveRecord], lines_before: u32, white_open: bool) -> Vec<Pair<'_>> {
    let mut out: Vec<Pair<'_>> = vec![Pair {
        number: lines_before,
        white: Vec::new(),
        black: Vec::new(),
        hidden: true,
    }];
    let mut numbering = Numbering::after(lines_before, white_open);
    for p in plies {
        let line = out.last_mut().expect("a line");
        match numbering.next(p.seat, is_decision(&p.notation)) {
            Numbered::Decision if line.black.is_empty() => line.white.push(p),
            Numbered::Decision | Numbered::BlackCloses(_) => line.black.push(p),
            Numbered::White(number) => out.push(Pair {
                number,
                white: vec![p],
                black: Vec::new(),
                hidden: false,
            }),
            Numbered::BlackOpens(number) => out.push(Pair {
                number,
                white: Vec::new(),
                black: vec![p],
                hidden: false,
            }),
        }
    }
    out.retain(|l| !l.hidden);
    out
}

/// The plies of a whole game (from ply 1) paired as the move list pairs
/// them: each line's move number, White's cell and Black's (a cell: a
/// turn and the decisions that follow it), for a list drawn elsewhere
/// (the web site's table).
pub fn move_lines(plies: &[MoveRecord]) -> Vec<(u32, Vec<&MoveRecord>, Vec<&MoveRecord>)> {
    pairs(plies, 0, false)
        .into_iter()
        .map(|p| (p.number, p.white, p.black))
        .collect()
}

/// A cell's plies as listed, one space apart.
fn cell(plies: &[&MoveRecord]) -> String {
    let shown: Vec<String> = plies.iter().map(|p| p.shown()).collect();
    shown.join(" ")
}

/// The longest line of a move list: a mail line's 78 columns.
const LINE: usize = 78;

/// The widest first column: a longer White cell (a turn and a chain of
/// reveals) runs over into the gap instead of widening every line.
const COLUMN: usize = 36;

/// The move list of a game's plies (all of them, in order from ply 1):
/// ` 9. Nf3      Nc6`, numbers right-aligned, the second column aligned
/// (a line that would run over 78 columns writes Black's cell on a line
/// of its own under it);
/// each event on its own line under its move, indented to the first
/// column. With `recent`, only the lines holding the last `recent` plies.
/// Empty for no plies.
pub fn move_list(plies: &[MoveRecord], recent: Option<usize>) -> String {
    move_list_after(plies, recent, 0, false)
}

/// [`move_list`] of the plies after line `lines_before` of the game's
/// list (a game's later plies, without reading the earlier ones); with
/// `white_open` that line holds a White turn waiting for Black's, and the
/// plies that finish it are left out (see `pairs`).
pub fn move_list_after(
    plies: &[MoveRecord],
    recent: Option<usize>,
    lines_before: u32,
    white_open: bool,
) -> String {
    let lines = pairs(plies, lines_before, white_open);
    let first_shown = recent.map_or(0, |n| {
        let cut = plies.len().saturating_sub(n);
        plies.get(cut).map_or(lines.len(), |first| {
            lines
                .iter()
                .position(|l| l.white.iter().chain(&l.black).any(|q| q.ply >= first.ply))
                .unwrap_or(lines.len())
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
        .filter(|l| !l.white.is_empty())
        .map(|l| cell(&l.white).chars().count())
        .max()
        .unwrap_or(3)
        .clamp(8, COLUMN);
    let indent = " ".repeat(width + 2);
    let mut out = String::new();
    for line in shown {
        let white = if line.white.is_empty() {
            "...".to_string()
        } else {
            cell(&line.white)
        };
        let black = cell(&line.black);
        let text = format!("{:>width$}. {white:<column$}   {black}", line.number);
        let text = text.trim_end();
        if text.chars().count() <= LINE {
            let _ = writeln!(out, "{text}");
        } else {
            // Too long for one line (a cell with a chain of reveals):
            // Black's cell goes under, in its column if it fits there.
            let _ = writeln!(out, "{:>width$}. {white}", line.number);
            let second = width + 2 + column + 3;
            let pad = if second + black.chars().count() <= LINE {
                " ".repeat(second)
            } else {
                indent.clone()
            };
            let _ = writeln!(out, "{pad}{black}");
        }
        for p in line.white.iter().chain(&line.black) {
            for event in &p.events {
                for event_line in event.lines() {
                    let _ = writeln!(out, "{}", format!("{indent}{event_line}").trim_end());
                }
            }
        }
    }
    out
}
