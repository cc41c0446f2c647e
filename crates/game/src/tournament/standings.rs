//! Standings: points, then tiebreaks, with shared ranks for exact ties.
//!
//! Points are half points (`points_x2`). A Swiss bye scores a point; a
//! round robin's bye (sitting a round out against the dummy) scores
//! nothing, as in Berger tables. A forfeit win counts as a win. An
//! entrant whose results were annulled (withdrawn with annulled games,
//! see `withdrawal.rs`) scores nothing, byes included, has no tiebreaks,
//! and counts in no one else's (their games are annulled).
//!
//! Tiebreaks (rulings where FIDE has variants):
//! - Round robin: Sonneborn-Berger (`"SB"`, in quarter points): the
//!   scores of the opponents beaten plus half the scores of those drawn;
//!   a forfeit win counts as a win, annulled games not at all.
//! - Swiss: Buchholz (`"Buch"`, half points), the sum of the opponents'
//!   scores, and Median-Buchholz (`"MBuch"`), the same without the
//!   highest and the lowest term. Unplayed games follow FIDE's "virtual
//!   opponent" rule (the tiebreak rules of 2009 to 2023): in an
//!   opponent's score, every round they did not play over the board (a
//!   bye, a forfeit either way, an annulled game, a round after they
//!   withdrew) counts as a draw; and a round the player did not play
//!   themselves counts, in their own Buchholz, a virtual opponent's
//!   score: the player's points before that round, plus the opposite of
//!   their result in that round, plus a draw for every round left
//!   (`SPR + (1 - SfPR) + 0.5 (n - R)`, n the number of rounds). Games
//!   still going count nothing yet; the rounds counted are those up to
//!   the last one with a game or a bye.

use super::{Entrant, GameResult, Kind, Record, Standing};

/// Every entrant's standing, best first (points, then the tiebreaks in
/// order, then seed for the listing order of exact ties).
pub fn standings(kind: &Kind, record: &Record<'_>) -> Vec<Standing> {
    let points: Vec<u32> = (0..record.entrants)
        .map(|e| points_x2(kind, record, e))
        .collect();
    let mut table: Vec<Standing> = (0..record.entrants)
        .map(|entrant| Standing {
            entrant,
            rank: 0,
            points_x2: points[entrant],
            tiebreaks: match kind {
                _ if annulled(record, entrant) => zero_tiebreaks(kind),
                Kind::RoundRobin { .. } => {
                    vec![("SB", sonneborn_berger_x4(record, &points, entrant))]
                }
                Kind::Swiss { rounds } => buchholz(record, *rounds, entrant),
            },
        })
        .collect();
    let key = |s: &Standing| {
        (
            s.points_x2,
            s.tiebreaks.iter().map(|t| t.1).collect::<Vec<_>>(),
        )
    };
    table.sort_by(|a, b| key(b).cmp(&key(a)).then(a.entrant.cmp(&b.entrant)));
    for i in 0..table.len() {
        table[i].rank = if i > 0 && key(&table[i]) == key(&table[i - 1]) {
            table[i - 1].rank
        } else {
            i + 1
        };
    }
    table
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

fn zero_tiebreaks(kind: &Kind) -> Vec<(&'static str, u32)> {
    match kind {
        Kind::RoundRobin { .. } => vec![("SB", 0)],
        Kind::Swiss { .. } => vec![("Buch", 0), ("MBuch", 0)],
    }
}

/// Sonneborn-Berger in quarter points: the sum over the entrant's games
/// of their result (half points) times the opponent's points (half
/// points).
fn sonneborn_berger_x4(record: &Record<'_>, points: &[u32], entrant: Entrant) -> u32 {
    record
        .games
        .iter()
        .filter(|g| g.result.is_some_and(|s| s != GameResult::Annulled))
        .filter_map(|g| {
            let opponent = g.opponent_of(entrant)?;
            Some(g.points_x2_of(entrant)? * points.get(opponent).copied().unwrap_or(0))
        })
        .sum()
}

/// What one entrant did in one round, for the Buchholz.
enum RoundOf {
    /// A game played over the board (or still going) against someone,
    /// with the entrant's result in half points (0 while going on).
    Played(Entrant, u32),
    /// No game over the board, with the points the round gave.
    Unplayed(u32),
}

/// The entrant's rounds 1..=last.
fn rounds_of(record: &Record<'_>, entrant: Entrant, last: u32) -> Vec<RoundOf> {
    (1..=last)
        .map(|round| {
            let game = record
                .games
                .iter()
                .find(|g| g.round == round && g.opponent_of(entrant).is_some());
            match game {
                Some(g) if g.result.is_none_or(GameResult::played) => RoundOf::Played(
                    g.opponent_of(entrant).unwrap(),
                    g.points_x2_of(entrant).unwrap(),
                ),
                Some(g) => RoundOf::Unplayed(g.points_x2_of(entrant).unwrap()),
                None if record.byes.contains(&(round, entrant)) => RoundOf::Unplayed(2),
                None => RoundOf::Unplayed(0),
            }
        })
        .collect()
}

/// Buchholz and Median-Buchholz, half points, by the virtual opponent
/// rule.
fn buchholz(record: &Record<'_>, rounds: u32, entrant: Entrant) -> Vec<(&'static str, u32)> {
    let last = record
        .games
        .iter()
        .map(|g| g.round)
        .chain(record.byes.iter().map(|b| b.0))
        .max()
        .unwrap_or(0);
    let rounds = rounds.max(last);
    // An opponent's score with every unplayed round a draw.
    let adjusted = |q: Entrant| -> u32 {
        rounds_of(record, q, last)
            .iter()
            .map(|r| match r {
                RoundOf::Played(_, p) => *p,
                RoundOf::Unplayed(_) => 1,
            })
            .sum()
    };
    let mut before = 0;
    let mut terms = Vec::new();
    for (round, r) in (1..).zip(rounds_of(record, entrant, last)) {
        match r {
            RoundOf::Played(q, p) => {
                terms.push(if annulled(record, q) { 0 } else { adjusted(q) });
                before += p;
            }
            RoundOf::Unplayed(p) => {
                terms.push(before + (2 - p) + (rounds - round));
                before += p;
            }
        }
    }
    let sum: u32 = terms.iter().sum();
    let median = match (terms.iter().max(), terms.iter().min()) {
        (Some(max), Some(min)) if terms.len() >= 2 => sum - max - min,
        _ => 0,
    };
    vec![("Buch", sum), ("MBuch", median)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::RoundGame;
    use GameResult::*;

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

    /// (player number, points x2, tiebreaks, rank) for each standing.
    fn rows(table: &[Standing]) -> Vec<(usize, u32, Vec<u32>, usize)> {
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
        );
        assert_eq!(
            rows(&table),
            [
                (2, 4, vec![10], 1),
                (1, 3, vec![10], 2),
                (4, 3, vec![8], 3),
                (3, 2, vec![6], 4)
            ]
        );
        assert_eq!(table[0].tiebreaks[0].0, "SB");
    }

    #[test]
    fn exact_ties_share_a_rank_and_round_robin_byes_score_nothing() {
        // Three players, every game drawn; each sat one round out.
        let games = [
            game(1, 2, 3, Draw),
            game(2, 3, 1, Draw),
            game(3, 1, 2, Draw),
        ];
        let byes = [(1, 0), (2, 1), (3, 2)];
        let table = standings(
            &Kind::RoundRobin { double: false },
            &record(3, &games, &byes, &[]),
        );
        assert_eq!(
            rows(&table),
            [(1, 2, vec![4], 1), (2, 2, vec![4], 1), (3, 2, vec![4], 1)]
        );
    }

    #[test]
    fn buchholz_counts_unplayed_games_by_the_virtual_opponent_rule() {
        // Five players, three rounds:
        // R1 1-3 1-0, 4-2 draw, bye 5; R2 1-4 1-0, 3-5 lost by 3 by
        // forfeit, bye 2; R3 5-1 draw, 2-3 1-0, bye 4.
        // Half points: 1 = 5, 2 = 5, 3 = 0, 4 = 3, 5 = 5.
        // As opponents (unplayed rounds drawn): 1 = 5, 2 = 1+1+2 = 4,
        // 3 = 0+1+0 = 1, 4 = 1+0+1 = 2, 5 = 1+1+1 = 3.
        // Virtual opponents (SPR + (2 - result) + (3 - round)):
        // 2's bye in R2: 1+0+1 = 2; 3's forfeit in R2: 0+2+1 = 3;
        // 4's bye in R3: 1+0+0 = 1; 5's bye in R1: 0+0+2 = 2, its
        // forfeit win in R2: 2+0+1 = 3.
        // Buchholz: 1 = 1+2+3 = 6; 2 = 2+2+1 = 5; 3 = 5+3+4 = 12;
        // 4 = 4+5+1 = 10; 5 = 2+3+5 = 10. Median (less the highest and
        // lowest): 1 = 2; 2 = 2; 3 = 4; 4 = 4; 5 = 3.
        let games = [
            game(1, 1, 3, WhiteWins),
            game(1, 4, 2, Draw),
            game(2, 1, 4, WhiteWins),
            game(2, 3, 5, WhiteForfeits),
            game(3, 5, 1, Draw),
            game(3, 2, 3, WhiteWins),
        ];
        let byes = [(1, 4), (2, 1), (3, 3)];
        let table = standings(&Kind::Swiss { rounds: 3 }, &record(5, &games, &byes, &[]));
        assert_eq!(
            rows(&table),
            [
                (5, 5, vec![10, 3], 1),
                (1, 5, vec![6, 2], 2),
                (2, 5, vec![5, 2], 3),
                (4, 3, vec![10, 4], 4),
                (3, 0, vec![12, 4], 5),
            ]
        );
        let names: Vec<_> = table[0].tiebreaks.iter().map(|t| t.0).collect();
        assert_eq!(names, ["Buch", "MBuch"]);
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
        let table = standings(&Kind::Swiss { rounds: 3 }, &record(4, &games, &byes, &[3]));
        let four = table.iter().find(|s| s.entrant == 3).unwrap();
        assert_eq!(
            (four.points_x2, four.tiebreaks.clone()),
            (0, vec![("Buch", 0), ("MBuch", 0)])
        );
        assert_eq!(table.last().unwrap().entrant, 3);
        let rr = standings(
            &Kind::RoundRobin { double: false },
            &record(4, &games, &[], &[3]),
        );
        // 3's SB: its win over 2 (2 half points) times 2's score (the
        // draw, 1 half point) = 2 quarter points; nothing from 4.
        let three = rr.iter().find(|s| s.entrant == 2).unwrap();
        assert_eq!((three.points_x2, three.tiebreaks[0].1), (2, 2));
    }
}
