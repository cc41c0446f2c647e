//! The Zelig family played by mail through the real binary, reusing the
//! server as it is: challenge, moves in both notations with their powers
//! told, the power legend under both board sizes, a refusal by the Zelig 2
//! limits, a mate that only the quota makes, and the help pages.

use crate::common;

use common::{only_one, to, Install};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

fn players() -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    s.take_outbox();
    s
}

#[test]
fn a_zelig_game_to_a_mate_only_the_quota_makes() {
    let mut s = players();
    s.send(BOB, "zelig set bob bpw small", "");
    s.send(ALICE, "zelig challenge alice bob", "");
    s.poll();
    let mails = s.take_outbox();
    let board = to(&mails, ALICE).pop().unwrap().clone();
    assert_eq!(board.subject, "New Zelig Chess Board 101 alice");
    assert!(
        board
            .body
            .contains("|:Z:| Z |:Z:| Z |:K:| Z |:Z:| Z |  1  White"),
        "{}",
        board.body
    );
    for body in [&board.body, &to(&mails, BOB).pop().unwrap().body] {
        assert!(
            body.contains(
                "Zelig powers:\n  White: queen d1, rooks a1 h1, bishops c1 f1, knights b1 g1\n"
            ),
            "{body}"
        );
    }
    let small = to(&mails, BOB).pop().unwrap().clone();
    assert!(
        small.body.contains(" 1 | z z z z k z z z |  1"),
        "{}",
        small.body
    );

    // 1. f3 e5 2. g4 Zh4#: the d8 zelig lands on the h-file, where the
    // quota (rooks on a8 and h8 already) makes it a bishop: mate on the
    // e1-h4 diagonal. In M-Chess it would be a rook and check nothing.
    let moves = [
        (ALICE, "alice apw", "f2f3", "bob"),
        (BOB, "bob bpw", "e5", "alice"),
        (ALICE, "alice apw", "g4", "bob"),
    ];
    for (from, who, mv, next) in moves {
        s.send(from, &format!("zelig move 101 {who} {mv}"), "");
        s.poll();
        let mails = s.take_outbox();
        let m = only_one(&mails, ALICE);
        assert_eq!(
            m.subject,
            format!("Zelig Chess Board 101 {next}"),
            "{mv}: {}",
            m.body
        );
    }
    s.send(BOB, "zelig move 101 bob bpw d8h4", "Mate by a bishop.");
    s.poll();
    let mails = s.take_outbox();
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert_eq!(m.subject, "Zelig Chess Board 101 finished **");
        assert!(
            m.body.starts_with("Game won by bob (checkmate)."),
            "{}",
            m.body
        );
        assert!(m.body.contains(" Zh4#\n"), "{}", m.body);
        assert!(
            m.body.contains("Black's zelig on h4 is a bishop."),
            "{}",
            m.body
        );
        assert!(
            m.body
                .contains("  Black: rooks a8 h8, bishops h4 c8 f8, knights b8 g8"),
            "{}",
            m.body
        );
    }
    let shown = s.ok(&["admin", "show", "zelig", "101", "--size", "small"]);
    assert!(shown.contains(" 4 |   -   -   - p Z |  4"), "{shown}");
}

#[test]
fn zelig2_refuses_by_its_limits_and_mchess_tells_powers() {
    let mut s = players();
    s.send(ALICE, "zelig2 challenge alice bob", "");
    s.send(ALICE, "zelig2 move 101 alice apw Za3", "");
    s.poll();
    let mails = s.take_outbox();
    let err = to(&mails, ALICE).pop().unwrap().clone();
    assert_eq!(err.subject, "Zelig Chess 2 Board 101 Error");
    assert!(
        common::joined(&err.body)
            .contains("3 zeligs on the a- and h-files, and Zelig Chess 2 allows two there."),
        "{}",
        err.body
    );
    s.send(ALICE, "zelig2 move 101 alice apw b1c3", "");
    s.poll();
    let mails = s.take_outbox();
    let m = only_one(&mails, BOB);
    assert_eq!(m.subject, "Zelig Chess 2 Board 101 bob");
    assert!(m.body.contains("1. Zc3\n"), "{}", m.body);
    assert!(
        m.body.contains("White's zelig on c3 is a bishop."),
        "{}",
        m.body
    );
    assert!(m.body.contains("bishops c1 f1 c3"), "{}", m.body);

    // M-Chess: castling, then the corner zelig's new power is told.
    s.send(BOB, "mchess challenge alice bob", "");
    for (from, who, mv) in [
        (ALICE, "alice apw", "e4"),
        (BOB, "bob bpw", "e5"),
        (ALICE, "alice apw", "Zgf3"),
        (BOB, "bob bpw", "Zc6"),
        (ALICE, "alice apw", "Zc4"),
        (BOB, "bob bpw", "Zgf6"),
        (ALICE, "alice apw", "O-O"),
    ] {
        s.send(from, &format!("mchess move 101 {who} {mv}"), "");
    }
    s.poll();
    let mails = s.take_outbox();
    let last = to(&mails, BOB).pop().unwrap().clone();
    assert_eq!(last.subject, "M-Chess Board 101 bob", "{}", last.body);
    assert!(last.body.contains("\n4. O-O"), "{}", last.body);
    assert!(
        last.body.contains("White's zelig on f1 is a bishop."),
        "{}",
        last.body
    );

    for game in ["mchess", "zelig", "zelig2"] {
        s.send(ALICE, &format!("help {game}"), "");
        s.poll();
        let help = s.take_outbox();
        let body = &only_one(&help, ALICE).body;
        assert!(body.contains("monarch"), "{game}: {body}");
        for line in body.lines() {
            assert!(line.chars().count() <= 76, "help {game}: {line:?}");
        }
    }
}

#[test]
fn perft_through_the_binary_for_each_rule_set() {
    let s = Install::new();
    for (game, n) in [("mchess", "400"), ("zelig", "400"), ("zelig2", "324")] {
        assert_eq!(s.ok(&["perft", game, "2"]).trim(), n, "{game}");
    }
    // King 5, rook a1 10, rook h1 7 (up to h6), and one promotion: 23.
    let fen = "1k6/7P/8/8/8/8/8/Z3K2Z w - - 0 1";
    assert_eq!(
        s.ok(&["perft", "zelig", "1", "--position", fen]).trim(),
        "23"
    );
    let out = s.run(&[
        "perft",
        "zelig",
        "1",
        "--position",
        "rnbqkbnr/8/8/8/8/8/8/4K3 w - - 0 1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no piece letter"));
}
