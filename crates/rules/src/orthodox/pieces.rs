//! Piece kinds, pieces, and the cell codes of the mailbox.
//!
//! # Cell codes
//! One byte a mailbox cell:
//!
//! | bits | meaning |
//! |---|---|
//! | 0–2 | the [`Kind`] (1 pawn … 6 king, 7 monarch; 0 empty) |
//! | 3 | set for a Black piece |
//! | 4–6 | the piece's [`Tag`]: an identity a variant gives a piece (a Doppelganger pair number); the core moves it with the piece and ignores it otherwise |
//! | 7 | set on the padding cells off the board |
//!
//! Movement and attacks compare only bits 0–3 (kind and colour), so a tag
//! never changes how a piece moves. King and monarch differ only in bit 0
//! (6 and 7), so one comparison with bit 0 set finds either; the attack
//! test relies on it.

use super::super::Color;

/// A kind of orthodox piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Pawn = 1,
    Knight = 2,
    Bishop = 3,
    Rook = 4,
    Queen = 5,
    King = 6,
    /// A variant's piece that steps like a king but is not royal (the Zelig
    /// family's zelig on the e-file): it attacks and gives check, may be
    /// attacked and taken, and may stand next to kings. No orthodox game
    /// has one; it has no FEN letter of its own (a variant's letter table
    /// names it).
    Monarch = 7,
}

impl Kind {
    /// The six orthodox kinds, in code order (the letters FEN and SAN know
    /// by default; [`Kind::Monarch`] is not among them).
    pub const ALL: [Kind; 6] = [
        Kind::Pawn,
        Kind::Knight,
        Kind::Bishop,
        Kind::Rook,
        Kind::Queen,
        Kind::King,
    ];

    /// FIDE promotion choices, in the order moves are generated.
    pub const PROMOTIONS: [Kind; 4] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight];

    /// Upper-case letter (`P N B R Q K`).
    pub fn letter(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
            Kind::Queen => 'Q',
            Kind::King => 'K',
            Kind::Monarch => 'M',
        }
    }

    /// English name, lower case.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Pawn => "pawn",
            Kind::Knight => "knight",
            Kind::Bishop => "bishop",
            Kind::Rook => "rook",
            Kind::Queen => "queen",
            Kind::King => "king",
            Kind::Monarch => "monarch",
        }
    }

    /// The kind named by a letter, either case (the FIDE letters; never
    /// [`Kind::Monarch`]).
    pub fn from_letter(c: char) -> Option<Kind> {
        let upper = c.to_ascii_uppercase();
        Kind::ALL.into_iter().find(|k| k.letter() == upper)
    }

    /// The kind in a cell code that holds a piece. Every kind code is
    /// decoded by name: a code without a kind is a bug in the core, never a
    /// silent king.
    pub(crate) fn from_code(code: u8) -> Kind {
        match code & KIND_MASK {
            PAWN => Kind::Pawn,
            KNIGHT => Kind::Knight,
            BISHOP => Kind::Bishop,
            ROOK => Kind::Rook,
            QUEEN => Kind::Queen,
            KING => Kind::King,
            MONARCH => Kind::Monarch,
            other => unreachable!("cell code {code:#04x} holds no piece kind ({other})"),
        }
    }
}

/// A variant's identity mark on a piece (0 = none, at most [`Tag::MAX`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Tag(u8);

impl Tag {
    /// No mark.
    pub const NONE: Tag = Tag(0);
    /// The largest tag a cell holds.
    pub const MAX: u8 = 7;

    /// A tag from 0 to [`Tag::MAX`].
    pub fn new(n: u8) -> Option<Tag> {
        (n <= Tag::MAX).then_some(Tag(n))
    }

    pub fn get(self) -> u8 {
        self.0
    }
}

/// A piece: owner and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
}

impl Piece {
    pub fn new(color: Color, kind: Kind) -> Piece {
        Piece { color, kind }
    }

    /// FEN letter: upper case White, lower case Black.
    pub fn fen_char(self) -> char {
        self.color.cased(self.kind.letter())
    }

    /// The piece a FEN letter names.
    pub fn from_fen_char(c: char) -> Option<Piece> {
        Some(Piece {
            color: Color::of_case(c),
            kind: Kind::from_letter(c)?,
        })
    }

    /// The cell code of this piece with no tag.
    pub(crate) fn code(self) -> u8 {
        self.kind as u8 | color_bit(self.color)
    }

    /// The piece in a cell code, `None` for empty and off-board cells.
    pub(crate) fn from_code(code: u8) -> Option<Piece> {
        if code == EMPTY || code & OFF != 0 {
            return None;
        }
        let color = if code & BLACK != 0 {
            Color::Black
        } else {
            Color::White
        };
        Some(Piece {
            color,
            kind: Kind::from_code(code),
        })
    }
}

// Cell codes of the mailbox (see the module docs).
pub(crate) const EMPTY: u8 = 0;
pub(crate) const OFF: u8 = 0x80;
pub(crate) const BLACK: u8 = 0x08;
pub(crate) const KIND_MASK: u8 = 0x07;
/// Kind and colour: what movement and attacks look at.
pub(crate) const PIECE_MASK: u8 = KIND_MASK | BLACK;
pub(crate) const TAG_SHIFT: u8 = 4;
pub(crate) const TAG_MASK: u8 = 0x70;
pub(crate) const PAWN: u8 = Kind::Pawn as u8;
pub(crate) const KNIGHT: u8 = Kind::Knight as u8;
pub(crate) const BISHOP: u8 = Kind::Bishop as u8;
pub(crate) const ROOK: u8 = Kind::Rook as u8;
pub(crate) const QUEEN: u8 = Kind::Queen as u8;
pub(crate) const KING: u8 = Kind::King as u8;
pub(crate) const MONARCH: u8 = Kind::Monarch as u8;

/// The colour bit of a side's cell codes.
pub(crate) fn color_bit(c: Color) -> u8 {
    match c {
        Color::White => 0,
        Color::Black => BLACK,
    }
}

/// Whether a cell holds a piece of the colour other than `mine` (a colour bit).
#[inline]
pub(crate) fn is_enemy(code: u8, mine: u8) -> bool {
    code != EMPTY && code & OFF == 0 && code & BLACK != mine
}

/// The tag in a cell code.
pub(crate) fn tag_of(code: u8) -> Tag {
    Tag((code & TAG_MASK) >> TAG_SHIFT)
}

/// A cell code with its tag replaced.
pub(crate) fn with_tag(code: u8, tag: Tag) -> u8 {
    (code & !TAG_MASK) | (tag.0 << TAG_SHIFT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_its_code_and_letter() {
        for kind in Kind::ALL {
            for color in [Color::White, Color::Black] {
                let p = Piece::new(color, kind);
                assert_eq!(Piece::from_code(p.code()), Some(p));
                assert_eq!(Piece::from_fen_char(p.fen_char()), Some(p));
                for n in 0..=Tag::MAX {
                    let code = with_tag(p.code(), Tag::new(n).unwrap());
                    assert_eq!(Piece::from_code(code), Some(p));
                    assert_eq!(tag_of(code).get(), n);
                    assert_eq!(code & PIECE_MASK, p.code());
                }
            }
        }
        assert_eq!(Piece::from_code(EMPTY), None);
        assert_eq!(Piece::from_code(OFF), None);
        assert_eq!(Tag::new(Tag::MAX + 1), None);
    }

    #[test]
    fn the_monarch_has_code_7_and_no_fide_letter() {
        let m = Piece::new(Color::Black, Kind::Monarch);
        assert_eq!(m.code(), MONARCH | BLACK);
        assert_eq!(Piece::from_code(with_tag(m.code(), Tag(3))), Some(m));
        // King and monarch differ in bit 0 only (the attack test's trick).
        assert_eq!(KING | 1, MONARCH);
        assert_eq!(Kind::from_letter('M'), None);
        assert!(!Kind::ALL.contains(&Kind::Monarch));
    }

    #[test]
    #[should_panic(expected = "holds no piece kind")]
    fn an_empty_code_is_never_decoded_as_a_kind() {
        Kind::from_code(EMPTY);
    }
}
