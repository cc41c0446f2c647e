//! What the chess-like games share, one noun a file: [`pieces`] (kinds,
//! pieces, cell codes), [`variant`] (a game as data: geometry, start,
//! castling table), [`hooks`] (where a variant differs, as default methods),
//! [`state`] (placement, accessors and make; its attacks, move generation
//! and legality tests in the private `attacks`, `movegen` and `legal`),
//! [`fen`] (parse into a [`Setup`], validate into a [`State`]), [`san`]
//! (writing moves), [`read`] (reading them, and explaining refusals) and
//! [`position`] (the [`Engine`](super::engine::Engine) the server plays).
//!
//! # Rulings
//! - **En passant in FEN**: written after every double step (the PGN/FEN
//!   standard), whether or not a capture is possible. When read, it must
//!   follow a double step (an enemy pawn in front of it, the square and the
//!   pawn's start square empty), otherwise the setup is refused.
//! - **Repetition** compares placement, side to move, castling rights and
//!   the en passant square *only when an en passant capture is actually
//!   legal* (FIDE 9.2.3), plus a variant's extra position-text fields.
//!   Three occurrences draw automatically (see [`history`](super::history)).
//! - **50-move rule**: 100 plies without capture or pawn move draw, unless
//!   the move that reaches 100 mates (mate and stalemate are judged first).
//! - **Insufficient material**: exactly K v K and K + one knight or bishop v
//!   K. Other dead positions (e.g. K+B v K+B with same-coloured bishops) are
//!   *not* drawn automatically: docs/rules.md lists only these two.
//! - **Castling rights** go with every square a move empties or enters
//!   (king square: all of that side's; rook square: that castling's), also
//!   when a variant's hook removes a piece ([`State::put`]). In these
//!   games a piece on a castling square changes only by leaving it or by
//!   being taken there, so the square rule is the rule that a right
//!   follows its king and rook (Shadow Chess tests this too): Double Chess's four rooks each have their own bit;
//!   Doppelganger's partner removal goes through [`State::put`]; a zelig's
//!   new power ([`State::set_kind`]) keeps the right, and the corner zelig
//!   is a rook under every rule set. Temporal Chess has no castling.
//! - **Move reading** (docs/rules.md §0): SAN, coordinates, `x`/`:`/`-`/`=`
//!   separators, `+ # ! ?` and `e.p.` noise and a leading move number
//!   (`12.`, `12...`) are all accepted; a promotion may also be written
//!   `cxb8(Q)` or `cxb8/Q` (read as `cxb8=Q`; the canonical form stays
//!   `cxb8=Q`); a capture mark is not
//!   required and not checked. A pawn move without a promotion piece that
//!   reaches the last rank is ambiguous (the reply lists the four choices):
//!   the server never promotes by default. `Kg1` (king to its castling
//!   square) is castling, as is the coordinate form `e1g1`.
//!   Text that is exactly the canonical SAN of a legal move (check suffix
//!   aside) always means that move.
//!   A piece letter names every kind the variant writes with it (the
//!   Zelig games write `Z` for five kinds), in reading and in SAN's
//!   disambiguation alike.
//!   With case tolerance (chess): `K Q R N` in either case are pieces, other
//!   letters of `a`–`h` in either case are files; an upper-case `B` is a
//!   bishop first and a b-file only if no bishop move fits; a lower-case `b`
//!   is tried both ways and accepted only when exactly one legal move fits
//!   (except `b1…` followed by a square, read first as the coordinate form).
//!   Without case tolerance (Double Chess, where `b`, `k`, `n` and `p` are
//!   files): upper-case letters are pieces only, lower-case letters that
//!   are files are files only; `q`/`r`, which are not files there, are read
//!   as queen/rook.

mod attacks;
pub mod evaluate;
pub mod fen;
pub mod hooks;
mod legal;
mod movegen;
pub mod pieces;
pub mod position;
pub mod read;
mod refusal;
pub mod san;
pub mod state;
pub mod variant;

pub use fen::{FenError, PositionError, Setup};
pub use hooks::{Hooks, Orthodox};
pub use pieces::{Kind, Piece, Tag};
pub use read::Spec;
pub use state::{Capture, CastleRefusal, Move, Special, State};
pub use variant::{Castling, Variant};

#[cfg(test)]
mod tests;
