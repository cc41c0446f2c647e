//! Pairs in play: partner removal, en passant, promotion, checks and castling.

use super::*;

// ------------------------------------------------------------ scenarios

#[test]
fn capturing_a_paired_piece_removes_its_partner_and_says_so() {
    let mut p = pos("2b1k3/8/5b2/6B1/8/8/8/4K3 w - - 0 1");
    let (notation, events) = play(&mut p, "Bxf6");
    assert_eq!(notation, "Bxf6");
    assert_eq!(
        events,
        ["Also removed: Bc8 (the partner of the bishop taken on f6)."]
    );
    assert_eq!(p.to_text(), "4k3/8/5B2/8/8/8/8/4K3 b - - 0 1");
    // A queen has no partner: taking it removes it alone.
    let mut p = pos("r3k2r/8/8/3q4/8/8/8/3QK3 w - - 0 1");
    let (_, events) = play(&mut p, "Qxd5");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "r3k2r/8/8/3Q4/8/8/8/4K3 b - - 0 1");
}

#[test]
fn a_piece_whose_partner_is_gone_is_removed_alone() {
    // One black knight: unpaired by the default reading.
    let mut p = pos("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1");
    let (_, events) = play(&mut p, "Rxd5");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "4k3/8/8/3R4/8/8/8/4K3 b - - 0 1");
    // Two knights the pairs= field leaves unpaired.
    let mut p = pos("1n2k3/8/8/3n4/8/8/8/3RK3 w - - 0 1 pairs=-");
    play(&mut p, "Rxd5");
    assert_eq!(p.to_text(), "1n2k3/8/8/3R4/8/8/8/4K3 b - - 0 1");
}

#[test]
fn en_passant_with_a_choice() {
    let text = "4k3/p5pp/8/2pP4/8/8/8/4K3 w - c6 0 1";
    let p = pos(text);
    let ep: Vec<String> = actions(&*p)
        .into_iter()
        .filter(|a| a.starts_with("dxc6"))
        .collect();
    assert_eq!(ep, ["dxc6/a7", "dxc6/g7", "dxc6/h7"]);
    let mut q = p.clone();
    let (notation, events) = play(&mut q, "d5c6/g7");
    assert_eq!(notation, "dxc6/g7");
    assert_eq!(events, ["Also removed: the pawn on g7."]);
    assert_eq!(q.to_text(), "4k3/p6p/2P5/8/8/8/8/4K3 b - - 0 1");
    // The double step that allows it, played: the same choice afterwards.
    let mut r = pos("4k3/p1p3pp/8/3P4/8/8/8/4K3 b - - 0 1");
    play(&mut r, "c5");
    assert_eq!(r.to_text(), text.replace(" 0 1", " 0 2"));
    assert_eq!(
        refusal(&*r, "dxc6").to_string(),
        "'dxc6' could mean dxc6/a7 or dxc6/g7 or dxc6/h7; write one of those instead."
    );
}

#[test]
fn promotion_with_capture_removes_the_partner_and_makes_a_pair() {
    let mut p = pos("r3k2r/1P6/8/8/8/8/6P1/4K3 w kq - 0 1");
    let (notation, events) = play(&mut p, "bxa8=N/g2");
    assert_eq!(notation, "bxa8=N/g2");
    assert_eq!(
        events,
        [
            "Also removed: Rh8 (the partner of the rook taken on a8).",
            "The pawn on g2 became a knight, the partner of the new knight on a8.",
        ]
    );
    // Both Black castlings are gone: a8 by the capture, h8 as a partner.
    assert_eq!(p.to_text(), "N3k3/8/8/8/8/8/6N1/4K3 b - - 0 1");
    // The new pieces are a pair: taking one takes the other.
    let mut q = pos("4k3/1P6/8/8/8/7q/6P1/4K3 w - - 0 1");
    play(&mut q, "b8=N/g2");
    let (notation, events) = play(&mut q, "Qxg2");
    assert_eq!(notation, "Qxg2");
    assert_eq!(
        events,
        ["Also removed: Nb8 (the partner of the knight taken on g2)."]
    );
    assert_eq!(q.to_text(), "4k3/8/8/8/8/8/6q1/4K3 w - - 0 2");
    // Black promotes the same way (on rank 1).
    let mut r = pos("4k3/6p1/8/8/8/8/1p6/4K3 b - - 0 1");
    assert_eq!(play(&mut r, "b1=B/g7").0, "b1=B/g7");
    assert_eq!(r.to_text(), "4k3/6b1/8/8/8/8/8/1b2K3 w - - 0 2");
}

#[test]
fn promotion_is_never_to_a_queen() {
    let p = pos("4k3/1P6/8/8/8/8/6P1/4K3 w - - 0 1");
    assert!(!actions(&*p).iter().any(|a| a.contains("=Q")));
    assert!(matches!(
        refusal(&*p, "b8=Q/g2"),
        MoveError::Unreadable { .. } | MoveError::Illegal { .. }
    ));
}

#[test]
fn four_rooks_in_two_pairs_capturing_one_removes_only_its_partner() {
    // Black's rooks: a8 with c6, f6 with h8 (the field is required with
    // four of a kind; pairs are by identity, not by where rooks stand).
    let text = "r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6a8,f6h8";
    let p = pos(text);
    assert_eq!(p.to_text(), text);
    let mut q = p.clone();
    let (notation, events) = play(&mut q, "Qxc6");
    assert_eq!(notation, "Qxc6+");
    assert_eq!(
        events,
        ["Also removed: Ra8 (the partner of the rook taken on c6)."]
    );
    // Two rooks left, and they are partners: no field needed any more.
    assert_eq!(q.to_text(), "4k2r/8/2Q2r2/8/8/8/8/4K3 b - - 0 1");
    let mut q = p.clone();
    let (_, events) = play(&mut q, "Qxf6");
    assert_eq!(
        events,
        ["Also removed: Rh8 (the partner of the rook taken on f6)."]
    );
    assert_eq!(q.to_text(), "r3k3/8/2r2Q2/8/8/8/8/4K3 b - - 0 1");
    // Differently paired, the same capture removes another rook.
    let mut q = pos("r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6h8,f6a8");
    play(&mut q, "Qxc6");
    assert_eq!(q.to_text(), "r3k3/8/2Q2r2/8/8/8/8/4K3 b - - 0 1");
}

#[test]
fn a_capture_illegal_only_because_of_the_partner_removal() {
    // Black's bishop e4, partner of b7, shields White's king from the
    // queen on e8: Rxb7 would remove it.
    let p = pos("4q2k/1b6/8/8/4b3/8/8/1R2K3 w - - 0 1");
    assert!(!actions(&*p).iter().any(|a| a.starts_with("Rxb7")));
    assert!(actions(&*p).contains(&"Rb6".to_string()));
    let e = refusal(&*p, "Rxb7").to_string();
    assert!(e.contains("would leave your king in check"), "{e}");
    // The same with a chosen pawn: removing e4 would open the e-file, so
    // a7 is the only choice, and the slash may be left out.
    let p = pos("4q2k/p7/8/3p4/4p3/8/8/3QK3 w - - 0 1");
    let takes: Vec<String> = actions(&*p)
        .into_iter()
        .filter(|a| a.starts_with("Qxd5"))
        .collect();
    assert_eq!(takes, ["Qxd5/a7"]);
    let e = refusal(&*p, "Qxd5/e4").to_string();
    assert!(e.contains("would leave your king in check"), "{e}");
    let mut q = p.clone();
    assert_eq!(play(&mut q, "Qxd5").0, "Qxd5/a7");
}

#[test]
fn taking_the_partner_of_the_checking_piece_is_an_evasion() {
    let mut p = pos("4r2k/8/8/7r/8/8/8/4K2R w - - 0 1");
    let (notation, events) = play(&mut p, "Rxh5");
    assert_eq!(notation, "Rxh5+");
    assert_eq!(
        events,
        ["Also removed: Re8 (the partner of the rook taken on h5)."]
    );
    assert_eq!(p.to_text(), "7k/8/8/7R/8/8/8/4K3 b - - 0 1");
    // A removal may give check: Black's e-pawn shielded the king.
    let mut p = pos("4k3/4p3/8/3p4/2P5/8/8/4R1K1 w - - 0 1");
    assert_eq!(play(&mut p, "cxd5/e7").0, "cxd5/e7+");
}

#[test]
fn castling_is_lost_with_a_rook_removed_as_a_partner() {
    // a8 is paired with d5; h8 has no partner.
    let text = "r3k2r/8/8/3r4/8/8/8/3RK3 w kq - 0 1 pairs=d5a8";
    let mut p = pos(text);
    assert_eq!(p.to_text(), text);
    let (_, events) = play(&mut p, "Rxd5");
    assert_eq!(
        events,
        ["Also removed: Ra8 (the partner of the rook taken on d5)."]
    );
    assert_eq!(p.to_text(), "4k2r/8/8/3R4/8/8/8/4K3 b k - 0 1");
    assert!(actions(&*p).contains(&"O-O".to_string()));
    let e = refusal(&*p, "O-O-O").to_string();
    assert!(e.contains("cannot castle (O-O-O) any more"), "{e}");
    let e = refusal(&*p, "O-O/a7").to_string();
    assert!(
        e.contains("a7 is not a choice of that move; write O-O."),
        "{e}"
    );
    // White loses a castling the same way.
    let mut p = pos("3rk3/8/8/8/3R4/8/8/R3K2R b KQ - 0 1 pairs=d4h1");
    play(&mut p, "Rxd4");
    assert_eq!(p.to_text(), "4k3/8/8/8/3r4/8/8/R3K3 w Q - 0 2");
}

#[test]
fn without_lenient_a_lone_pawn_may_not_reach_the_last_rank() {
    let p = pos("3rk3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    for input in ["b8=R", "b8", "b7b8r"] {
        let e = refusal(&*p, input).to_string();
        assert!(e.contains("no other pawn"), "{input}: {e}");
    }
    let p = pos("2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    let e = refusal(&*p, "bxc8=B").to_string();
    assert!(e.contains("no other pawn"), "{e}");
    assert_eq!(p.perft(1), 5);
}

#[test]
fn lenient_lets_a_lone_pawn_promote_to_a_single_piece() {
    let mut p = lenient("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(p.perft(1), 8);
    assert_eq!(
        actions(&*p)
            .into_iter()
            .filter(|a| a.starts_with("b8"))
            .collect::<Vec<_>>(),
        ["b8=B", "b8=N", "b8=R+"]
    );
    let (notation, events) = play(&mut p, "b8=R");
    assert_eq!(notation, "b8=R+");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "1R2k3/8/8/8/8/8/8/4K3 b - - 0 1");
    // With another pawn on the board the promotion still makes a pair.
    let p = lenient("4k3/1P6/8/8/8/8/6P1/4K3 w - - 0 1");
    assert_eq!(p.perft(1), 10);
    assert!(!actions(&*p).iter().any(|a| a == "b8=N"));
    // Two unpaired rooks: the text says so with pairs=-, and reads back.
    let mut p = lenient("4k3/1P6/8/8/8/8/8/R3K3 w - - 0 1");
    play(&mut p, "b8=R");
    let text = p.to_text();
    assert_eq!(text, "1R2k3/8/8/8/8/8/8/R3K3 b - - 0 1 pairs=-");
    assert_eq!(lenient(&text).to_text(), text);
    assert_eq!(
        p.diagram().notes,
        [
            "Pairs:",
            "  White rook a1 (no partner)",
            "  White rook b8 (no partner)"
        ]
    );
    // Taking one of them takes only that one.
    let mut p = lenient("1R2k3/8/8/8/8/1q6/8/R3K3 b - - 0 1 pairs=-");
    let (_, events) = play(&mut p, "Qxb8");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "1q2k3/8/8/8/8/8/8/R3K3 w - - 0 2");
}
