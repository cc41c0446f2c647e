//! Orthodox chess through the server's face: perft vectors (docs/rules.md §0),
//! move reading, SAN, FEN, and every automatic game end.

use rules::{self, Color, Ending, MoveError, Outcome, Position};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POS3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const POS4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const POS5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
const POS6: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

fn pos(fen: &str) -> Box<dyn Position> {
    rules::game("chess").unwrap().position(fen, &[]).unwrap()
}

fn played(moves: &[&str]) -> Box<dyn Position> {
    let mut p = rules::game("chess").unwrap().start(&[]).unwrap();
    for m in moves {
        p.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    p
}

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

// ------------------------------------------------------------ helpers

fn play_ok(p: &mut Box<dyn Position>, input: &str) -> String {
    p.play(input)
        .unwrap_or_else(|e| panic!("{input}: {e}"))
        .notation
}

fn play_err(p: &mut Box<dyn Position>, input: &str) -> MoveError {
    let before = p.to_text();
    let e = p.play(input).expect_err(input);
    assert_eq!(
        p.to_text(),
        before,
        "a refused move leaves the position unchanged"
    );
    e
}

fn reading(fen: &str, input: &str) -> Result<String, MoveError> {
    pos(fen).play(input).map(|p| p.notation)
}

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

// ------------------------------------------------------------ game ends

#[test]
fn fools_mate_by_moves() {
    let mut p = played(&["f3", "e5", "g4"]);
    assert_eq!(p.outcome(), Outcome::Ongoing);
    assert_eq!(play_ok(&mut p, "Qh4"), "Qh4#");
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::Black,
            ending: Ending::Checkmate
        }
    );
    assert!(p.legal_actions().is_empty());
    assert_eq!(play_err(&mut p, "e4"), MoveError::GameOver);
}

#[test]
fn checkmate_from_fen() {
    let p = pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::Black,
            ending: Ending::Checkmate
        }
    );
    assert_eq!(p.to_act(), Color::White);
    assert_eq!(p.perft(1), 0);
}

#[test]
fn stalemate() {
    let p = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::Stalemate
        }
    );
    let mut p = pos("7k/5Q2/8/6K1/8/8/8/8 w - - 0 1");
    assert_eq!(play_ok(&mut p, "Kg6"), "Kg6");
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::Stalemate
        }
    );
    assert_eq!(play_err(&mut p, "Kh7"), MoveError::GameOver);
}

#[test]
fn threefold_repetition() {
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut p = rules::game("chess").unwrap().start(&[]).unwrap();
    for (i, m) in shuffle.iter().cycle().take(8).enumerate() {
        assert_eq!(p.outcome(), Outcome::Ongoing, "before ply {}", i + 1);
        play_ok(&mut p, m);
    }
    // The start position: at the start, after ply 4 and after ply 8.
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::Repetition
        }
    );
    assert!(
        p.legal_actions().is_empty(),
        "a finished game offers no moves"
    );
    assert_eq!(p.perft(1), 20, "perft ignores the draw rules");
    assert_eq!(play_err(&mut p, "Nf3"), MoveError::GameOver);
}

#[test]
fn repetition_ignores_an_en_passant_square_without_a_capture() {
    // After 1.e4 the FEN says e3, but no capture is possible: the position
    // after 1.e4 recurs after 3.Ng1 and 5.Ng1.
    let mut p = played(&["e4", "Nf6", "Nf3", "Ng8", "Ng1", "Nf6", "Nf3", "Ng8"]);
    assert_eq!(p.outcome(), Outcome::Ongoing);
    play_ok(&mut p, "Ng1");
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::Repetition
        }
    );
}

#[test]
fn repetition_counts_a_legal_en_passant_as_different() {
    // After 2...d5 exd6 is legal: that position differs from the same
    // placement reached later without the en passant chance.
    let mut p = played(&["e4", "Nf6", "e5", "d5"]);
    for m in ["Nf3", "Nc6", "Ng1", "Nb8", "Nf3", "Nc6", "Ng1", "Nb8"] {
        assert_eq!(p.outcome(), Outcome::Ongoing, "before {m}");
        play_ok(&mut p, m);
    }
    // The placement after 2...d5 stands for the third time, but only twice
    // without the en passant chance: play goes on.
    assert_eq!(p.outcome(), Outcome::Ongoing);
    // The position after 3.Nf3 now occurs for the third time.
    play_ok(&mut p, "Nf3");
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::Repetition
        }
    );
}

#[test]
fn fifty_move_rule() {
    let mut p = pos("4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    assert_eq!(p.outcome(), Outcome::Ongoing);
    play_ok(&mut p, "Ra2");
    assert_eq!(p.to_text(), "4k3/8/8/8/8/8/R7/4K3 b - - 100 80");
    assert_eq!(
        p.outcome(),
        Outcome::Drawn {
            ending: Ending::FiftyMoveRule
        }
    );
    // A pawn move resets the clock.
    let mut p = pos("4k3/8/8/8/8/8/P7/4K3 w - - 99 80");
    play_ok(&mut p, "a3");
    assert_eq!(p.outcome(), Outcome::Ongoing);
    // Mate on the hundredth ply wins.
    let mut p = pos("k7/8/1K6/8/8/8/8/7R w - - 99 80");
    assert_eq!(play_ok(&mut p, "Rh8"), "Rh8#");
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::White,
            ending: Ending::Checkmate
        }
    );
}

#[test]
fn insufficient_material() {
    let drawn = Outcome::Drawn {
        ending: Ending::InsufficientMaterial,
    };
    for fen in [
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/1N2K3 b - - 0 1",
        "4kn2/8/8/8/8/8/8/4K3 w - - 0 1",
    ] {
        assert_eq!(pos(fen).outcome(), drawn, "{fen}");
    }
    // Ruling: K+B v K+B (even same-coloured bishops) is not drawn automatically.
    for fen in [
        "4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1",
        "4k3/8/8/8/8/8/P7/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
    ] {
        assert_eq!(pos(fen).outcome(), Outcome::Ongoing, "{fen}");
    }
    let mut p = pos("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1");
    play_ok(&mut p, "Kxd2");
    assert_eq!(p.outcome(), drawn);
}

// ------------------------------------------------------------ FEN

#[test]
fn fen_round_trips() {
    for fen in [START, KIWIPETE, POS3, POS4, POS5, POS6] {
        assert_eq!(pos(fen).to_text(), fen);
    }
    let mut p = rules::game("chess").unwrap().start(&[]).unwrap();
    assert_eq!(p.to_text(), START);
    play_ok(&mut p, "e4");
    assert_eq!(
        p.to_text(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    for m in ["Nf6", "e5", "d5"] {
        play_ok(&mut p, m);
    }
    let fen = "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
    assert_eq!(p.to_text(), fen);
    let mut q = pos(fen);
    assert_eq!(q.to_text(), fen);
    assert_eq!(play_ok(&mut q, "exd6"), "exd6");
    assert_eq!(
        q.to_text(),
        "rnbqkb1r/ppp1pppp/3P1n2/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"
    );
    assert_eq!(pos(&q.to_text()).to_text(), q.to_text());
    // Castling rights lost by a rook move and by a king move.
    let mut k = pos(KIWIPETE);
    play_ok(&mut k, "Rf1");
    assert!(k.to_text().contains(" b Qkq - 1 1"), "{}", k.to_text());
    play_ok(&mut k, "Kf8");
    assert!(k.to_text().contains(" w Q - 2 2"), "{}", k.to_text());
    // Capturing a rook on its corner takes that right away.
    let mut r = pos("r3k2r/8/8/8/8/8/6B1/R3K2R w KQkq - 0 1");
    play_ok(&mut r, "Bxa8");
    assert!(r.to_text().contains(" b KQk - 0 1"), "{}", r.to_text());
}

#[test]
fn fen_errors_are_typed() {
    use rules::SetupError;
    let chess = rules::game("chess").unwrap();
    let text_errors = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1",
        "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/71/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/99999999999999999999/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/404/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ];
    for fen in text_errors {
        assert!(
            matches!(chess.position(fen, &[]), Err(SetupError::InvalidText(_))),
            "{fen}"
        );
    }
    let illegal = [
        "4k3/8/8/8/8/8/8/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
        "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
        "4k2p/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
        "4k3/8/8/8/8/8/8/R3K3 w KQ - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1",
    ];
    for fen in illegal {
        assert!(
            matches!(chess.position(fen, &[]), Err(SetupError::Illegal(_))),
            "{fen}: {:?}",
            chess.position(fen, &[]).map(|p| p.to_text())
        );
    }
    let e = chess
        .position("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", &[])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the position is not playable: Black is in check but it is White's move"
    );
    assert!(chess.start(&["fast".into()]).is_err());
    // Tolerance: the two counters may be left out.
    let p = chess
        .position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", &[])
        .unwrap();
    assert_eq!(p.to_text(), START);
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
