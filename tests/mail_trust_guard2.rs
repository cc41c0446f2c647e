//! Red team of the password checks (issue #37, third round): where the
//! argon2id work, the budget and the answers meet.

mod common;

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
