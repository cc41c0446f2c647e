//! The trait every game's rules implement, and the server's face for free.
//!
//! A game writes an [`Engine`]: a position without history that knows its
//! legal actions, applies them, writes and reads their notation, says who
//! acts and whether the game ended by its own rules. Wrapping it in
//! [`Tracked`] (the engine together with its [`History`]) gives the
//! object-safe [`Position`] the server uses: `play`, `legal_actions`, the
//! automatic draws, `perft` and `divide` are written once, here and in
//! [`perft`](mod@crate::perft). A game's [`EngineGame`] (its names, options and
//! how to make its engines) likewise gives the object-safe [`Game`].
//!
//! # The replay contract
//! The server stores each action's canonical notation and replays a board
//! by reading it back. So an engine's [`Engine::notation`] of a legal
//! action must always read back, through [`Engine::read`] in the same
//! position, as that same action, and two legal actions never share a
//! notation. The registry-wide property test (`tests/it/rules/registry.rs`)
//! proves it for every registered game, together with position-text round
//! trips.

use std::fmt;
use std::hash::Hash;

use super::history::History;
use super::key::StableKey;
use super::perft;
use super::tree::{SearchTree, Walk};
use super::value;
use super::{
    check_options, Color, Diagram, Game, MoveError, Outcome, Played, Position, SetupError,
};

/// One game's rules, as a position without history.
pub trait Engine: Clone + fmt::Debug + Send + Sync + 'static {
    /// One turn action (a move, a drop, a reveal decision …).
    type Action: Clone + PartialEq + Hash + fmt::Debug;
    /// What the repetition rule compares; its [`StableKey`] is the
    /// position key stored with each ply.
    type Key: Clone + Eq + Hash + StableKey + fmt::Debug + Send + Sync;

    /// The game this position belongs to.
    fn game(&self) -> &'static dyn Game;

    /// Who acts next (for a pending decision, the player who must decide).
    fn to_act(&self) -> Color;

    /// Whether the next action is a *decision* (a choice the rules ask of
    /// [`Engine::to_act`], such as a Shadow reveal) rather than a turn.
    fn is_decision(&self) -> bool {
        false
    }

    /// Every legal action, the draw rules aside; empty where no action
    /// exists or the game's own rule ended it.
    fn actions(&self) -> Vec<Self::Action>;

    /// How many legal actions there are (perft counts the last ply with
    /// it; override when cheaper than listing).
    fn action_count(&self) -> u64 {
        self.actions().len() as u64
    }

    /// How many legal sequences of two actions there are (perft counts its
    /// last two plies with it; override when the game can count them with
    /// less than playing every first action and counting the answers).
    fn pair_count(&self) -> u64 {
        self.actions()
            .iter()
            .map(|a| self.after(a).action_count())
            .sum()
    }

    /// Whether any legal action exists (override when cheaper than listing).
    fn has_action(&self) -> bool {
        !self.actions().is_empty()
    }

    /// Apply a legal action (not checked), with all its automatic
    /// consequences.
    fn play_unchecked(&mut self, action: &Self::Action);

    /// The position after a legal action.
    fn after(&self, action: &Self::Action) -> Self {
        let mut next = self.clone();
        next.play_unchecked(action);
        next
    }

    /// The automatic consequences of a legal action, one plain sentence
    /// each, as the players are told (removed pairs, reveals, warps).
    fn events(&self, action: &Self::Action) -> Vec<String> {
        let _ = action;
        Vec::new()
    }

    /// The canonical notation of a legal action, stored and echoed.
    fn notation(&self, action: &Self::Action) -> String;

    /// The canonical notation of each of `actions`, which are all the legal
    /// actions here (override when notation needs the whole list).
    fn notations(&self, actions: &[Self::Action]) -> Vec<String> {
        actions.iter().map(|a| self.notation(a)).collect()
    }

    /// The name of an action in `divide`'s output (the coordinate form
    /// where a game has one; the notation by default).
    fn action_name(&self, action: &Self::Action) -> String {
        self.notation(action)
    }

    /// The names of `actions`, which are all the legal actions here, as
    /// [`Engine::action_name`] gives them (override when naming one action
    /// needs the whole list, as notation often does).
    fn action_names(&self, actions: &[Self::Action]) -> Vec<String> {
        actions.iter().map(|a| self.action_name(a)).collect()
    }

    /// Read an action in any accepted notation: the one legal action the
    /// text means, or a refusal that tells the player what to write.
    fn read(&self, input: &str) -> Result<Self::Action, MoveError>;

    /// How the position itself ends the game (mate, stalemate, a variant's
    /// own end), the draws by history aside.
    fn end(&self) -> Outcome;

    /// Whether neither side can ever win (an automatic draw).
    fn is_insufficient_material(&self) -> bool {
        false
    }

    /// What the repetition rule compares.
    fn repetition_key(&self) -> Self::Key;

    /// Plies counted towards the move rule (the halfmove clock), as the
    /// position text has it; 0 right after an irreversible action.
    fn move_clock(&self) -> u32;

    /// Position text, read back by the game's [`EngineGame::read_position`].
    fn to_text(&self) -> String;

    /// The boards and notes to draw.
    fn diagram(&self) -> Diagram;

    /// How good the position is for [`Engine::to_act`], in centipawns (a
    /// pawn is 100): what the computer player's search aims at. By default
    /// the material on the diagram ([`value::material`]); a game overrides
    /// it with its own knowledge (mobility, king safety, reserves).
    fn evaluate(&self) -> i32 {
        value::material(&self.diagram(), self.to_act())
    }

    /// A 64-bit key of the position for the repetition rule (stored with
    /// each ply) and the search's transposition table: the [`StableKey`]
    /// of [`Engine::repetition_key`], by the fixed algorithm of
    /// [`key`](super::key). An override must give the same value on every
    /// build and raise [`KEY_VERSION`](super::key::KEY_VERSION).
    fn position_key(&self) -> u64 {
        self.repetition_key().stable_key()
    }

    /// The value of what a legal action takes, if it takes anything (the
    /// search tries such actions first and follows them past its depth).
    /// By default no action counts as a capture.
    fn capture_value(&self, action: &Self::Action) -> Option<i32> {
        let _ = action;
        None
    }
}

/// A fixed (unseeded) 64-bit hash: the same value on every run, so that
/// searches are repeatable. Only for values that live in one process (the
/// search's action ids): `std` does not promise to keep its algorithm, so
/// nothing stored may come from it (position keys come from
/// [`key`](super::key)).
pub fn hash_key<T: Hash + ?Sized>(value: &T) -> u64 {
    use std::hash::Hasher;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// An engine together with its draw history: the [`Position`] the server
/// holds.
///
/// # Ruling: the repetition rule compares 64-bit keys
/// The history counts [`Engine::position_key`]s (a fixed hash of
/// [`Engine::repetition_key`], see [`key`](super::key)), not the keys
/// themselves, so that a board can be loaded from its current position
/// text and the keys stored with its plies, without replaying them ([`Position::resume_history`]). Two different positions count as one only when their 64-bit keys
/// collide. A history holds at most about 100 keys (the move rule draws at
/// 100 plies without an irreversible action), so each ply risks a false
/// count with odds below 100 / 2^64 (about 5e-18), and a false draw needs
/// that to complete a threefold repetition. A billion plies over the
/// server's life would meet one with odds below 1e-8: far rarer than a
/// disk or memory error, so accepted. (A player cannot aim for one either:
/// making a reachable position collide with a given one is a 2^64 search.)
/// The computer player's search compares the same keys (see
/// [`tree::Walk`](super::tree::Walk)), so it and the referee agree.
#[derive(Clone, Debug)]
pub struct Tracked<E: Engine> {
    engine: E,
    history: History<u64>,
}

impl<E: Engine> Tracked<E> {
    /// A position whose history starts here.
    pub fn new(engine: E) -> Tracked<E> {
        let history = History::new(engine.position_key(), engine.move_clock());
        Tracked { engine, history }
    }

    pub fn engine(&self) -> &E {
        &self.engine
    }

    pub fn history(&self) -> &History<u64> {
        &self.history
    }

    /// Apply a legal action, keeping the history.
    pub fn apply(&mut self, action: &E::Action) {
        self.engine.play_unchecked(action);
        self.history
            .record(self.engine.position_key(), self.engine.move_clock());
    }
}

impl<E: Engine> Position for Tracked<E> {
    fn game(&self) -> &'static dyn Game {
        self.engine.game()
    }

    fn to_text(&self) -> String {
        self.engine.to_text()
    }

    fn to_act(&self) -> Color {
        self.engine.to_act()
    }

    fn is_decision(&self) -> bool {
        self.engine.is_decision()
    }

    fn history_plies(&self) -> u32 {
        self.history.plies()
    }

    fn position_key(&self) -> u64 {
        self.engine.position_key()
    }

    fn resume_history(&mut self, keys: &[u64]) -> bool {
        if keys.last() != Some(&self.engine.position_key()) {
            return false;
        }
        match History::resume(keys, self.engine.move_clock()) {
            Some(history) => {
                self.history = history;
                true
            }
            None => false,
        }
    }

    /// The position's own end first (mate before the 50-move rule), then
    /// the draws by history, then insufficient material.
    fn outcome(&self) -> Outcome {
        let end = self.engine.end();
        if end.is_over() {
            return end;
        }
        if let Some(ending) = self.history.draw() {
            return Outcome::Drawn { ending };
        }
        if self.engine.is_insufficient_material() {
            return Outcome::Drawn {
                ending: super::Ending::InsufficientMaterial,
            };
        }
        Outcome::Ongoing
    }

    fn play(&mut self, input: &str) -> Result<Played, MoveError> {
        if self.outcome().is_over() {
            return Err(MoveError::GameOver);
        }
        let action = self.engine.read(input)?;
        let notation = self.engine.notation(&action);
        let events = self.engine.events(&action);
        self.apply(&action);
        Ok(Played { notation, events })
    }

    /// Empty once the game is over, draws included (as `play` refuses).
    fn legal_actions(&self) -> Vec<String> {
        if self.outcome().is_over() {
            return Vec::new();
        }
        let mut out = self.engine.notations(&self.engine.actions());
        out.sort();
        out
    }

    fn any_successor(&self, f: &mut dyn FnMut(&dyn Position) -> bool) -> bool {
        if self.outcome().is_over() {
            return false;
        }
        self.engine.actions().iter().any(|action| {
            let mut next = self.clone();
            next.apply(action);
            f(&next)
        })
    }

    fn perft(&self, depth: u32) -> u64 {
        perft::perft(&self.engine, depth)
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        perft::divide(&self.engine, depth)
    }

    fn diagram(&self) -> Diagram {
        self.engine.diagram()
    }

    fn clone_box(&self) -> Box<dyn Position> {
        Box::new(self.clone())
    }

    fn tree(&self) -> Box<dyn SearchTree> {
        Box::new(Walk::new(self))
    }
}

/// One game built on an [`Engine`]: its names, options and how to make its
/// positions. Every `EngineGame` is a [`Game`] (options are checked before
/// [`EngineGame::start_position`] and [`EngineGame::read_position`] are called).
pub trait EngineGame: Send + Sync + 'static {
    type Engine: Engine;
    /// The command name (`chess`, `doublechess`).
    fn name(&self) -> &'static str;
    /// The name written in subjects and help (`Chess`, `Double Chess`).
    fn title(&self) -> &'static str;
    /// The `-options` a challenge may give, without the dash.
    fn options(&self) -> &'static [&'static str] {
        &[]
    }
    /// The starting position under these (known) options.
    fn start_position(&self, options: &[String]) -> Result<Self::Engine, SetupError>;
    /// A position read from its text under these (known) options.
    fn read_position(&self, text: &str, options: &[String]) -> Result<Self::Engine, SetupError>;
    /// Whether the notation marks check and mate (`+`, `#`); see
    /// [`Game::marks_checks`].
    fn marks_checks(&self) -> bool {
        true
    }
}

impl<G: EngineGame> Game for G {
    fn name(&self) -> &'static str {
        EngineGame::name(self)
    }
    fn title(&self) -> &'static str {
        EngineGame::title(self)
    }
    fn options(&self) -> &'static [&'static str] {
        EngineGame::options(self)
    }
    fn marks_checks(&self) -> bool {
        EngineGame::marks_checks(self)
    }
    fn start(&self, options: &[String]) -> Result<Box<dyn Position>, SetupError> {
        check_options(self, options)?;
        Ok(Box::new(Tracked::new(self.start_position(options)?)))
    }
    fn position(&self, text: &str, options: &[String]) -> Result<Box<dyn Position>, SetupError> {
        check_options(self, options)?;
        Ok(Box::new(Tracked::new(self.read_position(text, options)?)))
    }
}
