//! The game's face (the start and its diagram) and perft counts, by hand
//! and against the reference generator.

use super::*;

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
