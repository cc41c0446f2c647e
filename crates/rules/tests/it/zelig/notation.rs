//! SAN with Z, position text and draws, and the legend.

use super::*;

// ------------------------------------------------------------ notation

#[test]
fn san_with_z_and_its_disambiguation() {
    // The b1 knight and the d2 queen both reach c3: both are written Z.
    let fen = "4k3/8/8/8/8/8/3Z4/1Z2K3 w - - 0 1";
    let acts = pos("mchess", fen).legal_actions();
    assert!(
        acts.contains(&"Zbc3".to_string()) && acts.contains(&"Zdc3".to_string()),
        "{acts:?}"
    );
    match pos("mchess", fen).play("Zc3") {
        Err(MoveError::Ambiguous { candidates, .. }) => assert_eq!(candidates, ["Zbc3", "Zdc3"]),
        other => panic!("{other:?}"),
    }
    for (input, san) in [
        ("Zbc3", "Zbc3"),
        ("b1c3", "Zbc3"),
        ("zdc3", "Zdc3"),
        ("d2-c3", "Zdc3"),
    ] {
        let mut p = pos("mchess", fen);
        let played = play_ok(&mut p, input);
        assert_eq!(played.notation, san, "{input}");
        assert_eq!(played.events, vec!["White's zelig on c3 is a bishop."]);
    }
    // From the start: the knight's move, annotated with its new power.
    let mut p = pos("zelig", START);
    let played = play_ok(&mut p, "b1c3");
    assert_eq!(played.notation, "Zc3");
    assert_eq!(played.events, vec!["White's zelig on c3 is a bishop."]);
    // Orthodox letters are not pieces here; refusals name zeligs.
    assert!(matches!(
        pos("zelig", START).play("Nc3"),
        Err(MoveError::Unreadable { .. })
    ));
    let e = refusal("zelig", START, "Zd4");
    assert!(
        e.contains("the zelig (queen) on d1 has no legal move"),
        "{e}"
    );
    let e = refusal("zelig", START, "Ze4");
    assert!(
        e.contains("the zelig (knight) on b1 can move to a3 or c3"),
        "{e}"
    );
    let e = refusal("zelig", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "Zd4");
    assert!(e.contains("you have no zelig"), "{e}");
    let e = refusal("zelig", START, "d8d7");
    assert!(e.contains("the zelig on d8 is Black's"), "{e}");
    // `bc4` is a pawn: there is no bishop letter.
    let mut p = pos("mchess", "4k3/8/8/8/2z5/1P6/8/4K3 w - - 0 1");
    assert_eq!(play_ok(&mut p, "bc4").notation, "bxc4");
}

#[test]
fn position_text_and_draws() {
    let g = rules::game("zelig").unwrap();
    for bad in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4KM2 w - - 0 1",
    ] {
        assert!(g.position(bad, &[]).is_err(), "{bad}");
    }
    // The other side may not be in check, judged by the powers: the
    // zelig on d1 is a queen and sees d8.
    let e = g
        .position("3k4/8/8/8/8/8/8/3ZK3 w - - 0 1", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("Black is in check"), "{e}");
    // ... but on b1 it is a knight.
    assert!(g.position("3k4/8/8/8/8/8/8/1Z2K3 w - - 0 1", &[]).is_ok());
    let mut p = g.start(&[]).unwrap();
    for m in ["e4", "e5", "Zgf3", "Zc6"] {
        play_ok(&mut p, m);
    }
    let text = p.to_text();
    assert_eq!(
        text,
        "z1zzkzzz/pppp1ppp/2z5/4p3/4P3/5Z2/PPPP1PPP/ZZZZKZ1Z w KQkq - 2 3"
    );
    assert_eq!(g.position(&text, &[]).unwrap().to_text(), text);
    // Only bare kings are a dead position.
    let drawn = Outcome::Drawn {
        ending: Ending::InsufficientMaterial,
    };
    assert_eq!(
        pos("zelig", "4k3/8/8/8/8/8/8/4K3 w - - 0 1").outcome(),
        drawn
    );
    assert_eq!(
        pos("zelig", "4k3/8/8/8/8/8/8/1Z2K3 w - - 0 1").outcome(),
        Outcome::Ongoing
    );
    // Repetition still draws.
    let mut p = pos("mchess", "4k3/8/8/8/8/8/8/Z3K3 w - - 0 1");
    for m in ["Za2", "Kd8", "Za1", "Ke8", "Za2", "Kd8", "Za1"] {
        play_ok(&mut p, m);
        assert_eq!(p.outcome(), Outcome::Ongoing);
    }
    play_ok(&mut p, "Ke8");
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::Repetition
        }
    );
}

#[test]
fn the_legend_lists_monarchs_and_wraps() {
    // Fifteen White zeligs: the legend wraps within 76 columns.
    let p = pos("mchess", "k7/ZZZZZZZZ/8/8/8/8/8/ZZZZKZZZ b - - 0 1");
    let notes = p.diagram().notes;
    let lines: Vec<&str> = notes[0].lines().collect();
    assert_eq!(lines[0], "Zelig powers:");
    assert!(lines.iter().all(|l| l.len() <= 76), "{lines:#?}");
    let text = notes[0].clone();
    for needle in [
        "monarch e7",
        "queens d1 d7",
        "rooks a1 h1 a7 h7",
        "Black: none",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    assert!(pos("mchess", "k7/8/8/8/8/8/8/K7 w - - 0 1")
        .diagram()
        .notes
        .is_empty());
}
