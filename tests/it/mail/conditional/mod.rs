//! Conditional moves by mail, through the real binary (Maildir
//! in and out, `poll`): trees entered by Subject, by `multiple` and by
//! reply; answers played in the opponent's mail's transaction and marked
//! `(Cond)`; deviations clearing the tree and telling only its owner; the
//! opponent and observers never seeing a tree; clashes, bounds, illegal
//! plies and wrong passwords refused with nothing stored; list and cancel;
//! queue and tree replacing each other; draw offers and undo requests
//! leaving the tree, an accepted undo and resignation
//! clearing the tree; Double Chess castling, Shadow Chess reveals and
//! Zelig; a tree answer applied once across a kill; the answers to `if`
//! and `queue` taking a reply, a reply to a mail that takes none told why,
//! only the player to act invited to play; a refused line shown on the
//! board it reaches; the tree numbered as the move list. Every mail the
//! server sends here is checked to stay within 78 columns.

use crate::common;

use common::{joined, to, Install, SentMail, SERVER_ADDRESS};

mod answering;
mod clearing;
mod crash;
mod entering;
mod mails;
mod privacy;
mod variants;

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";
const CAROL: &str = "carol@players.test";

/// A board of `game` between alice (White, password apw) and bob (Black,
/// bpw), carol (cpw) observing it; `extra` is added to the config.
fn board_with_config(game: &str, extra: &str) -> Install {
    let mut s = Install::with_config(extra);
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(CAROL, "signup carol cpw", "");
    s.send(ALICE, &format!("{game} challenge alice bob"), "");
    s.send(CAROL, &format!("{game} subscribe 101 carol cpw"), "");
    s.poll();
    for m in s.take_outbox() {
        assert_fits(&m);
    }
    s
}

fn board(game: &str) -> Install {
    board_with_config(game, "")
}

/// Fail the test on any line of the mail (text part, and the raw message
/// as sent) longer than 78 columns.
fn assert_fits(m: &SentMail) {
    for line in m.body.lines().chain(m.raw.lines()) {
        assert!(
            line.trim_end_matches('\r').chars().count() <= 78,
            "a line over 78 columns in the mail to {} ({}): {line:?}\n{}",
            m.to,
            m.subject,
            m.body
        );
    }
}

/// Mail the server, run one pass, and take what it sent (each checked for
/// width).
fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    let mails = s.take_outbox();
    for m in &mails {
        assert_fits(m);
    }
    mails
}

/// The one mail to `addr` in `mails`, cloned.
fn one(mails: &[SentMail], addr: &str) -> SentMail {
    let mine = to(mails, addr);
    assert_eq!(mine.len(), 1, "one mail to {addr}: {mails:#?}");
    mine[0].clone()
}

/// The player's move by Subject.
fn play(s: &mut Install, game: &str, who: &str, mv: &str) -> Vec<SentMail> {
    let (from, pw) = seat(who);
    round(s, from, &format!("{game} move 101 {who} {pw} {mv}"), "")
}

/// A conditional command by Subject: `what` is the line, `list`, or
/// `cancel [...]`.
fn cond(s: &mut Install, game: &str, who: &str, what: &str) -> Vec<SentMail> {
    let (from, pw) = seat(who);
    round(s, from, &format!("{game} if 101 {who} {pw} {what}"), "")
}

fn seat(who: &str) -> (&'static str, &'static str) {
    match who {
        "alice" => (ALICE, "apw"),
        "bob" => (BOB, "bpw"),
        _ => panic!("no player {who}"),
    }
}

/// What an error mail says, as one line: its prose before the quoted
/// command (and before a board drawn under it).
fn message_of(m: &SentMail) -> String {
    let prose = m.body.split("Your command was:").next().unwrap_or_default();
    let prose = prose.split("\n\n").next().unwrap_or_default();
    joined(prose)
}

/// The board as `admin show` prints it.
fn shown(s: &Install, game: &str) -> String {
    s.ok(&["admin", "show", game, "101"])
}

/// How many plies board 101 of `game` has.
fn plies(s: &Install, game: &str) -> i64 {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    conn.query_row(
        "SELECT count(*) FROM plies WHERE game = ?1 AND board = 101",
        [game],
        |r| r.get(0),
    )
    .unwrap()
}

/// How many conditional lines anyone holds on board 101 of `game`, as
/// stored.
fn held_lines(s: &Install, game: &str) -> i64 {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    conn.query_row(
        "SELECT count(*) FROM conditional_lines WHERE game = ?1 AND board = 101",
        [game],
        |r| r.get(0),
    )
    .unwrap()
}

/// The answer to a conditional command that changed nothing anyone else
/// sees: mail to its sender only, none to the opponent or the observer.
fn private_to(mails: &[SentMail], addr: &str) -> SentMail {
    for other in [ALICE, BOB, CAROL].into_iter().filter(|a| *a != addr) {
        assert!(
            to(mails, other).is_empty(),
            "{other} hears nothing of a conditional command: {mails:#?}"
        );
    }
    one(mails, addr)
}

/// Nothing in a mail hints at a tree: none of `unplayed` in the text,
/// and, unless `played_marks` (an answer was played, and its mark may
/// say so), no `(Cond)` mark and no word "conditional".
fn assert_no_hint(m: &SentMail, unplayed: &[&str], played_marks: bool) {
    let raw = m.raw.to_lowercase();
    if !played_marks {
        assert!(
            !raw.contains("conditional"),
            "the mail to {} mentions conditional moves:\n{}",
            m.to,
            m.body
        );
        assert!(
            !raw.contains("(cond)"),
            "the mail to {} shows a (Cond) mark:\n{}",
            m.to,
            m.body
        );
    }
    // The player's own command quoted back in an error is not a hint.
    let mut quoted = false;
    let body: String = m
        .body
        .lines()
        .filter(|l| {
            let skip = quoted;
            quoted = l.starts_with("Your command was:");
            !skip
        })
        .collect::<Vec<_>>()
        .join("\n");
    for mv in unplayed {
        assert!(
            !body.contains(mv),
            "the mail to {} shows the tree's move {mv}:\n{}",
            m.to,
            m.body
        );
    }
}

const RUY_LOPEZ: [&str; 10] = [
    "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1",
];

/// alice (White) after 1. e4, holding the tree
/// e5 Nf3 (Nc6 Bb5 | d6 d4) and c5 Nc3.
fn with_tree() -> Install {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    for line in ["e5 Nf3 Nc6 Bb5", "e5 Nf3 d6 d4", "c5 Nc3"] {
        let mails = cond(&mut s, "chess", "alice", line);
        let answer = private_to(&mails, ALICE);
        assert!(!answer.subject.contains("Error"), "{line}: {}", answer.body);
    }
    s
}

/// A reply to `m` (a board mail) from `from` whose first line is `line`,
/// as a mail program writes it: the board mail quoted under it.
fn reply_to(m: &SentMail, from: &str, id: &str, line: &str) -> String {
    let parent = m.header("Message-ID").expect("a Message-ID");
    let quoted: String = m.body.lines().map(|l| format!("> {l}\r\n")).collect();
    format!(
        "From: {from}\r\nTo: {SERVER_ADDRESS}\r\nSubject: Re: {}\r\nMessage-ID: <{id}>\r\n\
         In-Reply-To: {parent}\r\nReferences: {parent}\r\nDate: Mon, 23 Nov 2026 10:05:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         {line}\r\n\r\nOn Mon, 23 Nov 2026, Test PBM wrote:\r\n{quoted}",
        m.subject
    )
}
