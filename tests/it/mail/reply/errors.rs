//! Replies to the error mails about Subject commands: a player's refused
//! command on their board is answered with an error that takes a reply
//! and plays it; any other error takes none, and a person's reply to one
//! gets one short notice a day, an automatic one nothing.

use super::*;

/// alice (white) and bob on chess board 101, at ply 0.
fn a_game() -> Install {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    board_mail(&mails, ALICE);
    s
}

#[test]
fn an_illegal_move_answered_by_reply_with_a_legal_one_plays_it() {
    let mut s = a_game();
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess move 101 alice {ALICE_PW} Nf9"),
        "",
    );
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let error = board_mail(&mails, ALICE).clone();
    assert_eq!(error.subject, "Chess Board 101 Error");
    let text = common::joined(&error.body);
    assert!(text.contains("To play, reply with your move"), "{text}");
    // The player hits Reply and writes the move.
    let mails = deliver(
        &mut s,
        &thunderbird(ALICE, &error, "r1@a.example", &["Nf3"]),
    );
    for to in [ALICE, BOB] {
        let m = board_mail(&mails, to);
        assert!(m.body.contains("\n1. Nf3"), "{}", m.body);
    }
    assert_eq!(mails.len(), 2, "{mails:#?}");
    // bob's refused move out of turn: his error takes a reply too, and
    // says what one can do now.
    let mails = round(
        &mut s,
        BOB,
        &format!("chess move 101 bob {BOB_PW} e5#3"),
        "",
    );
    let error = board_mail(&mails, BOB).clone();
    let mails = deliver(&mut s, &plain(BOB, &error, "r2@b.example", "e5"));
    assert!(
        board_mail(&mails, ALICE)
            .body
            .contains("\n1. Nf3        e5\n"),
        "{:?}",
        board_mail(&mails, ALICE).body
    );
    no_password_in(&s);
}

#[test]
fn an_error_to_anyone_but_the_proved_player_at_their_address_takes_no_reply() {
    let mut s = a_game();
    let not_answerable = |m: &SentMail| {
        assert!(mid(m).contains(".error@"), "{}", m.raw);
        assert!(!m.body.contains("reply with"), "{}", m.body);
    };
    // A wrong password.
    let mails = round(&mut s, ALICE, "chess move 101 alice Wrong-Pw9 Nf9", "");
    not_answerable(only_one(&mails, ALICE));
    // The right one, from an address not on file.
    let elsewhere = "alice@elsewhere.example";
    let mails = round(
        &mut s,
        elsewhere,
        &format!("chess move 101 alice {ALICE_PW} Nf9"),
        "",
    );
    not_answerable(only_one(&mails, elsewhere));
    // carol, who does not play on board 101.
    let mails = round(&mut s, CAROL, "chess move 101 carol Sesame-C3 e4", "");
    not_answerable(only_one(&mails, CAROL));
    // No such board.
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess move 999 alice {ALICE_PW} e4"),
        "",
    );
    not_answerable(only_one(&mails, ALICE));
    // alice switched replies off for chess.
    round(
        &mut s,
        ALICE,
        &format!("chess set alice {ALICE_PW} noreply"),
        "",
    );
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess move 101 alice {ALICE_PW} Nf9"),
        "",
    );
    not_answerable(only_one(&mails, ALICE));
}

#[test]
fn a_reply_to_an_error_without_token_gets_one_notice_a_day_and_an_automatic_one_none() {
    let mut s = a_game();
    let mails = round(&mut s, CAROL, "chess move 101 carol Sesame-C3 e4", "");
    let error = only_one(&mails, CAROL).clone();
    // An autoresponder's answer (Auto-Submitted) is never answered.
    let auto = format!(
        "{}Content-Type: text/plain\r\n\r\nI am away.\r\n",
        headers(
            CAROL,
            &error,
            "a1@c.example",
            "Auto-Submitted: auto-replied\r\n"
        )
    );
    assert!(deliver(&mut s, &auto).is_empty());
    // A person's reply: one short notice, quoting nothing of the mail.
    let mails = deliver(
        &mut s,
        &plain(CAROL, &error, "h1@c.example", "e4 secret-words"),
    );
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let notice = only_one(&mails, CAROL).clone();
    assert_eq!(notice.subject, "Error");
    let text = common::joined(&notice.body);
    assert!(
        text.starts_with("Your mail answers an error mail"),
        "{text}"
    );
    assert!(!notice.body.contains("secret-words"), "{}", notice.body);
    assert!(notice.body.lines().all(|l| l.chars().count() <= 78));
    // Replying to the notice, or to the error again, the same day: nothing
    // (two servers answering each other stop here).
    assert!(deliver(&mut s, &plain(CAROL, &notice, "h2@c.example", "e4")).is_empty());
    assert!(deliver(&mut s, &plain(CAROL, &error, "h3@c.example", "e4")).is_empty());
    // Nothing was played.
    let shown = round(&mut s, ALICE, "chess show 101", "");
    assert!(!only_one(&shown, ALICE).body.contains("1. e4"));
}
