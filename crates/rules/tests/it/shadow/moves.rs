//! Promotion, castling and moving into attack.

use super::*;

// ------------------------------------------------------------ moves

#[test]
fn promotion_turns_a_shadow_pawn_into_a_shadow_of_the_new_kind() {
    let mut p = pos("7k/1P6/8/8/8/8/8/K7 8/8/8/8/8/8/P1P5/8 w - - 0 1 -");
    let actions = p.legal_actions();
    for expected in ["b8=Q/a2", "b8=Q/c2", "b8=N/a2", "b8=R/c2"] {
        assert!(actions.contains(&expected.to_string()), "{actions:?}");
    }
    let events = play(&mut p, "b8=Q/a2");
    assert_eq!(main_board(p.as_ref()), "1Q5k/8/8/8/8/8/8/K7");
    assert_eq!(shadow_board(p.as_ref()), "1Q6/8/8/8/8/8/2P5/8");
    assert!(
        events
            .iter()
            .any(|e| e.contains("shadow pawn on a2 becomes a shadow queen on b8")),
        "{events:?}"
    );
    // Without shadow pawns nothing happens on the shadow board.
    let mut q = pos("7k/1P6/8/8/8/8/8/K7 8/8/8/8/8/8/8/8 w - - 0 1 -");
    play(&mut q, "b8=N");
    assert_eq!(main_board(q.as_ref()), "1N5k/8/8/8/8/8/8/K7");
    assert_eq!(shadow_board(q.as_ref()), "8/8/8/8/8/8/8/8");
}

#[test]
fn only_the_pawn_of_a_chimera_promotes_by_the_pawn_pattern() {
    let mut p = pos("7k/[RP]7/8/8/8/8/8/K7 8/8/8/8/8/8/8/8 w - - 0 1 -");
    let mut by_pawn = p.clone_box();
    play(&mut by_pawn, "a7a8=Q(P)");
    assert!(
        main_board(by_pawn.as_ref()).starts_with("[QR]6k"),
        "{}",
        by_pawn.to_text()
    );
    play(&mut p, "a7a8(R)");
    assert!(
        main_board(p.as_ref()).starts_with("[RP]6k"),
        "{}",
        p.to_text()
    );
}

#[test]
fn castling_moves_no_shadow_and_needs_unattacked_squares() {
    let mut p = pos("4k3/8/8/8/8/8/8/R3K2R 8/8/8/8/8/8/8/R3K2R w KQ - 0 1 -");
    assert!(p.legal_actions().contains(&"O-O".to_string()));
    play(&mut p, "O-O");
    assert_eq!(main_board(p.as_ref()), "4k3/8/8/8/8/8/8/R4RK1");
    assert_eq!(shadow_board(p.as_ref()), "8/8/8/8/8/8/8/R3K2R");
    assert!(p.to_text().contains(" b - - "), "{}", p.to_text());
    // A black knight-and-bishop chimera attacks f1 as a bishop.
    let q = pos("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 -"
        .replace(" w ", " 8/8/8/8/8/8/8/8 w ")
        .as_str());
    assert!(q.legal_actions().contains(&"O-O".to_string()));
    let mut r = pos("4k3/8/8/8/1[bn]6/8/8/R3K2R 8/8/8/8/8/8/8/8 w KQ - 0 1 -");
    assert!(!r.legal_actions().contains(&"O-O".to_string()));
    assert!(matches!(r.play("O-O"), Err(MoveError::Illegal { .. })));
}

#[test]
fn moving_into_attack_is_legal_and_kings_are_taken_like_pieces() {
    let mut p = pos("4k3/8/8/8/8/8/4r3/4K3 8/8/8/8/8/8/8/8 w - - 0 1 -");
    let actions = p.legal_actions();
    assert!(actions.contains(&"Kd1".to_string()), "{actions:?}");
    assert!(actions.contains(&"Kxe2".to_string()), "{actions:?}");
    play(&mut p, "Kd1");
    play(&mut p, "Rd2");
    play(&mut p, "Kc1");
    play(&mut p, "Rd1");
    play(&mut p, "Kb2");
    play(&mut p, "Rd2");
    play(&mut p, "Kc1");
    let events = play(&mut p, "Rc2");
    let _ = events;
    assert_eq!(p.outcome(), Outcome::Ongoing);
    play(&mut p, "Kd1");
    play(&mut p, "Rc1");
    assert_eq!(p.outcome(), Outcome::Ongoing);
    play(&mut p, "Kxc1");
    let mut q = pos("4k3/8/8/8/8/8/8/3rK3 8/8/8/8/8/8/8/8 b - - 0 1 -");
    play(&mut q, "Rxe1");
    assert_eq!(
        q.outcome(),
        Outcome::Won {
            winner: Color::Black,
            ending: Ending::KingsCaptured
        }
    );
}
