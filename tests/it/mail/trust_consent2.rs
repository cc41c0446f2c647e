//! Trust and consent, continued: what one mail can make the server send, to
//! whom. Each attack is replayed with the mail that carried it, against the
//! real binary.

use crate::common;

use common::{joined, only_one, to, Install, SentMail};

const ALICE: &str = "alice@players.org";
const AUTHSERV: &str = "[security]\nauthserv_id = \"mx.games.test\"\n";

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

/// Bytes of the mails to `addr` (subjects and bodies).
fn bytes_to(mails: &[SentMail], addr: &str) -> usize {
    to(mails, addr)
        .iter()
        .map(|m| m.subject.len() + m.body.len())
        .sum()
}

const TWELVE_TOPICS: &str = "help commands reply if tournament chess doppelganger doublechess mchess shadowchess temporal zelig zelig2";

/// With `[security] authserv_id` set, a mail whose From the receiving MTA
/// did not authenticate may be anyone's: forged "from" a confirmed
/// player, it gets the answers a stranger gets (one help page, 16 KB),
/// not a player's, so a forger cannot aim the larger answers at players.
#[test]
fn with_authserv_id_an_unauthenticated_from_of_a_player_gets_a_strangers_answers() {
    let mut s = Install::with_config(AUTHSERV);
    // alice, confirmed (no confirmation asked on this server).
    round(&mut s, ALICE, "signup alice apw", "");
    let mails = round(&mut s, ALICE, TWELVE_TOPICS, "");
    let answer = only_one(&mails, ALICE);
    assert!(
        bytes_to(&mails, ALICE) <= 16 * 1024,
        "{}",
        bytes_to(&mails, ALICE)
    );
    assert!(
        joined(&answer.body).contains("This server sends one help page a command"),
        "{}",
        answer.body
    );
    let body = "help commands\nhelp if\nhelp tournament\nhelp temporal\nchess games\nhelp reply\n";
    let mails = round(&mut s, ALICE, "multiple", body);
    assert!(
        bytes_to(&mails, ALICE) <= 17 * 1024,
        "{}",
        bytes_to(&mails, ALICE)
    );
    // Authenticated, alice is the player she is: every page.
    let pass = "Authentication-Results: mx.games.test; dmarc=pass header.from=players.org\r\n";
    let raw = common::raw_mail(ALICE, TWELVE_TOPICS, "", "authed.1@players.org");
    s.deliver_raw(&raw.replacen("\r\n", &format!("\r\n{pass}"), 1));
    s.poll();
    let mails = s.take_outbox();
    assert!(
        bytes_to(&mails, ALICE) > 30 * 1024,
        "{}",
        bytes_to(&mails, ALICE)
    );
}

const BOB: &str = "bob@players.org";
const CAROL: &str = "carol@players.org";
const MALLORY: &str = "mallory@evil.org";

/// Whether `game` board between `a` and `b` exists.
fn board_between(s: &Install, a: &str, b: &str) -> bool {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let boards: i64 = conn
        .query_row(
            "SELECT count(*) FROM board_players a JOIN board_players b
             ON a.game = b.game AND a.board = b.board
             WHERE a.userid = ?1 AND b.userid = ?2",
            [a, b],
            |r| r.get(0),
        )
        .unwrap();
    boards > 0
}

/// A seeker at the head of the waiting list whose board cannot start (their
/// day's boards spent, or their settings refusing every challenge) is
/// passed over: they cannot keep everyone after them from being paired.
#[test]
fn a_waiting_seeker_who_cannot_play_does_not_block_the_waiting_list() {
    let mut s = Install::with_config("[limits]\nboards_per_player_per_day = 1\n");
    for (addr, userid) in [
        (ALICE, "alice"),
        (BOB, "bob"),
        (CAROL, "carol"),
        (MALLORY, "mallory"),
    ] {
        round(&mut s, addr, &format!("signup {userid} pw{userid}"), "");
    }
    // mallory waits first, then spends her day's board on bob.
    round(&mut s, MALLORY, "chess seek mallory pwmallory", "");
    let mails = round(&mut s, MALLORY, "chess challenge mallory bob", "");
    assert!(board_between(&s, "mallory", "bob"), "{mails:#?}");
    // alice seeks: mallory cannot play today, so alice waits.
    let mails = round(&mut s, ALICE, "chess seek alice pwalice", "");
    let answer = joined(&only_one(&mails, ALICE).body);
    assert!(answer.contains("alice is on the waiting list"), "{answer}");
    // carol seeks: she plays alice.
    round(&mut s, CAROL, "chess seek carol pwcarol", "");
    assert!(board_between(&s, "alice", "carol"));
    assert!(!board_between(&s, "mallory", "carol"));
}

/// Confirmation mails charged to accounts (a player's own `change
/// address`) are bounded server-wide too: accounts made for the purpose,
/// each confirmed at an address of the attacker's own domain, cannot each
/// spend their own hourly allowance on third parties past the server's
/// `[limits] unconfirmed_mails_per_hour`.
#[test]
fn accounts_made_for_it_cannot_mail_third_parties_past_the_servers_hour() {
    let mut s = Install::confirming("\n[limits]\nunconfirmed_mails_per_hour = 3\n");
    let mut victims = 0;
    for k in 0..4 {
        let addr = format!("m{k}@evil.org");
        let mails = round(&mut s, &addr, &format!("signup m{k} mpw{k}"), "");
        let code = mails[0]
            .subject
            .split_whitespace()
            .nth(3)
            .unwrap()
            .to_string();
        round(&mut s, &addr, &format!("confirm address m{k} {code}"), "");
        for v in ["a", "b"] {
            let mails = round(
                &mut s,
                &addr,
                &format!("change address m{k} mpw{k} {addr} v{k}{v}@victims.org"),
                "",
            );
            victims += mails
                .iter()
                .filter(|m| m.to.ends_with("@victims.org"))
                .count();
        }
    }
    assert!(victims <= 3, "{victims} mails to third parties");
}

/// One player's messages and chats reach one reader a bounded number of
/// times an hour: a player cannot bury another in mail by `message` (or
/// by `chat` on a board they observe); past the bound the reader is left
/// out and the author told.
#[test]
fn one_players_messages_to_another_are_bounded_an_hour() {
    let mut s = Install::new();
    round(&mut s, MALLORY, "signup mal mpw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    let mut to_bob = 0;
    let mut last = Vec::new();
    for i in 0..12 {
        last = round(
            &mut s,
            MALLORY,
            "message mal mpw bob",
            &format!("hello {i}"),
        );
        to_bob += to(&last, BOB).len();
    }
    assert!(to_bob <= 5, "{to_bob} messages to bob");
    let told = joined(&only_one(&last, MALLORY).body);
    assert!(told.contains("It did not go to bob"), "{told}");
}

/// The same bound holds for `chat` on a board the author only observes.
#[test]
fn an_observers_chats_to_a_boards_players_are_bounded_an_hour() {
    let mut s = Install::new();
    round(&mut s, MALLORY, "signup mal mpw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    round(&mut s, CAROL, "signup carol cpw", "");
    round(&mut s, BOB, "chess challenge bob carol", "");
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let board: i64 = conn
        .query_row("SELECT max(board) FROM boards", [], |r| r.get(0))
        .unwrap();
    let mails = round(
        &mut s,
        MALLORY,
        &format!("chess subscribe {board} mal mpw"),
        "",
    );
    assert!(!mails.is_empty());
    let mut to_bob = 0;
    let mut last = Vec::new();
    for i in 0..8 {
        last = round(
            &mut s,
            MALLORY,
            &format!("chess chat {board} mal mpw"),
            &format!("hi {i}"),
        );
        to_bob += to(&last, BOB).len();
    }
    assert!(to_bob <= 5, "{to_bob} chats to bob");
    let told = joined(&only_one(&last, MALLORY).body);
    assert!(told.contains("It did not go to bob and carol"), "{told}");
}
