//! Tournaments: create, the actions, the list.

use super::*;

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
    assert_eq!(plan.tiebreaks, None, "the system's default");
    let p = parse_line(
        "chess tournament create spring alice secret roundrobin 6 tiebreaks sb,De,BH-c1",
    )
    .unwrap();
    let Command::Game {
        command:
            GameCommand::Tournament(TournamentCommand::Act {
                action: TournamentAction::Create(Ok(plan)),
                ..
            }),
        ..
    } = p.command
    else {
        panic!("{:?}", p.command)
    };
    use crate::tournament::Tiebreak::*;
    assert_eq!(
        plan.tiebreaks,
        Some(vec![SonnebornBerger, DirectEncounter, BuchholzCut1])
    );
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
        (
            "chess tournament create spring alice secret roundrobin 8 tiebreaks DE,XYZ",
            "each one of DE, WIN, WON, SB, BH, BH-C1, BH-M1",
        ),
        (
            "chess tournament create spring alice secret roundrobin 8 tiebreaks SB,WIN,sb",
            "SB is listed twice",
        ),
        (
            "chess tournament create spring alice secret swiss 8 rounds 3 tiebreaks \
             DE,WIN,WON,SB,BH,BH-C1",
            "at most 5 tiebreaks",
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
