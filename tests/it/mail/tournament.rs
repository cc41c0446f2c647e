//! Tournaments by mail through the real binary: a 4-player
//! round robin and a 5-player 3-round Swiss played to the end with
//! fool's mates, resignations and agreed draws, every crosstable checked
//! against values worked out here by hand (or, for the Swiss, from the
//! pairings the server made and the results the test chose); withdrawals;
//! the refusals, each one sentence with nothing stored; every mail within
//! 78 columns.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::{joined, parse_sent, Install, SentMail};

/// A player of these tests: userid, password, address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Player(&'static str);

impl Player {
    fn user(self) -> &'static str {
        self.0
    }
    fn pw(self) -> String {
        format!("{}-pw", self.0)
    }
    fn addr(self) -> String {
        format!("{}@players.test", self.0)
    }
}

const ANN: Player = Player("ann");
const BEN: Player = Player("ben");
const CAT: Player = Player("cat");
const DAN: Player = Player("dan");
const EVE: Player = Player("eve");
const FAY: Player = Player("fay");
/// The computer player: it gets no mail, and moves at once.
const COMPUTER: Player = Player("computer");

/// Players may open tournaments; the hourly command limit is out of the
/// way of a whole tournament's mail.
const CONFIG: &str = "\n[tournaments]\nplayers_may_create = true\n\
                      [limits]\ncommands_per_hour = 100000\n";

/// A fresh installation with `players` signed up (in one pass).
fn install_with(extra: &str, players: &[Player]) -> Install {
    let mut s = Install::with_config(extra);
    for p in players {
        s.send(&p.addr(), &format!("signup {} {}", p.user(), p.pw()), "");
    }
    s.poll();
    s.take_outbox();
    s
}

/// Send each `(from, subject)` in order, run one pass, return its mails.
fn pass(s: &mut Install, mails: &[(Player, String)]) -> Vec<SentMail> {
    for (from, subject) in mails {
        s.send(&from.addr(), subject, "");
    }
    s.poll();
    s.take_outbox()
}

/// One command from `from`, one pass, the mails it caused.
fn say(s: &mut Install, from: Player, subject: &str) -> Vec<SentMail> {
    pass(s, &[(from, subject.to_string())])
}

/// The one mail to `p` among `mails`.
fn mail_to(mails: &[SentMail], p: Player) -> SentMail {
    common::only_one(mails, &p.addr()).clone()
}

/// `chess tournament <verb> <name> <userid> <pw>` from the player.
fn tour(s: &mut Install, verb: &str, name: &str, p: Player) -> Vec<SentMail> {
    say(
        s,
        p,
        &format!("chess tournament {verb} {name} {} {}", p.user(), p.pw()),
    )
}

/// The crosstable (the body of `chess tournament show NAME`), asked by an
/// onlooker.
fn show(s: &mut Install, name: &str) -> String {
    let mails = pass(s, &[(FAY, format!("chess tournament show {name}"))]);
    let m = mail_to(&mails, FAY);
    assert_ne!(m.subject, "Error", "{}", m.body);
    m.body
}

/// A board of a tournament as its first mail announced it.
#[derive(Clone, Debug)]
struct Board {
    tournament: String,
    number: u32,
    round: u32,
    white: Player,
    black: Player,
}

/// The tournament boards announced in `mails` ("New Chess Board N …"
/// mails whose header names the tournament and round), by number. Each
/// board must be announced to both of its players and to no one else.
fn new_boards(mails: &[SentMail], name: &str, all: &[Player]) -> BTreeMap<u32, Board> {
    new_boards_of("Chess", mails, name, all)
}

/// [`new_boards`] of the game titled `title`.
fn new_boards_of(
    title: &str,
    mails: &[SentMail],
    name: &str,
    all: &[Player],
) -> BTreeMap<u32, Board> {
    let mut boards: BTreeMap<u32, Board> = BTreeMap::new();
    let mut told: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    let new = format!("New {title} Board ");
    for m in mails.iter().filter(|m| m.subject.starts_with(&new)) {
        let board = board_of(&m.body, name, all);
        assert!(
            m.subject.starts_with(&format!("{new}{} ", board.number)),
            "the subject keeps pbmserv's shape: {}",
            m.subject
        );
        assert!(
            told.entry(board.number).or_default().insert(m.to.clone()),
            "board {} announced twice to {}",
            board.number,
            m.to
        );
        boards.insert(board.number, board);
    }
    for (number, b) in &boards {
        let expected: BTreeSet<String> = [b.white, b.black]
            .into_iter()
            .filter(|p| *p != COMPUTER)
            .map(Player::addr)
            .collect();
        assert_eq!(told[number], expected, "who was told of board {number}");
    }
    boards
}

/// The board a board mail's header describes: `Chess Board 104,
/// tournament spring, round 2: ann (White, …) against ben (Black, …)`
/// (wrapped anyhow).
fn board_of(body: &str, name: &str, all: &[Player]) -> Board {
    let text = joined(body);
    let marker = format!(", tournament {name}, round ");
    let at = text
        .find(&marker)
        .unwrap_or_else(|| panic!("the header names tournament {name}: {body}"));
    let before = &text[..at];
    let number: u32 = before
        .rsplit(' ')
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("a board number before {marker:?}: {body}"));
    let rest = &text[at + marker.len()..];
    let (round, rest) = rest.split_once(": ").expect("round: players");
    let round: u32 = round.parse().unwrap_or_else(|_| panic!("{body}"));
    let player = |colour: &str| -> Player {
        let (who, _) = rest
            .split_once(&format!(" ({colour},"))
            .unwrap_or_else(|| panic!("{colour} in {rest}"));
        let who = who.rsplit(' ').next().unwrap();
        *all.iter()
            .find(|p| p.user() == who)
            .unwrap_or_else(|| panic!("{who} is a player"))
    };
    Board {
        tournament: name.to_string(),
        number,
        round,
        white: player("White"),
        black: player("Black"),
    }
}

/// How a test ends a board.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ending {
    /// This player wins: by fool's mate when they have Black, else the
    /// other resigns.
    Win(Player),
    /// White proposes, Black accepts.
    Draw,
}

/// The mails that end `board` with `result` (one pass).
fn finish(s: &mut Install, board: &Board, result: Ending) -> Vec<SentMail> {
    let n = board.number;
    let (w, b) = (board.white, board.black);
    let mv = |p: Player, m: &str| (p, format!("chess move {n} {} {} {m}", p.user(), p.pw()));
    let resign = |p: Player| (p, format!("chess resign {n} {} {}", p.user(), p.pw()));
    let mails = match result {
        Ending::Win(p) if p == b && ![w, b].contains(&COMPUTER) => {
            vec![mv(w, "f3"), mv(b, "e5"), mv(w, "g4"), mv(b, "Qh4#")]
        }
        Ending::Win(p) if p == w => vec![resign(b)],
        Ending::Win(_) => vec![resign(w)],
        Ending::Draw => vec![mv(w, "propose"), mv(b, "accept")],
    };
    let sent = pass(s, &mails);
    for m in sent
        .iter()
        .filter(|m| m.subject.starts_with(&format!("Chess Board {n} ")))
    {
        let named = format!(", tournament {}, round {}", board.tournament, board.round);
        assert!(
            joined(&m.body).contains(&named),
            "every board mail names the tournament and round: {}",
            m.body
        );
    }
    assert!(
        sent.iter()
            .any(|m| m.subject == format!("Chess Board {n} finished")),
        "board {n} ended: {sent:#?}"
    );
    sent
}

/// The crosstable's row of a player: its words (the line that holds the
/// userid as a word, or cut to fit, ending in `~`). The crosstable's rows
/// are `No Rk Player Rtng <cells> Pts <tiebreaks>`.
fn row(table: &str, p: Player) -> Vec<String> {
    let crosstable = table.split("Boards in play").next().unwrap();
    let names = |w: &str| {
        w == p.user()
            || w.strip_suffix('~')
                .is_some_and(|cut| cut.len() >= 3 && p.user().starts_with(cut))
    };
    let rows: Vec<&str> = crosstable
        .lines()
        .filter(|l| l.split_whitespace().nth(2).is_some_and(names))
        .collect();
    assert_eq!(rows.len(), 1, "one row of {} in:\n{table}", p.user());
    rows[0].split_whitespace().map(str::to_string).collect()
}

/// Every line of every mail the installation ever sent (Subject and
/// body) is within 78 columns, and no mail holds a password.
fn assert_every_mail_within_78_columns(s: &Install) {
    let mut wide = Vec::new();
    for raw in s.all_outbox_raw() {
        let m = parse_sent(&raw);
        for line in std::iter::once(m.subject.as_str()).chain(m.body.lines()) {
            if line.chars().count() > 78 {
                wide.push(format!("[{}] {line}", m.subject));
            }
        }
    }
    assert!(
        wide.is_empty(),
        "lines over 78 columns:\n{}",
        wide.join("\n")
    );
    // And no password of the tests' players ("ann-pw", …) left the server.
    for raw in s.all_outbox_raw() {
        assert!(!raw.contains("-pw"), "a password in a mail: {raw}");
    }
}

/// The first paragraph of an error mail: the one sentence saying what is
/// wrong.
fn refusal(mails: &[SentMail], p: Player) -> String {
    assert_eq!(mails.len(), 1, "only the sender hears of it: {mails:#?}");
    let m = mail_to(mails, p);
    assert_eq!(m.subject, "Error", "{}", m.body);
    let first = joined(m.body.split("\n\n").next().unwrap());
    assert!(first.ends_with('.'), "a sentence: {first}");
    assert!(
        !first.contains("panick") && !first.contains("rror:") && !first.contains("SQL"),
        "a plain sentence: {first}"
    );
    first.to_lowercase()
}

#[test]
fn help_tournament_explains_the_commands_and_rulings_within_78_columns() {
    let mut s = install_with("", &[FAY]);
    for topic in ["help tournament", "help tournaments"] {
        let m = mail_to(&say(&mut s, FAY, topic), FAY);
        assert_eq!(m.subject, "Help on tournament");
        let lines: Vec<&str> = m.body.lines().collect();
        assert_eq!(lines[0], "Tournaments on Test PBM");
        assert_eq!(lines[1], "=".repeat(lines[0].len()), "underlined");
        let text = joined(&m.body);
        for needle in [
            "tournament create NAME",
            "tournament join NAME",
            "tournament leave NAME",
            "tournament start NAME",
            "tournament withdraw NAME",
            "tournament show NAME",
            "tournament pgn NAME",
            "<game> tournaments",
            "Round robin.",
            "Swiss.",
            "Sonneborn-Berger",
            "Buchholz",
            "Median-Buchholz",
            "bye: one point, unrated",
            "fewer than half of their games",
            "annulled",
            "by forfeit",
        ] {
            assert!(text.contains(needle), "{needle:?} in {}", m.body);
        }
    }
    let general = mail_to(&say(&mut s, FAY, "help"), FAY);
    assert!(general.body.contains("help tournament"), "{}", general.body);
    let unknown = mail_to(&say(&mut s, FAY, "help tourney"), FAY);
    assert!(unknown.body.contains("tournament"), "{}", unknown.body);
    assert_every_mail_within_78_columns(&s);
}

/// A number of the crosstable in half points: "2", "1.5", "1½", "½".
fn half_points(text: &str) -> Option<u32> {
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
struct RoundRobinTable {
    /// In seeding order.
    seeds: Vec<Player>,
    /// (player, opponent) -> the player's half points.
    results: BTreeMap<(Player, Player), u32>,
}

impl RoundRobinTable {
    fn record(&mut self, board: &Board, ending: Ending) {
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

    /// The table mailed must show, for every player: each cell of a
    /// finished game, a blank or dot for one in play, the score and SB.
    fn check(&self, table: &str) {
        let n = self.seeds.len();
        // The row number of each player: its cell column among the others.
        let number = |p: Player| -> usize { row(table, p)[0].parse().unwrap() };
        for p in &self.seeds {
            let words = row(table, *p);
            assert_eq!(words.len(), 4 + n + 2, "{words:?} in\n{table}");
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
                quarter_points(&words[5 + n]),
                Some(self.sb_x4(*p)),
                "{p:?}'s Sonneborn-Berger in\n{table}"
            );
        }
    }
}

/// Six boards of a round robin of ann, ben, cat and dan: three rounds of
/// two, each pair once, each player once a round, and White once or twice
/// each (Berger's balance).
fn assert_round_robin_of_four(boards: &BTreeMap<u32, Board>) {
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
/// order): ann beats ben, draws cat, loses to dan; ben beats cat and dan;
/// cat beats dan. Scores: ben 2, ann 1½, cat 1½, dan 1. Sonneborn-Berger:
/// ann 2 (ben) + ¾ (half of cat's 1½) = 2¾; cat ¾ (half of ann's) + 1
/// (dan) = 1¾; ben 1½ + 1 = 2½; dan 1½ (ann) = 1½. So ben first, ann
/// second before cat on SB, dan last.
#[test]
fn a_round_robin_of_four_is_played_to_the_end_by_mail() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    let created = say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create spring ann {} roundrobin 4",
            ANN.pw()
        ),
    );
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
        ((ANN, CAT), Ending::Draw),
        ((ANN, DAN), Ending::Win(DAN)),
        ((BEN, CAT), Ending::Win(BEN)),
        ((BEN, DAN), Ending::Win(BEN)),
        ((CAT, DAN), Ending::Win(CAT)),
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
    let rank = |p: Player| row(&table, p)[0].trim_end_matches('.').to_string();
    assert_eq!(
        [BEN, ANN, CAT, DAN].map(rank),
        ["1", "2", "3", "4"].map(String::from),
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

    /// An opponent's score as Buchholz counts it (FIDE's rule for
    /// unplayed games, as the server documents it): a round they did not
    /// play over the board (their bye) counts as a draw.
    fn score_for_buchholz_x2(&self, p: Player) -> u32 {
        (1..=self.rounds)
            .map(|r| match self.opponent(p, r) {
                Some(_) => self.result_x2(p, r).unwrap(),
                None => 1,
            })
            .sum()
    }

    /// Buchholz terms, one per round: the opponent's score, or for the
    /// player's own bye a virtual opponent's: points before the round +
    /// (1 - the bye's point) + ½ per round after it.
    fn buchholz_terms_x2(&self, p: Player) -> Vec<u32> {
        (1..=self.rounds)
            .map(|r| match self.opponent(p, r) {
                Some(o) => self.score_for_buchholz_x2(o),
                None => {
                    let before: u32 = (1..r).filter_map(|q| self.result_x2(p, q)).sum();
                    before + (2 - self.result_x2(p, r).unwrap()) + (self.rounds - r)
                }
            })
            .collect()
    }
}

/// A 5-player Swiss of 3 rounds by mail to the end: a bye each round (a
/// point, never twice to one player), no pair twice, each next round
/// paired by the very mail that ends the round's last board (and not
/// before), the final table mailed to everyone, scores, Buchholz and
/// Median-Buchholz checked against the FIDE rules worked out here from
/// the pairings the server made.
#[test]
fn a_swiss_of_five_over_three_rounds_is_played_to_the_end_by_mail() {
    let entrants = [ANN, BEN, CAT, DAN, EVE];
    let all = [ANN, BEN, CAT, DAN, EVE, FAY];
    let mut s = install_with(CONFIG, &all);
    let created = say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create autumn ann {} swiss 5 rounds 3",
            ANN.pw()
        ),
    );
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

/// The Swiss table shows each entrant's cells (`W3+`, `B1=`, `bye`; a
/// board in play `W3.`), points and, once every round is over, Buchholz
/// and Median-Buchholz, as `record` gives them.
fn check_swiss_table(table: &str, record: &SwissRecord, entrants: &[Player]) {
    let last = record.last_round();
    for p in entrants {
        let words = row(table, *p);
        // No Rk Player Rtng, a cell per round so far (the rounds to come
        // are blank), Pts Buch MBuch.
        assert_eq!(words.len(), 4 + last as usize + 3, "{words:?} in\n{table}");
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
            half_points(&words[n - 3]),
            Some(record.score_x2(*p)),
            "{p:?}'s points in\n{table}"
        );
        if record.pending.is_empty() && last == record.rounds {
            let terms = record.buchholz_terms_x2(*p);
            let sum: u32 = terms.iter().sum();
            let median = sum - terms.iter().max().unwrap() - terms.iter().min().unwrap();
            assert_eq!(
                half_points(&words[n - 2]),
                Some(sum),
                "{p:?}'s Buchholz {terms:?} in\n{table}"
            );
            assert_eq!(
                half_points(&words[n - 1]),
                Some(median),
                "{p:?}'s Median-Buchholz {terms:?} in\n{table}"
            );
        }
    }
}

/// Open a 4-player round robin `name` of ann, ben, cat and dan by mail;
/// its six boards.
fn started_round_robin(s: &mut Install, name: &str, all: &[Player]) -> Vec<Board> {
    let created = say(
        s,
        ANN,
        &format!(
            "chess tournament create {name} ann {} roundrobin 4",
            ANN.pw()
        ),
    );
    assert_ne!(mail_to(&created, ANN).subject, "Error", "{created:#?}");
    let mut boards = BTreeMap::new();
    for p in [BEN, CAT, DAN] {
        boards = new_boards(&tour(s, "join", name, p), name, all);
    }
    assert_round_robin_of_four(&boards);
    boards.into_values().collect()
}

/// The board of `x` against `y` among `boards`.
fn between(boards: &[Board], x: Player, y: Player) -> Board {
    boards
        .iter()
        .find(|b| (b.white, b.black) == (x, y) || (b.white, b.black) == (y, x))
        .unwrap()
        .clone()
}

/// A withdrawal before half of the player's games are finished annuls
/// them all: the win over them counts for no one, their boards in play
/// end, and nothing of theirs can be played any more.
#[test]
fn a_withdrawal_before_half_the_games_annuls_every_result() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    let boards = started_round_robin(&mut s, "early", &all);
    finish(&mut s, &between(&boards, ANN, DAN), Ending::Win(ANN));
    let before = show(&mut s, "early");
    assert_eq!(
        half_points(&row(&before, ANN)[score_column(&before)]),
        Some(2),
        "{before}"
    );

    let mails = tour(&mut s, "withdraw", "early", DAN);
    // Dan's two boards in play end, told to both players of each.
    for opp in [BEN, CAT] {
        let b = between(&boards, opp, DAN);
        let ended = format!("Chess Board {} finished", b.number);
        for p in [opp, DAN] {
            assert!(
                mails.iter().any(|m| m.to == p.addr() && m.subject == ended),
                "{p:?} is told board {} ended: {mails:#?}",
                b.number
            );
        }
        assert!(
            !mails.iter().any(|m| m.body.contains("rating went")),
            "an annulled game is not rated: {mails:#?}"
        );
        let refused = say(
            &mut s,
            opp,
            &format!("chess move {} {} {} e4", b.number, opp.user(), opp.pw()),
        );
        assert!(
            mail_to(&refused, opp).subject.ends_with("Error"),
            "{refused:#?}"
        );
    }
    let after = show(&mut s, "early");
    let column = score_column(&after);
    for p in [ANN, BEN, CAT, DAN] {
        assert_eq!(
            half_points(&row(&after, p)[column]),
            Some(0),
            "{p:?} has nothing from dan's annulled games: {after}"
        );
    }
    assert_every_mail_within_78_columns(&s);
}

/// A withdrawal after half of the player's games keeps their finished
/// results and loses the rest by forfeit, unrated.
#[test]
fn a_withdrawal_after_half_the_games_forfeits_the_rest_unrated() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    let boards = started_round_robin(&mut s, "late", &all);
    finish(&mut s, &between(&boards, ANN, DAN), Ending::Win(ANN));
    finish(&mut s, &between(&boards, BEN, DAN), Ending::Win(DAN));
    let players_before = mail_to(&say(&mut s, FAY, "chess players"), FAY).body;

    let mails = tour(&mut s, "withdraw", "late", DAN);
    let forfeited = between(&boards, CAT, DAN);
    let ended = format!("Chess Board {} finished", forfeited.number);
    assert!(
        mails
            .iter()
            .any(|m| m.to == CAT.addr() && m.subject == ended),
        "{mails:#?}"
    );
    assert!(
        !mails.iter().any(|m| m.body.contains("rating went")),
        "a forfeit is not rated: {mails:#?}"
    );
    let players_after = mail_to(&say(&mut s, FAY, "chess players"), FAY).body;
    assert_eq!(players_before, players_after, "no rating moved");
    let table = show(&mut s, "late");
    let column = score_column(&table);
    for (p, points) in [(ANN, 2), (BEN, 0), (CAT, 2), (DAN, 2)] {
        assert_eq!(
            half_points(&row(&table, p)[column]),
            Some(points),
            "{p:?}: {table}"
        );
    }
    assert_every_mail_within_78_columns(&s);
}

/// The index of the score column in the crosstable's rows.
fn score_column(table: &str) -> usize {
    let header = table
        .lines()
        .find(|l| l.starts_with("No "))
        .unwrap_or_else(|| panic!("a header line in\n{table}"));
    header
        .split_whitespace()
        .position(|w| w == "Pts")
        .unwrap_or_else(|| panic!("Pts in {header}"))
}

/// Each refusal is one plain sentence to the sender alone, and nothing of
/// it is stored: the listings and tables are as before.
#[test]
fn refused_tournament_commands_say_why_in_one_sentence_and_store_nothing() {
    let all = [ANN, BEN, CAT, DAN, EVE, FAY];
    let mut s = install_with(CONFIG, &all);
    let create =
        |name: &str, rest: &str| format!("chess tournament create {name} ann {} {rest}", ANN.pw());
    // A running one (three players, started when full), an open one.
    assert_ne!(
        mail_to(&say(&mut s, ANN, &create("full", "roundrobin 3")), ANN).subject,
        "Error"
    );
    for p in [BEN, CAT] {
        tour(&mut s, "join", "full", p);
    }
    assert_ne!(
        mail_to(&say(&mut s, ANN, &create("open", "swiss 8 rounds 3")), ANN).subject,
        "Error"
    );
    tour(&mut s, "join", "open", BEN);
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    let open_table = show(&mut s, "open");
    let full_table = show(&mut s, "full");

    for (who, subject, words) in refusal_cases() {
        let mails = say(&mut s, who, &subject);
        let sentence = refusal(&mails, who);
        assert!(
            words.iter().any(|w| sentence.contains(w)),
            "{subject}: one of {words:?} in {sentence:?}"
        );
    }
    // Nothing stored: the list and both tables are as they were.
    assert_eq!(
        mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body,
        listed
    );
    assert_eq!(show(&mut s, "open"), open_table);
    assert_eq!(show(&mut s, "full"), full_table);
    assert!(!open_table.contains("dan"), "{open_table}");
    assert_every_mail_within_78_columns(&s);
}

/// The refused commands of [`refused_tournament_commands_say_why_in_one_sentence_and_store_nothing`]
/// ("full" has started, "open" holds ann and ben): who sends what, and
/// words of which the refusal holds one.
fn refusal_cases() -> Vec<(Player, String, &'static [&'static str])> {
    let create =
        |name: &str, rest: &str| format!("chess tournament create {name} ann {} {rest}", ANN.pw());
    vec![
        (
            DAN,
            format!("chess tournament join full dan {}", DAN.pw()),
            &["started", "running", "full"],
        ),
        (
            DAN,
            format!("chess tournament join nosuch dan {}", DAN.pw()),
            &["nosuch"],
        ),
        (
            BEN,
            format!("chess tournament join open ben {}", BEN.pw()),
            &["already"],
        ),
        (
            DAN,
            "chess tournament join open dan wrong-pw".to_string(),
            &["password"],
        ),
        (
            BEN,
            format!("chess tournament leave full ben {}", BEN.pw()),
            &["started", "running", "withdraw"],
        ),
        (
            BEN,
            format!("chess tournament start open ben {}", BEN.pw()),
            &["creator", "admin"],
        ),
        (
            CAT,
            format!("chess tournament leave open cat {}", CAT.pw()),
            &["not"],
        ),
        (FAY, "chess tournament show nosuch".to_string(), &["nosuch"]),
        (ANN, create("Spring!", "roundrobin 4"), &["name"]),
        (
            ANN,
            create("a-name-of-seventeen", "roundrobin 4"),
            &["name", "16"],
        ),
        (
            ANN,
            create("open", "roundrobin 4"),
            &["open", "taken", "exists", "already"],
        ),
        (ANN, create("huge", "swiss 65 rounds 5"), &["64"]),
        (ANN, create("wide", "roundrobin 13"), &["12"]),
        (ANN, create("long", "swiss 64 rounds 21"), &["20"]),
        (
            ANN,
            create("again", "swiss 4 rounds 4"),
            &["3", "meet", "twice"],
        ),
        (ANN, create("tiny", "roundrobin 1"), &["players"]),
        (ANN, create("odd", "knockout 8"), &["roundrobin", "swiss"]),
    ]
}

/// A player may open only so many tournaments at once (three).
#[test]
fn a_player_opens_at_most_three_tournaments_at_once() {
    let mut s = install_with(CONFIG, &[ANN, FAY]);
    for name in ["one", "two", "three", "four"] {
        let mails = say(
            &mut s,
            ANN,
            &format!(
                "chess tournament create {name} ann {} roundrobin 4",
                ANN.pw()
            ),
        );
        if name == "four" {
            refusal(&mails, ANN);
        } else {
            assert_ne!(mail_to(&mails, ANN).subject, "Error", "{mails:#?}");
        }
    }
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    assert!(
        listed.contains("three") && !listed.contains("four"),
        "{listed}"
    );
}

/// Without `players_may_create` (the default), a player cannot open a
/// tournament; an admin can, by the CLI.
#[test]
fn players_may_not_create_tournaments_unless_the_server_allows_it() {
    let mut s = install_with("", &[ANN, FAY]);
    let mails = say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create spring ann {} roundrobin 4",
            ANN.pw()
        ),
    );
    refusal(&mails, ANN);
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    assert!(!listed.contains("spring"), "{listed}");
}

/// The text whose presence in a mail makes a debug build abort before
/// the mail's transaction commits (the test hook of `daemon::take_mail`),
/// as if the server were killed right after the mail before it did its
/// work in the same transaction.
const KILLER: &str = "KILLS-THE-SERVER";

/// One `poll` with the abort hook armed: it must die.
fn poll_killed(s: &Install) {
    let out = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("poll")
        .env("RUST_LOG", "error")
        .env("PBMCHESS_TEST_ABORT_ON", KILLER)
        .output()
        .unwrap();
    assert!(!out.status.success(), "the pass dies");
}

/// Boards in the database, by (white, black), counted.
fn boards_in_database(s: &Install) -> BTreeMap<(String, String), i64> {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT w.userid, b.userid, count(*) FROM board_players w \
             JOIN board_players b ON b.game = w.game AND b.board = w.board \
             WHERE w.seat = 0 AND b.seat = 1 GROUP BY w.userid, b.userid",
        )
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))
        .unwrap();
    rows.map(|r| r.unwrap()).collect()
}

/// A kill after the join that fills a tournament did its work, before
/// the commit: nothing of it stays, and the pass after the restart starts
/// the tournament with every board once, each announced once.
#[test]
fn a_kill_during_the_join_that_fills_the_tournament_creates_every_board_once() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create spring ann {} roundrobin 4",
            ANN.pw()
        ),
    );
    for p in [BEN, CAT] {
        tour(&mut s, "join", "spring", p);
    }
    s.send(
        &DAN.addr(),
        &format!("chess tournament join spring dan {}", DAN.pw()),
        "",
    );
    s.send(&FAY.addr(), "help", KILLER);
    poll_killed(&s);
    assert!(s.take_outbox().is_empty(), "nothing was sent");
    assert!(boards_in_database(&s).is_empty(), "no board was kept");
    // The restart (unarmed) works both mails.
    s.poll();
    let mails = s.take_outbox();
    let boards = new_boards(&mails, "spring", &all);
    assert_eq!(boards.len(), 6, "{mails:#?}");
    let stored = boards_in_database(&s);
    assert_eq!(stored.len(), 6, "{stored:?}");
    assert!(stored.values().all(|n| *n == 1), "{stored:?}");
    // A pass more changes nothing.
    s.poll();
    assert!(new_boards(&s.take_outbox(), "spring", &all).is_empty());
    assert_eq!(boards_in_database(&s), stored);
}

/// A kill after the mail that ends a Swiss round's last board did its
/// work (pairing the next round), before the commit: after the restart
/// the next round's boards exist once each, announced once.
#[test]
fn a_kill_during_the_mail_that_ends_a_round_pairs_the_next_round_once() {
    let entrants = [ANN, BEN, CAT, DAN];
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create cup ann {} swiss 4 rounds 3",
            ANN.pw()
        ),
    );
    let mut boards = BTreeMap::new();
    for &p in &entrants[1..] {
        boards = new_boards(&tour(&mut s, "join", "cup", p), "cup", &all);
    }
    let round1: Vec<Board> = boards.into_values().collect();
    assert_eq!(round1.len(), 2);
    finish(&mut s, &round1[0], Ending::Win(round1[0].white));
    let last = &round1[1];
    s.send(
        &last.black.addr(),
        &format!(
            "chess resign {} {} {}",
            last.number,
            last.black.user(),
            last.black.pw()
        ),
        "",
    );
    s.send(&FAY.addr(), "help", KILLER);
    let before = boards_in_database(&s);
    poll_killed(&s);
    assert!(s.take_outbox().is_empty(), "nothing was sent");
    assert_eq!(boards_in_database(&s), before, "no board was kept");
    s.poll();
    let round2 = new_boards(&s.take_outbox(), "cup", &all);
    assert_eq!(round2.len(), 2, "{round2:#?}");
    assert!(round2.values().all(|b| b.round == 2));
    let stored = boards_in_database(&s);
    assert_eq!(stored.len(), 4, "{stored:?}");
    assert!(stored.values().all(|n| *n == 1), "{stored:?}");
    s.poll();
    assert!(new_boards(&s.take_outbox(), "cup", &all).is_empty());
    assert_eq!(boards_in_database(&s), stored);
}

/// The admin opens a tournament by the CLI (players may not), players
/// join by mail, it starts when full; `admin tournament show` and `list`
/// print it. In another game than chess: its boards are of that game.
#[test]
fn an_admin_opens_a_tournament_by_the_cli_and_players_join_by_mail() {
    let all = [ANN, BEN, CAT, FAY];
    let mut s = install_with("", &all);
    let out = s.ok(&[
        "admin",
        "tournament",
        "create",
        "winter",
        "shadowchess",
        "--kind",
        "roundrobin",
        "--players",
        "3",
        "--double",
        "--forfeittime=9",
    ]);
    assert!(out.contains("winter"), "{out}");
    let listed = s.ok(&["admin", "tournament", "list"]);
    assert!(listed.contains("winter"), "{listed}");
    let mut boards = BTreeMap::new();
    for p in [ANN, BEN, CAT] {
        let mails = say(
            &mut s,
            p,
            &format!("shadowchess tournament join winter {} {}", p.user(), p.pw()),
        );
        assert!(mails.iter().all(|m| m.subject != "Error"), "{mails:#?}");
        boards = new_boards_of("Shadow Chess", &mails, "winter", &all);
    }
    // Double round robin of three: six boards, each pair once each way.
    assert_eq!(boards.len(), 6, "{boards:#?}");
    let pairs: BTreeSet<(Player, Player)> = boards.values().map(|b| (b.white, b.black)).collect();
    assert_eq!(pairs.len(), 6, "{pairs:?}");
    // The boards keep the tournament's timers.
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let forfeit: Vec<Option<i64>> = conn
        .prepare("SELECT forfeit_days FROM boards WHERE game = 'shadowchess'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(forfeit, vec![Some(9); 6]);
    let table = s.ok(&["admin", "tournament", "show", "winter"]);
    for p in [ANN, BEN, CAT] {
        row(&table, p);
    }
    // Chess has no tournament of that name.
    let mails = say(&mut s, FAY, "chess tournament show winter");
    refusal(&mails, FAY);
}

/// A player who signs off leaves the open tournaments they joined: the
/// tournament does not start with a board for an account that is gone.
#[test]
fn a_player_who_signs_off_is_not_paired_in_an_open_tournament() {
    let all = [ANN, BEN, CAT, DAN, EVE, FAY];
    let mut s = install_with(CONFIG, &all);
    say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create spring ann {} roundrobin 4",
            ANN.pw()
        ),
    );
    for p in [BEN, CAT] {
        tour(&mut s, "join", "spring", p);
    }
    say(&mut s, BEN, &format!("signoff ben {}", BEN.pw()));
    let dan = tour(&mut s, "join", "spring", DAN);
    let mut boards = new_boards(&dan, "spring", &all);
    let mut eve = Vec::new();
    if boards.is_empty() {
        eve = tour(&mut s, "join", "spring", EVE);
        boards = new_boards(&eve, "spring", &all);
    }
    assert_eq!(boards.len(), 6, "{dan:#?}\n{eve:#?}");
    assert!(
        boards.values().all(|b| b.white != BEN && b.black != BEN),
        "{boards:#?}"
    );
}

/// A player who withdraws from a Swiss while their board is the round's
/// last in play: that board is forfeited, and the same mail pairs the
/// next round without them.
#[test]
fn a_withdrawal_that_ends_a_swiss_round_pairs_the_next_round_without_the_player() {
    let entrants = [ANN, BEN, CAT, DAN, EVE];
    let all = [ANN, BEN, CAT, DAN, EVE, FAY];
    let mut s = install_with(CONFIG, &all);
    say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create cup ann {} swiss 5 rounds 3",
            ANN.pw()
        ),
    );
    let mut boards = BTreeMap::new();
    for &p in &entrants[1..] {
        boards = new_boards(&tour(&mut s, "join", "cup", p), "cup", &all);
    }
    let round1: Vec<Board> = boards.into_values().collect();
    assert_eq!(round1.len(), 2, "{round1:#?}");
    finish(&mut s, &round1[0], Ending::Win(round1[0].white));
    let quitter = round1[1].black;
    let mails = tour(&mut s, "withdraw", "cup", quitter);
    let ended = format!("Chess Board {} finished", round1[1].number);
    assert!(
        mails
            .iter()
            .any(|m| m.to == round1[1].white.addr() && m.subject == ended),
        "{mails:#?}"
    );
    let round2 = new_boards(&mails, "cup", &all);
    assert_eq!(round2.len(), 2, "four players left: two boards: {mails:#?}");
    assert!(round2.values().all(|b| b.round == 2));
    assert!(
        round2
            .values()
            .all(|b| b.white != quitter && b.black != quitter),
        "{quitter:?} is not paired again: {round2:#?}"
    );
    let table = show(&mut s, "cup");
    row(&table, quitter);
}

/// An admin who deletes a Swiss board of the round in play does not
/// leave the tournament stuck: either the delete is refused, or the
/// round still ends when its other board does.
#[test]
fn deleting_a_board_of_a_swiss_round_does_not_stall_the_tournament() {
    let entrants = [ANN, BEN, CAT, DAN];
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create cup ann {} swiss 4 rounds 2",
            ANN.pw()
        ),
    );
    let mut boards = BTreeMap::new();
    for &p in &entrants[1..] {
        boards = new_boards(&tour(&mut s, "join", "cup", p), "cup", &all);
    }
    let round1: Vec<Board> = boards.into_values().collect();
    let out = s.run(&[
        "admin",
        "board",
        "delete",
        "chess",
        &round1[1].number.to_string(),
    ]);
    s.poll();
    s.take_outbox();
    let deleted = out.status.success() && boards_in_database(&s).len() == 1;
    let mails = finish(&mut s, &round1[0], Ending::Win(round1[0].white));
    if deleted {
        let round2 = new_boards(&mails, "cup", &all);
        assert_eq!(round2.len(), 2, "round 2 is paired: {mails:#?}");
    } else {
        assert_eq!(boards_in_database(&s).len(), 2, "the delete was refused");
    }
}

/// The crosstable of a 40-player Swiss stays within 78 columns and a
/// bounded size.
#[test]
fn the_table_of_a_forty_player_swiss_fits_a_mail() {
    const NAMES: [&str; 40] = [
        "p00", "p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10", "p11", "p12",
        "p13", "p14", "p15", "p16", "p17", "p18", "p19", "p20", "p21", "p22", "p23", "p24", "p25",
        "p26", "p27", "p28", "p29", "p30", "p31", "p32", "p33", "p34", "p35", "p36", "p37", "p38",
        "p39",
    ];
    let mut players: Vec<Player> = NAMES.iter().map(|n| Player(n)).collect();
    players.push(FAY);
    let mut s = install_with(CONFIG, &players);
    say(
        &mut s,
        players[0],
        &format!(
            "chess tournament create big p00 {} swiss 40 rounds 9",
            players[0].pw()
        ),
    );
    let joins: Vec<(Player, String)> = players[1..40]
        .iter()
        .map(|p| {
            (
                *p,
                format!("chess tournament join big {} {}", p.user(), p.pw()),
            )
        })
        .collect();
    let mails = pass(&mut s, &joins);
    assert_eq!(new_boards(&mails, "big", &players).len(), 20);
    let table = show(&mut s, "big");
    for p in &players[..40] {
        row(&table, *p);
    }
    assert!(table.len() < 32 * 1024, "{} bytes", table.len());
    assert_every_mail_within_78_columns(&s);
}

/// Board mails announced in the in-process server's replies: (number,
/// round, white, black) by number.
fn world_new_boards(replies: &[pbmchess::mail::Outgoing], name: &str) -> BTreeMap<u32, Board> {
    let all = [ANN, BEN, CAT, DAN, EVE];
    replies
        .iter()
        .filter(|m| m.subject.starts_with("New Chess Board"))
        .map(|m| {
            let b = board_of(&m.body, name, &all);
            (b.number, b)
        })
        .collect()
}

/// A Swiss round whose last board ends by the timers' forfeit for
/// silence: the timers' run pairs the next round, and the silent player,
/// who has left the tournament as by a withdrawal, is not in it.
#[test]
fn a_forfeit_for_silence_ending_a_round_pairs_the_next_one_in_the_timers_run() {
    let mut w = common::world::World::new();
    w.config.tournaments.players_may_create = true;
    let entrants = [ANN, BEN, CAT, DAN, EVE];
    for p in entrants {
        w.mail(&p.addr(), &format!("signup {} {}", p.user(), p.pw()), "");
    }
    w.mail(
        &ANN.addr(),
        &format!(
            "chess tournament create cup ann {} swiss 5 rounds 3",
            ANN.pw()
        ),
        "",
    );
    for p in entrants {
        w.mail(
            &p.addr(),
            &format!("chess tournament join cup {} {}", p.user(), p.pw()),
            "",
        );
    }
    let round1: Vec<Board> = world_new_boards(&w.replies(), "cup")
        .into_values()
        .collect();
    assert_eq!(round1.len(), 2, "{round1:#?}");
    let (x, y) = (&round1[0], &round1[1]);
    w.mail(
        &x.black.addr(),
        &format!(
            "chess resign {} {} {}",
            x.number,
            x.black.user(),
            x.black.pw()
        ),
        "",
    );
    w.mail(
        &y.white.addr(),
        &format!(
            "chess move {} {} {} e4",
            y.number,
            y.white.user(),
            y.white.pw()
        ),
        "",
    );
    w.replies();
    // Black of the last board stays silent past the forfeit time.
    w.advance(chrono::Duration::days(22));
    w.ticks();
    let replies = w.replies();
    assert!(
        replies
            .iter()
            .any(|m| m.subject == format!("Chess Board {} finished", y.number)),
        "{replies:#?}"
    );
    let round2 = world_new_boards(&replies, "cup");
    assert_eq!(round2.len(), 2, "four players left: {replies:#?}");
    assert!(round2.values().all(|b| b.round == 2));
    assert!(
        round2
            .values()
            .all(|b| b.white != y.black && b.black != y.black),
        "the silent player is not paired again: {round2:#?}"
    );
}

/// The server's bound on tournaments not yet finished holds against
/// many creators (rotating accounts), not only per creator.
#[test]
fn the_server_holds_at_most_its_limit_of_unfinished_tournaments() {
    let all = [ANN, BEN, CAT, FAY];
    let mut s = install_with(&format!("{CONFIG}open_tournaments = 2\n"), &all);
    for (p, name) in [(ANN, "one"), (BEN, "two"), (CAT, "three")] {
        let mails = say(
            &mut s,
            p,
            &format!(
                "chess tournament create {name} {} {} roundrobin 4",
                p.user(),
                p.pw()
            ),
        );
        if name == "three" {
            let sentence = refusal(&mails, p);
            assert!(sentence.contains('2'), "{sentence}");
        } else {
            assert_ne!(mail_to(&mails, p).subject, "Error", "{mails:#?}");
        }
    }
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    assert!(
        listed.contains("two") && !listed.contains("three"),
        "{listed}"
    );
}

/// The creator starts a round robin before it is full: it is played by
/// those who joined (three: each sits out one round), and no one joins
/// after.
#[test]
fn the_creator_starts_a_tournament_before_it_is_full() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create spring ann {} roundrobin 6",
            ANN.pw()
        ),
    );
    tour(&mut s, "join", "spring", BEN);
    let early = tour(&mut s, "start", "spring", ANN);
    assert!(
        refusal(&early, ANN).contains('3'),
        "needs three: {early:#?}"
    );
    tour(&mut s, "join", "spring", CAT);
    let mails = tour(&mut s, "start", "spring", ANN);
    let boards = new_boards(&mails, "spring", &all);
    assert_eq!(boards.len(), 3, "{mails:#?}");
    let rounds: BTreeSet<u32> = boards.values().map(|b| b.round).collect();
    assert_eq!(rounds, [1, 2, 3].into(), "one board a round: {boards:#?}");
    let late = tour(&mut s, "join", "spring", DAN);
    refusal(&late, DAN);
}

/// A twelve-player round robin (the most) of the longest userids: its
/// crosstable, board mails and every other mail fit 78 columns.
#[test]
fn a_round_robin_of_twelve_long_userids_fits_78_columns() {
    let mut players: Vec<Player> = (0..12)
        .map(|i| {
            let name = format!("player_with_a_long_userid_{i:02}x");
            assert_eq!(name.len(), 29);
            Player(Box::leak(format!("{name}abc").into_boxed_str()))
        })
        .collect();
    players.push(FAY);
    let mut s = install_with(CONFIG, &players);
    let first = players[0];
    say(
        &mut s,
        first,
        &format!(
            "chess tournament create dozen {} {} roundrobin 12",
            first.user(),
            first.pw()
        ),
    );
    let joins: Vec<(Player, String)> = players[1..12]
        .iter()
        .map(|p| {
            (
                *p,
                format!("chess tournament join dozen {} {}", p.user(), p.pw()),
            )
        })
        .collect();
    let mails = pass(&mut s, &joins);
    let boards = new_boards(&mails, "dozen", &players);
    assert_eq!(boards.len(), 66);
    let board = boards.values().next().unwrap().clone();
    finish(&mut s, &board, Ending::Win(board.black));
    let table = show(&mut s, "dozen");
    for p in &players[..12] {
        row(&table, *p);
    }
    assert_every_mail_within_78_columns(&s);
}

/// The admin's adjudication of a Swiss round's last board pairs the next
/// round, as any other ending does.
#[test]
fn an_adjudication_ending_a_swiss_round_pairs_the_next_round() {
    let entrants = [ANN, BEN, CAT, DAN];
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create cup ann {} swiss 4 rounds 2",
            ANN.pw()
        ),
    );
    let mut boards = BTreeMap::new();
    for &p in &entrants[1..] {
        boards = new_boards(&tour(&mut s, "join", "cup", p), "cup", &all);
    }
    let round1: Vec<Board> = boards.into_values().collect();
    finish(&mut s, &round1[0], Ending::Draw);
    let last = &round1[1];
    s.ok(&[
        "admin",
        "board",
        "adjudicate",
        "chess",
        &last.number.to_string(),
        last.white.user(),
    ]);
    s.poll();
    let mails = s.take_outbox();
    let round2 = new_boards(&mails, "cup", &all);
    assert_eq!(round2.len(), 2, "{mails:#?}");
    assert!(round2.values().all(|b| b.round == 2));
    let met: BTreeSet<(Player, Player)> = round1
        .iter()
        .map(|b| (b.white.min(b.black), b.white.max(b.black)))
        .collect();
    for b in round2.values() {
        assert!(!met.contains(&(b.white.min(b.black), b.white.max(b.black))));
    }
}

/// The computer player entered by the admin plays its tournament boards
/// (it moves in the very mail that starts a board where it has White),
/// never gets mail, and scores in the crosstable like anyone.
#[test]
fn the_computer_entered_by_the_admin_plays_its_tournament_boards() {
    let all = [ANN, BEN, FAY, COMPUTER];
    let mut s = install_with("\n[computer]\nmove_seconds = 5.0\n", &all[..3]);
    s.ok(&[
        "admin",
        "tournament",
        "create",
        "robots",
        "chess",
        "--kind",
        "roundrobin",
        "--players",
        "3",
    ]);
    s.ok(&["admin", "tournament", "join", "robots", "computer"]);
    tour(&mut s, "join", "robots", ANN);
    let mails = tour(&mut s, "join", "robots", BEN);
    let boards = new_boards(&mails, "robots", &all);
    assert_eq!(boards.len(), 3, "{mails:#?}");
    for b in boards.values().filter(|b| b.white == COMPUTER) {
        let first = mails
            .iter()
            .find(|m| {
                m.subject
                    .starts_with(&format!("New Chess Board {} ", b.number))
            })
            .unwrap();
        assert!(
            first.body.contains("computer plays"),
            "the computer moved at once: {}",
            first.body
        );
    }
    let mut expected = RoundRobinTable {
        seeds: vec![COMPUTER, ANN, BEN],
        results: BTreeMap::new(),
    };
    for (x, y, ending) in [
        (ANN, COMPUTER, Ending::Win(COMPUTER)),
        (BEN, COMPUTER, Ending::Win(COMPUTER)),
        (ANN, BEN, Ending::Draw),
    ] {
        let board = boards
            .values()
            .find(|b| (b.white, b.black) == (x, y) || (b.white, b.black) == (y, x))
            .unwrap()
            .clone();
        finish(&mut s, &board, ending);
        expected.record(&board, ending);
    }
    expected.check(&show(&mut s, "robots"));
    assert!(
        !s.all_outbox_raw()
            .iter()
            .any(|raw| parse_sent(raw).to == COMPUTER.addr()),
        "the computer gets no mail"
    );
    assert_every_mail_within_78_columns(&s);
}
