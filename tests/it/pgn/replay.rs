//! Every game's record replays: the move text of a game's
//! PGN record, as the server writes it, fed to `<game> preview new`,
//! reproduces the game's position. Random games of all eight games are
//! played to their end or a number of plies; the record is written by
//! `render::record` from the plies as the server stores them (seat, then
//! canonical notation); its move text is read back by the command parser
//! and played by the moves reader `preview` uses (`play_move_words`).
//! The mail-level tests of the same (a Shadow game with reveals) are in
//! `mail::shadow`.

use game::command::{self, Command, GameCommand, PreviewFrom, MAX_LINE_BYTES};
use game::render::{self, MoveRecord, RecordTags};
use pbmchess::server::play_move_words;
use proptest::prelude::*;
use rules::{self, Game, Outcome, Position};

/// Play `choices` (each picks among the legal actions) from the start of
/// `game`; the plies as the server stores them, and the final position.
fn random_game(game: &'static dyn Game, choices: &[usize]) -> (Vec<MoveRecord>, Box<dyn Position>) {
    let mut p = game.start(&[]).expect("start");
    let mut plies = Vec::new();
    for (i, &choice) in choices.iter().enumerate() {
        if p.outcome().is_over() {
            break;
        }
        let actions = p.legal_actions();
        if actions.is_empty() {
            break;
        }
        let seat = p.to_act();
        let played = p
            .play(&actions[choice % actions.len()])
            .expect("a legal action plays");
        plies.push(MoveRecord {
            ply: i as u32 + 1,
            seat,
            notation: played.notation,
            mark: "",
            events: played.events,
        });
    }
    (plies, p)
}

/// The record's result, as the server writes it for a board in `p`.
fn result(p: &dyn Position) -> &'static str {
    match p.outcome() {
        Outcome::Ongoing => "*",
        Outcome::Won {
            winner: rules::Color::White,
            ..
        } => "1-0",
        Outcome::Won { .. } => "0-1",
        Outcome::Drawn { .. } => "1/2-1/2",
    }
}

/// The move words a `preview new` command carrying `movetext` reads: the
/// command parser's list when the command fits one command line (the
/// parser reads at most `MAX_LINE_BYTES`), else the words split at
/// whitespace, as the parser splits a list without commas.
fn preview_words(game: &str, movetext: &str) -> Vec<String> {
    let words: Vec<&str> = movetext.split_whitespace().collect();
    let line = format!("{game} preview new {}", words.join(" "));
    if line.len() > MAX_LINE_BYTES {
        return words.iter().map(|w| w.to_string()).collect();
    }
    let parsed = command::parse_line(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
    match parsed.command {
        Command::Game {
            command:
                GameCommand::Preview {
                    from: PreviewFrom::Start { options },
                    moves,
                },
            ..
        } => {
            assert!(options.is_empty(), "{line}");
            moves
        }
        other => panic!("{line} read as {other:?}"),
    }
}

/// Write the record of a random game, read its move text back as
/// `preview new` does, and compare the positions.
fn replays(game: &'static dyn Game, choices: &[usize]) {
    let (plies, end) = random_game(game, choices);
    let tags = RecordTags {
        event: format!("{} Board 101", game.title()),
        site: "PBM <pbm@games.test>".into(),
        date: "2026.11.26".into(),
        round: "-".into(),
        white: "alice".into(),
        black: "bob".into(),
        result: result(end.as_ref()).into(),
        extra: vec![("Variant".into(), game.title().into())],
    };
    let pgn = render::record(&tags, &plies);
    let movetext = pgn.split_once("\n\n").expect("tags, then moves").1;
    for line in movetext.lines() {
        assert!(line.chars().count() <= 78, "{}: {line}", game.name());
        assert!(
            !line.ends_with('.'),
            "{}: a number ends {line}",
            game.name()
        );
    }
    let words = preview_words(game.name(), movetext);
    let mut replayed = game.start(&[]).expect("start");
    let played = play_move_words(replayed.as_mut(), 0, &words)
        .unwrap_or_else(|e| panic!("{} does not replay: {e}\n{pgn}", game.name()));
    assert_eq!(played.len(), plies.len(), "{}: {pgn}", game.name());
    for ((_, seat, p), record) in played.iter().zip(&plies) {
        assert_eq!(p.notation, record.notation, "{}: {pgn}", game.name());
        assert_eq!(*seat, record.seat, "{}: {pgn}", game.name());
    }
    assert_eq!(
        replayed.to_text(),
        end.to_text(),
        "{}: the record replays to another position\n{pgn}",
        game.name()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn every_games_pgn_move_text_replays_through_preview_new(
        choices in proptest::collection::vec(any::<usize>(), 0..90)
    ) {
        for &game in rules::registry() {
            replays(game, &choices);
        }
    }
}

/// Shadow Chess games long enough to hold reveals, many of them decisions
/// (the random games above reach few): 40 seeded games of 120 plies.
#[test]
fn long_shadow_games_with_decisions_replay() {
    let game = rules::game("shadowchess").unwrap();
    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    let mut decisions = 0;
    for _ in 0..40 {
        let choices: Vec<usize> = (0..120).map(|_| rng.usize(..)).collect();
        let (plies, _) = random_game(game, &choices);
        decisions += plies
            .iter()
            .filter(|p| render::is_decision(&p.notation))
            .count();
        replays(game, &choices);
    }
    assert!(decisions > 0, "no game reached a decision");
}

/// The reader skips a record's numbers (also glued to a move) and result,
/// and reads a reveal in any of its spellings, two words included.
#[test]
fn preview_reads_numbers_results_and_every_spelling_of_a_reveal() {
    let game = rules::game("shadowchess").unwrap();
    let start = ["e4/e2e3", "d5/d7d6", "exd5/d2d3"];
    for reveal in [
        &["reveal", "d6"][..],
        &["reveal_d6"][..],
        &["reveal-d6"][..],
        &["Reveal", "D6"][..],
    ] {
        let mut words: Vec<String> = vec!["1.".into()];
        words.extend(start.iter().map(|m| m.to_string()));
        words.insert(3, "2.".into());
        words.extend(reveal.iter().map(|w| w.to_string()));
        words.push("2...Nf6/g8f6".into());
        words.push("*".into());
        let mut p = game.start(&[]).unwrap();
        let played =
            play_move_words(p.as_mut(), 0, &words).unwrap_or_else(|e| panic!("{words:?}: {e}"));
        let notations: Vec<&str> = played.iter().map(|(_, _, p)| p.notation.as_str()).collect();
        assert_eq!(
            notations,
            ["e4/e2e3", "d5/d7d6", "exd5/d2d3", "reveal d6", "Nf6/g8f6"],
            "{words:?}"
        );
        let plies: Vec<u32> = played.iter().map(|(n, _, _)| *n).collect();
        assert_eq!(plies, [1, 2, 3, 4, 5]);
    }
    // A move that cannot be played is still refused by its place.
    let mut p = game.start(&[]).unwrap();
    let words: Vec<String> = ["1.", "e4/e2e3", "reveal", "c3"]
        .iter()
        .map(|w| w.to_string())
        .collect();
    let refusal = play_move_words(p.as_mut(), 0, &words).unwrap_err();
    assert!(
        refusal.starts_with("Move 2 of your preview (reveal, which would be ply 2)"),
        "{refusal}"
    );
}
