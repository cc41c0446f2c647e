//! A 4-player round robin by mail from the first join to the final table.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use super::{
    assert_every_mail_within_78_columns, create_tournament, finish, install_with, mail_to,
    new_boards, row, say, show, tour, Board, Ending, Player, ANN, BEN, CAT, CONFIG, DAN, FAY,
};
use common::SentMail;

/// A number of the crosstable in half points: "2", "1.5", "1½", "½".
pub(super) fn half_points(text: &str) -> Option<u32> {
    let (whole, half) = match text.strip_suffix('½') {
        Some(w) => (w, 1),
        None => match text.split_once('.') {
            Some((w, "5")) => (w, 1),
            Some((w, "0")) => (w, 0),
            Some(_) => return None,
            None => (text, 0),
        },
    };
    let whole: u32 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    Some(2 * whole + half)
}

/// A number of the crosstable in quarter points: "2.75", "1.5", "3.0".
fn quarter_points(text: &str) -> Option<u32> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, "0"));
    let quarters = match fraction {
        "0" | "00" => 0,
        "25" => 1,
        "5" | "50" => 2,
        "75" => 3,
        _ => return None,
    };
    Some(4 * whole.parse::<u32>().ok()? + quarters)
}

/// A round robin's expected table: each finished game's points (half
/// points) of each player against each opponent.
pub(super) struct RoundRobinTable {
    /// In seeding order.
    pub(super) seeds: Vec<Player>,
    /// (player, opponent) -> the player's half points.
    pub(super) results: BTreeMap<(Player, Player), u32>,
}

impl RoundRobinTable {
    pub(super) fn record(&mut self, board: &Board, ending: Ending) {
        let (w, b) = match ending {
            Ending::Win(p) if p == board.white => (2, 0),
            Ending::Win(_) => (0, 2),
            Ending::Draw => (1, 1),
        };
        self.results.insert((board.white, board.black), w);
        self.results.insert((board.black, board.white), b);
    }

    fn score_x2(&self, p: Player) -> u32 {
        self.results
            .iter()
            .filter(|((q, _), _)| *q == p)
            .map(|(_, pts)| pts)
            .sum()
    }

    /// Sonneborn-Berger in quarter points: the opponents' scores times
    /// the points taken from them.
    fn sb_x4(&self, p: Player) -> u32 {
        self.results
            .iter()
            .filter(|((q, _), _)| *q == p)
            .map(|((_, o), pts)| self.score_x2(*o) * pts)
            .sum()
    }

    /// The wins of `p`.
    fn wins(&self, p: Player) -> usize {
        self.results
            .iter()
            .filter(|((q, _), pts)| *q == p && **pts == 2)
            .count()
    }

    /// The table mailed must show, under a header naming the default
    /// tiebreaks (DE, WIN, SB), for every player: each cell of a
    /// finished game, a blank or dot for one in play, the score, the wins
    /// and SB.
    pub(super) fn check(&self, table: &str) {
        let n = self.seeds.len();
        assert!(
            table.contains("\nTies are broken by, in order: DE, WIN, SB.\n"),
            "{table}"
        );
        let header = table.lines().find(|l| l.starts_with("No Rk")).unwrap();
        let words: Vec<&str> = header.split_whitespace().collect();
        assert_eq!(
            words[words.len() - 4..],
            ["Pts", "DE", "WIN", "SB"],
            "{header}"
        );
        // The row number of each player: its cell column among the others.
        let number = |p: Player| -> usize { row(table, p)[0].parse().unwrap() };
        for p in &self.seeds {
            let words = row(table, *p);
            assert_eq!(words.len(), 4 + n + 4, "{words:?} in\n{table}");
            assert_eq!(
                words[6 + n].parse::<usize>().ok(),
                Some(self.wins(*p)),
                "{p:?}'s wins in\n{table}"
            );
            for o in &self.seeds {
                let cell = &words[4 + number(*o) - 1];
                let expected = match self.results.get(&(*p, *o)) {
                    _ if o == p => "*",
                    None => ".",
                    Some(2) => "1",
                    Some(1) => "=",
                    Some(_) => "0",
                };
                assert_eq!(cell, expected, "{p:?} against {o:?} in\n{table}");
            }
            assert_eq!(
                half_points(&words[4 + n]),
                Some(self.score_x2(*p)),
                "{p:?}'s points in\n{table}"
            );
            assert_eq!(
                quarter_points(&words[7 + n]),
                Some(self.sb_x4(*p)),
                "{p:?}'s Sonneborn-Berger in\n{table}"
            );
        }
    }
}

/// Six boards of a round robin of ann, ben, cat and dan: three rounds of
/// two, each pair once, each player once a round, and White once or twice
/// each (Berger's balance).
pub(super) fn assert_round_robin_of_four(boards: &BTreeMap<u32, Board>) {
    assert_eq!(boards.len(), 6, "{boards:#?}");
    for round in 1..=3 {
        let in_round: Vec<&Board> = boards.values().filter(|b| b.round == round).collect();
        assert_eq!(in_round.len(), 2, "round {round}: {boards:#?}");
        let seated: BTreeSet<Player> = in_round.iter().flat_map(|b| [b.white, b.black]).collect();
        assert_eq!(seated.len(), 4, "each plays once in round {round}");
    }
    let mut pairs = BTreeSet::new();
    let mut whites: BTreeMap<Player, u32> = BTreeMap::new();
    for b in boards.values() {
        let pair = (b.white.min(b.black), b.white.max(b.black));
        assert!(pairs.insert(pair), "{pair:?} meet once");
        *whites.entry(b.white).or_default() += 1;
    }
    for p in [ANN, BEN, CAT, DAN] {
        let w = whites.get(&p).copied().unwrap_or(0);
        assert!((1..=2).contains(&w), "{p:?} has White {w} times of 3");
    }
}

/// A 4-player round robin by mail from the first join to the final
/// table, every crosstable checked against the results so far.
///
/// Results (seeds ann, ben, cat, dan: all rated alike, so by joining
/// order): ann beats ben, loses to cat, draws dan; ben beats cat and
/// dan; cat draws dan. Scores: ben 2, ann 1½, cat 1½, dan 1. The
/// default list (DE, WIN, SB) ties ann and cat on points; cat beat ann
/// (DE: cat 1, ann 0), which decides, though ann has the higher
/// Sonneborn-Berger (ann: 2 (ben) + ½ (half of dan's 1) = 2½; cat: 1½
/// (ann) + ½ = 2). Both won one game (WIN). So ben first, cat second
/// before ann on the direct encounter, dan last.
#[test]
fn a_round_robin_of_four_is_played_to_the_end_by_mail() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    let created = create_tournament(&mut s, ANN, "spring", "roundrobin 4");
    assert_ne!(mail_to(&created, ANN).subject, "Error", "{created:#?}");
    let mut boards = BTreeMap::new();
    for (i, p) in [BEN, CAT, DAN].into_iter().enumerate() {
        let mails = tour(&mut s, "join", "spring", p);
        let found = new_boards(&mails, "spring", &all);
        if i < 2 {
            assert!(found.is_empty(), "no board before the third player joins");
            assert_eq!(mails.len(), 1, "{mails:#?}");
        } else {
            boards = found;
        }
    }
    // Full: it started, all six boards at once, three rounds of two.
    assert_round_robin_of_four(&boards);

    let mut expected = RoundRobinTable {
        seeds: vec![ANN, BEN, CAT, DAN],
        results: BTreeMap::new(),
    };
    expected.check(&show(&mut s, "spring"));
    let plan = [
        ((ANN, BEN), Ending::Win(ANN)),
        ((ANN, CAT), Ending::Win(CAT)),
        ((ANN, DAN), Ending::Draw),
        ((BEN, CAT), Ending::Win(BEN)),
        ((BEN, DAN), Ending::Win(BEN)),
        ((CAT, DAN), Ending::Draw),
    ];
    let mut last = Vec::new();
    for (i, ((x, y), ending)) in plan.into_iter().enumerate() {
        let board = boards
            .values()
            .find(|b| [b.white, b.black] == [x, y] || [b.white, b.black] == [y, x])
            .unwrap()
            .clone();
        last = finish(&mut s, &board, ending);
        expected.record(&board, ending);
        if i < plan.len() - 1 {
            expected.check(&show(&mut s, "spring"));
        }
    }
    // The last result: every entrant is mailed the final table.
    for p in [ANN, BEN, CAT, DAN] {
        let finals: Vec<&SentMail> = last
            .iter()
            .filter(|m| m.to == p.addr() && !m.subject.starts_with("Chess Board"))
            .collect();
        assert_eq!(finals.len(), 1, "{p:?} gets the final table: {last:#?}");
        assert!(
            finals[0].subject.contains("spring"),
            "{}",
            finals[0].subject
        );
        expected.check(&finals[0].body);
    }
    let table = show(&mut s, "spring");
    expected.check(&table);
    let rank = |p: Player| row(&table, p)[1].clone();
    assert_eq!(
        [BEN, CAT, ANN, DAN].map(rank),
        ["1", "2", "3", "4"].map(String::from),
        "{table}"
    );
    // The direct encounter decided between cat and ann (the only tie):
    // 1 point to 0 among them; no one else was tied when it was reached.
    let de = |p: Player| row(&table, p)[4 + 4 + 1].clone();
    assert_eq!(
        [BEN, CAT, ANN, DAN].map(de),
        ["-", "1.0", "0.0", "-"].map(String::from),
        "{table}"
    );

    // One PGN file of all six games, each with its players and result.
    let pgn = mail_to(&say(&mut s, FAY, "chess tournament pgn spring"), FAY).body;
    assert_pgn_holds(&pgn, &boards, &expected);
    // The list shows it finished.
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    assert!(listed.contains("spring"), "{listed}");
    assert!(listed.to_lowercase().contains("finished"), "{listed}");
    assert_every_mail_within_78_columns(&s);
}

/// The tournament's PGN holds one game per board, with its players and
/// the result `table` recorded.
fn assert_pgn_holds(pgn: &str, boards: &BTreeMap<u32, Board>, table: &RoundRobinTable) {
    assert_eq!(pgn.matches("[Event ").count(), boards.len(), "{pgn}");
    for b in boards.values() {
        let white = format!("[White \"{}\"]", b.white.user());
        let black = format!("[Black \"{}\"]", b.black.user());
        let result = match table.results.get(&(b.white, b.black)) {
            Some(2) => "1-0",
            Some(1) => "1/2-1/2",
            Some(_) => "0-1",
            None => "*",
        };
        let result = format!("[Result \"{result}\"]");
        assert!(
            pgn.split("[Event ")
                .any(|g| g.contains(&white) && g.contains(&black) && g.contains(&result)),
            "board {} ({white} {black} {result}) in the PGN: {pgn}",
            b.number
        );
    }
}
