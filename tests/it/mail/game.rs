//! A whole game of chess by mail through the real binary: Maildir in,
//! `poll`, Maildir out.

use crate::common;

use common::{only_one, to, Install, SentMail};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

fn signed_up_pair() -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice AlicePw", "");
    s.send(BOB, "signup bob bobpw", "");
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 2, "{mails:#?}");
    assert_eq!(to(&mails, ALICE).len(), 1);
    assert!(mails[0].subject.contains("Welcome"), "{}", mails[0].subject);
    s
}

/// Play one move by mail and return the mails it caused.
fn play(s: &mut Install, from: &str, user: &str, pw: &str, mv: &str) -> Vec<SentMail> {
    s.send(from, &format!("chess move 101 {user} {pw} {mv}"), "");
    s.poll();
    s.take_outbox()
}

#[test]
fn a_whole_game_to_mate_by_mail() {
    let mut s = signed_up_pair();

    s.send(ALICE, "chess challenge alice bob", "Good luck!");
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 2, "{mails:#?}");
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert_eq!(m.subject, "New Chess Board 101 alice **");
        assert!(m.body.starts_with("It is alice's turn."), "{}", m.body);
        assert!(m.body.contains("Good luck!"));
    }

    // Several mails at once are processed in delivery order.
    s.send(ALICE, "chess move 101 alice AlicePw e2e4", "");
    s.send(BOB, "Re: chess move 101 bob BOBPW e5", "");
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 4, "{mails:#?}");
    let last_to_bob = to(&mails, BOB).pop().unwrap().clone();
    assert_eq!(last_to_bob.subject, "Chess Board 101 alice");
    assert!(last_to_bob.body.contains("e4"), "{}", last_to_bob.body);
    assert!(last_to_bob.body.contains("e5"));

    for (who, pw, mv, next) in [
        ("alice", "AlicePw", "Bc4", "bob"),
        ("bob", "bobpw", "Nc6", "alice"),
        ("alice", "AlicePw", "Qh5", "bob"),
        ("bob", "bobpw", "nf6", "alice"),
    ] {
        let from = if who == "alice" { ALICE } else { BOB };
        let mails = play(&mut s, from, who, pw, mv);
        assert_eq!(mails.len(), 2, "{mails:#?}");
        let m = only_one(&mails, ALICE);
        assert_eq!(m.subject, format!("Chess Board 101 {next}"));
        assert!(
            m.body.starts_with(&format!("It is {next}'s turn.")),
            "{}",
            m.body
        );
    }

    // Mate, guarded as ply 7.
    let mails = play(&mut s, ALICE, "alice", "AlicePw", "Qxf7#7");
    assert_eq!(mails.len(), 2, "{mails:#?}");
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert_eq!(m.subject, "Chess Board 101 finished");
        assert!(
            m.body.starts_with("Game won by alice (checkmate)."),
            "{}",
            m.body
        );
        assert!(m.body.contains("alice's rating went up from 1600 to 1616."));
        assert!(m.body.contains("bob's rating went down from 1600 to 1584."));
        assert!(m.body.contains("Qxf7#"));
    }

    // Nothing can be played any more.
    let mails = play(&mut s, BOB, "bob", "bobpw", "a6");
    let m = only_one(&mails, BOB);
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(m.body.contains("is over"), "{}", m.body);

    // The admin sees the finished board.
    let shown = s.ok(&["admin", "show", "chess", "101", "--size", "small"]);
    assert!(
        shown.starts_with("Game won by alice (checkmate)."),
        "{shown}"
    );

    // No password ever left the server.
    for raw in s.all_outbox_raw() {
        let lower = raw.to_lowercase();
        assert!(!lower.contains("alicepw"), "{raw}");
        assert!(!lower.contains("bobpw"), "{raw}");
    }
}

#[test]
fn resent_mail_is_not_applied_twice() {
    let mut s = signed_up_pair();
    s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    s.poll();
    assert_eq!(s.take_outbox().len(), 2);
    let id = s.send(ALICE, "chess move 101 alice alicepw e4", "");
    s.poll();
    assert_eq!(s.take_outbox().len(), 2);
    // The same mail again (same Message-ID), e.g. a crash before it was filed.
    s.deliver_raw(&common::raw_mail(
        ALICE,
        "chess move 101 alice alicepw e4",
        "",
        &id,
    ));
    s.poll();
    assert!(s.take_outbox().is_empty(), "a duplicate is not answered");
    let shown = s.ok(&["admin", "show", "chess", "101"]);
    assert!(shown.starts_with("It is bob's turn."), "{shown}");
}

#[test]
fn wrong_password_and_illegal_move_each_get_one_clear_error() {
    let mut s = signed_up_pair();
    assert_eq!(
        s.ok(&["admin", "challenge", "chess", "alice", "bob"])
            .trim(),
        "101"
    );
    s.poll();
    assert_eq!(s.take_outbox().len(), 2);
    let before = s.ok(&["admin", "show", "chess", "101"]);

    let mails = play(&mut s, ALICE, "alice", "wrongpass", "e4");
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let m = &mails[0];
    assert_eq!(m.to, ALICE);
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(m.body.contains("password for alice is wrong"), "{}", m.body);
    // After a wrong password the words after the userid are masked too:
    // one may be the password in the wrong place (see `server::guard`).
    assert!(
        m.body.contains("chess move 101 alice ***** *****"),
        "{}",
        m.body
    );
    assert!(!m.body.contains("wrongpass"));

    let mails = play(&mut s, ALICE, "alice", "alicepw", "e5");
    assert_eq!(mails.len(), 1, "{mails:#?}");
    assert_eq!(mails[0].to, ALICE);
    assert!(
        mails[0].body.contains("not a legal move"),
        "{}",
        mails[0].body
    );

    assert_eq!(s.ok(&["admin", "show", "chess", "101"]), before);
}

#[test]
fn junk_and_non_commands_get_answers_or_are_filed_never_crash() {
    let mut s = Install::new();
    s.send(ALICE, "hello there", "what is this?");
    s.deliver_raw("\u{0}\u{1}garbage without headers\r\n\r\n\u{7f}");
    s.deliver_raw("From: x@y\r\nSubject:\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nbroken");
    s.deliver_raw(&format!(
        "From: MAILER-DAEMON@players.test\r\nTo: {}\r\nSubject: Undelivered Mail\r\nMessage-ID: <bounce1@x>\r\n\r\nbounce\r\n",
        common::SERVER_ADDRESS
    ));
    s.poll();
    let mails = s.take_outbox();
    let alice = only_one(&mails, ALICE);
    assert!(alice.body.contains("help"), "{}", alice.body);
    assert!(to(&mails, "mailer-daemon@players.test").is_empty());
    // The inbox is empty: everything was filed.
    let left = std::fs::read_dir(s.path("var/inbox/new")).unwrap().count();
    assert_eq!(left, 0);
}

#[test]
fn replies_carry_the_protocol_headers() {
    let mut s = Install::new();
    let id = s.send(ALICE, "help", "");
    s.poll();
    let mails = s.take_outbox();
    let m = only_one(&mails, ALICE);
    assert_eq!(
        m.header("In-Reply-To").as_deref(),
        Some(format!("<{id}>").as_str())
    );
    assert_eq!(m.header("Auto-Submitted").as_deref(), Some("auto-replied"));
    assert!(m.header("Message-ID").is_some());
    assert!(m.header("Date").is_some());
    assert!(m
        .header("Content-Type")
        .unwrap()
        .to_lowercase()
        .contains("charset=utf-8"));
    assert!(m.header("From").unwrap().contains(common::SERVER_ADDRESS));
}
