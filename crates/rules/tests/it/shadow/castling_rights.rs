//! When each castling right is kept or lost.

use super::*;

// ------------------------------------------------------------ castling rights

/// The castling field of a position text.
fn castling(p: &dyn Position) -> String {
    p.to_text().split(' ').nth(3).unwrap().to_string()
}

/// A white bishop revealed onto Black's unmoved rook on h8 (dark) dies
/// there; the rook stays unmoved and pure, so Black keeps `k` and castles
/// short later.
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
