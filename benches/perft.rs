//! Perft throughput: `cargo bench --bench perft` (release). A plain main
//! that times and prints; no harness.

use std::time::Instant;

use pbmchess::rules;

fn time(game: &str, label: &str, fen: Option<&str>, depth: u32) {
    let g = rules::game(game).expect("game");
    let p = match fen {
        Some(fen) => g.position(fen, &[]).expect("position"),
        None => g.start(&[]).expect("start"),
    };
    let t = Instant::now();
    let n = p.perft(depth);
    let s = t.elapsed().as_secs_f64();
    println!(
        "{game:12} {label:10} perft({depth}) = {n:>11}  {s:7.2} s  {:6.1} M leaves/s",
        n as f64 / s / 1e6
    );
}

fn main() {
    time("chess", "start", None, 5);
    time("chess", "start", None, 6);
    time(
        "chess",
        "kiwipete",
        Some("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        5,
    );
    if rules::game("doublechess").is_some() {
        time("doublechess", "start", None, 4);
    }
}
