//! The computer player's strength, measured without a clock (depth limits
//! only, so every run plays the same games): against a player who picks
//! uniformly random legal actions, and level 5 against level 1.
//!
//! CI runs a small sample per game; `cargo test -p pbmchess-computer
//! --test it strength -- --ignored` runs the full hundred games per game.

use computer::{self, Level, Limits};
use rules::{self, Color, Outcome, Position};

/// Plies after which an unfinished game counts as a draw (the 50-move
/// rule ends every game long before in practice).
const MAX_PLIES: usize = 1000;

enum Player {
    Random(fastrand::Rng),
    Computer(Limits),
}

impl Player {
    fn act(&mut self, position: &dyn Position) -> String {
        match self {
            Player::Random(dice) => {
                let actions = position.legal_actions();
                actions[dice.usize(..actions.len())].clone()
            }
            Player::Computer(limits) => {
                computer::choose(position, *limits)
                    .expect("an action while the game goes on")
                    .notation
            }
        }
    }
}

/// Play one game; White's score (1, ½ as 0.5, 0) and the plies played.
fn play(game: &str, mut white: Player, mut black: Player) -> (f64, usize) {
    let mut position = rules::game(game).unwrap().start(&[]).unwrap();
    let mut plies = 0;
    loop {
        match position.outcome() {
            Outcome::Won { winner, .. } => {
                return (if winner == Color::White { 1.0 } else { 0.0 }, plies)
            }
            Outcome::Drawn { .. } => return (0.5, plies),
            Outcome::Ongoing if plies >= MAX_PLIES => return (0.5, plies),
            Outcome::Ongoing => {}
        }
        let player = match position.to_act() {
            Color::White => &mut white,
            Color::Black => &mut black,
        };
        let action = player.act(position.as_ref());
        position
            .play(&action)
            .unwrap_or_else(|e| panic!("{game}: {action} refused: {e}"));
        plies += 1;
    }
}

/// The lowest level's score against the random player over `games`
/// games, alternating colours.
fn score_against_random(game: &str, games: u64) -> f64 {
    let limits = Limits::depth(Level::LOWEST.depth());
    let mut score = 0.0;
    for n in 0..games {
        // Seeded, so that the random player's games are the same on every run.
        let dice = fastrand::Rng::with_seed(n + 1);
        let (s, plies) = if n % 2 == 0 {
            play(game, Player::Computer(limits), Player::Random(dice))
        } else {
            let (s, plies) = play(game, Player::Random(dice), Player::Computer(limits));
            (1.0 - s, plies)
        };
        eprintln!("{game} game {n}: computer scores {s} in {plies} plies");
        score += s;
    }
    score / games as f64
}

fn required(game: &str) -> f64 {
    match game {
        "chess" | "doublechess" => 0.95,
        _ => 0.90,
    }
}

#[test]
fn the_lowest_level_beats_a_random_player_in_every_game() {
    for game in rules::registry() {
        let score = score_against_random(game.name(), 10);
        assert!(
            score >= required(game.name()),
            "{}: the computer scored only {score} against random moves",
            game.name()
        );
    }
}

#[test]
#[ignore = "the full sample: a hundred games per game"]
fn the_lowest_level_beats_a_random_player_in_every_game_over_a_hundred_games() {
    for game in rules::registry() {
        let score = score_against_random(game.name(), 100);
        eprintln!("{}: {score}", game.name());
        assert!(
            score >= required(game.name()),
            "{}: the computer scored only {score} against random moves",
            game.name()
        );
    }
}
