//! Shadow Chess (`shadowchess`): docs/rules.md §4 (after the Shadow
//! Chess text of TetroniMike and paniq). An engine of its own behind the
//! [`Engine`] trait: a main board of units (a piece, or a chimera of
//! several pieces of one colour) and a shadow board of stacks; a turn is a
//! main move, a shadow move of the same class, and the reveals the taking
//! of pieces sets off — with pending decisions when a reveal has a choice.
//!
//! One noun a file: [`units`] (squares, kinds in K Q R B N P order, units),
//! [`state`] (the boards, actions, movement, what a turn does), [`position_text`]
//! (position text) and [`notation`] (writing and reading actions).
//!
//! # Rulings (where docs/rules.md leaves room)
//! - A turn action that leaves a decision pending ends the main mover's
//!   turn: the side field already names the next main mover, and the
//!   decision is the chooser's own action (`reveal c4`, sent with `move`).
//!   Decisions do not advance the move number or the 50-move clock; a
//!   collapse they cause resets the clock.
//! - Castling rights follow the unit on the king's or rook's home square:
//!   they end when that unit moves, is taken (in a collapse too) or fuses
//!   into a chimera, and stay when the only change on the square is an
//!   enemy piece that was revealed there and died in the collapse (a white
//!   piece on h8 or a black one on h1: dark squares take White, light
//!   squares Black). On a1, a8, e1 and e8 a collapse always takes the home
//!   side's unit. See `State::touch` in [`state`].
//! - A position text whose first pending reveal has fewer than two
//!   candidate squares is refused: the engine resolves such reveals by
//!   itself, so no game reaches it.
//! - The en passant square is written after every double step by a pawn
//!   pattern (chimeras included), as in FEN.
//! - A pawn in a chimera may stand on any rank (another component's
//!   pattern carried it there, and it stays a pawn); a lone pawn on a back
//!   rank, or a shadow pawn on its last rank, is refused in position text.
//! - Stalemate (no action at all for the main mover) draws; the game's own
//!   end (a side without kings on the main board and in shadow) is judged
//!   only when no reveal is pending, and comes before it.

pub mod notation;
pub mod position_text;
pub mod state;
mod turn;
pub mod units;

use super::engine::{Engine, EngineGame};
use super::orthodox::Kind;
use super::{Color, Diagram, Ending, Game, Glyph, Grid, MoveError, Outcome, SetupError};
pub use state::{Action, Pending, ShadowPart, State};
use units::Sq;

/// The start: both boards set up as in chess.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -";

/// Shadow Chess (TetroniMike and paniq, 2017).
pub struct ShadowChess;

impl EngineGame for ShadowChess {
    type Engine = State;
    fn name(&self) -> &'static str {
        "shadowchess"
    }
    fn title(&self) -> &'static str {
        "Shadow Chess"
    }
    /// Shadow Chess has no check.
    fn marks_checks(&self) -> bool {
        false
    }
    fn start_position(&self, _options: &[String]) -> Result<State, SetupError> {
        State::from_text(START)
    }
    fn read_position(&self, text: &str, _options: &[String]) -> Result<State, SetupError> {
        State::from_text(text)
    }
}

impl Engine for State {
    type Action = Action;
    type Key = String;

    fn game(&self) -> &'static dyn Game {
        &ShadowChess
    }

    fn to_act(&self) -> Color {
        State::to_act(self)
    }

    fn is_decision(&self) -> bool {
        !self.pending.is_empty()
    }

    fn actions(&self) -> Vec<Action> {
        State::actions(self)
    }

    fn action_count(&self) -> u64 {
        State::action_count(self)
    }

    fn pair_count(&self) -> u64 {
        State::pair_count(self)
    }

    fn play_unchecked(&mut self, action: &Action) {
        self.apply(*action, None);
    }

    fn events(&self, action: &Action) -> Vec<String> {
        let mut events = Vec::new();
        self.clone().apply(*action, Some(&mut events));
        events
    }

    fn notation(&self, action: &Action) -> String {
        self.notation_with(action, &State::actions(self))
    }

    fn notations(&self, actions: &[Action]) -> Vec<String> {
        actions
            .iter()
            .map(|a| self.notation_with(a, actions))
            .collect()
    }

    fn action_names(&self, actions: &[Action]) -> Vec<String> {
        self.notations(actions)
    }

    fn read(&self, input: &str) -> Result<Action, MoveError> {
        self.read_action(input)
    }

    fn end(&self) -> Outcome {
        let kings = self.kings_outcome();
        // Castling always comes with a king or rook move, so the main
        // moves alone tell whether any action exists.
        if kings.is_over() || !self.pending.is_empty() || self.has_main_action() {
            return kings;
        }
        Outcome::Drawn {
            ending: Ending::Stalemate,
        }
    }

    fn repetition_key(&self) -> String {
        State::repetition_key(self)
    }

    fn move_clock(&self) -> u32 {
        self.halfmove
    }

    fn to_text(&self) -> String {
        State::to_text(self)
    }

    /// Main-board material at full value (a king as a life: a side without
    /// kings loses), shadow pieces at a quarter (each may come back when a
    /// main piece of its kind is taken), and the main king's distance from
    /// enemy units it has to fear.
    fn evaluate(&self) -> i32 {
        let mut score = [0i32; 2];
        for sq in Sq::all() {
            if let Some(u) = self.unit(sq) {
                for kind in u.components() {
                    score[u.color.index()] += piece_value(kind);
                }
            }
            for color in [Color::White, Color::Black] {
                for kind in self.stack(sq, color) {
                    score[color.index()] += piece_value(kind) / 4;
                }
            }
        }
        let me = State::to_act(self).index();
        score[me] - score[1 - me]
    }

    fn capture_value(&self, action: &Action) -> Option<i32> {
        let Action::Main { to, .. } = *action else {
            return None;
        };
        let taken = self.unit(to)?;
        (taken.color != State::to_act(self)).then(|| taken.components().map(piece_value).sum())
    }

    fn diagram(&self) -> Diagram {
        let mut main = Grid::empty("Main", 8, 8);
        let mut shadow = Grid::empty("Shadow", 8, 8);
        for sq in Sq::all() {
            let (f, r) = (sq.file() as u8, sq.rank() as u8);
            if let Some(u) = self.unit(sq) {
                for kind in u.components() {
                    main.put(f, r, glyph(u.color, kind));
                }
            }
            for color in [Color::White, Color::Black] {
                for kind in self.stack(sq, color) {
                    shadow.put(f, r, glyph(color, kind));
                }
            }
        }
        let mut notes = Vec::new();
        if let Some(head) = self.pending.first() {
            let squares: Vec<String> = self
                .reveal_candidates(head.owner, head.kind)
                .iter()
                .map(|s| s.to_string())
                .collect();
            notes.push(format!(
                "{} must choose which shadow {} is revealed: {} (send it as a move: reveal {}).",
                head.owner.name(),
                head.kind.name(),
                squares.join(", "),
                squares.first().map_or("", String::as_str)
            ));
            if self.pending.len() > 1 {
                let rest: Vec<String> = self.pending[1..]
                    .iter()
                    .map(|p| format!("{}'s {}", p.owner.name(), p.kind.name()))
                    .collect();
                notes.push(format!("Reveals waiting after it: {}.", rest.join(", ")));
            }
        }
        Diagram {
            boards: vec![main, shadow],
            notes,
        }
    }
}

/// A piece's worth here: the orthodox value, a king as two queens (the
/// game is lost with the last one).
fn piece_value(kind: Kind) -> i32 {
    match kind {
        Kind::King => 1800,
        other => super::value::of_letter(other.letter()),
    }
}

fn glyph(color: Color, kind: Kind) -> Glyph {
    Glyph {
        color,
        letter: kind.letter(),
    }
}
