//! Orthodox chess (`chess`): rules.md §0. Everything lives in
//! [`orthodox`](super::orthodox); this file gives the 8x8 geometry, the
//! start position and the two castlings per side.

use std::sync::LazyLock;

use super::board::Geometry;
use super::orthodox::{Castling, OrthoPosition, Variant};
use super::{check_options, Color, Game, Position, SetupError};

/// The FIDE start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A chess position: the shared orthodox position on the chess variant.
pub type ChessPosition = OrthoPosition;

/// Orthodox FIDE chess.
pub struct Chess;

/// The chess variant data (geometry, castling table, notation rules).
pub fn variant() -> &'static Variant {
    static VARIANT: LazyLock<Variant> = LazyLock::new(|| {
        let g = Geometry::CHESS;
        let mut castlings = Vec::new();
        for color in [Color::White, Color::Black] {
            // O-O: king e→g, rook h→f; O-O-O: king e→c, rook a→d.
            castlings.push(Castling::on_back_rank(
                g,
                color,
                "O-O",
                'K',
                (4, 6),
                (7, 5),
                &[5, 6],
            ));
            castlings.push(Castling::on_back_rank(
                g,
                color,
                "O-O-O",
                'Q',
                (4, 2),
                (0, 3),
                &[1, 2, 3],
            ));
        }
        Variant::new(
            &Chess,
            g,
            START_FEN,
            castlings,
            true,
            "Write a move in algebraic notation (Nf3, exd5, e8=Q, O-O) or as from and to squares (g1f3, e7e8q).",
        )
    });
    &VARIANT
}

impl Game for Chess {
    fn name(&self) -> &'static str {
        "chess"
    }
    fn title(&self) -> &'static str {
        "Chess"
    }
    fn start(&self, options: &[String]) -> Result<Box<dyn Position>, SetupError> {
        check_options(&Chess, options)?;
        Ok(Box::new(OrthoPosition::start(variant())))
    }
    fn position(&self, text: &str, options: &[String]) -> Result<Box<dyn Position>, SetupError> {
        check_options(&Chess, options)?;
        Ok(Box::new(OrthoPosition::from_fen(variant(), text)?))
    }
}
