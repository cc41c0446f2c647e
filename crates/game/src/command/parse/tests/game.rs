//! The other game commands: resign, confirm, chat, challenge, preview,
//! show, showas, games, subscribe, notify and the settings, standings.

use super::*;

#[test]
fn resign_confirm_chat() {
    assert_eq!(
        game("chess resign 101 alice pw"),
        GameCommand::OnBoard {
            board: 101,
            who: who("alice", "pw"),
            guard: None,
            act: BoardAct::Resign,
        }
    );
    assert_eq!(
        game("chess confirm 102 alice pw"),
        GameCommand::OnBoard {
            board: 102,
            who: who("alice", "pw"),
            guard: None,
            act: BoardAct::ConfirmSubmitted,
        }
    );
    let p = ok("chess chat 103 alice pw");
    assert_eq!(
        p.command,
        Command::Game {
            game: "chess".into(),
            command: GameCommand::OnBoard {
                board: 103,
                who: who("alice", "pw"),
                guard: None,
                act: BoardAct::Chat,
            }
        }
    );
    assert_eq!(p.masked, "chess chat 103 alice *****");
    let e = err("chess resign 101 alice pw now");
    assert_eq!(
        e.message,
        "the sixth word is one word too many; chess resign needs only a board number, your userid and \
         your password, like: chess resign 101 alice secret."
    );
    assert_eq!(e.masked, "chess resign 101 alice ***** now");
    assert_eq!(e.board, Some(101));
    let e = err("chess confirm 101 alice");
    assert!(e
        .message
        .starts_with("chess confirm needs a board number, your userid and"));
    assert_eq!(e.masked, "chess confirm 101 alice");
}

#[test]
fn challenge_reads_players_options_and_timers() {
    assert_eq!(
        game("chess challenge Alice bob"),
        GameCommand::Challenge {
            players: vec!["alice".into(), "bob".into()],
            options: vec![],
            timers: Timers::default(),
        }
    );
    assert_eq!(
        game("zelig challenge alice -Lenient bob -level=3 --nagtime=3 --FORFEITTIME=10 --totaltime=60"),
        GameCommand::Challenge {
            players: vec!["alice".into(), "bob".into()],
            options: vec!["lenient".into(), "level=3".into()],
            timers: Timers {
                nag_days: Some(3),
                forfeit_days: Some(10),
                total_days: Some(60),
            },
        }
    );
}

#[test]
fn challenge_errors() {
    let e = err("chess challenge alice");
    assert_eq!(
        e.message,
        "chess challenge needs the userids of the two players, White first, like: chess \
         challenge alice bob; this line names only one player."
    );
    assert!(err("chess challenge alice bob carol")
        .message
        .contains("3 players"));
    assert!(err("chess challenge").message.contains("no player"));
    let e = err("chess challenge alice bob --nagtime");
    assert!(e
        .message
        .starts_with("the fifth word should be a board option"));
    let e = err("chess challenge alice bob --sleeptime=3");
    assert!(e.message.contains("--forfeittime=N"));
    let e = err("chess challenge alice bob --nagtime=soon");
    assert!(e
        .message
        .starts_with("the fifth word should be a number of days"));
    let e = err("chess challenge alice bob -");
    assert!(e.message.contains("game option"));
    let e = err("chess challenge alice bob -x=");
    assert!(e.message.contains("game option"));
    for line in [
        "chess challenge alice",
        "chess challenge alice bob --sleeptime=3",
        "chess challenge alice bob -",
    ] {
        assert_one_sentence(&err(line));
    }
}

#[test]
fn preview_reads_board_ply_and_moves() {
    assert_eq!(
        game("chess preview 101 e4 e5 Nf3"),
        GameCommand::Preview {
            from: PreviewFrom::Board(BoardRef {
                board: 101,
                ply: None
            }),
            moves: vec!["e4".into(), "e5".into(), "Nf3".into()],
        }
    );
    assert_eq!(
        game("shadowchess preview 101#4 reveal c4, Nf3;e5"),
        GameCommand::Preview {
            from: PreviewFrom::Board(BoardRef {
                board: 101,
                ply: Some(4)
            }),
            moves: vec!["reveal c4".into(), "Nf3".into(), "e5".into()],
        }
    );
    let e = err("chess preview 101");
    assert!(e.message.contains("chess show 101"), "{}", e.message);
    assert_eq!(e.board, Some(101));
    assert_one_sentence(&e);
    let e = err("chess preview e4 e5");
    assert!(e
        .message
        .starts_with("the third word should be a board number"));
    assert_one_sentence(&e);
}

#[test]
fn show_boards_and_users() {
    assert_eq!(
        game("chess show 101#7 102"),
        GameCommand::Show {
            boards: vec![
                BoardRef {
                    board: 101,
                    ply: Some(7)
                },
                BoardRef {
                    board: 102,
                    ply: None
                }
            ]
        }
    );
    assert_eq!(
        game("chess show Alice bob ACTIVE"),
        GameCommand::ShowUsers {
            users: vec!["alice".into(), "bob".into()],
            filter: BoardFilter::Active,
        }
    );
    assert_eq!(
        game("chess show alice"),
        GameCommand::ShowUsers {
            users: vec!["alice".into()],
            filter: BoardFilter::Active,
        }
    );
    assert_eq!(
        game("chess show next alice"),
        GameCommand::ShowUsers {
            users: vec!["alice".into()],
            filter: BoardFilter::Next,
        }
    );
    for (line, start) in [
        ("chess show", "chess show needs board numbers"),
        (
            "chess show 101 alice",
            "the fourth word should be a board number",
        ),
        ("chess show 101#", "the third word should be a board number"),
        (
            "chess show 101#x",
            "the third word should be a board number",
        ),
        ("chess show alice 101", "the fourth word should be a userid"),
        ("chess show all", "chess show needs board numbers"),
        (
            "chess show alice all next",
            "the fifth word is one filter too many",
        ),
    ] {
        let e = err(line);
        assert!(e.message.starts_with(start), "{line}: {}", e.message);
        assert_one_sentence(&e);
    }
    assert_eq!(
        err("chess show 101 alice").board,
        Some(101).filter(|_| false)
    );
}

#[test]
fn showas_credentials_and_boards_or_filter() {
    assert_eq!(
        game("chess showas alice pw"),
        GameCommand::ShowAs {
            who: who("alice", "pw"),
            boards: vec![],
            filter: BoardFilter::Active
        }
    );
    assert_eq!(
        game("chess showas alice pw 101 102"),
        GameCommand::ShowAs {
            who: who("alice", "pw"),
            boards: vec![101, 102],
            filter: BoardFilter::Active
        }
    );
    assert_eq!(
        game("chess showas alice pw inactive"),
        GameCommand::ShowAs {
            who: who("alice", "pw"),
            boards: vec![],
            filter: BoardFilter::Inactive
        }
    );
    let e = err("chess showas alice pw 101 all");
    assert!(e.message.contains("not both"));
    assert_eq!(e.masked, "chess showas alice ***** 101 all");
    let e = err("chess showas alice pw 101#3");
    assert!(e
        .message
        .starts_with("the fifth word should be a board number"));
    let e = err("chess showas alice");
    assert_eq!(e.masked, "chess showas alice");
}

#[test]
fn games_users_and_filter() {
    assert_eq!(
        game("chess games"),
        GameCommand::Games {
            users: vec![],
            filter: BoardFilter::Active
        }
    );
    assert_eq!(
        game("chess games all"),
        GameCommand::Games {
            users: vec![],
            filter: BoardFilter::All
        }
    );
    assert_eq!(
        game("chess games alice Bob next"),
        GameCommand::Games {
            users: vec!["alice".into(), "bob".into()],
            filter: BoardFilter::Next
        }
    );
    assert!(err("chess games 101")
        .message
        .starts_with("the third word should be a userid"));
}

#[test]
fn subscribe_and_unsubscribe() {
    assert_eq!(
        game("chess subscribe 101 alice pw"),
        GameCommand::Subscribe {
            boards: vec![101],
            all: false,
            who: who("alice", "pw")
        }
    );
    assert_eq!(
        game("chess subscribe 101 102 alice pw"),
        GameCommand::Subscribe {
            boards: vec![101, 102],
            all: false,
            who: who("alice", "pw")
        }
    );
    let p = ok("chess unsubscribe ALL alice pw");
    assert_eq!(
        p.command,
        Command::Game {
            game: "chess".into(),
            command: GameCommand::Unsubscribe {
                boards: vec![],
                all: true,
                who: who("alice", "pw")
            }
        }
    );
    assert_eq!(p.masked, "chess unsubscribe ALL alice *****");
    let e = err("chess subscribe alice pw");
    assert!(e
        .message
        .starts_with("the third word should be a board number or all"));
    assert_eq!(e.masked, "chess subscribe alice *****");
    let e = err("chess subscribe 101 all alice pw");
    assert!(e.message.contains("not both"));
    assert_eq!(e.masked, "chess subscribe 101 all alice *****");
    let e = err("chess subscribe 101 alice");
    assert_eq!(e.masked, "chess subscribe 101 alice");
    assert_eq!(e.board, Some(101));
    assert_one_sentence(&err("chess subscribe"));
}

#[test]
fn notify_accept_reject_limit_set() {
    assert_eq!(
        game("chess notify alice pw"),
        GameCommand::Notify {
            who: who("alice", "pw"),
            boards: vec![]
        }
    );
    assert_eq!(
        game("chess notify alice pw 101 102"),
        GameCommand::Notify {
            who: who("alice", "pw"),
            boards: vec![101, 102]
        }
    );
    assert_eq!(
        game("chess accept alice pw"),
        GameCommand::AcceptChallenges {
            who: who("alice", "pw")
        }
    );
    assert_eq!(
        game("chess reject alice pw"),
        GameCommand::RejectChallenges {
            who: who("alice", "pw")
        }
    );
    assert_eq!(
        game("chess limit alice pw 5"),
        GameCommand::Limit {
            who: who("alice", "pw"),
            max: Some(5)
        }
    );
    assert_eq!(
        game("chess limit alice pw INF"),
        GameCommand::Limit {
            who: who("alice", "pw"),
            max: None
        }
    );
    assert_eq!(
        game("doublechess set alice pw small"),
        GameCommand::Set {
            who: who("alice", "pw"),
            look: Look::Size(BoardSize::Small)
        }
    );
    assert_eq!(
        game("chess set alice pw LARGE"),
        GameCommand::Set {
            who: who("alice", "pw"),
            look: Look::Size(BoardSize::Large)
        }
    );
    assert_eq!(
        game("chess set alice pw flip"),
        GameCommand::Set {
            who: who("alice", "pw"),
            look: Look::FromBlack(true)
        }
    );
    assert_eq!(
        game("chess set alice pw NoFlip"),
        GameCommand::Set {
            who: who("alice", "pw"),
            look: Look::FromBlack(false)
        }
    );
    for (word, html) in [("plain", false), ("HTML", true)] {
        assert_eq!(
            game(&format!("zelig set alice pw {word}")),
            GameCommand::Set {
                who: who("alice", "pw"),
                look: Look::Html(html)
            }
        );
    }
    for (words, last) in [("moves all", false), ("MOVES Last", true)] {
        assert_eq!(
            game(&format!("temporal set alice pw {words}")),
            GameCommand::Set {
                who: who("alice", "pw"),
                look: Look::LastMovesOnly(last)
            }
        );
    }
    for (word, picture) in [("picture", true), ("NoPicture", false)] {
        assert_eq!(
            game(&format!("temporal set alice pw {word}")),
            GameCommand::Set {
                who: who("alice", "pw"),
                look: Look::Picture(picture)
            }
        );
    }
    for (line, start, masked) in [
        (
            "chess set alice pw moves five",
            "the sixth word should be all or last after moves",
            "chess set alice ***** moves five",
        ),
        (
            "chess set alice pw huge",
            "the fifth word should be small, large, flip, noflip, reply, noreply, plain, html, \
             picture, nopicture, moves all or moves last",
            "chess set alice ***** huge",
        ),
        (
            "chess set alice pw",
            "chess set needs your userid, your password and small, large, flip, noflip, reply, \
             noreply, plain, html, picture, nopicture, moves all or moves last",
            "chess set alice *****",
        ),
        (
            "chess limit alice pw many",
            "the fifth word should be a number of boards or inf",
            "chess limit alice ***** many",
        ),
        (
            "chess notify alice pw abc",
            "the fifth word should be a board number",
            "chess notify alice ***** abc",
        ),
        (
            "chess accept 101 alice pw",
            "chess accept alice secret says whether",
            "chess accept 101 alice *****",
        ),
        (
            "chess reject alice",
            "chess reject needs your userid and your password",
            "chess reject alice",
        ),
    ] {
        let e = err(line);
        assert!(e.message.starts_with(start), "{line}: {}", e.message);
        assert_eq!(e.masked, masked, "{line}");
        assert_one_sentence(&e);
    }
}

#[test]
fn standings_ratings_history_help() {
    assert_eq!(game("chess standings"), GameCommand::Standings);
    assert_eq!(game("chess RATINGS"), GameCommand::Standings);
    assert_eq!(game("chess history"), GameCommand::History);
    assert_eq!(game("chess players"), GameCommand::Players);
    assert_eq!(game("chess USERS"), GameCommand::Players);
    assert_eq!(game("chess pgn 101"), GameCommand::Record { board: 101 });
    assert_eq!(
        game("chess seek alice pw evenings   only"),
        GameCommand::Seek {
            who: who("alice", "pw"),
            note: "evenings only".into()
        }
    );
    assert_eq!(game("mchess help"), GameCommand::Help);
    let e = err("chess standings please");
    assert_eq!(
        e.message,
        "chess standings takes no more words, but the third word follows; write just: chess \
         standings."
    );
}
