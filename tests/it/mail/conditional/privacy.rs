//! Only a tree's owner ever sees it: opponents, observers, other addresses,
//! comments, views and reminders.

use super::*;

#[test]
fn the_opponent_and_observers_see_only_the_answers_played_never_the_rest() {
    let mut s = with_tree();
    let mails = play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 3);
    let unplayed = ["Bb5", "d4", "c5", "Nc3"];
    for addr in [BOB, CAROL] {
        let m = one(&mails, addr);
        assert!(m.body.contains("Nf3 (Cond)"), "{}", m.body);
        assert_no_hint(&m, &unplayed, true);
    }
    let alices = one(&mails, ALICE);
    assert!(alices.body.contains("Bb5"), "{}", alices.body);
    assert!(alices.body.contains("d4"), "{}", alices.body);
    assert!(
        !alices.body.contains("Nc3"),
        "the c5 branch is gone:\n{}",
        alices.body
    );
    // A deviation one level down: only alice hears of it.
    let mails = play(&mut s, "chess", "bob", "Nf6");
    assert_eq!(plies(&s, "chess"), 4);
    let said = joined(&one(&mails, ALICE).body).to_lowercase();
    assert!(said.contains("did not expect nf6"), "{said}");
    for addr in [BOB, CAROL] {
        assert_no_hint(&one(&mails, addr), &unplayed, true);
    }
}

#[test]
fn the_opponents_own_mails_never_hint_at_a_tree_even_when_entered_on_their_turn() {
    let mut s = board("chess");
    let mut seen_by_others = Vec::new();
    let mut keep = |mails: Vec<SentMail>| {
        seen_by_others.extend(mails.into_iter().filter(|m| m.to != ALICE));
    };
    keep(play(&mut s, "chess", "alice", "e4"));
    keep(cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"));
    keep(cond(&mut s, "chess", "alice", "list"));
    keep(cond(&mut s, "chess", "alice", "cancel e5 Nf3 Nc6"));
    keep(cond(&mut s, "chess", "alice", "d5 exd5"));
    // Bob looks at the board and its record while the tree waits.
    keep(round(&mut s, BOB, "chess show 101", ""));
    keep(round(&mut s, BOB, "chess pgn 101", ""));
    keep(round(&mut s, CAROL, "chess show 101", ""));
    keep(play(&mut s, "chess", "bob", "c6"));
    assert!(!seen_by_others.is_empty());
    for m in &seen_by_others {
        assert_no_hint(m, &["Nf3", "Bb5", "exd5"], false);
    }
}

#[test]
fn nobody_but_the_owner_reads_or_changes_a_tree() {
    let mut s = with_tree();
    // The observer is no player of the board: refused, nothing shown.
    let mails = round(&mut s, CAROL, "chess if 101 carol cpw list", "");
    let err = private_to(&mails, CAROL);
    assert!(err.subject.contains("Error"), "{}", err.body);
    assert_no_hint(&err, &["Nf3", "Bb5", "Nc3"], true);
    // The opponent lists and cancels only his own (empty) tree.
    for what in ["list", "cancel", "cancel e5", "cancel c5 Nc3"] {
        let mails = cond(&mut s, "chess", "bob", what);
        let answer = private_to(&mails, BOB);
        assert_no_hint(&answer, &["Nf3", "Bb5", "Nc3", "d4"], true);
    }
    assert_eq!(held_lines(&s, "chess"), 3);
    let mails = play(&mut s, "chess", "bob", "c5");
    assert!(one(&mails, BOB).body.contains("Nc3 (Cond)"));
}

#[test]
fn a_comment_sent_with_a_tree_is_not_relayed_to_anyone() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let mails = round(
        &mut s,
        ALICE,
        "chess if 101 alice apw e5 Nf3",
        "My secret plan: the Ruy Lopez.",
    );
    private_to(&mails, ALICE);
    let mails = play(&mut s, "chess", "bob", "d5");
    for addr in [BOB, CAROL] {
        let m = one(&mails, addr);
        assert!(!m.body.contains("secret plan"), "{}", m.body);
    }
}

#[test]
fn a_tree_is_mailed_only_to_its_owners_addresses_even_asked_from_elsewhere() {
    let mut s = with_tree();
    // Someone who has alice's password but writes from another address.
    let mails = round(
        &mut s,
        "mallory@evil.test",
        "chess if 101 alice apw list",
        "",
    );
    for m in to(&mails, "mallory@evil.test") {
        assert_no_hint(m, &["Nf3", "Bb5", "Nc3", "d4"], true);
    }
    for m in &mails {
        if m.to != ALICE {
            assert!(!m.body.contains("Bb5"), "to {}: {}", m.to, m.body);
        }
    }
}

/// Bob's and carol's view of the board, asked by `show`: the body of the
/// answer (its headers carry fresh tokens).
fn views(w: &mut common::world::World) -> Vec<String> {
    w.replies();
    w.mail("b@x", "chess show 101", "");
    w.mail("c@x", "chess show 101", "");
    w.mail("b@x", "chess games bob", "");
    w.replies().into_iter().map(|m| m.body).collect()
}

/// Entering, listing and cancelling a tree leaves no trace anyone else
/// can see: not even the board's "last action" time moves (the test moves
/// the clock between, in process with `common::world`).
#[test]
fn a_tree_entered_listed_and_cancelled_leaves_the_others_view_unchanged() {
    use chrono::Duration;
    use common::world::World;
    let mut w = World::with_board();
    w.mail("c@x", "signup carol pc", "");
    w.mail("c@x", "chess subscribe 101 carol pc", "");
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.advance(Duration::hours(3));
    let before = views(&mut w);
    w.advance(Duration::hours(3));
    for command in [
        "chess if 101 alice pa e5 Nf3 Nc6 Bb5",
        "chess if 101 alice pa c5 Nc3",
        "chess if 101 alice pa list",
        "chess if 101 alice pa cancel c5",
    ] {
        w.mail("a@x", command, "");
        for m in w.replies() {
            assert_eq!(m.to, "a@x", "{command}: {}", m.body);
        }
    }
    w.advance(Duration::hours(3));
    assert_eq!(views(&mut w), before);
    let row = w.board();
    w.mail("a@x", "chess if 101 alice pa cancel", "");
    assert_eq!(format!("{:?}", w.board()), format!("{row:?}"));
}

/// "Vacations and timers count as today": a tree entered is no action
/// on the board, so the reminder to the player to move comes when it
/// would have come without it.
#[test]
fn a_tree_entered_does_not_move_the_opponents_reminder() {
    use chrono::Duration;
    use common::world::World;
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.replies();
    w.advance(Duration::days(6));
    w.mail("a@x", "chess if 101 alice pa e5 Nf3", "");
    w.replies();
    assert_eq!(w.ticks(), 0);
    w.advance(Duration::days(1));
    assert_eq!(w.ticks(), 1, "bob is reminded seven days after e4");
    let r = w.replies();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].to, "b@x");
    assert!(!r[0].body.contains("Nf3"), "{}", r[0].body);
    assert!(
        !r[0].body.to_lowercase().contains("conditional"),
        "{}",
        r[0].body
    );
}
