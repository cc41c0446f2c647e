//! Orthodox chess through the server's face: perft vectors (docs/rules.md §0),
//! move reading, SAN, FEN, and every automatic game end.

use rules::{self, Color, Ending, MoveError, Outcome, Position};

mod endings;
mod fen;
mod other_notations;
mod perft;
mod reading;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POS3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const POS4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const POS5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
const POS6: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

fn pos(fen: &str) -> Box<dyn Position> {
    rules::game("chess").unwrap().position(fen, &[]).unwrap()
}

fn played(moves: &[&str]) -> Box<dyn Position> {
    let mut p = rules::game("chess").unwrap().start(&[]).unwrap();
    for m in moves {
        p.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    p
}

fn play_ok(p: &mut Box<dyn Position>, input: &str) -> String {
    p.play(input)
        .unwrap_or_else(|e| panic!("{input}: {e}"))
        .notation
}

fn play_err(p: &mut Box<dyn Position>, input: &str) -> MoveError {
    let before = p.to_text();
    let e = p.play(input).expect_err(input);
    assert_eq!(
        p.to_text(),
        before,
        "a refused move leaves the position unchanged"
    );
    e
}

fn reading(fen: &str, input: &str) -> Result<String, MoveError> {
    pos(fen).play(input).map(|p| p.notation)
}
