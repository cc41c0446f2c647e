//! Properties over any line: the parser never panics and the password
//! is never shown.

use super::*;

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
