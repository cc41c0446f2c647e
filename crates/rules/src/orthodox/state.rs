//! [`State`]: a position without history (placement, side, castling
//! rights, en passant square, clocks), its accessors and make. Cheap to
//! copy; perft walks it by copy-make. Attacks, move generation and the
//! legality tests are in the sibling modules `attacks`, `movegen` and
//! `legal`.

use std::fmt;

use super::super::board::{Square, CELLS, NORTH};
use super::super::Color;
use super::hooks::{Hooks, Orthodox};
use super::pieces::{color_bit, tag_of, with_tag, Kind, Piece, Tag, EMPTY, KIND_MASK, KING, PAWN};
use super::variant::Variant;

/// What is special about a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    None,
    /// A pawn's two-square step (sets the en passant square).
    DoubleStep,
    EnPassant,
    Promotion(Kind),
    /// Castling number `n` of the variant's table (from/to are the king's).
    Castle(u8),
}

/// One move. For castling `from`/`to` are the king's squares. `choice` is a
/// square the mover chose beyond from and to (a variant's extra removal or
/// conversion, see [`Hooks::expand`]); chess never
/// sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub special: Special,
    pub choice: Option<Square>,
}

impl Move {
    /// A move without a choice square.
    pub fn new(from: Square, to: Square, special: Special) -> Move {
        Move {
            from,
            to,
            special,
            choice: None,
        }
    }

    /// The same move with a choice square.
    pub fn choosing(self, square: Square) -> Move {
        Move {
            choice: Some(square),
            ..self
        }
    }
}

/// A piece a move took, where it stood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capture {
    pub square: Square,
    /// The cell code the piece had (decoded on demand, so that a make
    /// whose hooks ignore captures pays nothing for it).
    code: u8,
}

impl Capture {
    /// The piece taken.
    pub fn piece(self) -> Piece {
        Piece::from_code(self.code).expect("a capture holds a piece")
    }

    /// The variant's mark the piece had.
    pub fn tag(self) -> Tag {
        tag_of(self.code)
    }
}

/// Why a castling is not legal now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastleRefusal {
    /// The right is gone (king or that rook has moved, or the rook was taken).
    NoRight,
    PieceBetween(Square),
    InCheck,
    CrossesAttacked(Square),
    LandsAttacked(Square),
    /// The king would be attacked in the final position (e.g. through a
    /// variant's consequence).
    Exposed,
    /// The variant's own test ([`Hooks::is_legal_after`]) refuses it.
    Forbidden,
}

/// A position without history: placement, side, castling rights, en
/// passant square and clocks. `H` are the variant's hooks (chess's by
/// default); each game's state is its own type, so a hook a game does not
/// use costs nothing.
pub struct State<H: Hooks = Orthodox> {
    pub(crate) variant: &'static Variant<H>,
    pub(crate) cells: [u8; CELLS],
    pub(crate) side: Color,
    pub(crate) castling: u16,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) kings: [Square; 2],
}

impl<H: Hooks> Clone for State<H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H: Hooks> Copy for State<H> {}

impl<H: Hooks> fmt::Debug for State<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "State({})", self.fen())
    }
}

impl<H: Hooks> PartialEq for State<H> {
    fn eq(&self, other: &State<H>) -> bool {
        std::ptr::eq(self.variant, other.variant)
            && self.cells == other.cells
            && self.side == other.side
            && self.castling == other.castling
            && self.ep == other.ep
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
    }
}

impl<H: Hooks> State<H> {
    /// The variant's start position.
    pub fn start(variant: &'static Variant<H>) -> State<H> {
        State::from_fen(variant, variant.start_fen).expect("start FEN is valid")
    }

    pub fn variant(&self) -> &'static Variant<H> {
        self.variant
    }

    pub fn side_to_move(&self) -> Color {
        self.side
    }

    pub fn en_passant(&self) -> Option<Square> {
        self.ep
    }

    pub fn king(&self, color: Color) -> Square {
        self.kings[color.index()]
    }

    /// Whether castling number `i` of the variant's table is still allowed
    /// by the rights (not whether it is legal now).
    pub fn has_castling_right(&self, i: usize) -> bool {
        self.castling & (1 << i) != 0
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.cells[sq.index()])
    }

    /// The variant's mark on the piece at `sq` ([`Tag::NONE`] when empty).
    pub fn tag_at(&self, sq: Square) -> Tag {
        tag_of(self.cells[sq.index()])
    }

    /// Every piece with its square, a1 first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.variant
            .squares
            .iter()
            .filter_map(|&sq| Some((sq, self.piece_at(sq)?)))
    }

    /// Put a piece (with a tag) on `sq`, or empty it. Emptying or filling a
    /// castling square clears the castling rights that need it. For hooks
    /// and setup: kings are tracked by [`State::put`] too.
    pub fn put(&mut self, sq: Square, piece: Option<(Piece, Tag)>) {
        self.castling &= !self.variant.rights_mask[sq.index()];
        self.cells[sq.index()] = match piece {
            None => EMPTY,
            Some((p, tag)) => {
                if p.kind == Kind::King {
                    self.kings[p.color.index()] = sq;
                }
                with_tag(p.code(), tag)
            }
        };
    }

    /// Change the kind of the piece on `sq`, keeping its owner, its tag and
    /// every castling right (a variant's conversion, such as a zelig's new
    /// power); nothing when the square is empty. Neither the old nor the
    /// new kind may be a king (kings are tracked; use [`State::put`]).
    pub fn set_kind(&mut self, sq: Square, kind: Kind) {
        let code = self.cells[sq.index()];
        if code != EMPTY {
            debug_assert!(kind != Kind::King && code & KIND_MASK != KING);
            self.cells[sq.index()] = (code & !KIND_MASK) | kind as u8;
        }
    }

    /// Set the mark of the piece on `sq` (nothing when the square is empty).
    pub fn set_tag(&mut self, sq: Square, tag: Tag) {
        let code = self.cells[sq.index()];
        if code != EMPTY {
            self.cells[sq.index()] = with_tag(code, tag);
        }
    }

    /// Apply a legal move (not checked).
    #[inline]
    pub fn make(&mut self, m: Move) {
        self.make_reporting(m, None);
    }

    /// Apply a legal move, appending the variant's sentences about its
    /// automatic consequences to `events` when given.
    #[inline(always)]
    pub fn make_reporting(&mut self, m: Move, events: Option<&mut Vec<String>>) {
        let v = self.variant;
        let from = m.from.index();
        let to = m.to.index();
        let piece = self.cells[from];
        let mut taken = None;
        self.ep = None;
        match m.special {
            Special::Castle(i) => {
                let c = &v.castlings[i as usize];
                let king = self.cells[c.king_from.index()];
                let rook = self.cells[c.rook_from.index()];
                self.castling &=
                    !(v.rights_mask[c.king_from.index()] | v.rights_mask[c.rook_from.index()]);
                self.cells[c.king_from.index()] = EMPTY;
                self.cells[c.rook_from.index()] = EMPTY;
                self.cells[c.king_to.index()] = king;
                self.cells[c.rook_to.index()] = rook;
                self.kings[self.side.index()] = c.king_to;
            }
            special => {
                // Every square this move empties or enters loses the
                // castling rights that need it.
                let mut lost = v.rights_mask[from] | v.rights_mask[to];
                let mut captured_at = to;
                match special {
                    Special::DoubleStep => {
                        self.ep = Some(Square::from_index((from + to) / 2));
                    }
                    Special::EnPassant => {
                        captured_at = match self.side {
                            Color::White => to - NORTH as usize,
                            Color::Black => to + NORTH as usize,
                        };
                        lost |= v.rights_mask[captured_at];
                    }
                    _ => {}
                }
                let captured = self.cells[captured_at];
                if captured != EMPTY {
                    taken = Some(Capture {
                        square: Square::from_index(captured_at),
                        code: captured,
                    });
                }
                self.castling &= !lost;
                self.cells[captured_at] = EMPTY;
                self.cells[from] = EMPTY;
                self.cells[to] = match special {
                    Special::Promotion(k) => {
                        with_tag(k as u8 | color_bit(self.side), tag_of(piece))
                    }
                    _ => piece,
                };
                if piece & KIND_MASK == KING {
                    self.kings[self.side.index()] = m.to;
                }
            }
        }
        self.halfmove = if piece & KIND_MASK == PAWN || taken.is_some() {
            0
        } else {
            self.halfmove + 1
        };
        if self.side == Color::Black {
            self.fullmove += 1;
        }
        self.side = self.side.opponent();
        v.hooks.after_make(self, m, taken, events);
    }

    /// The position after a legal move.
    pub fn after(&self, m: Move) -> State<H> {
        let mut s = *self;
        s.make(m);
        s
    }

    /// Whether a move takes something (en passant included).
    pub fn is_capture(&self, m: Move) -> bool {
        m.special == Special::EnPassant
            || (!matches!(m.special, Special::Castle(_)) && self.cells[m.to.index()] != EMPTY)
    }

    /// The kind of the piece on a square a move starts from.
    pub(crate) fn kind_on(&self, sq: Square) -> Option<Kind> {
        self.piece_at(sq).map(|p| p.kind)
    }

    /// Whether `sq` is empty (off-board cells are never empty).
    pub(crate) fn is_empty(&self, sq: Square) -> bool {
        self.cells[sq.index()] == EMPTY
    }

    /// Coordinate (UCI) form: `e2e4`, `e7e8q`; castling as the king's
    /// move; a variant's choice square after a slash (`e4d5/c7`).
    pub fn uci(&self, m: Move) -> String {
        let mut s = format!("{}{}", m.from, m.to);
        if let Special::Promotion(k) = m.special {
            s.push(self.variant.hooks.letter(k).to_ascii_lowercase());
        }
        if let Some(sq) = m.choice {
            s.push('/');
            s.push_str(&sq.to_string());
        }
        s
    }
}
