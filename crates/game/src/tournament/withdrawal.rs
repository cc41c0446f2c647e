//! What a withdrawal (or a forfeit for silence, which ends a player's
//! tournament the same way) does to the player's games.
//!
//! Ruling, after the ICCF's tournament rules: a player who withdraws
//! before half of their games are finished has every result annulled
//! (their finished games too: they count for no one, and the player
//! drops out of the tiebreaks); a player who withdraws later loses every
//! game still going by forfeit (unrated) and keeps their finished
//! results. "Their games" are the whole tournament's: `n - 1` in a round
//! robin (twice that in a double one), the number of rounds in a Swiss,
//! where a bye counts as a finished game.

use super::{Entrant, GameResult, Kind, Record};

/// The games (by index in `record.games`) that the entrant's withdrawal
/// changes, with their new score: all `Annulled`, or the unfinished ones
/// forfeited by the entrant. Games already annulled are left out.
pub fn withdraw(kind: &Kind, record: &Record<'_>, entrant: Entrant) -> Vec<(usize, GameResult)> {
    let theirs = || {
        record
            .games
            .iter()
            .enumerate()
            .filter(move |(_, g)| g.opponent_of(entrant).is_some())
    };
    let finished = theirs()
        .filter(|(_, g)| g.result.is_some_and(|s| s != GameResult::Annulled))
        .count();
    let byes = record.byes.iter().filter(|(_, e)| *e == entrant).count();
    let (total, finished) = match *kind {
        Kind::RoundRobin { double } => {
            let cycle = record.entrants.saturating_sub(1);
            (if double { 2 * cycle } else { cycle }, finished)
        }
        Kind::Swiss { rounds } => (rounds as usize, finished + byes),
    };
    if 2 * finished < total {
        theirs()
            .filter(|(_, g)| g.result != Some(GameResult::Annulled))
            .map(|(i, _)| (i, GameResult::Annulled))
            .collect()
    } else {
        theirs()
            .filter(|(_, g)| g.result.is_none())
            .map(|(i, g)| {
                let forfeit = if g.white == entrant {
                    GameResult::WhiteForfeits
                } else {
                    GameResult::BlackForfeits
                };
                (i, forfeit)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{round_robin, RoundGame};

    /// A 6-player round robin's games, the first `finished` rounds
    /// drawn.
    fn six_player_games(finished: u32) -> Vec<RoundGame> {
        round_robin(6, false)
            .iter()
            .zip(1..)
            .flat_map(|(r, n)| {
                r.pairings.iter().map(move |p| RoundGame {
                    round: n,
                    white: p.white,
                    black: p.black,
                    result: (n <= finished).then_some(GameResult::Draw),
                })
            })
            .collect()
    }

    fn record(games: &[RoundGame]) -> Record<'_> {
        Record {
            entrants: 6,
            ratings: &[1500; 6],
            games,
            byes: &[],
            withdrawn: &[],
        }
    }

    #[test]
    fn withdrawing_before_half_the_games_annuls_every_result() {
        // Two of five games finished: fewer than half.
        let games = six_player_games(2);
        let changes = withdraw(&Kind::RoundRobin { double: false }, &record(&games), 0);
        assert_eq!(changes.len(), 5);
        assert!(changes.iter().all(|(_, s)| *s == GameResult::Annulled));
        assert!(changes
            .iter()
            .all(|(i, _)| games[*i].opponent_of(0).is_some()));
    }

    #[test]
    fn withdrawing_after_half_the_games_forfeits_the_rest() {
        // Three of five finished: the last two are lost by forfeit.
        let games = six_player_games(3);
        let changes = withdraw(&Kind::RoundRobin { double: false }, &record(&games), 3);
        assert_eq!(changes.len(), 2);
        for (i, score) in changes {
            let game = games[i];
            assert!(game.result.is_none());
            let expected = if game.white == 3 {
                GameResult::WhiteForfeits
            } else {
                GameResult::BlackForfeits
            };
            assert_eq!(score, expected);
        }
    }

    #[test]
    fn in_a_swiss_a_bye_counts_as_a_finished_game() {
        // Round 1 a bye, round 2 a game finished, round 3 going on: two of
        // four rounds finished is half, so the results stand.
        let games = [
            RoundGame {
                round: 2,
                white: 0,
                black: 1,
                result: Some(GameResult::WhiteWins),
            },
            RoundGame {
                round: 3,
                white: 2,
                black: 0,
                result: None,
            },
        ];
        let byes = [(1, 0)];
        let record = Record {
            byes: &byes,
            ..record(&games)
        };
        let changes = withdraw(&Kind::Swiss { rounds: 4 }, &record, 0);
        assert_eq!(changes, [(1, GameResult::BlackForfeits)]);
        let changes = withdraw(&Kind::Swiss { rounds: 5 }, &record, 0);
        assert_eq!(
            changes,
            [(0, GameResult::Annulled), (1, GameResult::Annulled)]
        );
    }
}
