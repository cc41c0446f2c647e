//! Temporal Chess (docs/rules.md §5) through the server's face: perft hand
//! counts, every rule of §5 as a scenario from position text, notation and
//! refusals, position text, the diagram and the event sentences, and a
//! differential check against a plain reference implementation written
//! here from the rules text (`reference.rs`).

use std::collections::BTreeMap;

use rules::engine::Engine;
use rules::engine::EngineGame;
use rules::temporal::{State, Temporal};
use rules::{self, Color, Ending, Game, MoveError, Outcome, Played, Position};

use crate::harness;

use harness::Rng;

mod differential;
mod endings;
mod garbage;
mod notation;
mod perft;
mod reference;
mod warps;

const START: &str =
    "phase=place side=w white=- black=- wres=K1Q1R2B2N2U8 bres=K1Q1R2B2N2U8 clock=0";

fn game() -> &'static dyn Game {
    rules::game("temporal").expect("temporal is registered")
}

fn pos(text: &str) -> Box<dyn Position> {
    game()
        .position(text, &[])
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play_ok(p: &mut Box<dyn Position>, input: &str) -> Played {
    p.play(input)
        .unwrap_or_else(|e| panic!("{input} in {}: {e}", p.to_text()))
}

fn refusal(text: &str, input: &str) -> String {
    match pos(text).play(input) {
        Err(e @ MoveError::Illegal { .. }) => e.to_string(),
        other => panic!("{input} in {text}: {other:?}"),
    }
}

fn legal(text: &str) -> Vec<String> {
    pos(text).legal_actions()
}

/// The `white=` or `black=` field of a position text.
fn field<'a>(text: &'a str, key: &str) -> &'a str {
    text.split(' ')
        .find_map(|f| f.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("{key} in {text}"))
}
