//! Replies as real clients write them: a whole game from Gmail, Outlook and
//! Thunderbird, the MTA pipe, HTML-only replies, and a long game.

use super::*;

#[test]
fn a_whole_game_is_played_by_replies_from_gmail_outlook_and_thunderbird() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    // Every board mail to a player carries a reply token on our domain and
    // says how to answer it: the player to act is invited to play, the
    // other to answer in advance.
    for addr in [ALICE, BOB] {
        let m = board_mail(&mails, addr);
        let id = mid(m);
        assert!(id.ends_with("@games.test>"), "{id}");
        assert!(id.len() >= "<t.@games.test>".len() + 32, "{id}");
        let how = if addr == ALICE {
            "To play, reply with your move on the first line (help reply), or use the Subject command: chess move 101 alice <password> <move>"
        } else {
            "Not your turn: to answer in advance, reply with queue <move> or if <moves> on the first line (help reply), or use the Subject command: chess queue 101 bob <password> <move>"
        };
        assert!(common::joined(&m.body).ends_with(how), "{}", m.body);
    }
    assert_ne!(mid(&mails[0]), mid(&mails[1]));

    // alice, in Gmail: the move, a comment, a signature, the quote.
    let new_to_alice = only_one(&mails, ALICE).clone();
    let mails = deliver(
        &mut s,
        &gmail(
            ALICE,
            &new_to_alice,
            "r1@mail.gmail.test",
            &["f3", "Let's go!"],
        ),
    );
    let to_bob = board_mail(&mails, BOB).clone();
    assert_eq!(to_bob.subject, "Chess Board 101 bob **");
    assert!(
        to_bob.body.starts_with("It is bob's turn."),
        "{}",
        to_bob.body
    );
    assert!(to_bob.body.contains("\n1. f3"), "{}", to_bob.body);
    assert!(
        to_bob.body.contains("Comment from alice:\nLet's go!\n"),
        "{}",
        to_bob.body
    );
    assert!(!to_bob.body.contains("Alice A."), "{}", to_bob.body);
    assert!(!to_bob.body.contains("wrote:"), "{}", to_bob.body);
    // The answer to alice threads under her reply; bob's board mail does
    // not name it (it would show her mail domain).
    assert_eq!(
        only_one(&mails, ALICE).header("In-Reply-To").as_deref(),
        Some("<r1@mail.gmail.test>")
    );
    assert_eq!(to_bob.header("In-Reply-To"), None);

    // bob, in Outlook with the original under a rule, top-posted.
    let mails = deliver(
        &mut s,
        &outlook(
            BOB,
            &to_bob,
            "r2@outlook.test",
            &["e5", "Thanks, you too."],
            true,
        ),
    );
    let to_alice = board_mail(&mails, ALICE).clone();
    assert!(
        to_alice.body.contains("\n1. f3         e5\n"),
        "{}",
        to_alice.body
    );
    assert!(
        to_alice
            .body
            .contains("Comment from bob:\nThanks, you too.\n"),
        "{}",
        to_alice.body
    );

    // alice, in Thunderbird.
    let mails = deliver(
        &mut s,
        &thunderbird(ALICE, &to_alice, "r3@thunderbird.test", &["g4"]),
    );
    let to_bob = board_mail(&mails, BOB).clone();
    assert_eq!(to_bob.subject, "Chess Board 101 bob");
    assert!(to_bob.body.contains("\n2. g4\n"), "{}", to_bob.body);
    assert!(!to_bob.body.contains("Thunderbird"), "{}", to_bob.body);

    // bob, in a newer Outlook (no rule above the header block): mate.
    let mails = deliver(
        &mut s,
        &outlook(BOB, &to_bob, "r4@outlook.test", &["Qh4#", "Sorry!"], false),
    );
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert_eq!(m.subject, "Chess Board 101 finished **");
        assert!(
            m.body.starts_with("Game won by bob (checkmate)."),
            "{}",
            m.body
        );
        // A finished game's mail takes no reply.
        assert!(!mid(m).starts_with("<t."), "{}", m.raw);
        assert!(!m.body.contains("To play, reply"), "{}", m.body);
    }
    // The tokens expired with the game: a late reply is refused.
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "r5@a.example", "resign"));
    let m = only_one(&mails, ALICE);
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(
        m.body
            .starts_with("Chess board 101 is over, so its board mails take no more replies."),
        "{}",
        m.body
    );
    no_password_in(&s);
}

#[test]
fn a_reply_through_the_mta_pipe_plays() {
    let s = a_board();
    let file = s.path("challenge.eml");
    std::fs::write(
        &file,
        common::raw_mail(ALICE, "chess challenge alice bob", "", "c1@a.example"),
    )
    .unwrap();
    s.ok(&["process", file.to_str().unwrap()]);
    let mails = s.take_outbox();
    let to_alice = board_mail(&mails, ALICE).clone();
    let file = s.path("reply.eml");
    std::fs::write(
        &file,
        gmail(ALICE, &to_alice, "c2@a.example", &["Nf3", "By pipe."]),
    )
    .unwrap();
    s.ok(&["process", file.to_str().unwrap()]);
    let mails = s.take_outbox();
    let m = board_mail(&mails, BOB);
    assert!(m.body.contains("\n1. Nf3\n"), "{}", m.body);
    assert!(
        m.body.contains("Comment from alice:\nBy pipe."),
        "{}",
        m.body
    );
    // The same mail delivered again is recognised and not applied twice.
    s.ok(&["process", file.to_str().unwrap()]);
    assert!(s.take_outbox().is_empty());
}

#[test]
fn an_html_only_reply_plays_and_no_token_reaches_the_log() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();
    let token = mid(&to_alice);
    let token = token.trim_start_matches('<').trim_end_matches('>');
    // A web mailer that sends HTML only: the move in a div, the quote in a
    // blockquote.
    let raw = format!(
        "{}Content-Type: text/html; charset=utf-8\r\n\r\n\
         <html><body><div>c4</div><div>From the browser.</div><br>\
         <div>On Mon, 23 Nov 2026, Test PBM wrote:</div><blockquote><pre>{}</pre></blockquote></body></html>\r\n",
        headers(ALICE, &to_alice, "h1@a.example", ""),
        html_escape(&to_alice.body)
    );
    s.deliver_raw(&raw);
    let out = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("poll")
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("mail processed"), "{log}");
    let hex = token.trim_start_matches("t.").split('@').next().unwrap();
    assert!(!log.contains(hex), "the token is in the log:\n{log}");
    let mails = s.take_outbox();
    let m = board_mail(&mails, BOB);
    assert!(m.body.contains("\n1. c4\n"), "{}", m.body);
    assert!(
        m.body.contains("Comment from alice:\nFrom the browser."),
        "{}",
        m.body
    );
    let new_token = mid(m);
    assert!(!log.contains(
        new_token
            .trim_start_matches("<t.")
            .split('@')
            .next()
            .unwrap()
    ));
}

/// A board loads only its recent plies; the token still remembers the ply
/// number, not how many plies were loaded.
#[test]
fn a_reply_plays_deep_into_a_long_game() {
    let mut s = a_board();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    let opening = [
        "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6", "O-O", "O-O", "h3", "h6",
        "a4", "a5",
    ];
    let mut last = Vec::new();
    for (i, mv) in opening.iter().enumerate() {
        let (from, who, pw) = if i % 2 == 0 {
            (ALICE, "alice", ALICE_PW)
        } else {
            (BOB, "bob", BOB_PW)
        };
        last = round(&mut s, from, &format!("chess move 101 {who} {pw} {mv}"), "");
    }
    let to_alice = board_mail(&last, ALICE).clone();
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "deep1@a.example", "Re1"));
    let to_bob = board_mail(&mails, BOB);
    assert!(to_bob.body.contains("9. Re1"), "{}", to_bob.body);
    // The same mail answered again is a ply behind now: refused.
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "deep2@a.example", "d4"));
    assert!(
        only_one(&mails, ALICE)
            .body
            .starts_with("This mail showed ply 16; Chess board 101 is at ply 17 now"),
        "{mails:#?}"
    );
}
