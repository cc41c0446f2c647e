//! Perft throughput: `cargo bench --bench perft` (release). A plain main
//! that times and prints; no harness. Under `cargo test --all-targets`
//! (no `--bench` argument) only the quick cases run; every case checks its
//! count against the published one.

use std::time::Instant;

use pbmchess::rules;

fn time(game: &str, label: &str, fen: Option<&str>, depth: u32, expected: u64) {
    let g = rules::game(game).expect("game");
    let p = match fen {
        Some(fen) => g.position(fen, &[]).expect("position"),
        None => g.start(&[]).expect("start"),
    };
    let t = Instant::now();
    let n = p.perft(depth);
    let s = t.elapsed().as_secs_f64();
    assert_eq!(n, expected, "{game} {label} perft({depth})");
    println!(
        "{game:12} {label:10} perft({depth}) = {n:>11}  {s:7.2} s  {:6.1} M leaves/s",
        n as f64 / s / 1e6
    );
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    time("chess", "start", None, 5, 4_865_609);
    time("doublechess", "start", None, 4, 3_050_767);
    if full {
        time("chess", "start", None, 6, 119_060_324);
        time(
            "chess",
            "kiwipete",
            Some("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
            5,
            193_690_690,
        );
        time("doppelganger", "start", None, 5, 5_655_848);
        time("zelig", "start", None, 5, 4_877_958);
        time("mchess", "start", None, 5, 5_431_209);
        time("temporal", "start", None, 3, 1_061_984);
    }
}
