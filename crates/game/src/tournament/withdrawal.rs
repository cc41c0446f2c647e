//! What a withdrawal (or a forfeit for silence, which ends a player's
//! tournament the same way) does to the player's games.
//!
//! Rulings:
//! - In a Swiss, the player's finished games stand (later rounds were
//!   paired on them) and every game of theirs still going is lost by
//!   forfeit (the opponent scores 1, unrated); they are paired no more.
//! - In a round robin, after the ICCF's rules for all-play-all sections:
//!   a player who leaves before half of their games are finished has
//!   every result annulled (their finished games too: they count for no
//!   one, and the player drops out of the tiebreaks); a player who leaves
//!   later loses every game still going by forfeit (unrated) and keeps
//!   their finished results. "Their games" are `n - 1` (twice that in a
//!   double round robin); "finished" counts the games with a result
//!   except those the player lost by forfeit: the forfeit for silence
//!   that ends their tournament is not a finished game of theirs. So a
//!   player of a 5-player round robin forfeited for silence with 1 of 4
//!   games played has all results annulled (1 < 2); with 2 played, the
//!   2 stand and the other 2 are lost by forfeit.

use super::{Entrant, GameResult, Kind, Record};

/// Whether the entrant's withdrawal annuls every result of theirs (a
/// round robin left before half their games were finished).
pub fn annuls(kind: &Kind, record: &Record<'_>, entrant: Entrant) -> bool {
    match *kind {
        Kind::Swiss { .. } => false,
        Kind::RoundRobin { double } => {
            let finished = record
                .games
                .iter()
                .filter(|g| g.opponent_of(entrant).is_some())
                .filter(|g| match g.result {
                    None | Some(GameResult::Annulled) => false,
                    Some(GameResult::WhiteForfeits) => g.white != entrant,
                    Some(GameResult::BlackForfeits) => g.black != entrant,
                    Some(_) => true,
                })
                .count();
            let cycle = record.entrants.saturating_sub(1);
            let total = if double { 2 * cycle } else { cycle };
            2 * finished < total
        }
    }
}

/// The games (by index in `record.games`) that the entrant's withdrawal
/// changes, with their new score: all `Annulled` (when it [`annuls`]),
/// or the unfinished ones forfeited by the entrant. Games already
/// annulled are left out.
pub fn withdraw(kind: &Kind, record: &Record<'_>, entrant: Entrant) -> Vec<(usize, GameResult)> {
    let theirs = || {
        record
            .games
            .iter()
            .enumerate()
            .filter(move |(_, g)| g.opponent_of(entrant).is_some())
    };
    if annuls(kind, record, entrant) {
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
    fn in_a_swiss_finished_games_stand_and_the_rest_are_forfeited() {
        // Round 1 finished, round 2 going on, in a 5-round Swiss: too few
        // for a round robin's half, yet the win stands and the game in
        // play is lost by forfeit.
        let games = [
            RoundGame {
                round: 1,
                white: 0,
                black: 1,
                result: Some(GameResult::WhiteWins),
            },
            RoundGame {
                round: 2,
                white: 2,
                black: 0,
                result: None,
            },
        ];
        let changes = withdraw(&Kind::Swiss { rounds: 5 }, &record(&games), 0);
        assert_eq!(changes, [(1, GameResult::BlackForfeits)]);
    }

    #[test]
    fn a_game_the_player_lost_by_forfeit_is_not_a_finished_one() {
        // Two rounds drawn and a third lost by forfeit (for silence):
        // two of five finished, so everything is annulled.
        let mut games = six_player_games(2);
        let third = games
            .iter_mut()
            .find(|g| g.round == 3 && g.opponent_of(0).is_some())
            .unwrap();
        third.result = Some(if third.white == 0 {
            GameResult::WhiteForfeits
        } else {
            GameResult::BlackForfeits
        });
        let changes = withdraw(&Kind::RoundRobin { double: false }, &record(&games), 0);
        assert_eq!(changes.len(), 5, "{changes:?}");
        assert!(changes.iter().all(|(_, s)| *s == GameResult::Annulled));
        // A game their opponent forfeited is a finished one of theirs.
        let third = games
            .iter_mut()
            .find(|g| g.round == 3 && g.opponent_of(0).is_some())
            .unwrap();
        third.result = Some(if third.white == 0 {
            GameResult::BlackForfeits
        } else {
            GameResult::WhiteForfeits
        });
        let changes = withdraw(&Kind::RoundRobin { double: false }, &record(&games), 0);
        assert_eq!(changes.len(), 2, "{changes:?}");
    }
}
