//! Standings: points, then the tournament's ordered list of tiebreaks
//! (FIDE's Tie-Break Regulations 2024, article 4.2): tied players are
//! ranked by the first tiebreak, those still tied by the next, and so
//! on; a rank is shared only when points and the whole list are equal.
//!
//! Points are half points (`points_x2`). A Swiss bye scores a point; a
//! round robin's bye (sitting a round out against the dummy) scores
//! nothing, as in Berger tables. A forfeit win counts as a win. An
//! entrant whose results were annulled (withdrawn with annulled games,
//! see `withdrawal.rs`) scores nothing, byes included, has every
//! tiebreak 0, and counts in no one else's (their games are annulled).
//!
//! The tiebreaks (rulings where the regulations leave a choice):
//! - `DE`, direct encounter (article 6): among the players tied when it
//!   is reached, the points each scored in the games among them. It
//!   applies only when every two of them have met and every such game
//!   has a result (annulled ones do not count as met); otherwise it
//!   decides nothing (`-` in the crosstable, as for a player not tied
//!   when it is reached). Its value depends on the group, so it is
//!   computed as the list is walked, never for one player alone.
//! - `WIN` (7.1): the rounds in which the player got a win's points,
//!   played or not (forfeit wins, a Swiss bye). `WON` (7.2): the games
//!   won over the board.
//! - `SB` (9.1), Sonneborn-Berger, quarter points: for each game, the
//!   player's result times the opponent's score; `BH` (8.1), Buchholz,
//!   half points: the sum of the opponents' scores; `BH-C1` less the
//!   least significant term, `BH-M1` (Median-Buchholz) less the highest
//!   and the least significant.
//! - Unplayed rounds (article 16): a round the player did not play over
//!   the board (a Swiss bye, a forfeit either way, an annulled game, a
//!   Swiss round they were not paired in) counts, in their own SB and
//!   BH, a dummy opponent with the player's own points (16.4). An
//!   opponent's score is their points, except that their voluntary
//!   unplayed rounds at the end (a forfeit loss, or rounds not paired
//!   after withdrawing, from the last round back to the last round they
//!   did not leave unplayed) count as draws (16.3). A cut (Cut-1,
//!   Median-1) removes a voluntary unplayed round of the player's own
//!   first (a forfeit loss, a round after withdrawing: the lowest of
//!   them), else the lowest term (16.5). A round robin's round sat out
//!   is no round of the player's: it adds no term. Games still going
//!   count nothing yet; the rounds counted are those up to the last one
//!   with a game or a bye.

use super::{Entrant, GameResult, Kind, Record, Standing, Tiebreak};

/// Every entrant's standing, best first (points, then the tiebreaks of
/// `list` in order, then seed for the listing order of exact ties).
pub fn standings(kind: &Kind, record: &Record<'_>, list: &[Tiebreak]) -> Vec<Standing> {
    let n = record.entrants;
    let points: Vec<u32> = (0..n).map(|e| points_x2(kind, record, e)).collect();
    let rounds: Vec<Vec<Round>> = (0..n).map(|e| rounds_of(kind, record, e)).collect();
    let adjusted: Vec<u32> = (0..n)
        .map(|q| adjusted_score(points[q], &rounds[q]))
        .collect();
    let mut values: Vec<Vec<Option<u32>>> = (0..n)
        .map(|e| {
            list.iter()
                .map(|t| match t {
                    Tiebreak::DirectEncounter => None,
                    _ if annulled(record, e) => Some(0),
                    t => Some(value(*t, record, &points, &adjusted, &rounds, e)),
                })
                .collect()
        })
        .collect();
    let mut order: Vec<Entrant> = (0..n).collect();
    order.sort_by(|a, b| points[*b].cmp(&points[*a]).then(a.cmp(b)));
    let mut groups = split(order, |e| points[e]);
    for (level, t) in list.iter().enumerate() {
        let mut next = Vec::new();
        for mut group in groups {
            if group.len() < 2 {
                next.push(group);
                continue;
            }
            if *t == Tiebreak::DirectEncounter {
                if let Some(scores) = direct_encounter(record, &group) {
                    for (e, v) in group.iter().zip(scores) {
                        values[*e][level] = Some(v);
                    }
                }
            }
            group.sort_by(|a, b| values[*b][level].cmp(&values[*a][level]).then(a.cmp(b)));
            next.extend(split(group, |e| values[e][level]));
        }
        groups = next;
    }
    let mut table = Vec::with_capacity(n);
    for group in groups {
        let rank = table.len() + 1;
        for e in group {
            table.push(Standing {
                entrant: e,
                rank,
                points_x2: points[e],
                tiebreaks: list
                    .iter()
                    .copied()
                    .zip(values[e].iter().copied())
                    .collect(),
            });
        }
    }
    table
}

/// `order` cut into runs of equal `key`.
fn split<K: PartialEq>(order: Vec<Entrant>, key: impl Fn(Entrant) -> K) -> Vec<Vec<Entrant>> {
    let mut groups: Vec<Vec<Entrant>> = Vec::new();
    for e in order {
        match groups.last_mut() {
            Some(g) if key(g[0]) == key(e) => g.push(e),
            _ => groups.push(vec![e]),
        }
    }
    groups
}

/// The entrant's points in half points, as the standings count them.
pub(super) fn points_x2(kind: &Kind, record: &Record<'_>, entrant: Entrant) -> u32 {
    let games: u32 = record
        .games
        .iter()
        .filter_map(|g| g.points_x2_of(entrant))
        .sum();
    let byes = record.byes.iter().filter(|(_, e)| *e == entrant).count() as u32;
    match kind {
        Kind::Swiss { .. } if !annulled(record, entrant) => games + 2 * byes,
        _ => games,
    }
}

/// Whether the entrant withdrew and had their results annulled.
pub(super) fn annulled(record: &Record<'_>, entrant: Entrant) -> bool {
    record.has_withdrawn(entrant)
        && record
            .games
            .iter()
            .any(|g| g.opponent_of(entrant).is_some() && g.result == Some(GameResult::Annulled))
}

/// What one entrant did in one round, for the tiebreaks.
#[derive(Clone, Copy)]
enum Round {
    /// A game played over the board (or still going) against someone,
    /// with the entrant's result in half points (0 while going on).
    Played(Entrant, u32),
    /// No game over the board, with the points the round gave and
    /// whether it was the entrant's choice (a voluntary unplayed round:
    /// a forfeit loss, a Swiss round not paired in).
    Unplayed { points: u32, voluntary: bool },
}

/// The entrant's rounds up to the last one with a game or a bye (a
/// round robin's round sat out left out).
fn rounds_of(kind: &Kind, record: &Record<'_>, entrant: Entrant) -> Vec<Round> {
    let last = record
        .games
        .iter()
        .map(|g| g.round)
        .chain(record.byes.iter().map(|b| b.0))
        .max()
        .unwrap_or(0);
    let swiss = matches!(kind, Kind::Swiss { .. });
    (1..=last)
        .filter_map(|round| {
            let game = record
                .games
                .iter()
                .find(|g| g.round == round && g.opponent_of(entrant).is_some());
            match game {
                Some(g) if g.result.is_none_or(GameResult::played) => Some(Round::Played(
                    g.opponent_of(entrant)?,
                    g.points_x2_of(entrant)?,
                )),
                Some(g) => {
                    let lost = matches!(
                        (g.result, g.white == entrant),
                        (Some(GameResult::WhiteForfeits), true)
                            | (Some(GameResult::BlackForfeits), false)
                    );
                    Some(Round::Unplayed {
                        points: g.points_x2_of(entrant)?,
                        voluntary: lost,
                    })
                }
                None if record.byes.contains(&(round, entrant)) => {
                    swiss.then_some(Round::Unplayed {
                        points: 2,
                        voluntary: false,
                    })
                }
                None => swiss.then_some(Round::Unplayed {
                    points: 0,
                    voluntary: true,
                }),
            }
        })
        .collect()
}

/// An opponent's score as the tiebreaks count it: their points, their
/// voluntary unplayed rounds at the end counted as draws.
fn adjusted_score(points: u32, rounds: &[Round]) -> u32 {
    let terminal = rounds
        .iter()
        .rev()
        .take_while(|r| {
            matches!(
                r,
                Round::Unplayed {
                    voluntary: true,
                    ..
                }
            )
        })
        .map(|r| match r {
            Round::Unplayed { points, .. } => 1u32.saturating_sub(*points),
            Round::Played(..) => 0,
        })
        .sum::<u32>();
    points + terminal
}

/// One tiebreak's value (all but direct encounter, which is the group's).
fn value(
    t: Tiebreak,
    record: &Record<'_>,
    points: &[u32],
    adjusted: &[u32],
    rounds: &[Vec<Round>],
    e: Entrant,
) -> u32 {
    // An entrant beyond the list (a record the caller got wrong) counts
    // nothing rather than panicking.
    let score_of = |q: Entrant| match adjusted.get(q) {
        Some(&score) if !annulled(record, q) => score,
        _ => 0,
    };
    // The Buchholz terms: (value, voluntary unplayed round).
    let terms = || -> Vec<(u32, bool)> {
        rounds[e]
            .iter()
            .map(|r| match *r {
                Round::Played(q, _) => (score_of(q), false),
                Round::Unplayed { voluntary, .. } => (points[e], voluntary),
            })
            .collect()
    };
    match t {
        Tiebreak::DirectEncounter => 0,
        Tiebreak::Wins => rounds[e]
            .iter()
            .filter(|r| match r {
                Round::Played(_, p) | Round::Unplayed { points: p, .. } => *p == 2,
            })
            .count() as u32,
        Tiebreak::GamesWon => rounds[e]
            .iter()
            .filter(|r| matches!(r, Round::Played(_, 2)))
            .count() as u32,
        Tiebreak::SonnebornBerger => rounds[e]
            .iter()
            .map(|r| match *r {
                Round::Played(q, p) => p * score_of(q),
                Round::Unplayed { points: p, .. } => p * points[e],
            })
            .sum(),
        Tiebreak::Buchholz => terms().iter().map(|t| t.0).sum(),
        Tiebreak::BuchholzCut1 => cut(terms(), false),
        Tiebreak::BuchholzMedian1 => cut(terms(), true),
    }
}

/// The sum of `terms` less the least significant (a voluntary unplayed
/// round first, the lowest of them; else the lowest term) and, for
/// `median`, the highest too.
fn cut(mut terms: Vec<(u32, bool)>, median: bool) -> u32 {
    if median {
        if let Some(i) = (0..terms.len()).max_by_key(|&i| terms[i].0) {
            terms.remove(i);
        }
    }
    let low = (0..terms.len())
        .filter(|&i| terms[i].1)
        .min_by_key(|&i| terms[i].0)
        .or_else(|| (0..terms.len()).min_by_key(|&i| terms[i].0));
    if let Some(i) = low {
        terms.remove(i);
    }
    terms.iter().map(|t| t.0).sum()
}

/// Direct encounter among `group`: each one's points (half points) in
/// the games among them, when every two of them have met and every such
/// game has a result; `None` otherwise.
fn direct_encounter(record: &Record<'_>, group: &[Entrant]) -> Option<Vec<u32>> {
    let among = |g: &&super::RoundGame| group.contains(&g.white) && group.contains(&g.black);
    let games: Vec<_> = record.games.iter().filter(among).collect();
    if games
        .iter()
        .any(|g| g.result.is_none_or(|r| r == GameResult::Annulled))
    {
        return None;
    }
    for (i, a) in group.iter().enumerate() {
        for b in &group[i + 1..] {
            if !games.iter().any(|g| g.opponent_of(*a) == Some(*b)) {
                return None;
            }
        }
    }
    Some(
        group
            .iter()
            .map(|e| games.iter().filter_map(|g| g.points_x2_of(*e)).sum())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::RoundGame;
    use GameResult::*;
    use Tiebreak::*;

    fn game(round: u32, white: usize, black: usize, score: GameResult) -> RoundGame {
        RoundGame {
            round,
            white: white - 1,
            black: black - 1,
            result: Some(score),
        }
    }

    fn record<'a>(
        entrants: usize,
        games: &'a [RoundGame],
        byes: &'a [(u32, Entrant)],
        withdrawn: &'a [Entrant],
    ) -> Record<'a> {
        Record {
            entrants,
            ratings: &[1500; 8][..entrants],
            games,
            byes,
            withdrawn,
        }
    }

    /// (player number, points x2, tiebreak values, rank) for each
    /// standing.
    fn rows(table: &[Standing]) -> Vec<(usize, u32, Vec<Option<u32>>, usize)> {
        table
            .iter()
            .map(|s| {
                (
                    s.entrant + 1,
                    s.points_x2,
                    s.tiebreaks.iter().map(|t| t.1).collect(),
                    s.rank,
                )
            })
            .collect()
    }

    #[test]
    fn sonneborn_berger_breaks_a_round_robin_tie() {
        // 1 beats 2, draws 3, loses to 4; 2 beats 3 and 4; 3 draws 4.
        // Scores: 2 on 2; 1 and 4 on 1.5; 3 on 1. SB: 1 = 2 (beat 2) +
        // 0.5 (half of 3's 1) = 2.5; 4 = 1.5 (beat 1) + 0.5 = 2; 2 =
        // 1 + 1.5 = 2.5; 3 = 0.75 + 0.75 = 1.5. In quarter points: 10,
        // 8, 10, 6.
        let games = [
            game(1, 1, 4, BlackWins),
            game(1, 2, 3, WhiteWins),
            game(2, 4, 3, Draw),
            game(2, 1, 2, WhiteWins),
            game(3, 2, 4, WhiteWins),
            game(3, 3, 1, Draw),
        ];
        let table = standings(
            &Kind::RoundRobin { double: false },
            &record(4, &games, &[], &[]),
            &[SonnebornBerger],
        );
        assert_eq!(
            rows(&table),
            [
                (2, 4, vec![Some(10)], 1),
                (1, 3, vec![Some(10)], 2),
                (4, 3, vec![Some(8)], 3),
                (3, 2, vec![Some(6)], 4)
            ]
        );
        assert_eq!(table[0].tiebreaks[0].0, SonnebornBerger);
    }

    /// FIDE's default list for a round robin (DE, WIN, SB) on a table
    /// where each level breaks one tie, and a later level never
    /// overrules an earlier one.
    #[test]
    fn every_level_of_the_round_robin_list_decides_a_tie_in_order() {
        // Six players. 1 and 2 on 3.5: 1 beat 2 (DE). 3 and 4 on 2.5,
        // drew each other (DE equal): 3 won 2 games, 4 one (WIN), though
        // 4's SB is higher. 5 and 6 on 1.5, drew each other, one win
        // each: 5 beat 1 (3.5), 6 beat 4 (2.5), so SB 5 = 3.5 + 0.75 =
        // 4.25, 6 = 2.5 + 0.75 = 3.25.
        // SB of the others: 1 = 3.5 (2) + 2.5 (3) + 1.25 (4) + 1.5 (6) =
        // 8.75; 2 = 2.5 (3) + 1.25 (4) + 1.5 (5) + 1.5 (6) = 6.75; 3 =
        // 1.25 (4) + 1.5 (5) + 1.5 (6) = 4.25; 4 = 1.75 (1) + 1.75 (2) +
        // 1.25 (3) + 1.5 (5) = 6.25.
        let games = [
            game(1, 1, 2, WhiteWins),
            game(1, 3, 4, Draw),
            game(1, 5, 6, Draw),
            game(2, 1, 3, WhiteWins),
            game(2, 2, 5, WhiteWins),
            game(2, 4, 6, BlackWins),
            game(3, 4, 1, Draw),
            game(3, 6, 2, BlackWins),
            game(3, 3, 5, WhiteWins),
            game(4, 5, 1, WhiteWins),
            game(4, 2, 4, Draw),
            game(4, 6, 3, BlackWins),
            game(5, 1, 6, WhiteWins),
            game(5, 3, 2, BlackWins),
            game(5, 5, 4, BlackWins),
        ];
        let kind = Kind::RoundRobin { double: false };
        let list = Tiebreak::defaults(&kind);
        assert_eq!(list, [DirectEncounter, Wins, SonnebornBerger]);
        let table = standings(&kind, &record(6, &games, &[], &[]), &list);
        assert_eq!(
            rows(&table),
            [
                (1, 7, vec![Some(2), Some(3), Some(35)], 1),
                (2, 7, vec![Some(0), Some(3), Some(27)], 2),
                (3, 5, vec![Some(1), Some(2), Some(17)], 3),
                (4, 5, vec![Some(1), Some(1), Some(25)], 4),
                (5, 3, vec![Some(1), Some(1), Some(17)], 5),
                (6, 3, vec![Some(1), Some(1), Some(13)], 6),
            ]
        );
        // With SB alone, 4 (6.25) would rank above 3 (4.25).
        let sb = standings(&kind, &record(6, &games, &[], &[]), &[SonnebornBerger]);
        let place = |p: usize| sb.iter().position(|s| s.entrant == p - 1).unwrap();
        assert!(place(4) < place(3));
    }

    /// FIDE's default list for a Swiss (BH-C1, BH, DE, WIN) on an
    /// 8-player, 3-round table where each level breaks a tie and the last
    /// pair equal on the whole list shares a rank.
    #[test]
    fn every_level_of_the_swiss_list_decides_a_tie_in_order() {
        // All in half points. Points: 2 has 4; 1, 3, 4, 5, 6, 8 have 3;
        // 7 has 2. Buchholz of the six on 3 (the opponents' points):
        // 5: 2 (4) + 1 (3) + 6 (3) = 10, Cut-1 7; 3: 6 + 2 + 4 = 3 + 4 +
        // 3 = 10, Cut-1 7; 8: 4 + 6 + 1 = 9, Cut-1 6; 6: 3 + 8 + 5 = 9,
        // Cut-1 6; 1: 7 (2) + 5 + 8 = 8, Cut-1 6; 4: 8 + 7 (2) + 3 = 8,
        // Cut-1 6. So BH-C1 puts 5 and 3 first; BH then 8 and 6 before
        // 1 and 4; 5 and 3 never met (DE decides nothing), and 5 won a
        // game, 3 none (WIN); 8 beat 6 (DE); 1 and 4 never met and won
        // one game each: they share 6th.
        let games = [
            game(1, 8, 4, BlackWins),
            game(1, 7, 1, BlackWins),
            game(1, 6, 3, Draw),
            game(1, 5, 2, Draw),
            game(2, 6, 8, BlackWins),
            game(2, 5, 1, WhiteWins),
            game(2, 7, 4, WhiteWins),
            game(2, 3, 2, Draw),
            game(3, 7, 2, BlackWins),
            game(3, 4, 3, Draw),
            game(3, 5, 6, BlackWins),
            game(3, 1, 8, Draw),
        ];
        let kind = Kind::Swiss { rounds: 3 };
        let list = Tiebreak::defaults(&kind);
        let table = standings(&kind, &record(8, &games, &[], &[]), &list);
        assert_eq!(
            rows(&table),
            [
                (2, 4, vec![Some(6), Some(8), None, Some(1)], 1),
                (5, 3, vec![Some(7), Some(10), None, Some(1)], 2),
                (3, 3, vec![Some(7), Some(10), None, Some(0)], 3),
                (8, 3, vec![Some(6), Some(9), Some(2), Some(1)], 4),
                (6, 3, vec![Some(6), Some(9), Some(0), Some(1)], 5),
                (1, 3, vec![Some(6), Some(8), None, Some(1)], 6),
                (4, 3, vec![Some(6), Some(8), None, Some(1)], 6),
                (7, 2, vec![Some(7), Some(10), None, Some(1)], 8),
            ]
        );
    }

    #[test]
    fn exact_ties_share_a_rank_only_when_the_whole_list_is_equal() {
        // Three players, every game drawn; each sat one round out.
        let games = [
            game(1, 2, 3, Draw),
            game(2, 3, 1, Draw),
            game(3, 1, 2, Draw),
        ];
        let byes = [(1, 0), (2, 1), (3, 2)];
        let kind = Kind::RoundRobin { double: false };
        let table = standings(
            &kind,
            &record(3, &games, &byes, &[]),
            &Tiebreak::defaults(&kind),
        );
        let equal = vec![Some(2), Some(0), Some(4)];
        assert_eq!(
            rows(&table),
            [
                (1, 2, equal.clone(), 1),
                (2, 2, equal.clone(), 1),
                (3, 2, equal, 1)
            ]
        );
        // A direct encounter among players who have not all met decides
        // nothing: 1 beat 2, 3 beat 2; 1 and 3, on 1 point each, are
        // still playing each other.
        let games = [
            game(1, 1, 2, WhiteWins),
            game(2, 2, 3, BlackWins),
            RoundGame {
                round: 3,
                white: 2,
                black: 0,
                result: None,
            },
        ];
        let table = standings(&kind, &record(3, &games, &[], &[]), &[DirectEncounter]);
        assert_eq!(
            rows(&table),
            [
                (1, 2, vec![None], 1),
                (3, 2, vec![None], 1),
                (2, 0, vec![None], 3)
            ]
        );
    }

    #[test]
    fn buchholz_counts_unplayed_rounds_against_a_dummy_with_the_players_points() {
        // Five players, three rounds:
        // R1 1-3 1-0, 4-2 draw, bye 5; R2 1-4 1-0, 3-5 lost by 3 by
        // forfeit, bye 2; R3 5-1 draw, 2-3 1-0, bye 4.
        // Half points: 1 = 5, 2 = 5, 3 = 0, 4 = 3, 5 = 5. No one's
        // voluntary unplayed round is at the end, so opponents count
        // their points.
        // Terms (a dummy with the player's own points for a round not
        // played; * voluntary: 3's forfeit):
        // 1: 0 (3), 3 (4), 5 (5): BH 8, Cut-1 8, Median-1 3.
        // 2: 3 (4), 5 (bye), 0 (3): BH 8, Cut-1 8, Median-1 3.
        // 3: 5 (1), 0* (forfeit), 5 (2): BH 10, Cut-1 10 (the forfeit
        //    is cut first), Median-1 5.
        // 4: 5 (2), 5 (1), 3 (bye): BH 13, Cut-1 10, Median-1 5.
        // 5: 5 (bye), 5 (forfeit win), 5 (1): BH 15, Cut-1 10,
        //    Median-1 5.
        // WIN: 1 two wins; 2 a bye and a win; 5 a bye and a forfeit win;
        // 4 a bye; 3 none.
        let games = [
            game(1, 1, 3, WhiteWins),
            game(1, 4, 2, Draw),
            game(2, 1, 4, WhiteWins),
            game(2, 3, 5, WhiteForfeits),
            game(3, 5, 1, Draw),
            game(3, 2, 3, WhiteWins),
        ];
        let byes = [(1, 4), (2, 1), (3, 3)];
        let kind = Kind::Swiss { rounds: 3 };
        let list = [BuchholzCut1, Buchholz, BuchholzMedian1, Wins];
        let table = standings(&kind, &record(5, &games, &byes, &[]), &list);
        assert_eq!(
            rows(&table),
            [
                (5, 5, vec![Some(10), Some(15), Some(5), Some(2)], 1),
                (1, 5, vec![Some(8), Some(8), Some(3), Some(2)], 2),
                (2, 5, vec![Some(8), Some(8), Some(3), Some(2)], 2),
                (4, 3, vec![Some(10), Some(13), Some(5), Some(1)], 4),
                (3, 0, vec![Some(10), Some(10), Some(5), Some(0)], 5),
            ]
        );
        assert_eq!(
            Tiebreak::defaults(&kind),
            [BuchholzCut1, Buchholz, DirectEncounter, Wins]
        );
    }

    #[test]
    fn an_opponents_rounds_left_unplayed_after_withdrawing_count_as_draws() {
        // Four players, three rounds. R1 1-2 1-0, 3-4 1-0; R2 1-3 draw,
        // 2-4 1-0; then 4 withdraws and is not paired in R3 (a voluntary
        // unplayed round at the end): R3 2-3 draw, bye 1.
        // 4's points: 0; as the tiebreaks count it, 0 + a draw = 1.
        // 3's Buchholz: 4 (1) + 1 (2 + 1 + 2 = 5) + 2 (0 + 2 + 1 = 3) =
        // 9, in half points; with 4 counted at 0 it would be 8.
        let games = [
            game(1, 1, 2, WhiteWins),
            game(1, 3, 4, WhiteWins),
            game(2, 1, 3, Draw),
            game(2, 2, 4, WhiteWins),
            game(3, 2, 3, Draw),
        ];
        let byes = [(3, 0)];
        let table = standings(
            &Kind::Swiss { rounds: 3 },
            &record(4, &games, &byes, &[3]),
            &[Buchholz],
        );
        let three = table.iter().find(|s| s.entrant == 2).unwrap();
        assert_eq!((three.points_x2, three.tiebreaks[0].1), (4, Some(9)));
    }

    #[test]
    fn annulled_results_count_for_no_one() {
        // 4 withdrew early: its games (with 1 and 3) are annulled, and its
        // round-3 bye with them. What counts: 3 beat 2, 1 drew 2.
        let games = [
            game(1, 1, 4, Annulled),
            game(1, 2, 3, BlackWins),
            game(2, 4, 3, Annulled),
            game(2, 1, 2, Draw),
        ];
        let byes = [(3, 3)];
        let swiss = Kind::Swiss { rounds: 3 };
        let table = standings(
            &swiss,
            &record(4, &games, &byes, &[3]),
            &Tiebreak::defaults(&swiss),
        );
        let four = table.iter().find(|s| s.entrant == 3).unwrap();
        assert_eq!(
            four.tiebreaks.iter().map(|t| t.1).collect::<Vec<_>>(),
            [Some(0), Some(0), None, Some(0)]
        );
        assert_eq!(four.points_x2, 0);
        assert_eq!(table.last().unwrap().entrant, 3);
        let rr = standings(
            &Kind::RoundRobin { double: false },
            &record(4, &games, &[], &[3]),
            &[SonnebornBerger],
        );
        // 3's SB: its win over 2 (2 half points) times 2's score (the
        // draw, 1 half point) = 2 quarter points; nothing from 4.
        let three = rr.iter().find(|s| s.entrant == 2).unwrap();
        assert_eq!((three.points_x2, three.tiebreaks[0].1), (2, Some(2)));
    }
}
