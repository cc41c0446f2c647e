//! The game's face, perft counts, and random playouts checked against the
//! reference generator.

use super::reference::Ref;
use super::*;

// ------------------------------------------------------------ the face

#[test]
fn game_face_and_start() {
    let g = rules::game("doublechess").unwrap();
    assert_eq!(g.name(), "doublechess");
    assert_eq!(g.title(), "Double Chess");
    let p = g.start(&[]).unwrap();
    assert_eq!(p.to_text(), START);
    assert_eq!(p.game().name(), "doublechess");
    let d = p.diagram();
    let grid = &d.boards[0];
    assert_eq!((grid.files, grid.ranks), (16, 8));
    assert_eq!(grid.at(8, 0)[0].letter, 'K');
    assert_eq!(grid.at(12, 7)[0].letter, 'Q');
    assert_eq!(grid.at(12, 7)[0].color, Color::Black);
    assert!(g.start(&["x".into()]).is_err());
}

// ------------------------------------------------------------ perft

#[test]
fn perft_from_the_start() {
    let p = pos(START);
    // d1: 16 pawns × 2 (single and double step) = 32, plus 4 knights × 2
    // (b1: a3 c3; f1: e3 g3; k1: j3 l3; o1: n3 p3; the d/h/j/l/m pawns
    // block the rest) = 8. Nothing else can move: 40.
    assert_eq!(p.perft(1), 40);
    // d2: no White first move touches Black's pieces or squares (nothing
    // passes rank 4), so Black has the same 40 replies: 40 × 40.
    assert_eq!(p.perft(2), 1600);
    // d3: checked against the reference generator below.
    assert_eq!(p.perft(3), 70008);
    assert_eq!(reference_perft(&Ref::from_fen(START), 3), 70008);
}

#[test]
fn perft_with_castling_open() {
    // INSIDE, White: 16 pawns × 2 = 32; king h1, j1 = 2; rook a1: b1 c1 d1
    // = 3; rook e1: b1 c1 d1 and f1 g1 h1 = 6; rook l1: j1 k1 and m1 n1 o1
    // = 5; rook p1: m1 n1 o1 = 3; O-O and O-O-O = 2 (O-O-O-O is blocked by
    // the rook on l1, O-O-O-O-O by the rook on e1). Total 53.
    let p = pos(INSIDE);
    assert_eq!(p.perft(1), 53);
    let acts = p.legal_actions();
    assert!(acts.contains(&"O-O".to_string()) && acts.contains(&"O-O-O".to_string()));
    assert!(!acts.iter().any(|a| a == "O-O-O-O" || a == "O-O-O-O-O"));
    // Black mirrors White and the pawn walls keep the armies apart: 53².
    assert_eq!(p.perft(2), 53 * 53);
    let d3 = p.perft(3);
    assert_eq!(d3, reference_perft(&Ref::from_fen(INSIDE), 3));
    // OUTSIDE, White: 32 pawn moves; king h1, j1 = 2; rook a1: b1…h1 = 7;
    // rook p1: j1…o1 = 6; O-O-O-O and O-O-O-O-O = 2. Total 49.
    let p = pos(OUTSIDE);
    assert_eq!(p.perft(1), 49);
    let acts = p.legal_actions();
    assert!(acts.contains(&"O-O-O-O".to_string()) && acts.contains(&"O-O-O-O-O".to_string()));
    assert_eq!(p.perft(2), 49 * 49);
    assert_eq!(p.perft(3), reference_perft(&Ref::from_fen(OUTSIDE), 3));
}

#[test]
#[ignore = "slow: run with --ignored (release recommended); see also benches/perft.rs"]
fn perft_from_the_start_depth_4() {
    let p = pos(START);
    let n = p.perft(4);
    assert_eq!(n, 3_050_767);
    assert_eq!(n, reference_perft(&Ref::from_fen(START), 4));
    eprintln!("doublechess perft(4) = {n}");
}

/// The random playouts' checks and choices: how often castling was
/// preferred.
struct Castlings(usize);

impl Playout for Castlings {
    type Hooks = Orthodox;
    type Ref = Ref;

    fn check(&mut self, mine: &State, reference: &Ref, here: &str) {
        assert_eq!(
            mine.is_check(),
            reference.attacked_king(reference.white),
            "{here}"
        );
        let mut rights: Vec<char> = mine
            .fen()
            .split(' ')
            .nth(2)
            .unwrap()
            .chars()
            .filter(|&c| c != '-')
            .collect();
        let mut theirs = reference.rights.clone();
        rights.sort();
        theirs.sort();
        assert_eq!(rights, theirs, "{here}");
    }

    /// Prefer castling when it is there, to exercise it.
    fn choose(&mut self, _mine: &State, legal: &[Move], rng: &mut Rng) -> usize {
        let castle = legal
            .iter()
            .position(|m| matches!(m.special, rules::orthodox::Special::Castle(_)));
        match castle {
            Some(i) if rng.usize(..2) == 0 => {
                self.0 += 1;
                i
            }
            _ => rng.usize(..legal.len()),
        }
    }
}

#[test]
fn random_playouts_agree_with_the_reference() {
    let starts = [
        START,
        INSIDE,
        OUTSIDE,
        // Open armies with castling rights, so castling and checks happen.
        "r3r3k2r3r/pp2p1pp1pp1pp1p/2n2b3q3n2/16/16/2N2B3Q3N2/PP2P1PP1PP1PP1P/R3R3K2R3R w LEPAlepa - 0 1",
        "r7k6r/p6ppp5p/3q8b3/16/16/3Q8B3/P6PPP5P/R7K6R w PApa - 0 1",
    ];
    let mut rng = Rng::with_seed(0x5EED_0FD0_0B1E);
    let mut counted = Castlings(0);
    let positions = play_out(&mut counted, &mut rng, "", 60, 120, |game| {
        let fen = starts[game % starts.len()];
        (
            State::from_fen(doublechess::variant(), fen).unwrap(),
            Ref::from_fen(fen),
        )
    });
    let castlings = counted.0;
    assert!(positions > 3000, "{positions}");
    assert!(castlings > 20, "{castlings}");
}
