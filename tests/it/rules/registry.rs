//! What every registered game must do, proved by being registered: the
//! replay contract (each legal action's canonical notation reads back as
//! that action), position-text round trips, `divide` summing to `perft`,
//! and a name the command language knows with a help page.

use game::command;
use pbmchess::server::templates::Templates;
use proptest::prelude::*;
use rules::{self, Game, Position};

/// Check one position: no two legal actions share a notation; each
/// notation, played on a copy, is accepted and echoed unchanged; the
/// position text reads back to the same text, side and legal actions.
fn check_position(game: &'static dyn Game, p: &dyn Position) {
    let text = p.to_text();
    let actions = p.legal_actions();
    let mut unique = actions.clone();
    unique.dedup();
    assert_eq!(unique.len(), actions.len(), "{text}: duplicate notations");
    // Every action where there are few; an even sample of about 40 where
    // there are hundreds (Shadow, Temporal), so the check stays quick.
    for notation in actions.iter().step_by(actions.len() / 40 + 1) {
        let mut copy = p.clone_box();
        let played = copy
            .play(notation)
            .unwrap_or_else(|e| panic!("{} {text}: {notation} refused: {e}", game.name()));
        assert_eq!(
            &played.notation,
            notation,
            "{} {text}: {notation} read back as another action",
            game.name()
        );
    }
    let reread = game
        .position(&text, &[])
        .unwrap_or_else(|e| panic!("{} cannot read its own text {text}: {e}", game.name()));
    assert_eq!(reread.to_text(), text, "{}: text round trip", game.name());
    assert_eq!(reread.to_act(), p.to_act(), "{text}: side");
    // perft ignores the draws, which the reread position has no history for.
    assert_eq!(
        reread.divide(1),
        p.divide(1),
        "{text}: actions after reread"
    );
}

/// Play `choices` (each picks among the legal actions) from the start of
/// `game`, checking every position on the way.
fn playout(game: &'static dyn Game, choices: &[usize]) {
    let mut p = game.start(&[]).expect("start");
    check_position(game, p.as_ref());
    for &choice in choices {
        let actions = p.legal_actions();
        if actions.is_empty() {
            break;
        }
        let notation = &actions[choice % actions.len()];
        let played = p.play(notation).expect("a legal action plays");
        assert_eq!(&played.notation, notation);
        check_position(game, p.as_ref());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_game_replays_its_own_notation_and_reads_its_own_text(
        choices in proptest::collection::vec(any::<usize>(), 0..60)
    ) {
        for &game in rules::registry() {
            playout(game, &choices);
        }
    }
}

#[test]
fn divide_sums_to_perft_in_every_game() {
    for &game in rules::registry() {
        let p = game.start(&[]).unwrap();
        let parts = p.divide(2);
        assert_eq!(
            parts.len() as u64,
            p.perft(1),
            "{}: one part per action",
            game.name()
        );
        assert_eq!(
            parts.iter().map(|(_, n)| n).sum::<u64>(),
            p.perft(2),
            "{}",
            game.name()
        );
        let mut names: Vec<&String> = parts.iter().map(|(name, _)| name).collect();
        names.dedup();
        assert_eq!(names.len(), parts.len(), "{}: distinct names", game.name());
    }
}

#[test]
fn every_registered_game_is_known_to_the_command_language_and_has_help() {
    let templates = Templates::load(None).expect("built-in templates");
    for &game in rules::registry() {
        assert_eq!(
            command::game_name(game.name()),
            Some(game.name()),
            "the parser does not know {}",
            game.name()
        );
        assert!(
            templates.has(&format!("help/{}.txt", game.name())),
            "{} has no help page",
            game.name()
        );
        assert!(rules::game(&game.name().to_uppercase()).is_some());
    }
}
