//! The computer player's search speed: `cargo bench --bench computer`
//! prints nodes per second for every game, searched to a fixed depth from
//! a position a few plies into the game (the same plies every run). The
//! full strength sample (a hundred games per game against a random
//! player) is `cargo test -p pbmchess-computer --test it strength --
//! --ignored`.
//! A plain main; no harness. Under `cargo test --all-targets` (no
//! `--bench` argument) it searches shallower.

use std::time::Instant;

use computer::Limits;

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    for game in rules::registry() {
        let mut position = game.start(&[]).expect("start");
        // A few plies in: the first legal action each time, then the
        // second, so that the position is not the bare start.
        for i in 0..6 {
            let actions = position.legal_actions();
            let pick = actions[i % 2 % actions.len()].clone();
            position.play(&pick).expect("legal");
        }
        let depth = match (bench, game.name()) {
            (false, _) => 2,
            (true, "temporal" | "shadowchess") => 3,
            (true, _) => 5,
        };
        let t = Instant::now();
        let found = computer::choose(position.as_ref(), Limits::depth(depth)).expect("a move");
        let s = t.elapsed().as_secs_f64();
        println!(
            "{:12} depth {depth}  {:>9} nodes  {s:7.2} s  {:>9.0} nodes/s  best {} ({})",
            game.name(),
            found.nodes,
            found.nodes as f64 / s,
            found.notation,
            found.score
        );
    }
}
