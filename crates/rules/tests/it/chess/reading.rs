//! SAN and move reading: disambiguation, promotion and castling forms,
//! noise, and refusals that say why.

use super::*;

// ------------------------------------------------------------ SAN and reading

#[test]
fn two_knights_need_file_disambiguation() {
    let mut p = played(&["d4", "d5", "Nf3", "Nf6"]);
    let e = play_err(&mut p, "Nd2");
    assert_eq!(
        e,
        MoveError::Ambiguous {
            input: "Nd2".into(),
            candidates: vec!["Nbd2".into(), "Nfd2".into()]
        }
    );
    assert_eq!(
        e.to_string(),
        "'Nd2' could mean Nbd2 or Nfd2; write one of those instead."
    );
    assert!(p.legal_actions().contains(&"Nbd2".to_string()));
    assert!(p.legal_actions().contains(&"Nfd2".to_string()));
    assert_eq!(play_ok(&mut p, "Nbd2"), "Nbd2");
}

#[test]
fn rank_disambiguation_when_files_agree() {
    let fen = "4k3/8/8/6N1/8/8/8/4K1N1 w - - 0 1";
    let acts = pos(fen).legal_actions();
    assert!(acts.contains(&"N1f3".to_string()), "{acts:?}");
    assert!(acts.contains(&"N5f3".to_string()), "{acts:?}");
    assert_eq!(reading(fen, "N5f3").unwrap(), "N5f3");
    assert_eq!(reading(fen, "g1f3").unwrap(), "N1f3");
    assert!(matches!(
        reading(fen, "Nf3"),
        Err(MoveError::Ambiguous { .. })
    ));
    // Not ambiguous elsewhere: one knight reaches h3.
    assert_eq!(reading(fen, "Ne2").unwrap(), "Ne2");
}

#[test]
fn full_square_disambiguation_with_three_queens() {
    let fen = "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1";
    let acts = pos(fen).legal_actions();
    for san in ["Qa1b2", "Q3b2", "Qcb2"] {
        assert!(acts.contains(&san.to_string()), "{san} in {acts:?}");
    }
    assert_eq!(reading(fen, "Qa1b2").unwrap(), "Qa1b2");
    assert_eq!(reading(fen, "Qa1-b2").unwrap(), "Qa1b2");
    assert_eq!(reading(fen, "a1b2").unwrap(), "Qa1b2");
    assert!(matches!(
        reading(fen, "Qab2"),
        Err(MoveError::Ambiguous { .. })
    ));
}

#[test]
fn promotion_forms() {
    let fen = "3r4/4Pk2/8/8/8/8/8/4K3 w - - 0 1";
    for input in ["e8=Q", "e8Q", "e8q", "e7e8q", "e7e8=Q", "e7-e8Q", "E8=Q"] {
        assert_eq!(reading(fen, input).unwrap(), "e8=Q+", "{input}");
    }
    assert_eq!(reading(fen, "e8=N").unwrap(), "e8=N");
    assert_eq!(reading(fen, "exd8=N+").unwrap(), "exd8=N+");
    assert_eq!(reading(fen, "exd8N").unwrap(), "exd8=N+");
    assert_eq!(reading(fen, "e7d8n").unwrap(), "exd8=N+");
    assert_eq!(reading(fen, "exd8=R").unwrap(), "exd8=R");
    // pbmserv players' forms: the piece in brackets or after a slash.
    for input in ["e8(Q)", "e8/Q", "e8(q)+", "e7e8/q"] {
        assert_eq!(reading(fen, input).unwrap(), "e8=Q+", "{input}");
    }
    assert_eq!(reading(fen, "exd8(N)").unwrap(), "exd8=N+");
    assert_eq!(reading(fen, "exd8/R").unwrap(), "exd8=R");
    // Brackets round more than one letter are no promotion form.
    assert!(reading(fen, "e8(QQ)").is_err());
    // No promotion piece: the server never chooses one.
    match reading(fen, "e8") {
        Err(MoveError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates, ["e8=B+", "e8=N", "e8=Q+", "e8=R"])
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        reading(fen, "e8=K"),
        Err(MoveError::Unreadable { .. })
    ));
    // A promotion piece on a move that is no promotion.
    let e = reading(START, "e4=Q").unwrap_err();
    assert!(e.to_string().contains("promotes"), "{e}");
}

#[test]
fn castling_forms() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    for input in ["O-O", "0-0", "o-o", "OO", "e1g1", "Kg1", "O-O+"] {
        assert_eq!(reading(fen, input).unwrap(), "O-O", "{input}");
    }
    for input in ["O-O-O", "0-0-0", "o-o-o", "e1c1", "Kc1"] {
        assert_eq!(reading(fen, input).unwrap(), "O-O-O", "{input}");
    }
    let mut p = pos(fen);
    play_ok(&mut p, "O-O");
    assert_eq!(p.to_text(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    play_ok(&mut p, "O-O-O");
    assert_eq!(p.to_text(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
    assert!(matches!(
        reading(fen, "O-O-O-O"),
        Err(MoveError::Unreadable { .. })
    ));
}

#[test]
fn castling_refusals_say_why() {
    // Attacked crossing square f1 (bishop on c4), path blocked on the queenside.
    let fen = "r3k2r/8/8/8/2b5/8/8/RN2K2R w KQkq - 0 1";
    let e = reading(fen, "O-O").unwrap_err().to_string();
    assert!(e.contains("cross f1"), "{e}");
    let e = reading(fen, "O-O-O").unwrap_err().to_string();
    assert!(e.contains("b1 is occupied"), "{e}");
    let e = reading(fen, "Kg1").unwrap_err().to_string();
    assert!(e.contains("cross f1"), "{e}");
    // In check.
    let e = reading("4k3/8/8/8/8/8/8/R3K1r1 w Q - 0 1", "O-O-O")
        .unwrap_err()
        .to_string();
    assert!(e.contains("in check"), "{e}");
    // Landing on an attacked square.
    let e = reading("2r1k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "O-O-O")
        .unwrap_err()
        .to_string();
    assert!(e.contains("land on c1"), "{e}");
    // Rights gone.
    let e = reading("4k3/8/8/8/8/8/8/R3K2R w K - 0 1", "O-O-O")
        .unwrap_err()
        .to_string();
    assert!(e.contains("rook on a1 has moved"), "{e}");
    let e = reading("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "O-O")
        .unwrap_err()
        .to_string();
    assert!(e.contains("king has moved"), "{e}");
}

#[test]
fn b_file_or_bishop() {
    // Bishop only.
    let mut p = played(&["e4", "e5"]);
    assert_eq!(play_ok(&mut p, "bc4"), "Bc4");
    // Pawn only: bc4 means the b-pawn capturing on c4.
    let fen = "4k3/8/8/8/2n5/1P6/8/4K3 w - - 0 1";
    assert_eq!(reading(fen, "bc4").unwrap(), "bxc4");
    assert_eq!(reading(fen, "bxc4").unwrap(), "bxc4");
    assert_eq!(
        reading(fen, "Bxc4").unwrap(),
        "bxc4",
        "no bishop: B read as the file"
    );
    // Both: lower case is ambiguous, canonical SAN and upper case are not.
    let fen = "4k3/8/8/8/2n5/1P6/8/4KB2 w - - 0 1";
    match reading(fen, "bc4") {
        Err(MoveError::Ambiguous { candidates, .. }) => assert_eq!(candidates, ["Bxc4", "bxc4"]),
        other => panic!("{other:?}"),
    }
    assert_eq!(reading(fen, "bxc4").unwrap(), "bxc4");
    assert_eq!(reading(fen, "Bxc4").unwrap(), "Bxc4");
    assert_eq!(reading(fen, "Bc4").unwrap(), "Bxc4");
    // Neither.
    assert!(matches!(
        reading(START, "bc4"),
        Err(MoveError::Illegal { .. })
    ));
    // Other letters are case-insensitive.
    assert_eq!(reading(START, "nf3").unwrap(), "Nf3");
    assert_eq!(reading(START, "E4").unwrap(), "e4");
    assert_eq!(reading(START, "G1F3").unwrap(), "Nf3");
    assert_eq!(reading(START, "b1c3").unwrap(), "Nc3");
}

#[test]
fn noise_and_separators() {
    for input in [
        "Nf3+", "Nf3!?", "Nf3!!", "Nf3?", "Nf3#", "Nf3++", " Nf3 ", "Ng1-f3", "g1f3", "Ng1f3",
    ] {
        assert_eq!(reading(START, input).unwrap(), "Nf3", "{input}");
    }
    for input in [
        "e4", "e2e4", "e2-e4", "e2xe4", "Pe4", "1. e4", "1.e4", "1.e2-e4+",
    ] {
        assert_eq!(reading(START, input).unwrap(), "e4", "{input}");
    }
    let mut p = played(&["e4", "d5"]);
    assert_eq!(play_ok(&mut p, "e4:d5"), "exd5");
    let mut p = played(&["e4", "d5"]);
    assert_eq!(play_ok(&mut p, "ed5"), "exd5");
    assert_eq!(play_ok(&mut p, "1... Qxd5"), "Qxd5");
    let mut p = played(&["e4", "a6", "e5", "d5"]);
    assert_eq!(play_ok(&mut p, "exd6 e.p."), "exd6");
}

#[test]
fn unreadable_text_gets_the_hint() {
    for input in ["hello", "", "Zf3", "e9", "Nf", "x"] {
        let e = reading(START, input).unwrap_err();
        assert!(matches!(e, MoveError::Unreadable { .. }), "{input}: {e:?}");
        assert!(e.to_string().contains("Nf3"), "{e}");
    }
}

#[test]
fn illegal_moves_list_the_piece_moves() {
    let e = reading(START, "g1f5").unwrap_err();
    assert_eq!(
        e.to_string(),
        "g1f5 is not a legal move: the knight on g1 can move to f3 or h3."
    );
    let e = reading(START, "Nf5").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Nf5 is not a legal move: the knight on b1 can move to a3 or c3; the knight on g1 can move to f3 or h3."
    );
    let e = reading(START, "Qh5").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Qh5 is not a legal move: the queen on d1 has no legal move."
    );
    let e = reading(START, "e5").unwrap_err();
    assert_eq!(
        e.to_string(),
        "e5 is not a legal move: the pawn on e2 can move to e3 or e4."
    );
    let e = reading(START, "e3e4").unwrap_err();
    assert_eq!(
        e.to_string(),
        "e3e4 is not a legal move: there is no piece on e3."
    );
    let e = reading(START, "e7e5").unwrap_err();
    assert!(e.to_string().contains("is Black's"), "{e}");
    let e = reading("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "Nf3").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Nf3 is not a legal move: you have no knight."
    );
}

#[test]
fn moves_leaving_the_king_in_check_are_refused() {
    // Pinned knight.
    let e = reading("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "Nc3").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Nc3 is not a legal move: it would leave your king in check."
    );
    // In check, a move that ignores it.
    let e = reading("4k3/4r3/8/8/8/8/8/R3K3 w - - 0 1", "Ra2").unwrap_err();
    assert!(
        e.to_string().contains("does not get it out of check"),
        "{e}"
    );
    // King stepping into attack.
    let e = reading("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", "Ke2").unwrap_err();
    assert!(matches!(e, MoveError::Illegal { .. }));
    assert_eq!(
        reading("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", "Kxd2").unwrap(),
        "Kxd2"
    );
}
