//! What a log line and a refusal may quote: never a word that could be
//! the password.

use super::*;

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
