//! Passwords guessed by mail, as an attacker sends them:
//! charges that no rollback undoes, no oracle in what a refusal masks or
//! how long an answer is, argon2id as a budget per mail, lockouts that a
//! stranger cannot impose on the owner, and passwords never repeated.
//! Through the real binary (`poll`, Maildir in and out) where the mail is
//! the attack; through the library where a clock or a count of argon2id
//! checks is needed.

use crate::common;

use chrono::Duration;
use common::world::World;
use common::{only_one, Install, SentMail};
use pbmchess::mail::Envelope;
use pbmchess::server::Server;
use rusqlite::Connection;

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";
const MALLORY: &str = "mallory@m.example";

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

/// `poll` with the log at info level; returns what it logged.
fn poll_logged(s: &Install) -> String {
    let out = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("poll")
        .env("RUST_LOG", "info")
        .output()
        .expect("the binary runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn db(s: &Install) -> Connection {
    Connection::open(s.path("var/db.sqlite")).unwrap()
}

/// Wrong passwords counted in the throttle bucket `key`.
fn failures(s: &Install, key: &str) -> i64 {
    db(s)
        .query_row(
            "SELECT coalesce(sum(failures), 0) FROM password_failures WHERE userid = ?1",
            [key],
            |r| r.get(0),
        )
        .unwrap()
}

/// Commands counted this hour for `scope`/`key`.
fn commands(s: &Install, scope: &str, key: &str) -> i64 {
    db(s)
        .query_row(
            "SELECT coalesce(sum(count), 0) FROM command_counts WHERE scope = ?1 AND key = ?2",
            [scope, key],
            |r| r.get(0),
        )
        .unwrap()
}

/// alice and bob signed up (addresses on file), a board between them.
fn two_players(extra: &str) -> Install {
    let mut s = Install::with_config(extra);
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    round(&mut s, ALICE, "chess challenge alice bob", "");
    s
}

fn assert_nowhere(mails: &[SentMail], secret: &str) {
    for m in mails {
        assert!(
            !m.subject.to_lowercase().contains(secret),
            "{secret} in {m:#?}"
        );
        assert!(
            !m.body.to_lowercase().contains(secret),
            "{secret} in {m:#?}"
        );
    }
}

// ------------------------------------------------------------ rollbacks

/// Five guesses of alice's password, then three long answers: the answers
/// are too large, so the mail is rolled back whole.
fn guesses_and_long_answers(guesses: &[&str]) -> String {
    let mut body: String = guesses
        .iter()
        .map(|g| format!("chess set alice {g} small\n"))
        .collect();
    body.push_str("help\nhelp chess\nhelp commands\n");
    body
}

#[test]
fn guesses_in_a_mail_whose_answers_are_too_large_stay_counted() {
    let mut s = two_players("\n[limits]\nmax_reply_bytes = 3000\n");
    let server_before = commands(&s, "server", "");
    let mails = round(
        &mut s,
        MALLORY,
        "multiple",
        &guesses_and_long_answers(&["g1", "g2", "g3", "g4", "g5"]),
    );
    let answer = only_one(&mails, MALLORY);
    assert!(
        answer.body.contains("longer than the 3000 bytes"),
        "{}",
        answer.body
    );
    // Rolled back, and still charged: five wrong passwords (a stranger's)
    // and the commands that ran (the five and the answers up to the
    // bound) against the address and the server.
    assert_eq!(failures(&s, "stranger:alice"), 5);
    let ran = commands(&s, "address", MALLORY);
    assert!((6..=8).contains(&ran), "{ran}");
    assert_eq!(commands(&s, "server", ""), server_before + ran);
    // The owner is told of the lockout the rolled-back mail began.
    assert_eq!(
        only_one(&mails, ALICE).subject,
        "Account locked for a while"
    );
    // The same mail again guesses nothing: the strangers' bucket is locked.
    let mails = round(
        &mut s,
        MALLORY,
        "multiple",
        &guesses_and_long_answers(&["g6", "apw", "g8", "g9", "g10"]),
    );
    assert_eq!(failures(&s, "stranger:alice"), 5);
    // Charged again (its locked lines give shorter answers, so more of
    // its answers may run before the bound).
    assert!(commands(&s, "address", MALLORY) >= ran + 6);
    assert!(only_one(&mails, MALLORY).body.contains("longer than"));
}

#[test]
fn a_too_large_answer_does_not_tell_its_size_or_whether_a_guess_was_right() {
    let mut s = two_players("\n[limits]\nmax_reply_bytes = 3000\n");
    let wrong = round(
        &mut s,
        MALLORY,
        "multiple",
        &guesses_and_long_answers(&["g1"]),
    );
    let right = round(
        &mut s,
        "eve@e.example",
        "multiple",
        &guesses_and_long_answers(&["apw"]),
    );
    let (wrong, right) = (only_one(&wrong, MALLORY), only_one(&right, "eve@e.example"));
    assert_eq!(wrong.body, right.body);
    assert_eq!(wrong.subject, right.subject);
    // The only number it tells is the bound.
    let numbers: Vec<&str> = wrong
        .body
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .collect();
    assert_eq!(numbers, ["3000"], "{}", wrong.body);
    assert_nowhere(std::slice::from_ref(right), "apw");
}

// ------------------------------------------------------------ the oracle

#[test]
fn a_wrong_password_masks_every_word_after_it_whichever_is_the_password() {
    let mut s = two_players("");
    // bob's password is among the words: the quote looks the same.
    let with = round(&mut s, MALLORY, "message bob lion bpw wolf tiger", "");
    let without = round(&mut s, MALLORY, "message bob lion bear wolf tiger", "");
    let (with, without) = (only_one(&with, MALLORY), only_one(&without, MALLORY));
    assert!(
        with.body.contains("message bob ***** ***** ***** *****"),
        "{}",
        with.body
    );
    assert_eq!(with.body, without.body);
    for word in ["bpw", "bear", "wolf", "tiger"] {
        assert_nowhere(&[with.clone(), without.clone()], word);
    }
    // Nothing was checked but the password: one failure each.
    assert_eq!(failures(&s, "stranger:bob"), 2);
}

#[test]
fn a_misplaced_password_costs_no_more_checks_than_the_password() {
    let mut w = World::with_board();
    let server = Server::new(&w.config, &w.clock, &w.templates);
    let env = |subject: &str| Envelope {
        message_id: format!("{subject}@t"),
        sender: Some("m@x".into()),
        subject: subject.into(),
        body: String::new(),
        comment: String::new(),
        never_answer: None,
        replied_to: Vec::new(),
        auth_results: Vec::new(),
    };
    server
        .handle_mail(&mut w.conn, &env("message bob lion bear wolf tiger"), 100)
        .unwrap();
    assert_eq!(server.credentials.stats().verifications, 1);
    server
        .handle_mail(
            &mut w.conn,
            &env("message nobody lion bear wolf tiger"),
            100,
        )
        .unwrap();
    assert_eq!(server.credentials.stats().verifications, 2);
}

// ------------------------------------------------------------ budget

fn fresh_userid_guesses(n: usize) -> String {
    (0..n)
        .map(|i| format!("chess move 101 fresh{i} guess{i} e4\n"))
        .collect()
}

#[test]
fn fifty_wrong_passwords_for_fresh_userids_cost_five_checks() {
    let mut w = World::with_board();
    let server = Server::new(&w.config, &w.clock, &w.templates);
    let env = Envelope {
        message_id: "fifty@t".into(),
        sender: Some("m@x".into()),
        subject: "multiple".into(),
        body: fresh_userid_guesses(50),
        comment: String::new(),
        never_answer: None,
        replied_to: Vec::new(),
        auth_results: Vec::new(),
    };
    server.handle_mail(&mut w.conn, &env, 3000).unwrap();
    assert_eq!(server.credentials.stats().verifications, 5);
    let r = w.replies();
    assert_eq!(r.len(), 1, "{r:#?}");
    let body = &r[0].body;
    assert_eq!(body.matches("There is no user by the userid").count(), 5);
    assert_eq!(body.matches("used the 5 password checks").count(), 1);
    // A userid that does not exist is never repeated: it may be a password.
    assert!(!body.contains("fresh"), "{body}");
    // Nor stored.
    let stored: i64 = w
        .conn
        .query_row(
            "SELECT count(*) FROM password_failures WHERE userid LIKE '%fresh%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stored, 0);
    // All fifty lines count against the address and the server.
    let counted: i64 = w
        .conn
        .query_row(
            "SELECT count FROM command_counts WHERE scope = 'server'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(counted >= 50, "{counted}");
}

#[test]
fn guessing_stops_from_any_address_once_the_servers_hour_is_spent() {
    let mut w = World::with_board();
    w.config.limits.commands_per_hour_total = 20;
    let server = Server::new(&w.config, &w.clock, &w.templates);
    let mut checks_of = |from: &str, n: usize| {
        let env = Envelope {
            message_id: format!("{from}@t"),
            sender: Some(from.into()),
            subject: "multiple".into(),
            body: fresh_userid_guesses(n),
            comment: String::new(),
            never_answer: None,
            replied_to: Vec::new(),
            auth_results: Vec::new(),
        };
        let before = server.credentials.stats().verifications;
        server.handle_mail(&mut w.conn, &env, 3000).unwrap();
        server.credentials.stats().verifications - before
    };
    // Each fresh address spends its five checks until the hour is spent.
    assert_eq!(checks_of("r1@x", 10), 5);
    assert_eq!(checks_of("r2@x", 10), 5);
    assert_eq!(checks_of("r3@x", 10), 0);
    assert_eq!(checks_of("r4@x", 10), 0);
    let r = w.replies();
    assert!(
        r.iter()
            .any(|m| m.to == "r4@x" && m.body.contains("taken all the 20 commands")),
        "{r:#?}"
    );
    // A player's own address still moves with the right password.
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    assert!(
        r.iter().any(|m| m.subject == "Chess Board 101 bob"),
        "{r:#?}"
    );
}

#[test]
fn wrong_passwords_from_an_address_over_its_limit_are_dropped() {
    let mut s = two_players("\n[limits]\ncommands_per_hour = 3\n");
    round(&mut s, MALLORY, "help", "");
    round(&mut s, MALLORY, "help", "");
    round(&mut s, MALLORY, "help", "");
    let mails = round(&mut s, MALLORY, "chess move 101 alice guess e4", "");
    assert!(
        only_one(&mails, MALLORY)
            .body
            .contains("more than 3 commands"),
        "{mails:#?}"
    );
    let mails = round(&mut s, MALLORY, "chess move 101 alice guess2 e4", "");
    assert!(mails.is_empty(), "{mails:#?}");
    assert_eq!(failures(&s, "stranger:alice"), 0);
}

// ------------------------------------------------------------ lockouts

#[test]
fn a_strangers_wrong_passwords_do_not_lock_the_owners_addresses() {
    let mut s = two_players("");
    let body: String = (0..10)
        .map(|i| format!("chess move 101 alice guess{i} e4\n"))
        .collect();
    let mails = round(&mut s, MALLORY, "multiple", &body);
    let answer = &only_one(&mails, MALLORY).body;
    assert!(
        answer.contains("alice takes no password from addresses not on file for it"),
        "{answer}"
    );
    assert_eq!(
        only_one(&mails, ALICE).subject,
        "Account locked for a while"
    );
    // alice, from her own address, plays.
    let mails = round(&mut s, ALICE, "chess move 101 alice apw e4", "");
    assert_eq!(only_one(&mails, BOB).subject, "Chess Board 101 bob");
    // The stranger stays locked out, right password or not.
    let mails = round(&mut s, MALLORY, "chess move 101 alice apw e5", "");
    assert!(only_one(&mails, MALLORY)
        .body
        .contains("takes no password from addresses not on file"));
}

#[test]
fn an_account_is_told_of_lockouts_at_most_once_a_day() {
    let mut w = World::with_board();
    let guesses: String = (0..5)
        .map(|i| format!("chess move 101 alice guess{i} e4\n"))
        .collect();
    let mut notices = 0;
    for _ in 0..4 {
        w.mail("m@x", "multiple", &guesses);
        notices += w
            .replies()
            .iter()
            .filter(|m| m.subject == "Account locked for a while")
            .count();
        w.advance(Duration::minutes(20));
    }
    assert_eq!(notices, 1);
    w.advance(Duration::days(1));
    w.mail("m@x", "multiple", &guesses);
    assert_eq!(
        w.replies()
            .iter()
            .filter(|m| m.subject == "Account locked for a while")
            .count(),
        1
    );
}

#[test]
fn wrong_confirmation_codes_lock_neither_the_password_nor_the_owners_code() {
    let mut s = Install::confirming("");
    let mails = round(&mut s, "carol@c.example", "signup carol cpw", "");
    let code = only_one(&mails, "carol@c.example")
        .subject
        .split_whitespace()
        .nth(3)
        .unwrap()
        .to_string();
    let body = "confirm address carol AAAAAA\n".repeat(10);
    let mails = round(&mut s, MALLORY, "multiple", &body);
    assert!(
        only_one(&mails, MALLORY)
            .body
            .contains("carol takes no confirmation code"),
        "{mails:#?}"
    );
    assert_eq!(failures(&s, "stranger:carol") + failures(&s, "carol"), 0);
    // Her password works, from anywhere.
    let mails = round(&mut s, MALLORY, "chess set carol cpw small", "");
    assert!(
        !only_one(&mails, MALLORY).body.contains("takes no"),
        "{mails:#?}"
    );
    // Her own code, from her address, confirms it.
    let mails = round(
        &mut s,
        "carol@c.example",
        &format!("Re: confirm address carol {code}"),
        "",
    );
    assert!(
        only_one(&mails, "carol@c.example")
            .body
            .contains("is confirmed"),
        "{mails:#?}"
    );
}

// ------------------------------------------------------------ never repeated

#[test]
fn a_password_in_quotes_or_brackets_is_not_relayed() {
    let mut s = two_players("");
    let mails = round(
        &mut s,
        ALICE,
        "chess chat 101 alice apw",
        "my password is 'apw', (apw) or \"APW\". Keep it.",
    );
    let chat = only_one(&mails, BOB);
    assert!(
        chat.body
            .contains("my password is '*****', (*****) or \"*****\". Keep it."),
        "{}",
        chat.body
    );
    assert_nowhere(&mails, "apw");
}

#[test]
fn a_password_typed_as_the_move_is_not_repeated() {
    let mut s = two_players("");
    s.send(ALICE, "chess move 101 alice apw 'APW'", "");
    let log = poll_logged(&s);
    let mails = s.take_outbox();
    let answer = &only_one(&mails, ALICE).body;
    assert!(answer.contains("is not a move"), "{answer}");
    assert_nowhere(&mails, "apw");
    assert!(!log.to_lowercase().contains("apw"), "{log}");
}

#[test]
fn a_password_in_the_userid_slot_is_not_repeated_stored_or_logged() {
    let mut s = two_players("");
    s.send(ALICE, "chess move 101 Secret1 apw e4", "");
    let log = poll_logged(&s);
    let mails = s.take_outbox();
    let answer = &only_one(&mails, ALICE).body;
    assert!(
        answer.contains("There is no user by the userid"),
        "{answer}"
    );
    assert_nowhere(&mails, "secret1");
    assert!(!log.to_lowercase().contains("secret1"), "{log}");
    let stored: i64 = db(&s)
        .query_row(
            "SELECT count(*) FROM password_failures WHERE lower(userid) LIKE '%secret1%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stored, 0);
    // Counted all the same, under a hash of it.
    let hashed: i64 = db(&s)
        .query_row(
            "SELECT count(*) FROM password_failures WHERE userid LIKE '#%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(hashed, 1);
}

#[test]
fn a_password_added_to_a_challenge_is_neither_quoted_nor_logged() {
    let mut s = two_players("");
    s.send(ALICE, "chess challenge alice bob apw", "");
    let log = poll_logged(&s);
    let mails = s.take_outbox();
    let answer = &only_one(&mails, ALICE).body;
    assert!(answer.contains("names 3 players"), "{answer}");
    assert_nowhere(&mails, "apw");
    assert!(log.contains("mail processed"), "{log}");
    assert!(!log.contains("apw"), "{log}");
}

#[test]
fn boards_started_by_a_mail_whose_answers_are_too_large_still_count() {
    let mut s =
        Install::with_config("\n[limits]\nmax_reply_bytes = 3000\nboards_per_player_per_day = 1\n");
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    let mails = round(
        &mut s,
        BOB,
        "multiple",
        "chess challenge bob alice\nhelp\nhelp chess\nhelp commands\n",
    );
    assert!(only_one(&mails, BOB).body.contains("longer than"));
    let boards: i64 = db(&s)
        .query_row("SELECT count(*) FROM boards", [], |r| r.get(0))
        .unwrap();
    assert_eq!(boards, 0, "the board was rolled back");
    // bob was put on a board all the same: the day's one is spent.
    let mails = round(&mut s, BOB, "chess challenge bob alice", "");
    assert!(
        only_one(&mails, BOB)
            .body
            .contains("bob has been put on 1 new boards in the last 24 hours"),
        "{mails:#?}"
    );
}
