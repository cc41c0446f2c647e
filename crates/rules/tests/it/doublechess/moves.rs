//! Castling on the wide board, and pawns beyond the h-file.

use super::*;

// ------------------------------------------------------------ castling

#[test]
fn each_castling_in_every_notation() {
    for input in ["O-O", "0-0", "o-o", "Kk1", "i1k1", "i1-k1"] {
        assert_eq!(reading(INSIDE, input).unwrap(), "O-O", "{input}");
    }
    for input in ["O-O-O", "0-0-0", "Kg1", "i1g1"] {
        assert_eq!(reading(INSIDE, input).unwrap(), "O-O-O", "{input}");
    }
    for input in ["O-O-O-O", "0-0-0-0", "Km1", "i1m1"] {
        assert_eq!(reading(OUTSIDE, input).unwrap(), "O-O-O-O", "{input}");
    }
    for input in ["O-O-O-O-O", "0-0-0-0-0", "Ke1", "i1e1"] {
        assert_eq!(reading(OUTSIDE, input).unwrap(), "O-O-O-O-O", "{input}");
    }
    let check = |fen: &str, input: &str, rank1: &str, rights: &str| {
        let mut p = pos(fen);
        play_ok(&mut p, input);
        let text = p.to_text();
        let fields: Vec<&str> = text.split(' ').collect();
        assert_eq!(
            fields[0].rsplit('/').next().unwrap(),
            rank1,
            "{input}: {text}"
        );
        assert_eq!(fields[2], rights, "{input}: {text}");
        assert_eq!(p.to_text(), pos(&text).to_text());
    };
    check(INSIDE, "O-O", "R3R4RK4R", "lepa");
    check(INSIDE, "O-O-O", "R5KR3R3R", "lepa");
    check(OUTSIDE, "O-O-O-O", "R10RK3", "pa");
    check(OUTSIDE, "O-O-O-O-O", "4KR9R", "pa");
}

#[test]
fn black_castles_on_rank_8() {
    let fen = INSIDE.replace(" w ", " b ");
    let mut p = pos(&fen);
    assert_eq!(play_ok(&mut p, "Kk8"), "O-O");
    assert!(p.to_text().starts_with("r3r4rk4r/"), "{}", p.to_text());
    assert!(p.to_text().contains(" w LEPA "), "{}", p.to_text());
    let mut p = pos(&OUTSIDE.replace(" w ", " b "));
    assert_eq!(play_ok(&mut p, "i8e8"), "O-O-O-O-O");
    assert!(p.to_text().starts_with("4kr9r/"), "{}", p.to_text());
}

#[test]
fn castling_refusals() {
    // Pieces between: from the start every castling is blocked.
    let e = refusal(START, "O-O");
    assert!(e.contains("j1 and k1 are occupied"), "{e}");
    let e = refusal(START, "Km1");
    assert!(e.contains("j1, k1, l1, m1, n1 and o1 are occupied"), "{e}");
    let e = refusal(INSIDE, "O-O-O-O-O");
    assert!(e.contains("e1 is occupied"), "{e}");
    // Open board, no pawns: attacks reach rank 1 along the files.
    let open =
        |black_rook: &str| format!("14k1/16/16/{black_rook}/16/16/16/R3R3K2R3R w LEPA - 0 1");
    let e = refusal(&open("8r7"), "O-O");
    assert!(e.contains("while your king is in check"), "{e}");
    let e = refusal(&open("9r6"), "O-O");
    assert!(e.contains("cross j1"), "{e}");
    let e = refusal(&open("10r5"), "Kk1");
    assert!(e.contains("land on k1"), "{e}");
    let e = refusal(&open("7r8"), "O-O-O");
    assert!(e.contains("cross h1"), "{e}");
    let e = refusal(&open("6r9"), "i1g1");
    assert!(e.contains("land on g1"), "{e}");
    // Attacks on the squares the rook alone crosses do not matter.
    let p = pos(&open("5r10"));
    assert!(p.legal_actions().contains(&"O-O-O".to_string()));
    // Outside castlings: attacked crossing square and destination.
    let wide = |black_rook: &str| format!("14k1/16/16/{black_rook}/16/16/16/R7K6R w PA - 0 1");
    let e = refusal(&wide("11r4"), "O-O-O-O");
    assert!(e.contains("cross l1"), "{e}");
    let e = refusal(&wide("12r3"), "O-O-O-O");
    assert!(e.contains("land on m1"), "{e}");
    let e = refusal(&wide("5r10"), "O-O-O-O-O");
    assert!(e.contains("cross f1"), "{e}");
    let e = refusal(&wide("4r11"), "Ke1");
    assert!(e.contains("land on e1"), "{e}");
    // b1 is only crossed by the rook: no matter.
    assert!(pos(&wide("1r14"))
        .legal_actions()
        .contains(&"O-O-O-O-O".to_string()));
}

#[test]
fn rights_lost_by_rook_and_king_moves() {
    // The l1 rook moves away and back: O-O is gone, the others stay.
    let mut p = pos(INSIDE);
    for m in ["Rlk1", "Rlk8", "Rkl1", "Rkl8"] {
        play_ok(&mut p, m);
    }
    assert!(p.to_text().contains(" w EPAepa "), "{}", p.to_text());
    let e = p.play("O-O").unwrap_err().to_string();
    assert!(e.contains("the rook on l1 has moved"), "{e}");
    assert_eq!(play_ok(&mut p, "O-O-O"), "O-O-O");
    // The king moves away and back: every right is gone.
    let mut p = pos(INSIDE);
    for m in ["Kh1", "Kh8", "Ki1", "Ki8"] {
        play_ok(&mut p, m);
    }
    assert!(p.to_text().contains(" w - "), "{}", p.to_text());
    for c in ["O-O", "O-O-O", "Kk1"] {
        let e = p.play(c).unwrap_err().to_string();
        assert!(e.contains("king has moved"), "{c}: {e}");
    }
}

#[test]
fn rights_lost_when_a_rook_is_captured() {
    // A black knight takes the rook on l1: White loses L (only).
    let fen = "14k1/16/16/16/16/10n5/16/R3R3K2R3R b LEPA - 0 1";
    let mut p = pos(fen);
    assert_eq!(play_ok(&mut p, "Nxl1"), "Nxl1");
    assert!(p.to_text().contains(" w EPA "), "{}", p.to_text());
    let e = p.play("O-O").unwrap_err().to_string();
    assert!(e.contains("rook from l1 has moved or been taken"), "{e}");
    // And a capture on p1 takes P away.
    let fen = "14k1/16/16/16/16/14n1/16/R3R3K2R3R b LEPA - 0 1";
    let mut p = pos(fen);
    play_ok(&mut p, "Nxp1");
    assert!(p.to_text().contains(" w LEA "), "{}", p.to_text());
}

// ------------------------------------------------------------ pawns

#[test]
fn en_passant_beyond_h() {
    let fen = "14k1/13p2/16/12P3/16/16/16/8K7 b - - 0 1";
    let mut p = pos(fen);
    assert_eq!(play_ok(&mut p, "n5"), "n5");
    let text = p.to_text();
    assert_eq!(text, "14k1/16/16/12Pp2/16/16/16/8K7 w - n6 0 2");
    assert_eq!(pos(&text).to_text(), text);
    assert_eq!(play_ok(&mut p, "mxn6"), "mxn6");
    assert_eq!(p.to_text(), "14k1/16/13P2/16/16/16/16/8K7 b - - 0 2");
    // Also in coordinate form.
    let mut p = pos(&text);
    assert_eq!(play_ok(&mut p, "m5n6"), "mxn6");
}

#[test]
fn promotion_beyond_h() {
    let fen = "k14r/14P1/16/16/16/16/16/8K7 w - - 0 1";
    for (input, san) in [
        ("o8=Q", "o8=Q+"),
        ("o8Q", "o8=Q+"),
        ("o7o8q", "o8=Q+"),
        ("o8=N", "o8=N"),
        ("oxp8=R", "oxp8=R+"),
        ("o7p8n", "oxp8=N"),
        ("o8(Q)", "o8=Q+"),
        ("o8/Q", "o8=Q+"),
        ("oxp8(R)", "oxp8=R+"),
        ("oxp8/N", "oxp8=N"),
    ] {
        assert_eq!(reading(fen, input).unwrap(), san, "{input} in {fen}");
    }
    assert!(matches!(
        reading(fen, "o8"),
        Err(MoveError::Ambiguous { .. })
    ));
}
