//! Temporal Chess played by mail through the real binary (Maildir in and
//! out): the kings placed, drops, a vanish whose counter and reappearance
//! reach both players as events, a refusal naming the running warp, show,
//! the small drawing and the help page.

use crate::common;

use common::{only_one, to, Install};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

#[test]
fn a_temporal_game_with_placement_drops_and_a_vanish() {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(BOB, "temporal set bob bpw small", "");
    s.send(ALICE, "temporal challenge alice bob", "");
    s.poll();
    let mails = s.take_outbox();
    let board = to(&mails, ALICE).pop().unwrap().clone();
    assert_eq!(board.subject, "New Temporal Chess Board 101 alice");
    // The four levels side by side, reserves and warps under them.
    for label in ["Level A", "Level B", "Level C", "Level D"] {
        assert!(board.body.contains(label), "{}", board.body);
    }
    // (Sentences are wrapped to 78 columns: looked for with their line
    // breaks made spaces.)
    assert!(common::joined(&board.body).contains(
        "White's reserve: a king, a queen, 2 rooks, 2 bishops, 2 knights and 8 unicorns."
    ));
    assert!(board.body.contains("No warps are running."));
    let small = to(&mails, BOB).pop().unwrap().clone();
    assert!(
        small
            .body
            .contains(" 4 |   -   - |  4     4 |   -   - |  4"),
        "{}",
        small.body
    );

    let turns = [
        (ALICE, "alice apw", "K@Bb2", "bob"),
        (BOB, "bob bpw", "k@dd4", "alice"),
        (ALICE, "alice apw", "N@Ab1", "bob"),
        (BOB, "bob bpw", "U@Dd1", "alice"),
    ];
    for (from, who, action, next) in turns {
        s.send(from, &format!("temporal move 101 {who} {action}"), "");
        s.poll();
        let mails = s.take_outbox();
        let m = only_one(&mails, ALICE);
        assert_eq!(
            m.subject,
            format!("Temporal Chess Board 101 {next}"),
            "{action}: {}",
            m.body
        );
    }

    // The vanish: both players read what it means.
    s.send(ALICE, "temporal move 101 alice apw V1:Ab1", "");
    s.poll();
    let mails = s.take_outbox();
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert_eq!(m.subject, "Temporal Chess Board 101 bob");
        assert!(m.body.contains("\n3. V1:Ab1"), "{}", m.body);
        assert!(
            common::joined(&m.body).contains(
                "White's knight on Ab1 vanishes with 1 counter: it reappears at the end of White's next turn."
            ),
            "{}",
            m.body
        );
        assert!(
            common::joined(&m.body).contains(
                "White's knight has vanished on Ab1 (1 counter): it reappears at the end of White's next turn."
            ),
            "the running warp under the board: {}",
            m.body
        );
    }

    s.send(BOB, "temporal move 101 bob bpw Dd1-Cc2", "");
    s.poll();
    s.take_outbox();

    // No second warp while the first runs.
    s.send(ALICE, "temporal move 101 alice apw V2:Bb2", "");
    s.poll();
    let mails = s.take_outbox();
    let err = only_one(&mails, ALICE);
    assert_eq!(err.subject, "Temporal Chess Board 101 Error");
    assert!(
        common::joined(&err.body).contains(
            "you already have a warp running: the vanished knight on Ab1 reappears at the end of this turn"
        ),
        "{}",
        err.body
    );
    assert!(to(&mails, BOB).is_empty());

    // The turn at whose end the knight reappears.
    s.send(ALICE, "temporal move 101 alice apw Bb2-Ba2", "");
    s.poll();
    let mails = s.take_outbox();
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert!(m.body.contains("\n4. Bb2-Ba2"), "{}", m.body);
        assert!(
            m.body.contains(
                "The last counter comes off White's vanished knight: it reappears on Ab1."
            ),
            "{}",
            m.body
        );
        assert!(m.body.contains("No warps are running."), "{}", m.body);
    }

    // show lists the whole game with its events.
    let shown = s.ok(&["admin", "show", "temporal", "101", "--size", "small"]);
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("1. K@Bb2") && l.ends_with(" K@Dd4")),
        "{shown}"
    );
    assert!(
        shown.contains("   White's knight on Ab1 vanishes"),
        "{shown}"
    );

    s.send(ALICE, "help temporal", "");
    s.poll();
    let help = s.take_outbox();
    let page = &only_one(&help, ALICE).body;
    assert!(page.contains("C3:Ab1-Cc3"), "{page}");
    assert!(page.lines().all(|l| l.chars().count() <= 76), "{page}");
}

#[test]
fn perft_from_the_command_line() {
    let s = Install::new();
    assert_eq!(s.ok(&["perft", "temporal", "2"]).trim(), "3096");
    let out = s.ok(&[
        "perft",
        "temporal",
        "1",
        "--position",
        "phase=play side=w white=K@Aa1,R@Ad1 black=N@Dd1,K@Dd4 wres=- bres=U1 clock=0",
    ]);
    assert_eq!(out.trim(), "117");
}
