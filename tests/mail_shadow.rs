//! Shadow Chess played by mail through the real binary: a capture sets off
//! a reveal with a choice, the chooser decides by mail, play goes on.

mod common;

use common::{to, Install};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

#[test]
fn a_pending_reveal_is_decided_by_the_choosers_mail() {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(ALICE, "shadowchess challenge alice bob", "");
    s.poll();
    let mails = s.take_outbox();
    let board = to(&mails, ALICE).pop().unwrap().clone();
    assert_eq!(board.subject, "New Shadow Chess Board 101 alice");
    assert!(board.body.contains("Main"), "{}", board.body);
    assert!(board.body.contains("Shadow"), "{}", board.body);

    for (from, who, mv, next) in [
        (ALICE, "alice apw", "e4/e2e3", "bob"),
        (BOB, "bob bpw", "d5/d7d6", "alice"),
    ] {
        s.send(from, &format!("shadowchess move 101 {who} {mv}"), "");
        s.poll();
        let mails = s.take_outbox();
        let m = to(&mails, ALICE).pop().unwrap().clone();
        assert_eq!(
            m.subject,
            format!("Shadow Chess Board 101 {next}"),
            "{}",
            m.body
        );
        assert!(!m.body.contains("dropped"), "{}", m.body);
    }

    // A missing shadow part is answered with the choices.
    s.send(ALICE, "shadowchess move 101 alice apw exd5", "");
    s.poll();
    let mails = s.take_outbox();
    let refusal = to(&mails, ALICE).pop().unwrap().clone();
    assert!(refusal.body.contains("exd5/d2d3"), "{}", refusal.body);

    // Bob queues his knight move; it must wait for his reveal decision.
    s.send(BOB, "shadowchess queue 101 bob bpw Nf6/g8f6", "");
    s.poll();
    let mails = s.take_outbox();
    let m = to(&mails, BOB).pop().unwrap().clone();
    assert!(m.body.contains("is queued"), "{}", m.body);

    // The capture leaves Black a choice among its shadow pawns.
    s.send(ALICE, "shadowchess move 101 alice apw exd5/d2d3", "");
    s.poll();
    let mails = s.take_outbox();
    for addr in [ALICE, BOB] {
        let m = to(&mails, addr).pop().unwrap().clone();
        assert_eq!(m.subject, "Shadow Chess Board 101 bob", "{}", m.body);
        assert!(m.body.contains("It is bob's decision"), "{}", m.body);
        assert!(
            m.body
                .contains("Black must choose which shadow pawn is revealed"),
            "{}",
            m.body
        );
    }

    // Bob may not move before deciding; the refusal says how to decide.
    s.send(BOB, "shadowchess move 101 bob bpw Nf6/g8f6", "");
    s.poll();
    let mails = s.take_outbox();
    let refusal = to(&mails, BOB).pop().unwrap().clone();
    assert!(refusal.body.contains("reveal d6"), "{}", refusal.body);

    s.send(BOB, "shadowchess move 101 bob bpw reveal d6", "");
    s.poll();
    let mails = s.take_outbox();
    let m = to(&mails, ALICE).pop().unwrap().clone();
    // The reveal, then bob's queued move, played as his turn came.
    assert_eq!(m.subject, "Shadow Chess Board 101 alice", "{}", m.body);
    assert!(m.body.contains("reveal d6"), "{}", m.body);
    assert!(
        m.body.contains("shadow pawn on d6 is revealed"),
        "{}",
        m.body
    );
    assert!(
        m.body
            .contains("bob's queued move Nf6/g8f6 was played automatically"),
        "{}",
        m.body
    );
    let shown = s.ok(&["admin", "show", "shadowchess", "101"]);
    assert!(shown.contains("Nf6/g8f6"), "{shown}");
}
