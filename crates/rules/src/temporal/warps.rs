//! Time warps: a vanished piece or a countered original, its counters,
//! and the sentences players read about them (the automatic events of a
//! turn, the running warps under the board, refusals).
//!
//! Counters count the owner's turns: after the owner's turn a warp with
//! `n` counters ends at the end of the owner's `n`-th following turn
//! (docs/rules.md §5: one counter comes off at the end of each of the owner's
//! turns after the creating one).

use super::super::Color;
use super::field::cell;
use super::pieces::{Kind, Piece};

/// What a warp holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpKind {
    /// A piece of this kind has vanished (warped into the future).
    Vanished(Kind),
    /// The active piece on the warp's cell is an original whose duplicate
    /// came back from the future; it is removed at zero.
    Original,
}

/// One player's warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Warp {
    pub kind: WarpKind,
    /// The cell (index) of the vanished piece or of the original.
    pub cell: u8,
    /// Counters left, 1 to 6.
    pub counters: u8,
}

/// The most counters a warp may carry.
pub const MAX_COUNTERS: u8 = 6;

/// `after 3 more of White's turns`, `at the end of White's next turn`,
/// `at the end of this turn` (with `now`: it is the owner's turn and the
/// counters are those its turn began with).
fn when(counters: u8, owner: &str, now: bool) -> String {
    match (counters, now) {
        (1, true) => "at the end of this turn".into(),
        (1, false) => format!("at the end of {owner} next turn"),
        (n, _) => format!("after {n} more of {owner} turns"),
    }
}

fn owner(color: Color, yours: bool) -> String {
    if yours {
        "your".into()
    } else {
        format!("{}'s", color.name())
    }
}

/// The running warp of `piece`'s owner, for the notes under the board:
/// `White's knight has vanished on Ab1 (2 counters): it reappears after 2
/// more of White's turns.`
pub fn note(warp: Warp, piece: Piece) -> String {
    let whose = owner(piece.color, false);
    let counters = match warp.counters {
        1 => "1 counter".to_string(),
        n => format!("{n} counters"),
    };
    match warp.kind {
        WarpKind::Vanished(_) => format!(
            "{} has vanished on {} ({counters}): it reappears {}.",
            piece.described(),
            cell(warp.cell),
            when(warp.counters, &whose, false)
        ),
        WarpKind::Original => format!(
            "{} on {} is an original ({counters}): it is removed {}; capturing it wins for {}.",
            piece.described(),
            cell(warp.cell),
            when(warp.counters, &whose, false),
            piece.color.opponent().name()
        ),
    }
}

/// Why no new warp may start: `you already have a warp running: the
/// vanished knight on Ab1 reappears after 2 more of your turns.`
pub fn running(warp: Warp, piece: Piece) -> String {
    let what = match warp.kind {
        WarpKind::Vanished(_) => format!(
            "the vanished {} on {} reappears {}",
            piece.kind.name(),
            cell(warp.cell),
            when(warp.counters, "your", true)
        ),
        WarpKind::Original => format!(
            "your original {} on {} is removed {}",
            piece.kind.name(),
            cell(warp.cell),
            when(warp.counters, "your", true)
        ),
    };
    format!("you already have a warp running: {what}; a player has one warp at a time, and a new one may start on the turn after it ends.")
}

/// Why a vanished piece cannot act: `your knight on Ab1 has vanished; it
/// reappears at the end of this turn`.
pub fn vanished_piece(warp: Warp, piece: Piece) -> String {
    format!(
        "your {} on {} has vanished and cannot act until it reappears {}.",
        piece.kind.name(),
        cell(warp.cell),
        when(warp.counters, "your", true)
    )
}

/// What happened automatically in a turn, told to the players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The turn's action started a vanish warp.
    Vanished {
        piece: Piece,
        cell: u8,
        counters: u8,
    },
    /// The turn's action started a clone warp.
    Cloned {
        piece: Piece,
        from: u8,
        to: u8,
        counters: u8,
    },
    /// A counter came off a warp, which goes on (`warp` as it is now).
    CounterOff { piece: Piece, warp: Warp },
    /// The last counter came off an original: it is removed.
    Expired { piece: Piece, cell: u8 },
    /// The last counter came off a vanished piece: it is back, capturing
    /// what stood there.
    Reappeared {
        piece: Piece,
        cell: u8,
        captured: Option<Piece>,
    },
    /// An original was captured: its captor wins.
    Paradox { original: Piece, cell: u8 },
}

impl Event {
    /// The sentence players read.
    pub fn sentence(&self) -> String {
        match *self {
            Event::Vanished {
                piece,
                cell: c,
                counters,
            } => format!(
                "{} on {} vanishes with {} counter{}: it reappears {}.",
                piece.described(),
                cell(c),
                counters,
                plural(counters),
                when(counters, &owner(piece.color, false), false)
            ),
            Event::Cloned {
                piece,
                from,
                to,
                counters,
            } => format!(
                "A duplicate of {} on {} arrives on {}; the original carries {} counter{} and is removed {}; capturing it wins for {}.",
                piece.described(),
                cell(from),
                cell(to),
                counters,
                plural(counters),
                when(counters, &owner(piece.color, false), false),
                piece.color.opponent().name()
            ),
            Event::CounterOff { piece, warp } => counter_off(piece, warp),
            Event::Expired { piece, cell: c } => format!(
                "The last counter comes off {}'s original {} on {}: it is removed from the game.",
                piece.color.name(),
                piece.kind.name(),
                cell(c)
            ),
            Event::Reappeared {
                piece,
                cell: c,
                captured,
            } => reappeared(piece, c, captured),
            Event::Paradox { original, cell: c } => format!(
                "{}'s original {} on {} is captured: a paradox, so {} wins.",
                original.color.name(),
                original.kind.name(),
                cell(c),
                original.color.opponent().name()
            ),
        }
    }
}

/// A counter came off a warp that goes on.
fn counter_off(piece: Piece, warp: Warp) -> String {
    let whose = owner(piece.color, false);
    let left = format!("{} counter{} left", warp.counters, plural(warp.counters));
    match warp.kind {
        WarpKind::Vanished(_) => format!(
            "A counter comes off {} vanished {} on {}: {left}, it reappears {}.",
            whose,
            piece.kind.name(),
            cell(warp.cell),
            when(warp.counters, &whose, false)
        ),
        WarpKind::Original => format!(
            "A counter comes off {} original {} on {}: {left}, it is removed {}.",
            whose,
            piece.kind.name(),
            cell(warp.cell),
            when(warp.counters, &whose, false)
        ),
    }
}

/// A vanished piece is back on `c`, capturing what stood there.
fn reappeared(piece: Piece, c: u8, captured: Option<Piece>) -> String {
    let base = format!(
        "The last counter comes off {}'s vanished {}: it reappears on {}",
        piece.color.name(),
        piece.kind.name(),
        cell(c)
    );
    match captured {
        None => format!("{base}."),
        Some(p) if p.color == piece.color => {
            format!("{base} and captures its own {} there.", p.kind.name())
        }
        Some(p) => format!("{base} and captures {} there.", p.described()),
    }
}

fn plural(n: u8) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
