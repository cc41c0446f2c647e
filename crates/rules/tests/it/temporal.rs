//! Temporal Chess (docs/rules.md §5) through the server's face: perft hand
//! counts, every rule of §5 as a scenario from position text, notation and
//! refusals, position text, the diagram and the event sentences, and a
//! differential check against a plain reference implementation written
//! here from the rules text (`reference` below).

use std::collections::BTreeMap;

use rules::engine::Engine;
use rules::engine::EngineGame;
use rules::temporal::{State, Temporal};
use rules::{self, Color, Ending, Game, MoveError, Outcome, Played, Position};

use crate::harness;

use harness::Rng;

const START: &str =
    "phase=place side=w white=- black=- wres=K1Q1R2B2N2U8 bres=K1Q1R2B2N2U8 clock=0";

fn game() -> &'static dyn Game {
    rules::game("temporal").expect("temporal is registered")
}

fn pos(text: &str) -> Box<dyn Position> {
    game()
        .position(text, &[])
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play_ok(p: &mut Box<dyn Position>, input: &str) -> Played {
    p.play(input)
        .unwrap_or_else(|e| panic!("{input} in {}: {e}", p.to_text()))
}

fn refusal(text: &str, input: &str) -> String {
    match pos(text).play(input) {
        Err(e @ MoveError::Illegal { .. }) => e.to_string(),
        other => panic!("{input} in {text}: {other:?}"),
    }
}

fn legal(text: &str) -> Vec<String> {
    pos(text).legal_actions()
}

/// The `white=` or `black=` field of a position text.
fn field<'a>(text: &'a str, key: &str) -> &'a str {
    text.split(' ')
        .find_map(|f| f.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("{key} in {text}"))
}

// ------------------------------------------------------------ the face

#[test]
fn game_face_start_and_diagram() {
    let g = game();
    assert_eq!(g.name(), "temporal");
    assert_eq!(g.title(), "Temporal Chess");
    let p = g.start(&[]).unwrap();
    assert_eq!(p.to_text(), START);
    assert_eq!(p.to_act(), Color::White);
    assert_eq!(p.outcome(), Outcome::Ongoing);
    assert!(g.start(&["x".into()]).is_err());

    let p = pos("phase=play side=b white=K@Aa1,R@Ab1(C1),R@Bb1 black=R@Ad1,U@Cc3(V2),K@Dd4 wres=N1 bres=U1 clock=3");
    let d = p.diagram();
    let labels: Vec<&str> = d.boards.iter().map(|g| g.label.as_str()).collect();
    assert_eq!(labels, ["Level A", "Level B", "Level C", "Level D"]);
    for grid in &d.boards {
        assert_eq!((grid.files, grid.ranks), (4, 4));
    }
    // Ab1: level A, file b, rank 1; the vanished unicorn is not drawn.
    assert_eq!(d.boards[0].at(1, 0)[0].letter, 'R');
    assert_eq!(d.boards[3].at(3, 3)[0].color, Color::Black);
    assert!(d.boards[2].at(2, 2).is_empty());
    assert_eq!(
        d.notes,
        [
            "White's reserve: a knight.",
            "Black's reserve: a unicorn.",
            "White's rook on Ab1 is an original (1 counter): it is removed at the end of White's next turn; capturing it wins for Black.",
            "Black's unicorn has vanished on Cc3 (2 counters): it reappears after 2 more of Black's turns.",
        ]
    );
    let start = game().start(&[]).unwrap().diagram();
    assert_eq!(start.notes[0], "The kings are placed first, White's and then Black's, which may not stand next to White's.");
    assert_eq!(
        start.notes[1],
        "White's reserve: a king, a queen, 2 rooks, 2 bishops, 2 knights and 8 unicorns."
    );
    assert_eq!(start.notes[3], "No warps are running.");
}

// ------------------------------------------------------------ perft

#[test]
fn perft_from_the_start() {
    let p = game().start(&[]).unwrap();
    // White's king on any of the 64 cells.
    assert_eq!(p.perft(1), 64);
    // Black's on any other cell not touching it: 64 × 63 minus the 936
    // ordered adjacent pairs (the lone king's moves summed, docs/rules.md).
    assert_eq!(p.perft(2), 64 * 63 - 936);
    // Ply 3 is White's first turn with both kings on the field and
    // nothing else: per pair of kings,
    //   drops:    5 kinds × 62 vacant cells, minus the cells from which
    //             the dropped piece would attack Black's king;
    //   moves:    the king's steps to cells not touching Black's king;
    //   clones:   6 counter choices × those same steps (the duplicate is
    //             the royal king and must be safe; the original may stay);
    //   vanishes: 6 (a vanished king cannot be in check).
    // The knight's checking cells can be summed by hand: a cell with k
    // of its 3 coordinates inside (1 or 2) has 2 × (3 + k) leaps and
    // 7, 11, 17, 26 neighbours for k = 0..3, and Black's king on it is
    // checked from each leap cell for every White king not touching it
    // and not on that cell: Σ leaps × (62 − neighbours) = 8·6·55 +
    // 24·8·51 + 24·10·45 + 8·12·36 = 26688. The other kinds' counts (the
    // White king blocks lines) come from the reference below: queen
    // 72232, rook 27480, bishop 31560, unicorn 13192. So drops are
    // 3096 × 310 − 171152 = 788608, and with 36400 king steps over all
    // pairs (from the reference): 788608 + 7 × 36400 + 6 × 3096 = 1061984.
    assert_eq!(reference::start_counts(), (788_608, 36_400, 26_688));
    assert_eq!(p.perft(3), 788_608 + 7 * 36_400 + 6 * 3096);
    assert_eq!(p.perft(3), 1_061_984);
    assert_eq!(
        reference::perft(&reference::Ref::parse(START), 3),
        1_061_984
    );
}

#[test]
#[ignore = "slow: perft(4) from the start, about 10 s; run with --ignored"]
fn perft_from_the_start_depth_4() {
    let p = game().start(&[]).unwrap();
    let n = p.perft(4);
    eprintln!("temporal perft(4) = {n}");
    assert_eq!(n, 347_495_864);
}

#[test]
#[ignore = "slow: the reference implementation's perft(4), a few minutes; run with --ignored"]
fn perft_from_the_start_depth_4_matches_the_reference() {
    assert_eq!(
        reference::perft(&reference::Ref::parse(START), 4),
        347_495_864
    );
}

#[test]
fn perft_of_the_rules_md_position() {
    // 15 moves (king Aa1: 7 steps; rook Ad1: Ad2 Ad3 Ad4, Ac1 Ab1, Bd1
    // Cd1 and xDd1), 12 vanishes (2 pieces × 6), 6 × 15 clones.
    let text = "phase=play side=w white=K@Aa1,R@Ad1 black=N@Dd1,K@Dd4 wres=- bres=U1 clock=0";
    let p = pos(text);
    assert_eq!(p.perft(1), 117);
    let acts = p.legal_actions();
    assert_eq!(acts.iter().filter(|a| a.starts_with('V')).count(), 12);
    assert_eq!(acts.iter().filter(|a| a.starts_with('C')).count(), 90);
    assert!(acts.contains(&"Ad1xDd1".to_string()));
    assert!(acts.contains(&"C6:Ad1xDd1".to_string()));
    assert_eq!(
        p.perft(2),
        reference::perft(&reference::Ref::parse(text), 2)
    );
    assert_eq!(
        p.perft(3),
        reference::perft(&reference::Ref::parse(text), 3)
    );
}

// ------------------------------------------------------------ placement

#[test]
fn the_kings_are_placed_first_and_not_next_to_each_other() {
    let mut p = game().start(&[]).unwrap();
    let e = p.play("Q@Bb2").unwrap_err().to_string();
    assert!(e.contains("the game opens with the kings"), "{e}");
    assert!(e.contains("K@Bb2"), "{e}");
    let e = p.play("Bb2").unwrap_err().to_string();
    assert!(e.contains("place yours like K@Bb2"), "{e}");
    assert_eq!(play_ok(&mut p, "k@bb2").notation, "K@Bb2");
    assert_eq!(
        p.to_text(),
        "phase=place side=b white=K@Bb2 black=- wres=Q1R2B2N2U8 bres=K1Q1R2B2N2U8 clock=0"
    );
    // Black: not on White's king, not touching it (26 neighbours).
    assert_eq!(p.legal_actions().len(), 63 - 26);
    let e = p.play("K@Cc3").unwrap_err().to_string();
    assert!(e.contains("Cc3 is next to White's king on Bb2"), "{e}");
    let e = p.play("K@Bb2").unwrap_err().to_string();
    assert!(e.contains("Bb2 holds White's king"), "{e}");
    assert_eq!(play_ok(&mut p, "K@Dd4").notation, "K@Dd4");
    assert_eq!(
        p.to_text(),
        "phase=play side=w white=K@Bb2 black=K@Dd4 wres=Q1R2B2N2U8 bres=Q1R2B2N2U8 clock=0"
    );
    let e = p.play("K@Aa1").unwrap_err().to_string();
    assert!(e.contains("the kings are placed only at the start"), "{e}");
}

// ------------------------------------------------------------ drops

#[test]
fn a_drop_may_block_a_check() {
    // Black's rook on Ad1 checks along the files of level A, rank 1.
    let text = "phase=play side=w white=K@Aa1 black=R@Ad1,K@Dd4 wres=N1 bres=- clock=7";
    let acts = legal(text);
    let drops: Vec<&String> = acts.iter().filter(|a| a.contains('@')).collect();
    assert_eq!(drops, ["N@Ab1", "N@Ac1"]);
    let e = refusal(text, "N@Bb2");
    assert!(
        e.contains("after it your king on Aa1 would be attacked by Black's rook on Ad1"),
        "{e}"
    );
    let mut p = pos(text);
    play_ok(&mut p, "N@Ac1");
    // A drop resets the move clock.
    assert!(p.to_text().ends_with("clock=0"), "{}", p.to_text());
}

#[test]
fn a_drop_may_not_give_check() {
    let text = "phase=play side=w white=K@Aa1 black=K@Dd4 wres=R1 bres=- clock=0";
    // From Dd4 a rook line reaches 3 cells along each axis: 62 − 9.
    assert_eq!(legal(text).iter().filter(|a| a.contains('@')).count(), 53);
    let e = refusal(text, "R@Dd1");
    assert_eq!(
        e,
        "R@Dd1 is not a legal move: a rook on Dd1 would attack Black's king on Dd4, and a dropped piece may not give check."
    );
    // A White piece in between blocks the line: then the drop is fine.
    let text = "phase=play side=w white=K@Bd4 black=K@Dd4 wres=R1 bres=- clock=0";
    assert!(legal(text).contains(&"R@Ad4".to_string()));
    assert!(!legal(text).contains(&"R@Dd1".to_string()));
    // A move may give check; only drops may not.
    let text = "phase=play side=w white=K@Aa1,R@Ad1 black=K@Dd4 wres=- bres=- clock=0";
    assert!(legal(text).contains(&"Ad1-Dd1".to_string()));
}

#[test]
fn drop_refusals_name_what_is_possible() {
    let text = "phase=play side=w white=K@Aa1 black=K@Dd4 wres=R1U2 bres=- clock=0";
    let e = refusal(text, "Q@Bb2");
    assert!(
        e.contains("you have no queen in reserve; you can drop a rook and 2 unicorns."),
        "{e}"
    );
    let e = refusal(text, "R@Dd4");
    assert!(
        e.contains("Dd4 holds Black's king; a drop goes to a vacant cell"),
        "{e}"
    );
    let text = "phase=play side=w white=K@Aa1 black=K@Dd4 wres=- bres=R1 clock=0";
    let e = refusal(text, "R@Bb2");
    assert!(e.contains("your reserve is empty"), "{e}");
}

// ------------------------------------------------------------ vanish

#[test]
fn a_vanished_piece_misses_the_opponents_next_n_turns() {
    let mut p = pos("phase=play side=w white=K@Aa1,N@Ab1 black=R@Bb1,K@Dd4 wres=- bres=- clock=0");
    let played = play_ok(&mut p, "V2:Ab1");
    assert_eq!(played.notation, "V2:Ab1");
    assert_eq!(
        played.events,
        ["White's knight on Ab1 vanishes with 2 counters: it reappears after 2 more of White's turns."]
    );
    assert_eq!(field(&p.to_text(), "white"), "K@Aa1,N@Ab1(V2)");
    // Black's first turn without the knight: its rook may stop on the
    // knight's cell (nothing active there), and the knight cannot act.
    play_ok(&mut p, "Bb1-Ab1");
    assert_eq!(field(&p.to_text(), "black"), "R@Ab1,K@Dd4");
    let e = p.play("Ab1-Bb3").unwrap_err().to_string();
    assert!(e.contains("Ab1 holds Black's rook"), "{e}");
    let played = play_ok(&mut p, "Aa1-Aa2");
    assert_eq!(
        played.events,
        ["A counter comes off White's vanished knight on Ab1: 1 counter left, it reappears at the end of White's next turn."]
    );
    assert_eq!(field(&p.to_text(), "white"), "K@Aa2,N@Ab1(V1)");
    // Black's second turn: the rook stays on the knight's cell.
    play_ok(&mut p, "Dd4-Dd3");
    // White's second turn ends with the knight back, capturing the rook.
    let played = play_ok(&mut p, "Aa2-Aa1");
    assert_eq!(
        played.events,
        ["The last counter comes off White's vanished knight: it reappears on Ab1 and captures Black's rook there."]
    );
    let text = p.to_text();
    assert_eq!(field(&text, "white"), "K@Aa1,N@Ab1");
    assert_eq!(field(&text, "black"), "K@Dd3");
    assert!(
        text.ends_with("clock=0"),
        "a reappearance that captures is a capture: {text}"
    );
}

#[test]
fn a_vanished_piece_can_be_told_it_cannot_move() {
    let text = "phase=play side=w white=K@Aa1,N@Ab1(V3) black=K@Dd4 wres=- bres=- clock=0";
    let e = refusal(text, "Ab1-Bb3");
    assert!(
        e.contains("your knight on Ab1 has vanished and cannot act until it reappears after 3 more of your turns."),
        "{e}"
    );
}

// ------------------------------------------------------------ clone

#[test]
fn an_original_is_removed_at_the_end_of_the_owners_nth_following_turn() {
    let mut p = pos("phase=play side=w white=K@Aa4,R@Ab1 black=K@Dd4 wres=- bres=N1 clock=0");
    let played = play_ok(&mut p, "C2:Ab1-Ab3");
    assert_eq!(
        played.events,
        ["A duplicate of White's rook on Ab1 arrives on Ab3; the original carries 2 counters and is removed after 2 more of White's turns; capturing it wins for Black."]
    );
    assert_eq!(field(&p.to_text(), "white"), "K@Aa4,R@Ab1(C2),R@Ab3");
    play_ok(&mut p, "Dd4-Dd3");
    let played = play_ok(&mut p, "Aa4-Ba4");
    assert_eq!(field(&p.to_text(), "white"), "R@Ab1(C1),R@Ab3,K@Ba4");
    assert!(
        played.events[0].contains("1 counter left, it is removed at the end of White's next turn")
    );
    play_ok(&mut p, "Dd3-Dd4");
    // The original may still move on its last turn, and goes from there.
    let played = play_ok(&mut p, "Ab1-Ac1");
    assert_eq!(
        played.events,
        ["The last counter comes off White's original rook on Ac1: it is removed from the game."]
    );
    let text = p.to_text();
    assert_eq!(field(&text, "white"), "R@Ab3,K@Ba4");
    // An expiry is no capture: the clock runs on.
    assert!(text.ends_with("clock=5"), "{text}");
}

#[test]
fn a_pinned_piece_may_be_cloned_off_its_line() {
    // The rook on Ab1 is pinned by the rook on Ad1; its duplicate may
    // leave the line because the original stays and keeps blocking.
    let text = "phase=play side=w white=K@Aa1,R@Ab1 black=R@Ad1,K@Dd4 wres=- bres=- clock=0";
    let acts = legal(text);
    assert!(!acts.contains(&"Ab1-Bb1".to_string()));
    assert!(acts.contains(&"C1:Ab1-Bb1".to_string()));
    // The duplicate may capture, also the checking piece.
    assert!(acts.contains(&"Ab1xAd1".to_string()));
    assert!(acts.contains(&"C4:Ab1xAd1".to_string()));
}

#[test]
fn one_warp_at_a_time() {
    let text = "phase=play side=w white=K@Aa1,N@Ab1(V2),R@Bb1 black=K@Dd4 wres=- bres=- clock=0";
    let e = refusal(text, "V3:Bb1");
    assert_eq!(
        e,
        "V3:Bb1 is not a legal move: you already have a warp running: the vanished knight on Ab1 reappears after 2 more of your turns; a player has one warp at a time, and a new one may start on the turn after it ends."
    );
    let e = refusal(text, "C3:Bb1-Cb1");
    assert!(e.contains("you already have a warp running"), "{e}");
    assert!(!legal(text)
        .iter()
        .any(|a| a.starts_with('V') || a.starts_with('C')));
    // The turn on which the warp ends began with it: still no new warp.
    let text = "phase=play side=w white=K@Aa1,N@Ab1(V1),R@Bb1 black=K@Dd4 wres=- bres=- clock=0";
    let e = refusal(text, "V3:Bb1");
    assert!(e.contains("reappears at the end of this turn"), "{e}");
    let mut p = pos(text);
    play_ok(&mut p, "Bb1-Cb1");
    play_ok(&mut p, "Dd4-Dd3");
    // The next turn begins without one.
    assert_eq!(play_ok(&mut p, "V3:Cb1").notation, "V3:Cb1");
    // An original counts as the warp too.
    let text = "phase=play side=w white=K@Aa1,R@Ab1(C3),R@Bb1 black=K@Dd4 wres=- bres=- clock=0";
    let e = refusal(text, "V1:Aa1");
    assert!(
        e.contains("your original rook on Ab1 is removed after 3 more of your turns"),
        "{e}"
    );
    // Counters are 1 to 6.
    let text = "phase=play side=w white=K@Aa1,R@Bb1 black=K@Dd4 wres=- bres=- clock=0";
    let e = refusal(text, "V7:Bb1");
    assert!(e.contains("a warp carries 1 to 6 counters"), "{e}");
    let e = refusal(text, "C0:Bb1-Cb1");
    assert!(e.contains("a warp carries 1 to 6 counters"), "{e}");
}

// ------------------------------------------------------------ reappearance

#[test]
fn a_reappearance_captures_an_own_piece() {
    let mut p =
        pos("phase=play side=w white=K@Aa1,N@Ab1(V1),R@Ac1 black=K@Dd4 wres=- bres=- clock=5");
    let played = play_ok(&mut p, "Ac1-Ab1");
    assert_eq!(
        played.events,
        ["The last counter comes off White's vanished knight: it reappears on Ab1 and captures its own rook there."]
    );
    assert_eq!(
        p.to_text(),
        "phase=play side=b white=K@Aa1,N@Ab1 black=K@Dd4 wres=- bres=- clock=0"
    );
    assert_eq!(p.outcome(), Outcome::Ongoing);
}

#[test]
fn a_reappearance_onto_the_own_king_is_refused() {
    let text = "phase=play side=w white=K@Aa2,N@Ab1(V1) black=K@Dd4 wres=- bres=- clock=0";
    let e = refusal(text, "Aa2-Ab1");
    assert_eq!(
        e,
        "Aa2-Ab1 is not a legal move: your vanished knight reappears on Ab1 at the end of this turn, and your king would stand there."
    );
    // A king already standing there must step off: every legal action is
    // a king move away from Ab1.
    let text = "phase=play side=w white=K@Ab1,N@Ab1(V1) black=K@Dd4 wres=Q1 bres=- clock=0";
    let acts = legal(text);
    assert_eq!(acts.len(), 11, "{acts:?}");
    assert!(acts.iter().all(|a| a.starts_with("Ab1-")), "{acts:?}");
}

#[test]
fn a_reappearance_capturing_an_enemy_original_wins() {
    let text =
        "phase=play side=w white=K@Aa4,N@Ab1(V1) black=R@Ab1(C2),R@Cc3,K@Dd4 wres=- bres=- clock=0";
    let mut p = pos(text);
    let played = play_ok(&mut p, "Aa4-Aa3");
    assert_eq!(
        played.events,
        [
            "The last counter comes off White's vanished knight: it reappears on Ab1 and captures Black's rook there.",
            "Black's original rook on Ab1 is captured: a paradox, so White wins."
        ]
    );
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::White,
            ending: Ending::OriginalCaptured
        }
    );
    assert!(
        p.to_text().starts_with("phase=won-w side=b "),
        "{}",
        p.to_text()
    );
    assert!(p.legal_actions().is_empty());
    assert_eq!(p.perft(1), 0);
    assert_eq!(p.play("Dd4-Dd3"), Err(MoveError::GameOver));
    // The text of a won game reads back.
    assert_eq!(pos(&p.to_text()).outcome(), p.outcome());
}

#[test]
fn capturing_an_original_by_a_move_or_a_duplicate_wins() {
    let text =
        "phase=play side=w white=K@Aa1,Q@Ad4 black=R@Ab4,K@Dc1,R@Dd4(C3) wres=- bres=- clock=0";
    for input in ["Ad4xDd4", "C1:Ad4xDd4"] {
        let mut p = pos(text);
        let played = play_ok(&mut p, input);
        assert_eq!(
            played.events.last().unwrap(),
            "Black's original rook on Dd4 is captured: a paradox, so White wins."
        );
        assert_eq!(
            p.outcome(),
            Outcome::Won {
                winner: Color::White,
                ending: Ending::OriginalCaptured
            },
            "{input}"
        );
    }
    // Capturing the duplicate is an ordinary capture.
    let mut p = pos(text);
    assert!(play_ok(&mut p, "Ad4xAb4").events.is_empty());
    assert_eq!(p.outcome(), Outcome::Ongoing);
    assert!(p.to_text().ends_with("clock=0"));
    // The win needs an otherwise legal turn: with White's king in check
    // from elsewhere, taking the original without answering is refused.
    let text = "phase=play side=w white=K@Aa1,Q@Ad4 black=R@Ab4,R@Ca1,K@Dc1,R@Dd4(C3) wres=- bres=- clock=0";
    let e = refusal(text, "Ad4xDd4");
    assert!(
        e.contains("your king on Aa1 would be attacked by Black's rook on Ca1"),
        "{e}"
    );
}

// ------------------------------------------------------------ kings

#[test]
fn a_cell_where_an_enemy_piece_reappears_next_counts_as_attacked() {
    // With 1 counter left, Black's knight reappears on Bb3 at the end of
    // Black's next turn: White's king may not step there.
    let text = "phase=play side=w white=K@Bb2 black=N@Bb3(V1),K@Dd4 wres=- bres=R1 clock=0";
    let e = refusal(text, "Bb2-Bb3");
    assert_eq!(
        e,
        "Bb2-Bb3 is not a legal move: after it your king on Bb3 would stand where Black's vanished knight reappears at the end of Black's next turn, which counts as attacked."
    );
    // With 2 counters it may, but after Black's next turn (1 left) it is
    // in check and must leave.
    let mut p = pos(&text.replace("(V1)", "(V2)"));
    play_ok(&mut p, "Bb2-Bb3");
    play_ok(&mut p, "Dd4-Dd3");
    assert!(p.to_text().contains("N@Bb3(V1)"), "{}", p.to_text());
    let acts = p.legal_actions();
    assert!(p.legal_actions().contains(&"Bb3-Bb2".to_string()));
    assert!(
        acts.iter()
            .all(|a| a.starts_with("Bb3-") || a.starts_with('V') || a.starts_with('C')),
        "only the king acts: {acts:?}"
    );
    // Leaving the original behind there would lose it: a clone that
    // leaves the original king on Bb3 is legal, and Black's knight then
    // captures it on reappearing.
    play_ok(&mut p, "C2:Bb3-Ab3");
    let played = play_ok(&mut p, "Dd3-Dd4");
    assert!(
        played
            .events
            .last()
            .unwrap()
            .contains("a paradox, so Black wins"),
        "{:?}",
        played.events
    );
    // A text where the waiting side's king stands there is refused.
    let bad = "phase=play side=b white=K@Bb3 black=N@Bb3(V1),K@Dd4 wres=- bres=R1 clock=0";
    assert!(game().position(bad, &[]).is_err());
}

#[test]
fn a_cloned_king_the_duplicate_is_royal_and_the_original_a_liability() {
    let text = "phase=play side=w white=K@Bb2 black=R@Db2,K@Dd4 wres=- bres=R1 clock=0";
    let mut p = pos(text);
    play_ok(&mut p, "C2:Bb2-Bb3");
    assert_eq!(
        p.to_text(),
        "phase=play side=b white=K@Bb2(C2),K@Bb3 black=R@Db2,K@Dd4 wres=- bres=R1 clock=1"
    );
    let black = p.to_text();
    // A drop may attack the original king, not the duplicate.
    assert!(p.legal_actions().contains(&"R@Bd2".to_string()));
    let e = refusal(&black, "R@Bd3");
    assert!(e.contains("would attack White's king on Bb3"), "{e}");
    // Capturing the original king wins.
    let played = play_ok(&mut p, "Db2xBb2");
    assert!(played.events[0].contains("White's original king on Bb2 is captured"));
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::Black,
            ending: Ending::OriginalCaptured
        }
    );
    // White to act: the original king may step into attack, the
    // duplicate may not.
    let white = "phase=play side=w white=K@Bb2(C2),K@Bb3 black=R@Db2,K@Dd4 wres=- bres=R1 clock=1";
    assert!(legal(white).contains(&"Bb2-Cb2".to_string()));
    let e = refusal(white, "Bb3-Cb2");
    assert!(
        e.contains("your king on Cb2 would be attacked by Black's rook on Db2"),
        "{e}"
    );
}

#[test]
fn a_vanished_king_cannot_be_in_check_but_must_reappear_safe() {
    // In check from the rook on Ad1, the king may vanish.
    let text = "phase=play side=w white=K@Aa1 black=R@Ad1,K@Dd4 wres=- bres=R1 clock=0";
    let acts = legal(text);
    for n in 1..=6 {
        assert!(acts.contains(&format!("V{n}:Aa1")), "{acts:?}");
    }
    let mut p = pos(text);
    play_ok(&mut p, "V1:Aa1");
    // Black may drop a piece aiming at the vanished king's cell (a
    // vanished king is not in check).
    assert!(p.legal_actions().contains(&"R@Ca1".to_string()));
    play_ok(&mut p, "R@Ca1");
    // White's king reappears at the end of this turn on Aa1, attacked by
    // both rooks; White has nothing that answers both: mate.
    assert!(p.legal_actions().is_empty(), "{:?}", p.legal_actions());
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::Black,
            ending: Ending::Checkmate
        }
    );
    // With only one rook on it, White can block it by a drop.
    let text = "phase=play side=w white=K@Aa1(V1) black=R@Ad1,K@Dd4 wres=N1 bres=- clock=0";
    let acts = legal(text);
    assert_eq!(
        acts.iter().filter(|a| a.contains('@')).collect::<Vec<_>>(),
        ["N@Ab1", "N@Ac1"]
    );
    assert_eq!(acts.len(), 2, "{acts:?}");
    let mut p = pos(text);
    let played = play_ok(&mut p, "N@Ab1");
    assert_eq!(
        played.events,
        ["The last counter comes off White's vanished king: it reappears on Aa1."]
    );
}

// ------------------------------------------------------------ the end

#[test]
fn checkmate() {
    // The queen on Bb2 covers the whole corner, the rook on Db2 guards
    // it; White's warp is running (no vanish or clone) and its reserve
    // is empty.
    let text =
        "phase=play side=w white=K@Aa1,N@Dd1(V3) black=Q@Bb2,R@Db2,K@Dd4 wres=- bres=- clock=0";
    let p = pos(text);
    assert!(p.legal_actions().is_empty());
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::Black,
            ending: Ending::Checkmate
        }
    );
    // Without a warp running the king escapes into the future.
    let text = "phase=play side=w white=K@Aa1 black=Q@Bb2,R@Db2,K@Dd4 wres=- bres=- clock=0";
    assert_eq!(
        legal(text),
        ["V1:Aa1", "V2:Aa1", "V3:Aa1", "V4:Aa1", "V5:Aa1", "V6:Aa1"]
    );
}

#[test]
fn stalemate() {
    // Every cell next to the king is attacked, the king is not.
    let text =
        "phase=play side=w white=K@Aa1,N@Dd1(V3) black=Q@Ab3,R@Bc1,K@Dd4 wres=- bres=- clock=0";
    let p = pos(text);
    assert!(p.legal_actions().is_empty());
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::Stalemate
        }
    );
    // A vanished king and nothing else to do: stalemate, or mate when its
    // reappearance cell is attacked.
    let text = "phase=play side=w white=K@Aa1(V3) black=K@Dd4 wres=- bres=R1 clock=0";
    assert_eq!(
        pos(text).outcome(),
        Outcome::Drawn {
            ending: Ending::Stalemate
        }
    );
    let text = "phase=play side=w white=K@Aa1(V3) black=R@Ad1,K@Dd4 wres=- bres=- clock=0";
    assert_eq!(
        pos(text).outcome(),
        Outcome::Won {
            winner: Color::Black,
            ending: Ending::Checkmate
        }
    );
}

#[test]
fn draws_by_repetition_move_rule_and_bare_kings() {
    let text = "phase=play side=w white=K@Aa1 black=K@Dd4 wres=R1 bres=R1 clock=0";
    let mut p = pos(text);
    for _ in 0..2 {
        assert_eq!(p.outcome(), Outcome::Ongoing);
        for m in ["Aa1-Aa2", "Dd4-Dd3", "Aa2-Aa1", "Dd3-Dd4"] {
            play_ok(&mut p, m);
        }
    }
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::Repetition
        }
    );
    // Counters are part of the state: a running warp changes it each turn.
    let text = "phase=play side=w white=K@Aa1,N@Bb1(V6) black=K@Dd4 wres=R1 bres=R1 clock=0";
    let mut p = pos(text);
    for m in ["Aa1-Aa2", "Dd4-Dd3", "Aa2-Aa1", "Dd3-Dd4"].repeat(2) {
        play_ok(&mut p, m);
    }
    assert_eq!(p.outcome(), Outcome::Ongoing);

    // 100 plies without a capture or a drop.
    let text = "phase=play side=w white=K@Aa1 black=K@Dd4 wres=R1 bres=R1 clock=99";
    let mut p = pos(text);
    play_ok(&mut p, "Aa1-Aa2");
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::FiftyMoveRule
        }
    );
    let mut p = pos(text);
    play_ok(&mut p, "R@Bc2");
    assert_eq!(p.outcome(), Outcome::Ongoing);

    // K v K with nothing in reserve and no warps.
    let bare = "phase=play side=w white=K@Aa1 black=K@Dd4 wres=- bres=- clock=0";
    assert_eq!(
        pos(bare).outcome(),
        Outcome::Drawn {
            ending: Ending::InsufficientMaterial
        }
    );
    for alive in [
        "phase=play side=w white=K@Aa1 black=K@Dd4 wres=- bres=U1 clock=0",
        "phase=play side=w white=K@Aa1,U@Bb1(V2) black=K@Dd4 wres=- bres=- clock=0",
        "phase=play side=w white=K@Aa1,U@Bb1 black=K@Dd4 wres=- bres=- clock=0",
    ] {
        assert_eq!(pos(alive).outcome(), Outcome::Ongoing, "{alive}");
    }
}

// ------------------------------------------------------------ notation

#[test]
fn notation_is_read_in_its_forms() {
    let text = "phase=play side=w white=K@Aa1,N@Ab1 black=R@Cb2,K@Dd4 wres=U1 bres=- clock=0";
    let cases = [
        ("U@Bc2", "U@Bc2"),
        ("u @ bc2", "U@Bc2"),
        ("Ab1-Bb3", "Ab1-Bb3"),
        ("ab1bb3", "Ab1-Bb3"),
        ("NAb1-Bb3", "Ab1-Bb3"),
        ("Ab1:Cb2", "Ab1xCb2"),
        ("Ab1-Cb2", "Ab1xCb2"),
        ("V4:Ab1", "V4:Ab1"),
        ("v4ab1", "V4:Ab1"),
        ("C3:Ab1xCb2", "C3:Ab1xCb2"),
        ("C3:Ab1-Cb2+", "C3:Ab1xCb2"),
        ("c3:ab1-bb3", "C3:Ab1-Bb3"),
    ];
    for (input, canonical) in cases {
        let mut p = pos(text);
        assert_eq!(play_ok(&mut p, input).notation, canonical, "{input}");
    }
    let e = pos(text).play("e4").unwrap_err();
    assert!(matches!(e, MoveError::Unreadable { .. }));
    assert!(e.to_string().contains("a clone like C3:Ab1-Cc3"), "{e}");
    let e = refusal(text, "QAb1-Bb3");
    assert!(
        e.contains("the piece on Ab1 is your knight, not a queen."),
        "{e}"
    );
    let e = refusal(text, "Ab1-Ab2");
    assert_eq!(
        e,
        "Ab1-Ab2 is not a legal move: your knight on Ab1 cannot reach Ab2; it can move to Aa3, Ac3, Ad2, Bb3, Bd1, Ca1, Cb2 or Cc1."
    );
    let e = refusal(text, "C2:Ab1-Ab2");
    assert!(
        e.contains(
            "a duplicate of your knight on Ab1 cannot reach Ab2; the duplicate can move to Aa3"
        ),
        "{e}"
    );
    let e = refusal(text, "Cb2-Cb3");
    assert!(
        e.contains("Cb2 holds Black's rook, not a piece of yours; yours stand on K Aa1 and N Ab1."),
        "{e}"
    );
    let e = refusal(text, "Bb2-Bb3");
    assert!(e.contains("there is no piece on Bb2"), "{e}");
}

// ------------------------------------------------------------ text

#[test]
fn position_text_round_trips_and_refusals() {
    for text in [
        START,
        "phase=play side=w white=K@Aa1,R@Ab1(C1),R@Bb1 black=R@Ad1,U@Cc3(V2),K@Dd4 wres=N1 bres=U1 clock=0",
        "phase=play side=b white=K@Aa4,N@Ab1(V2) black=R@Ab1,K@Dd4 wres=- bres=- clock=12",
        "phase=play side=w white=K@Bb2(C2),K@Bb3 black=R@Db2,K@Dd4 wres=- bres=R1 clock=1",
        "phase=place side=b white=K@Bb2 black=- wres=Q1R2B2N2U8 bres=K1Q1R2B2N2U8 clock=0",
        "phase=won-b side=w white=K@Bb3 black=R@Bb2,K@Dd4 wres=- bres=R1 clock=0",
    ] {
        assert_eq!(pos(text).to_text(), text);
    }
    // Fields in another order, letters in lower case: read, written canonically.
    let p = pos("clock=0 bres=- wres=- black=k@Dd4 white=k@Aa1 side=w phase=play");
    assert_eq!(
        p.to_text(),
        "phase=play side=w white=K@Aa1 black=K@Dd4 wres=- bres=- clock=0"
    );
    let bad = [
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=- bres=-", "clock is missing"),
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=- bres=- clock=0 x=1", "no field 'x'"),
        ("phase=play side=w white=K@Aa1,Q@Aa1 black=K@Dd4 wres=- bres=- clock=0", "two active pieces"),
        ("phase=play side=w white=K@Aa1,Q@Ab1(V1),R@Ac1(C2),K@Ac2 black=K@Dd4 wres=- bres=- clock=0", "two warps"),
        ("phase=play side=w white=K@Aa1,Q@Ab1(V7) black=K@Dd4 wres=- bres=- clock=0", "1 to 6"),
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=Q2 bres=- clock=0", "at most a queen"),
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=R1Q1 bres=- clock=0", "order K Q R B N U"),
        ("phase=play side=w white=Q@Aa1 black=K@Dd4 wres=- bres=- clock=0", "0 royal kings"),
        ("phase=play side=w white=K@Aa1(C1) black=K@Dd4 wres=- bres=- clock=0", "0 royal kings"),
        ("phase=play side=w white=K@Aa1,K@Ab1 black=K@Dd4 wres=- bres=- clock=0", "2 royal kings"),
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=K1 bres=- clock=0", "king in reserve"),
        ("phase=play side=w white=K@Aa1 black=K@Ab2 wres=- bres=- clock=0", "Black's king on Ab2 is attacked"),
        ("phase=place side=w white=K@Aa1 black=- wres=- bres=K1 clock=0", "White places first"),
        ("phase=place side=b white=K@Aa1,Q@Bb1 black=- wres=- bres=K1 clock=0", "only kings"),
        ("phase=play side=x white=K@Aa1 black=K@Dd4 wres=- bres=- clock=0", "side is w or b"),
        ("phase=play side=w white=K@Ea1 black=K@Dd4 wres=- bres=- clock=0", "is not a piece"),
        ("", "missing"),
    ];
    for (text, expected) in bad {
        let e = game().position(text, &[]).unwrap_err().to_string();
        assert!(e.contains(expected), "{text}: {e}");
    }
}

// ------------------------------------------------------------ differential

/// The engine's legal actions with the position text after each, as the
/// reference's successors are.
fn engine_successors(s: &State) -> BTreeMap<String, String> {
    s.actions()
        .iter()
        .map(|a| (s.notation(a), s.after(a).to_text()))
        .collect()
}

fn compare(text: &str) {
    let s = Temporal.read_position(text, &[]).expect("engine reads it");
    let r = reference::Ref::parse(text);
    assert_eq!(r.text(), text, "reference text round trip");
    let mine = engine_successors(&s);
    let theirs: BTreeMap<String, String> = r
        .successors()
        .into_iter()
        .map(|(n, next)| (n, next.text()))
        .collect();
    if mine != theirs {
        let only_engine: Vec<_> = mine.keys().filter(|k| !theirs.contains_key(*k)).collect();
        let only_ref: Vec<_> = theirs.keys().filter(|k| !mine.contains_key(*k)).collect();
        let differ: Vec<_> = mine
            .iter()
            .filter(|(k, v)| theirs.get(*k).is_some_and(|t| t != *v))
            .map(|(k, v)| format!("{k}: engine {v} / reference {}", theirs[k]))
            .collect();
        panic!("{text}\nonly engine: {only_engine:?}\nonly reference: {only_ref:?}\ndiffer: {differ:#?}");
    }
    // The end agrees too.
    let end = s.end();
    let expected = match (theirs.is_empty(), r.phase) {
        (_, "won-w") => Some(Color::White),
        (_, "won-b") => Some(Color::Black),
        (true, _) if r.threatened() => Some(if r.white { Color::Black } else { Color::White }),
        _ => None,
    };
    match end {
        Outcome::Won { winner, .. } => assert_eq!(Some(winner), expected, "{text}"),
        Outcome::Drawn { .. } => assert!(theirs.is_empty() && expected.is_none(), "{text}"),
        Outcome::Ongoing => assert!(!theirs.is_empty() && expected.is_none(), "{text}"),
    }
}

#[test]
fn random_playouts_agree_with_the_reference() {
    let seeds = [
        START,
        "phase=play side=w white=K@Aa1,R@Ad1 black=N@Dd1,K@Dd4 wres=- bres=U1 clock=0",
        "phase=play side=w white=K@Aa1,N@Ab1(V1),R@Ac1 black=Q@Cc3,K@Dd4 wres=B1 bres=N1 clock=5",
        "phase=play side=b white=K@Bb2(C1),K@Bb3,U@Cc2 black=N@Bb4(V1),R@Db2,K@Dd4 wres=Q1 bres=R1 clock=0",
        "phase=play side=w white=K@Aa1(V1) black=R@Ad1,B@Ca3,K@Dd4 wres=N1U1 bres=Q1 clock=0",
        "phase=play side=b white=K@Bb2,R@Cc3(C2),R@Cc4 black=Q@Aa4,K@Dd4(V2) wres=- bres=N2 clock=0",
    ];
    let mut rng = Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    let mut positions = 0;
    for seed in seeds {
        for _game in 0..6 {
            let mut s = Temporal.read_position(seed, &[]).unwrap();
            for _ply in 0..40 {
                let text = s.to_text();
                compare(&text);
                positions += 1;
                let actions = s.actions();
                if actions.is_empty() {
                    break;
                }
                // Prefer warps and captures now and then: they are rarer.
                let pick = actions[rng.usize(..actions.len())];
                s = s.after(&pick);
            }
        }
    }
    assert!(positions > 200, "{positions}");
}

#[test]
fn crafted_positions_agree_with_the_reference() {
    for text in [
        "phase=play side=w white=K@Aa1 black=R@Ad1,K@Dd4 wres=N1 bres=- clock=7",
        "phase=play side=w white=K@Aa1,N@Ab1(V1),R@Ac1 black=K@Dd4 wres=- bres=- clock=5",
        "phase=play side=w white=K@Ab1,N@Ab1(V1) black=K@Dd4 wres=Q1 bres=- clock=0",
        "phase=play side=w white=K@Aa4,N@Ab1(V1) black=R@Ab1(C2),R@Cc3,K@Dd4 wres=- bres=- clock=0",
        "phase=play side=w white=K@Bb2 black=N@Bb3(V1),K@Dd4 wres=- bres=R1 clock=0",
        "phase=play side=w white=K@Bb3 black=N@Bb3(V1),K@Dd4 wres=U1 bres=R1 clock=0",
        "phase=play side=b white=K@Bb2(C2),K@Bb3 black=R@Db2,K@Dd4 wres=- bres=R1 clock=1",
        "phase=play side=w white=K@Bb2(C1),K@Bb3 black=R@Db2,K@Dd4 wres=U2 bres=R1 clock=1",
        "phase=play side=w white=K@Aa1(V1) black=R@Ad1,R@Ca1,K@Dd4 wres=N1 bres=- clock=0",
        "phase=play side=w white=K@Aa1,N@Dd1(V3) black=Q@Bb2,R@Db2,K@Dd4 wres=- bres=- clock=0",
        "phase=play side=w white=K@Aa1,N@Dd1(V3) black=Q@Ab3,R@Bc1,K@Dd4 wres=- bres=- clock=0",
        "phase=play side=w white=K@Aa1,R@Ab1 black=R@Ad1,K@Dd4 wres=- bres=- clock=0",
        "phase=play side=w white=K@Aa1,Q@Ad4 black=R@Ab4,R@Ca1,K@Dc1,R@Dd4(C3) wres=- bres=- clock=0",
        "phase=play side=w white=K@Cc3,U@Dd4(V1) black=K@Aa1,N@Bb2 wres=R1B1 bres=- clock=0",
        "phase=play side=w white=K@Aa1,N@Bc3(V1) black=U@Bc3,K@Dd4 wres=R1 bres=- clock=0",
        "phase=play side=w white=K@Aa1,R@Cc1(C1),R@Cd1 black=B@Ca3,K@Dd4 wres=N1 bres=- clock=0",
        "phase=place side=b white=K@Bb2 black=- wres=Q1R2B2N2U8 bres=K1Q1R2B2N2U8 clock=0",
    ] {
        compare(text);
    }
}

/// A plain implementation of docs/rules.md §5, written from the text and
/// sharing nothing with the engine: cells as coordinates, attacks by
/// walking every piece's moves, every action played out on a copy.
mod reference {
    pub const KINDS: &str = "KQRBNU";

    type C = (i8, i8, i8);

    fn idx(c: C) -> usize {
        (c.0 * 16 + c.1 * 4 + c.2) as usize
    }

    fn at(i: usize) -> C {
        ((i / 16) as i8, (i / 4 % 4) as i8, (i % 4) as i8)
    }

    fn inside(c: C) -> bool {
        (0..4).contains(&c.0) && (0..4).contains(&c.1) && (0..4).contains(&c.2)
    }

    pub fn name(i: usize) -> String {
        let c = at(i);
        format!(
            "{}{}{}",
            (b'A' + c.0 as u8) as char,
            (b'a' + c.1 as u8) as char,
            c.2 + 1
        )
    }

    fn parse_name(s: &str) -> usize {
        let b = s.as_bytes();
        idx((
            (b[0] - b'A') as i8,
            (b[1] - b'a') as i8,
            (b[2] - b'1') as i8,
        ))
    }

    fn touching(a: usize, b: usize) -> bool {
        let (x, y) = (at(a), at(b));
        a != b && (x.0 - y.0).abs() <= 1 && (x.1 - y.1).abs() <= 1 && (x.2 - y.2).abs() <= 1
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Ref {
        /// (white?, kind letter) per cell.
        pub active: [Option<(bool, char)>; 64],
        /// Per side (white = 0): a vanished piece (kind, cell, counters).
        pub vanished: [Option<(char, usize, u8)>; 2],
        /// Per side: an original (cell, counters).
        pub originals: [Option<(usize, u8)>; 2],
        pub res: [[u8; 6]; 2],
        pub white: bool,
        pub phase: &'static str,
        pub clock: u32,
    }

    fn side(white: bool) -> usize {
        if white {
            0
        } else {
            1
        }
    }

    /// The cells a piece moves to from `from`, given what stands where.
    fn dests(r: &Ref, from: usize, kind: char, white: bool) -> Vec<usize> {
        let f = at(from);
        let mut out = Vec::new();
        if kind == 'N' {
            for a in -2i8..=2 {
                for b in -2i8..=2 {
                    for c in -2i8..=2 {
                        let mut m = [a.abs(), b.abs(), c.abs()];
                        m.sort();
                        if m != [0, 1, 2] {
                            continue;
                        }
                        let t = (f.0 + a, f.1 + b, f.2 + c);
                        if inside(t) && r.active[idx(t)].is_none_or(|p| p.0 != white) {
                            out.push(idx(t));
                        }
                    }
                }
            }
            return out;
        }
        for a in -1i8..=1 {
            for b in -1i8..=1 {
                for c in -1i8..=1 {
                    let axes = [a, b, c].iter().filter(|&&x| x != 0).count();
                    let ok = match kind {
                        'K' | 'Q' => axes > 0,
                        'R' => axes == 1,
                        'B' => axes == 2,
                        'U' => axes == 3,
                        _ => false,
                    };
                    if !ok {
                        continue;
                    }
                    let mut t = (f.0 + a, f.1 + b, f.2 + c);
                    while inside(t) {
                        match r.active[idx(t)] {
                            Some(p) if p.0 == white => break,
                            Some(_) => {
                                out.push(idx(t));
                                break;
                            }
                            None => out.push(idx(t)),
                        }
                        if kind == 'K' {
                            break;
                        }
                        t = (t.0 + a, t.1 + b, t.2 + c);
                    }
                }
            }
        }
        out
    }

    /// Whether the piece of `kind` on `from` attacks `target`: the step
    /// between them fits the kind, and nothing active stands in between.
    fn hits(r: &Ref, from: usize, kind: char, target: usize) -> bool {
        let (f, t) = (at(from), at(target));
        let d = [t.0 - f.0, t.1 - f.1, t.2 - f.2];
        let mut size = d.map(i8::abs);
        if kind == 'N' {
            size.sort();
            return size == [0, 1, 2];
        }
        let len = size.into_iter().max().unwrap_or(0);
        if len == 0 || size.iter().any(|&x| x != 0 && x != len) {
            return false;
        }
        let axes = size.iter().filter(|&&x| x != 0).count();
        let fits = match kind {
            'K' => len == 1,
            'Q' => true,
            'R' => axes == 1,
            'B' => axes == 2,
            'U' => axes == 3,
            _ => false,
        };
        let s = d.map(i8::signum);
        fits && (1..len)
            .all(|k| r.active[idx((f.0 + s[0] * k, f.1 + s[1] * k, f.2 + s[2] * k))].is_none())
    }

    impl Ref {
        pub fn parse(text: &str) -> Ref {
            let mut r = Ref {
                active: [None; 64],
                vanished: [None; 2],
                originals: [None; 2],
                res: [[0; 6]; 2],
                white: true,
                phase: "play",
                clock: 0,
            };
            for f in text.split(' ') {
                let (k, v) = f.split_once('=').unwrap();
                match k {
                    "phase" => {
                        r.phase = ["place", "play", "won-w", "won-b"]
                            .into_iter()
                            .find(|p| *p == v)
                            .unwrap()
                    }
                    "side" => r.white = v == "w",
                    "white" | "black" if v != "-" => {
                        let w = k == "white";
                        for item in v.split(',') {
                            let kind = item.chars().next().unwrap();
                            let cell = parse_name(&item[2..5]);
                            match item.get(5..) {
                                Some(m) if m.starts_with("(V") => {
                                    let n = m[2..m.len() - 1].parse().unwrap();
                                    r.vanished[side(w)] = Some((kind, cell, n));
                                }
                                Some(m) if m.starts_with("(C") => {
                                    let n = m[2..m.len() - 1].parse().unwrap();
                                    r.originals[side(w)] = Some((cell, n));
                                    r.active[cell] = Some((w, kind));
                                }
                                _ => r.active[cell] = Some((w, kind)),
                            }
                        }
                    }
                    "wres" | "bres" if v != "-" => {
                        let s = side(k == "wres");
                        let b = v.as_bytes();
                        let mut i = 0;
                        while i < b.len() {
                            let kind = KINDS.find(b[i] as char).unwrap();
                            let mut j = i + 1;
                            while j < b.len() && b[j].is_ascii_digit() {
                                j += 1;
                            }
                            r.res[s][kind] = v[i + 1..j].parse().unwrap();
                            i = j;
                        }
                    }
                    "clock" => r.clock = v.parse().unwrap(),
                    _ => {}
                }
            }
            r
        }

        pub fn text(&self) -> String {
            let list = |w: bool| {
                let s = side(w);
                let mut items = Vec::new();
                for i in 0..64 {
                    if let Some((pw, k)) = self.active[i] {
                        if pw == w {
                            let mark = match self.originals[s] {
                                Some((c, n)) if c == i => format!("(C{n})"),
                                _ => String::new(),
                            };
                            items.push(format!("{k}@{}{mark}", name(i)));
                        }
                    }
                    if let Some((k, c, n)) = self.vanished[s] {
                        if c == i {
                            items.push(format!("{k}@{}(V{n})", name(i)));
                        }
                    }
                }
                if items.is_empty() {
                    "-".to_string()
                } else {
                    items.join(",")
                }
            };
            let res = |s: usize| {
                let t: String = KINDS
                    .chars()
                    .zip(self.res[s])
                    .filter(|&(_, n)| n > 0)
                    .map(|(k, n)| format!("{k}{n}"))
                    .collect();
                if t.is_empty() {
                    "-".to_string()
                } else {
                    t
                }
            };
            format!(
                "phase={} side={} white={} black={} wres={} bres={} clock={}",
                self.phase,
                if self.white { "w" } else { "b" },
                list(true),
                list(false),
                res(0),
                res(1),
                self.clock
            )
        }

        /// The royal king of a side: (cell, vanished?).
        fn royal(&self, w: bool) -> Option<(usize, bool)> {
            let s = side(w);
            if let Some(('K', c, _)) = self.vanished[s] {
                return Some((c, true));
            }
            (0..64)
                .find(|&i| {
                    self.active[i] == Some((w, 'K')) && self.originals[s].is_none_or(|o| o.0 != i)
                })
                .map(|i| (i, false))
        }

        /// Whether a royal king of side `w` on `cell` is attacked.
        fn attacked(&self, cell: usize, w: bool) -> bool {
            if let Some((_, c, 1)) = self.vanished[side(!w)] {
                if c == cell {
                    return true;
                }
            }
            (0..64).any(|i| match self.active[i] {
                Some((pw, k)) if pw != w && i != cell => hits(self, i, k, cell),
                _ => false,
            })
        }

        /// For the end: the side to act's royal king (or its reappearance
        /// cell) is attacked.
        pub fn threatened(&self) -> bool {
            self.royal(self.white)
                .is_some_and(|(c, _)| self.attacked(c, self.white))
        }

        /// The turn's end after the action made `n` from `self`: counters,
        /// expiry, reappearance, legality, the drop test. `None` if illegal.
        fn finish(
            &self,
            mut n: Ref,
            drop: Option<(usize, char)>,
            mut took: bool,
            mut won: bool,
        ) -> Option<Ref> {
            let me = self.white;
            let s = side(me);
            let dropping = drop.is_some();
            let mut drop = drop;
            let had = self.vanished[s].is_some() || self.originals[s].is_some();
            if had {
                if let Some((k, c, cnt)) = n.vanished[s] {
                    if cnt > 1 {
                        n.vanished[s] = Some((k, c, cnt - 1));
                    } else {
                        n.vanished[s] = None;
                        if let Some(v) = n.active[c] {
                            if v == (me, 'K') {
                                return None;
                            }
                            took = true;
                            if v.0 != me && n.originals[side(!me)].is_some_and(|o| o.0 == c) {
                                n.originals[side(!me)] = None;
                                won = true;
                            }
                        }
                        if drop.is_some_and(|d| d.0 == c) {
                            drop = None;
                        }
                        n.active[c] = Some((me, k));
                    }
                }
                if let Some((c, cnt)) = n.originals[s] {
                    if cnt > 1 {
                        n.originals[s] = Some((c, cnt - 1));
                    } else {
                        n.originals[s] = None;
                        n.active[c] = None;
                    }
                }
            }
            if let Some((c, false)) = n.royal(me) {
                if n.attacked(c, me) {
                    return None;
                }
            }
            if let Some((dc, dk)) = drop {
                if let Some((k, false)) = n.royal(!me) {
                    if hits(&n, dc, dk, k) {
                        return None;
                    }
                }
            }
            if won {
                n.phase = if me { "won-w" } else { "won-b" };
            }
            n.clock = if took || dropping { 0 } else { self.clock + 1 };
            n.white = !me;
            Some(n)
        }

        pub fn successors(&self) -> Vec<(String, Ref)> {
            let mut out = Vec::new();
            let me = self.white;
            let s = side(me);
            if self.phase.starts_with("won") {
                return out;
            }
            if self.phase == "place" {
                for c in 0..64 {
                    let free = self.active[c].is_none()
                        && (0..64).all(|k| self.active[k].is_none() || !touching(c, k));
                    if free {
                        let mut n = *self;
                        n.active[c] = Some((me, 'K'));
                        n.res[s][0] -= 1;
                        if !me {
                            n.phase = "play";
                        }
                        n.white = !me;
                        n.clock = 0;
                        out.push((format!("K@{}", name(c)), n));
                    }
                }
                return out;
            }
            let warp = self.vanished[s].is_some() || self.originals[s].is_some();
            for (ki, kind) in KINDS.chars().enumerate().skip(1) {
                if self.res[s][ki] == 0 {
                    continue;
                }
                for c in 0..64 {
                    if self.active[c].is_some() {
                        continue;
                    }
                    let mut n = *self;
                    n.active[c] = Some((me, kind));
                    n.res[s][ki] -= 1;
                    if let Some(next) = self.finish(n, Some((c, kind)), false, false) {
                        out.push((format!("{kind}@{}", name(c)), next));
                    }
                }
            }
            for from in 0..64 {
                let Some((pw, kind)) = self.active[from] else {
                    continue;
                };
                if pw != me {
                    continue;
                }
                for to in dests(self, from, kind, me) {
                    let took = self.active[to].is_some();
                    let mark = if took { 'x' } else { '-' };
                    let won = took && self.originals[side(!me)].is_some_and(|o| o.0 == to);
                    // The move.
                    let mut n = *self;
                    n.active[to] = n.active[from].take();
                    if won {
                        n.originals[side(!me)] = None;
                    }
                    if let Some((c, cnt)) = n.originals[s] {
                        if c == from {
                            n.originals[s] = Some((to, cnt));
                        }
                    }
                    if let Some(next) = self.finish(n, None, took, won) {
                        out.push((format!("{}{mark}{}", name(from), name(to)), next));
                    }
                    // The clones.
                    if !warp {
                        for cnt in 1..=6u8 {
                            let mut n = *self;
                            n.active[to] = Some((me, kind));
                            if won {
                                n.originals[side(!me)] = None;
                            }
                            n.originals[s] = Some((from, cnt));
                            if let Some(next) = self.finish(n, None, took, won) {
                                out.push((
                                    format!("C{cnt}:{}{mark}{}", name(from), name(to)),
                                    next,
                                ));
                            }
                        }
                    }
                }
                if !warp {
                    for cnt in 1..=6u8 {
                        let mut n = *self;
                        n.active[from] = None;
                        n.vanished[s] = Some((kind, from, cnt));
                        if let Some(next) = self.finish(n, None, false, false) {
                            out.push((format!("V{cnt}:{}", name(from)), next));
                        }
                    }
                }
            }
            out
        }
    }

    pub fn perft(r: &Ref, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let next = r.successors();
        if depth == 1 {
            return next.len() as u64;
        }
        next.iter().map(|(_, n)| perft(n, depth - 1)).sum()
    }

    /// From the start, over all legal pairs of kings: White's legal drops,
    /// White's king steps, and the cells from which a knight would check.
    pub fn start_counts() -> (u64, u64, u64) {
        let start = Ref::parse(super::START);
        let (mut drops, mut steps, mut knight_checks) = (0, 0, 0);
        for (_, after_white) in start.successors() {
            for (_, r) in after_white.successors() {
                for (n, _) in r.successors() {
                    if n.contains('@') {
                        drops += 1;
                    } else if !n.as_bytes()[1].is_ascii_digit() {
                        steps += 1;
                    }
                }
                let bk = (0..64)
                    .find(|&i| r.active[i] == Some((false, 'K')))
                    .unwrap();
                knight_checks += (0..64)
                    .filter(|&c| r.active[c].is_none() && hits(&r, c, 'N', bk))
                    .count() as u64;
            }
        }
        (drops, steps, knight_checks)
    }
}

// ------------------------------------------------------------ no panics

mod garbage {
    use super::*;
    use proptest::prelude::*;

    /// Text built from the pieces of the notations, so that near-misses
    /// are common.
    fn soup() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("K"),
                Just("Q"),
                Just("R"),
                Just("N"),
                Just("U"),
                Just("@"),
                Just("-"),
                Just("x"),
                Just(":"),
                Just("V"),
                Just("C"),
                Just("("),
                Just(")"),
                Just(","),
                Just("Aa1"),
                Just("Bb2"),
                Just("Dd4"),
                Just("Ee5"),
                Just("0"),
                Just("7"),
                Just("99999999999"),
                Just(" "),
                Just("="),
                Just("phase"),
                Just("play"),
                Just("place"),
                Just("side"),
                Just("w"),
                Just("white"),
                Just("black"),
                Just("wres"),
                Just("bres"),
                Just("clock"),
                Just("é"),
            ],
            0..24,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn any_text_is_judged_without_panicking(move_text in soup(), position_text in soup()) {
            for text in [
                START,
                "phase=play side=w white=K@Aa1,N@Ab1(V1),R@Ac1 black=Q@Cc3,K@Dd4 wres=B1 bres=N1 clock=5",
                "phase=play side=b white=K@Bb2(C1),K@Bb3,U@Cc2 black=N@Bb4(V1),R@Db2,K@Dd4 wres=Q1 bres=R1 clock=0",
            ] {
                let mut p = pos(text);
                if let Ok(played) = p.play(&move_text) {
                    prop_assert!(!played.notation.is_empty());
                }
            }
            let mut text = START.to_string();
            text.push(' ');
            text.push_str(&position_text);
            let _ = game().position(&position_text, &[]);
            let _ = game().position(&text, &[]);
        }
    }
}
