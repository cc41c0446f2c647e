//! Tournaments by mail through the real binary: a 4-player
//! round robin and a 5-player 3-round Swiss played to the end with
//! fool's mates, resignations and agreed draws, every crosstable checked
//! against values worked out here by hand (or, for the Swiss, from the
//! pairings the server made and the results the test chose); withdrawals;
//! the refusals, each one sentence with nothing stored; every mail within
//! 78 columns.

mod admin;
mod kills;
mod pgn;
mod refusals;
mod round_robin;
mod running;
mod swiss;
mod withdrawal;

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
/// `by` creates tournament `name` of `plan` (`roundrobin 4`, `swiss 4
/// rounds 2`, …) by mail; the mails of that pass.
fn create_tournament(s: &mut Install, by: Player, name: &str, plan: &str) -> Vec<SentMail> {
    let subject = format!(
        "chess tournament create {name} {} {} {plan}",
        by.user(),
        by.pw()
    );
    say(s, by, &subject)
}

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

/// The notices of tournament `name` to `p` among `mails` (its answers
/// too), each as one line of text (wrapping undone).
fn notices(mails: &[SentMail], p: Player, name: &str) -> Vec<String> {
    let subject = format!("Chess tournament {name}");
    mails
        .iter()
        .filter(|m| m.to == p.addr() && m.subject == subject)
        .map(|m| joined(&m.body))
        .collect()
}
