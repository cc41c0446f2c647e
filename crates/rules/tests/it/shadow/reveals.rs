//! Reveals, chimeras, collapses, and kings taken or lost.

use super::*;

// ------------------------------------------------------------ reveals

#[test]
fn a_taken_piece_reveals_its_only_shadow_automatically() {
    let mut p = pos("7k/3n4/8/8/8/8/8/K2R4 1n6/8/8/8/8/8/8/8 w - - 0 1 -");
    let events = play(&mut p, "Rxd7");
    assert_eq!(
        p.to_text(),
        "1n5k/3R4/8/8/8/8/8/K7 8/8/8/8/8/8/8/8 b - - 0 1 -"
    );
    assert!(
        events.iter().any(|e| e.contains("knight on d7 is taken")),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| e.contains("shadow knight on b8 is revealed")),
        "{events:?}"
    );
    assert!(!p.is_decision());
    assert_eq!(p.to_act(), Color::Black);
}

#[test]
fn a_reveal_onto_an_own_piece_makes_a_chimera_that_moves_by_each_component() {
    let mut p = pos("1r5k/3n4/8/8/8/8/8/K2R4 1n6/8/8/8/8/8/8/8 w - - 0 1 -");
    let events = play(&mut p, "Rxd7");
    assert!(
        main_board(p.as_ref()).starts_with("1[rn]5k/"),
        "{}",
        p.to_text()
    );
    assert!(events.iter().any(|e| e.contains("chimera")), "{events:?}");
    let actions = p.legal_actions();
    // As a rook: b7…b1, a8 and c8…g8; as a knight: a6, c6, xd7; the king: 3.
    assert_eq!(actions.len(), 7 + 1 + 5 + 3 + 3, "{actions:?}");
    let mut as_knight = p.clone_box();
    play(&mut as_knight, "b8c6");
    assert!(
        main_board(as_knight.as_ref()).contains("2[rn]5/"),
        "{}",
        as_knight.to_text()
    );
    let mut as_rook = p.clone_box();
    play(&mut as_rook, "b8b2");
    assert!(
        main_board(as_rook.as_ref()).contains("/1[rn]6/K7"),
        "{}",
        as_rook.to_text()
    );
    // SAN names the class: Nc6 is the chimera moving as a knight.
    let mut by_san = p.clone_box();
    play(&mut by_san, "Nc6");
    assert_eq!(by_san.to_text(), as_knight.to_text());
}

#[test]
fn a_collapse_on_a_dark_square_takes_the_white_unit() {
    // Black's only shadow knight stands on c3 (dark) under a white bishop.
    let mut p = pos("7k/3n4/8/8/8/2B5/8/K2R4 8/8/8/8/8/2n5/8/8 w - - 0 1 -");
    let events = play(&mut p, "Rxd7");
    assert_eq!(
        main_board(p.as_ref()),
        "7k/3R4/8/8/8/2n5/8/K7",
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| e.contains("dark square c3")),
        "{events:?}"
    );
}

#[test]
fn a_collapse_on_a_light_square_takes_the_black_unit_even_the_revealed_one() {
    // f3 is light: the revealed knight itself is taken.
    let mut p = pos("7k/3n4/8/8/8/5B2/8/K2R4 8/8/8/8/8/5n2/8/8 w - - 0 1 -");
    let events = play(&mut p, "Rxd7");
    assert_eq!(main_board(p.as_ref()), "7k/3R4/8/8/8/5B2/8/K7");
    assert!(
        events.iter().any(|e| e.contains("light square f3")),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| e.contains("no shadow knight left")),
        "{events:?}"
    );
}

#[test]
fn the_capturer_can_die_in_a_collapse_on_its_own_square() {
    // e7 is dark: the shadow knight revealed there takes the white rook.
    let mut p = pos("7k/4n3/8/8/8/8/8/K3R3 8/4n3/8/8/8/8/8/8 w - - 0 1 -");
    play(&mut p, "Rxe7");
    assert_eq!(main_board(p.as_ref()), "7k/4n3/8/8/8/8/8/K7");
    assert_eq!(shadow_board(p.as_ref()), "8/8/8/8/8/8/8/8");
}

#[test]
fn a_chain_of_reveals_alternates_its_choosers() {
    let mut p = pos("7k/n7/8/8/8/2B5/8/R6K 8/8/5n2/8/8/2n5/1B4B1/8 w - - 0 1 -");
    let events = play(&mut p, "Rxa7");
    assert!(p.is_decision());
    assert_eq!(p.to_act(), Color::Black);
    assert_eq!(p.legal_actions(), vec!["reveal c3", "reveal f6"]);
    assert!(p.to_text().ends_with(" b - - 0 1 na7"), "{}", p.to_text());
    assert!(
        events.iter().any(|e| e.contains("Black must choose")),
        "{events:?}"
    );
    // A main move is refused while the decision waits, with the way out.
    match p.clone_box().play("Kg8") {
        Err(MoveError::Illegal { reason, .. }) => {
            assert!(reason.contains("reveal c3 or reveal f6"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    // One spelling written, several read: the PGN's one word
    // and its kin are the same decision.
    for spelling in [
        "reveal_c3",
        "reveal-c3",
        "revealc3",
        "Reveal C3",
        "reveal  c3",
    ] {
        let played = p
            .clone_box()
            .play(spelling)
            .unwrap_or_else(|e| panic!("{spelling}: {e}"));
        assert_eq!(played.notation, "reveal c3", "{spelling}");
    }
    assert!(p.clone_box().play("reveal_c4").is_err());
    // Black reveals onto the white bishop on c3 (dark): the bishop goes,
    // and White must choose which shadow bishop comes out.
    let events = play(&mut p, "reveal c3");
    assert!(p.is_decision());
    assert_eq!(p.to_act(), Color::White);
    assert_eq!(p.legal_actions(), vec!["reveal b2", "reveal g2"]);
    assert!(
        events.iter().any(|e| e.contains("White must choose")),
        "{events:?}"
    );
    play(&mut p, "reveal g2");
    assert!(!p.is_decision());
    assert_eq!(p.to_act(), Color::Black);
    assert_eq!(
        p.to_text(),
        "7k/R7/8/8/8/2n5/6B1/7K 8/8/5n2/8/8/8/1B6/8 b - - 0 1 -"
    );
}

#[test]
fn a_taken_king_comes_back_from_the_shadow_board() {
    let mut p = pos("k7/8/8/8/8/8/8/R6K 8/8/8/4k3/8/8/8/8 w - - 0 1 -");
    play(&mut p, "Rxa8");
    assert_eq!(main_board(p.as_ref()), "R7/8/8/4k3/8/8/8/7K");
    assert_eq!(p.outcome(), Outcome::Ongoing);
}

#[test]
fn a_side_without_kings_on_either_board_loses() {
    let mut p = pos("k7/8/8/8/8/8/8/R6K 8/8/8/8/8/8/8/8 w - - 0 1 -");
    play(&mut p, "Rxa8");
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::White,
            ending: Ending::KingsCaptured
        }
    );
    assert!(p.legal_actions().is_empty());
    assert_eq!(p.perft(1), 0);
}

#[test]
fn both_sides_losing_their_kings_in_one_turn_is_a_draw() {
    // The rook takes Black's king-and-knight chimera; the knight's reveal
    // lands on the white king on dark e1 and takes it.
    let mut p = pos("8/1[kn]6/8/8/8/8/8/1R2K3 8/8/8/8/8/8/8/4n3 w - - 0 1 -");
    play(&mut p, "Rxb7");
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::KingsCaptured
        }
    );
}
