//! The games' face, and the zelig powers: quotas, file powers, promotion,
//! check at a distance, the monarch and castling.

use super::*;

// ------------------------------------------------------------ the face

#[test]
fn three_games_one_start() {
    for (name, title) in [
        ("mchess", "M-Chess"),
        ("zelig", "Zelig Chess"),
        ("zelig2", "Zelig Chess 2"),
    ] {
        let g = rules::game(name).unwrap();
        assert_eq!(g.name(), name);
        assert_eq!(g.title(), title);
        let p = g.start(&[]).unwrap();
        assert_eq!(p.to_text(), START);
        let d = p.diagram();
        let grid = &d.boards[0];
        assert_eq!(grid.at(1, 0)[0].letter, 'Z');
        assert_eq!(grid.at(4, 7)[0].letter, 'K');
        assert_eq!(grid.at(3, 7)[0].color, Color::Black);
        assert_eq!(
            d.notes,
            vec!["Zelig powers:\n  \
                  White: queen d1, rooks a1 h1, bishops c1 f1, knights b1 g1\n  \
                  Black: queen d8, rooks a8 h8, bishops c8 f8, knights b8 g8"
                .to_string()],
            "{name}"
        );
        assert!(g.start(&["x".into()]).is_err());
    }
    assert_eq!(mirror(START), START.replace(" w ", " b "));
}

// ------------------------------------------------------------ powers

/// docs/rules.md §3's checks for the quota (White), each as the zeligs' squares
/// and the powers expected there, with both kings out of the way.
const QUOTA_EXAMPLES: &[(&str, &[(&str, char)])] = &[
    (
        "k7/3Z4/3Z4/3Z4/3Z4/3Z4/3Z4/3ZK3 w - - 0 1",
        &[
            ("d1", 'q'),
            ("d2", 'r'),
            ("d3", 'r'),
            ("d4", 'b'),
            ("d5", 'n'),
            ("d6", 'm'),
            ("d7", 'm'),
        ],
    ),
    (
        "7k/8/3Z4/3Z4/3Z4/3Z4/3Z4/Z2ZK3 w - - 0 1",
        &[
            ("a1", 'r'),
            ("d1", 'q'),
            ("d2", 'r'),
            ("d3", 'b'),
            ("d4", 'n'),
            ("d5", 'm'),
            ("d6", 'm'),
        ],
    ),
    (
        "4k3/8/8/8/8/8/Z6Z/Z3K2Z w - - 0 1",
        &[("a1", 'r'), ("a2", 'b'), ("h1", 'r'), ("h2", 'b')],
    ),
    (
        "4k3/Z7/Z7/Z7/Z7/Z7/Z7/Z3K3 w - - 0 1",
        &[
            ("a1", 'r'),
            ("a2", 'r'),
            ("a3", 'b'),
            ("a4", 'n'),
            ("a5", 'm'),
            ("a6", 'm'),
            ("a7", 'm'),
        ],
    ),
    // The nearest is not the lowest square's file order: h2 alone on h
    // with a3 alone on a: one rook each.
    (
        "4k3/8/8/8/8/Z7/7Z/4K3 w - - 0 1",
        &[("a3", 'r'), ("h2", 'r')],
    ),
    // Both rooks on one rook file leave the d-file only its queen.
    (
        "4k3/8/8/8/3Z4/3Z4/7Z/3ZK2Z w - - 0 1",
        &[
            ("h1", 'r'),
            ("h2", 'r'),
            ("d1", 'q'),
            ("d3", 'b'),
            ("d4", 'n'),
        ],
    ),
];

fn check_powers(game: &ZeligGame, fen: &str, expected: &[(&str, char)]) {
    let s = state(game, fen);
    for &(name, p) in expected {
        assert_eq!(power(&s, name), p, "{} {fen}: {name}", gname(game));
    }
    let m = state(game, &mirror(fen));
    for &(name, p) in expected {
        let there = mirror_square(name);
        assert_eq!(power(&m, &there), p, "mirrored {}: {there}", mirror(fen));
        assert_eq!(m.piece_at(sq(&there)).unwrap().color, Color::Black);
    }
}

#[test]
fn the_worked_quota_examples_for_both_colours() {
    for &(fen, expected) in QUOTA_EXAMPLES {
        check_powers(&ZELIG, fen, expected);
    }
}

#[test]
fn file_powers_in_mchess_and_zelig2_for_both_colours() {
    // One zelig on every file, some doubled: the file decides alone.
    let fen = "4k3/8/3Z4/Z6Z/8/3Z4/Z6Z/ZZZZKZZZ w - - 0 1";
    let mut expected = Vec::new();
    for (file, p) in "abcdefgh".chars().zip("rnbqmbnr".chars()) {
        if file != 'e' {
            expected.push((format!("{file}1"), p));
        }
    }
    for (name, p) in [
        ("a2", 'r'),
        ("h2", 'r'),
        ("d3", 'q'),
        ("a5", 'r'),
        ("h5", 'r'),
        ("d6", 'q'),
    ] {
        expected.push((name.to_string(), p));
    }
    let expected: Vec<(&str, char)> = expected.iter().map(|(n, p)| (n.as_str(), *p)).collect();
    check_powers(&MCHESS, fen, &expected);
    // The same placement in zelig2 (beyond its limits, which only judge
    // actions) has the same powers.
    check_powers(&ZELIG2, fen, &expected);
    // A zelig on the e-file is a monarch everywhere.
    check_powers(&ZELIG, "4k3/8/8/8/4Z3/8/8/3K4 w - - 0 1", &[("e4", 'm')]);
}

#[test]
fn the_quota_table_itself() {
    let d: Vec<Kind> = (0..7).map(|i| quota_power([0, 7, 0], 3, i)).collect();
    assert_eq!(
        d,
        [
            Kind::Queen,
            Kind::Rook,
            Kind::Rook,
            Kind::Bishop,
            Kind::Knight,
            Kind::Monarch,
            Kind::Monarch
        ]
    );
    assert_eq!(quota_power([2, 0, 2], 7, 1), Kind::Bishop);
    assert_eq!(quota_power([0, 1, 0], 2, 0), Kind::Bishop);
    assert_eq!(quota_power([1, 2, 1], 3, 1), Kind::Bishop);
}

#[test]
fn a_promotion_into_the_quota_is_a_bishop_and_gives_no_check() {
    // Rooks on a1 and h1: the zelig promoted on h8 is a bishop (docs/rules.md
    // §3), so it does not check the king on b8 along the rank. In M-Chess
    // it is a rook and does.
    let white = "1k6/7P/8/8/8/8/8/Z3K2Z w - - 0 1";
    let black = mirror(white);
    for (game, power, check) in [("zelig", "bishop", ""), ("mchess", "rook", "+")] {
        for (fen, input, square, side) in [
            (white, "h8", "h8", "White"),
            (black.as_str(), "h1=Z", "h1", "Black"),
        ] {
            let mut p = pos(game, fen);
            let played = play_ok(&mut p, input);
            assert_eq!(
                played.notation,
                format!("{square}=Z{check}"),
                "{game} {fen}"
            );
            assert_eq!(
                played.events,
                vec![format!("{side}'s zelig on {square} is a {power}.")],
                "{game} {fen}"
            );
        }
    }
}

#[test]
fn every_promotion_form_means_the_one_promotion() {
    let fen = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
    for input in ["b8=Z", "b8Z", "b8z", "b8", "b7b8", "b7b8z", "b7-b8=Z"] {
        let mut p = pos("mchess", fen);
        assert_eq!(play_ok(&mut p, input).notation, "b8=Z", "{input}");
        assert!(p.to_text().starts_with("1Z2k3/"), "{}", p.to_text());
    }
    // No queens, rooks, bishops or knights in these games.
    for input in ["b8=Q", "b8=N", "b7b8q"] {
        assert!(
            matches!(
                pos("mchess", fen).play(input),
                Err(MoveError::Unreadable { .. })
            ),
            "{input}"
        );
    }
    // One action per promotion square, named in coordinates with `z`.
    let p = pos("zelig", "3k4/1P6/8/8/8/8/8/4K3 w - - 0 1");
    let promotions: Vec<String> = p
        .divide(1)
        .into_iter()
        .map(|(m, _)| m)
        .filter(|m| m.starts_with("b7"))
        .collect();
    assert_eq!(promotions, ["b7b8z"]);
}

#[test]
fn check_at_a_distance_when_a_zelig_leaves_the_d_file() {
    // White's d1 is the queen, d3 a rook (the quota's second rook). When
    // d1 leaves the file, d3 becomes the queen and checks h7 on the
    // diagonal.
    let fen = "8/7k/8/8/8/3Z4/8/3Z2K1 w - - 0 1";
    for fen in [fen.to_string(), mirror(fen)] {
        let white = fen.contains(" w ");
        let (input, moved, other) = if white {
            ("Zc2", "c2", "d3")
        } else {
            ("Zc7", "c7", "d6")
        };
        let mut p = pos("zelig", &fen);
        let played = play_ok(&mut p, input);
        assert_eq!(played.notation, format!("{input}+"), "{fen}");
        let side = if white { "White" } else { "Black" };
        assert_eq!(
            played.events,
            vec![
                format!("{side}'s zelig on {moved} is a bishop."),
                format!("{side}'s zelig on {other} becomes a queen (it was a rook)."),
            ]
        );
    }
    // In M-Chess that zelig is a queen all along: the position is refused,
    // the side not to move being in check.
    assert!(rules::game("mchess")
        .unwrap()
        .position(fen, &[])
        .unwrap_err()
        .to_string()
        .contains("Black is in check"));
}

#[test]
fn a_capture_that_makes_an_enemy_queen_check_is_illegal() {
    // Black's d8 is the queen and d4 a rook; taking d8 makes d4 Black's
    // queen, which would check g1 along d4-e3-f2-g1.
    let fen = "3z3k/2Z5/8/8/3z4/8/8/6K1 w - - 0 1";
    for fen in [fen.to_string(), mirror(fen)] {
        let white = fen.contains(" w ");
        let capture = if white { "Zxd8" } else { "Zxd1" };
        let p = pos("zelig", &fen);
        let actions = p.legal_actions();
        assert!(
            !actions.iter().any(|a| a.starts_with(capture)),
            "{actions:?}"
        );
        // The capturing bishop has its other moves.
        assert!(actions.iter().any(|a| a.starts_with("Zb")), "{actions:?}");
        let e = refusal("zelig", &fen, capture);
        assert!(e.contains("would leave your king in check"), "{e}");
        // In M-Chess the second zelig on d is a queen anyway: the king is
        // in check already.
        assert!(state(&MCHESS, &fen).is_check(), "{fen}");
    }
}

#[test]
fn the_monarch_steps_checks_and_mates_but_is_not_royal() {
    // A monarch next to the king checks; unprotected, the king takes it.
    let fen = "4k3/4Z3/8/8/8/8/8/4K3 b - - 0 1";
    for fen in [fen.to_string(), mirror(fen)] {
        let p = pos("mchess", &fen);
        let take = if fen.contains(" b ") { "Kxe7" } else { "Kxe2" };
        assert_eq!(p.legal_actions(), vec![take.to_string()], "{fen}");
    }
    // Protected by its king, it mates.
    let fen = "4k3/4Z3/4K3/8/8/8/8/8 b - - 0 1";
    for (fen, winner) in [(fen.to_string(), Color::White), (mirror(fen), Color::Black)] {
        assert_eq!(
            pos("mchess", &fen).outcome(),
            Outcome::Won {
                winner,
                ending: Ending::Checkmate
            },
            "{fen}"
        );
    }
    // It may step next to the enemy king (giving check) and be attacked:
    // White's monarch on e6 steps to e7 beside the king on e8.
    let mut p = pos("mchess", "4k3/8/4Z3/8/8/8/8/4K3 w - - 0 1");
    let played = play_ok(&mut p, "Ze7");
    assert_eq!(played.notation, "Ze7+");
    // Still a monarch on the e-file: a power that did not change is not
    // told.
    assert!(played.events.is_empty(), "{:?}", played.events);
    // A monarch under attack is no check: the rook on a4 attacks e4.
    let p = pos("mchess", "4k3/8/8/8/z3Z3/8/8/4K3 w - - 0 1");
    assert!(!state(&MCHESS, &p.to_text()).is_check());
    assert!(p.legal_actions().contains(&"Kd2".to_string()));
    // The monarch steps in every direction, one square.
    let p = pos("mchess", "k7/8/8/8/4Z3/8/8/K7 w - - 0 1");
    let steps: Vec<String> = p
        .divide(1)
        .into_iter()
        .map(|(m, _)| m)
        .filter(|m| m.starts_with("e4"))
        .collect();
    assert_eq!(
        steps,
        ["e4d3", "e4d4", "e4d5", "e4e3", "e4e5", "e4f3", "e4f4", "e4f5"]
    );
}

#[test]
fn castling_then_the_corner_zelig_has_its_new_power() {
    let fen = "z3k2z/pppppppp/8/8/8/8/PPPPPPPP/Z3K2Z w KQkq - 0 1";
    for game in ["mchess", "zelig", "zelig2"] {
        for (fen, rank) in [(fen.to_string(), '1'), (mirror(fen), '8')] {
            let side = if rank == '1' { "White" } else { "Black" };
            let mut p = pos(game, &fen);
            let played = play_ok(&mut p, "O-O");
            assert_eq!(played.notation, "O-O");
            assert_eq!(
                played.events,
                vec![format!("{side}'s zelig on f{rank} is a bishop.")]
            );
            let mut p = pos(game, &fen);
            let played = play_ok(&mut p, &format!("Kc{rank}"));
            assert_eq!(played.notation, "O-O-O");
            assert_eq!(
                played.events,
                vec![format!("{side}'s zelig on d{rank} is a queen.")]
            );
        }
    }
    // After O-O the f1 zelig moves as a bishop: with f2 gone it reaches h3.
    let mut p = pos("mchess", "4k3/8/8/8/8/8/8/4K2Z w K - 0 1");
    play_ok(&mut p, "O-O");
    play_ok(&mut p, "Kd8");
    assert_eq!(play_ok(&mut p, "Zh3").notation, "Zh3");
    // Under the quota, castling long makes the d-file's old queen a rook.
    let mut p = pos("zelig", "4k3/8/8/8/3Z4/8/8/Z3K3 w Q - 0 1");
    let played = play_ok(&mut p, "O-O-O");
    assert_eq!(
        played.events,
        vec![
            "White's zelig on d1 is a queen.".to_string(),
            "White's zelig on d4 becomes a rook (it was a queen).".to_string(),
        ]
    );
    // In Zelig 2 the same castling would put two zeligs on the d-file.
    let e = refusal("zelig2", "4k3/8/8/8/3Z4/8/8/Z3K3 w Q - 0 1", "O-O-O");
    assert!(e.contains("2 zeligs on the d-file"), "{e}");
}

#[test]
fn a_castling_right_needs_the_corner_zelig() {
    let g = rules::game("zelig").unwrap();
    let e = g
        .position("4k3/8/8/8/8/8/8/4K3 w K - 0 1", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("a zelig on h1"), "{e}");
    let mut p = pos("zelig", "4k3/8/8/8/8/8/8/Z3K2Z w KQ - 0 1");
    play_ok(&mut p, "Zh2");
    play_ok(&mut p, "Kd8");
    play_ok(&mut p, "Zh1");
    play_ok(&mut p, "Ke8");
    let e = p.play("O-O").unwrap_err().to_string();
    assert!(e.contains("the zelig on h1 has moved"), "{e}");
}
