//! Whole games over real IMAP and SMTP: by `poll`, and by a reply to a
//! board mail.

use super::*;

#[test]
fn a_whole_game_by_real_mail_with_poll() {
    let Some(servers) = Servers::start("a_whole_game_by_real_mail_with_poll") else {
        return;
    };
    let s = servers.install();
    let alice = || servers.mailbox("alice").len();

    // Sign up: alice has an IMAP mailbox, bob's mail lands in the sink.
    send(&servers, ALICE, "signup alice AlicePw", "a1@test.local");
    send(&servers, BOB, "signup bob BobPw", "b1@elsewhere.example");
    poll_until(&s, "the welcome mails", || {
        alice() >= 1 && !servers.sink().is_empty()
    });
    let welcome = &servers.mailbox("alice")[0];
    assert_eq!(welcome.to, ALICE);
    assert!(welcome.subject.contains("Welcome"), "{}", welcome.subject);
    for (name, value) in [
        ("Return-Path", "<pbm@test.local>"),
        ("From", "\"PBM Chess\" <pbm@test.local>"),
        ("To", ALICE),
        ("In-Reply-To", "<a1@test.local>"),
        ("References", "<a1@test.local>"),
        ("Auto-Submitted", "auto-replied"),
        ("Content-Type", "text/plain; charset=utf-8"),
    ] {
        assert_eq!(
            welcome.header(name).as_deref(),
            Some(value),
            "{name} in\n{}",
            welcome.raw
        );
    }
    let mid = welcome.header("Message-ID").unwrap();
    assert!(
        mid.starts_with("<pbmchess.") && mid.ends_with("@test.local>"),
        "{mid}"
    );
    assert!(welcome.header("Date").is_some_and(|d| !d.is_empty()));
    assert_eq!(servers.sink()[0].to, BOB);
    assert_eq!(
        servers.sink()[0].header("In-Reply-To").as_deref(),
        Some("<b1@elsewhere.example>")
    );

    // Bob challenges alice and plays White: fool's mate.
    send(
        &servers,
        BOB,
        "chess challenge bob alice",
        "b2@elsewhere.example",
    );
    let mut alice_has = 2;
    poll_until(&s, "the challenge", || {
        alice() >= alice_has && servers.sink().len() >= alice_has
    });
    for m in [
        servers.mailbox("alice").last().unwrap().clone(),
        servers.sink().last().unwrap().clone(),
    ] {
        assert_eq!(m.subject, "New Chess Board 101 bob", "{}", m.raw);
        assert!(m.body.starts_with("It is bob's turn."), "{}", m.body);
    }
    let moves = [
        (BOB, "bob BobPw", "f3", "alice"),
        (ALICE, "alice AlicePw", "e5", "bob"),
        (BOB, "bob BobPw", "g4", "alice"),
        (ALICE, "alice alicepw", "Qh4#", "finished **"),
    ];
    // The mating move carries a comment in UTF-8, relayed to both.
    let comment = "Échec et mat ♛ — merci !";
    for (n, (from, user_pw, mv, next)) in moves.into_iter().enumerate() {
        let id = format!("move{n}@players.test");
        let body = if mv == "Qh4#" { comment } else { "" };
        submit(
            servers.smtp_port,
            from,
            SERVER,
            &player_mail(from, &format!("chess move 101 {user_pw} {mv}"), body, &id),
        );
        alice_has += 1;
        poll_until(&s, mv, || {
            alice() >= alice_has && servers.sink().len() >= alice_has
        });
        let alice_mails = servers.mailbox("alice");
        let sink = servers.sink();
        assert_eq!(alice_mails.len(), alice_has, "{alice_mails:#?}");
        assert_eq!(sink.len(), alice_has, "{sink:#?}");
        for (m, to) in [
            (alice_mails.last().unwrap(), ALICE),
            (sink.last().unwrap(), BOB),
        ] {
            assert_eq!(m.subject, format!("Chess Board 101 {next}"), "{}", m.raw);
            // The mover's board mail answers the move; the opponent's
            // does not name it (it would show the mover's mail domain).
            let expected = (to == from).then(|| format!("<{id}>"));
            assert_eq!(m.header("In-Reply-To"), expected, "{}", m.raw);
        }
    }
    let alice_mails = servers.mailbox("alice");
    let sink = servers.sink();
    for m in [alice_mails.last().unwrap(), sink.last().unwrap()] {
        assert!(
            m.body.starts_with("Game won by alice (checkmate)."),
            "{}",
            m.body
        );
        assert!(m.body.contains("Qh4#"), "{}", m.body);
        assert!(m.body.contains(comment), "{}", m.body);
    }
    // An auto-reply to the server is filed (flagged), never answered.
    submit(
        servers.smtp_port,
        ALICE,
        SERVER,
        format!(
            "From: {ALICE}\r\nTo: {SERVER}\r\nSubject: Out of office\r\n\
             Auto-Submitted: auto-replied\r\nMessage-ID: <ooo@test.local>\r\n\r\naway\r\n"
        )
        .as_bytes(),
    );
    poll_until(&s, "the auto-reply to be filed", || {
        servers.count("pbm", "INBOX") == 0
    });

    // Processed mail left the inbox for Processed: a poll answers nothing.
    assert_eq!(servers.count("pbm", "INBOX"), 0);
    assert_eq!(servers.count("pbm", "Processed"), 8);
    let mut session = servers.session("pbm");
    session.examine("Processed").unwrap();
    assert_eq!(session.search("FLAGGED").unwrap().len(), 1);
    assert_eq!(session.search("SEEN").unwrap().len(), 8);
    session.logout().unwrap();
    s.poll();
    assert_eq!(servers.mailbox("alice").len(), 6);
    assert_eq!(servers.sink().len(), 6);
    // Every mail arrived once, no password left the server.
    let all: Vec<SentMail> = alice_mails.into_iter().chain(sink).collect();
    assert!(by_message_id(&all).values().all(|&n| n == 1));
    for m in &all {
        let lower = m.raw.to_lowercase();
        assert!(
            !lower.contains("alicepw") && !lower.contains("bobpw"),
            "{}",
            m.raw
        );
    }
    assert_eq!(pending(&s), 0);
}

/// Playing by reply over real IMAP and SMTP: the board mail
/// alice finds in her IMAP mailbox is answered with just the move; bob's
/// board mail shows it.
#[test]
fn a_reply_to_a_board_mail_plays_over_imap_and_smtp() {
    let Some(servers) = Servers::start("a_reply_to_a_board_mail_plays_over_imap_and_smtp") else {
        return;
    };
    let s = servers.install();
    send(&servers, ALICE, "signup alice AlicePw", "ra1@test.local");
    send(&servers, BOB, "signup bob BobPw", "rb1@elsewhere.example");
    send(
        &servers,
        BOB,
        "chess challenge alice bob",
        "rb2@elsewhere.example",
    );
    poll_until(&s, "the board mails", || {
        servers.mailbox("alice").len() >= 2 && servers.sink().len() >= 2
    });
    let board = servers.mailbox("alice").last().unwrap().clone();
    assert_eq!(board.subject, "New Chess Board 101 alice", "{}", board.raw);
    let token = board.header("Message-ID").unwrap();
    assert!(
        token.starts_with("<t.") && token.ends_with("@test.local>"),
        "{token}"
    );
    let quote: String = board.body.lines().map(|l| format!("> {l}\r\n")).collect();
    let reply = format!(
        "From: {ALICE}\r\nTo: PBM Chess <{SERVER}>\r\nSubject: Re: {}\r\n\
         Message-ID: <ra2@test.local>\r\nIn-Reply-To: {token}\r\nReferences: {token}\r\n\
         Date: Mon, 23 Nov 2026 10:05:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n\
         e4\r\nOver IMAP.\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, PBM Chess <{SERVER}> wrote:\r\n{quote}",
        board.subject
    );
    submit(servers.smtp_port, ALICE, SERVER, reply.as_bytes());
    poll_until(&s, "the move by reply", || servers.sink().len() >= 3);
    let to_bob = servers.sink().last().unwrap().clone();
    assert_eq!(to_bob.subject, "Chess Board 101 bob **", "{}", to_bob.raw);
    assert!(to_bob.body.contains("\n1. e4\n"), "{}", to_bob.body);
    assert!(
        to_bob.body.contains("Comment from alice:\nOver IMAP."),
        "{}",
        to_bob.body
    );
    assert!(to_bob.header("Message-ID").unwrap().starts_with("<t."));
    assert_eq!(pending(&s), 0);
}
