//! Round robin schedules by Berger tables (FIDE Handbook C.05, Annex 1).
//!
//! Players are numbered 1..=n in seeding order (entrant `e` is number
//! `e + 1`); an odd count gets a dummy number n + 1, and whoever is paired
//! with the dummy sits the round out (the bye). With `m = n - 1` (n even,
//! the dummy counted), round `r` pairs the fixed player n with the `p`
//! for which `2p ≡ r + 1 (mod m)`, and every other two numbers `i`, `j`
//! with `i + j ≡ r + 1 (mod m)`. That is the FIDE table exactly (6
//! players, round 1: 1-6 2-5 3-4; round 2: 6-4 5-3 1-2; ...):
//! - colours: player n has Black in odd rounds and White in even ones;
//!   of two others, White goes to the one whose number, counted forward
//!   to the other's mod m, takes an odd number of steps;
//! - boards: board 1 is player n's; board k holds p + (k - 1) and
//!   p - (k - 1) (mod m).
//!
//! So each player's White count differs from their Black count by at most
//! one, and no one has three games of one colour in a row (byes skipped).
//! A double round robin appends the same rounds colours swapped, with the
//! first cycle's last two rounds swapped as FIDE advises (C.05 Annex 1:
//! otherwise some would have three of a colour in a row across the
//! cycles).

use super::{Entrant, Pairing, Round};

/// Every round of a round robin at once (Berger tables; odd counts get a
/// bye each round; `double` appends the same rounds colours swapped, the
/// first cycle's last two rounds swapped).
/// Fewer than two entrants make no rounds.
pub fn round_robin(entrants: usize, double: bool) -> Vec<Round> {
    if entrants < 2 {
        return Vec::new();
    }
    let n = entrants + entrants % 2;
    let single: Vec<Round> = (1..n).map(|r| berger_round(n, r, entrants)).collect();
    let mut rounds = single.clone();
    if double {
        // FIDE's advice for a double round robin: the first cycle's last
        // two rounds swapped, so that no one gets three of a colour in a
        // row across the two cycles.
        let last = rounds.len() - 1;
        if last >= 1 {
            rounds.swap(last - 1, last);
        }
        rounds.extend(single.into_iter().map(|round| {
            Round {
                pairings: round
                    .pairings
                    .iter()
                    .map(|p| Pairing {
                        white: p.black,
                        black: p.white,
                    })
                    .collect(),
                bye: round.bye,
            }
        }));
    }
    rounds
}

/// Round `r` (1-based) of the Berger table for `n` numbers (even), with
/// numbers above `real` being the dummy.
fn berger_round(n: usize, r: usize, real: usize) -> Round {
    let m = n - 1;
    // Numbers 1..=m on a circle; `at(x)` brings any integer to 1..=m.
    let at = |x: usize| (x + m - 1) % m + 1;
    let fixed_partner = (1..=m).find(|p| (2 * p) % m == (r + 1) % m).unwrap();
    let mut boards = Vec::with_capacity(n / 2);
    boards.push(if r % 2 == 1 {
        (fixed_partner, n)
    } else {
        (n, fixed_partner)
    });
    for k in 1..n / 2 {
        let a = at(fixed_partner + k);
        let b = at(fixed_partner + m - k);
        // White is the one an odd number of steps behind the other.
        let steps = (b + m - a) % m;
        boards.push(if steps % 2 == 1 { (a, b) } else { (b, a) });
    }
    let mut round = Round {
        pairings: Vec::with_capacity(n / 2),
        bye: None,
    };
    for (white, black) in boards {
        let (white, black): (Entrant, Entrant) = (white - 1, black - 1);
        if white >= real {
            round.bye = Some(black);
        } else if black >= real {
            round.bye = Some(white);
        } else {
            round.pairings.push(Pairing { white, black });
        }
    }
    round
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rounds as 1-based "white-black" strings, board by board.
    fn table(rounds: &[Round]) -> Vec<String> {
        rounds
            .iter()
            .map(|r| {
                r.pairings
                    .iter()
                    .map(|p| format!("{}-{}", p.white + 1, p.black + 1))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn six_players_follow_the_fide_berger_table() {
        // FIDE Handbook C.05 Annex 1, "For 5 or 6 players".
        assert_eq!(
            table(&round_robin(6, false)),
            [
                "1-6 2-5 3-4",
                "6-4 5-3 1-2",
                "2-6 3-1 4-5",
                "6-5 1-4 2-3",
                "3-6 4-2 5-1",
            ]
        );
    }

    #[test]
    fn eight_players_follow_the_fide_berger_table() {
        // FIDE Handbook C.05 Annex 1, "For 7 or 8 players".
        assert_eq!(
            table(&round_robin(8, false)),
            [
                "1-8 2-7 3-6 4-5",
                "8-5 6-4 7-3 1-2",
                "2-8 3-1 4-7 5-6",
                "8-6 7-5 1-4 2-3",
                "3-8 4-2 5-1 6-7",
                "8-7 1-6 2-5 3-4",
                "4-8 5-3 6-2 7-1",
            ]
        );
    }

    #[test]
    fn five_players_sit_out_where_the_dummy_six_would_play() {
        let rounds = round_robin(5, false);
        assert_eq!(
            table(&rounds),
            ["2-5 3-4", "5-3 1-2", "3-1 4-5", "1-4 2-3", "4-2 5-1"]
        );
        let byes: Vec<_> = rounds.iter().map(|r| r.bye.unwrap() + 1).collect();
        assert_eq!(byes, [1, 4, 2, 5, 3]);
    }

    /// Checks every promise of a schedule for `n` entrants.
    fn check_schedule(n: usize, double: bool) {
        let rounds = round_robin(n, double);
        let meetings: u32 = if double { 2 } else { 1 };
        let per_cycle = n - 1 + n % 2;
        assert_eq!(rounds.len(), per_cycle * meetings as usize, "{n} players");
        let mut met = vec![vec![0u32; n]; n]; // met[white][black]
        let mut whites = vec![0i32; n];
        let mut byes = vec![0u32; n];
        for round in &rounds {
            let mut seen = vec![false; n];
            for p in &round.pairings {
                for e in [p.white, p.black] {
                    assert!(!seen[e], "{n} players: {} twice in a round", e + 1);
                    seen[e] = true;
                }
                met[p.white][p.black] += 1;
                whites[p.white] += 1;
                whites[p.black] -= 1;
            }
            if let Some(b) = round.bye {
                assert!(!seen[b]);
                seen[b] = true;
                byes[b] += 1;
            }
            assert!(seen.iter().all(|s| *s), "{n} players: someone missing");
            assert_eq!(round.bye.is_some(), n % 2 == 1);
        }
        for a in 0..n {
            for (b, met_b) in met.iter().enumerate().skip(a + 1) {
                let total = met[a][b] + met_b[a];
                assert_eq!(total, meetings, "{n} players: {}-{}", a + 1, b + 1);
                if double {
                    assert_eq!((met[a][b], met_b[a]), (1, 1), "both colours");
                }
            }
            // White minus Black: at most one either way (zero in double).
            let limit = if double { 0 } else { 1 };
            assert!(whites[a].abs() <= limit, "{n}: colours of {}", a + 1);
            assert_eq!(byes[a], (n % 2) as u32 * meetings);
        }
    }

    #[test]
    fn every_pair_meets_once_with_balanced_colours_for_3_to_12_players() {
        for n in 2..=16 {
            check_schedule(n, false);
        }
    }

    #[test]
    fn a_double_round_robin_meets_each_pair_once_in_each_colour() {
        for n in 2..=12 {
            check_schedule(n, true);
        }
        let rounds = round_robin(4, true);
        assert_eq!(
            table(&rounds),
            ["1-4 2-3", "2-4 3-1", "4-3 1-2", "4-1 3-2", "3-4 2-1", "4-2 1-3"]
        );
    }

    /// The longest run of one colour any player has, byes skipped.
    fn longest_colour_run(n: usize, rounds: &[Round]) -> usize {
        (0..n)
            .map(|e| {
                let colours: Vec<bool> = rounds
                    .iter()
                    .flat_map(|r| r.pairings.iter())
                    .filter(|p| p.white == e || p.black == e)
                    .map(|p| p.white == e)
                    .collect();
                colours
                    .chunk_by(|a, b| a == b)
                    .map(|run| run.len())
                    .max()
                    .unwrap_or(0)
            })
            .max()
            .unwrap()
    }

    #[test]
    fn no_player_has_three_games_of_one_colour_in_a_row() {
        for n in 3..=14 {
            assert!(longest_colour_run(n, &round_robin(n, false)) <= 2, "{n}");
            assert!(
                longest_colour_run(n, &round_robin(n, true)) <= 2,
                "{n} double"
            );
        }
    }

    #[test]
    fn fewer_than_two_entrants_make_no_rounds() {
        assert!(round_robin(0, false).is_empty());
        assert!(round_robin(1, true).is_empty());
    }
}
