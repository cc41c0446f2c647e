//! Differential test: our move generator, check detection, SAN and FEN
//! against cozy-chess (MIT, dev-dependency only) along seeded random
//! playouts from every perft vector.

use cozy_chess::util::{display_uci_move, parse_san_move, parse_uci_move};
use rules::chess;
use rules::orthodox::State;

const STARTS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
];

/// FEN fields both sides write the same way (en passant conventions differ,
/// and cozy-chess stops its halfmove clock at 100).
fn comparable(fen: &str) -> String {
    let f: Vec<&str> = fen.split(' ').collect();
    let halfmove = f[4].parse::<u32>().unwrap().min(100);
    format!("{} {} {} {} {}", f[0], f[1], f[2], halfmove, f[5])
}

#[test]
fn random_playouts_agree_with_cozy_chess() {
    // Seeded, so failures replay.
    let mut rng = fastrand::Rng::with_seed(0x1234_5678_9ABC_DEF1);
    let mut positions = 0;
    let mut mates = 0;
    let mut stalemates = 0;
    for game in 0..300 {
        let fen = STARTS[game % STARTS.len()];
        let mut mine = State::from_fen(chess::variant(), fen).unwrap();
        let mut theirs = cozy_chess::Board::from_fen(fen, false).unwrap();
        for ply in 0..200 {
            positions += 1;
            let here = format!("game {game} ply {ply}: {}", mine.fen());
            assert_eq!(
                comparable(&mine.fen()),
                comparable(&theirs.to_string()),
                "{here}"
            );
            let legal = mine.legal_moves();
            let mut ours: Vec<String> = legal.iter().map(|&m| mine.uci(m)).collect();
            ours.sort();
            let mut cozy = Vec::new();
            theirs.generate_moves(|ms| {
                for m in ms {
                    cozy.push(display_uci_move(&theirs, m).to_string());
                }
                false
            });
            cozy.sort();
            assert_eq!(ours, cozy, "{here}");
            // The last ply's count (perft's bulk counting) takes its own
            // path through the generator: it agrees too.
            assert_eq!(mine.legal_move_count(), cozy.len(), "{here}: count");
            assert_eq!(mine.is_check(), !theirs.checkers().is_empty(), "{here}");
            if legal.is_empty() {
                if mine.is_check() {
                    mates += 1;
                } else {
                    stalemates += 1;
                }
                break;
            }
            // Our SAN is read by cozy-chess as the same move, and by us.
            for &m in &legal {
                let san = mine.san(m);
                let theirs_mv = parse_san_move(&theirs, &san)
                    .unwrap_or_else(|e| panic!("{here}: cozy cannot read {san}: {e:?}"));
                assert_eq!(
                    display_uci_move(&theirs, theirs_mv).to_string(),
                    mine.uci(m),
                    "{here}: {san}"
                );
                assert_eq!(mine.parse_move(&san), Ok(m), "{here}: {san}");
                assert_eq!(mine.parse_move(&mine.uci(m)), Ok(m), "{here}: {san}");
                let after = cozy_after(&theirs, theirs_mv);
                let suffix = if after.checkers().is_empty() {
                    ""
                } else if after.generate_moves(|_| true) {
                    "+"
                } else {
                    "#"
                };
                let ours_suffix = san.trim_start_matches(|c| c != '+' && c != '#');
                assert_eq!(ours_suffix, suffix, "{here}: {san}");
            }
            let m = legal[rng.usize(..legal.len())];
            let uci = mine.uci(m);
            theirs.play(parse_uci_move(&theirs, &uci).unwrap());
            mine.make(m);
        }
    }
    assert!(positions > 20_000, "{positions}");
    eprintln!("{positions} positions, {mates} mates, {stalemates} stalemates");
}

fn cozy_after(board: &cozy_chess::Board, mv: cozy_chess::Move) -> cozy_chess::Board {
    let mut b = board.clone();
    b.play(mv);
    b
}
