//! Doppelganger Chess (docs/rules.md §2) through the server's face: the
//! hand-checkable vectors, perft from the start with the depth-3 count
//! derived by hand, every kind of removal and conversion as a scenario
//! written out in position text, the notation with and without the slash
//! choice, the `pairs=` field, `-lenient`, the drawing's pair notes, and a
//! differential check against a small independent reference generator
//! written here from the rules text.

use rules::doppelganger::{self, pairs, DoppelHooks};
use rules::orthodox::{Move, Special, State};
use rules::{self, Color, MoveError, Position, SetupError};

use crate::harness;

use harness::{play_out, reference_perft, Playout, Reference, Rng};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn game() -> &'static dyn rules::Game {
    rules::game("doppelganger").unwrap()
}

fn pos(text: &str) -> Box<dyn Position> {
    game()
        .position(text, &[])
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn lenient(text: &str) -> Box<dyn Position> {
    game()
        .position(text, &["lenient".to_string()])
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Play `input`; the canonical notation and the event sentences.
fn play(p: &mut Box<dyn Position>, input: &str) -> (String, Vec<String>) {
    let played = p
        .play(input)
        .unwrap_or_else(|e| panic!("{input} in {}: {e}", p.to_text()));
    (played.notation, played.events)
}

/// The refusal of `input` in `p`, as mailed.
fn refusal(p: &dyn Position, input: &str) -> MoveError {
    let mut copy = p.clone_box();
    match copy.play(input) {
        Ok(played) => panic!("{input} was accepted as {}", played.notation),
        Err(e) => {
            assert_eq!(copy.to_text(), p.to_text(), "a refusal changes nothing");
            e
        }
    }
}

fn actions(p: &dyn Position) -> Vec<String> {
    p.legal_actions()
}

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

// ------------------------------------------------------------ notation

#[test]
fn the_notations_of_the_issue_each_play() {
    // (position, input, canonical notation, text after)
    let cases = [
        (
            "4k3/2p4p/8/3p4/4P3/8/8/4K3 w - - 0 1",
            "exd5/c7",
            "exd5/c7",
            "4k3/7p/8/3P4/8/8/8/4K3 b - - 0 1",
        ),
        (
            "3qk3/8/8/3P4/8/8/P6P/4K3 b - - 0 1",
            "Qxd5/a2",
            "Qxd5/a2",
            "4k3/8/8/3q4/8/8/7P/4K3 w - - 0 2",
        ),
        (
            "4k3/p6p/8/2pP4/8/8/8/4K3 w - c6 0 1",
            "dxc6/a7",
            "dxc6/a7",
            "4k3/7p/2P5/8/8/8/8/4K3 b - - 0 1",
        ),
        (
            "4k3/1P6/8/8/8/8/P5P1/4K3 w - - 0 1",
            "b8=R/g2",
            "b8=R/g2+",
            "1R2k3/8/8/8/8/8/P5R1/4K3 b - - 0 1",
        ),
        (
            "4kb2/4P3/8/8/8/8/PP6/4K3 w - - 0 1",
            "exf8=N/b2",
            "exf8=N/b2",
            "4kN2/8/8/8/8/8/PN6/4K3 b - - 0 1",
        ),
        // The bracket form of the promotion piece, before the choice.
        (
            "4k3/1P6/8/8/8/8/P5P1/4K3 w - - 0 1",
            "b8(R)/g2",
            "b8=R/g2+",
            "1R2k3/8/8/8/8/8/P5R1/4K3 b - - 0 1",
        ),
    ];
    for (text, input, notation, after) in cases {
        let mut p = pos(text);
        assert_eq!(play(&mut p, input).0, notation, "{text}");
        assert_eq!(p.to_text(), after, "{input}");
        // Coordinates with the slash work too.
        let mut q = pos(text);
        let uci_like = pos(text).divide(1);
        assert!(uci_like.iter().any(|(name, _)| name.contains('/')));
        let (name, _) = uci_like
            .iter()
            .find(|(name, _)| {
                let mut r = pos(text);
                r.play(name).map(|x| x.notation).ok().as_deref() == Some(notation)
            })
            .unwrap_or_else(|| panic!("no coordinate form for {notation}: {uci_like:?}"));
        play(&mut q, name);
        assert_eq!(q.to_text(), after, "{name}");
    }
}

#[test]
fn a_missing_choice_is_answered_with_the_list_of_choices() {
    let p = pos("4k3/2p4p/8/3p4/4P3/8/8/4K3 w - - 0 1");
    match refusal(&*p, "exd5") {
        MoveError::Ambiguous { candidates, .. } => {
            assert_eq!(candidates, ["exd5/c7", "exd5/h7"])
        }
        other => panic!("{other}"),
    }
    let text = refusal(&*p, "exd5").to_string();
    assert!(text.contains("exd5/c7 or exd5/h7"), "{text}");
    // A promotion without its partner lists every pawn that can be it.
    let p = pos("4k3/1P6/8/8/8/8/P5P1/4K3 w - - 0 1");
    match refusal(&*p, "b8=N") {
        MoveError::Ambiguous { candidates, .. } => {
            assert_eq!(candidates, ["b8=N/a2", "b8=N/g2"])
        }
        other => panic!("{other}"),
    }
}

#[test]
fn the_slash_may_be_left_out_when_only_one_choice_is_legal() {
    // c7 is the only other pawn.
    let mut p = pos("4k3/2p5/8/3p4/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(play(&mut p, "exd5").0, "exd5/c7");
    // g2 is the only other pawn.
    let mut p = pos("4k3/1P6/8/8/8/8/6P1/4K3 w - - 0 1");
    assert_eq!(play(&mut p, "b7b8n").0, "b8=N/g2");
    // Taking the last pawn: nothing to choose, nothing written.
    let mut p = pos("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
    let (notation, events) = play(&mut p, "exd5");
    assert_eq!(notation, "exd5");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "4k3/8/8/3P4/8/8/8/4K3 b - - 0 1");
}

#[test]
fn a_wrong_choice_is_explained() {
    let p = pos("4k3/2p4p/8/3p4/4P3/8/8/4K3 w - - 0 1");
    let e = refusal(&*p, "exd5/e4").to_string();
    assert!(
        e.contains("e4 is not a choice") && e.contains("exd5/c7 or exd5/h7"),
        "{e}"
    );
    let e = refusal(&*p, "exd5/z9").to_string();
    assert!(e.contains("'z9' after the slash is not a square"), "{e}");
    // A move without a choice takes none.
    let e = refusal(&*p, "Kd2/c7").to_string();
    assert!(e.contains("write Kd2"), "{e}");
    // Upper case and check marks around the slash are read.
    let mut q = p.clone();
    assert_eq!(play(&mut q, "exd5+/C7").0, "exd5/c7");
}

// ------------------------------------------------------------ scenarios

#[test]
fn capturing_a_paired_piece_removes_its_partner_and_says_so() {
    let mut p = pos("2b1k3/8/5b2/6B1/8/8/8/4K3 w - - 0 1");
    let (notation, events) = play(&mut p, "Bxf6");
    assert_eq!(notation, "Bxf6");
    assert_eq!(
        events,
        ["Also removed: Bc8 (the partner of the bishop taken on f6)."]
    );
    assert_eq!(p.to_text(), "4k3/8/5B2/8/8/8/8/4K3 b - - 0 1");
    // A queen has no partner: taking it removes it alone.
    let mut p = pos("r3k2r/8/8/3q4/8/8/8/3QK3 w - - 0 1");
    let (_, events) = play(&mut p, "Qxd5");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "r3k2r/8/8/3Q4/8/8/8/4K3 b - - 0 1");
}

#[test]
fn a_piece_whose_partner_is_gone_is_removed_alone() {
    // One black knight: unpaired by the default reading.
    let mut p = pos("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1");
    let (_, events) = play(&mut p, "Rxd5");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "4k3/8/8/3R4/8/8/8/4K3 b - - 0 1");
    // Two knights the pairs= field leaves unpaired.
    let mut p = pos("1n2k3/8/8/3n4/8/8/8/3RK3 w - - 0 1 pairs=-");
    play(&mut p, "Rxd5");
    assert_eq!(p.to_text(), "1n2k3/8/8/3R4/8/8/8/4K3 b - - 0 1");
}

#[test]
fn en_passant_with_a_choice() {
    let text = "4k3/p5pp/8/2pP4/8/8/8/4K3 w - c6 0 1";
    let p = pos(text);
    let ep: Vec<String> = actions(&*p)
        .into_iter()
        .filter(|a| a.starts_with("dxc6"))
        .collect();
    assert_eq!(ep, ["dxc6/a7", "dxc6/g7", "dxc6/h7"]);
    let mut q = p.clone();
    let (notation, events) = play(&mut q, "d5c6/g7");
    assert_eq!(notation, "dxc6/g7");
    assert_eq!(events, ["Also removed: the pawn on g7."]);
    assert_eq!(q.to_text(), "4k3/p6p/2P5/8/8/8/8/4K3 b - - 0 1");
    // The double step that allows it, played: the same choice afterwards.
    let mut r = pos("4k3/p1p3pp/8/3P4/8/8/8/4K3 b - - 0 1");
    play(&mut r, "c5");
    assert_eq!(r.to_text(), text.replace(" 0 1", " 0 2"));
    assert_eq!(
        refusal(&*r, "dxc6").to_string(),
        "'dxc6' could mean dxc6/a7 or dxc6/g7 or dxc6/h7; write one of those instead."
    );
}

#[test]
fn promotion_with_capture_removes_the_partner_and_makes_a_pair() {
    let mut p = pos("r3k2r/1P6/8/8/8/8/6P1/4K3 w kq - 0 1");
    let (notation, events) = play(&mut p, "bxa8=N/g2");
    assert_eq!(notation, "bxa8=N/g2");
    assert_eq!(
        events,
        [
            "Also removed: Rh8 (the partner of the rook taken on a8).",
            "The pawn on g2 became a knight, the partner of the new knight on a8.",
        ]
    );
    // Both Black castlings are gone: a8 by the capture, h8 as a partner.
    assert_eq!(p.to_text(), "N3k3/8/8/8/8/8/6N1/4K3 b - - 0 1");
    // The new pieces are a pair: taking one takes the other.
    let mut q = pos("4k3/1P6/8/8/8/7q/6P1/4K3 w - - 0 1");
    play(&mut q, "b8=N/g2");
    let (notation, events) = play(&mut q, "Qxg2");
    assert_eq!(notation, "Qxg2");
    assert_eq!(
        events,
        ["Also removed: Nb8 (the partner of the knight taken on g2)."]
    );
    assert_eq!(q.to_text(), "4k3/8/8/8/8/8/6q1/4K3 w - - 0 2");
    // Black promotes the same way (on rank 1).
    let mut r = pos("4k3/6p1/8/8/8/8/1p6/4K3 b - - 0 1");
    assert_eq!(play(&mut r, "b1=B/g7").0, "b1=B/g7");
    assert_eq!(r.to_text(), "4k3/6b1/8/8/8/8/8/1b2K3 w - - 0 2");
}

#[test]
fn promotion_is_never_to_a_queen() {
    let p = pos("4k3/1P6/8/8/8/8/6P1/4K3 w - - 0 1");
    assert!(!actions(&*p).iter().any(|a| a.contains("=Q")));
    assert!(matches!(
        refusal(&*p, "b8=Q/g2"),
        MoveError::Unreadable { .. } | MoveError::Illegal { .. }
    ));
}

#[test]
fn four_rooks_in_two_pairs_capturing_one_removes_only_its_partner() {
    // Black's rooks: a8 with c6, f6 with h8 (the field is required with
    // four of a kind; pairs are by identity, not by where rooks stand).
    let text = "r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6a8,f6h8";
    let p = pos(text);
    assert_eq!(p.to_text(), text);
    let mut q = p.clone();
    let (notation, events) = play(&mut q, "Qxc6");
    assert_eq!(notation, "Qxc6+");
    assert_eq!(
        events,
        ["Also removed: Ra8 (the partner of the rook taken on c6)."]
    );
    // Two rooks left, and they are partners: no field needed any more.
    assert_eq!(q.to_text(), "4k2r/8/2Q2r2/8/8/8/8/4K3 b - - 0 1");
    let mut q = p.clone();
    let (_, events) = play(&mut q, "Qxf6");
    assert_eq!(
        events,
        ["Also removed: Rh8 (the partner of the rook taken on f6)."]
    );
    assert_eq!(q.to_text(), "r3k3/8/2r2Q2/8/8/8/8/4K3 b - - 0 1");
    // Differently paired, the same capture removes another rook.
    let mut q = pos("r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6h8,f6a8");
    play(&mut q, "Qxc6");
    assert_eq!(q.to_text(), "r3k3/8/2Q2r2/8/8/8/8/4K3 b - - 0 1");
}

#[test]
fn a_capture_illegal_only_because_of_the_partner_removal() {
    // Black's bishop e4, partner of b7, shields White's king from the
    // queen on e8: Rxb7 would remove it.
    let p = pos("4q2k/1b6/8/8/4b3/8/8/1R2K3 w - - 0 1");
    assert!(!actions(&*p).iter().any(|a| a.starts_with("Rxb7")));
    assert!(actions(&*p).contains(&"Rb6".to_string()));
    let e = refusal(&*p, "Rxb7").to_string();
    assert!(e.contains("would leave your king in check"), "{e}");
    // The same with a chosen pawn: removing e4 would open the e-file, so
    // a7 is the only choice, and the slash may be left out.
    let p = pos("4q2k/p7/8/3p4/4p3/8/8/3QK3 w - - 0 1");
    let takes: Vec<String> = actions(&*p)
        .into_iter()
        .filter(|a| a.starts_with("Qxd5"))
        .collect();
    assert_eq!(takes, ["Qxd5/a7"]);
    let e = refusal(&*p, "Qxd5/e4").to_string();
    assert!(e.contains("would leave your king in check"), "{e}");
    let mut q = p.clone();
    assert_eq!(play(&mut q, "Qxd5").0, "Qxd5/a7");
}

#[test]
fn taking_the_partner_of_the_checking_piece_is_an_evasion() {
    let mut p = pos("4r2k/8/8/7r/8/8/8/4K2R w - - 0 1");
    let (notation, events) = play(&mut p, "Rxh5");
    assert_eq!(notation, "Rxh5+");
    assert_eq!(
        events,
        ["Also removed: Re8 (the partner of the rook taken on h5)."]
    );
    assert_eq!(p.to_text(), "7k/8/8/7R/8/8/8/4K3 b - - 0 1");
    // A removal may give check: Black's e-pawn shielded the king.
    let mut p = pos("4k3/4p3/8/3p4/2P5/8/8/4R1K1 w - - 0 1");
    assert_eq!(play(&mut p, "cxd5/e7").0, "cxd5/e7+");
}

#[test]
fn castling_is_lost_with_a_rook_removed_as_a_partner() {
    // a8 is paired with d5; h8 has no partner.
    let text = "r3k2r/8/8/3r4/8/8/8/3RK3 w kq - 0 1 pairs=d5a8";
    let mut p = pos(text);
    assert_eq!(p.to_text(), text);
    let (_, events) = play(&mut p, "Rxd5");
    assert_eq!(
        events,
        ["Also removed: Ra8 (the partner of the rook taken on d5)."]
    );
    assert_eq!(p.to_text(), "4k2r/8/8/3R4/8/8/8/4K3 b k - 0 1");
    assert!(actions(&*p).contains(&"O-O".to_string()));
    let e = refusal(&*p, "O-O-O").to_string();
    assert!(e.contains("cannot castle (O-O-O) any more"), "{e}");
    let e = refusal(&*p, "O-O/a7").to_string();
    assert!(
        e.contains("a7 is not a choice of that move; write O-O."),
        "{e}"
    );
    // White loses a castling the same way.
    let mut p = pos("3rk3/8/8/8/3R4/8/8/R3K2R b KQ - 0 1 pairs=d4h1");
    play(&mut p, "Rxd4");
    assert_eq!(p.to_text(), "4k3/8/8/8/3r4/8/8/R3K3 w Q - 0 2");
}

#[test]
fn without_lenient_a_lone_pawn_may_not_reach_the_last_rank() {
    let p = pos("3rk3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    for input in ["b8=R", "b8", "b7b8r"] {
        let e = refusal(&*p, input).to_string();
        assert!(e.contains("no other pawn"), "{input}: {e}");
    }
    let p = pos("2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    let e = refusal(&*p, "bxc8=B").to_string();
    assert!(e.contains("no other pawn"), "{e}");
    assert_eq!(p.perft(1), 5);
}

#[test]
fn lenient_lets_a_lone_pawn_promote_to_a_single_piece() {
    let mut p = lenient("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(p.perft(1), 8);
    assert_eq!(
        actions(&*p)
            .into_iter()
            .filter(|a| a.starts_with("b8"))
            .collect::<Vec<_>>(),
        ["b8=B", "b8=N", "b8=R+"]
    );
    let (notation, events) = play(&mut p, "b8=R");
    assert_eq!(notation, "b8=R+");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "1R2k3/8/8/8/8/8/8/4K3 b - - 0 1");
    // With another pawn on the board the promotion still makes a pair.
    let p = lenient("4k3/1P6/8/8/8/8/6P1/4K3 w - - 0 1");
    assert_eq!(p.perft(1), 10);
    assert!(!actions(&*p).iter().any(|a| a == "b8=N"));
    // Two unpaired rooks: the text says so with pairs=-, and reads back.
    let mut p = lenient("4k3/1P6/8/8/8/8/8/R3K3 w - - 0 1");
    play(&mut p, "b8=R");
    let text = p.to_text();
    assert_eq!(text, "1R2k3/8/8/8/8/8/8/R3K3 b - - 0 1 pairs=-");
    assert_eq!(lenient(&text).to_text(), text);
    assert_eq!(
        p.diagram().notes,
        [
            "Pairs:",
            "  White rook a1 (no partner)",
            "  White rook b8 (no partner)"
        ]
    );
    // Taking one of them takes only that one.
    let mut p = lenient("1R2k3/8/8/8/8/1q6/8/R3K3 b - - 0 1 pairs=-");
    let (_, events) = play(&mut p, "Qxb8");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "1q2k3/8/8/8/8/8/8/R3K3 w - - 0 2");
}

// ------------------------------------------------------------ position text

#[test]
fn the_pairs_field_reads_writes_and_round_trips() {
    // Three knights need the field; it lists every pair.
    let text = "4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1 pairs=b1g1";
    assert_eq!(pos(text).to_text(), text);
    // Any order in, one order out.
    assert_eq!(
        pos("4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1 pairs=g1c1").to_text(),
        "4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1 pairs=c1g1"
    );
    // A field that says what the default says is dropped.
    assert_eq!(
        pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 pairs=a1h1,a8h8").to_text(),
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    );
    // Two rooks the field does not pair are written as such.
    let text = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 pairs=a8h8";
    assert_eq!(pos(text).to_text(), text);
    // The repetition key tells pairings apart: same placement, other pairs.
    assert_ne!(
        pos("r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6a8,f6h8").to_text(),
        pos("r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6h8,f6a8").to_text()
    );
}

#[test]
fn bad_position_texts_are_refused_with_a_reason() {
    let refused = |text: &str, words: &str| match game().position(text, &[]) {
        Err(e) => assert!(e.to_string().contains(words), "{text}: {e}"),
        Ok(p) => panic!("{text} accepted as {}", p.to_text()),
    };
    refused(
        "4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1",
        "White has 3 knights, so the position needs a pairs= field",
    );
    refused(
        "4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1 pairs=b1",
        "'b1' in pairs=",
    );
    refused("4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1 pairs=b1z9", "'b1z9'");
    refused(
        "4k3/8/8/8/8/8/8/1NB1K3 w - - 0 1 pairs=b1c1",
        "not two rooks, knights or bishops of one side and kind",
    );
    refused(
        "4k3/8/8/8/8/8/8/1NQ1KQ2 w - - 0 1 pairs=c1f1",
        "not two rooks",
    );
    refused(
        "4k3/8/8/8/8/8/8/1NN1KN2 w - - 0 1 pairs=b1c1,c1f1",
        "names c1 twice",
    );
    refused("4k3/8/8/8/8/8/8/4K3 w - - 0 1 marks=e1", "'marks=e1'");
    refused(
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 pairs=- pairs=-",
        "one field too many",
    );
    refused("NNNNNNNN/NNNNNNNN/8/8/8/8/8/k3K3 w - - 0 1", "at most 16");
}

// ------------------------------------------------------------ drawings

#[test]
fn drawings_list_the_pairs_where_the_board_does_not_show_them() {
    let p = pos("r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6a8,f6h8");
    assert_eq!(
        p.diagram().notes,
        [
            "Pairs:",
            "  Black rooks c6 and a8",
            "  Black rooks f6 and h8"
        ]
    );
    // That every drawing ends with these notes is render's test.
    // Two of a kind and paired: the board says it all.
    assert!(pos(START).diagram().notes.is_empty());
    let p = pos("4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1 pairs=b1g1");
    assert_eq!(
        p.diagram().notes,
        [
            "Pairs:",
            "  White knights b1 and g1",
            "  White knight c1 (no partner)"
        ]
    );
}

// ------------------------------------------------------------ reference generator

/// A deliberately plain Doppelganger generator written from docs/rules.md §2
/// alone, sharing nothing with the engine: the board is an 8×8 array of
/// (FEN letter, pair id), pair ids are unique over the whole game (a new
/// one per promotion), attacks are found by walking from every enemy
/// piece, and every action is tried on a copy and kept when the mover's
/// king is not attacked afterwards.
#[derive(Clone)]
struct Ref {
    sq: [[(char, u32); 8]; 8],
    white: bool,
    rights: Vec<char>,
    ep: Option<(i32, i32)>,
    lenient: bool,
    next_id: u32,
}

fn name(f: i32, r: i32) -> String {
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
}

fn square(text: &str) -> (i32, i32) {
    let b = text.as_bytes();
    ((b[0] - b'a') as i32, (b[1] - b'1') as i32)
}

impl Ref {
    fn from_text(text: &str, lenient: bool) -> Ref {
        let f: Vec<&str> = text.split(' ').collect();
        let mut sq = [['.'; 8]; 8].map(|row| row.map(|c| (c, 0)));
        for (i, row) in f[0].split('/').enumerate() {
            let r = 7 - i;
            let mut file = 0;
            for c in row.chars() {
                match c.to_digit(10) {
                    Some(d) => file += d as usize,
                    None => {
                        sq[r][file] = (c, 0);
                        file += 1;
                    }
                }
            }
        }
        let mut me = Ref {
            sq,
            white: f[1] == "w",
            rights: f[2].chars().filter(|&c| c != '-').collect(),
            ep: (f[3] != "-").then(|| square(f[3])),
            lenient,
            next_id: 1,
        };
        match f.iter().find_map(|x| x.strip_prefix("pairs=")) {
            Some("-") => {}
            Some(list) => {
                for pair in list.split(',') {
                    let id = me.new_id();
                    for s in [&pair[..2], &pair[2..]] {
                        let (f, r) = square(s);
                        me.sq[r as usize][f as usize].1 = id;
                    }
                }
            }
            None => {
                for letter in "RNBrnb".chars() {
                    let found: Vec<(usize, usize)> = (0..8)
                        .flat_map(|r| (0..8).map(move |f| (r, f)))
                        .filter(|&(r, f)| me.sq[r][f].0 == letter)
                        .collect();
                    if found.len() == 2 {
                        let id = me.new_id();
                        for (r, f) in found {
                            me.sq[r][f].1 = id;
                        }
                    }
                }
            }
        }
        me
    }

    fn new_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn at(&self, f: i32, r: i32) -> Option<char> {
        ((0..8).contains(&f) && (0..8).contains(&r)).then(|| self.sq[r as usize][f as usize].0)
    }

    fn mine(&self, c: char) -> bool {
        c != '.' && c.is_ascii_uppercase() == self.white
    }

    fn theirs(&self, c: char) -> bool {
        c != '.' && c.is_ascii_uppercase() != self.white
    }

    /// Does any piece of `white` attack (f, r)?
    fn attacked(&self, f: i32, r: i32, white: bool) -> bool {
        for pr in 0..8 {
            for pf in 0..8 {
                let c = self.sq[pr as usize][pf as usize].0;
                if c == '.' || c.is_ascii_uppercase() != white {
                    continue;
                }
                let (df, dr) = (f - pf, r - pr);
                let hit = match c.to_ascii_lowercase() {
                    'p' => df.abs() == 1 && dr == if white { 1 } else { -1 },
                    'n' => df.abs() * dr.abs() == 2,
                    'k' => df.abs() <= 1 && dr.abs() <= 1 && (df, dr) != (0, 0),
                    k => {
                        let straight = df == 0 || dr == 0;
                        let diag = df.abs() == dr.abs();
                        let fits = (df, dr) != (0, 0)
                            && match k {
                                'r' => straight,
                                'b' => diag,
                                _ => straight || diag,
                            };
                        fits && {
                            let n = df.abs().max(dr.abs());
                            (1..n).all(|i| {
                                self.at(pf + df.signum() * i, pr + dr.signum() * i) == Some('.')
                            })
                        }
                    }
                };
                if hit {
                    return true;
                }
            }
        }
        false
    }

    fn king(&self, white: bool) -> (i32, i32) {
        let k = if white { 'K' } else { 'k' };
        for r in 0..8 {
            for f in 0..8 {
                if self.sq[r as usize][f as usize].0 == k {
                    return (f, r);
                }
            }
        }
        panic!("no king")
    }

    fn in_check(&self) -> bool {
        let (f, r) = self.king(self.white);
        self.attacked(f, r, !self.white)
    }

    /// Squares of the pawns of `white`, except `but`.
    fn pawns(&self, white: bool, but: (i32, i32)) -> Vec<(i32, i32)> {
        let p = if white { 'P' } else { 'p' };
        let mut out = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                if self.sq[r as usize][f as usize].0 == p && (f, r) != but {
                    out.push((f, r));
                }
            }
        }
        out
    }

    /// Legal actions as coordinates with the choice after a slash
    /// (`e4d5/c7`, `b7b8r/g2`, castling `e1g1`).
    fn legal(&self) -> Vec<String> {
        let mut out = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                let c = self.sq[r as usize][f as usize].0;
                if !self.mine(c) {
                    continue;
                }
                let mut targets: Vec<(i32, i32)> = Vec::new();
                match c.to_ascii_lowercase() {
                    'p' => {
                        let d = if self.white { 1 } else { -1 };
                        if self.at(f, r + d) == Some('.') {
                            targets.push((f, r + d));
                            let home = if self.white { 1 } else { 6 };
                            if r == home && self.at(f, r + 2 * d) == Some('.') {
                                targets.push((f, r + 2 * d));
                            }
                        }
                        for df in [-1, 1] {
                            if let Some(t) = self.at(f + df, r + d) {
                                if self.theirs(t) || self.ep == Some((f + df, r + d)) {
                                    targets.push((f + df, r + d));
                                }
                            }
                        }
                    }
                    'n' | 'k' => {
                        for df in -2..=2i32 {
                            for dr in -2..=2i32 {
                                let ok = if c.eq_ignore_ascii_case(&'n') {
                                    df.abs() * dr.abs() == 2
                                } else {
                                    df.abs() <= 1 && dr.abs() <= 1 && (df, dr) != (0, 0)
                                };
                                if let Some(t) = self.at(f + df, r + dr) {
                                    if ok && !self.mine(t) {
                                        targets.push((f + df, r + dr));
                                    }
                                }
                            }
                        }
                    }
                    k => {
                        for df in -1..=1i32 {
                            for dr in -1..=1i32 {
                                let straight = df == 0 || dr == 0;
                                if (df, dr) == (0, 0)
                                    || (k == 'r' && !straight)
                                    || (k == 'b' && straight)
                                {
                                    continue;
                                }
                                let mut i = 1;
                                while let Some(t) = self.at(f + df * i, r + dr * i) {
                                    if self.mine(t) {
                                        break;
                                    }
                                    targets.push((f + df * i, r + dr * i));
                                    if t != '.' {
                                        break;
                                    }
                                    i += 1;
                                }
                            }
                        }
                    }
                }
                let pawn = c.eq_ignore_ascii_case(&'p');
                for (tf, tr) in targets {
                    let uci = format!("{}{}", name(f, r), name(tf, tr));
                    let mut bases = Vec::new();
                    let mut choices: Vec<(i32, i32)> = Vec::new();
                    if pawn && (tr == 0 || tr == 7) {
                        choices = self.pawns(self.white, (f, r));
                        if choices.is_empty() && !self.lenient {
                            continue;
                        }
                        for p in ["r", "n", "b"] {
                            bases.push(format!("{uci}{p}"));
                        }
                    } else {
                        let victim = if pawn && tf != f && self.at(tf, tr) == Some('.') {
                            (tf, r)
                        } else {
                            (tf, tr)
                        };
                        let v = self.sq[victim.1 as usize][victim.0 as usize].0;
                        if v.eq_ignore_ascii_case(&'p') && self.theirs(v) {
                            choices = self.pawns(!self.white, victim);
                        }
                        bases.push(uci);
                    }
                    for base in bases {
                        let full: Vec<String> = if choices.is_empty() {
                            vec![base]
                        } else {
                            choices
                                .iter()
                                .map(|&(cf, cr)| format!("{base}/{}", name(cf, cr)))
                                .collect()
                        };
                        for m in full {
                            let after = self.play(&m);
                            let (kf, kr) = after.king(self.white);
                            if !after.attacked(kf, kr, !self.white) {
                                out.push(m);
                            }
                        }
                    }
                }
            }
        }
        // Castling: the right, king and rook where they start, the squares
        // between empty, king not in check and not crossing or landing on
        // an attacked square.
        let rank = if self.white { 0 } else { 7 };
        for (letter, rook_file, between, path) in [
            ('K', 7, &[5, 6][..], &[4, 5, 6][..]),
            ('Q', 0, &[1, 2, 3][..], &[4, 3, 2][..]),
        ] {
            let letter = if self.white {
                letter
            } else {
                letter.to_ascii_lowercase()
            };
            let king = if self.white { 'K' } else { 'k' };
            let rook = if self.white { 'R' } else { 'r' };
            if self.rights.contains(&letter)
                && self.at(4, rank) == Some(king)
                && self.at(rook_file, rank) == Some(rook)
                && between.iter().all(|&f| self.at(f, rank) == Some('.'))
                && path.iter().all(|&f| !self.attacked(f, rank, !self.white))
            {
                out.push(format!("{}{}", name(4, rank), name(path[2], rank)));
            }
        }
        out.sort();
        out
    }

    /// Empty a square, with the castling right of a corner rook.
    fn remove(&mut self, (f, r): (i32, i32)) {
        self.sq[r as usize][f as usize] = ('.', 0);
        self.touch((f, r));
    }

    /// A square emptied or entered: the rights that need it go.
    fn touch(&mut self, at: (i32, i32)) {
        let lost: &[char] = match at {
            (0, 0) => &['Q'],
            (7, 0) => &['K'],
            (4, 0) => &['K', 'Q'],
            (0, 7) => &['q'],
            (7, 7) => &['k'],
            (4, 7) => &['k', 'q'],
            _ => &[],
        };
        self.rights.retain(|c| !lost.contains(c));
    }

    fn play(&self, m: &str) -> Ref {
        let (core, choice) = match m.split_once('/') {
            Some((core, c)) => (core, Some(square(c))),
            None => (m, None),
        };
        let (ff, fr) = square(&core[0..2]);
        let (tf, tr) = square(&core[2..4]);
        let promo = core.chars().nth(4);
        let mut n = self.clone();
        let (c, id) = self.sq[fr as usize][ff as usize];
        let pawn = c.eq_ignore_ascii_case(&'p');
        let victim_at = if pawn && tf != ff && self.at(tf, tr) == Some('.') {
            (tf, fr)
        } else {
            (tf, tr)
        };
        let (victim, victim_id) = self.sq[victim_at.1 as usize][victim_at.0 as usize];
        n.remove((ff, fr));
        n.remove(victim_at);
        n.touch((tf, tr));
        let placed = match promo {
            Some(p) => {
                let p = if self.white {
                    p.to_ascii_uppercase()
                } else {
                    p
                };
                let id = match choice {
                    Some(partner) => {
                        let id = n.new_id();
                        n.sq[partner.1 as usize][partner.0 as usize] = (p, id);
                        id
                    }
                    None => 0,
                };
                (p, id)
            }
            None => (c, id),
        };
        n.sq[tr as usize][tf as usize] = placed;
        if c.eq_ignore_ascii_case(&'k') && (tf - ff).abs() == 2 {
            let (rf, rt) = if tf == 6 { (7, 5) } else { (0, 3) };
            let rook = n.sq[tr as usize][rf];
            n.remove((rf as i32, tr));
            n.sq[tr as usize][rt] = rook;
        }
        if victim.eq_ignore_ascii_case(&'p') {
            if let Some(other) = choice {
                n.remove(other);
            }
        } else if victim != '.' && victim_id != 0 {
            let partner = (0..8)
                .flat_map(|r| (0..8).map(move |f| (f, r)))
                .find(|&(f, r)| n.sq[r as usize][f as usize] == (victim, victim_id));
            if let Some(at) = partner {
                n.remove(at);
            }
        }
        n.ep = (pawn && (tr - fr).abs() == 2).then_some((ff, (fr + tr) / 2));
        n.white = !self.white;
        n
    }

    /// FEN's placement field.
    fn placement(&self) -> String {
        let mut s = String::new();
        for r in (0..8).rev() {
            let mut run = 0;
            for f in 0..8 {
                match self.sq[r][f].0 {
                    '.' => run += 1,
                    c => {
                        if run > 0 {
                            s.push_str(&run.to_string());
                            run = 0;
                        }
                        s.push(c);
                    }
                }
            }
            if run > 0 {
                s.push_str(&run.to_string());
            }
            if r > 0 {
                s.push('/');
            }
        }
        s
    }

    /// Every pair as `a1h1`, a1 first within and between pairs.
    fn pairs(&self) -> Vec<String> {
        let mut by_id: Vec<(u32, Vec<(i32, i32)>)> = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                let id = self.sq[r as usize][f as usize].1;
                if id == 0 || self.sq[r as usize][f as usize].0 == '.' {
                    continue;
                }
                match by_id.iter_mut().find(|(i, _)| *i == id) {
                    Some((_, v)) => v.push((f, r)),
                    None => by_id.push((id, vec![(f, r)])),
                }
            }
        }
        let mut out: Vec<((i32, i32), String)> = by_id
            .into_iter()
            .filter(|(_, v)| v.len() == 2)
            .map(|(_, v)| {
                (
                    (v[0].1, v[0].0),
                    format!("{}{}", name(v[0].0, v[0].1), name(v[1].0, v[1].1)),
                )
            })
            .collect();
        out.sort();
        out.into_iter().map(|(_, s)| s).collect()
    }
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

impl Reference for Ref {
    fn legal(&self) -> Vec<String> {
        Ref::legal(self)
    }
    fn play(&self, m: &str) -> Ref {
        Ref::play(self, m)
    }
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
