//! Passwords never come back, whatever the word order:
//! every order of a move's words, sent through the real binary (`poll`,
//! Maildir in and out), gets replies and a log without the password; a
//! right password in a wrong place is told as words out of order.

use crate::common;

use common::{only_one, Install, SentMail};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";
const MALLORY: &str = "mallory@m.example";
const PW: &str = "Secret1";

/// alice (password `Secret1`) and bob with a board between them, limits
/// raised so that many mails in a row are all answered.
fn players() -> Install {
    let mut s = Install::with_config(
        "password_failures = 100000\n\n[limits]\ncommands_per_hour = 100000\n\
         commands_per_hour_per_account = 100000\ncommands_per_hour_total = 100000\n",
    );
    s.send(ALICE, &format!("signup alice {PW}"), "");
    s.send(BOB, "signup bob Bobs-pw9", "");
    s.poll();
    s.send(ALICE, "chess challenge alice bob", "");
    s.poll();
    s.take_outbox();
    s
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

fn round(s: &mut Install, from: &str, subject: &str) -> (Vec<SentMail>, String) {
    s.send(from, subject, "");
    let log = poll_logged(s);
    (s.take_outbox(), log)
}

fn assert_nowhere(mails: &[SentMail], log: &str, secret: &str) {
    let secret = secret.to_lowercase();
    for m in mails {
        assert!(
            !m.raw.to_lowercase().contains(&secret),
            "{secret} in {m:#?}"
        );
        assert!(
            !m.body.to_lowercase().contains(&secret),
            "{secret} in {m:#?}"
        );
    }
    assert!(!log.to_lowercase().contains(&secret), "{secret} in {log}");
}

/// Every order of `items`.
fn permutations(items: &[&'static str]) -> Vec<Vec<&'static str>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

#[test]
fn no_order_of_a_moves_words_brings_the_password_back() {
    let mut s = players();
    let orders = permutations(&["move", "101", "alice", PW, "e4"]);
    assert_eq!(orders.len(), 120);
    for order in &orders {
        s.send(ALICE, &format!("chess {}", order.join(" ")), "");
    }
    let log = poll_logged(&s);
    let mails = s.take_outbox();
    // Every mail was answered.
    assert!(mails.len() >= 120, "{}", mails.len());
    assert!(log.matches("mail processed").count() >= 120, "{log}");
    assert_nowhere(&mails, &log, PW);
    // The right order played; several wrong ones were told so.
    assert!(
        mails
            .iter()
            .any(|m| m.to == BOB && m.body.contains("1. e4")),
        "{mails:#?}"
    );
    let told = mails
        .iter()
        .filter(|m| m.body.contains("The words are out of order"))
        .count();
    assert!(told > 10, "{told}");
}

#[test]
fn a_right_password_in_the_userid_slot_is_told_as_words_out_of_order() {
    let mut s = players();
    let (mails, log) = round(&mut s, ALICE, &format!("chess move 101 {PW} alice e4"));
    let answer = &only_one(&mails, ALICE).body;
    assert!(
        answer.contains("The words are out of order: chess move BOARD USERID PASSWORD MOVE."),
        "{answer}"
    );
    assert!(!answer.contains("password is wrong"), "{answer}");
    assert!(!answer.contains("no user"), "{answer}");
    assert_nowhere(&mails, &log, PW);
    // Nothing was played.
    let (mails, _) = round(&mut s, ALICE, "chess show 101");
    assert!(!only_one(&mails, ALICE).body.contains("1. e4"));
}

#[test]
fn a_password_before_the_board_is_told_as_words_out_of_order() {
    let mut s = players();
    let (mails, log) = round(&mut s, ALICE, &format!("chess move alice {PW} 101 e4"));
    let answer = &only_one(&mails, ALICE).body;
    assert!(answer.contains("The words are out of order"), "{answer}");
    assert_nowhere(&mails, &log, PW);
    assert!(log.contains("chess move"), "{log}");
}

#[test]
fn a_stranger_gets_no_word_order_hint() {
    let mut s = players();
    let (mails, log) = round(&mut s, MALLORY, &format!("chess move 101 {PW} alice e4"));
    let answer = &only_one(&mails, MALLORY).body;
    assert!(!answer.contains("out of order"), "{answer}");
    assert!(
        answer.contains("There is no user by the userid"),
        "{answer}"
    );
    assert_nowhere(&mails, &log, PW);
}

#[test]
fn a_word_that_is_no_board_number_is_named_by_its_place_not_quoted() {
    let mut s = players();
    let (mails, log) = round(&mut s, ALICE, "chess show 103 hunter2");
    let answer = &only_one(&mails, ALICE).body;
    assert!(
        answer.contains("the fourth word should be a board number"),
        "{answer}"
    );
    assert!(answer.contains("chess show 103 *****"), "{answer}");
    assert_nowhere(&mails, &log, "hunter2");
}

#[test]
fn a_refusal_before_the_password_is_checked_quotes_only_known_words() {
    let mut s = players();
    // The password typed after the move: refused as a wrong password
    // ("e4" in its place) or as words out of order; either way the quote
    // shows the userid on file and masks the rest.
    let (mails, log) = round(&mut s, ALICE, &format!("chess move 101 alice e4 {PW} xyz"));
    let answer = &only_one(&mails, ALICE).body;
    assert!(answer.contains("chess move 101 alice *****"), "{answer}");
    assert!(!answer.contains("xyz"), "{answer}");
    assert_nowhere(&mails, &log, PW);
}
