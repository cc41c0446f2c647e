//! Shadow Chess played by mail through the real binary: a capture sets off
//! a reveal with a choice, the chooser decides by mail, play goes on.

use crate::common;

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

/// Bob and alice on shadowchess board 101, after e4/e2e3 d5/d7d6
/// exd5/d2d3 (bob must choose which shadow pawn is revealed).
fn at_the_decision() -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(ALICE, "shadowchess challenge alice bob", "");
    for (from, who, mv) in [
        (ALICE, "alice apw", "e4/e2e3"),
        (BOB, "bob bpw", "d5/d7d6"),
        (ALICE, "alice apw", "exd5/d2d3"),
    ] {
        s.send(from, &format!("shadowchess move 101 {who} {mv}"), "");
    }
    s.poll();
    s.take_outbox();
    s
}

/// The move lines of a mail body: those that begin with a move number.
fn move_lines(body: &str) -> Vec<&str> {
    body.lines()
        .filter(|l| {
            let t = l.trim_start();
            t.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .collect()
}

/// A reveal decided with the PGN's one-word spelling is stored as `reveal
/// d6`, shown inside the move that set it off (no move number of its own,
/// in the board mail and in the PGN), and the PGN's move text fed to
/// `preview new` shows the board as it stands.
#[test]
fn a_reveal_is_one_spelling_numbered_inside_its_move_and_the_record_replays() {
    let mut s = at_the_decision();
    s.send(BOB, "shadowchess move 101 bob bpw reveal_d6", "");
    s.send(BOB, "shadowchess move 101 bob bpw Nf6/g8f6", "");
    s.send(ALICE, "shadowchess move 101 alice apw Nf3/g1f3", "");
    s.poll();
    let mails = s.take_outbox();
    let board = to(&mails, BOB).pop().unwrap().clone();
    assert_eq!(
        move_lines(&board.body),
        [
            "1. e4/e2e3               d5/d7d6",
            "2. exd5/d2d3 reveal d6   Nf6/g8f6",
            "3. Nf3/g1f3",
        ],
        "{}",
        board.body
    );

    s.send(BOB, "shadowchess pgn 101", "");
    s.poll();
    let mails = s.take_outbox();
    let pgn = to(&mails, BOB).pop().unwrap().body.clone();
    let movetext = pgn.split_once("\n\n").unwrap().1.trim_end();
    assert_eq!(
        movetext,
        "1. e4/e2e3 d5/d7d6 2. exd5/d2d3 reveal_d6 2... Nf6/g8f6 3. Nf3/g1f3 *"
    );

    s.send(BOB, &format!("shadowchess preview new {movetext}"), "");
    s.send(BOB, "shadowchess show 101", "");
    s.poll();
    let mails = to(&s.take_outbox(), BOB)
        .into_iter()
        .cloned()
        .collect::<Vec<_>>();
    let preview = mails.iter().find(|m| m.subject == "Shadow Chess preview");
    let preview = preview.unwrap_or_else(|| panic!("{mails:#?}"));
    let shown = mails
        .iter()
        .find(|m| m.subject.starts_with("Shadow Chess Board 101"))
        .unwrap();
    let grid = |body: &str| -> Vec<String> {
        body.lines()
            .filter(|l| l.contains('|'))
            .map(str::to_string)
            .collect()
    };
    assert!(!grid(&shown.body).is_empty(), "{}", shown.body);
    assert_eq!(grid(&preview.body), grid(&shown.body), "{}", preview.body);
    assert!(
        preview
            .body
            .contains("After the previewed plies it would be Black's turn."),
        "{}",
        preview.body
    );
}

/// `preview` reads a reveal written as two words among other moves, as
/// the move list writes it.
#[test]
fn preview_reads_a_reveal_written_as_two_words() {
    let mut s = at_the_decision();
    s.send(BOB, "shadowchess preview 101 reveal d6 Nf6/g8f6", "");
    s.send(
        BOB,
        "shadowchess preview new e4/e2e3 d5/d7d6 exd5/d2d3 reveal d6",
        "",
    );
    s.poll();
    let mails = s.take_outbox();
    let answers = to(&mails, BOB);
    assert_eq!(answers.len(), 2, "{answers:#?}");
    for m in answers {
        assert!(!m.body.contains("cannot be played"), "{}", m.body);
        assert!(m.body.contains("reveal d6 (preview)"), "{}", m.body);
    }
}
