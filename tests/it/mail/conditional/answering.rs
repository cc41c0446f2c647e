//! Trees answering: a line played out in the opponent's mails, clashing
//! answers, trees answering each other, queued moves, other boards, the
//! computer's moves, one pass, and the PGN.

use super::*;

#[test]
fn a_ten_ply_line_is_played_out_by_the_tree_in_the_opponents_mails() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let mails = cond(&mut s, "chess", "alice", &RUY_LOPEZ.join(" "));
    let answer = private_to(&mails, ALICE);
    assert!(!answer.subject.contains("Error"), "{}", answer.body);
    assert_eq!(plies(&s, "chess"), 1, "nothing is played on bob's turn");

    for (i, pair) in RUY_LOPEZ.chunks(2).enumerate() {
        let (theirs, mine) = (pair[0], pair[1]);
        let mails = play(&mut s, "chess", "bob", theirs);
        // Bob's own answer already shows alice's reply, marked; nobody is
        // asked for alice's move.
        for m in &mails {
            assert_eq!(m.subject, "Chess Board 101 bob", "{theirs}: {}", m.body);
        }
        let bobs = one(&mails, BOB);
        assert!(
            bobs.body.contains(&format!("{mine} (Cond)")),
            "{theirs}: bob's mail shows the answer {mine} marked:\n{}",
            bobs.body
        );
        assert!(bobs.body.contains("It is bob's turn."), "{}", bobs.body);
        let later = &RUY_LOPEZ[2 * i + 2..];
        let unplayed: Vec<&str> = later.iter().copied().skip(1).step_by(2).collect();
        assert_no_hint(&bobs, &unplayed, true);
        assert_no_hint(&one(&mails, CAROL), &unplayed, true);
        let alices = one(&mails, ALICE);
        assert!(
            alices.body.contains(&format!("{mine} (Cond)")),
            "{}",
            alices.body
        );
        match unplayed.first() {
            // Her own mail shows what is left of her tree.
            Some(next) => {
                assert!(
                    alices.body.contains("conditional moves") && alices.body.contains(next),
                    "alice's mail shows her remaining tree ({next}):\n{}",
                    alices.body
                );
            }
            None => assert!(
                !alices.body.contains("conditional moves"),
                "the tree is played out:\n{}",
                alices.body
            ),
        }
        assert_eq!(plies(&s, "chess"), 1 + 2 * (i as i64 + 1));
    }
    let record = shown(&s, "chess");
    assert!(record.contains("6. Re1 (Cond)"), "{record}");
    assert!(record.starts_with("It is bob's turn."), "{record}");
    assert_eq!(
        held_lines(&s, "chess"),
        0,
        "a line played to its end is gone"
    );
}

#[test]
fn two_answers_to_one_move_clash_and_the_refusal_names_the_clash() {
    let mut s = with_tree();
    let mails = cond(&mut s, "chess", "alice", "e5 Nc3");
    let err = private_to(&mails, ALICE);
    assert_eq!(err.subject, "Chess Board 101 Error");
    let said = message_of(&err);
    for named in ["e5", "Nf3", "Nc3", "cancel"] {
        assert!(said.contains(named), "the clash names {named}: {said}");
    }
    // Deeper down: after e5 Nf3 Nc6 the answer is Bb5 already.
    let err = private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bc4"), ALICE);
    let said = message_of(&err);
    for named in ["Nc6", "Bb5", "Bc4"] {
        assert!(said.contains(named), "the clash names {named}: {said}");
    }
    // Canonical notation: Ng1f3 is Nf3, so this is no clash.
    let ok = private_to(
        &cond(&mut s, "chess", "alice", "e5 Ng1f3 Nc6 Bb5 a6 Ba4"),
        ALICE,
    );
    assert!(!ok.subject.contains("Error"), "{}", ok.body);
    // Nothing of the refused lines is kept; bob's e5 gets Nf3.
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(one(&mails, BOB).body.contains("Nf3 (Cond)"));
    let list = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    assert!(!list.body.contains("Bc4"), "{}", list.body);
    assert!(list.body.contains("Ba4"), "{}", list.body);
}

#[test]
fn two_trees_answer_each_other_in_one_mail_until_both_are_played_out() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"), ALICE);
    // Bob, on his turn: e5 now, then his answers to alice's.
    let mails = cond(&mut s, "chess", "bob", "e5 Nf3 Nc6 Bb5 a6");
    assert_eq!(plies(&s, "chess"), 6, "e4, then five plies in bob's mail");
    for addr in [ALICE, BOB, CAROL] {
        let m = one(&mails, addr);
        assert_eq!(m.subject, "Chess Board 101 alice", "{}", m.body);
        for marked in ["Nf3 (Cond)", "Nc6 (Cond)", "Bb5 (Cond)", "a6 (Cond)"] {
            assert!(m.body.contains(marked), "{marked}:\n{}", m.body);
        }
    }
    assert_eq!(held_lines(&s, "chess"), 0, "both lines are played out");
}

#[test]
fn a_tree_answer_follows_the_opponents_queued_move_in_the_same_mail() {
    let mut s = board("chess");
    // Bob queues e5 while alice is to move; alice enters her line on her
    // own turn: e4 now, bob's queued e5, her Nf3 from the tree.
    private_to(&round(&mut s, BOB, "chess queue 101 bob bpw e5", ""), BOB);
    let mails = cond(&mut s, "chess", "alice", "e4 e5 Nf3 Nc6 Bb5");
    assert_eq!(plies(&s, "chess"), 3);
    let bobs = one(&mails, BOB);
    assert_eq!(bobs.subject, "Chess Board 101 bob", "{}", bobs.body);
    assert!(bobs.body.contains("e5 (Auto)"), "{}", bobs.body);
    assert!(bobs.body.contains("Nf3 (Cond)"), "{}", bobs.body);
    assert_no_hint(&bobs, &["Bb5"], true);
    let mails = play(&mut s, "chess", "bob", "Nc6");
    assert!(one(&mails, BOB).body.contains("Bb5 (Cond)"));
}

#[test]
fn a_tree_answers_only_on_its_own_board() {
    let mut s = board("chess");
    round(&mut s, ALICE, "chess challenge alice bob", "");
    for number in [101, 102] {
        round(
            &mut s,
            ALICE,
            &format!("chess move {number} alice apw e4"),
            "",
        );
    }
    private_to(&cond(&mut s, "chess", "alice", "e5 Nf3"), ALICE);
    let mails = round(&mut s, BOB, "chess move 102 bob bpw e5", "");
    let bobs = one(&mails, BOB);
    assert_eq!(bobs.subject, "Chess Board 102 alice", "{}", bobs.body);
    assert!(!bobs.body.contains("(Cond)"), "{}", bobs.body);
    // Nor does the other board's move disturb the tree of 101.
    assert_eq!(held_lines(&s, "chess"), 1);
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(one(&mails, BOB).body.contains("Nf3 (Cond)"));
}

/// The computer answers within the mail that gave it the turn, so the
/// test first learns its answer to 1. e4 on a board of its own (the
/// search has no randomness), then holds a line expecting it. Should the
/// answer differ the second time, the deviation must be told instead.
#[test]
fn a_tree_answers_the_computers_moves_as_it_answers_a_players() {
    let mut s = Install::new();
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, ALICE, "chess challenge alice computer -level=1", "");
    round(&mut s, ALICE, "chess challenge alice computer -level=1", "");
    round(&mut s, ALICE, "chess move 102 alice apw e4", "");
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let reply: String = conn
        .query_row(
            "SELECT notation FROM plies WHERE game = 'chess' AND board = 102 AND ply = 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // Nf3 is legal after any first move of Black's.
    let mails = cond(&mut s, "chess", "alice", &format!("e4 {reply} Nf3 a6"));
    let record = shown(&s, "chess");
    let answered: String = conn
        .query_row(
            "SELECT notation FROM plies WHERE game = 'chess' AND board = 101 AND ply = 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    if answered == reply {
        assert!(record.contains("Nf3 (Cond)"), "{record}");
        assert!(
            plies(&s, "chess") >= 4,
            "the computer answered Nf3: {record}"
        );
    } else {
        let said = joined(&one(&mails, ALICE).body);
        assert!(said.contains("did not expect"), "{said}");
    }
}

#[test]
fn the_pgn_of_a_game_with_tree_answers_replays() {
    let mut s = with_tree();
    play(&mut s, "chess", "bob", "e5");
    play(&mut s, "chess", "bob", "Nc6");
    let mails = round(&mut s, BOB, "chess pgn 101", "");
    let pgn = one(&mails, BOB).body;
    assert_no_hint(&one(&mails, BOB), &["d4", "Nc3"], true);
    let movetext = pgn
        .split_once("\n\n")
        .map(|(_, rest)| rest)
        .unwrap_or_default()
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(movetext.contains("Bb5"), "{pgn}");
    let mails = round(&mut s, BOB, &format!("chess preview new {movetext}"), "");
    let preview = one(&mails, BOB);
    assert!(
        !preview.subject.ends_with("Error"),
        "{movetext}\n{}",
        preview.body
    );
}

#[test]
fn a_tree_and_the_move_it_answers_read_in_one_pass_play_in_order() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    s.send(ALICE, "chess if 101 alice apw e5 Nf3 Nc6 Bb5", "");
    s.send(BOB, "chess move 101 bob bpw e5", "");
    s.send(BOB, "chess move 101 bob bpw Nc6", "");
    s.poll();
    let mails = s.take_outbox();
    for m in &mails {
        assert_fits(m);
    }
    assert_eq!(plies(&s, "chess"), 5);
    let record = shown(&s, "chess");
    assert!(
        record.contains("Nf3 (Cond)") && record.contains("Bb5 (Cond)"),
        "{record}"
    );
    for m in to(&mails, CAROL) {
        assert_no_hint(m, &[], true);
        assert!(
            !m.body.contains("Bb5") || m.body.contains("Bb5 (Cond)"),
            "{}",
            m.body
        );
    }
}
