//! Doppelganger Chess played by mail through the real binary, with the
//! server as it is: the removal sentences reach both players under the
//! move, a missing choice is answered with the list of choices, and
//! `-lenient` is a challenge option.

use crate::common;

use common::{only_one, to, Install, SentMail};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

fn players() -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    s.take_outbox();
    s
}

/// Send one move and return the board mails of alice and bob.
fn move_mails(s: &mut Install, subject: &str) -> (SentMail, SentMail) {
    s.send(
        if subject.contains(" alice ") {
            ALICE
        } else {
            BOB
        },
        subject,
        "",
    );
    s.poll();
    let mails = s.take_outbox();
    (
        only_one(&mails, ALICE).clone(),
        only_one(&mails, BOB).clone(),
    )
}

#[test]
fn a_doppelganger_game_tells_both_players_every_removal() {
    let mut s = players();
    s.send(ALICE, "doppelganger challenge alice bob", "");
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(
        only_one(&mails, ALICE).subject,
        "New Doppelganger Chess Board 101 alice"
    );

    move_mails(&mut s, "doppelganger move 101 alice apw e4");
    move_mails(&mut s, "doppelganger move 101 bob bpw d5");
    // White's pawn capture takes a second pawn of White's choice.
    let (a, b) = move_mails(&mut s, "doppelganger move 101 alice apw exd5/h7");
    for m in [&a, &b] {
        assert_eq!(m.subject, "Doppelganger Chess Board 101 bob");
        assert!(
            m.body
                .contains("\n2. exd5/h7\n   Also removed: the pawn on h7."),
            "{}",
            m.body
        );
    }

    // Without the choice, bob is told the choices, and nothing is played.
    s.send(BOB, "doppelganger move 101 bob bpw Qxd5", "");
    s.poll();
    let mails = s.take_outbox();
    let err = only_one(&mails, BOB);
    assert_eq!(err.subject, "Doppelganger Chess Board 101 Error");
    assert!(
        common::joined(&err.body).contains(
            "'Qxd5' could mean Qxd5/a2 or Qxd5/b2 or Qxd5/c2 or Qxd5/d2 or Qxd5/f2 or Qxd5/g2 or Qxd5/h2"
        ),
        "{}",
        err.body
    );
    assert!(to(&mails, ALICE).is_empty());

    move_mails(&mut s, "doppelganger move 101 bob bpw Qxd5/a2");
    move_mails(&mut s, "doppelganger move 101 alice apw Nf3");
    // Taking a knight takes its partner too.
    let (a, b) = move_mails(&mut s, "doppelganger move 101 bob bpw Qxf3");
    for m in [&a, &b] {
        assert_eq!(m.subject, "Doppelganger Chess Board 101 alice");
        assert!(
            m.body
                .contains(" Qxf3\n   Also removed: Nb1 (the partner of the knight taken on f3)."),
            "{}",
            m.body
        );
        // The board shows both knights gone.
        assert!(
            m.body
                .contains(" 1 |:R:|   |:B:| Q |:K:| B |:::| R |  1  White"),
            "{}",
            m.body
        );
    }
    // A queen has no partner: nothing else is removed.
    let (a, _) = move_mails(&mut s, "doppelganger move 101 alice apw Qxf3");
    assert!(a.body.contains("\n4. Qxf3\n"), "{}", a.body);
    assert!(!a.body.contains("\n4. Qxf3\n   "), "{}", a.body);

    let shown = s.ok(&["admin", "show", "doppelganger", "101"]);
    assert!(shown.contains("Also removed: the pawn on a2."), "{shown}");

    s.send(ALICE, "help doppelganger", "");
    s.poll();
    let help = s.take_outbox();
    let page = &only_one(&help, ALICE).body;
    assert!(page.contains("b8=R/g2"), "{page}");
    assert!(page.lines().all(|l| l.chars().count() <= 76), "{page}");
}

#[test]
fn lenient_is_a_challenge_option_and_others_are_refused() {
    let mut s = players();
    s.send(ALICE, "doppelganger challenge alice bob -lenient", "");
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(
        only_one(&mails, BOB).subject,
        "New Doppelganger Chess Board 101 alice"
    );
    s.send(ALICE, "doppelganger challenge alice bob -queens", "");
    s.poll();
    let mails = s.take_outbox();
    let err = only_one(&mails, ALICE);
    assert!(err.body.contains("-lenient"), "{}", err.body);
    // perft takes the option too.
    let out = s.ok(&[
        "perft",
        "doppelganger",
        "1",
        "--position",
        "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        "--option",
        "lenient",
    ]);
    assert_eq!(out.trim(), "8");
    let out = s.ok(&[
        "perft",
        "doppelganger",
        "1",
        "--position",
        "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
    ]);
    assert_eq!(out.trim(), "5");
}
