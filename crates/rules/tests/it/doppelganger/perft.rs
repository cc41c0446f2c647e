//! The game's face, perft counts by hand and against the reference
//! generator, and random playouts checked against it.

use super::reference::Ref;
use super::*;

// ------------------------------------------------------------ the face

#[test]
fn the_game_face_and_its_one_option() {
    let g = game();
    assert_eq!(g.name(), "doppelganger");
    assert_eq!(g.title(), "Doppelganger Chess");
    assert_eq!(g.options(), &["lenient"]);
    let p = g.start(&[]).unwrap();
    // The start needs no pairs= field: two of each kind are the pairs.
    assert_eq!(p.to_text(), START);
    assert_eq!(p.to_act(), Color::White);
    assert!(p.diagram().notes.is_empty());
    assert_eq!(
        g.start(&["lenient".into()]).unwrap().to_text(),
        START,
        "the option is the board's, not the position's"
    );
    match g.start(&["queens".into()]) {
        Err(e @ SetupError::UnknownOption { .. }) => {
            assert!(e.to_string().contains("-lenient"), "{e}")
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("-queens accepted"),
    }
}

// ------------------------------------------------------------ perft

#[test]
fn the_hand_checkable_vectors_of_rules_md() {
    // Rxh5 is legal: it takes the rook on h5, whose partner e8 is the
    // checking piece. The other four are king moves off the e-file.
    let p = pos("4r2k/8/8/7r/8/8/8/4K2R w - - 0 1");
    assert_eq!(p.perft(1), 5);
    assert_eq!(actions(&*p), ["Kd1", "Kd2", "Kf1", "Kf2", "Rxh5+"]);
    // No promotion without a second pawn: the five king moves only.
    let p = pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(p.perft(1), 5);
    assert!(actions(&*p).iter().all(|a| a.starts_with('K')));
    // With g2 there: five king moves, g3, g4, and b8 = R, N or B with g2
    // as the partner.
    let p = pos("4k3/1P6/8/8/8/8/6P1/4K3 w - - 0 1");
    assert_eq!(p.perft(1), 10);
    for a in ["b8=R/g2+", "b8=N/g2", "b8=B/g2", "g3", "g4"] {
        assert!(
            actions(&*p).contains(&a.to_string()),
            "{a}: {:?}",
            actions(&*p)
        );
    }
}

/// Perft from the start. Depths 1 and 2 are the orthodox 20 and 400: no
/// capture is possible yet. At depth 3 the orthodox count is 8902, of
/// which 34 are captures. Four of those take a knight (1.e3/e4 Na6
/// 2.Bxa6, 1.d3/d4 Nh6 2.Bxh6): the partner knight goes too, still one
/// action each. The other 30 take a pawn:
///   pawn takes pawn, a White pawn on rank 4 and a Black one beside it on
///   rank 5: a4xb5, b4xa5/c5, …, h4xg5 = 1+2+2+2+2+2+2+1 = 14;
///   knights: Na3xb5, Nc3xb5/d5, Nf3xe5/g5, Nh3xg5 = 6;
///   queen: 1.e3/e4 h5 2.Qxh5 = 2;
///   bishops: after e3/e4 Bxb5 and Bxa6 (pawn a6), after d3/d4 Bxg5 and
///   Bxh6 (pawn h6) = 8.
/// Each pawn capture leaves Black 7 other pawns to choose from, so it is 7
/// actions instead of 1 (no choice can expose White's king this early):
/// 8902 + 30 × 6 = 9082.
#[test]
fn perft_from_the_start() {
    let p = game().start(&[]).unwrap();
    assert_eq!(p.perft(1), 20);
    assert_eq!(p.perft(2), 400);
    assert_eq!(p.perft(3), 8902 + 30 * 6);
    let d4 = p.perft(4);
    assert_eq!(d4, 209_736);
    assert_eq!(reference_perft(&Ref::from_text(START, false), 4), d4);
    // -lenient changes nothing this early.
    let l = game().start(&["lenient".into()]).unwrap();
    assert_eq!(l.perft(3), 9082);
}

#[test]
#[ignore = "slow: run with --ignored"]
fn perft_from_the_start_depth_5_agrees_with_the_reference() {
    let p = game().start(&[]).unwrap();
    let n = p.perft(5);
    assert_eq!(n, reference_perft(&Ref::from_text(START, false), 5));
    eprintln!("doppelganger perft(5) = {n}");
}

#[test]
fn the_reference_agrees_on_the_hand_checkable_vectors() {
    for (text, lenient, n) in [
        ("4r2k/8/8/7r/8/8/8/4K2R w - - 0 1", false, 5),
        ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", false, 5),
        ("4k3/1P6/8/8/8/8/6P1/4K3 w - - 0 1", false, 10),
        ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", true, 8),
    ] {
        assert_eq!(
            reference_perft(&Ref::from_text(text, lenient), 1),
            n,
            "{text}"
        );
    }
    assert_eq!(reference_perft(&Ref::from_text(START, false), 3), 9082);
}

/// The random playouts' checks and choices, and what they counted.
#[derive(Default)]
struct Counts {
    choices: usize,
    promotions: usize,
    removals: usize,
}

impl Playout for Counts {
    type Hooks = DoppelHooks;
    type Ref = Ref;

    fn check(&mut self, mine: &State<DoppelHooks>, reference: &Ref, here: &str) {
        assert_eq!(mine.is_check(), reference.in_check(), "{here}");
        let fen = mine.fen();
        let fields: Vec<&str> = fen.split(' ').collect();
        assert_eq!(fields[0], reference.placement(), "{here}");
        let mut rights: Vec<char> = fields[2].chars().filter(|&c| c != '-').collect();
        let mut theirs = reference.rights.clone();
        rights.sort();
        theirs.sort();
        assert_eq!(rights, theirs, "{here}");
        let pairs: Vec<String> = pairs::all(mine)
            .into_iter()
            .map(|(a, b)| format!("{a}{b}"))
            .collect();
        assert_eq!(pairs, reference.pairs(), "{here}");
        // The text reads back to the same position.
        let reread = State::from_fen(mine.variant(), &fen).unwrap();
        assert_eq!(reread.fen(), fen, "{here}");
    }

    /// Prefer captures and promotions, to exercise the removals.
    fn choose(&mut self, mine: &State<DoppelHooks>, legal: &[Move], rng: &mut Rng) -> usize {
        let busy: Vec<usize> = (0..legal.len())
            .filter(|&i| {
                mine.is_capture(legal[i]) || matches!(legal[i].special, Special::Promotion(_))
            })
            .collect();
        if !busy.is_empty() && rng.usize(..3) > 0 {
            busy[rng.usize(..busy.len())]
        } else {
            rng.usize(..legal.len())
        }
    }

    fn played(&mut self, before: &State<DoppelHooks>, m: Move, after: &State<DoppelHooks>) {
        self.choices += usize::from(m.choice.is_some());
        self.promotions += usize::from(matches!(m.special, Special::Promotion(_)));
        self.removals += usize::from(before.pieces().count() - after.pieces().count() >= 2);
    }
}

#[test]
fn random_playouts_agree_with_the_reference() {
    let starts = [
        (START, false),
        (START, true),
        // Pawns about to promote, by step and by capture, castling open,
        // an en passant capture ready.
        ("r3k2r/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQkq c6 0 1", false),
        ("r3k2r/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQkq c6 0 1", true),
        // Lone pawns: promotion only with -lenient.
        ("r3k3/1P6/8/8/8/8/6p1/4K2R w Kq - 0 1", false),
        ("r3k3/1P6/8/8/8/8/6p1/4K2R w Kq - 0 1", true),
        // Four rooks in crossed pairs and open lines.
        (
            "r3k2r/pp3ppp/2r2r2/8/8/2R2R2/PP3PPP/R3K2R w KQkq - 0 1 pairs=c6h8,f6a8,a1f3,c3h1",
            false,
        ),
    ];
    let mut rng = Rng::with_seed(0xD0_99E1_6A4E);
    let mut counts = Counts::default();
    let positions = play_out(&mut counts, &mut rng, "", 70, 100, |game| {
        let (text, lenient) = starts[game % starts.len()];
        (
            State::from_fen(doppelganger::variant(lenient), text).unwrap(),
            Ref::from_text(text, lenient),
        )
    });
    let Counts {
        choices,
        promotions,
        removals,
    } = counts;
    assert!(positions > 2000, "{positions}");
    assert!(choices > 100, "{choices}");
    assert!(promotions > 20, "{promotions}");
    assert!(removals > 150, "{removals}");
}
