//! The cost bound of one command: repeated arguments collapse, and a
//! command names at most so many boards, users, topics or games.
//!
//! `help chess chess chess` asks for one page, `chess show 101 101` for one
//! board, `message alice pw bob bob` writes to bob once: a word given again
//! adds nothing (the first mention keeps its place). After that, a list
//! longer than the server's `[limits] max_list_items` is refused with one
//! sentence, so that no command costs more than that many boards or mails.

use super::{Command, GameCommand, TournamentCommand};

/// `command` with every repeated list item dropped, or the sentence that
/// refuses it when a list is still longer than `max_items`.
pub fn collapse(mut command: Command, max_items: usize) -> Result<Command, String> {
    let mut longest: Option<(&'static str, usize)> = None;
    let mut bound = |what: &'static str, n: usize| {
        if n > max_items && longest.is_none_or(|(_, m)| n > m) {
            longest = Some((what, n));
        }
    };
    match &mut command {
        Command::Help { topics } => bound("help topics", dedup(topics)),
        Command::Signup { addresses, .. } | Command::ChangeAddress { addresses, .. } => {
            bound("addresses", dedup(addresses))
        }
        Command::List { games } => bound("games", dedup(games)),
        Command::Message { to, .. } => {
            to.iter_mut().for_each(|u| *u = u.to_ascii_lowercase());
            bound("recipients", dedup(to))
        }
        Command::Game { command, .. } => match command {
            GameCommand::Show { boards } => bound("boards", dedup(boards)),
            GameCommand::ShowUsers { users, .. } | GameCommand::Games { users, .. } => {
                users.iter_mut().for_each(|u| *u = u.to_ascii_lowercase());
                bound("users", dedup(users))
            }
            GameCommand::ShowAs { boards, .. }
            | GameCommand::Subscribe { boards, .. }
            | GameCommand::Unsubscribe { boards, .. }
            | GameCommand::Notify { boards, .. } => bound("boards", dedup(boards)),
            GameCommand::Challenge { options, .. } => bound("options", dedup(options)),
            GameCommand::Help
            | GameCommand::OnBoard { .. }
            | GameCommand::Preview { .. }
            | GameCommand::AcceptChallenges { .. }
            | GameCommand::RejectChallenges { .. }
            | GameCommand::Limit { .. }
            | GameCommand::ShowLimit { .. }
            | GameCommand::Set { .. }
            | GameCommand::Standings
            | GameCommand::History
            | GameCommand::Players
            | GameCommand::Seek { .. }
            | GameCommand::Record { .. }
            | GameCommand::Tournament(_) => {}
        },
        Command::ChangePassword { .. }
        | Command::Signoff { .. }
        | Command::ConfirmAddress { .. }
        | Command::Vacation { .. }
        | Command::ShowVacation { .. }
        | Command::Broadcast { .. }
        | Command::AllShow { .. } => {}
    }
    match longest {
        Some((what, n)) => Err(format!(
            "This command names {n} different {what}, more than the {max_items} one command may name; send it again with fewer, or split it over several commands."
        )),
        None => Ok(command),
    }
}

/// Whether `command` only reads (help, listings, boards shown): the same
/// one given twice in a `multiple` mail is answered once.
pub fn only_reads(command: &Command) -> bool {
    match command {
        Command::Help { .. } | Command::List { .. } | Command::AllShow { .. } => true,
        Command::Signup { .. }
        | Command::ChangePassword { .. }
        | Command::ChangeAddress { .. }
        | Command::Signoff { .. }
        | Command::ConfirmAddress { .. }
        | Command::Vacation { .. }
        | Command::ShowVacation { .. }
        | Command::Message { .. }
        | Command::Broadcast { .. } => false,
        Command::Game { command, .. } => match command {
            GameCommand::Help
            | GameCommand::Preview { .. }
            | GameCommand::Show { .. }
            | GameCommand::ShowUsers { .. }
            | GameCommand::Games { .. }
            | GameCommand::Standings
            | GameCommand::History
            | GameCommand::Players
            | GameCommand::Record { .. } => true,
            GameCommand::Tournament(t) => !matches!(t, TournamentCommand::Act { .. }),
            GameCommand::Challenge { .. }
            | GameCommand::OnBoard { .. }
            | GameCommand::ShowAs { .. }
            | GameCommand::Subscribe { .. }
            | GameCommand::Unsubscribe { .. }
            | GameCommand::Notify { .. }
            | GameCommand::AcceptChallenges { .. }
            | GameCommand::RejectChallenges { .. }
            | GameCommand::Limit { .. }
            | GameCommand::ShowLimit { .. }
            | GameCommand::Set { .. }
            | GameCommand::Seek { .. } => false,
        },
    }
}

/// Drop the items seen before, in place, keeping the first mention's
/// order; returns how many are left.
fn dedup<T: PartialEq>(items: &mut Vec<T>) -> usize {
    let mut kept: Vec<T> = Vec::with_capacity(items.len().min(64));
    for item in items.drain(..) {
        if !kept.contains(&item) {
            kept.push(item);
        }
    }
    *items = kept;
    items.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::parse_line;

    fn collapsed(line: &str) -> Result<Command, String> {
        collapse(parse_line(line).unwrap().command, 20)
    }

    #[test]
    fn repeated_help_topics_collapse_to_one_page_each() {
        let line = format!("help{}", " chess".repeat(5000));
        assert_eq!(
            collapsed(&line).unwrap(),
            Command::Help {
                topics: vec!["chess".into()]
            }
        );
    }

    #[test]
    fn repeated_recipients_collapse_and_too_many_are_refused() {
        let line = format!("message alice pw{}", " bob Bob".repeat(11_000));
        match collapsed(&line).unwrap() {
            Command::Message { to, .. } => assert_eq!(to, vec!["bob".to_string()]),
            other => panic!("{other:?}"),
        }
        let many: String = (0..21).map(|i| format!(" u{i}")).collect();
        let refused = collapsed(&format!("message alice pw{many}")).unwrap_err();
        assert!(refused.contains("21 different recipients"), "{refused}");
    }

    #[test]
    fn repeated_boards_collapse() {
        let line = format!("chess show{}", " 101".repeat(300));
        match collapsed(&line).unwrap() {
            Command::Game {
                command: GameCommand::Show { boards },
                ..
            } => assert_eq!(boards.len(), 1),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_board_verb_is_one_board_act_with_its_credentials() {
        let lines = [
            "chess move 101 alice pw e4#1",
            "chess queue 101 alice pw e5",
            "chess submit 101 alice pw e4",
            "chess confirm 101 alice pw",
            "chess resign 101 alice pw",
            "chess if 101 alice pw e4 e5",
            "chess chat 101 alice pw",
        ];
        for line in lines {
            let command = parse_line(line).unwrap().command;
            assert!(
                matches!(
                    &command,
                    Command::Game {
                        command: GameCommand::OnBoard { board: 101, .. },
                        ..
                    }
                ),
                "{line}: {command:?}"
            );
            assert_eq!(command.credentials().unwrap().userid, "alice", "{line}");
            assert!(!only_reads(&command), "{line}");
            assert_eq!(collapse(command.clone(), 20), Ok(command), "{line}");
        }
    }

    #[test]
    fn moves_are_no_reads() {
        let mv = parse_line("chess move 101 alice pw e4").unwrap().command;
        assert!(!only_reads(&mv));
        assert!(only_reads(&parse_line("chess show 101").unwrap().command));
    }
}
