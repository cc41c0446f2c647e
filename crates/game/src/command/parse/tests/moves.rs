//! `move` and its kin: board, credentials, guard, the move's words,
//! and the password masked.

use super::*;

#[test]
fn move_reads_board_credentials_and_move() {
    let p = ok("Chess MOVE 101 Alice Secret Nf3");
    assert_eq!(
        p.command,
        Command::Game {
            game: "chess".into(),
            command: GameCommand::OnBoard {
                board: 101,
                who: who("alice", "Secret"),
                guard: None,
                act: BoardAct::Move(MoveAction::Play("Nf3".into())),
            }
        }
    );
    assert_eq!(p.masked, "Chess MOVE 101 Alice ***** Nf3");
}

#[test]
fn move_guard_is_a_final_hash_and_digits() {
    let cases = [
        ("e4#3", "e4", Some(3)),
        ("Qxf7#7", "Qxf7", Some(7)),
        ("Qxf7##7", "Qxf7#", Some(7)),
        ("Qxf7#", "Qxf7#", None),
        ("O-O+", "O-O+", None),
        ("e8=Q#12", "e8=Q", Some(12)),
        ("e4#x7", "e4#x7", None),
    ];
    for (text, mv, ply) in cases {
        assert_eq!(
            game(&format!("chess move 101 alice pw {text}")),
            GameCommand::OnBoard {
                board: 101,
                who: who("alice", "pw"),
                guard: ply,
                act: BoardAct::Move(MoveAction::Play(mv.into())),
            },
            "{text}"
        );
    }
}

#[test]
fn move_guard_may_stand_apart() {
    assert_eq!(
        game("chess move 101 alice pw e4 #3"),
        GameCommand::OnBoard {
            board: 101,
            who: who("alice", "pw"),
            guard: Some(3),
            act: BoardAct::Move(MoveAction::Play("e4".into())),
        }
    );
}

#[test]
fn move_of_several_words_is_joined() {
    assert_eq!(
        game("shadowchess move 7 bob pw reveal   c4#9"),
        GameCommand::OnBoard {
            board: 7,
            who: who("bob", "pw"),
            guard: Some(9),
            act: BoardAct::Move(MoveAction::Play("reveal c4".into())),
        }
    );
    assert_eq!(
        game("temporal move 101 bob pw V4:Ab1"),
        GameCommand::OnBoard {
            board: 101,
            who: who("bob", "pw"),
            guard: None,
            act: BoardAct::Move(MoveAction::Play("V4:Ab1".into())),
        }
    );
}

#[test]
fn special_moves_in_any_case() {
    let cases = [
        ("resign", MoveAction::Resign),
        ("PROPOSE", MoveAction::Propose),
        ("Undo", MoveAction::Undo),
        ("accept", MoveAction::Accept),
        ("reject", MoveAction::Reject),
        ("pass", MoveAction::Pass),
    ];
    for (text, action) in cases {
        assert_eq!(
            game(&format!("chess move 101 alice pw {text}#4")),
            GameCommand::OnBoard {
                board: 101,
                who: who("alice", "pw"),
                guard: Some(4),
                act: BoardAct::Move(action),
            }
        );
    }
}

#[test]
fn queue_and_submit_read_like_move() {
    assert_eq!(
        game("chess queue 101 alice pw e5#2"),
        GameCommand::OnBoard {
            board: 101,
            who: who("alice", "pw"),
            guard: Some(2),
            act: BoardAct::Queue(MoveAction::Play("e5".into())),
        }
    );
    assert_eq!(
        game("chess submit 101 alice pw resign"),
        GameCommand::OnBoard {
            board: 101,
            who: who("alice", "pw"),
            guard: None,
            act: BoardAct::Submit(MoveAction::Resign),
        }
    );
}

#[test]
fn move_errors() {
    let e = err("chess move 101 alice secret");
    assert_eq!(
        e.message,
        "chess move needs a board number, your userid, your password and a move, like: chess \
         move 101 alice secret Nf3."
    );
    // The password word is masked, never the userid.
    assert_eq!(e.masked, "chess move 101 alice *****");
    assert_eq!(e.board, Some(101));
    assert_eq!(e.game.as_deref(), Some("chess"));

    let e = err("chess move 101 alice");
    assert!(e.message.starts_with("chess move needs"));
    assert_eq!(e.masked, "chess move 101 alice");

    let e = err("chess move abc alice secret e4");
    assert!(e
        .message
        .starts_with("the third word should be a board number; chess move needs"));
    assert_eq!(e.masked, "chess move abc alice ***** e4");
    assert_eq!(e.board, None);

    // The board left out: the words stand one place to the left.
    let e = err("chess move alice secret e4");
    assert!(e
        .message
        .starts_with("the third word should be a board number"));
    assert_eq!(e.masked, "chess move alice ***** *****");

    let e = err("chess move 101 alice secret #7");
    assert!(e.message.starts_with("chess move needs"));
    assert_eq!(e.masked, "chess move 101 alice ***** #7");

    let e = err("chess move 101 alice secret e4#0");
    assert!(e.message.contains("#0"), "{}", e.message);
    assert_eq!(e.masked, "chess move 101 alice ***** e4#0");

    let e = err("chess move 101 alice secret e4#99999999999");
    assert!(e.message.contains("too large"), "{}", e.message);

    let e = err("chess move 99999999999 alice secret e4");
    assert!(e.message.contains("too large"), "{}", e.message);
    assert!(!e.masked.contains("secret"));

    let e = err("chess move 101 7alice secret e4");
    assert!(e.message.contains("userid"), "{}", e.message);
    assert_eq!(e.masked, "chess move 101 7alice ***** e4");

    let e = err("chess move 101 al!ce secret e4");
    assert!(
        e.message.starts_with("the fourth word should be a userid"),
        "{}",
        e.message
    );

    for line in [
        "chess move 101 alice secret",
        "chess move abc alice secret e4",
        "chess move 101 al!ce secret e4",
        "chess move 101 alice secret e4#0",
    ] {
        assert_one_sentence(&err(line));
    }
}

#[test]
fn a_password_equal_to_another_word_is_masked_everywhere() {
    let p = ok("chess move 101 alice alice e4");
    assert_eq!(p.masked, "chess move 101 ***** ***** e4");
    let p = ok("chess move 101 alice E4 e4");
    assert_eq!(p.masked, "chess move 101 alice ***** *****");
}

#[test]
fn masking_keeps_spacing_as_typed() {
    let p = ok("Re:  chess  move\t101 alice   secret e4  **");
    assert_eq!(p.masked, "chess  move\t101 alice   ***** e4");
}
