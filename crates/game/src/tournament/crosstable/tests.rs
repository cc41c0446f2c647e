use super::*;
use crate::tournament::{round_robin, swiss_round, Round};

/// Games for every round, results from a fixed pattern.
fn games_of(rounds: &[Round], finished: usize) -> Vec<RoundGame> {
    let results = [
        GameResult::WhiteWins,
        GameResult::Draw,
        GameResult::BlackWins,
        GameResult::BlackForfeits,
    ];
    rounds
        .iter()
        .zip(1..)
        .flat_map(|(r, n)| {
            r.pairings.iter().enumerate().map(move |(b, p)| RoundGame {
                round: n,
                white: p.white,
                black: p.black,
                result: (n as usize <= finished).then_some(results[(n as usize + b) % 4]),
            })
        })
        .collect()
}

fn long_names(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            format!("player{i:02}-with-a-name-of-32-chars")
                .chars()
                .take(32)
                .collect()
        })
        .collect()
}

fn assert_fits(lines: &[String], what: &str) {
    for line in lines {
        assert!(
            line.chars().count() <= WIDTH,
            "{what}: {} columns: {line}",
            line.chars().count()
        );
    }
}

#[test]
fn round_robin_crosstables_fit_78_columns_for_2_to_12_players() {
    for n in 2..=12 {
        for double in [false, true] {
            let rounds = round_robin(n, double);
            let games = games_of(&rounds, rounds.len() / 2);
            let ratings: Vec<i32> = (0..n as i32).map(|i| 2400 - 50 * i).collect();
            let names = long_names(n);
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let record = Record {
                entrants: n,
                ratings: &ratings,
                games: &games,
                byes: &[],
                withdrawn: &[],
            };
            let kind = Kind::RoundRobin { double };
            let lines = crosstable(&kind, &record, &names, &Tiebreak::defaults(&kind));
            assert_fits(&lines, &format!("{n} players, double {double}"));
            // The tiebreaks named, then one block: a header and a row per
            // player, then the legend.
            assert_eq!(lines[0], "Ties are broken by, in order: DE, WIN, SB.");
            assert!(lines[2].starts_with("No Rk Player"), "{}", lines[2]);
            assert!(lines[2].ends_with("  Pts DE WIN SB") || lines[2].contains("DE WIN"));
            // A name is whole or cut with a "~".
            for line in &lines[3..n + 3] {
                assert!(
                    names.iter().any(|name| line.contains(name)) || line.contains('~'),
                    "{line}"
                );
            }
            assert!(lines[n + 3].is_empty());
            // The longest list fits too (in two blocks if need be).
            let widest = [
                Tiebreak::BuchholzMedian1,
                Tiebreak::BuchholzCut1,
                Tiebreak::SonnebornBerger,
                Tiebreak::GamesWon,
                Tiebreak::DirectEncounter,
            ];
            let lines = crosstable(&kind, &record, &names, &widest);
            assert_fits(
                &lines,
                &format!("{n} players, double {double}, 5 tiebreaks"),
            );
        }
    }
}

#[test]
fn a_forty_player_nine_round_swiss_comes_in_two_blocks_within_78_columns() {
    let n = 40;
    let ratings: Vec<i32> = (0..n as i32).map(|i| 2500 - 20 * i).collect();
    let mut games = Vec::new();
    let mut byes = Vec::new();
    for round in 1..=9 {
        let record = Record {
            entrants: n,
            ratings: &ratings,
            games: &games,
            byes: &byes,
            withdrawn: &[],
        };
        let paired = swiss_round(&record, round).unwrap();
        let mut played = games_of(std::slice::from_ref(&paired), 1);
        for g in &mut played {
            g.round = round;
        }
        games.extend(played);
        byes.extend(paired.bye.map(|b| (round, b)));
    }
    let names = long_names(n);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let record = Record {
        entrants: n,
        ratings: &ratings,
        games: &games,
        byes: &byes,
        withdrawn: &[],
    };
    let kind = Kind::Swiss { rounds: 9 };
    let lines = crosstable(&kind, &record, &names, &Tiebreak::defaults(&kind));
    assert_fits(&lines, "40 players, 9 rounds");
    assert_eq!(
        lines[0],
        "Ties are broken by, in order: BH-C1, BH, DE, WIN."
    );
    assert!(
        lines[2].starts_with("No Rk Player") && lines[2].ends_with("  Pts BH-C1   BH DE WIN"),
        "{}",
        lines[2]
    );
    // The standings' rows, a blank line, the rounds' header and rows.
    assert!(lines[n + 3].is_empty());
    assert!(
        lines[n + 4].starts_with("No Player") && lines[n + 4].ends_with(" 9"),
        "{}",
        lines[n + 4]
    );
    assert!(lines[n + 5].contains(" W") || lines[n + 5].contains(" B"));
}

#[test]
fn a_round_robin_crosstable_reads_as_a_worked_example() {
    // 1 beats 2 and draws 3; 3 beats 2; the rest to play. 1 leads
    // with 1.5 (DE: the draw with 3, 0.5; WIN 1; SB: 2's 0 + half of
    // 3's 1.5 = 0.75), 3 on 1.5 (DE 0.5, WIN 1, SB: 2's 0 + half of 1's
    // 1.5 = 0.75) shares first; 2 and 4 (who have not met: DE decides
    // nothing) share third on 0, listed by seed. Columns follow the
    // rows' numbers.
    let games = [
        RoundGame {
            round: 1,
            white: 0,
            black: 3,
            result: None,
        },
        RoundGame {
            round: 1,
            white: 1,
            black: 2,
            result: Some(GameResult::BlackWins),
        },
        RoundGame {
            round: 2,
            white: 3,
            black: 2,
            result: None,
        },
        RoundGame {
            round: 2,
            white: 0,
            black: 1,
            result: Some(GameResult::WhiteWins),
        },
        RoundGame {
            round: 3,
            white: 1,
            black: 3,
            result: None,
        },
        RoundGame {
            round: 3,
            white: 2,
            black: 0,
            result: Some(GameResult::Draw),
        },
    ];
    let record = Record {
        entrants: 4,
        ratings: &[2100, 1950, 1800, 1500],
        games: &games,
        byes: &[],
        withdrawn: &[],
    };
    let kind = Kind::RoundRobin { double: false };
    let lines = crosstable(
        &kind,
        &record,
        &["alice", "bob", "carol", "dave"],
        &Tiebreak::defaults(&kind),
    );
    assert_eq!(
        lines,
        [
            "Ties are broken by, in order: DE, WIN, SB.",
            "",
            "No Rk Player Rtng 1 2 3 4  Pts  DE WIN   SB",
            " 1  1 alice  2100 * = 1 .  1.5 0.5   1 0.75",
            " 2  1 carol  1800 = * 1 .  1.5 0.5   1 0.75",
            " 3  3 bob    1950 0 0 * .  0.0   -   0  0.0",
            " 4  3 dave   1500 . . . *  0.0   -   0  0.0",
            "",
            "1 win, = draw, 0 loss, + - won or lost by forfeit, . to play,",
            "x annulled.",
            "DE: direct encounter; WIN: wins; SB: Sonneborn-Berger;",
            "- where DE decided nothing.",
        ]
    );
}

#[test]
fn a_history_naming_unknown_entrants_or_missing_names_does_not_panic() {
    let games = [
        RoundGame {
            round: 1,
            white: 0,
            black: 7,
            result: Some(GameResult::WhiteWins),
        },
        RoundGame {
            round: 2,
            white: 1,
            black: 0,
            result: Some(GameResult::Draw),
        },
    ];
    let record = Record {
        entrants: 2,
        ratings: &[],
        games: &games,
        byes: &[(1, 1)],
        withdrawn: &[],
    };
    for kind in [
        Kind::RoundRobin { double: false },
        Kind::Swiss { rounds: 2 },
    ] {
        let lines = crosstable(
            &kind,
            &record,
            &["only-one-name"],
            &Tiebreak::defaults(&kind),
        );
        assert!(lines.iter().any(|l| l.contains(" ? ")), "{lines:?}");
        assert_fits(&lines, "unknown entrants");
    }
}
