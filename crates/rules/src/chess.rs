//! Orthodox chess (`chess`): docs/rules.md §0. Everything lives in
//! [`orthodox`](super::orthodox); this file gives the 8x8 geometry, the
//! start position and the two castlings per side.

use std::sync::LazyLock;

use super::board::Geometry;
use super::engine::EngineGame;
use super::orthodox::{Castling, Orthodox, State, Variant};
use super::{Color, SetupError};

/// The FIDE start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Orthodox FIDE chess.
pub struct Chess;

/// The FIDE castlings on 8x8, White's then Black's: `O-O` (king e→g,
/// rook h→f) and `O-O-O` (king e→c, rook a→d). Every 8x8 variant uses them.
pub fn castlings() -> Vec<Castling> {
    let g = Geometry::CHESS;
    let mut castlings = Vec::new();
    for color in [Color::White, Color::Black] {
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
    castlings
}

/// The chess variant data (geometry, castling table, notation rules).
pub fn variant() -> &'static Variant<Orthodox> {
    static VARIANT: LazyLock<Variant<Orthodox>> = LazyLock::new(|| {
        let g = Geometry::CHESS;
        let castlings = castlings();
        Variant::new(
            &Chess,
            g,
            START_FEN,
            castlings,
            true,
            "Write a move in algebraic notation (Nf3, exd5, e8=Q, O-O) or as from and to squares (g1f3, e7e8q).",
            Orthodox,
        )
    });
    &VARIANT
}

impl EngineGame for Chess {
    type Engine = State;
    fn name(&self) -> &'static str {
        "chess"
    }
    fn title(&self) -> &'static str {
        "Chess"
    }
    fn start_position(&self, _options: &[String]) -> Result<State, SetupError> {
        Ok(State::start(variant()))
    }
    fn read_position(&self, text: &str, _options: &[String]) -> Result<State, SetupError> {
        State::from_fen(variant(), text)
    }
}
