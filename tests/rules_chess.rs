//! Orthodox chess through the server's face: perft vectors (rules.md §0),
//! move reading, SAN, FEN, and every automatic game end.

use pbmchess::rules::{self, Color, Ending, MoveError, Outcome, Position};

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

fn check_perft(fen: &str, counts: &[u64]) {
    let p = pos(fen);
    for (d, &n) in counts.iter().enumerate() {
        assert_eq!(p.perft(d as u32 + 1), n, "{fen} depth {}", d + 1);
    }
}

#[test]
fn perft_start_to_depth_4() {
    check_perft(START, &[20, 400, 8902, 197281]);
}

#[test]
fn perft_kiwipete_to_depth_4() {
    check_perft(KIWIPETE, &[48, 2039, 97862, 4085603]);
}

#[test]
fn perft_position_3_to_depth_5() {
    check_perft(POS3, &[14, 191, 2812, 43238, 674624]);
}

#[test]
fn perft_position_4_to_depth_4() {
    check_perft(POS4, &[6, 264, 9467, 422333]);
}

#[test]
fn perft_position_5_to_depth_4() {
    check_perft(POS5, &[44, 1486, 62379, 2103487]);
}

#[test]
fn perft_position_6_to_depth_4() {
    check_perft(POS6, &[46, 2079, 89890, 3894594]);
}

#[test]
#[ignore = "slow: run with --ignored (release recommended)"]
fn perft_start_depth_5_and_6() {
    let p = pos(START);
    assert_eq!(p.perft(5), 4865609);
    assert_eq!(p.perft(6), 119060324);
}

#[test]
#[ignore = "slow: run with --ignored (release recommended)"]
fn perft_deep_vectors() {
    assert_eq!(pos(KIWIPETE).perft(5), 193690690);
    assert_eq!(pos(POS3).perft(6), 11030083);
    assert_eq!(pos(POS4).perft(5), 15833292);
    assert_eq!(pos(POS5).perft(5), 89941194);
    assert_eq!(pos(POS6).perft(5), 164075551);
}
