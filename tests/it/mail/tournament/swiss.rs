//! A 5-player Swiss of 3 rounds by mail to the end.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use super::round_robin::half_points;
use super::{
    assert_every_mail_within_78_columns, create_tournament, finish, install_with, mail_to,
    new_boards, row, say, show, tour, Board, Ending, Player, ANN, BEN, CAT, CONFIG, DAN, EVE, FAY,
};
use common::SentMail;

/// A Swiss as the test saw it: each round's boards, results and bye.
#[derive(Default)]
struct SwissRecord {
    rounds: u32,
    /// round -> its boards with their endings.
    games: BTreeMap<u32, Vec<(Board, Ending)>>,
    /// round -> who sat out.
    byes: BTreeMap<u32, Player>,
    /// The boards of the round in play.
    pending: Vec<Board>,
}

impl SwissRecord {
    /// The player's half points in `round`: Some for a game or a bye.
    fn result_x2(&self, p: Player, round: u32) -> Option<u32> {
        if self.byes.get(&round) == Some(&p) {
            return Some(2);
        }
        self.games.get(&round)?.iter().find_map(|(b, e)| {
            if b.white != p && b.black != p {
                return None;
            }
            Some(match e {
                Ending::Draw => 1,
                Ending::Win(w) if *w == p => 2,
                Ending::Win(_) => 0,
            })
        })
    }

    fn opponent(&self, p: Player, round: u32) -> Option<Player> {
        self.games.get(&round)?.iter().find_map(|(b, _)| {
            (b.white == p)
                .then_some(b.black)
                .or((b.black == p).then_some(b.white))
        })
    }

    /// The last round paired.
    fn last_round(&self) -> u32 {
        let pending = self.pending.iter().map(|b| b.round);
        let done = self.games.keys().chain(self.byes.keys()).copied();
        pending.chain(done).max().unwrap_or(0)
    }

    fn score_x2(&self, p: Player) -> u32 {
        (1..=self.rounds).filter_map(|r| self.result_x2(p, r)).sum()
    }

    /// Buchholz terms, one per round (FIDE's 2024 rules, as the server
    /// documents them): the opponent's score (no one here leaves a round
    /// unplayed by choice, so their points as they are), or for the
    /// player's own bye a dummy opponent with the player's own points.
    fn buchholz_terms_x2(&self, p: Player) -> Vec<u32> {
        (1..=self.rounds)
            .map(|r| match self.opponent(p, r) {
                Some(o) => self.score_x2(o),
                None => self.score_x2(p),
            })
            .collect()
    }

    /// The rounds `p` got a win's points in: wins and the bye.
    fn wins(&self, p: Player) -> usize {
        (1..=self.rounds)
            .filter(|r| self.result_x2(p, *r) == Some(2))
            .count()
    }
}

/// A 5-player Swiss of 3 rounds by mail to the end: a bye each round (a
/// point, never twice to one player), no pair twice, each next round
/// paired by the very mail that ends the round's last board (and not
/// before), the final table mailed to everyone, scores, Buchholz Cut-1,
/// Buchholz and wins checked against the FIDE rules worked out here from
/// the pairings the server made.
#[test]
fn a_swiss_of_five_over_three_rounds_is_played_to_the_end_by_mail() {
    let entrants = [ANN, BEN, CAT, DAN, EVE];
    let all = [ANN, BEN, CAT, DAN, EVE, FAY];
    let mut s = install_with(CONFIG, &all);
    let created = create_tournament(&mut s, ANN, "autumn", "swiss 5 rounds 3");
    assert_ne!(mail_to(&created, ANN).subject, "Error", "{created:#?}");
    let mut boards = BTreeMap::new();
    for &p in &entrants[1..] {
        boards = new_boards(&tour(&mut s, "join", "autumn", p), "autumn", &all);
    }
    let mut record = SwissRecord {
        rounds: 3,
        ..SwissRecord::default()
    };
    let mut met = BTreeSet::new();
    for round in 1..=3 {
        // The round's boards: two, and the fifth player sits out.
        assert_eq!(boards.len(), 2, "round {round}: {boards:#?}");
        assert!(boards.values().all(|b| b.round == round), "{boards:#?}");
        let seated: BTreeSet<Player> = boards.values().flat_map(|b| [b.white, b.black]).collect();
        assert_eq!(seated.len(), 4, "{boards:#?}");
        let bye = *entrants.iter().find(|p| !seated.contains(p)).unwrap();
        assert!(
            !record.byes.values().any(|p| *p == bye),
            "{bye:?} has a second bye in round {round}"
        );
        record.byes.insert(round, bye);
        for b in boards.values() {
            let pair = (b.white.min(b.black), b.white.max(b.black));
            assert!(met.insert(pair), "{pair:?} meet again in round {round}");
        }
        record.pending = boards.values().cloned().collect();
        check_swiss_table(&show(&mut s, "autumn"), &record, &entrants);
        // The first board a win for White, the second a win for Black
        // (fool's mate) or, in round 2, a draw.
        let list: Vec<Board> = boards.values().cloned().collect();
        let endings = [
            Ending::Win(list[0].white),
            if round == 2 {
                Ending::Draw
            } else {
                Ending::Win(list[1].black)
            },
        ];
        let first = finish(&mut s, &list[0], endings[0]);
        assert!(
            new_boards(&first, "autumn", &all).is_empty(),
            "round {} is not paired before round {round} ends: {first:#?}",
            round + 1
        );
        let last = finish(&mut s, &list[1], endings[1]);
        record.pending.clear();
        record
            .games
            .insert(round, list.into_iter().zip(endings).collect());
        boards = new_boards(&last, "autumn", &all);
        if round == 3 {
            assert!(boards.is_empty(), "no fourth round: {boards:#?}");
            for p in entrants {
                let finals: Vec<&SentMail> = last
                    .iter()
                    .filter(|m| m.to == p.addr() && !m.subject.starts_with("Chess Board"))
                    .collect();
                assert_eq!(finals.len(), 1, "{p:?} gets the final table: {last:#?}");
                check_swiss_table(&finals[0].body, &record, &entrants);
            }
        }
    }
    check_swiss_table(&show(&mut s, "autumn"), &record, &entrants);
    let pgn = mail_to(&say(&mut s, FAY, "chess tournament pgn autumn"), FAY).body;
    assert_eq!(pgn.matches("[Event ").count(), 6, "{pgn}");
    assert_every_mail_within_78_columns(&s);
}

/// The Swiss table shows, under a header naming the default tiebreaks,
/// each entrant's cells (`W3+`, `B1=`, `bye`; a board in play `W3.`),
/// points and, once every round is over, Buchholz Cut-1, Buchholz and
/// the wins, as `record` gives them.
fn check_swiss_table(table: &str, record: &SwissRecord, entrants: &[Player]) {
    let last = record.last_round();
    // The rows in order: points and the list never rise, and a rank is
    // shared exactly when points and the whole list are equal.
    let mut rows: Vec<Vec<String>> = entrants.iter().map(|p| row(table, *p)).collect();
    rows.sort_by_key(|w| w[0].parse::<usize>().unwrap());
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let tail = |w: &Vec<String>| w[w.len() - 5..].to_vec();
        let number = |x: &String| half_points(x).unwrap_or(0);
        assert!(
            (
                number(&a[a.len() - 5]),
                number(&a[a.len() - 4]),
                number(&a[a.len() - 3])
            ) >= (
                number(&b[b.len() - 5]),
                number(&b[b.len() - 4]),
                number(&b[b.len() - 3])
            ),
            "{a:?} before {b:?} in\n{table}"
        );
        assert_eq!(a[1] == b[1], tail(a) == tail(b), "{a:?} {b:?} in\n{table}");
    }
    for p in entrants {
        let words = row(table, *p);
        // No Rk Player Rtng, a cell per round so far (the rounds to come
        // are blank), Pts BH-C1 BH DE WIN.
        assert!(
            table.contains("\nTies are broken by, in order: BH-C1, BH, DE, WIN.\n"),
            "{table}"
        );
        assert_eq!(words.len(), 4 + last as usize + 5, "{words:?} in\n{table}");
        for r in 1..=last {
            let in_play = record
                .pending
                .iter()
                .find(|b| b.white == *p || b.black == *p);
            let expected = match (record.opponent(*p, r), in_play) {
                (_, Some(b)) if b.round == r => {
                    let (colour, o) = if b.white == *p {
                        ('W', b.black)
                    } else {
                        ('B', b.white)
                    };
                    format!("{colour}{}.", row(table, o)[0])
                }
                (None, _) => "bye".to_string(),
                (Some(o), _) => {
                    let white = record.games[&r].iter().any(|(b, _)| b.white == *p);
                    let mark = match record.result_x2(*p, r) {
                        Some(2) => '+',
                        Some(1) => '=',
                        _ => '-',
                    };
                    let colour = if white { 'W' } else { 'B' };
                    format!("{colour}{}{mark}", row(table, o)[0])
                }
            };
            assert_eq!(
                words[3 + r as usize],
                expected,
                "{p:?} in round {r} in\n{table}"
            );
        }
        let n = words.len();
        assert_eq!(
            half_points(&words[n - 5]),
            Some(record.score_x2(*p)),
            "{p:?}'s points in\n{table}"
        );
        if record.pending.is_empty() && last == record.rounds {
            let terms = record.buchholz_terms_x2(*p);
            let sum: u32 = terms.iter().sum();
            let cut = sum - terms.iter().min().unwrap();
            assert_eq!(
                half_points(&words[n - 4]),
                Some(cut),
                "{p:?}'s Buchholz Cut-1 {terms:?} in\n{table}"
            );
            assert_eq!(
                half_points(&words[n - 3]),
                Some(sum),
                "{p:?}'s Buchholz {terms:?} in\n{table}"
            );
            assert_eq!(
                words[n - 1].parse::<usize>().ok(),
                Some(record.wins(*p)),
                "{p:?}'s wins in\n{table}"
            );
        }
    }
}
