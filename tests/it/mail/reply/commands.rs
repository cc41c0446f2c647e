//! Commands by reply: propose, reject, resign, queue, show and help.

use super::*;

#[test]
fn propose_reject_and_resign_by_reply() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let mails = deliver(
        &mut s,
        &plain(ALICE, only_one(&mails, ALICE), "p1@a.example", "d4"),
    );
    let mails = deliver(
        &mut s,
        &plain(BOB, only_one(&mails, BOB), "p2@b.example", "d5"),
    );
    // alice offers a draw by reply; bob's mail says so and takes a reply.
    let mails = deliver(
        &mut s,
        &gmail(
            ALICE,
            only_one(&mails, ALICE),
            "p3@a.example",
            &["propose", "Draw?"],
        ),
    );
    let to_bob = board_mail(&mails, BOB).clone();
    assert!(
        common::joined(&to_bob.body)
            .contains("alice proposes a draw; bob may answer with the move accept or reject."),
        "{}",
        to_bob.body
    );
    let mails = deliver(&mut s, &plain(BOB, &to_bob, "p4@b.example", "reject"));
    let to_alice = board_mail(&mails, ALICE).clone();
    assert!(
        to_alice.body.starts_with("It is alice's turn."),
        "{}",
        to_alice.body
    );
    assert!(!to_alice.body.contains("proposes"), "{}", to_alice.body);
    // bob resigns by replying to the mail that answered his reject.
    let to_bob = board_mail(&mails, BOB).clone();
    let mails = deliver(
        &mut s,
        &outlook(BOB, &to_bob, "p5@b.example", &["resign"], false),
    );
    for addr in [ALICE, BOB] {
        assert!(
            only_one(&mails, addr)
                .body
                .starts_with("Game won by alice (resignation)."),
            "{mails:#?}"
        );
    }
    no_password_in(&s);
}

#[test]
fn queue_and_show_by_reply_and_a_subject_command_in_a_reply_stays_a_command() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_bob = only_one(&mails, BOB).clone();
    // Out of turn, bob queues his answer by reply.
    let mails = deliver(&mut s, &plain(BOB, &to_bob, "q1@b.example", "queue e5"));
    assert!(only_one(&mails, BOB).body.contains("e5"), "{mails:#?}");
    // show by reply: the board now, itself answerable.
    let mails = deliver(&mut s, &plain(BOB, &to_bob, "q2@b.example", "show"));
    let shown = board_mail(&mails, BOB).clone();
    assert_eq!(shown.subject, "Chess Board 101 alice");
    // alice plays by a Subject command in a reply: her command, with password.
    let to_alice = only_one(&round(&mut s, ALICE, "chess show 101", ""), ALICE).clone();
    let raw = plain(ALICE, &to_alice, "q3@a.example", "Nice board.").replace(
        &format!("Subject: Re: {}", to_alice.subject),
        &format!("Subject: Re: chess move 101 alice {ALICE_PW} e4"),
    );
    let mails = deliver(&mut s, &raw);
    // The queued e5 followed at once.
    let m = board_mail(&mails, BOB);
    assert!(m.body.contains("1. e4         e5 (Auto)"), "{}", m.body);
    assert!(
        m.body.contains("Comment from alice:\nNice board."),
        "{}",
        m.body
    );
    no_password_in(&s);
}

#[test]
fn help_reply_explains_it() {
    let mut s = a_board();
    let mails = round(&mut s, CAROL, "help reply", "");
    let m = only_one(&mails, CAROL);
    assert_eq!(m.subject, "Help on reply");
    assert!(m.body.contains("Reply button"), "{}", m.body);
    assert!(m.body.contains("noreply"), "{}", m.body);
}
