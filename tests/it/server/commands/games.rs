//! Playing a board: signup, draws, proposals, undo, resignation, refusals out
//! of turn, show and set.

use super::*;

#[test]
fn signup_refuses_a_taken_userid_and_bad_words() {
    let mut w = World::new();
    w.mail("a@x", "signup alice pa", "");
    assert!(single(&w.replies()).subject.contains("Welcome"));
    w.mail("c@x", "signup alice zebra9", "");
    let r = w.replies();
    assert_eq!(single(&r).to, "c@x");
    assert!(r[0].body.contains("userid alice is taken"), "{}", r[0].body);
    assert!(
        !r[0].body.contains("zebra9"),
        "password masked: {}",
        r[0].body
    );
    w.mail("c@x", "signup chess pw", "");
    assert!(single(&w.replies()).body.contains("cannot be used"));
}

#[test]
fn draw_by_proposal_and_acceptance_is_rated() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.replies();
    w.mail("a@x", "chess move 101 alice pa propose", "");
    let r = w.replies();
    assert_eq!(r.len(), 2);
    assert!(r[0].body.contains("alice proposes a draw"), "{}", r[0].body);
    // The proposer cannot accept.
    w.mail("a@x", "chess move 101 alice pa accept", "");
    assert!(single(&w.replies())
        .body
        .contains("other player must accept"));
    w.mail("b@x", "chess move 101 bob pb accept", "");
    let r = w.replies();
    assert_eq!(r.len(), 2);
    assert!(
        r[0].body.starts_with("Game was a tie (agreement)."),
        "{}",
        r[0].body
    );
    assert!(r[0].body.contains("alice's rating stayed at 1600."));
    assert!(!w.board().is_active());
}

#[test]
fn a_draw_offer_lasts_until_the_opponents_move_and_reject_clears_it() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("a@x", "chess move 101 alice pa propose", "");
    w.mail("b@x", "chess move 101 bob pb reject", "");
    assert_eq!(w.board().proposal, None);
    // A move with an offer: the offerer's own move keeps it.
    w.mail("b@x", "chess move 101 bob pb propose", "");
    assert!(w.board().proposal.is_some());
    w.mail("b@x", "chess move 101 bob pb e5", "");
    assert!(w.board().proposal.is_some());
    w.replies();
    w.mail("a@x", "chess move 101 alice pa Nf3", "");
    assert_eq!(w.board().proposal, None);
    let r = w.replies();
    assert!(
        r.iter().all(|m| common::joined(&m.body)
            .contains("bob's draw offer lapsed unanswered, as alice's move was played.")),
        "{r:#?}"
    );
    assert!(w.board().is_active());
}

#[test]
fn undo_takes_back_one_ply_when_accepted() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.mail("b@x", "chess move 101 bob pb undo", "");
    w.mail("a@x", "chess move 101 alice pa accept", "");
    let r = w.replies();
    let last = r.last().unwrap();
    assert!(
        last.body.contains("Ply 2 (e5) is taken back."),
        "{}",
        last.body
    );
    assert!(last.body.starts_with("It is bob's turn."), "{}", last.body);
    assert_eq!(
        store::plies(&w.conn, store::BoardId::new("chess", 101))
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn early_resignation_is_unrated_and_deletes_the_board() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("b@x", "chess resign 101 bob pb", "");
    let r = w.replies();
    assert!(
        r.last().unwrap().body.contains("not rated"),
        "{}",
        r.last().unwrap().body
    );
    assert!(store::board(&w.conn, store::BoardId::new("chess", 101))
        .unwrap()
        .is_none());
    assert!(store::rating(&w.conn, "chess", "alice").unwrap().is_none());
}

#[test]
fn resignation_after_both_moved_is_a_rated_loss() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.mail("a@x", "chess move 101 alice pa resign", "");
    let r = w.replies();
    let last = r.last().unwrap();
    assert!(
        last.body.starts_with("Game won by bob (resignation)."),
        "{}",
        last.body
    );
    assert_eq!(
        store::rating(&w.conn, "chess", "bob")
            .unwrap()
            .unwrap()
            .rating,
        1616
    );
}

#[test]
fn out_of_turn_and_wrong_guard_are_refused_without_change() {
    let mut w = World::with_board();
    w.mail("b@x", "chess move 101 bob pb e5", "");
    assert!(single(&w.replies()).body.contains("alice's turn"));
    w.mail("a@x", "chess move 101 alice pa e4#3", "");
    let r = w.replies();
    assert!(single(&r).body.contains("next ply"), "{}", r[0].body);
    assert!(r[0].body.contains("#1"));
    assert!(store::plies(&w.conn, store::BoardId::new("chess", 101))
        .unwrap()
        .is_empty());
}

#[test]
fn show_at_a_ply_and_games_table() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.replies();
    w.mail("z@x", "chess show 101#1", "");
    let r = w.replies();
    let m = single(&r);
    assert_eq!(m.to, "z@x");
    // A historic view says so in its subject and body, and both agree.
    assert_eq!(m.subject, "Chess Board 101 after ply 1 (historic)");
    assert!(
        common::joined(&m.body).starts_with(
            "Historic view: Chess Board 101 as it stood after ply 1 of 2. bob was to act then."
        ),
        "{}",
        m.body
    );
    assert!(m.body.contains("\n1. e4\n"), "{}", m.body);
    assert!(!m.body.contains("e5"), "{}", m.body);
    w.mail("z@x", "chess show 101#9", "");
    assert!(single(&w.replies()).body.contains("has 2 plies"));
    w.mail("z@x", "chess games", "");
    let r = w.replies();
    let table = &single(&r).body;
    assert!(table.contains("101"), "{table}");
    assert!(table.contains("alice - bob"), "{table}");
    assert!(table.contains("alice to act, ply 3"), "{table}");
}

#[test]
fn set_small_changes_the_drawing_of_later_mails() {
    let mut w = World::with_board();
    w.mail("b@x", "chess set bob pb small", "");
    w.replies();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    let to_a = r.iter().find(|m| m.to == "a@x").unwrap();
    let to_b = r.iter().find(|m| m.to == "b@x").unwrap();
    assert!(to_a.body.contains("+---+"), "large: {}", to_a.body);
    assert!(!to_b.body.contains("+---+"), "small: {}", to_b.body);
}
