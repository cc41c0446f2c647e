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

use super::{Entrant, History, Kind, Score, Standing};

/// Every entrant's standing, best first (points, then the tiebreaks in
/// order, then seed for the listing order of exact ties).
pub fn standings(kind: &Kind, history: &History<'_>) -> Vec<Standing> {
    let points: Vec<u32> = (0..history.entrants)
        .map(|e| points_x2(kind, history, e))
        .collect();
    let mut table: Vec<Standing> = (0..history.entrants)
        .map(|entrant| Standing {
            entrant,
            rank: 0,
            points_x2: points[entrant],
            tiebreaks: match kind {
                _ if annulled(history, entrant) => zero_tiebreaks(kind),
                Kind::RoundRobin { .. } => {
                    vec![("SB", sonneborn_berger_x4(history, &points, entrant))]
                }
                Kind::Swiss { rounds } => buchholz(history, &points, *rounds, entrant),
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
pub(super) fn points_x2(kind: &Kind, history: &History<'_>, entrant: Entrant) -> u32 {
    let games: u32 = history
        .games
        .iter()
        .filter_map(|g| g.points_x2_of(entrant))
        .sum();
    let byes = history.byes.iter().filter(|(_, e)| *e == entrant).count() as u32;
    match kind {
        Kind::Swiss { .. } if !annulled(history, entrant) => games + 2 * byes,
        _ => games,
    }
}

/// Whether the entrant withdrew and had their results annulled.
pub(super) fn annulled(history: &History<'_>, entrant: Entrant) -> bool {
    history.has_withdrawn(entrant)
        && history
            .games
            .iter()
            .any(|g| g.opponent_of(entrant).is_some() && g.score == Some(Score::Annulled))
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
fn sonneborn_berger_x4(history: &History<'_>, points: &[u32], entrant: Entrant) -> u32 {
    history
        .games
        .iter()
        .filter(|g| g.score.is_some_and(|s| s != Score::Annulled))
        .filter_map(|g| {
            let opponent = g.opponent_of(entrant)?;
            Some(g.points_x2_of(entrant)? * points[opponent])
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
fn rounds_of(history: &History<'_>, entrant: Entrant, last: u32) -> Vec<RoundOf> {
    (1..=last)
        .map(|round| {
            let game = history
                .games
                .iter()
                .find(|g| g.round == round && g.opponent_of(entrant).is_some());
            match game {
                Some(g) if g.score.is_none_or(Score::played) => RoundOf::Played(
                    g.opponent_of(entrant).unwrap(),
                    g.points_x2_of(entrant).unwrap(),
                ),
                Some(g) => RoundOf::Unplayed(g.points_x2_of(entrant).unwrap()),
                None if history.byes.contains(&(round, entrant)) => RoundOf::Unplayed(2),
                None => RoundOf::Unplayed(0),
            }
        })
        .collect()
}

/// Buchholz and Median-Buchholz, half points, by the virtual opponent
/// rule.
fn buchholz(
    history: &History<'_>,
    points: &[u32],
    rounds: u32,
    entrant: Entrant,
) -> Vec<(&'static str, u32)> {
    let last = history
        .games
        .iter()
        .map(|g| g.round)
        .chain(history.byes.iter().map(|b| b.0))
        .max()
        .unwrap_or(0);
    let rounds = rounds.max(last);
    // An opponent's score with every unplayed round a draw.
    let adjusted = |q: Entrant| -> u32 {
        rounds_of(history, q, last)
            .iter()
            .map(|r| match r {
                RoundOf::Played(_, p) => *p,
                RoundOf::Unplayed(_) => 1,
            })
            .sum()
    };
    let _ = points;
    let mut before = 0;
    let mut terms = Vec::new();
    for (round, r) in (1..).zip(rounds_of(history, entrant, last)) {
        match r {
            RoundOf::Played(q, p) => {
                terms.push(if annulled(history, q) { 0 } else { adjusted(q) });
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
