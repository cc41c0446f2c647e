//! Mails: reply markers and stars stripped, single and `multiple` mails,
//! the bounds on a line and on a mail.

use super::*;

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
