//! `if`: conditional moves.

use super::*;

#[test]
fn if_reads_a_line_a_list_and_a_cancel() {
    assert_eq!(
        game("chess if 101 alice secret e5 Nf3 Nc6 Bb5"),
        GameCommand::OnBoard {
            board: 101,
            who: who("alice", "secret"),
            guard: None,
            act: BoardAct::If(Conditional::Add(vec![
                "e5".into(),
                "Nf3".into(),
                "Nc6".into(),
                "Bb5".into()
            ])),
        }
    );
    assert_eq!(
        game("shadowchess if 7 alice secret e5, reveal c4, Nf3"),
        GameCommand::OnBoard {
            board: 7,
            who: who("alice", "secret"),
            guard: None,
            act: BoardAct::If(Conditional::Add(vec![
                "e5".into(),
                "reveal c4".into(),
                "Nf3".into()
            ])),
        }
    );
    assert_eq!(
        game("chess if 101 alice secret LIST"),
        GameCommand::OnBoard {
            board: 101,
            who: who("alice", "secret"),
            guard: None,
            act: BoardAct::If(Conditional::List),
        }
    );
    assert_eq!(
        game("chess if 101 alice secret cancel"),
        GameCommand::OnBoard {
            board: 101,
            who: who("alice", "secret"),
            guard: None,
            act: BoardAct::If(Conditional::Cancel(vec![])),
        }
    );
    assert_eq!(
        game("chess if 101 alice secret cancel e5 Nf3"),
        GameCommand::OnBoard {
            board: 101,
            who: who("alice", "secret"),
            guard: None,
            act: BoardAct::If(Conditional::Cancel(vec!["e5".into(), "Nf3".into()])),
        }
    );
    assert_eq!(
        ok("chess if 101 alice secret e5 Nf3").masked,
        "chess if 101 alice ***** e5 Nf3"
    );
}

#[test]
fn if_without_moves_or_with_words_after_list_is_refused_in_one_sentence() {
    let e = err("chess if 101 alice secret");
    assert!(
        e.message.contains("chess if 101 alice secret e5 Nf3"),
        "{}",
        e.message
    );
    assert_eq!(e.masked, "chess if 101 alice *****");
    assert_one_sentence(&e);
    let e = err("chess if 101 alice secret list e5");
    assert!(e.message.contains("list takes nothing"), "{}", e.message);
    assert_eq!(e.board, Some(101));
    assert_one_sentence(&e);
}
