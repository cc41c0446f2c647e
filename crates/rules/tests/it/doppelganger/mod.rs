//! Doppelganger Chess (docs/rules.md §2) through the server's face: the
//! hand-checkable vectors, perft from the start with the depth-3 count
//! derived by hand, every kind of removal and conversion as a scenario
//! written out in position text, the notation with and without the slash
//! choice, the `pairs=` field, `-lenient`, the drawing's pair notes, and a
//! differential check against a small independent reference generator
//! written here from the rules text.

use rules::doppelganger::{self, pairs, DoppelHooks};
use rules::orthodox::{Move, Special, State};
use rules::{self, Color, MoveError, Position, SetupError};

use crate::harness;

use harness::{play_out, reference_perft, Playout, Reference, Rng};

mod notation;
mod perft;
mod position_text;
mod reference;
mod scenarios;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn game() -> &'static dyn rules::Game {
    rules::game("doppelganger").unwrap()
}

fn pos(text: &str) -> Box<dyn Position> {
    game()
        .position(text, &[])
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn lenient(text: &str) -> Box<dyn Position> {
    game()
        .position(text, &["lenient".to_string()])
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Play `input`; the canonical notation and the event sentences.
fn play(p: &mut Box<dyn Position>, input: &str) -> (String, Vec<String>) {
    let played = p
        .play(input)
        .unwrap_or_else(|e| panic!("{input} in {}: {e}", p.to_text()));
    (played.notation, played.events)
}

/// The refusal of `input` in `p`, as mailed.
fn refusal(p: &dyn Position, input: &str) -> MoveError {
    let mut copy = p.clone_box();
    match copy.play(input) {
        Ok(played) => panic!("{input} was accepted as {}", played.notation),
        Err(e) => {
            assert_eq!(copy.to_text(), p.to_text(), "a refusal changes nothing");
            e
        }
    }
}

fn actions(p: &dyn Position) -> Vec<String> {
    p.legal_actions()
}
