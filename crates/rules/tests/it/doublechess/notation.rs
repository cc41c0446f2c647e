//! SAN on the wide board, letter case, FEN round trips and draws.

use super::*;

// ------------------------------------------------------------ notation

#[test]
fn san_disambiguation_on_the_wide_board() {
    // Three queens reach l4: j2 and n2 share rank 2, n2 and n6 share file n.
    let fen = "k15/16/13Q2/16/16/16/9Q3Q2/8K7 w - - 0 1";
    let p = pos(fen);
    let acts = p.legal_actions();
    for san in ["Qjl4", "Q6l4", "Qn2l4"] {
        assert!(acts.contains(&san.to_string()), "{san} in {acts:?}");
    }
    assert_eq!(reading(fen, "Qjl4").unwrap(), "Qjl4");
    assert_eq!(reading(fen, "Q6l4").unwrap(), "Q6l4");
    assert_eq!(reading(fen, "n2l4").unwrap(), "Qn2l4");
    match reading(fen, "Qnl4") {
        Err(MoveError::Ambiguous { candidates, .. }) => assert_eq!(candidates, ["Q6l4", "Qn2l4"]),
        other => panic!("{other:?}"),
    }
    // Two rooks on one file: rank disambiguation.
    let fen = "15k/4R11/16/16/16/16/16/4R3K7 w - - 0 1";
    let acts = pos(fen).legal_actions();
    assert!(
        acts.contains(&"R1e4".to_string()) && acts.contains(&"R7e4".to_string()),
        "{acts:?}"
    );
    assert_eq!(reading(fen, "R1e4").unwrap(), "R1e4");
    assert!(matches!(
        reading(fen, "Re4"),
        Err(MoveError::Ambiguous { .. })
    ));
}

#[test]
fn letter_case_rules() {
    // Upper case is a piece, never a file.
    assert!(matches!(
        reading(START, "E4"),
        Err(MoveError::Unreadable { .. })
    ));
    assert!(matches!(
        reading(START, "I2I4"),
        Err(MoveError::Unreadable { .. })
    ));
    assert_eq!(reading(START, "Nc3").unwrap(), "Nc3");
    // Lower-case files are files: `nc3` names an n-pawn, `kj3` a k-pawn.
    assert!(matches!(
        reading(START, "nc3"),
        Err(MoveError::Illegal { .. })
    ));
    assert!(reading(START, "nc3")
        .unwrap_err()
        .to_string()
        .contains("pawn on n2"));
    assert!(matches!(
        reading(START, "kj3"),
        Err(MoveError::Illegal { .. })
    ));
    assert_eq!(reading(START, "k3").unwrap(), "k3");
    assert_eq!(reading(START, "k1j3").unwrap(), "Nj3");
    // `bc4` is the b-pawn taking on c4, never a bishop.
    let fen = "15k/16/16/16/2n13/1P14/16/5B2K7 w - - 0 1";
    assert_eq!(reading(fen, "bc4").unwrap(), "bxc4");
    assert_eq!(reading(fen, "Bc4").unwrap(), "Bxc4");
    // q and r are no files: read as pieces.
    let e = reading(fen, "rb1").unwrap_err().to_string();
    assert!(e.contains("you have no rook"), "{e}");
    assert_eq!(
        reading("k15/16/16/16/16/16/9Q6/8K7 w - - 0 1", "ql4").unwrap(),
        "Ql4"
    );
    let e = reading(START, "Qh5").unwrap_err().to_string();
    assert!(e.contains("the queen on d1 has no legal move"), "{e}");
    let e = reading(START, "Zz9").unwrap_err().to_string();
    assert!(e.contains("lower-case files a to p"), "{e}");
}

// ------------------------------------------------------------ FEN and draws

#[test]
fn fen_round_trips() {
    for fen in [START, INSIDE, OUTSIDE] {
        assert_eq!(pos(fen).to_text(), fen);
    }
    let mut p = pos(START);
    for m in ["i4", "n5", "Nl3", "Nn6"] {
        play_ok(&mut p, m);
    }
    let text = p.to_text();
    assert_eq!(
        text,
        "rnbqrnbqkbnrqb1r/ppppppppppppp1pp/13n2/13p2/8P7/11N4/PPPPPPPP1PPPPPPP/RNBQRNBQKB1RQBNR w LEPAlepa - 2 3"
    );
    assert_eq!(pos(&text).to_text(), text);
    let g = rules::game("doublechess").unwrap();
    // Chess letters for castling are refused here, and vice versa.
    assert!(g.position(&START.replace("LEPAlepa", "KQkq"), &[]).is_err());
    assert!(rules::game("chess")
        .unwrap()
        .position(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
            &[]
        )
        .is_err());
    // Wrong width.
    assert!(g
        .position(&START.replace("/16/16/16/16/", "/16/15/16/16/"), &[])
        .is_err());
}

#[test]
fn draws_and_mate_on_the_wide_board() {
    let drawn = |e| Outcome::Drawn { ending: e };
    assert_eq!(
        pos("15k/16/16/16/16/16/16/K15 w - - 0 1").outcome(),
        drawn(Ending::InsufficientMaterial)
    );
    assert_eq!(
        pos("15k/16/16/16/16/16/16/KN14 w - - 0 1").outcome(),
        drawn(Ending::InsufficientMaterial)
    );
    assert_eq!(
        pos("15k/16/16/16/16/16/16/KQ14 w - - 0 1").outcome(),
        Outcome::Ongoing
    );
    // Stalemate in the p8 corner.
    assert_eq!(
        pos("15k/13Q2/14K1/16/16/16/16/16 b - - 0 1").outcome(),
        drawn(Ending::Stalemate)
    );
    // Back-rank mate on p8.
    let mut p = pos("15k/13ppp/16/16/16/16/16/K6R8 w - - 0 1");
    assert_eq!(play_ok(&mut p, "Rh8"), "Rh8#");
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::White,
            ending: Ending::Checkmate
        }
    );
    // 50-move rule.
    let mut p = pos("15k/16/16/16/16/16/16/K6R8 w - - 99 70");
    play_ok(&mut p, "Rh2");
    assert_eq!(p.outcome(), drawn(Ending::FiftyMoveRule));
    // Repetition.
    let mut p = pos(START);
    for m in ["Nj3", "Nj6", "Nk1", "Nk8", "Nj3", "Nj6", "Nk1"] {
        play_ok(&mut p, m);
        assert_eq!(p.outcome(), Outcome::Ongoing);
    }
    play_ok(&mut p, "Nk8");
    assert_eq!(p.outcome(), drawn(Ending::Repetition));
}
