//! Each game's help page names the notations the game reads besides its
//! own (German letters, figurines, a `My move:` phrase, pasted PGN), as
//! its rules read them, within 78 columns.

use crate::common::{to, Install};

const ALICE: &str = "alice@players.test";

/// What the rules of `game` read at its start: German letters,
/// figurines, a `My move:` phrase (each tried on a knight's move).
fn reads(game: &str) -> (bool, bool, bool) {
    let rules = rules::game(game).unwrap();
    let position = rules.start(&[]).unwrap();
    let knight = position
        .legal_actions()
        .into_iter()
        .filter_map(|a| {
            let mut p = position.clone_box();
            p.play(&a).ok().map(|played| played.notation)
        })
        .find(|n| n.starts_with('N'));
    let Some(knight) = knight else {
        return (false, false, false);
    };
    let tried = |text: String| position.clone_box().play(&text).is_ok();
    (
        tried(format!("S{}", &knight[1..])),
        tried(format!("♘{}", &knight[1..])),
        tried(format!("My move: {knight}")),
    )
}

#[test]
fn each_games_help_names_the_notations_it_reads_within_78_columns() {
    let mut s = Install::new();
    for game in game::command::GAME_NAMES {
        s.send(ALICE, &format!("help {game}"), "");
        s.poll();
        let mails = s.take_outbox();
        let page = to(&mails, ALICE);
        assert_eq!(page.len(), 1, "{game}: {mails:#?}");
        let body = &page[0].body;
        let text = crate::common::joined(body);
        let (german, figurines, phrase) = reads(game);
        assert_eq!(
            text.contains("German piece letters"),
            german,
            "{game}: {body}"
        );
        assert_eq!(text.contains("figurines"), figurines, "{game}: {body}");
        assert_eq!(text.contains("My move:"), phrase, "{game}: {body}");
        // A game exported with comments, variations and a result, pasted
        // into preview or if, is read in every game.
        assert!(text.contains("Pasted PGN"), "{game}: {body}");
        for line in body.lines() {
            assert!(line.chars().count() <= 78, "{game}: {line:?}");
        }
    }
}
