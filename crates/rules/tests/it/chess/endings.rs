//! Every automatic game end: mate, stalemate, repetition, the fifty-move
//! rule and insufficient material.

use super::*;

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
