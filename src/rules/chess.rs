//! Orthodox chess (`chess`).

use super::{Game, Position, SetupError};

/// Orthodox FIDE chess.
pub struct Chess;

impl Game for Chess {
    fn name(&self) -> &'static str {
        "chess"
    }
    fn title(&self) -> &'static str {
        "Chess"
    }
    fn start(&self, _options: &[String]) -> Result<Box<dyn Position>, SetupError> {
        todo!("chess start")
    }
    fn position(&self, _text: &str, _options: &[String]) -> Result<Box<dyn Position>, SetupError> {
        todo!("chess position")
    }
}
