//! Shadow Chess (docs/rules.md §4): the published counts, and every rule as a
//! scenario from position text.

use rules::{self, Color, Ending, MoveError, Outcome, Position};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 -";

fn pos(text: &str) -> Box<dyn Position> {
    rules::game("shadowchess")
        .unwrap()
        .position(text, &[])
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play(p: &mut Box<dyn Position>, action: &str) -> Vec<String> {
    let before = p.to_text();
    match p.play(action) {
        Ok(played) => played.events,
        Err(e) => panic!("{before}: {action} refused: {e}"),
    }
}

fn main_board(p: &dyn Position) -> String {
    p.to_text().split(' ').next().unwrap().to_string()
}

fn shadow_board(p: &dyn Position) -> String {
    p.to_text().split(' ').nth(1).unwrap().to_string()
}

// ------------------------------------------------------------ counts

#[test]
fn perft_from_the_start_matches_rules_md() {
    let p = rules::game("shadowchess").unwrap().start(&[]).unwrap();
    assert_eq!(p.to_text(), START);
    assert_eq!(p.perft(1), 280);
    assert_eq!(p.perft(2), 78400);
}

#[test]
fn perft_after_a_capture_with_an_automatic_reveal_matches_rules_md() {
    let p = pos("7k/3n4/8/8/8/8/8/K2R4 1n6/8/8/8/8/8/8/8 w - - 0 1 -");
    assert_eq!(p.perft(1), 15);
    assert_eq!(p.perft(2), 300);
}

#[test]
fn start_actions_pair_each_main_move_with_each_shadow_move_of_its_class() {
    let p = rules::game("shadowchess").unwrap().start(&[]).unwrap();
    let actions = p.legal_actions();
    assert!(actions.contains(&"e4/d2d3".to_string()));
    assert!(actions.contains(&"e4/e2e4".to_string()));
    assert!(actions.contains(&"Nf3/b1d2".to_string()), "stacking on d2");
    assert!(actions.contains(&"Nf3/g1e2".to_string()));
    assert!(!actions.iter().any(|a| a.starts_with("Nf3/e2")));
}

/// perft(2) counts its last two plies together (a main move that takes
/// nothing is counted once for all its shadow parts); it must equal playing
/// out every action and counting the answers, in random games full of
/// captures, reveals, collapses and promotions.
#[test]
fn two_ply_counting_agrees_with_playing_every_action_out() {
    let mut seed: u64 = 0x5AD0_C4E5_5EED_0001;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let mut checked = 0;
    for _game in 0..6 {
        let mut p = rules::game("shadowchess").unwrap().start(&[]).unwrap();
        for _ply in 0..60 {
            let actions = p.legal_actions();
            if actions.is_empty() {
                break;
            }
            let played_out: u64 = actions
                .iter()
                .map(|a| {
                    let mut q = p.clone_box();
                    q.play(a).unwrap();
                    q.perft(1)
                })
                .sum();
            assert_eq!(p.perft(2), played_out, "{}", p.to_text());
            checked += 1;
            // Prefer captures, so the games reach reveals and collapses.
            let captures: Vec<&String> = actions.iter().filter(|a| a.contains('x')).collect();
            let pick = if !captures.is_empty() && next(3) > 0 {
                captures[next(captures.len())].clone()
            } else {
                actions[next(actions.len())].clone()
            };
            p.play(&pick).unwrap();
        }
    }
    assert!(checked > 200, "{checked}");
}

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

// ------------------------------------------------------------ castling rights

/// The castling field of a position text.
fn castling(p: &dyn Position) -> String {
    p.to_text().split(' ').nth(3).unwrap().to_string()
}

/// Issue #29, the case as reported: a white bishop revealed onto Black's
/// unmoved rook on h8 (dark) dies there; the rook stays unmoved and pure,
/// so Black keeps `k` and castles short later.
#[test]
fn a_white_piece_dying_on_the_black_h8_rook_leaves_black_its_short_castling() {
    let mut p = pos("4k2r/8/8/8/8/2n5/8/1B2K3 7B/8/8/8/8/8/8/8 b k - 0 1 -");
    let events = play(&mut p, "Nxb1");
    assert!(
        events
            .iter()
            .any(|e| e.contains("dark square h8: the revealed bishop is taken")),
        "{events:?}"
    );
    assert_eq!(
        p.to_text(),
        "4k2r/8/8/8/8/8/8/1n2K3 8/8/8/8/8/8/8/8 w k - 0 2 -"
    );
    play(&mut p, "Kd2");
    assert!(p.legal_actions().contains(&"O-O".to_string()));
    play(&mut p, "O-O");
    assert_eq!(main_board(p.as_ref()), "5rk1/8/8/8/8/8/3K4/1n6");
    assert_eq!(castling(p.as_ref()), "-");
}

/// The mirror: a black bishop revealed onto White's unmoved rook on h1
/// (light) dies there; White keeps `K` and castles short later.
#[test]
fn a_black_piece_dying_on_the_white_h1_rook_leaves_white_its_short_castling() {
    let mut p = pos("1b2k3/8/2N5/8/8/8/8/4K2R 8/8/8/8/8/8/8/7b w K - 0 1 -");
    let events = play(&mut p, "Nxb8");
    assert!(
        events
            .iter()
            .any(|e| e.contains("light square h1: the revealed bishop is taken")),
        "{events:?}"
    );
    assert_eq!(
        p.to_text(),
        "1N2k3/8/8/8/8/8/8/4K2R 8/8/8/8/8/8/8/8 b K - 0 1 -"
    );
    play(&mut p, "Kf7");
    assert!(p.legal_actions().contains(&"O-O".to_string()));
    play(&mut p, "O-O");
    assert_eq!(main_board(p.as_ref()), "1N6/5k2/8/8/8/8/8/5RK1");
    assert_eq!(castling(p.as_ref()), "-");
}

/// The right follows the unit, not the square: a rook taken on its corner
/// and replaced there by its own shadow rook (which wins the collapse on
/// dark h8) is a pure rook on h8, but not the unmoved one.
#[test]
fn a_rook_taken_and_replaced_by_its_shadow_on_the_corner_has_no_right() {
    let mut p = pos("4k2r/8/8/8/8/8/1B6/4K3 7r/8/8/8/8/8/8/8 w k - 0 1 -");
    play(&mut p, "Bxh8");
    assert_eq!(
        p.to_text(),
        "4k2r/8/8/8/8/8/8/4K3 8/8/8/8/8/8/8/8 b - - 0 1 -"
    );
    assert!(!p.legal_actions().contains(&"O-O".to_string()));
}

/// Every way a right is lost (docs/rules.md §4, Castling), for both colours and
/// both wings: `(what, position, actions, castling field after)`. Each
/// position has all four rights; only the named ones go.
const RIGHTS_LOST: &[(&str, &str, &[&str], &str)] = &[
    // The rook moves (and coming back does not bring the right back).
    (
        "white h1 rook moves",
        "r3k2r/8/8/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 w KQkq - 0 1 -",
        &["Rh2"],
        "Qkq",
    ),
    (
        "white a1 rook moves",
        "r3k2r/8/8/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 w KQkq - 0 1 -",
        &["Ra2"],
        "Kkq",
    ),
    (
        "black h8 rook moves",
        "r3k2r/8/8/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 b KQkq - 0 1 -",
        &["Rh7"],
        "KQq",
    ),
    (
        "black a8 rook moves",
        "r3k2r/8/8/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 b KQkq - 0 1 -",
        &["Ra7"],
        "KQk",
    ),
    (
        "white h1 rook moves and comes back, black a8 rook moves",
        "r3k2r/8/8/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 w KQkq - 0 1 -",
        &["Rh2", "Ra7", "Rh1"],
        "Qk",
    ),
    // The king moves.
    (
        "white king moves",
        "r3k2r/8/8/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 w KQkq - 0 1 -",
        &["Kf1"],
        "kq",
    ),
    (
        "black king moves",
        "r3k2r/8/8/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 b KQkq - 0 1 -",
        &["Kd8"],
        "KQ",
    ),
    // The rook is taken by a main move.
    (
        "white h1 rook taken",
        "r3k2r/8/8/8/8/6n1/8/R3K2R 8/8/8/8/8/8/8/8 b KQkq - 0 1 -",
        &["Nxh1"],
        "Qkq",
    ),
    (
        "white a1 rook taken",
        "r3k2r/8/8/8/8/1n6/8/R3K2R 8/8/8/8/8/8/8/8 b KQkq - 0 1 -",
        &["Nxa1"],
        "Kkq",
    ),
    (
        "black h8 rook taken",
        "r3k2r/8/6N1/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 w KQkq - 0 1 -",
        &["Nxh8"],
        "KQq",
    ),
    (
        "black a8 rook taken",
        "r3k2r/8/1N6/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 w KQkq - 0 1 -",
        &["Nxa8"],
        "KQk",
    ),
    // The rook or king collapses away: an enemy piece revealed onto it
    // wins (a1 and e1 are dark, a8 and e8 light).
    (
        "white a1 rook collapses away",
        "r3k2r/8/8/3N4/8/2b5/8/R3K2R 8/8/8/8/8/8/8/b7 w KQkq - 0 1 -",
        &["Nxc3"],
        "Kkq",
    ),
    (
        "black a8 rook collapses away",
        "r3k2r/8/8/3n4/8/2B5/8/R3K2R B7/8/8/8/8/8/8/8 b KQkq - 0 1 -",
        &["Nxc3"],
        "KQk",
    ),
    (
        "white e1 king collapses away",
        "r3k2r/8/8/3N4/8/2b5/8/R3K2R 8/8/8/8/3K4/8/8/4b3 w KQkq - 0 1 -",
        &["Nxc3"],
        "kq",
    ),
    (
        "black e8 king collapses away",
        "r3k2r/8/8/3n4/8/2B5/8/R3K2R 4B3/8/8/8/3k4/8/8/8 b KQkq - 0 1 -",
        &["Nxc3"],
        "KQ",
    ),
    // An own piece revealed onto the rook or king makes a chimera.
    (
        "white h1 rook joins a chimera",
        "r3k2r/8/8/3n4/8/2N5/8/R3K2R 8/8/8/8/8/8/8/7N b KQkq - 0 1 -",
        &["Nxc3"],
        "Qkq",
    ),
    (
        "white a1 rook joins a chimera",
        "r3k2r/8/8/3n4/8/2N5/8/R3K2R 8/8/8/8/8/8/8/N7 b KQkq - 0 1 -",
        &["Nxc3"],
        "Kkq",
    ),
    (
        "white e1 king joins a chimera",
        "r3k2r/8/8/3n4/8/2N5/8/R3K2R 8/8/8/8/8/8/8/4N3 b KQkq - 0 1 -",
        &["Nxc3"],
        "kq",
    ),
    (
        "black h8 rook joins a chimera",
        "r3k2r/8/8/3N4/8/2n5/8/R3K2R 7n/8/8/8/8/8/8/8 w KQkq - 0 1 -",
        &["Nxc3"],
        "KQq",
    ),
    (
        "black a8 rook joins a chimera",
        "r3k2r/8/8/3N4/8/2n5/8/R3K2R n7/8/8/8/8/8/8/8 w KQkq - 0 1 -",
        &["Nxc3"],
        "KQk",
    ),
    (
        "black e8 king joins a chimera",
        "r3k2r/8/8/3N4/8/2n5/8/R3K2R 4n3/8/8/8/8/8/8/8 w KQkq - 0 1 -",
        &["Nxc3"],
        "KQ",
    ),
];

#[test]
fn a_right_is_lost_when_its_king_or_rook_moves_is_taken_collapses_or_joins_a_chimera() {
    for &(what, text, actions, after) in RIGHTS_LOST {
        let mut p = pos(text);
        let mut events = Vec::new();
        for action in actions {
            events.extend(play(&mut p, action));
        }
        assert_eq!(castling(p.as_ref()), after, "{what}: {events:?}");
        // The position text still reads back with the rights it names.
        assert_eq!(pos(&p.to_text()).to_text(), p.to_text(), "{what}");
    }
}

/// A rook that moved away and came back stands pure on its corner again,
/// but castling with it is refused.
#[test]
fn a_rook_that_moved_away_and_back_cannot_castle() {
    let mut p = pos("r3k2r/8/8/8/8/8/8/R3K2R 8/8/8/8/8/8/8/8 w KQkq - 0 1 -");
    for action in ["Rh2", "Ra7", "Rh1", "Rb7"] {
        play(&mut p, action);
    }
    assert_eq!(main_board(p.as_ref()), "4k2r/1r6/8/8/8/8/8/R3K2R");
    assert_eq!(castling(p.as_ref()), "Qk");
    assert!(!p.legal_actions().contains(&"O-O".to_string()));
    assert!(p.legal_actions().contains(&"O-O-O".to_string()));
    assert!(matches!(p.play("O-O"), Err(MoveError::Illegal { .. })));
}

// ------------------------------------------------------------ notation

#[test]
fn a_missing_or_wrong_shadow_part_is_answered_with_the_choices() {
    let mut p = rules::game("shadowchess").unwrap().start(&[]).unwrap();
    match p.play("Nf3") {
        Err(MoveError::Illegal { reason, .. }) => {
            assert!(reason.contains("Nf3/b1a3"), "{reason}");
            assert!(reason.contains("Nf3/g1h3"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    match p.play("Nf3/b1b3") {
        Err(MoveError::Illegal { reason, .. }) => assert!(reason.contains("Nf3/b1c3"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // Coordinates, class letters and dashes are all read.
    assert_eq!(
        p.clone_box().play("g1f3/Nb1-c3").unwrap().notation,
        "Nf3/b1c3"
    );
    assert_eq!(
        p.clone_box().play("e2e4/Pd2d3").unwrap().notation,
        "e4/d2d3"
    );
    assert_eq!(p.play("e4/d2-d4").unwrap().notation, "e4/d2d4");
}

#[test]
fn a_move_without_a_shadow_move_takes_no_shadow_part() {
    let mut p = pos("7k/3n4/8/8/8/8/8/K2R4 1n6/8/8/8/8/8/8/8 w - - 0 1 -");
    assert!(matches!(
        p.clone_box().play("Rd2/b1c3"),
        Err(MoveError::Illegal { .. })
    ));
    assert_eq!(p.play("Rd2/-").unwrap().notation, "Rd2");
}

#[test]
fn position_text_reads_back_and_bad_text_is_refused() {
    for text in [
        START,
        "1[rn]5k/3R4/8/8/8/8/8/K7 8/8/8/(NPp)7/8/8/8/8 b - - 3 12 -",
        "7k/R7/8/8/8/2n5/8/7K 8/8/5n2/8/8/8/1B4B1/8 w - - 0 1 Bc3",
    ] {
        assert_eq!(pos(text).to_text(), text);
    }
    let game = rules::game("shadowchess").unwrap();
    for bad in [
        "8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1",
        "8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 x - - 0 1 -",
        "[Kn]7/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 -",
        "P7/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 -",
        "8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w K - 0 1 -",
        "8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 Nc3",
        "[8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 -",
        "9/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 -",
    ] {
        assert!(game.position(bad, &[]).is_err(), "{bad}");
    }
}

/// Found by the `position_text` and `moves` fuzz targets (fuzz/): a rank
/// written as a long run of digits overflowed the file counter (a panic in
/// a build with overflow checks) instead of being refused.
#[test]
fn a_rank_of_too_many_empty_squares_is_refused_not_overflowed() {
    let game = rules::game("shadowchess").unwrap();
    let long = format!(
        "nN{}3hrb/ppppp/9//8/8//PNPRNBQR w KQkq - 0 1",
        "8".repeat(80)
    );
    assert!(game.position(&long, &[]).is_err());
    let artifact: &[u8] = b"knN8888888888888888888888888888888888888888888888888888888888888888888888888888888883hrb/ppppp/9//8/8//PNPRNBQR w KQk\x00\x005'PR w KQkq - 0 1";
    let text = String::from_utf8_lossy(&artifact[1..]);
    for g in rules::registry() {
        let _ = g.position(&text, &[]);
    }
    // A shadow move of four bytes with a two-byte character in it.
    let mut start = rules::game("shadowchess").unwrap().start(&[]).unwrap();
    assert!(start.play("e4/aéb").is_err());
    // The moves target's find: every game, move texts played from the start.
    let data: &[u8] = b"3\0\x05\0\x05e\xff43\nnd3";
    let games = rules::registry();
    let game = games[data[0] as usize % games.len()];
    let mut position = game.start(&[]).unwrap();
    for input in String::from_utf8_lossy(&data[2..]).split('\n') {
        if position.play(input).is_ok() {
            let written = position.to_text();
            let again = game.position(&written, &[]).unwrap();
            assert_eq!(again.to_text(), written);
        }
    }
}
