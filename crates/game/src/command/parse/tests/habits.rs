//! pbmserv habits: prefixes, did-you-mean, the forms a veteran types.

use super::*;

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
