//! What clears a tree and who is told: deviation, cancel, a queued move,
//! draw offers, undo, resignation and forfeit.

use super::*;

#[test]
fn a_deviation_clears_the_tree_and_only_its_owner_is_told() {
    let mut s = with_tree();
    let mails = play(&mut s, "chess", "bob", "e6");
    assert_eq!(plies(&s, "chess"), 2, "no answer was played");
    for m in &mails {
        assert_eq!(m.subject, "Chess Board 101 alice", "{}", m.body);
    }
    let alices = one(&mails, ALICE);
    let said = joined(&alices.body).to_lowercase();
    assert!(
        said.contains("conditional moves did not expect e6") && said.contains("cleared"),
        "alice is told why her tree is gone:\n{}",
        alices.body
    );
    let tree = ["Nf3", "Nc6", "Bb5", "d6", "d4", "c5", "Nc3"];
    assert_no_hint(&one(&mails, BOB), &tree, false);
    assert_no_hint(&one(&mails, CAROL), &tree, false);
    assert_eq!(held_lines(&s, "chess"), 0);
    let list = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    for mv in ["Bb5", "Nc3"] {
        assert!(!list.body.contains(mv), "cleared:\n{}", list.body);
    }
    // Play goes on as ever, with no word of the tree to anyone but alice.
    let mails = play(&mut s, "chess", "alice", "d3");
    for addr in [BOB, CAROL] {
        assert_no_hint(&one(&mails, addr), &tree, false);
    }
}

#[test]
fn cancel_drops_a_branch_or_the_whole_tree_and_tells_its_owner_alone() {
    let mut s = with_tree();
    let answer = private_to(&cond(&mut s, "chess", "alice", "cancel e5 Nf3 d6"), ALICE);
    assert!(!answer.subject.contains("Error"), "{}", answer.body);
    let list = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    assert!(list.body.contains("Bb5"), "{}", list.body);
    assert!(list.body.contains("Nc3"), "{}", list.body);
    assert!(
        !list.body.contains("d4"),
        "the d6 branch is gone:\n{}",
        list.body
    );
    // A branch at the opponent's first move.
    private_to(&cond(&mut s, "chess", "alice", "cancel c5"), ALICE);
    let list = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    assert!(!list.body.contains("Nc3"), "{}", list.body);
    assert!(list.body.contains("Bb5"), "{}", list.body);
    // All of it.
    private_to(&cond(&mut s, "chess", "alice", "cancel"), ALICE);
    assert_eq!(held_lines(&s, "chess"), 0);
    let mails = play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 2);
    let alices = one(&mails, ALICE);
    assert_eq!(alices.subject, "Chess Board 101 alice");
    assert!(
        !joined(&alices.body).contains("did not expect"),
        "a cancelled tree expects nothing:\n{}",
        alices.body
    );
}

#[test]
fn a_tree_replaces_a_queued_move_and_a_queued_move_replaces_a_tree_saying_so() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let (from, pw) = seat("alice");
    private_to(
        &round(&mut s, from, &format!("chess queue 101 alice {pw} Nf3"), ""),
        ALICE,
    );
    let answer = private_to(&cond(&mut s, "chess", "alice", "e5 Nc3"), ALICE);
    let said = joined(&answer.body).to_lowercase();
    assert!(
        said.contains("replaces your queued move nf3"),
        "the tree says it replaced the queued move:\n{}",
        answer.body
    );
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(
        one(&mails, BOB).body.contains("Nc3 (Cond)"),
        "the tree answers, not the queue"
    );
    assert!(!one(&mails, BOB).body.contains("Nf3"));

    // Now the other way round.
    private_to(&cond(&mut s, "chess", "alice", "Nc6 Bb5"), ALICE);
    let mails = round(&mut s, from, &format!("chess queue 101 alice {pw} Bc4"), "");
    let answer = private_to(&mails, ALICE);
    let said = joined(&answer.body).to_lowercase();
    assert!(
        said.contains("replaces your conditional moves"),
        "the queue says it replaced the tree:\n{}",
        answer.body
    );
    assert_eq!(held_lines(&s, "chess"), 0);
    let mails = play(&mut s, "chess", "bob", "Nc6");
    let bobs = one(&mails, BOB);
    assert!(bobs.body.contains("Bc4 (Auto)"), "{}", bobs.body);
    assert!(!bobs.body.contains("Bb5"), "{}", bobs.body);
}

/// An undo asked for changes nothing on the board, so it leaves the
/// trees: rejected, or lapsed by the opponent's move, the tree still
/// answers.
#[test]
fn an_undo_request_leaves_the_tree_rejected_or_lapsed() {
    for answer in ["reject", "e5"] {
        let mut s = board("chess");
        play(&mut s, "chess", "alice", "e4");
        private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"), ALICE);
        let held = held_lines(&s, "chess");
        let mails = play(&mut s, "chess", "alice", "undo");
        assert_eq!(held_lines(&s, "chess"), held, "the request leaves it");
        for addr in [ALICE, BOB, CAROL] {
            assert!(!one(&mails, addr).body.contains("cleared"), "{mails:#?}");
        }
        for addr in [BOB, CAROL] {
            assert_no_hint(&one(&mails, addr), &["Nf3", "Bb5"], false);
        }
        let mails = play(&mut s, "chess", "bob", answer);
        if answer == "reject" {
            assert_eq!(held_lines(&s, "chess"), held, "the rejection leaves it");
            play(&mut s, "chess", "bob", "e5");
        } else {
            let body = joined(&one(&mails, ALICE).body);
            assert!(
                body.contains("alice's request to take back a ply lapsed"),
                "{body}"
            );
        }
        assert_eq!(plies(&s, "chess"), 3, "{answer}: the tree answers e5");
    }
}

/// A draw offer leaves the trees alone (an opponent could otherwise erase
/// a tree for free); a move with an offer answered by the tree lets the
/// offer lapse, and both mails say so.
#[test]
fn a_draw_offer_leaves_the_tree_and_lapses_when_the_tree_answers() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"), ALICE);
    let held = held_lines(&s, "chess");
    assert!(held > 0);
    play(&mut s, "chess", "bob", "propose");
    assert_eq!(held_lines(&s, "chess"), held, "the offer leaves the tree");
    let mails = play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 3, "the tree answers the move");
    for addr in [ALICE, BOB] {
        let body = joined(&one(&mails, addr).body);
        assert!(
            body.contains(
                "bob's draw offer lapsed unanswered, as alice's conditional move was played."
            ),
            "{addr}: {body}"
        );
    }
    // The offer is gone: alice cannot accept it any more.
    let mails = play(&mut s, "chess", "alice", "accept");
    assert!(
        joined(&one(&mails, ALICE).body).contains("There is no draw or undo proposal"),
        "{mails:#?}"
    );
}

/// An undo takes back the asking player's last ply and every ply after
/// it: after a tree answered bob's move, bob's undo takes back his move
/// and the answer, and the request says which plies.
#[test]
fn an_undo_after_a_trees_answer_takes_back_the_askers_own_move() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"), ALICE);
    play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 3, "the tree answers with Nf3");
    let mails = play(&mut s, "chess", "bob", "undo");
    for addr in [ALICE, BOB] {
        let body = joined(&one(&mails, addr).body);
        assert!(
            body.contains("bob asks to take back plies 2 (e5) and 3 (Nf3)."),
            "{addr}: {body}"
        );
    }
    let mails = play(&mut s, "chess", "alice", "accept");
    assert_eq!(plies(&s, "chess"), 1, "e5 and Nf3 are taken back");
    assert!(
        joined(&one(&mails, BOB).body).contains("Plies 2 (e5) and 3 (Nf3) are taken back."),
        "{mails:#?}"
    );
    // Bob plays the move he meant.
    play(&mut s, "chess", "bob", "d6");
    assert_eq!(plies(&s, "chess"), 2);
}

#[test]
fn an_undo_of_a_ply_the_tree_played_clears_the_rest_of_the_tree() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"), ALICE);
    play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 3);
    play(&mut s, "chess", "alice", "undo");
    let mails = play(&mut s, "chess", "bob", "accept");
    assert_eq!(plies(&s, "chess"), 2, "Nf3 is taken back");
    assert_eq!(held_lines(&s, "chess"), 0);
    let alices = one(&mails, ALICE);
    assert!(!alices.body.contains("Bb5"), "{}", alices.body);
    // Alice plays Nf3 herself again; bob's Nc6 is not answered.
    play(&mut s, "chess", "alice", "Nf3");
    let mails = play(&mut s, "chess", "bob", "Nc6");
    assert_eq!(plies(&s, "chess"), 4);
    assert_eq!(one(&mails, BOB).subject, "Chess Board 101 alice");
}

#[test]
fn an_undo_of_the_askers_ply_and_the_opponents_after_it_clears_the_tree() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    play(&mut s, "chess", "bob", "c5");
    play(&mut s, "chess", "alice", "Nf3");
    // Bob to move; alice's tree answers d6 with d4.
    private_to(&cond(&mut s, "chess", "alice", "d6 d4 cxd4 Nxd4"), ALICE);
    play(&mut s, "chess", "bob", "undo");
    assert!(held_lines(&s, "chess") > 0, "the request leaves the tree");
    let mails = play(&mut s, "chess", "alice", "accept");
    assert_eq!(plies(&s, "chess"), 1, "bob's c5 and alice's Nf3 go");
    assert_eq!(held_lines(&s, "chess"), 0);
    // Its owner alone is told.
    assert!(
        joined(&one(&mails, ALICE).body).contains(
            "Your conditional moves on this board were cleared, as plies were taken back."
        ),
        "{mails:#?}"
    );
    for addr in [BOB, CAROL] {
        assert_no_hint(&one(&mails, addr), &["d4", "Nxd4"], false);
    }
}

#[test]
fn resignation_ends_the_game_and_clears_the_tree() {
    for resigner in ["alice", "bob"] {
        let mut s = board("chess");
        play(&mut s, "chess", "alice", "e4");
        play(&mut s, "chess", "bob", "e5");
        play(&mut s, "chess", "alice", "Nf3");
        private_to(&cond(&mut s, "chess", "alice", "Nc6 Bb5"), ALICE);
        assert_eq!(held_lines(&s, "chess"), 1);
        let (from, pw) = seat(resigner);
        let mails = round(
            &mut s,
            from,
            &format!("chess resign 101 {resigner} {pw}"),
            "",
        );
        assert_eq!(held_lines(&s, "chess"), 0, "{resigner} resigned");
        for addr in [BOB, CAROL] {
            let m = one(&mails, addr);
            assert!(m.subject.ends_with("finished"), "{}", m.body);
            assert_no_hint(&m, &["Bb5"], false);
        }
    }
}

/// The forfeit comes from the timers, so this one runs the server in
/// process with a clock the test moves (`common::world`).
#[test]
fn a_forfeit_clears_the_tree() {
    use chrono::Duration;
    use common::world::World;
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.mail("a@x", "chess move 101 alice pa Nf3", "");
    w.mail("a@x", "chess if 101 alice pa Nc6 Bb5", "");
    let lines = |w: &World| -> i64 {
        w.conn
            .query_row("SELECT count(*) FROM conditional_lines", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(lines(&w), 1);
    w.replies();
    w.advance(Duration::days(30));
    w.ticks();
    assert!(!w.board().is_active());
    assert_eq!(lines(&w), 0);
    for m in w.replies() {
        assert!(!m.body.contains("Bb5"), "to {}: {}", m.to, m.body);
    }
}

#[test]
fn a_queued_move_no_line_expected_clears_the_tree_and_tells_only_its_owner() {
    let mut s = board("chess");
    private_to(&round(&mut s, BOB, "chess queue 101 bob bpw c5", ""), BOB);
    let mails = cond(&mut s, "chess", "alice", "e4 e5 Nf3 Nc6 Bb5");
    assert_eq!(plies(&s, "chess"), 2, "e4, then bob's queued c5");
    let said = joined(&one(&mails, ALICE).body).to_lowercase();
    assert!(said.contains("did not expect c5"), "{said}");
    for addr in [BOB, CAROL] {
        assert_no_hint(&one(&mails, addr), &["Nf3", "Bb5"], false);
    }
    assert_eq!(held_lines(&s, "chess"), 0);
}
