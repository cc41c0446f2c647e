//! Whatever a mail says, the server answers or files it and never fails or
//! panics: random command lines built from the language's own words.

use crate::common;

use common::world::World;
use pbmchess::server::MailOutcome;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "chess",
    "doublechess",
    "move",
    "resign",
    "show",
    "games",
    "set",
    "challenge",
    "help",
    "signup",
    "multiple",
    "propose",
    "accept",
    "reject",
    "undo",
    "pass",
    "queue",
    "submit",
    "confirm",
    "preview",
    "chat",
    "subscribe",
    "unsubscribe",
    "notify",
    "limit",
    "standings",
    "history",
    "list",
    "vacation",
    "message",
    "all",
    "change",
    "password",
    "address",
    "signoff",
    "showas",
    "small",
    "large",
    "off",
    "inf",
    "101",
    "102",
    "0",
    "999999999999",
    "101#2",
    "#",
    "##",
    "alice",
    "bob",
    "pa",
    "pb",
    "e4",
    "e5",
    "Nf3",
    "O-O",
    "e8=Q",
    "Qxf7#",
    "-lenient",
    "--nagtime=3",
    "--forfeittime=0",
    "Re:",
    "**",
    "a@x",
    "\u{e9}",
    "",
];

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..8).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_command_sequence_is_answered(lines in prop::collection::vec(line(), 1..6),
                                        bodies in prop::collection::vec(line(), 1..6)) {
        let mut w = World::with_board();
        for (i, subject) in lines.iter().enumerate() {
            let from = if i % 2 == 0 { "a@x" } else { "b@x" };
            let body = bodies[i % bodies.len()].replace(' ', "\n");
            let outcome = w.mail(from, subject, &body);
            let answered = matches!(outcome, MailOutcome::Answered { .. });
            prop_assert!(answered, "{subject:?}: {outcome:?}");
            // Every mail gets at least one reply. (That no password is
            // echoed is proved where passwords are masked: the parser's
            // property tests and the mail tests.)
            let replies = w.replies();
            prop_assert!(!replies.is_empty(), "{subject:?} got no answer");
        }
    }
}
