//! queue, submit/confirm and preview through the server's library face.

use crate::common;

use common::world::World;
use game::command::BoardSize;
use pbmchess::mail::Outgoing;
use pbmchess::store::{self, PendingKind};

fn single(replies: &[Outgoing]) -> &Outgoing {
    assert_eq!(replies.len(), 1, "{replies:#?}");
    &replies[0]
}

fn to<'a>(replies: &'a [Outgoing], addr: &str) -> &'a Outgoing {
    let mine: Vec<_> = replies.iter().filter(|m| m.to == addr).collect();
    assert_eq!(mine.len(), 1, "one mail to {addr}: {replies:#?}");
    mine[0]
}

fn plies(w: &World) -> Vec<String> {
    store::plies(&w.conn, store::BoardId::new("chess", 101))
        .unwrap()
        .into_iter()
        .map(|p| p.notation)
        .collect()
}

fn queued(w: &World, seat: usize) -> Option<String> {
    store::pending_move(
        &w.conn,
        store::BoardId::new("chess", 101),
        rules::Color::from_index(seat).expect("a seat of two"),
        PendingKind::Queued,
    )
    .unwrap()
    .map(|p| p.notation)
}

/// The chess board after `moves` from the start, as `render` draws it.
fn drawing(moves: &[&str], size: BoardSize) -> String {
    let game = rules::game("chess").unwrap();
    let mut p = game.start(&[]).unwrap();
    for m in moves {
        p.play(m).unwrap();
    }
    game::render::board(&p.diagram(), size)
        .trim_end()
        .to_string()
}

/// Whether `body` shows `drawing`: its grid line for line, and its legend
/// (a sentence, which a notice wraps to 78 columns) word for word.
fn shows(body: &str, drawing: &str) -> bool {
    let grid: Vec<&str> = drawing
        .lines()
        .take_while(|l| !l.starts_with("White pieces"))
        .collect();
    body.contains(&grid.join("\n")) && common::joined(body).contains(&common::joined(drawing))
}

/// Play `moves` alternately, alice first.
fn play(w: &mut World, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let (from, who) = if i % 2 == 0 {
            ("a@x", "alice pa")
        } else {
            ("b@x", "bob pb")
        };
        w.mail(from, &format!("chess move 101 {who} {m}"), "");
    }
    assert_eq!(plies(w).len(), moves.len(), "setup moves all played");
    w.replies();
}

// ------------------------------------------------------------------ queue

#[test]
fn queue_in_turn_plays_at_once_like_move() {
    let mut w = World::with_board();
    w.mail("a@x", "chess queue 101 alice pa e4", "");
    let r = w.replies();
    assert_eq!(r.len(), 2, "{r:#?}");
    for m in &r {
        assert_eq!(m.subject, "Chess Board 101 bob");
        assert!(m.body.starts_with("It is bob's turn."), "{}", m.body);
        assert!(m.body.contains("1. e4"), "{}", m.body);
    }
    assert_eq!(plies(&w), ["e4"]);
    assert_eq!(queued(&w, 0), None);
}

#[test]
fn queue_out_of_turn_is_private_and_played_after_the_opponents_move() {
    let mut w = World::with_board();
    w.mail("b@x", "chess queue 101 bob pb e5", "Your move, then mine.");
    let r = w.replies();
    let ack = single(&r);
    assert_eq!(ack.to, "b@x");
    assert!(ack.body.contains("Your move e5 is queued"), "{}", ack.body);
    assert!(ack.body.starts_with("It is alice's turn."), "{}", ack.body);
    assert!(plies(&w).is_empty());
    assert_eq!(queued(&w, 1).as_deref(), Some("e5"));

    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    assert_eq!(r.len(), 2, "{r:#?}");
    for addr in ["a@x", "b@x"] {
        let m = to(&r, addr);
        assert_eq!(m.subject, "Chess Board 101 alice");
        assert!(m.body.starts_with("It is alice's turn."), "{}", m.body);
        // The queued move is listed as played automatically.
        assert!(m.body.contains("\n1. e4         e5 (Auto)\n"), "{}", m.body);
        assert!(
            m.body
                .contains("bob's queued move e5 was played automatically as ply 2."),
            "{}",
            m.body
        );
        assert!(
            m.body.contains("bob wrote with it: Your move, then mine."),
            "{}",
            m.body
        );
        assert!(
            m.body.contains(&drawing(&["e4", "e5"], BoardSize::Large)),
            "{}",
            m.body
        );
    }
    assert_eq!(plies(&w), ["e4", "e5"]);
    assert_eq!(queued(&w, 1), None);
}

#[test]
fn a_new_queue_replaces_the_old_and_cancel_withdraws() {
    let mut w = World::with_board();
    w.mail("b@x", "chess queue 101 bob pb e5", "");
    w.replies();
    w.mail("b@x", "chess queue 101 bob pb c5", "");
    let r = w.replies();
    assert!(
        common::joined(&single(&r).body).contains("It replaces your earlier queued move e5."),
        "{}",
        r[0].body
    );
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.replies();
    assert_eq!(plies(&w), ["e4", "c5"]);

    // alice to move: bob queues, then withdraws.
    w.mail("b@x", "chess queue 101 bob pb Nc6", "");
    w.mail("b@x", "chess queue 101 bob pb cancel", "");
    let r = w.replies();
    assert_eq!(r.len(), 2, "an answer to each mail: {r:#?}");
    assert!(r.iter().all(|m| m.to == "b@x"), "private: {r:#?}");
    assert!(
        r[1].body
            .contains("Your queued move Nc6 on chess board 101 is withdrawn."),
        "{}",
        r[1].body
    );
    assert_eq!(queued(&w, 1), None);
    w.mail("b@x", "chess queue 101 bob pb cancel", "");
    let r = w.replies();
    assert_eq!(single(&r).subject, "Chess Board 101 Error");
    assert!(r[0].body.contains("no queued move"), "{}", r[0].body);
    w.mail("a@x", "chess move 101 alice pa Nf3", "");
    w.replies();
    assert_eq!(plies(&w), ["e4", "c5", "Nf3"]);
}

#[test]
fn a_queued_move_illegal_by_then_is_dropped_with_a_private_notice() {
    let mut w = World::with_board();
    play(&mut w, &["d4", "d5"]);
    // Legal only if alice plays c4.
    w.mail("b@x", "chess queue 101 bob pb dxc4", "");
    assert!(single(&w.replies()).body.contains("dxc4 is queued"));
    w.mail("a@x", "chess move 101 alice pa Nf3", "");
    let r = w.replies();
    assert_eq!(r.len(), 2, "{r:#?}");
    let bob = to(&r, "b@x");
    assert_eq!(bob.subject, "Chess Board 101 bob");
    assert!(
        bob.body.contains(
            "Your queued move dxc4 was not played and is dropped: dxc4 is not a legal move"
        ),
        "{}",
        bob.body
    );
    assert!(bob.body.contains("it is your turn"), "{}", bob.body);
    let alice = to(&r, "a@x");
    assert!(!alice.body.contains("dxc4"), "private: {}", alice.body);
    assert!(
        alice.body.starts_with("It is bob's turn."),
        "{}",
        alice.body
    );
    assert_eq!(plies(&w), ["d4", "d5", "Nf3"]);
    assert_eq!(queued(&w, 1), None);
}

#[test]
fn a_guard_that_does_not_match_the_ply_is_not_played() {
    let mut w = World::with_board();
    w.mail("b@x", "chess queue 101 bob pb e5#4", "");
    assert!(single(&w.replies()).body.contains("as ply 4"));
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    let bob = to(&r, "b@x");
    assert!(
        common::joined(&bob.body).contains("it was guarded as ply 4, but your turn came at ply 2"),
        "{}",
        bob.body
    );
    assert_eq!(plies(&w), ["e4"]);
    assert_eq!(queued(&w, 1), None);

    // A matching guard plays.
    w.mail("a@x", "chess queue 101 alice pa Nf3#3", "");
    w.replies();
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.replies();
    assert_eq!(plies(&w), ["e4", "e5", "Nf3"]);
}

#[test]
fn queue_refuses_specials_impossible_moves_and_past_guards() {
    let mut w = World::with_board();
    w.mail("b@x", "chess queue 101 bob pb resign", "");
    let r = w.replies();
    assert_eq!(single(&r).subject, "Chess Board 101 Error");
    assert!(
        r[0].body.contains("Only board moves can be queued"),
        "{}",
        r[0].body
    );
    assert!(r[0].body.contains("chess move 101"), "{}", r[0].body);
    assert!(
        r[0].body.contains("chess queue 101 bob ***** resign"),
        "password masked: {}",
        r[0].body
    );
    assert!(w.board().is_active());

    // The e7 pawn blocks the queen after any move of alice's.
    w.mail("b@x", "chess queue 101 bob pb Qh4", "");
    let r = w.replies();
    assert!(
        single(&r)
            .body
            .contains("Qh4 would not be legal after any move alice can make now"),
        "{}",
        r[0].body
    );
    w.mail("b@x", "chess queue 101 bob pb e5#1", "");
    let r = w.replies();
    assert!(
        single(&r).body.contains("ply 1 is alice's to play"),
        "{}",
        r[0].body
    );
    w.mail("b@x", "chess queue 101 bob wrong e5", "");
    assert!(single(&w.replies())
        .body
        .contains("password for bob is wrong"));
    assert_eq!(queued(&w, 1), None);
}

#[test]
fn a_queued_mate_ends_the_game_and_is_rated() {
    let mut w = World::with_board();
    play(&mut w, &["f3", "e5"]);
    w.mail("b@x", "chess queue 101 bob pb Qh4", "");
    w.replies();
    w.mail("a@x", "chess move 101 alice pa g4", "");
    let r = w.replies();
    let m = to(&r, "a@x");
    assert_eq!(m.subject, "Chess Board 101 finished");
    assert!(
        m.body.starts_with("Game won by bob (checkmate)."),
        "{}",
        m.body
    );
    assert!(m.body.contains("bob's rating went up"), "{}", m.body);
    assert_eq!(plies(&w), ["f3", "e5", "g4", "Qh4#"]);
}

#[test]
fn game_end_and_an_accepted_undo_clear_queued_moves() {
    let mut w = World::with_board();
    play(&mut w, &["e4", "e5"]);
    w.mail("b@x", "chess queue 101 bob pb Nc6", "");
    w.mail("a@x", "chess move 101 alice pa propose", "");
    w.mail("b@x", "chess move 101 bob pb accept", "");
    w.replies();
    assert!(!w.board().is_active());
    assert_eq!(queued(&w, 1), None);

    let mut w = World::with_board();
    play(&mut w, &["e4", "e5"]);
    w.mail("b@x", "chess queue 101 bob pb Nc6", "");
    assert_eq!(queued(&w, 1).as_deref(), Some("Nc6"));
    w.mail("b@x", "chess move 101 bob pb undo", "");
    w.mail("a@x", "chess move 101 alice pa accept", "");
    w.replies();
    assert_eq!(plies(&w), ["e4"]);
    assert_eq!(queued(&w, 1), None);
    // bob is to move again and nothing is played for him.
    w.mail("b@x", "chess move 101 bob pb c5", "");
    assert_eq!(plies(&w), ["e4", "c5"]);

    // A forfeit by the timers ends the game too.
    let mut w = World::with_board();
    play(&mut w, &["e4", "e5"]);
    w.mail("b@x", "chess queue 101 bob pb Nc6", "");
    w.advance(chrono::Duration::days(30));
    w.ticks();
    assert!(!w.board().is_active());
    assert_eq!(queued(&w, 1), None);

    // A board resigned before both players moved is deleted with its queue.
    let mut w = World::with_board();
    w.mail("b@x", "chess queue 101 bob pb e5", "");
    w.mail("a@x", "chess resign 101 alice pa", "");
    assert!(store::board(&w.conn, store::BoardId::new("chess", 101))
        .unwrap()
        .is_none());
    let left: i64 = w
        .conn
        .query_row("SELECT count(*) FROM pending_moves", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 0);
}

// ------------------------------------------------------- submit / confirm

#[test]
fn submit_previews_without_playing_and_confirm_plays() {
    let mut w = World::with_board();
    w.mail("a@x", "chess set alice pa small", "");
    w.replies();
    w.mail("a@x", "chess submit 101 alice pa e4", "");
    let r = w.replies();
    let m = single(&r);
    assert_eq!(m.to, "a@x");
    assert_eq!(m.subject, "Chess Board 101 preview");
    assert!(m.body.contains("Preview of your move e4"), "{}", m.body);
    assert!(m.body.contains("chess confirm 101 alice"), "{}", m.body);
    assert!(m.body.contains("\n1. e4 (preview)\n"), "{}", m.body);
    assert!(
        shows(&m.body, &drawing(&["e4"], BoardSize::Small)),
        "small, after the move: {}",
        m.body
    );
    assert!(!m.body.contains("alice pa"), "{}", m.body);
    assert!(plies(&w).is_empty());
    assert_eq!(w.board().position, w.board().start_position);

    // A newer submit replaces the pending one.
    w.mail("a@x", "chess submit 101 alice pa d4", "");
    assert!(single(&w.replies())
        .body
        .contains("replaces your earlier submitted move e4"));
    w.mail("a@x", "chess confirm 101 alice pa", "");
    let r = w.replies();
    assert_eq!(r.len(), 2, "{r:#?}");
    let bob = to(&r, "b@x");
    assert_eq!(bob.subject, "Chess Board 101 bob");
    assert!(bob.body.contains("1. d4"), "{}", bob.body);
    assert_eq!(plies(&w), ["d4"]);
    // The submission is used up.
    w.mail("a@x", "chess confirm 101 alice pa", "");
    assert!(single(&w.replies()).body.contains("no submitted move"));
}

#[test]
fn confirm_without_submit_is_refused() {
    let mut w = World::with_board();
    w.mail("a@x", "chess confirm 101 alice pa", "");
    let r = w.replies();
    let m = single(&r);
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(
        m.body
            .contains("You have no submitted move on chess board 101 to confirm"),
        "{}",
        m.body
    );
    assert!(
        m.body.contains("chess confirm 101 alice *****"),
        "{}",
        m.body
    );
    assert!(plies(&w).is_empty());
}

#[test]
fn a_stale_submission_is_refused_and_a_wrong_password_keeps_it() {
    let mut w = World::with_board();
    w.mail("a@x", "chess submit 101 alice pa e4", "");
    w.mail("a@x", "chess confirm 101 alice nope", "");
    let r = w.replies();
    assert!(r[1].body.contains("password for alice is wrong"));
    assert!(store::pending_move(
        &w.conn,
        store::BoardId::new("chess", 101),
        rules::Color::White,
        PendingKind::Submitted
    )
    .unwrap()
    .is_some());

    w.mail("a@x", "chess move 101 alice pa d4", "");
    w.mail("b@x", "chess move 101 bob pb d5", "");
    w.replies();
    w.mail("a@x", "chess confirm 101 alice pa", "");
    let r = w.replies();
    assert!(
        common::joined(&single(&r).body).contains(
            "checked against the position after ply 0, but chess board 101 has changed since"
        ),
        "{}",
        r[0].body
    );
    assert_eq!(plies(&w), ["d4", "d5"]);
}

#[test]
fn submit_refuses_out_of_turn_illegal_and_special_moves() {
    let mut w = World::with_board();
    w.mail("b@x", "chess submit 101 bob pb e5", "");
    assert!(single(&w.replies()).body.contains("alice's turn"));
    w.mail("a@x", "chess submit 101 alice pa e5", "");
    assert!(single(&w.replies()).body.contains("not a legal move"));
    w.mail("a@x", "chess submit 101 alice pa propose", "");
    assert!(single(&w.replies())
        .body
        .contains("Only board moves can be submitted"));
    w.mail("a@x", "chess submit 101 alice pa e4#2", "");
    assert!(single(&w.replies()).body.contains("next ply"));
    assert!(store::pending_move(
        &w.conn,
        store::BoardId::new("chess", 101),
        rules::Color::White,
        PendingKind::Submitted
    )
    .unwrap()
    .is_none());
}

#[test]
fn confirm_also_plays_the_opponents_queued_move() {
    let mut w = World::with_board();
    w.mail("b@x", "chess queue 101 bob pb e5", "");
    w.mail("a@x", "chess submit 101 alice pa e4", "");
    w.mail("a@x", "chess confirm 101 alice pa", "");
    let r = w.replies();
    assert!(r.iter().any(|m| m.body.contains("e5 (Auto)")), "{r:#?}");
    assert_eq!(plies(&w), ["e4", "e5"]);
}

// ---------------------------------------------------------------- preview

#[test]
fn preview_applies_several_moves_and_stores_nothing() {
    let mut w = World::with_board();
    w.mail("z@x", "chess preview 101 e4 e5 Nf3", "");
    let r = w.replies();
    let m = single(&r);
    assert_eq!(m.to, "z@x");
    assert_eq!(m.subject, "Chess Board 101 preview");
    assert!(
        m.body
            .contains("\n1. e4 (preview)    e5 (preview)\n2. Nf3 (preview)\n"),
        "{}",
        m.body
    );
    assert!(
        m.body
            .contains(&drawing(&["e4", "e5", "Nf3"], BoardSize::Large)),
        "{}",
        m.body
    );
    assert!(
        m.body
            .contains("After the previewed plies it would be bob's turn."),
        "{}",
        m.body
    );
    assert!(plies(&w).is_empty());
    assert_eq!(w.board().position, w.board().start_position);
}

#[test]
fn preview_from_an_earlier_ply() {
    let mut w = World::with_board();
    play(&mut w, &["e4", "e5", "Nf3"]);
    w.mail("z@x", "chess preview 101#2 d4, exd4", "");
    let r = w.replies();
    let m = single(&r);
    assert!(m.body.contains("after ply 2"), "{}", m.body);
    assert!(
        m.body
            .contains("\n1. e4             e5\n2. d4 (preview)   exd4 (preview)\n"),
        "{}",
        m.body
    );
    assert!(!m.body.contains("Nf3"), "{}", m.body);
    assert!(
        m.body
            .contains(&drawing(&["e4", "e5", "d4", "exd4"], BoardSize::Large)),
        "{}",
        m.body
    );
    w.mail("z@x", "chess preview 101#9 d4", "");
    assert!(single(&w.replies()).body.contains("has 3 plies so far"));
    assert_eq!(plies(&w), ["e4", "e5", "Nf3"]);
}

#[test]
fn preview_names_the_illegal_move_and_why() {
    let mut w = World::with_board();
    w.mail("z@x", "chess preview 101 e4 e5 Ke3", "");
    let r = w.replies();
    let m = single(&r);
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(
        common::joined(&m.body).contains(
            "Move 3 of your preview (Ke3, which would be ply 3) cannot be played: Ke3 is not a legal move"
        ),
        "{}",
        m.body
    );
    w.mail("z@x", "chess preview 101 e4 Zz9", "");
    assert!(common::joined(&single(&w.replies()).body)
        .contains("Move 2 of your preview (Zz9, which would be ply 2) cannot be played: 'Zz9' is not a move I can read"));
    w.mail("z@x", "chess preview 102 e4", "");
    assert!(single(&w.replies()).body.contains("no chess board 102"));
}
