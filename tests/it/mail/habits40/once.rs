//! Saying it once: one inbound mail sends each reader of a board one board
//! mail, the board after the last change, listing every ply it played
//! (and, to its sender, each refusal).

use crate::common::{to, Install, SentMail};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";
const CAROL: &str = "carol@players.test";

/// alice against bob on chess board 101 (and 102 when `boards` is 2),
/// carol observing 101.
fn boards(boards: u32) -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(CAROL, "signup carol cpw", "");
    s.poll();
    s.take_outbox();
    for n in 0..boards {
        let made = s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
        assert_eq!(made.trim(), (101 + n).to_string());
    }
    s.send(CAROL, "chess subscribe 101 carol cpw", "");
    s.poll();
    s.take_outbox();
    s
}

fn exchange(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

fn lines(moves: &[(&str, &str)], board: u32) -> String {
    moves
        .iter()
        .map(|(who, m)| {
            let pw = if *who == "alice" { "apw" } else { "bpw" };
            format!("chess move {board} {who} {pw} {m}\n")
        })
        .collect()
}

const EIGHT: [(&str, &str); 8] = [
    ("alice", "e4"),
    ("bob", "e5"),
    ("alice", "Nf3"),
    ("bob", "Nc6"),
    ("alice", "Bb5"),
    ("bob", "a6"),
    ("alice", "Ba4"),
    ("bob", "Nf6"),
];

const LISTED: &str = "1 e4, 2 e5, 3 Nf3, 4 Nc6, 5 Bb5, 6 a6, 7 Ba4, 8 Nf6.";

fn assert_within_78(mail: &SentMail) {
    for line in mail.body.lines() {
        assert!(line.chars().count() <= 78, "{line:?} in\n{}", mail.body);
    }
}

#[test]
fn an_eight_line_multiple_gives_each_reader_one_board_mail_listing_eight_plies() {
    let mut s = boards(1);
    let mails = exchange(&mut s, ALICE, "multiple", &lines(&EIGHT, 101));
    for reader in [ALICE, BOB, CAROL] {
        let got = to(&mails, reader);
        assert_eq!(got.len(), 1, "{reader}: {mails:#?}");
        let mail = got[0];
        assert_eq!(mail.subject, "Chess Board 101 alice", "{reader}");
        // The board after the last change, every ply listed.
        assert!(
            mail.body.starts_with("It is alice's turn."),
            "{}",
            mail.body
        );
        let text = crate::common::joined(&mail.body);
        assert!(text.contains(LISTED), "{reader}: {}", mail.body);
        let last = mail.body.lines().find(|l| l.starts_with("4. Ba4"));
        assert!(last.is_some_and(|l| l.ends_with(" Nf6")), "{}", mail.body);
        assert_within_78(mail);
    }
    assert_eq!(mails.len(), 3, "{mails:#?}");
}

#[test]
fn moves_answered_by_conditional_moves_give_the_opponent_one_mail() {
    let mut s = boards(1);
    let mails = exchange(
        &mut s,
        BOB,
        "chess if 101 bob bpw e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6",
        "",
    );
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let alone: Vec<(&str, &str)> = EIGHT
        .iter()
        .copied()
        .filter(|(w, _)| *w == "alice")
        .collect();
    let mails = exchange(&mut s, ALICE, "multiple", &lines(&alone, 101));
    for reader in [ALICE, BOB, CAROL] {
        let got = to(&mails, reader);
        assert_eq!(got.len(), 1, "{reader}: {mails:#?}");
        let text = crate::common::joined(&got[0].body);
        assert!(text.contains(LISTED), "{reader}: {}", got[0].body);
        assert!(text.contains("Nf6 (Cond)"), "{reader}: {}", got[0].body);
    }
}

#[test]
fn a_refusal_is_said_in_the_senders_board_mail_and_each_board_has_its_own() {
    let mut s = boards(2);
    let body = format!(
        "{}chess move 101 alice apw Qxf7\n{}{}",
        lines(&EIGHT[..2], 101),
        lines(&EIGHT[2..4], 101),
        lines(&EIGHT[..2], 102),
    );
    let mails = exchange(&mut s, ALICE, "multiple", &body);
    // alice: one answer with a part per board, the refusal inside 101's.
    let own = to(&mails, ALICE);
    assert_eq!(own.len(), 1, "{mails:#?}");
    let body = &own[0].body;
    assert!(own[0].subject.ends_with("answers (2 parts)"), "{body}");
    assert!(!body.contains("Error"), "{body}");
    let text = crate::common::joined(body);
    assert!(
        text.contains("Refused: \"chess move 101 alice ***** Qxf7\":"),
        "{body}"
    );
    assert!(text.contains("1 e4, 2 e5, 3 Nf3, 4 Nc6."), "{body}");
    assert!(text.contains("1 e4, 2 e5."), "{body}");
    assert_within_78(own[0]);
    // bob: one mail per board, nothing of the refusal.
    let bob = to(&mails, BOB);
    assert_eq!(bob.len(), 2, "{mails:#?}");
    for mail in bob {
        assert!(!mail.body.contains("Qxf7"), "{}", mail.body);
    }
    assert_eq!(to(&mails, CAROL).len(), 1, "{mails:#?}");
}

#[test]
fn a_multiple_that_ends_the_game_sends_the_final_board_once() {
    let mut s = boards(1);
    let mate = [
        ("alice", "f3"),
        ("bob", "e5"),
        ("alice", "g4"),
        ("bob", "Qh4#"),
    ];
    let mails = exchange(&mut s, ALICE, "multiple", &lines(&mate, 101));
    for reader in [ALICE, BOB, CAROL] {
        let got = to(&mails, reader);
        assert_eq!(got.len(), 1, "{reader}: {mails:#?}");
        assert_eq!(got[0].subject, "Chess Board 101 finished");
        let text = crate::common::joined(&got[0].body);
        assert!(text.contains("Game won by bob"), "{}", got[0].body);
        assert!(
            text.contains("1 f3, 2 e5, 3 g4, 4 Qh4#."),
            "{}",
            got[0].body
        );
    }
}

/// The one board mail carries the reply token of the board as the mail
/// left it: a reply to it plays the next ply.
#[test]
fn the_one_board_mail_is_answered_by_reply_at_the_last_ply() {
    let mut s = boards(1);
    let mails = exchange(&mut s, ALICE, "multiple", &lines(&EIGHT[..7], 101));
    let bob = to(&mails, BOB);
    assert_eq!(bob.len(), 1, "{mails:#?}");
    assert_eq!(bob[0].subject, "Chess Board 101 bob");
    let parent = bob[0].header("Message-ID").expect("a Message-ID");
    let raw = format!(
        "From: {BOB}\r\nTo: {to}\r\nSubject: Re: {subject}\r\nMessage-ID: <r1@players.test>\r\n\
         In-Reply-To: {parent}\r\nReferences: {parent}\r\nDate: Mon, 23 Nov 2026 10:05:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nNf6\r\n",
        to = crate::common::SERVER_ADDRESS,
        subject = bob[0].subject,
    );
    s.deliver_raw(&raw);
    s.poll();
    let mails = s.take_outbox();
    let alice = to(&mails, ALICE);
    assert_eq!(alice.len(), 1, "{mails:#?}");
    assert_eq!(alice[0].subject, "Chess Board 101 alice", "{mails:#?}");
    let shown = s.ok(&["admin", "show", "chess", "101", "--size", "small"]);
    let last = shown.lines().find(|l| l.trim_start().starts_with("4. Ba4"));
    assert!(last.is_some_and(|l| l.ends_with("Nf6")), "{shown}");
}
