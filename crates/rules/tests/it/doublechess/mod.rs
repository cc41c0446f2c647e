//! Double Chess (docs/rules.md §1) through the server's face: castling in every
//! form and every refusal, rights, en passant and promotion on the files
//! beyond h, SAN disambiguation on the wide board, FEN, perft hand counts,
//! and a differential check against a small independent reference move
//! generator written here from the rules text.

use rules::doublechess;
use rules::orthodox::{Move, Orthodox, State};
use rules::{self, Color, Ending, MoveError, Outcome, Position};

use crate::harness;

use harness::{play_out, reference_perft, Playout, Reference, Rng};

mod moves;
mod notation;
mod perft;
mod reference;

const START: &str =
    "rnbqrnbqkbnrqbnr/pppppppppppppppp/16/16/16/16/PPPPPPPPPPPPPPPP/RNBQRNBQKBNRQBNR w LEPAlepa - 0 1";
/// Kings and all four rooks, pawn walls: only the inside castlings are open
/// (the rooks on e and l stand in the way of the outside ones).
const INSIDE: &str =
    "r3r3k2r3r/pppppppppppppppp/16/16/16/16/PPPPPPPPPPPPPPPP/R3R3K2R3R w LEPAlepa - 0 1";
/// Kings and the corner rooks only: both outside castlings are open.
const OUTSIDE: &str = "r7k6r/pppppppppppppppp/16/16/16/16/PPPPPPPPPPPPPPPP/R7K6R w PApa - 0 1";

fn pos(fen: &str) -> Box<dyn Position> {
    rules::game("doublechess")
        .unwrap()
        .position(fen, &[])
        .unwrap()
}

fn play_ok(p: &mut Box<dyn Position>, input: &str) -> String {
    p.play(input)
        .unwrap_or_else(|e| panic!("{input}: {e}"))
        .notation
}

fn reading(fen: &str, input: &str) -> Result<String, MoveError> {
    pos(fen).play(input).map(|p| p.notation)
}

fn refusal(fen: &str, input: &str) -> String {
    match pos(fen).play(input) {
        Err(e @ MoveError::Illegal { .. }) => e.to_string(),
        other => panic!("{input} in {fen}: {other:?}"),
    }
}
