//! Temporal Chess (`temporal`): docs/rules.md §5, after L. Lynn Smith. A 4×4×4
//! field that starts empty, the Raumschach movements (the unicorn for the
//! pawn), drops, and time warps: a piece vanishes into the future, or a
//! duplicate comes back from it while the original carries counters.
//!
//! One noun a file: [`pieces`] (kinds, pieces, reserves), [`field`] (the
//! compact state, the geometry tables and attack tests), [`warps`]
//! (warps, counters and the sentences about them), [`moves`] (actions and
//! their generation), [`turn`] (one turn with its automatic end),
//! [`notation`] (writing and reading actions, refusals), [`position_text`]
//! (position text) and [`engine`] (the [`Engine`](super::engine::Engine)
//! the server plays, with the diagram).
//!
//! # Rulings
//! - docs/rules.md §5 is implemented as written; where it is silent:
//! - Drops and the drop test: see [`turn`] (a vanished enemy king cannot
//!   be attacked by a drop; a dropped piece captured by the mover's own
//!   reappearance does not count).
//! - The move clock: a placement and a drop reset it, as does any capture
//!   (by a move, a duplicate or a reappearance); an original's expiry does
//!   not ([`turn`]).
//! - Mate with a vanished royal king: no legal action, and the cell it
//!   will reappear on is attacked now (by an enemy active piece, or an
//!   enemy vanished piece with 1 counter left there).
//! - The diagram draws active pieces only; vanished pieces and originals
//!   are named under it with their counters.
//! - Notation reading: see [`notation`]; position text: see [`position_text`].

pub mod engine;
pub mod field;
pub mod moves;
pub mod notation;
pub mod pieces;
pub mod position_text;
pub mod turn;
pub mod warps;

pub use field::{Phase, Royal, State};
pub use moves::Action;
pub use pieces::{Kind, Piece, Reserve};
pub use position_text::Setup;
pub use warps::{Warp, WarpKind};

use super::engine::EngineGame;
use super::SetupError;

/// The start: `phase=place side=w white=- black=- wres=K1Q1R2B2N2U8
/// bres=K1Q1R2B2N2U8 clock=0`.
pub const START: &str =
    "phase=place side=w white=- black=- wres=K1Q1R2B2N2U8 bres=K1Q1R2B2N2U8 clock=0";

/// Temporal Chess.
pub struct Temporal;

impl EngineGame for Temporal {
    type Engine = State;
    fn name(&self) -> &'static str {
        "temporal"
    }
    fn title(&self) -> &'static str {
        "Temporal Chess"
    }
    /// Temporal notation writes no check marks.
    fn marks_checks(&self) -> bool {
        false
    }
    fn start_position(&self, _options: &[String]) -> Result<State, SetupError> {
        Ok(State::start())
    }
    fn read_position(&self, text: &str, _options: &[String]) -> Result<State, SetupError> {
        State::from_setup(&Setup::parse(text)?)
    }
}
