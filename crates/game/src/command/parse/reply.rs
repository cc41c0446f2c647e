//! A reply to a board mail, read as the command it stands for.
//!
//! The server knows from the reply token which game, board and player the
//! reply is about; the player writes only the action, on the first line
//! above the quote (see `crate::mail::reply_text`):
//!
//! - a move in any notation the game accepts, or one of the special moves
//!   `resign`, `propose`, `accept`, `reject`, `undo`, `pass`: the command
//!   `move` (a leading word `move` or `board` is allowed and dropped);
//! - `queue <move>` (or one of the queue verb's aliases): `queue`;
//! - `show`: `show` of that board;
//! - `if <moves>`, `if list`, `if cancel [<moves>]`: `if`, the player's
//!   conditional moves. A bare `if` is read as a move (and
//!   refused as one).
//!
//! A final `#N` is the ply guard, exactly as in a Subject command. The
//! credentials carry the token's userid and an empty password: the server
//! vouches for the player on this path (the token and the sender's address
//! stand in for the password), and never checks that empty password.
//! As a Subject line, the line is read from its first
//! [`super::MAX_LINE_BYTES`] only.

use super::{
    cap_line, exact, game_name, split_guard, tokenize, BoardAct, BoardRef, Command, Credentials,
    GameCommand, ParseError, Parsed, Parser, Password, Usage, GAME_VERBS,
};

/// The command a reply's first line `line` stands for, on board `board`
/// of `game` for `userid`. The quote ([`Parsed::masked`]) is the line as
/// written.
pub fn parse_reply(game: &str, board: u32, userid: &str, line: &str) -> Result<Parsed, ParseError> {
    let line = cap_line(line.trim()).trim_end();
    let Some(game) = game_name(game) else {
        return Err(ParseError {
            message: format!("There is no game called {game}."),
            masked: line.to_string(),
            game: None,
            board: Some(board),
        });
    };
    let mut p = Parser {
        line,
        toks: tokenize(line),
        i: 0,
        pw: Vec::new(),
        guess: Vec::new(),
        game: Some(game),
        board: Some(board),
        cmd: "a reply".to_string(),
        usage: Usage {
            needs: "your move on its first line",
            example: "Nf3",
        },
    };
    let who = Credentials {
        userid: userid.to_string(),
        password: Password::new(""),
    };
    let first = p.peek().map(str::to_ascii_lowercase).unwrap_or_default();
    let verb = exact(GAME_VERBS, &first).map(|v| v.name);
    let command = match verb {
        Some("show") if p.toks.len() == 1 => GameCommand::Show {
            boards: vec![BoardRef { board, ply: None }],
        },
        Some("if") if p.toks.len() > 1 => {
            p.i += 1;
            p.usage = Usage {
                needs: "a line of moves, list, or cancel after if",
                example: "if e5 Nf3 Nc6 Bb5",
            };
            p.cmd = "if".to_string();
            let what = p.conditional_moves()?;
            GameCommand::OnBoard {
                board,
                who,
                guard: None,
                act: BoardAct::If(what),
            }
        }
        Some("queue") => {
            p.i += 1;
            p.usage = Usage {
                needs: "the move to queue after queue",
                example: "queue Nf3",
            };
            let (action, guard) = p.move_action()?;
            GameCommand::OnBoard {
                board,
                who,
                guard,
                act: BoardAct::Queue(action),
            }
        }
        _ => {
            if verb == Some("move") && p.toks.len() > 1 {
                p.i += 1;
            }
            let (action, guard) = p.move_action()?;
            GameCommand::OnBoard {
                board,
                who,
                guard,
                act: BoardAct::Move(action),
            }
        }
    };
    Ok(p.finish(Command::Game {
        game: game.to_string(),
        command,
    }))
}

/// Whether a reply's first line carries its own `#N` ply guard.
pub fn has_guard(line: &str) -> bool {
    split_guard(line.trim()).1.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::MoveAction;

    fn read(line: &str) -> GameCommand {
        match parse_reply("chess", 101, "alice", line).unwrap().command {
            Command::Game { game, command } => {
                assert_eq!(game, "chess");
                command
            }
            other => panic!("{other:?}"),
        }
    }

    fn alice() -> Credentials {
        Credentials {
            userid: "alice".into(),
            password: Password::new(""),
        }
    }

    #[test]
    fn a_move_is_a_move_command_on_the_tokens_board() {
        assert_eq!(
            read("Nf3"),
            GameCommand::OnBoard {
                board: 101,
                who: alice(),
                guard: None,
                act: BoardAct::Move(MoveAction::Play("Nf3".into())),
            }
        );
        assert_eq!(
            read("move e2e4#7"),
            GameCommand::OnBoard {
                board: 101,
                who: alice(),
                guard: Some(7),
                act: BoardAct::Move(MoveAction::Play("e2e4".into())),
            }
        );
        assert!(has_guard("e4#7") && !has_guard("Qxf7#") && !has_guard("e4"));
    }

    #[test]
    fn special_moves_queue_and_show() {
        for (word, action) in [
            ("resign", MoveAction::Resign),
            ("Propose", MoveAction::Propose),
            ("accept", MoveAction::Accept),
            ("reject", MoveAction::Reject),
            ("undo", MoveAction::Undo),
        ] {
            assert_eq!(
                read(word),
                GameCommand::OnBoard {
                    board: 101,
                    who: alice(),
                    guard: None,
                    act: BoardAct::Move(action),
                }
            );
        }
        assert_eq!(
            read("queue Nc6"),
            GameCommand::OnBoard {
                board: 101,
                who: alice(),
                guard: None,
                act: BoardAct::Queue(MoveAction::Play("Nc6".into())),
            }
        );
        assert_eq!(
            read("show"),
            GameCommand::Show {
                boards: vec![BoardRef {
                    board: 101,
                    ply: None
                }]
            }
        );
    }

    #[test]
    fn a_bare_queue_or_guard_zero_is_refused_in_one_sentence() {
        let e = parse_reply("chess", 101, "alice", "queue").unwrap_err();
        assert!(e.message.contains("queue Nf3"), "{}", e.message);
        assert_eq!(e.board, Some(101));
        let e = parse_reply("chess", 101, "alice", "e4#0").unwrap_err();
        assert!(e.message.contains("#0"), "{}", e.message);
        assert_eq!(e.masked, "e4#0");
    }

    #[test]
    fn if_on_a_reply_is_the_conditional_command_on_the_tokens_board() {
        use crate::command::Conditional;
        assert_eq!(
            read("if e5 Nf3 Nc6 Bb5"),
            GameCommand::OnBoard {
                board: 101,
                who: alice(),
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
            read("If list"),
            GameCommand::OnBoard {
                board: 101,
                who: alice(),
                guard: None,
                act: BoardAct::If(Conditional::List),
            }
        );
        assert_eq!(
            read("if cancel e5"),
            GameCommand::OnBoard {
                board: 101,
                who: alice(),
                guard: None,
                act: BoardAct::If(Conditional::Cancel(vec!["e5".into()])),
            }
        );
    }
}
