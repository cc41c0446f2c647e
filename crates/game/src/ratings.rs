//! Elo ratings per game, pbmserv style (docs/commands.md §4).
//!
//! Everyone starts at 1600 and is provisional until 20 finished rated games.
//! K = 32 for everyone; provisional only marks the standings. Draws are
//! rated; forfeits are rated as losses. Ratings are whole numbers, rounded
//! after each game.

/// A new player's rating.
pub const START_RATING: i64 = 1600;
/// Rated games after which a rating stops being provisional.
pub const PROVISIONAL_GAMES: i64 = 20;
const K: f64 = 32.0;

/// The result of a rated two-player game from the first player's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Win,
    Draw,
    Loss,
}

impl Score {
    fn points(self) -> f64 {
        match self {
            Score::Win => 1.0,
            Score::Draw => 0.5,
            Score::Loss => 0.0,
        }
    }
}

/// The expected score of a player rated `a` against one rated `b`.
pub fn expected(a: i64, b: i64) -> f64 {
    1.0 / (1.0 + 10f64.powf((b - a) as f64 / 400.0))
}

/// New ratings of players rated `a` and `b` after `a` scored `score`.
pub fn update(a: i64, b: i64, score: Score) -> (i64, i64) {
    let ea = expected(a, b);
    let delta = K * (score.points() - ea);
    let new_a = (a as f64 + delta).round() as i64;
    let new_b = (b as f64 - delta).round() as i64;
    (new_a, new_b)
}

/// `alice's rating went up from 1600 to 1616.`
pub fn change_sentence(userid: &str, old: i64, new: i64) -> String {
    use std::cmp::Ordering::*;
    match new.cmp(&old) {
        Greater => format!("{userid}'s rating went up from {old} to {new}."),
        Less => format!("{userid}'s rating went down from {old} to {new}."),
        Equal => format!("{userid}'s rating stayed at {old}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_players_move_sixteen_points() {
        assert_eq!(update(1600, 1600, Score::Win), (1616, 1584));
        assert_eq!(update(1600, 1600, Score::Loss), (1584, 1616));
        assert_eq!(update(1600, 1600, Score::Draw), (1600, 1600));
    }

    #[test]
    fn upsets_move_more_than_expected_results() {
        let (weak_up, _) = update(1400, 1800, Score::Win);
        let (strong_up, _) = update(1800, 1400, Score::Win);
        assert_eq!(weak_up, 1400 + 29);
        assert_eq!(strong_up, 1800 + 3);
        // A draw against a stronger player gains.
        assert!(update(1400, 1800, Score::Draw).0 > 1400);
    }

    #[test]
    fn sentences_say_the_direction() {
        assert_eq!(
            change_sentence("alice", 1600, 1616),
            "alice's rating went up from 1600 to 1616."
        );
        assert_eq!(
            change_sentence("bob", 1600, 1584),
            "bob's rating went down from 1600 to 1584."
        );
        assert_eq!(
            change_sentence("c", 1600, 1600),
            "c's rating stayed at 1600."
        );
    }
}
