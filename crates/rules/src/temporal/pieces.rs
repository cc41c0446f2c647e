//! The pieces of Temporal Chess: six kinds (the unicorn replaces the pawn),
//! a piece as owner and kind, and a reserve as counts.

use std::fmt;

use super::super::Color;

/// A kind of piece, in the order position texts list reserves: K Q R B N U.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    King,
    Queen,
    Rook,
    Bishop,
    Knight,
    Unicorn,
}

impl Kind {
    /// Every kind, in reserve order.
    pub const ALL: [Kind; 6] = [
        Kind::King,
        Kind::Queen,
        Kind::Rook,
        Kind::Bishop,
        Kind::Knight,
        Kind::Unicorn,
    ];

    /// The kinds a player may drop once the kings are placed.
    pub const DROPPED: [Kind; 5] = [
        Kind::Queen,
        Kind::Rook,
        Kind::Bishop,
        Kind::Knight,
        Kind::Unicorn,
    ];

    /// Position in [`Kind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The upper-case letter: `K Q R B N U`.
    pub fn letter(self) -> char {
        match self {
            Kind::King => 'K',
            Kind::Queen => 'Q',
            Kind::Rook => 'R',
            Kind::Bishop => 'B',
            Kind::Knight => 'N',
            Kind::Unicorn => 'U',
        }
    }

    /// The kind a letter names, in either case.
    pub fn from_letter(letter: char) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.letter() == letter.to_ascii_uppercase())
    }

    /// The name players read: `knight`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::King => "king",
            Kind::Queen => "queen",
            Kind::Rook => "rook",
            Kind::Bishop => "bishop",
            Kind::Knight => "knight",
            Kind::Unicorn => "unicorn",
        }
    }

    /// `a knight`, `2 knights`.
    pub fn counted(self, n: u8) -> String {
        match n {
            1 => format!("a {}", self.name()),
            _ => format!("{n} {}s", self.name()),
        }
    }
}

/// One piece: its owner and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
}

impl Piece {
    pub fn new(color: Color, kind: Kind) -> Piece {
        Piece { color, kind }
    }

    /// `White's knight`.
    pub fn described(self) -> String {
        format!("{}'s {}", self.color.name(), self.kind.name())
    }
}

/// What a player still holds off the field: a count per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Reserve {
    counts: [u8; 6],
}

impl Reserve {
    /// The most of each kind a reserve holds: the starting set.
    pub const FULL: Reserve = Reserve {
        counts: [1, 1, 2, 2, 2, 8],
    };

    pub fn count(self, kind: Kind) -> u8 {
        self.counts[kind.index()]
    }

    pub fn is_empty(self) -> bool {
        self.counts.iter().all(|&n| n == 0)
    }

    /// One piece of `kind` leaves the reserve (a drop); no-op at zero.
    pub fn take(&mut self, kind: Kind) {
        let n = &mut self.counts[kind.index()];
        *n = n.saturating_sub(1);
    }

    /// A reserve with `n` of `kind`, if no more than the starting set.
    pub fn with(mut self, kind: Kind, n: u8) -> Option<Reserve> {
        (n <= Reserve::FULL.count(kind)).then(|| {
            self.counts[kind.index()] = n;
            self
        })
    }

    /// The kinds held, with counts, in reserve order.
    pub fn held(self) -> impl Iterator<Item = (Kind, u8)> {
        Kind::ALL
            .into_iter()
            .map(move |k| (k, self.count(k)))
            .filter(|&(_, n)| n > 0)
    }

    /// `a queen, 2 rooks and 8 unicorns`, or `nothing`.
    pub fn described(self) -> String {
        let parts: Vec<String> = self.held().map(|(k, n)| k.counted(n)).collect();
        if parts.is_empty() {
            "nothing".into()
        } else {
            super::super::orthodox::read::and_list(&parts)
        }
    }
}

/// Position-text form: `Q1R2B2N2U8`, or `-` when empty.
impl fmt::Display for Reserve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("-");
        }
        for (k, n) in self.held() {
            write!(f, "{}{n}", k.letter())?;
        }
        Ok(())
    }
}
