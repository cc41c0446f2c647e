//! The computer player's tactics in chess: it finds mate in two in
//! classic positions, and its highest level beats its lowest. Depth and
//! node limits only, never the clock, so every run plays the same moves.

use computer::{self, Level, Limits, MATE_BOUND};
use rules::{self, Color, Outcome, Position};

fn chess(fen: &str) -> Box<dyn Position> {
    rules::game("chess").unwrap().position(fen, &[]).unwrap()
}

fn after(position: &dyn Position, action: &str) -> Box<dyn Position> {
    let mut next = position.clone_box();
    next.play(action).unwrap();
    next
}

fn mates(position: &dyn Position) -> bool {
    matches!(
        position.outcome(),
        Outcome::Won {
            ending: rules::Ending::Checkmate,
            ..
        }
    )
}

/// The moves that mate at once, by brute force.
fn mates_in_one(position: &dyn Position) -> Vec<String> {
    position
        .legal_actions()
        .into_iter()
        .filter(|m| mates(after(position, m).as_ref()))
        .collect()
}

/// The first moves that mate in two against every defence, by brute force.
fn mates_in_two(position: &dyn Position) -> Vec<String> {
    position
        .legal_actions()
        .into_iter()
        .filter(|m| {
            let next = after(position, m);
            !next.outcome().is_over()
                && next
                    .legal_actions()
                    .iter()
                    .all(|r| !mates_in_one(after(next.as_ref(), r).as_ref()).is_empty())
        })
        .collect()
}

/// Classic mates in two (the key move in the comment).
const MATES_IN_TWO: &[(&str, &str)] = &[
    // Légal's mate: 1.Bxf7+ Ke7 2.Nd5#.
    (
        "Légal",
        "r2qkbnr/ppp2ppp/2np4/4N3/2B1P3/2N5/PPPP1PPP/R1BbK2R w KQkq - 0 6",
    ),
    // 1.Nf6+ gxf6 2.Bxf7#.
    (
        "knight sacrifice",
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10",
    ),
    // The queen sacrifice before the smothered mate: 1.Qg8+ Rxg8 2.Nf7#.
    ("smothered mate", "5r1k/6pp/7N/3Q4/8/8/6PP/6K1 w - - 0 1"),
    // The back rank twice: 1.Rd8+ Rxd8 2.Rxd8#.
    ("back rank", "2r3k1/5ppp/8/8/8/8/3R1PPP/3R2K1 w - - 0 1"),
    // Black to play: 1...Rd1+ 2.Rxd1 Rxd1#.
    (
        "Black's back rank",
        "3r2k1/3r1ppp/8/8/8/8/5PPP/2R3K1 b - - 0 1",
    ),
];

#[test]
fn the_computer_finds_mate_in_two_in_classic_positions() {
    for (name, fen) in MATES_IN_TWO {
        let position = chess(fen);
        assert!(
            mates_in_one(position.as_ref()).is_empty(),
            "{name}: a mate in one, no test of mate in two"
        );
        let keys = mates_in_two(position.as_ref());
        assert!(!keys.is_empty(), "{name}: no mate in two");
        let found = computer::choose(position.as_ref(), Limits::depth(3)).unwrap();
        assert!(
            keys.contains(&found.notation),
            "{name}: the computer played {} (score {}), not one of {keys:?}",
            found.notation,
            found.score
        );
        assert!(found.score >= MATE_BOUND, "{name}: score {}", found.score);
    }
}

/// Level 5 without a clock: as deep as a node budget allows, which stands
/// in for its move time.
const HIGHEST_NODES: u64 = 15_000;

#[test]
fn the_highest_level_beats_the_lowest_in_a_short_chess_match() {
    let highest = Limits {
        depth: Level::HIGHEST.depth(),
        nodes: Some(HIGHEST_NODES),
        deadline: None,
    };
    let lowest = Limits::depth(Level::LOWEST.depth());
    // Two openings, each played with both colours.
    let openings: [&[&str]; 2] = [&["e4", "e5"], &["d4", "Nf6"]];
    let (mut high, mut low) = (0.0, 0.0);
    for opening in openings {
        for high_plays in [Color::White, Color::Black] {
            let mut position = rules::game("chess").unwrap().start(&[]).unwrap();
            for m in opening {
                position.play(m).unwrap();
            }
            let mut plies = 0;
            while !position.outcome().is_over() && plies < 300 {
                let limits = if position.to_act() == high_plays {
                    highest
                } else {
                    lowest
                };
                let found = computer::choose(position.as_ref(), limits).unwrap();
                position.play(&found.notation).unwrap();
                plies += 1;
            }
            let (h, l) = match position.outcome() {
                Outcome::Won { winner, .. } if winner == high_plays => (1.0, 0.0),
                Outcome::Won { .. } => (0.0, 1.0),
                _ => (0.5, 0.5),
            };
            eprintln!("{opening:?}, level 5 as {high_plays:?}: {h} in {plies} plies");
            high += h;
            low += l;
        }
    }
    assert!(high > low, "level 5 scored {high}, level 1 {low}");
}

#[test]
fn the_computer_takes_a_draw_when_lost_and_declines_it_when_winning() {
    // White has king and queen against the bare king.
    let position = chess("8/8/8/4k3/8/8/8/3QK3 b - - 0 1");
    let limits = Limits::depth(2);
    assert!(computer::accepts_draw(
        position.as_ref(),
        Color::Black,
        limits
    ));
    assert!(!computer::accepts_draw(
        position.as_ref(),
        Color::White,
        limits
    ));
}

#[test]
fn a_search_past_its_deadline_stops_inside_and_still_answers_legally() {
    // Without the deadline checked inside the search, 64 plies would never
    // finish; with it already passed, the search stops at its first look
    // at the clock (the same node every run) and answers all the same.
    for game in rules::registry() {
        let position = game.start(&[]).unwrap();
        let limits = Limits {
            depth: 64,
            nodes: None,
            deadline: Some(std::time::Instant::now()),
        };
        let found = computer::choose(position.as_ref(), limits).unwrap();
        assert!(found.depth < 64, "{}: depth {}", game.name(), found.depth);
        assert!(
            position.legal_actions().contains(&found.notation),
            "{}: {}",
            game.name(),
            found.notation
        );
    }
}
