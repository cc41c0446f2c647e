//! Placement, drops, vanishing, cloning and reappearance (§5).

use super::*;

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
