//! Red team of the password checks: where the
//! argon2id work, the budget and the answers meet.

use crate::common;

use pbmchess::server::Server;

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

/// The argon2id runs `server` makes while handling `env` in a transaction
/// (after `prepare_mail`).
fn runs_in_transaction(
    conn: &mut rusqlite::Connection,
    server: &Server<'_>,
    env: &pbmchess::mail::Envelope,
) -> u64 {
    server.prepare_mail(conn, env, 100).unwrap();
    let before = server.credentials.stats().verifications;
    let tx = conn.transaction().unwrap();
    server.handle_mail_within(&tx, env, 100).unwrap();
    tx.commit().unwrap();
    server.credentials.stats().verifications - before
}

/// The words of a line checked as a password in a wrong place (from an
/// address on file for the account) are checked before the transaction
/// too: a group of such mails (forged with a player's address when
/// `[security] authserv_id` is unset) held the write lock for four
/// argon2id runs each.
#[test]
fn words_out_of_order_are_checked_before_the_transaction() {
    for subject in [
        // A password in the userid slot: no such user "pa".
        "chess move 101 pa alice e4",
        // A wrong password, the right one after it.
        "chess move 101 alice wrong1 pa",
        // No command at all: the board after the password.
        "chess move alice pa 101 e4",
    ] {
        let mut w = common::world::World::with_board();
        let env = envelope("order@t", "a@x", subject, "");
        let runs = {
            let server = Server::new(&w.config, &w.clock, &w.templates);
            runs_in_transaction(&mut w.conn, &server, &env)
        };
        assert_eq!(runs, 0, "{subject}");
        let answer = w.replies().pop().unwrap();
        assert!(
            answer.body.contains("The words are out of order"),
            "{subject}: {}",
            answer.body
        );
    }
    // Four wrong words: four checks, all of them ahead.
    let mut w = common::world::World::with_board();
    let subject = "chess move 101 nope1 alice nope2 nope3 nope4";
    let env = envelope("wrong@t", "a@x", subject, "");
    let (runs, total) = {
        let server = Server::new(&w.config, &w.clock, &w.templates);
        let runs = runs_in_transaction(&mut w.conn, &server, &env);
        (runs, server.credentials.stats().verifications)
    };
    assert_eq!((runs, total), (0, 5));
    let answer = w.replies().pop().unwrap();
    assert!(!answer.body.contains("out of order"), "{}", answer.body);
}

/// A stranger's mail that signs an account up and then gives passwords
/// for it: every check is made before the transaction (the account's
/// hash as the signup leaves it), none under the write lock.
#[test]
fn passwords_for_an_account_the_same_mail_signs_up_are_checked_ahead() {
    let mut w = common::world::World::with_board();
    let body = [
        "signup zed Zed-Pass1",
        "chess limit zed wrong1 3",
        "chess limit zed wrong2 3",
        "chess limit zed wrong3 3",
        "chess limit zed Zed-Pass1 3",
    ]
    .join("\n");
    let env = envelope("signup@t", "z@z.example", "multiple", &body);
    let runs = {
        let server = Server::new(&w.config, &w.clock, &w.templates);
        runs_in_transaction(&mut w.conn, &server, &env)
    };
    assert_eq!(runs, 0);
    let answer = w.replies().pop().unwrap();
    assert!(
        answer.body.contains("password for zed is wrong"),
        "{}",
        answer.body
    );
    assert!(answer.body.contains("zed takes Chess"), "{}", answer.body);
}

/// Mails handled in one transaction (a daemon's group) were all prepared
/// before it: a password for an account an earlier mail of the group made
/// or changed is not checked under the write lock; it is refused, the
/// same whether right or wrong, and counted as a wrong one.
#[test]
fn a_password_whose_account_changed_since_its_mail_was_prepared_is_not_checked() {
    let mut w = common::world::World::with_board();
    let signup = envelope("g1@t", "z@z.example", "signup zed Zed-Pass1", "");
    let right = envelope("g2@t", "y@y.example", "chess limit zed Zed-Pass1 3", "");
    let wrong = envelope("g3@t", "x@x.example", "chess limit zed Wrong-1 3", "");
    let runs = {
        let server = Server::new(&w.config, &w.clock, &w.templates);
        for env in [&signup, &right, &wrong] {
            server.prepare_mail(&w.conn, env, 100).unwrap();
        }
        let before = server.credentials.stats().verifications;
        let tx = w.conn.transaction().unwrap();
        for env in [&signup, &right, &wrong] {
            server.handle_mail_within(&tx, env, 100).unwrap();
        }
        tx.commit().unwrap();
        server.credentials.stats().verifications - before
    };
    assert_eq!(runs, 0);
    let replies = w.replies();
    let to = |a: &str| {
        replies
            .iter()
            .find(|r| r.to == a)
            .map(|r| r.body.clone())
            .unwrap_or_default()
    };
    let (right, wrong) = (to("y@y.example"), to("x@x.example"));
    assert!(right.contains("was not checked"), "{right}");
    assert_eq!(right, wrong);
}

/// Through the real binary, one `poll` reads a signup and two guesses
/// of the new account's password from other addresses: the daemon ends
/// its group before the first mail whose prepared checks the signup made
/// stale, and prepares it again outside the write lock, so each guess is
/// checked as in a mail of its own (the right one runs, the wrong one is
/// refused and counted) and nothing is refused as unchecked.
#[test]
fn poll_checks_a_password_for_an_account_made_earlier_in_the_same_batch() {
    let mut s = common::Install::with_config("");
    s.send("z@z.example", "signup zed Zed-Pass1", "");
    s.send("y@y.example", "chess limit zed Zed-Pass1 3", "");
    s.send("x@x.example", "chess limit zed Wrong-Pw1 3", "");
    s.poll();
    let mails = s.take_outbox();
    let right = common::joined(&common::only_one(&mails, "y@y.example").body);
    let wrong = common::joined(&common::only_one(&mails, "x@x.example").body);
    assert!(!right.contains("was not checked"), "{right}");
    assert!(!right.contains("wrong"), "{right}");
    assert!(right.contains("at most 3"), "{right}");
    assert!(wrong.contains("password for zed is wrong"), "{wrong}");
    for m in &mails {
        assert!(m.body.lines().all(|l| l.chars().count() <= 78), "{m:#?}");
    }
}
