//! The Zelig family (docs/rules.md §3: `mchess`, `zelig`, `zelig2`) through the
//! server's face and the engine: every worked power example for both
//! colours, check at a distance, captures made illegal by a reassigned
//! power, the monarch, castling and promotion with their new powers, the
//! Zelig 2 limits, notation and position text, perft, and a differential
//! check against a small independent reference move generator written
//! here from the rules text.

use rules::engine::EngineGame;
use rules::orthodox::Special;
use rules::orthodox::{Kind, Move, State};
use rules::zelig::{quota_power, Powers, ZeligGame, ZeligHooks, MCHESS, ZELIG, ZELIG2};
use rules::{self, Color, Ending, MoveError, Outcome, Position};

use crate::harness;

use harness::{play_out, reference_perft, Playout, Reference, Rng};

mod notation;
mod perft;
mod powers;
mod reference;
mod zelig2;

const START: &str = "zzzzkzzz/pppppppp/8/8/8/8/PPPPPPPP/ZZZZKZZZ w KQkq - 0 1";

fn pos(game: &str, fen: &str) -> Box<dyn Position> {
    rules::game(game)
        .unwrap()
        .position(fen, &[])
        .unwrap_or_else(|e| panic!("{game} {fen}: {e}"))
}

fn state(game: &ZeligGame, fen: &str) -> State<ZeligHooks> {
    State::from_fen(game.variant(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn play_ok(p: &mut Box<dyn Position>, input: &str) -> rules::Played {
    p.play(input)
        .unwrap_or_else(|e| panic!("{input} in {}: {e}", p.to_text()))
}

fn refusal(game: &str, fen: &str, input: &str) -> String {
    match pos(game, fen).play(input) {
        Err(e @ MoveError::Illegal { .. }) => e.to_string(),
        other => panic!("{input} in {fen}: {other:?}"),
    }
}

fn sq(name: &str) -> rules::board::Square {
    rules::board::Geometry::CHESS.parse_square(name).unwrap()
}

/// The power letter of the piece on `name` (`r n b q m`, or the piece's
/// own letter for pawns and kings, `.` when empty).
fn power(s: &State<ZeligHooks>, name: &str) -> char {
    s.piece_at(sq(name)).map_or('.', |p| kind_letter(p.kind))
}

fn kind_letter(kind: Kind) -> char {
    match kind {
        Kind::Monarch => 'm',
        k => k.letter().to_ascii_lowercase(),
    }
}

/// The same position seen from the other side: ranks reversed, colours
/// swapped (rights and en passant square too), the other side to move.
fn mirror(fen: &str) -> String {
    let f: Vec<&str> = fen.split(' ').collect();
    let swap = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect()
    };
    let placement: Vec<String> = f[0].split('/').rev().map(swap).collect();
    let side = if f[1] == "w" { "b" } else { "w" };
    let ep = if f[3] == "-" {
        "-".to_string()
    } else {
        let b = f[3].as_bytes();
        format!("{}{}", b[0] as char, (b'9' - b[1] + b'0') as char)
    };
    let mut rights: Vec<char> = swap(f[2]).chars().collect();
    rights.sort_by_key(|c| (c.is_ascii_lowercase(), *c == 'Q' || *c == 'q'));
    let rights: String = rights.into_iter().collect();
    format!(
        "{} {side} {rights} {ep} {} {}",
        placement.join("/"),
        f[4],
        f[5]
    )
}

/// A square's name seen from the other side (`a1` ↔ `a8`).
fn mirror_square(name: &str) -> String {
    let b = name.as_bytes();
    format!("{}{}", b[0] as char, (b'9' - b[1] + b'0') as char)
}

/// A game's command name.
fn gname(game: &ZeligGame) -> &'static str {
    EngineGame::name(game)
}
