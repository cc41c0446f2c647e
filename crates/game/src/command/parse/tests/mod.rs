use super::*;
use crate::command::{
    BoardFilter, BoardRef, BoardSize, Command, Credentials, GameCommand, Look, MoveAction,
    Password, PreviewFrom, Timers,
};
use proptest::prelude::*;

mod account;
mod conditional;
mod game;
mod habits;
mod mails;
mod moves;
mod properties;
mod quoting;
mod tournament;
mod verbs;

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
