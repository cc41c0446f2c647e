//! Kings under warps, and the end of the game: checkmate, stalemate, draws.

use super::*;

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
