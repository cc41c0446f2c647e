//! FEN round trips and typed FEN errors.

use super::*;

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
