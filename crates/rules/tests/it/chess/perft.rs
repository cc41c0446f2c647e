//! Perft vectors (docs/rules.md §0) and the game's face.

use super::*;

fn check_perft(fen: &str, counts: &[u64]) {
    let p = pos(fen);
    for (d, &n) in counts.iter().enumerate() {
        assert_eq!(p.perft(d as u32 + 1), n, "{fen} depth {}", d + 1);
    }
}

#[test]
fn perft_start_to_depth_4() {
    check_perft(START, &[20, 400, 8902, 197281]);
}

#[test]
fn perft_kiwipete_to_depth_4() {
    check_perft(KIWIPETE, &[48, 2039, 97862, 4085603]);
}

#[test]
fn perft_position_3_to_depth_5() {
    check_perft(POS3, &[14, 191, 2812, 43238, 674624]);
}

#[test]
fn perft_position_4_to_depth_4() {
    check_perft(POS4, &[6, 264, 9467, 422333]);
}

#[test]
fn perft_position_5_to_depth_4() {
    check_perft(POS5, &[44, 1486, 62379, 2103487]);
}

#[test]
fn perft_position_6_to_depth_4() {
    check_perft(POS6, &[46, 2079, 89890, 3894594]);
}

#[test]
#[ignore = "slow: run with --ignored (release recommended)"]
fn perft_start_depth_5_and_6() {
    let p = pos(START);
    assert_eq!(p.perft(5), 4865609);
    assert_eq!(p.perft(6), 119060324);
}

#[test]
#[ignore = "slow: run with --ignored (release recommended)"]
fn perft_deep_vectors() {
    assert_eq!(pos(KIWIPETE).perft(5), 193690690);
    assert_eq!(pos(POS3).perft(6), 11030083);
    assert_eq!(pos(POS4).perft(5), 15833292);
    assert_eq!(pos(POS5).perft(5), 89941194);
    assert_eq!(pos(POS6).perft(5), 164075551);
}

// ------------------------------------------------------------ the face

#[test]
fn perft_helper_for_the_cli() {
    let chess = rules::game("chess").unwrap();
    assert_eq!(rules::perft(chess, 3, None), Ok(8902));
    assert_eq!(rules::perft(chess, 2, Some(KIWIPETE)), Ok(2039));
    assert!(rules::perft(chess, 1, Some("nonsense")).is_err());
}

#[test]
fn game_face() {
    let chess = rules::game("CHESS").unwrap();
    assert_eq!(chess.name(), "chess");
    assert_eq!(chess.title(), "Chess");
    assert!(chess.options().is_empty());
    let p = chess.start(&[]).unwrap();
    assert_eq!(p.game().name(), "chess");
    assert_eq!(p.to_act(), Color::White);
    let acts = p.legal_actions();
    assert_eq!(acts.len(), 20);
    let mut sorted = acts.clone();
    sorted.sort();
    assert_eq!(acts, sorted);
    assert!(acts.contains(&"Nf3".to_string()) && acts.contains(&"e4".to_string()));
    let d = p.diagram();
    assert_eq!(d.boards.len(), 1);
    let g = &d.boards[0];
    assert_eq!((g.label.as_str(), g.files, g.ranks), ("", 8, 8));
    assert_eq!(
        g.at(4, 0),
        &[rules::Glyph {
            color: Color::White,
            letter: 'K'
        }]
    );
    assert_eq!(
        g.at(3, 7),
        &[rules::Glyph {
            color: Color::Black,
            letter: 'Q'
        }]
    );
    assert!(g.at(4, 4).is_empty());
    let q = p.clone();
    assert_eq!(q.to_text(), START);
}
