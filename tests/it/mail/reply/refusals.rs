//! Replies that change nothing: stale or out of turn, from another address
//! or with a forged token, to a noreply board, and replies to the error mail.

use super::*;

#[test]
fn a_reply_to_a_mail_that_is_no_longer_current_is_refused_with_the_board_now() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let new_to_bob = only_one(&mails, BOB).clone();
    let new_to_alice = only_one(&mails, ALICE).clone();
    let mails = deliver(&mut s, &plain(ALICE, &new_to_alice, "s1@a.example", "e4"));
    let current_to_bob = board_mail(&mails, BOB).clone();

    // bob answers the first mail (ply 0); the board is at ply 1.
    let mails = deliver(
        &mut s,
        &thunderbird(BOB, &new_to_bob, "s2@b.example", &["e5", "Here goes."]),
    );
    let m = only_one(&mails, BOB);
    assert_eq!(mails.len(), 1, "{mails:#?}");
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(
        common::joined(&m.body).starts_with(
            "This mail showed ply 0; Chess board 101 is at ply 1 now, so your reply is not played: reply to the newest board mail (or put #2 after the move to play it anyway)."
        ),
        "{}",
        m.body
    );
    // The board as it stands, the line as written, the comment kept.
    assert!(m.body.contains("*R*"), "{}", m.body);
    assert!(m.body.contains("Your command was:\n  e5\n"), "{}", m.body);
    assert!(m.body.contains("Here goes."), "{}", m.body);
    let shown = round(&mut s, BOB, "chess show 101", "");
    assert!(!only_one(&shown, BOB).body.contains("e5"));

    // An explicit guard plays it from the old mail anyway.
    let mails = deliver(&mut s, &plain(BOB, &new_to_bob, "s3@b.example", "e5#2"));
    assert!(
        board_mail(&mails, ALICE)
            .body
            .contains("\n1. e4         e5\n"),
        "{mails:#?}"
    );
    // A stale reply with a wrong guard is refused by the guard.
    let mails = deliver(
        &mut s,
        &plain(BOB, &current_to_bob, "s4@b.example", "Nc6#2"),
    );
    assert!(
        only_one(&mails, BOB)
            .body
            .starts_with("Your command is guarded as ply 2, but the next ply"),
        "{mails:#?}"
    );
}

/// A stale reply when it is the opponent's turn is not told to add `#N`
/// (`Nc6#3` would then be refused: not the player's turn). It is told the
/// exact `queue` reply instead, and that reply works.
#[test]
fn a_stale_reply_out_of_turn_suggests_the_queue_reply_that_works_not_a_guard() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let new_to_alice = only_one(&mails, ALICE).clone();
    let mails = deliver(&mut s, &plain(ALICE, &new_to_alice, "o1@a.example", "e4"));
    let to_bob = board_mail(&mails, BOB).clone();
    deliver(&mut s, &plain(BOB, &to_bob, "o2@b.example", "e5"));

    // bob answers the same mail (ply 1) again; the board is at ply 2,
    // and ply 3 is alice's.
    let mails = deliver(&mut s, &plain(BOB, &to_bob, "o3@b.example", "Nc6"));
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let error = only_one(&mails, BOB).clone();
    let text = common::joined(&error.body);
    assert!(
        text.starts_with(
            "This mail showed ply 1; Chess board 101 is at ply 2 now and it is alice's turn, so your reply is not played. To have Nc6 played when your turn comes, reply to this mail with: queue Nc6"
        ),
        "{}",
        error.body
    );
    assert!(!text.contains("#3"), "{}", error.body);

    // Done as told: the move is queued, and played when bob's turn comes.
    let mails = deliver(
        &mut s,
        &thunderbird(BOB, &error, "o4@b.example", &["queue Nc6"]),
    );
    let queued = only_one(&mails, BOB);
    assert!(
        common::joined(&queued.body).contains("Your move Nc6 is queued on chess board 101"),
        "{}",
        queued.body
    );
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess move 101 alice {ALICE_PW} Nf3"),
        "",
    );
    let m = board_mail(&mails, BOB);
    assert!(m.body.contains("2. Nf3        Nc6 (Auto)"), "{}", m.body);
    no_password_in(&s);
}

#[test]
fn replies_from_another_address_to_the_opponents_mail_or_with_a_forged_token_change_nothing() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();

    // carol got hold of alice's board mail.
    let mails = deliver(&mut s, &plain(CAROL, &to_alice, "f1@c.example", "e4"));
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let m = only_one(&mails, CAROL);
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(
        common::joined(&m.body).starts_with(&format!(
            "Your reply comes from {CAROL}, which is not an address of the player this board mail was sent to, so it is not read as a move; reply from that address, or use the Subject command: chess move 101 <userid> <password> <move>."
        )),
        "{}",
        m.body
    );

    // bob answers alice's board mail (forwarded to him) from his address.
    let mails = deliver(&mut s, &plain(BOB, &to_alice, "f2@b.example", "e4"));
    assert!(
        only_one(&mails, BOB).body.starts_with(&format!(
            "Your reply comes from {BOB}, which is not an address"
        )),
        "{mails:#?}"
    );

    // A made-up token on our domain.
    let forged = plain(ALICE, &to_alice, "f3@a.example", "e4").replace(
        &mid(&to_alice),
        "<t.00112233445566778899aabbccddeeff00112233@games.test>",
    );
    let mails = deliver(&mut s, &forged);
    let m = only_one(&mails, ALICE);
    assert!(
        common::joined(&m.body).starts_with(
            "Your mail answers a mail this server did not send, or one of a board that no longer exists, so it is not read as a move"
        ),
        "{}",
        m.body
    );

    // A reply that names no token (a mail program that drops In-Reply-To).
    let mails = round(&mut s, ALICE, &format!("Re: {}", to_alice.subject), "e4");
    let m = only_one(&mails, ALICE);
    assert!(
        common::joined(&m.body).starts_with(
            "Your mail has a board mail's Subject but no In-Reply-To header naming the mail it answers (your mail program left it out)"
        ),
        "{}",
        m.body
    );
    assert!(
        common::joined(&m.body).contains(
            "use the Subject command instead: chess move 101 <userid> <password> <move>."
        ),
        "{}",
        m.body
    );

    // A token in the body or the Subject is not read.
    let token = mid(&to_alice);
    let mails = round(
        &mut s,
        ALICE,
        &format!("Re: {} {token}", to_alice.subject),
        &format!("e4\n{token}"),
    );
    assert!(
        only_one(&mails, ALICE).subject.ends_with("Error"),
        "{mails:#?}"
    );

    // Nothing was played by any of them.
    let shown = round(&mut s, ALICE, "chess show 101", "");
    assert!(
        only_one(&shown, ALICE)
            .body
            .starts_with("It is alice's turn."),
        "{shown:#?}"
    );
    assert!(!only_one(&shown, ALICE).body.contains("1. e4"));
    no_password_in(&s);
}

#[test]
fn noreply_sends_ordinary_board_mails_and_refuses_replies() {
    let mut s = a_board();
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess set alice {ALICE_PW} noreply"),
        "",
    );
    assert!(
        only_one(&mails, ALICE)
            .body
            .contains("cannot be answered by reply"),
        "{mails:#?}"
    );
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();
    assert!(mid(&to_alice).starts_with("<pbmchess."), "{}", to_alice.raw);
    assert!(
        !to_alice.body.contains("To play, reply"),
        "{}",
        to_alice.body
    );
    // bob still plays by reply.
    board_mail(&mails, BOB);
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "n1@a.example", "e4"));
    let m = only_one(&mails, ALICE);
    assert!(
        common::joined(&m.body).starts_with(
            "You set noreply for chess, so your board mails take no replies; switch them back on with chess set alice <password> reply"
        ),
        "{}",
        m.body
    );
    // Back on.
    round(
        &mut s,
        ALICE,
        &format!("chess set alice {ALICE_PW} reply"),
        "",
    );
    let to_alice = only_one(&round(&mut s, ALICE, "chess show 101", ""), ALICE).clone();
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "n2@a.example", "e4"));
    assert!(to(&mails, BOB)[0].body.contains("1. e4"), "{mails:#?}");
}

#[test]
fn a_refused_reply_is_answered_by_replying_to_the_error_mail() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();
    let mails = deliver(
        &mut s,
        &gmail(ALICE, &to_alice, "e1@a.example", &["e5", "Oops."]),
    );
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let error = only_one(&mails, ALICE).clone();
    assert_eq!(error.subject, "Chess Board 101 Error");
    assert!(
        error.body.starts_with("e5 is not a legal move"),
        "{}",
        error.body
    );
    assert!(
        error.body.contains("Your command was:\n  e5\n"),
        "{}",
        error.body
    );
    assert!(error.body.contains("Oops."), "{}", error.body);
    // The error mail shows the board now and takes a reply itself.
    assert!(mid(&error).starts_with("<t."), "{}", error.raw);
    assert!(error.body.contains("To play, reply"), "{}", error.body);
    let mails = deliver(&mut s, &thunderbird(ALICE, &error, "e2@a.example", &["e4"]));
    assert!(
        board_mail(&mails, BOB).body.contains("\n1. e4\n"),
        "{mails:#?}"
    );
    // Someone else's error mail stays an ordinary one.
    let mails = deliver(&mut s, &plain(CAROL, &to_alice, "e3@c.example", "d4"));
    assert!(!mid(only_one(&mails, CAROL)).starts_with("<t."));
}
