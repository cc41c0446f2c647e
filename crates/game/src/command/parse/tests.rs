use super::*;
use crate::command::{
    BoardFilter, BoardRef, BoardSize, Command, Credentials, GameCommand, Look, MoveAction,
    Password, PreviewFrom, Timers,
};
use proptest::prelude::*;

fn ok(line: &str) -> Parsed {
    match parse_line(line) {
        Ok(p) => p,
        Err(e) => panic!("{line:?} failed: {}", e.message),
    }
}

fn cmd(line: &str) -> Command {
    ok(line).command
}

fn game(line: &str) -> GameCommand {
    match cmd(line) {
        Command::Game { command, .. } => command,
        other => panic!("{line:?} is no game command: {other:?}"),
    }
}

fn err(line: &str) -> ParseError {
    match parse_line(line) {
        Ok(p) => panic!("{line:?} parsed as {:?}", p.command),
        Err(e) => e,
    }
}

fn who(userid: &str, pw: &str) -> Credentials {
    Credentials {
        userid: userid.to_string(),
        password: Password::new(pw),
    }
}

/// Every error message is one sentence: it ends with a full stop and holds
/// no other sentence end.
fn assert_one_sentence(e: &ParseError) {
    let m = &e.message;
    assert!(
        m.ends_with('.') || m.ends_with('?'),
        "{m:?} does not end with a full stop or a question mark"
    );
    assert!(!m.contains(". "), "{m:?} holds more than one sentence");
    assert!(!m.contains('\n'), "{m:?} spans lines");
}

// ------------------------------------------------------------ stripping

#[test]
fn reply_markers_and_trailing_stars_are_ignored() {
    for line in [
        "Re: chess show 101",
        "RE: chess show 101",
        "re:chess show 101",
        "Fwd: Re: chess show 101",
        "FW: AW: SV: chess show 101",
        "Re[2]: chess show 101",
        "Re: chess show 101 **",
        "  chess show 101   **  ",
        "Re: Re: chess show 101 ** **",
    ] {
        let p = ok(line);
        assert_eq!(
            p.command,
            Command::Game {
                game: "chess".into(),
                command: GameCommand::Show {
                    boards: vec![BoardRef {
                        board: 101,
                        ply: None
                    }]
                }
            },
            "{line:?}"
        );
        assert_eq!(p.masked, "chess show 101", "{line:?}");
    }
}

#[test]
fn words_that_merely_start_like_markers_are_kept() {
    // "resign" starts with "re" but has no colon.
    let e = err("resign 101 alice secret");
    assert!(
        e.message.contains("needs a game name first"),
        "{}",
        e.message
    );
}

#[test]
fn stars_inside_a_word_are_kept() {
    assert_eq!(
        game("chess move 101 alice pw e4**"),
        GameCommand::OnBoard {
            board: 101,
            who: who("alice", "pw"),
            guard: None,
            act: BoardAct::Move(MoveAction::Play("e4**".into())),
        }
    );
}

// ------------------------------------------------------------ game names

#[test]
fn every_game_name_is_known_in_any_case() {
    for g in crate::command::GAME_NAMES {
        let upper = g.to_ascii_uppercase();
        assert_eq!(
            cmd(&format!("{upper} help")),
            Command::Game {
                game: g.to_string(),
                command: GameCommand::Help
            }
        );
    }
}

#[test]
fn unknown_first_word_points_to_help() {
    let e = err("xyzzy move 101 alice secret e4");
    assert!(e
        .message
        .contains("the first word is no game or command I know"));
    assert!(e.message.contains("help"));
    assert_eq!(e.masked, "xyzzy move 101 alice ***** e4");
    assert_eq!(e.game, None);
    assert_one_sentence(&e);
}

#[test]
fn empty_line_is_an_error() {
    for line in ["", "   ", "Re:", "**"] {
        let e = err(line);
        assert!(e.message.contains("empty"), "{}", e.message);
        assert_one_sentence(&e);
    }
}

#[test]
fn game_without_verb_lists_commands() {
    let e = err("chess");
    assert!(e.message.contains("needs a command"));
    assert!(e.message.contains("challenge"));
    assert_eq!(e.game.as_deref(), Some("chess"));
    assert_one_sentence(&e);
}

#[test]
fn unknown_game_verb_lists_commands() {
    let e = err("chess xyzzy 101 alice secret e4");
    assert_eq!(
        e.message,
        "the second word is no chess command; the commands are help, challenge, move, queue, if, resign, \
         submit, confirm, preview, show, showas, games, chat, subscribe, unsubscribe, notify, \
         accept, reject, limit, set, standings, history, players, pgn, seek, tournament and \
         tournaments."
    );
    assert_eq!(e.masked, "chess xyzzy 101 alice ***** e4");
    assert_eq!(e.game.as_deref(), Some("chess"));
}

#[test]
fn unknown_game_verb_masks_by_the_verb_it_nearly_names() {
    let e = err("chess sett alice secret small");
    assert_eq!(e.masked, "chess sett alice ***** small");
    let e = err("chess xyzzy alice secret small");
    assert_eq!(e.masked, "chess xyzzy alice ***** small");
}

#[test]
fn special_move_as_verb_points_to_move() {
    let e = err("chess propose 101 alice secret");
    assert!(
        e.message.contains("chess move 101 alice secret propose"),
        "{}",
        e.message
    );
    assert_eq!(e.masked, "chess propose 101 alice *****");
    let e = err("chess draw 101 alice secret");
    assert!(e.message.contains("propose"), "{}", e.message);
    assert_one_sentence(&e);
}

#[test]
fn account_verb_after_game_is_explained() {
    let e = err("chess signup alice secret");
    assert!(e.message.contains("without the game name"), "{}", e.message);
    assert!(!e.masked.contains("secret"));
    assert_one_sentence(&e);
}

#[test]
fn reply_to_a_board_mail_is_a_move_missing_its_words() {
    // `board` is pbmserv's word for `move`: the reply's Subject lacks the
    // password and the move.
    let e = err("Re: Chess Board 101 bob **");
    assert_eq!(
        e.message,
        "chess board needs a board number, your userid, your password and a move, like: chess \
         board 101 alice secret Nf3."
    );
    assert_eq!(e.masked, "Chess Board 101 bob");
    assert_one_sentence(&e);
}

#[test]
fn game_verb_without_game_asks_for_the_game() {
    let e = err("move 101 alice secret e4");
    assert!(e
        .message
        .starts_with("move needs a game name first, like: chess move 101"));
    assert_eq!(e.masked, "move 101 alice ***** e4");
    assert_one_sentence(&e);
}

#[test]
fn multiple_alone_on_a_line_is_refused() {
    let e = err("multiple");
    assert!(e.message.contains("Subject"));
}

// ------------------------------------------------------------ move

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

// ------------------------------------------------------------ other game commands

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
    for (line, start, masked) in [
        (
            "chess set alice pw huge",
            "the fifth word should be small, large, flip, noflip, reply, noreply, plain or html",
            "chess set alice ***** huge",
        ),
        (
            "chess set alice pw",
            "chess set needs your userid, your password and small, large, flip, noflip, reply, noreply, plain or html",
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

// ------------------------------------------------------------ account commands

#[test]
fn help_with_topics() {
    assert_eq!(cmd("help"), Command::Help { topics: vec![] });
    assert_eq!(
        cmd("HELP Chess commands"),
        Command::Help {
            topics: vec!["chess".into(), "commands".into()]
        }
    );
}

#[test]
fn signup_with_and_without_addresses() {
    let p = ok("signup Alice Secret");
    assert_eq!(
        p.command,
        Command::Signup {
            userid: "alice".into(),
            password: Password::new("Secret"),
            addresses: vec![]
        }
    );
    assert_eq!(p.masked, "signup Alice *****");
    assert_eq!(
        cmd("signup alice pw a@example.org <b@example.net>,"),
        Command::Signup {
            userid: "alice".into(),
            password: Password::new("pw"),
            addresses: vec!["a@example.org".into(), "b@example.net".into()]
        }
    );
    for (line, start, masked) in [
        (
            "signup alice",
            "signup needs a userid, a password",
            "signup alice",
        ),
        ("signup", "signup needs", "signup"),
        (
            "signup alice pw nobody",
            "the fourth word should be a mail address",
            "signup alice ***** nobody",
        ),
        (
            "signup 9lives pw",
            "the second word should be a userid",
            "signup 9lives *****",
        ),
        (
            "signup active pw",
            "the second word is a word the server keeps for itself",
            "signup active *****",
        ),
    ] {
        let e = err(line);
        assert!(e.message.starts_with(start), "{line}: {}", e.message);
        assert_eq!(e.masked, masked, "{line}");
        assert_one_sentence(&e);
    }
}

#[test]
fn change_password_masks_both() {
    let p = ok("change password Alice old newpw");
    assert_eq!(
        p.command,
        Command::ChangePassword {
            who: who("alice", "old"),
            new: Password::new("newpw"),
        }
    );
    assert_eq!(p.masked, "change password Alice ***** *****");
    let e = err("change password alice old");
    assert!(e
        .message
        .starts_with("change password needs your userid, your old password and your new"));
    assert_eq!(e.masked, "change password alice *****");
    let e = err("change password alice old newpw extra");
    assert!(e.message.starts_with("the sixth word is one word too many"));
    assert_eq!(e.masked, "change password alice ***** ***** extra");
    let e = err("change passwd alice old new");
    assert!(e
        .message
        .starts_with("the second word should be password or address"));
    assert_eq!(e.masked, "change passwd alice ***** *****");
    assert_one_sentence(&e);
}

#[test]
fn change_address() {
    let p = ok("change address alice pw a@example.org");
    assert_eq!(
        p.command,
        Command::ChangeAddress {
            who: who("alice", "pw"),
            addresses: vec!["a@example.org".into()],
        }
    );
    assert_eq!(p.masked, "change address alice ***** a@example.org");
    assert_eq!(
        cmd("change address alice pw"),
        Command::ChangeAddress {
            who: who("alice", "pw"),
            addresses: vec![],
        }
    );
    let e = err("change address alice pw a@b@c");
    assert!(e
        .message
        .starts_with("the fifth word should be a mail address"));
    assert_eq!(e.masked, "change address alice ***** a@b@c");
}

#[test]
fn signoff_and_delete() {
    assert_eq!(
        cmd("signoff alice pw"),
        Command::Signoff {
            who: who("alice", "pw")
        }
    );
    assert_eq!(
        cmd("DELETE alice pw"),
        Command::Signoff {
            who: who("alice", "pw")
        }
    );
    let e = err("delete alice");
    assert_eq!(
        e.message,
        "delete needs your userid and your password, like: delete alice secret."
    );
    assert_eq!(e.masked, "delete alice");
}

#[test]
fn vacation_days_or_off() {
    assert_eq!(
        cmd("vacation alice pw 14"),
        Command::Vacation {
            who: who("alice", "pw"),
            days: Some(14)
        }
    );
    assert_eq!(
        cmd("vacation alice pw OFF"),
        Command::Vacation {
            who: who("alice", "pw"),
            days: None
        }
    );
    let e = err("vacation alice pw 0");
    assert!(e.message.contains("off"), "{}", e.message);
    assert_eq!(e.masked, "vacation alice ***** 0");
    let e = err("vacation alice pw soon");
    assert!(e
        .message
        .starts_with("the fourth word should be a number of days or off"));
    assert_one_sentence(&e);
}

#[test]
fn list_games() {
    assert_eq!(cmd("list"), Command::List { games: vec![] });
    assert_eq!(
        cmd("list Chess zelig2"),
        Command::List {
            games: vec!["chess".into(), "zelig2".into()]
        }
    );
    let e = err("list checkers");
    assert!(e
        .message
        .starts_with("the second word is no game I know; the games are chess,"));
    assert_one_sentence(&e);
}

#[test]
fn message_to_users() {
    let p = ok("message alice pw Bob carol");
    assert_eq!(
        p.command,
        Command::Message {
            who: who("alice", "pw"),
            to: vec!["bob".into(), "carol".into()]
        }
    );
    assert_eq!(p.masked, "message alice ***** Bob carol");
    let e = err("message alice pw");
    assert!(e.message.starts_with("message needs"));
    assert_eq!(e.masked, "message alice *****");
}

#[test]
fn all_show() {
    assert_eq!(
        cmd("all show alice"),
        Command::AllShow {
            userid: "alice".into(),
            filter: BoardFilter::Active
        }
    );
    assert_eq!(
        cmd("ALL SHOW Alice next"),
        Command::AllShow {
            userid: "alice".into(),
            filter: BoardFilter::Next
        }
    );
    assert!(err("all games alice")
        .message
        .starts_with("all is followed by show, not by the second word"));
    assert!(err("all show")
        .message
        .starts_with("all show needs a userid"));
    assert!(err("all show alice soon")
        .message
        .starts_with("the fourth word should be all, active"));
    assert_one_sentence(&err("all show alice soon"));
}

// ------------------------------------------------------------ mails

#[test]
fn single_command_mail() {
    let r = parse_mail("Re: chess show 101 **", "my comment\n\nmultiple\n");
    assert!(!r.multiple);
    assert_eq!(r.commands.len(), 1);
    assert!(r.commands[0].is_ok());
}

#[test]
fn multiple_mail_reads_until_blank_line() {
    let body = "\n\n  chess show 101\n> chess show 999\nchess move 101 alice pw e4\nbogus\n\nchess show 102\n";
    let r = parse_mail("Re: MULTIPLE", body);
    assert!(r.multiple);
    assert_eq!(r.commands.len(), 3);
    assert!(r.commands[0].is_ok());
    assert_eq!(
        r.commands[1].as_ref().unwrap().masked,
        "chess move 101 alice ***** e4"
    );
    assert!(r.commands[2].is_err());
}

#[test]
fn multiple_mail_stops_at_signature_and_end() {
    let r = parse_mail("multiple", "chess show 101\n-- \nchess show 102\n");
    assert_eq!(r.commands.len(), 1);
    let r = parse_mail("multiple", "chess show 101\n--\nchess show 102\n");
    assert_eq!(r.commands.len(), 1);
    let r = parse_mail("multiple", "chess show 101\r\nEND\r\nchess show 102\r\n");
    assert_eq!(r.commands.len(), 1);
    let r = parse_mail("multiple", "");
    assert!(r.multiple);
    assert!(r.commands.is_empty());
}

#[test]
fn multiple_mail_holds_at_most_fifty_commands() {
    let mut body = String::new();
    for i in 0..60 {
        body.push_str(&format!("chess move {} alice secret e4\n", 101 + i));
    }
    let r = parse_mail("multiple", &body);
    assert_eq!(r.commands.len(), 51);
    assert!(r.commands[..50].iter().all(|c| c.is_ok()));
    let e = r.commands[50].as_ref().unwrap_err();
    assert!(e.message.contains("at most 50"), "{}", e.message);
    assert_eq!(e.masked, "chess move 151 alice ***** e4");
    assert_eq!(e.game.as_deref(), Some("chess"));
    assert_eq!(e.board, Some(151));
    assert_one_sentence(e);
}

#[test]
fn a_line_is_read_from_its_first_kilobyte_cut_before_the_word_that_runs_over() {
    // `help` and topics past the bound: only the words within it are read.
    let line = format!("help{}", " chess".repeat(1000));
    match cmd(&line) {
        Command::Help { topics } => {
            assert_eq!(topics.len(), (MAX_LINE_BYTES - "help".len()) / 6);
            assert!(topics.iter().all(|t| t == "chess"));
        }
        other => panic!("{other:?}"),
    }
    // A password straddling the bound is neither read nor quoted.
    let pad = "x".repeat(MAX_LINE_BYTES - "message alice ".len() - 3);
    let e = err(&format!("message alice {pad} hunter2 bob"));
    assert!(e.masked.len() <= MAX_LINE_BYTES, "{}", e.masked.len());
    assert!(!e.masked.contains("hunter2") && !e.masked.contains("hun"));
}

#[test]
fn a_huge_first_word_is_cut_at_the_bound_and_gets_no_suggestion() {
    let e = err(&"multiplx".repeat(40_000));
    assert!(e.masked.len() <= MAX_LINE_BYTES, "{}", e.masked.len());
    assert!(!e.message.contains("did you mean"), "{}", e.message);
    assert!(e.message.len() < 2 * MAX_LINE_BYTES, "{}", e.message.len());
    // A cut inside a character stays on a character boundary.
    let e = err(&format!("a{}", "\u{e9}".repeat(MAX_LINE_BYTES)));
    assert!(e.masked.len() <= MAX_LINE_BYTES);
}

#[test]
fn did_you_mean_skips_candidates_of_a_length_beyond_its_budget() {
    assert_eq!(
        nearest("chalenge", ["challenge", "show"]),
        Some("challenge")
    );
    assert_eq!(nearest("challengexyz", ["challenge"]), None);
    assert_eq!(nearest(&"e".repeat(5000), ["e", "ee", "eee"]), None);
}

#[test]
fn a_multiple_mail_is_read_up_to_a_thousand_words() {
    let line = format!("help{}\n", " chess".repeat(29));
    let r = parse_mail("multiple", &line.repeat(50));
    // 30 words a line: 33 lines make 990 words, the 34th passes 1000.
    assert_eq!(r.commands.len(), 34);
    assert!(r.commands[..33].iter().all(|c| c.is_ok()));
    let e = r.commands[33].as_ref().unwrap_err();
    assert!(e.message.contains("at most 1000 words"), "{}", e.message);
    assert_one_sentence(e);
}

// ------------------------------------------------------------ properties

proptest! {
    #[test]
    fn parse_line_never_panics(line in "\\PC*") {
        let _ = parse_line(&line);
    }

    #[test]
    fn parse_line_never_panics_on_command_like_words(
        words in proptest::collection::vec(
            prop_oneof![
                Just("chess".to_string()), Just("move".to_string()), Just("show".to_string()),
                Just("challenge".to_string()), Just("change".to_string()),
                Just("password".to_string()), Just("all".to_string()),
                Just("Re:".to_string()), Just("**".to_string()), Just("#".to_string()),
                "[0-9#]{1,12}", "-{0,2}[a-z=]{0,6}", "[a-z]{1,6}", "\\PC{0,4}",
            ],
            0..8,
        )
    ) {
        let _ = parse_line(&words.join(" "));
        let _ = parse_mail("multiple", &words.join("\n"));
    }

    #[test]
    fn masked_never_shows_the_move_password(
        game in proptest::sample::select(crate::command::GAME_NAMES),
        board in 1u32..100_000,
        user in "[a-z][a-z0-9]{0,10}",
        pw in "[A-Za-z0-9!$%&]{3,16}",
        mv in "[a-hKQRBNOx1-8=+-]{1,7}#?",
        guard in proptest::option::of(1u32..500),
    ) {
        // Only whole words are masked: a password that is part of another
        // word is no leak, but would fool the check below.
        prop_assume!(!format!("Re: {game} move {board} {user} {mv} **").contains(&pw));
        let line = match guard {
            Some(n) => format!("Re: {game} move {board} {user} {pw} {mv}#{n} **"),
            None => format!("{game} move {board} {user} {pw} {mv}"),
        };
        let p = parse_line(&line).expect("a valid move line");
        prop_assert!(!p.masked.contains(&pw), "{} leaks {}", p.masked, pw);
        match p.command {
            Command::Game { command: GameCommand::OnBoard { who, act: BoardAct::Move(_), .. }, .. } => {
                prop_assert_eq!(who.password.expose(), pw.as_str());
            }
            other => prop_assert!(false, "not a move: {:?}", other),
        }
    }

    #[test]
    fn masked_never_shows_the_signup_password(
        user in "[a-z][a-z0-9]{0,10}",
        pw in "[A-Za-z0-9!$%&]{3,16}",
        addrs in proptest::collection::vec("[a-z]{1,6}@[a-z]{1,6}\\.org", 0..3),
    ) {
        prop_assume!(!["all", "active", "inactive", "next"].contains(&user.as_str()));
        // Digits only are refused as a new password (see `quote`).
        prop_assume!(password_problem(&pw).is_none());
        let line = format!("signup {user} {pw} {}", addrs.join(" "));
        let p = parse_line(&line).expect("a valid signup line");
        // The password might also be a piece of another word; only whole
        // words are masked, so look for it as a word.
        prop_assert!(!p.masked.split_whitespace().any(|w| w.eq_ignore_ascii_case(&pw)));
        prop_assert!(p.masked.contains("*****"));
    }

    #[test]
    fn failed_lines_with_a_known_verb_hide_the_password(
        verb in proptest::sample::select(&["move", "queue", "submit", "resign", "confirm", "chat"][..]),
        board in "[0-9a-z]{1,4}",
        pw in "[A-Z]{6,10}",
        extra in proptest::option::of("[a-z]{1,3}"),
    ) {
        // Whatever shape the line has, the word where the password stands
        // is masked.
        let line = match &extra {
            Some(x) => format!("chess {verb} {board} alice {pw} {x} {x}"),
            None => format!("chess {verb} {board} alice {pw}"),
        };
        let masked = match parse_line(&line) {
            Ok(p) => p.masked,
            Err(e) => e.masked,
        };
        prop_assert!(!masked.contains(&pw), "{} leaks {}", masked, pw);
    }
}

#[test]
fn the_word_in_the_password_position_is_masked_and_never_the_userid() {
    // What the grammar puts in the password's place is masked, whatever
    // the player put there; the userid stays readable.
    let e = err("chess move 101 secret e4");
    assert!(e.message.starts_with("chess move needs"));
    assert_eq!(e.masked, "chess move 101 secret *****");
    let e = err("chess set secret small");
    assert_eq!(e.masked, "chess set secret *****");
    // (This one reads as asking for the vacation days of `secret`.)
    assert_eq!(ok("vacation secret 14").masked, "vacation secret *****");
    // A misplaced password: the move stands where the password should.
    let p = ok("chess move 101 alice e4 secret");
    assert_eq!(p.masked, "chess move 101 alice ***** secret");
}

#[test]
fn timers_are_at_least_one_day() {
    let e = err("chess challenge alice bob --forfeittime=0");
    assert!(e
        .message
        .starts_with("the fifth word should be a board option of at least one day"));
    assert_one_sentence(&e);
}

#[test]
fn multiple_mail_skips_the_wrote_line() {
    let r = parse_mail(
        "multiple",
        "chess show 101\nOn Monday, Bob wrote:\n> chess show 102\nchess show 103\n",
    );
    assert_eq!(r.commands.len(), 2);
    assert!(r.commands.iter().all(|c| c.is_ok()));
}

// ------------------------------------------------------------ pbmserv habits

fn verb_of(line: &str) -> &'static str {
    match game(line) {
        GameCommand::OnBoard {
            act: BoardAct::Move(_),
            ..
        } => "move",
        GameCommand::OnBoard {
            act: BoardAct::Queue(_),
            ..
        } => "queue",
        GameCommand::OnBoard {
            act: BoardAct::Submit(_),
            ..
        } => "submit",
        GameCommand::Challenge { .. } => "challenge",
        GameCommand::Preview { .. } => "preview",
        GameCommand::Subscribe { .. } => "subscribe",
        GameCommand::Unsubscribe { .. } => "unsubscribe",
        GameCommand::Standings => "standings",
        GameCommand::History => "history",
        GameCommand::OnBoard {
            act: BoardAct::Resign,
            ..
        } => "resign",
        GameCommand::Show { .. } => "show",
        GameCommand::ShowAs { .. } => "showas",
        other => panic!("{line:?}: {other:?}"),
    }
}

#[test]
fn board_is_move_and_the_q_forms_are_queue() {
    assert_eq!(
        game("chess board 101 alice pw e4"),
        game("chess move 101 alice pw e4")
    );
    assert_eq!(
        ok("Chess BOARD 101 alice pw e4").masked,
        "Chess BOARD 101 alice ***** e4"
    );
    for alias in ["qmove", "qboard", "moveq", "boardq", "QMove"] {
        assert_eq!(
            game(&format!("chess {alias} 101 alice pw e4#3")),
            game("chess queue 101 alice pw e4#3"),
            "{alias}"
        );
    }
    assert_eq!(verb_of("chess ratings"), "standings");
    assert_eq!(verb_of("chess sub 101 alice pw"), "subscribe");
}

#[test]
fn a_unique_prefix_stands_for_its_verb() {
    assert_eq!(
        game("chess chall alice bob"),
        game("chess challenge alice bob")
    );
    assert_eq!(game("chess prev 101 e4"), game("chess preview 101 e4"));
    assert_eq!(verb_of("chess m 101 alice pw e4"), "move");
    assert_eq!(verb_of("chess mo 101 alice pw e4"), "move");
    assert_eq!(verb_of("chess q 101 alice pw e4"), "queue");
    assert_eq!(verb_of("chess subm 101 alice pw e4"), "submit");
    assert_eq!(verb_of("chess subs 101 alice pw"), "subscribe");
    assert_eq!(verb_of("chess unsub 101 alice pw"), "unsubscribe");
    assert_eq!(verb_of("chess hist"), "history");
    assert_eq!(verb_of("chess stand"), "standings");
    assert_eq!(verb_of("chess res 101 alice pw"), "resign");
    assert_eq!(verb_of("chess showa alice pw 101"), "showas");
    // Prefixes of aliases, when no name begins so.
    assert_eq!(verb_of("chess rat"), "standings");
    // A message names the verb in full.
    let e = err("chess chall alice");
    assert!(e.message.contains("chess challenge needs"), "{}", e.message);
    // Account verbs too.
    assert_eq!(
        cmd("vac alice pw 3"),
        Command::Vacation {
            who: who("alice", "pw"),
            days: Some(3)
        }
    );
    assert!(matches!(cmd("signu bob pw"), Command::Signup { .. }));
    assert!(matches!(
        cmd("chan pass alice a bb"),
        Command::ChangePassword { .. }
    ));
    assert!(matches!(
        cmd("change addr alice pw"),
        Command::ChangeAddress { .. }
    ));
}

#[test]
fn an_ambiguous_prefix_is_refused_naming_the_candidates() {
    let e = err("chess s 101");
    assert_eq!(
        e.message,
        "the second word could be submit, show, showas, subscribe, set, standings or seek; write \
         more of the word."
    );
    assert_eq!(e.game.as_deref(), Some("chess"));
    assert_one_sentence(&e);
    let e = err("chess re 101 alice secret");
    assert!(e.message.contains("resign or reject"), "{}", e.message);
    assert_eq!(e.masked, "chess re 101 alice *****");
    let e = err("sign bob secret");
    assert!(e.message.contains("signup or signoff"), "{}", e.message);
    assert!(!e.masked.contains("secret"), "{}", e.masked);
}

#[test]
fn the_verbs_that_end_an_account_are_written_in_full() {
    let e = err("del alice secret");
    assert!(e.message.contains("delete"), "{}", e.message);
    assert!(e.message.contains("in full"), "{}", e.message);
    assert_eq!(e.masked, "del alice *****");
    assert_one_sentence(&e);
    assert!(err("signo alice secret").message.contains("signoff"));
    assert!(matches!(cmd("delete alice pw"), Command::Signoff { .. }));
}

#[test]
fn a_mistyped_verb_gets_did_you_mean() {
    let e = err("chess mvoe 101 alice secret e4");
    assert_eq!(
        e.message,
        "the second word is no chess command; did you mean move, as in: chess move 101 ***** ***** \
         *****?"
    );
    assert_eq!(e.masked, "chess mvoe 101 alice ***** e4");
    assert_one_sentence(&e);
    assert!(err("chess chalenge alice bob")
        .message
        .contains("did you mean challenge"));
    assert!(err("chess hsow 101").message.contains("did you mean show"));
    let e = err("sigup dave secret");
    assert!(e.message.contains("did you mean signup"), "{}", e.message);
    assert_eq!(e.masked, "sigup dave *****");
    let e = err("change pasword alice old new");
    assert!(e.message.contains("did you mean password"), "{}", e.message);
    assert_eq!(e.masked, "change pasword alice ***** *****");
    // Too far from any verb: no guess.
    let e = err("chess frobnicate 101");
    assert!(!e.message.contains("did you mean"), "{}", e.message);
}

#[test]
fn a_mistyped_game_gets_did_you_mean() {
    let e = err("chss move 101 alice secret e4");
    assert_eq!(
        e.message,
        "the first word is no game or command I know; did you mean chess, as in: chess move 101 \
         ***** ***** *****?"
    );
    assert_eq!(e.masked, "chss move 101 alice ***** e4");
    assert_one_sentence(&e);
    assert!(err("doublechss show 101")
        .message
        .contains("did you mean doublechess"));
    // A shortened game name is suggested, not taken.
    assert!(err("double show 101")
        .message
        .contains("did you mean doublechess"));
    assert!(err("list chss").message.contains("did you mean chess?"));
    assert_one_sentence(&err("list chss"));
    assert!(!err("quux show 101").message.contains("did you mean"));
}

#[test]
fn edit_distance_counts_swaps_as_one() {
    assert_eq!(distance("move", "move"), 0);
    assert_eq!(distance("mvoe", "move"), 1);
    assert_eq!(distance("chss", "chess"), 1);
    assert_eq!(distance("CHESS", "chess"), 0);
    assert_eq!(distance("abc", ""), 3);
    assert_eq!(nearest("mvoe", ["move", "queue"]), Some("move"));
    assert_eq!(nearest("xyz", ["move", "queue"]), None);
}

#[test]
fn show_board_n_reads_as_show_n() {
    assert_eq!(game("chess show board 101"), game("chess show 101"));
    assert_eq!(
        game("chess show Board 101#3 102"),
        game("chess show 101#3 102")
    );
    assert_eq!(ok("chess show board 101").masked, "chess show board 101");
    // A player called board is still a player.
    assert_eq!(
        game("chess show board"),
        GameCommand::ShowUsers {
            users: vec!["board".into()],
            filter: BoardFilter::Active
        }
    );
    assert_eq!(
        game("chess preview board 101 e4"),
        game("chess preview 101 e4")
    );
}

#[test]
fn preview_new_plays_from_the_start() {
    assert_eq!(
        game("chess preview new e4 e5"),
        GameCommand::Preview {
            from: PreviewFrom::Start { options: vec![] },
            moves: vec!["e4".into(), "e5".into()],
        }
    );
    assert_eq!(
        game("chess preview NEW"),
        GameCommand::Preview {
            from: PreviewFrom::Start { options: vec![] },
            moves: vec![],
        }
    );
    assert_eq!(
        game("doppelganger preview new -Lenient e4, e5"),
        GameCommand::Preview {
            from: PreviewFrom::Start {
                options: vec!["lenient".into()]
            },
            moves: vec!["e4".into(), "e5".into()],
        }
    );
    let e = err("chess preview new -= e4");
    assert!(e.message.contains("game option"), "{}", e.message);
    assert_eq!(e.board, None);
    assert_one_sentence(&e);
}

#[test]
fn limit_and_vacation_without_a_number_ask() {
    assert_eq!(
        game("chess limit alice pw"),
        GameCommand::ShowLimit {
            who: who("alice", "pw")
        }
    );
    assert_eq!(ok("chess limit alice pw").masked, "chess limit alice *****");
    assert_eq!(
        cmd("vacation alice pw"),
        Command::ShowVacation {
            who: who("alice", "pw")
        }
    );
    assert!(err("chess limit alice")
        .message
        .contains("chess limit needs"));
}

#[test]
fn masking_covers_every_shape_and_spares_the_userid() {
    for (line, masked) in [
        ("signup dave", "signup dave"),
        ("signup dave pw", "signup dave *****"),
        (
            "signup dave pw dave@d.example d2@d.example",
            "signup dave ***** dave@d.example d2@d.example",
        ),
        ("signup dave pw nobody", "signup dave ***** nobody"),
        (
            "change password dave old new",
            "change password dave ***** *****",
        ),
        ("change password dave old", "change password dave *****"),
        (
            "change password dave old new extra",
            "change password dave ***** ***** extra",
        ),
        (
            "change address dave pw d@x.example",
            "change address dave ***** d@x.example",
        ),
        (
            "change address dave pw d@@x",
            "change address dave ***** d@@x",
        ),
        ("change dave old new", "change dave ***** *****"),
        (
            "chess move 101 alice e4 secret",
            "chess move 101 alice ***** secret",
        ),
        (
            "chess move 101 alice secret b4",
            "chess move 101 alice ***** b4",
        ),
        ("vacation alice secret soon", "vacation alice ***** soon"),
        ("message alice secret", "message alice *****"),
        ("chess notify alice secret x", "chess notify alice ***** x"),
        (
            "chess subscribe 101 alice secret x",
            "chess subscribe 101 alice ***** x",
        ),
    ] {
        let got = match parse_line(line) {
            Ok(p) => p.masked,
            Err(e) => e.masked,
        };
        assert_eq!(got, masked, "{line:?}");
    }
}

#[test]
fn words_are_echoed_as_sent() {
    let p = ok("chess move 101 alice pw b4");
    assert_eq!(p.masked, "chess move 101 alice ***** b4");
    let e = err("chess move 101 alice pw b4#0");
    assert_eq!(e.masked, "chess move 101 alice ***** b4#0");
}

#[test]
fn an_empty_subject_reads_the_first_body_line() {
    let r = parse_mail(
        "",
        "\n  chess move 101 alice pw e4  \nGood luck!\n-- \nsig\n",
    );
    assert!(!r.multiple);
    assert_eq!(r.commands.len(), 1);
    let p = r.commands[0].as_ref().expect("the first line is a command");
    assert_eq!(p.command, cmd("chess move 101 alice pw e4"));
    assert_eq!(p.masked, "chess move 101 alice ***** e4");
    assert_eq!(
        r.body_after_command.as_deref(),
        Some("Good luck!\n-- \nsig\n")
    );
    // Re: alone is empty too.
    let r = parse_mail("Re: ", "chess show 101");
    assert_eq!(
        r.commands[0].as_ref().unwrap().command,
        cmd("chess show 101")
    );
    assert_eq!(r.body_after_command.as_deref(), Some(""));
    // A Subject with a command: the body is not read.
    let r = parse_mail("chess show 101", "chess show 102");
    assert_eq!(r.body_after_command, None);
    // A quote or an empty body is no command: the Subject is refused.
    for body in ["", "\n\n", "> chess show 101\n", "--\nchess show 101"] {
        let r = parse_mail("", body);
        assert_eq!(r.body_after_command, None, "{body:?}");
        let e = r.commands[0].as_ref().unwrap_err();
        assert!(e.message.contains("Subject is empty"), "{}", e.message);
    }
    // A first line that is no command is refused as that line.
    let r = parse_mail("", "Hello Bob\n");
    assert!(r.commands[0].is_err());
    assert!(r.body_after_command.is_some());
}

#[test]
fn confirm_address_reads_the_userid_and_masks_the_code() {
    let p = ok("Re: confirm address Carol k7q3p9");
    assert_eq!(
        p.command,
        Command::ConfirmAddress {
            userid: "carol".into(),
            code: Password::new("k7q3p9"),
        }
    );
    assert_eq!(p.masked, "confirm address Carol *****");
    let e = err("confirm adress carol K7Q3P9");
    assert!(
        e.message.contains("the second word should be address"),
        "{}",
        e.message
    );
    assert_one_sentence(&e);
    let e = err("confirm address carol");
    assert_one_sentence(&e);
    // The game verb confirm is untouched.
    assert!(matches!(
        game("chess confirm 101 alice pw"),
        GameCommand::OnBoard {
            board: 101,
            act: BoardAct::ConfirmSubmitted,
            ..
        }
    ));
}

// ------------------------------------------------------------ quoting

#[test]
fn log_line_keeps_only_game_verb_and_boards() {
    for (line, logged) in [
        ("chess move 101 alice Secret1 e4", "chess move 101"),
        ("Re: chess board 101 alice Secret1 e4", "chess move 101"),
        ("chess move alice Secret1 101 e4", "chess move"),
        ("chess show 103 hunter2", "chess show"),
        ("chess show 101 102#3", "chess show 101 102"),
        ("chess showas alice Secret1 7 8", "chess showas 7 8"),
        ("chess Secret1 move 101", "chess"),
        ("signup alice Secret1", "signup"),
        ("all show alice", "all show"),
        ("change password alice Secret1 Other2", "change"),
        ("Secret1 chess move", "?"),
        ("multiple", "multiple"),
        ("", ""),
    ] {
        assert_eq!(log_line(line), logged, "{line:?}");
    }
}

#[test]
fn a_strict_quote_shows_only_language_words_numbers_and_kept_words() {
    assert_eq!(
        strict_quote("chess  move 101 alice Secret1 e4", |_| false),
        "chess  move 101 ***** ***** *****"
    );
    assert_eq!(
        strict_quote("chess move 101#7 alice ***** e4", |w| w == "alice"),
        "chess move 101#7 alice ***** *****"
    );
    assert_eq!(
        strict_quote("CHESS Resign ALL", |_| false),
        "CHESS Resign ALL"
    );
}

#[test]
fn a_new_password_of_digits_or_a_language_word_is_refused() {
    let e = err("signup alice 101");
    assert!(e.message.contains("digits only"), "{}", e.message);
    assert!(!e.message.contains("101"), "{}", e.message);
    assert_one_sentence(&e);
    let e = err("change password alice old Resign");
    assert!(
        e.message.contains("word of the command language"),
        "{}",
        e.message
    );
    assert!(
        !e.message.to_lowercase().contains("resign"),
        "{}",
        e.message
    );
    assert!(ok("signup alice s3cret").command != cmd("signup bob s3cret"));
}

#[test]
fn places_are_named_in_words() {
    assert_eq!(ordinal(0), "first");
    assert_eq!(ordinal(9), "tenth");
    assert_eq!(ordinal(10), "11th");
    assert_eq!(ordinal(20), "21st");
    assert_eq!(ordinal(21), "22nd");
    assert_eq!(ordinal(112), "113th");
}

proptest! {
    /// Whatever the order of a move's words, a refusal's sentence never
    /// holds the password (it names places, not words).
    #[test]
    fn no_sentence_quotes_a_word_that_could_be_the_password(
        order in Just(vec!["move", "101", "alice", "PW", "e4"]).prop_shuffle(),
        pw in "[A-Z][a-z]{3,8}[0-9]{1,3}",
        extra in proptest::option::of("[a-z0-9#=-]{1,6}"),
    ) {
        let mut words: Vec<String> = order
            .iter()
            .map(|w| if *w == "PW" { pw.clone() } else { w.to_string() })
            .collect();
        words.extend(extra);
        let line = format!("chess {}", words.join(" "));
        if let Err(e) = parse_line(&line) {
            prop_assert!(
                !e.message.to_lowercase().contains(&pw.to_lowercase()),
                "{line}: {}",
                e.message
            );
        }
    }
}

// ------------------------------------------------------------ tournaments

#[test]
fn tournament_create_reads_kind_size_and_its_options() {
    let p = parse_line(
        "chess tournament create Spring alice secret swiss 8 rounds 5 -lenient --nagtime=3",
    )
    .unwrap();
    assert_eq!(
        p.masked,
        "chess tournament create Spring alice ***** swiss 8 rounds 5 -lenient --nagtime=3"
    );
    let Command::Game {
        command: GameCommand::Tournament(TournamentCommand::Act { name, who, action }),
        ..
    } = p.command
    else {
        panic!("{:?}", p.command)
    };
    assert_eq!(name, "spring");
    assert_eq!(who.userid, "alice");
    let TournamentAction::Create(Ok(plan)) = action else {
        panic!("{action:?}")
    };
    assert!(plan.swiss);
    assert_eq!(
        (plan.players, plan.rounds, plan.double),
        (8, Some(5), false)
    );
    assert_eq!(plan.options, ["lenient"]);
    assert_eq!(plan.timers.nag_days, Some(3));
}

#[test]
fn tournament_create_words_that_do_not_fit_are_left_for_the_server_to_refuse() {
    for (line, says) in [
        (
            "chess tournament create spring alice secret knockout 8",
            "roundrobin or swiss",
        ),
        (
            "chess tournament create spring alice secret swiss 8",
            "number of rounds",
        ),
        (
            "chess tournament create spring alice secret roundrobin 8 rounds 3",
            "double",
        ),
        (
            "chess tournament create spring alice secret roundrobin 8 --nagtime=0",
            "at least one day",
        ),
    ] {
        let p = parse_line(line).unwrap();
        assert!(!p.masked.contains("secret"), "{}", p.masked);
        let Command::Game {
            command:
                GameCommand::Tournament(TournamentCommand::Act {
                    action: TournamentAction::Create(Err(sentence)),
                    ..
                }),
            ..
        } = p.command
        else {
            panic!("{line}: {:?}", p.command)
        };
        assert!(sentence.contains(says), "{line}: {sentence}");
    }
}

#[test]
fn tournament_actions_and_the_list_read_as_such() {
    let read = |line: &str| match parse_line(line).unwrap().command {
        Command::Game {
            command: GameCommand::Tournament(t),
            ..
        } => t,
        other => panic!("{other:?}"),
    };
    assert_eq!(read("chess tournaments"), TournamentCommand::List);
    assert_eq!(
        read("chess tournament show Spring"),
        TournamentCommand::Show {
            name: "spring".into()
        }
    );
    assert_eq!(
        read("chess tournament pgn spring"),
        TournamentCommand::Pgn {
            name: "spring".into()
        }
    );
    for (word, action) in [
        ("join", TournamentAction::Join),
        ("leave", TournamentAction::Leave),
        ("start", TournamentAction::Start),
        ("withdraw", TournamentAction::Withdraw),
    ] {
        let t = read(&format!("chess tournament {word} spring bob pw"));
        let TournamentCommand::Act {
            action: got, who, ..
        } = t
        else {
            panic!("{t:?}")
        };
        assert_eq!(got, action);
        assert_eq!(who.userid, "bob");
    }
}

#[test]
fn a_tournament_line_without_its_password_masks_the_password_place() {
    let e = err("chess tournament join spring alice");
    assert!(e.message.contains("tournament needs"), "{}", e.message);
    let e = err("chess tournament bogus spring alice secret");
    assert!(e.message.contains("create, join, leave"), "{}", e.message);
    assert_eq!(e.masked, "chess tournament bogus spring alice *****");
    assert_one_sentence(&e);
}

#[test]
fn only_tournament_show_pgn_and_the_list_only_read() {
    use crate::command::only_reads;
    assert!(only_reads(
        &parse_line("chess tournaments").unwrap().command
    ));
    assert!(only_reads(
        &parse_line("chess tournament show a").unwrap().command
    ));
    assert!(!only_reads(
        &parse_line("chess tournament join a bob pw")
            .unwrap()
            .command
    ));
}
// `if`: conditional moves.

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
