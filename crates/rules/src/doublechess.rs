//! Double Chess (`doublechess`): docs/rules.md §1. Two orthodox armies side by
//! side on 16x8 (files `a`–`p`), the second king replaced by a third queen,
//! and four castlings per side. Everything else is the shared orthodox core
//! in [`orthodox`](super::orthodox): this file only supplies the geometry,
//! the start position and the castling table.
//!
//! # Rulings
//! - FEN's castling field names the files of the rooks that may still castle
//!   (`LEPAlepa`), written in the table order below, White first.
//! - Castling is written `O-O` (inside kingside), `O-O-O` (inside
//!   queenside), `O-O-O-O` (outside kingside), `O-O-O-O-O` (outside
//!   queenside); `0` and `o` work for `O`. The king's move as SAN (`Kk1`,
//!   `Kg1`, `Km1`, `Ke1`) or as coordinates (`i1k1`, `i1m1`, …) means the
//!   same castling. Canonical notation is the `O-O…` form.
//! - **Letter case**: files are lower case only and an upper-case letter is
//!   always a piece (`Bc4` is a bishop, `E4` is unreadable). Lower-case
//!   letters that are files (`a`–`p`, which include `b`, `k`, `n` and `p`)
//!   are files only: `bc4` is the b-pawn taking on c4, `nf3` names an n-pawn
//!   and is refused. The chess tolerance of trying `bc4` both ways is
//!   therefore off here. Lower-case `q` and `r`, which are no files, are read
//!   as queen and rook (`qf6`), since nothing else can be meant.
//! - A castling right is lost when its rook moves or is captured on its
//!   square; all four go when the king moves.
//! - Insufficient material: K v K and K + one minor v K, as in chess.

use std::sync::LazyLock;

use super::board::Geometry;
use super::engine::EngineGame;
use super::orthodox::{Castling, Orthodox, State, Variant};
use super::{Color, SetupError};

/// The Double Chess start position.
pub const START_FEN: &str =
    "rnbqrnbqkbnrqbnr/pppppppppppppppp/16/16/16/16/PPPPPPPPPPPPPPPP/RNBQRNBQKBNRQBNR w LEPAlepa - 0 1";

/// Double Chess (David Short, 1996).
pub struct DoubleChess;

/// One row of the castling table: notation, FEN letter (the rook's file),
/// king files from→to, rook files from→to, files that must be empty.
type CastlingRow = (&'static str, char, (u8, u8), (u8, u8), &'static [u8]);

/// The Double Chess variant data.
pub fn variant() -> &'static Variant<Orthodox> {
    static VARIANT: LazyLock<Variant<Orthodox>> = LazyLock::new(|| {
        let g = Geometry::DOUBLE;
        // Files: a=0 … e=4, f=5, g=6, h=7, i=8, j=9, k=10, l=11, m=12, p=15.
        let mut castlings = Vec::new();
        for color in [Color::White, Color::Black] {
            // notation, FEN letter (rook file), king i→?, rook ?→?, must be empty
            let table: [CastlingRow; 4] = [
                ("O-O", 'L', (8, 10), (11, 9), &[9, 10]),
                ("O-O-O", 'E', (8, 6), (4, 7), &[5, 6, 7]),
                ("O-O-O-O", 'P', (8, 12), (15, 11), &[9, 10, 11, 12, 13, 14]),
                ("O-O-O-O-O", 'A', (8, 4), (0, 5), &[1, 2, 3, 4, 5, 6, 7]),
            ];
            for (notation, letter, king, rook, empty) in table {
                castlings.push(Castling::on_back_rank(
                    g, color, notation, letter, king, rook, empty,
                ));
            }
        }
        Variant::new(
            &DoubleChess,
            g,
            START_FEN,
            castlings,
            false,
            "Write a move in algebraic notation with lower-case files a to p (Nf3, ixj3, p8=Q, O-O, O-O-O-O) or as from and to squares (k1j3, i1m1).",
            Orthodox,
        )
    });
    &VARIANT
}

impl EngineGame for DoubleChess {
    type Engine = State;
    fn name(&self) -> &'static str {
        "doublechess"
    }
    fn title(&self) -> &'static str {
        "Double Chess"
    }
    fn start_position(&self, _options: &[String]) -> Result<State, SetupError> {
        Ok(State::start(variant()))
    }
    fn read_position(&self, text: &str, _options: &[String]) -> Result<State, SetupError> {
        State::from_fen(variant(), text)
    }
}
