//! Game names and the verbs after them: unknown words, verbs in the
//! wrong place.

use super::*;

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
