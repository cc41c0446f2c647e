//! The password checks hold whatever the cache, the From or the masking
//! each attack sent as the mail that carried it
//! through the real binary (`poll`, Maildir in and out).

use crate::common;

use common::{joined, only_one, to, Install, SentMail, SERVER_ADDRESS};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";
const MALLORY: &str = "mallory@evil.example";
const ALICE_PW: &str = "Sesame-A1";
const BOB_PW: &str = "Sesame-B2";
const AUTHSERV: &str = "[security]\nauthserv_id = \"mx.games.test\"\n";

fn signed_up(extra: &str, alice_pw: &str) -> Install {
    let mut s = Install::with_config(extra);
    s.send(ALICE, &format!("signup alice {alice_pw}"), "");
    s.send(BOB, &format!("signup bob {BOB_PW}"), "");
    s.poll();
    s.take_outbox();
    s
}

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

/// Every line of every mail within 78 columns.
fn within_78(mails: &[SentMail]) {
    for m in mails {
        for line in m.body.lines() {
            assert!(line.chars().count() <= 78, "{line:?} in {m:#?}");
        }
    }
}

fn db(s: &Install) -> rusqlite::Connection {
    rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap()
}

/// The wrong passwords counted in the throttle bucket `key`.
fn failures(s: &Install, key: &str) -> i64 {
    db(s)
        .query_row(
            "SELECT coalesce(max(failures), 0) FROM password_failures WHERE userid = ?1",
            [key],
            |r| r.get(0),
        )
        .unwrap()
}

/// alice's challenge settings for chess, as she is told them.
fn alice_limit(s: &mut Install) -> String {
    let mails = round(s, ALICE, &format!("chess limit alice {ALICE_PW}"), "");
    joined(&only_one(&mails, ALICE).body)
}

/// A stranger's `multiple`: five lines for userids that do not exist
/// (spending the mail's five checks), then `guesses` for alice.
fn guessing_mail(guesses: &[&str]) -> String {
    let mut body: Vec<String> = (1..=5)
        .map(|i| format!("chess limit nosuch{i} whatever{i} 3"))
        .collect();
    body.extend(guesses.iter().map(|g| format!("chess limit alice {g}")));
    body.join("\n")
}

#[test]
fn past_the_budget_a_right_password_is_refused_and_counted_like_a_wrong_one() {
    let mut s = signed_up("", ALICE_PW);
    round(
        &mut s,
        ALICE,
        &format!("chess limit alice {ALICE_PW} 3"),
        "",
    );
    // In one run: alice's own mail (her password verified, so known to
    // the process), then the stranger's twenty guesses, one of them right.
    s.send(ALICE, &format!("chess limit alice {ALICE_PW} 3"), "");
    let mut guesses: Vec<String> = (100..119).map(|i| format!("Guess{i}")).collect();
    guesses.insert(11, ALICE_PW.to_string());
    let guesses: Vec<&str> = guesses.iter().map(String::as_str).collect();
    s.send(MALLORY, "multiple", &guessing_mail(&guesses));
    s.poll();
    let mails = s.take_outbox();
    within_78(&mails);
    let answer = joined(&only_one(&mails, MALLORY).body);
    assert!(!answer.contains("alice takes Chess"), "{answer}");
    assert!(answer.contains("used the 5 password checks"), "{answer}");
    // Nothing of the guesses ran: alice's limit stands.
    let limit = alice_limit(&mut s);
    assert!(limit.contains("at most 3 active boards"), "{limit}");
    // Every guess counted: strangers are locked out of alice, and she is
    // told so.
    assert!(failures(&s, "stranger:alice") >= 5);
    let notice = to(&mails, ALICE)
        .into_iter()
        .find(|m| m.subject == "Account locked for a while");
    assert!(notice.is_some(), "{mails:#?}");
}

#[test]
fn past_the_budget_right_and_wrong_passwords_get_the_same_answer() {
    let mut s = signed_up("", ALICE_PW);
    let mut answers = Vec::new();
    for guess in [ALICE_PW, "Wrong-A1"] {
        // alice's password known to the process in the same run.
        s.send(ALICE, &format!("chess limit alice {ALICE_PW} 3"), "");
        s.send(MALLORY, "multiple", &guessing_mail(&[guess]));
        s.poll();
        let mails = s.take_outbox();
        answers.push(only_one(&mails, MALLORY).body.clone());
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(failures(&s, "stranger:alice"), 2);
}

#[test]
fn a_stranger_repeating_one_guess_is_told_nothing_new_and_each_counts() {
    let mut s = signed_up("", ALICE_PW);
    let body = ["chess limit alice Guess1 3"; 3].join("\n");
    let mails = round(&mut s, MALLORY, "multiple", &body);
    let answer = joined(&only_one(&mails, MALLORY).body);
    assert_eq!(answer.matches("password for alice is wrong").count(), 3);
    assert_eq!(failures(&s, "stranger:alice"), 3);
}

/// A mail "from" `from` with our host's DMARC verdict on top.
fn dmarc_pass(from: &str, domain: &str, subject: &str, id: &str) -> String {
    let pass =
        format!("Authentication-Results: mx.games.test; dmarc=pass header.from={domain}\r\n");
    common::raw_mail(from, subject, "", id).replacen("\r\n", &format!("\r\n{pass}"), 1)
}

#[test]
fn with_authserv_id_forged_wrong_passwords_do_not_lock_out_the_owner() {
    let mut s = signed_up(AUTHSERV, ALICE_PW);
    let mut mails = Vec::new();
    for i in 0..6 {
        mails.extend(round(
            &mut s,
            BOB,
            &format!("chess limit bob Wrong{i} 3"),
            "",
        ));
    }
    within_78(&mails);
    // The lockout notice (joined to the answer to the forged mail, which
    // went to bob's address) says how it came.
    assert!(
        mails.iter().any(|m| joined(&m.body)
            .contains("in mail whose From this server's mail host could not confirm")),
        "{mails:#?}"
    );
    // Counted as a stranger's: the owner's own bucket is clean.
    assert_eq!(failures(&s, "bob"), 0);
    assert!(failures(&s, "stranger:bob") >= 5);
    s.deliver_raw(&dmarc_pass(
        BOB,
        "b.example",
        &format!("chess limit bob {BOB_PW} 4"),
        "real1@b.example",
    ));
    s.poll();
    let mails = s.take_outbox();
    let answer = joined(&only_one(&mails, BOB).body);
    assert!(
        answer.contains("bob takes Chess challenges, at most 4"),
        "{answer}"
    );
}

#[test]
fn with_authserv_id_an_unauthenticated_from_gets_no_out_of_order_check() {
    let mut s = signed_up(AUTHSERV, ALICE_PW);
    // The owner's words out of order, forged: no check, a plain refusal.
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess limit alice 3 {ALICE_PW}"),
        "",
    );
    let answer = joined(&only_one(&mails, ALICE).body);
    assert!(!answer.contains("out of order"), "{answer}");
    // Authenticated, the owner is told.
    s.deliver_raw(&dmarc_pass(
        ALICE,
        "a.example",
        &format!("chess limit alice 3 {ALICE_PW}"),
        "real2@a.example",
    ));
    s.poll();
    let mails = s.take_outbox();
    let answer = joined(&only_one(&mails, ALICE).body);
    assert!(answer.contains("out of order"), "{answer}");
}

/// A board 101 of alice (password `alice_pw`) and bob, observed by lion7
/// and tiger99; alice plays e4. The mails to bob and the observers.
fn observed_move(alice_pw: &str) -> Vec<SentMail> {
    let mut s = signed_up("", alice_pw);
    s.send("lion@l.example", "signup lion7 Roar-7x", "");
    s.send("tiger@t.example", "signup tiger99 Stripe-9y", "");
    s.poll();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    round(
        &mut s,
        "lion@l.example",
        "chess subscribe 101 lion7 Roar-7x",
        "",
    );
    round(
        &mut s,
        "tiger@t.example",
        "chess subscribe 101 tiger99 Stripe-9y",
        "",
    );
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess move 101 alice {alice_pw} e4"),
        "",
    );
    assert_eq!(to(&mails, BOB).len(), 1, "{mails:#?}");
    let mut others: Vec<SentMail> = mails.into_iter().filter(|m| m.to != ALICE).collect();
    others.sort_by(|a, b| a.to.cmp(&b.to));
    others
}

/// `text` with each date (`2026-11-28`) as `DATE` and each time of day
/// (`02:45`) as `TIME`: the installs of a test run minutes apart.
fn undated(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let shaped = |w: &[char], marks: &[usize], mark: char| {
        w.iter().enumerate().all(|(i, c)| {
            if marks.contains(&i) {
                *c == mark
            } else {
                c.is_ascii_digit()
            }
        })
    };
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if i + 10 <= chars.len() && shaped(&chars[i..i + 10], &[4, 7], '-') {
            out.push_str("DATE");
            i += 10;
        } else if i + 5 <= chars.len() && shaped(&chars[i..i + 5], &[2], ':') {
            out.push_str("TIME");
            i += 5;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn what_others_receive_does_not_depend_on_the_movers_password() {
    let plain = observed_move(ALICE_PW);
    assert_eq!(plain.len(), 3, "{plain:#?}");
    for pw in ["lion7", "provisional"] {
        let other = observed_move(pw);
        assert_eq!(other.len(), plain.len());
        for (a, b) in plain.iter().zip(&other) {
            assert_eq!(a.to, b.to);
            assert_eq!(a.subject, b.subject);
            assert_eq!(
                undated(&a.body),
                undated(&b.body),
                "the mail to {} with password {pw}",
                a.to
            );
        }
    }
    let to_bob = plain.iter().find(|m| m.to == BOB).unwrap();
    assert!(to_bob.body.contains("lion7"), "{}", to_bob.body);
}

#[test]
fn forged_mail_from_a_player_gets_at_most_the_hours_unproved_answers() {
    let mut s = signed_up("", ALICE_PW);
    for i in 0..70 {
        s.send(ALICE, &format!("chess limit alice Wrong{i} 3"), "");
    }
    s.poll();
    let mails = s.take_outbox();
    // 61 in the hour (commands_per_hour and one): the welcome of her
    // signup was one of them (60 when the flood came in the same clock
    // hour, 61 when in the next).
    let n = to(&mails, ALICE).len();
    assert!((60..=61).contains(&n), "{n} mails to alice");
    assert!(mails.iter().all(|m| m.to == ALICE), "{mails:#?}");
}

#[test]
fn the_bound_on_unproved_answers_is_set_in_limits_and_proved_ones_pass_it() {
    let mut s = signed_up("[limits]\nunproved_answers_per_hour = 3\n", ALICE_PW);
    for i in 0..6 {
        s.send(ALICE, &format!("chess limit alice Wrong{i} 3"), "");
    }
    s.poll();
    let n = to(&s.take_outbox(), ALICE).len();
    // Her signup's welcome was one of the three (unless the hour turned).
    assert!((2..=3).contains(&n), "{n} mails to alice");
    // bob's own commands with his password are all answered.
    for _ in 0..5 {
        s.send(BOB, &format!("chess limit bob {BOB_PW} 3"), "");
    }
    s.poll();
    assert_eq!(to(&s.take_outbox(), BOB).len(), 5);
}

#[test]
fn one_mail_hashes_at_most_five_new_passwords() {
    let mut s = Install::with_config("");
    let body: Vec<String> = (1..=12)
        .map(|i| format!("signup player{i} Secret-{i}x"))
        .collect();
    let mails = round(&mut s, MALLORY, "multiple", &body.join("\n"));
    let answer = joined(&only_one(&mails, MALLORY).body);
    assert!(answer.contains("used the 5 password checks"), "{answer}");
    let users: i64 = db(&s)
        .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(users, 5);
    // A change of password is a check and a hash: two of the five.
    let mut s = signed_up("", ALICE_PW);
    let body = [
        format!("change password alice {ALICE_PW} New-1aa"),
        "change password alice New-1aa New-2bb".to_string(),
        "change password alice New-2bb New-3cc".to_string(),
    ];
    let mails = round(&mut s, ALICE, "multiple", &body.join("\n"));
    let answer = joined(&only_one(&mails, ALICE).body);
    assert!(answer.contains("used the 5 password checks"), "{answer}");
    let limit = round(&mut s, ALICE, "chess limit alice New-2bb 2", "");
    let limit = joined(&only_one(&limit, ALICE).body);
    assert!(limit.contains("alice takes Chess challenges"), "{limit}");
}

fn envelope(id: &str, from: &str, subject: &str, body: &str) -> pbmchess::mail::Envelope {
    pbmchess::mail::Envelope {
        message_id: id.into(),
        sender: Some(from.into()),
        subject: subject.into(),
        body: body.into(),
        comment: String::new(),
        never_answer: None,
        replied_to: Vec::new(),
        auth_results: Vec::new(),
    }
}

#[test]
fn process_hashes_a_signups_password_before_its_transaction() {
    let s = Install::with_config("");
    let file = s.path("signup.eml");
    let raw = common::raw_mail(MALLORY, "signup carol Secret-C3", "", "p1@evil.example");
    std::fs::write(&file, raw).unwrap();
    s.ok(&["process", file.to_str().unwrap()]);
    let user = pbmchess::store::user(&db(&s), "carol").unwrap();
    assert!(user.is_some_and(|u| u.password_hash.starts_with("$argon2id$")));
}

#[test]
fn the_server_never_hashes_inside_a_mail_it_was_not_prepared_for() {
    use pbmchess::server::Server;
    let mut w = common::world::World::new();
    let server = Server::new(&w.config, &w.clock, &w.templates);
    let env = envelope(
        "unprepared@t",
        "carol@c.example",
        "signup carol Secret-C3",
        "",
    );
    let tx = w.conn.transaction().unwrap();
    server.handle_mail_within(&tx, &env, 100).unwrap();
    tx.commit().unwrap();
    assert_eq!(server.credentials.stats().verifications, 0);
    assert!(pbmchess::store::user(&w.conn, "carol").unwrap().is_none());
    let _ = SERVER_ADDRESS;
}

#[test]
fn a_mails_argon2id_work_is_done_before_its_transaction() {
    use pbmchess::server::Server;
    let mut w = common::world::World::with_board();
    let server = Server::new(&w.config, &w.clock, &w.templates);
    let body = [
        "chess move 101 alice pa e4",
        "chess limit nosuch1 guess1 3",
        "chess limit bob wrong 3",
        "signup carol Secret-C3",
        "change password alice pa New-A2",
    ]
    .join("\n");
    let env = envelope("prepared@t", "a@x", "multiple", &body);
    server.prepare_mail(&w.conn, &env, 100).unwrap();
    let before = server.credentials.stats().verifications;
    assert_eq!(before, 5, "three checks and two hashes");
    let tx = w.conn.transaction().unwrap();
    server.handle_mail_within(&tx, &env, 100).unwrap();
    tx.commit().unwrap();
    assert_eq!(server.credentials.stats().verifications, before);
    // Everything ran as if checked there: the move, the signup, the
    // change (its new hash the one made ahead).
    assert_ne!(w.board().position, w.board().start_position);
    assert!(pbmchess::store::user(&w.conn, "carol").unwrap().is_some());
    w.mail("a@x", "chess limit alice New-A2 2", "");
    let answer = w.replies().pop().unwrap();
    assert!(answer.body.contains("alice takes Chess"), "{}", answer.body);
}
