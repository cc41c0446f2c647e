//! `if`: conditional moves through the server's library face.

use crate::common;

use common::world::World;
use pbmchess::mail::Outgoing;
use pbmchess::store;
use rules::Color;

fn plies(w: &World, game: &str) -> Vec<String> {
    store::plies(&w.conn, store::BoardId::new(game, 101))
        .unwrap()
        .into_iter()
        .map(|p| p.notation)
        .collect()
}

fn tree(w: &World, game: &str, seat: Color) -> Vec<String> {
    store::conditional_tree(&w.conn, store::BoardId::new(game, 101), seat)
        .unwrap()
        .map(|(_, t)| {
            t.lines()
                .iter()
                .map(|l| {
                    l.iter()
                        .map(|s| s.notation.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        })
        .unwrap_or_default()
}

fn to<'a>(replies: &'a [Outgoing], addr: &str) -> Vec<&'a Outgoing> {
    replies.iter().filter(|m| m.to == addr).collect()
}

fn one<'a>(replies: &'a [Outgoing], addr: &str) -> &'a Outgoing {
    let mine = to(replies, addr);
    assert_eq!(mine.len(), 1, "one mail to {addr}: {replies:#?}");
    mine[0]
}

/// alice and bob signed up, a `game` board 101 started, alice (White) to
/// move; an observer carol.
fn world(game: &str) -> World {
    let mut w = World::new();
    w.mail("a@x", "signup alice pa", "");
    w.mail("b@x", "signup bob pb", "");
    w.mail("c@x", "signup carol pc", "");
    w.mail("a@x", &format!("{game} challenge alice bob"), "");
    w.mail("c@x", &format!("{game} subscribe 101 carol pc"), "");
    w.replies();
    w
}

fn every_line_fits(replies: &[Outgoing]) {
    for m in replies {
        for line in m.body.lines() {
            assert!(line.chars().count() <= 78, "{line:?} in {}", m.body);
        }
    }
}

#[test]
fn a_ten_ply_line_is_answered_in_each_opponent_mail_and_marked_cond() {
    let mut w = world("chess");
    w.mail(
        "b@x",
        "chess if 101 bob pb e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7",
        "",
    );
    let r = w.replies();
    let ack = one(&r, "b@x");
    assert_eq!(r.len(), 1, "only bob hears of it: {r:#?}");
    let said = common::joined(&ack.body);
    assert!(said.contains("Your conditional line e4 e5"), "{}", ack.body);
    assert!(said.contains("You hold 1 line there"), "{}", ack.body);
    assert_eq!(ack.subject, "Chess Board 101 conditional moves");
    for (i, m) in ["e4", "Nf3", "Bb5", "Ba4", "O-O"].iter().enumerate() {
        w.mail("a@x", &format!("chess move 101 alice pa {m}"), "");
        let r = w.replies();
        every_line_fits(&r);
        assert_eq!(plies(&w, "chess").len(), 2 * i + 2, "answered at once");
        // alice's own mail (and the observer's) already show the answer:
        // it is her turn again, nobody asks bob to move.
        for addr in ["a@x", "c@x"] {
            let m = one(&r, addr);
            assert_eq!(m.subject, "Chess Board 101 alice", "{}", m.body);
            assert!(m.body.contains(" (Cond)"), "{}", m.body);
            assert!(!m.body.contains("Your conditional"), "{}", m.body);
        }
        assert_eq!(one(&r, "b@x").subject, "Chess Board 101 alice");
    }
    assert_eq!(
        plies(&w, "chess"),
        ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]
    );
    let marked = store::plies(&w.conn, store::BoardId::new("chess", 101)).unwrap();
    assert!(marked
        .iter()
        .all(|p| p.conditional == (p.seat == Color::Black)));
    assert!(
        tree(&w, "chess", Color::Black).is_empty(),
        "played to its end"
    );
}

#[test]
fn a_deviation_clears_the_tree_and_only_its_owner_is_told() {
    let mut w = world("chess");
    w.mail("b@x", "chess if 101 bob pb e4 e5 Nf3 Nc6", "");
    w.mail("b@x", "chess if 101 bob pb e4 e5 Bc4 Bc5", "");
    w.mail("b@x", "chess if 101 bob pb d4 d5", "");
    assert_eq!(tree(&w, "chess", Color::Black).len(), 3);
    w.replies();
    w.mail("b@x", "chess if 101 bob pb list", "");
    let r = w.replies();
    let last = &r.last().unwrap().body;
    // The tree drawn: shared beginnings once, branches indented.
    assert!(
        last.contains("  1. e4 e5\n    2. Nf3 Nc6\n    2. Bc4 Bc5\n  1. d4 d5\n"),
        "{last}"
    );
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    assert_eq!(plies(&w, "chess"), ["e4", "e5"]);
    w.mail("a@x", "chess move 101 alice pa Nc3", "");
    let r2 = w.replies();
    assert_eq!(plies(&w, "chess"), ["e4", "e5", "Nc3"]);
    assert!(tree(&w, "chess", Color::Black).is_empty());
    let bob = one(&r2, "b@x");
    assert_eq!(bob.subject, "Chess Board 101 bob");
    assert!(
        common::joined(&bob.body)
            .contains("Your conditional moves did not expect Nc3; they were cleared."),
        "{}",
        bob.body
    );
    for m in r.iter().chain(&r2).filter(|m| m.to != "b@x") {
        // Only a played answer is known (marked, and in the news).
        for hidden in [
            "Your conditional",
            "did not expect",
            "Bc4",
            "Bc5",
            "d5",
            "Nc6",
        ] {
            assert!(!m.body.contains(hidden), "{hidden} in {}", m.body);
        }
    }
}

#[test]
fn clashes_bounds_and_illegal_plies_are_refused_naming_them() {
    let mut w = world("chess");
    w.mail("b@x", "chess if 101 bob pb e4 e5 Nf3 Nc6", "");
    w.replies();
    w.mail("b@x", "chess if 101 bob pb e4 c5", "");
    let r = w.replies();
    let e = one(&r, "b@x");
    assert!(e.subject.ends_with("Error"), "{}", e.subject);
    assert!(
        common::joined(&e.body)
            .contains("After e4 you already answer e5, not c5; cancel e4 e5 first."),
        "{}",
        e.body
    );
    w.mail("b@x", "chess if 101 bob pb e4 e5 Nf3 Ke6", "");
    let e = &w.replies()[0];
    assert!(
        common::joined(&e.body).contains("Ply 4 of your line, Ke6 (which would be ply 4"),
        "{}",
        e.body
    );
    // The legal moves there are listed, as a move refusal lists them.
    assert!(
        common::joined(&e.body).contains("the king on e8 can move to e7"),
        "{}",
        e.body
    );
    let long = "a3 a6 a4 a5 b3 b6 b4 b5 c3 c6 c4 c5 d3 d6 d4 d5 e3 e6 e4 e5 f3";
    w.mail("b@x", &format!("chess if 101 bob pb {long}"), "");
    let e = &w.replies()[0];
    assert!(
        common::joined(&e.body).contains("21 plies, more than the 20"),
        "{}",
        e.body
    );
    let held = tree(&w, "chess", Color::Black).len();
    assert_eq!(tree(&w, "chess", Color::Black), ["e4 e5 Nf3 Nc6"]);
    // The wrong password stores nothing.
    w.mail("b@x", "chess if 101 bob wrong e3 e6 h3 h6", "");
    w.replies();
    assert_eq!(tree(&w, "chess", Color::Black).len(), held);
}

#[test]
fn fifty_lines_are_held_and_the_fifty_first_is_refused() {
    let mut w = world("chess");
    let thirds = ["h3", "h4", "g3", "g4", "f3", "f4", "Nf3", "Nh3", "e3", "d3"];
    let mut body = String::new();
    for first in ["a3", "a4", "b3", "b4", "c3"] {
        for third in thirds {
            body.push_str(&format!("chess if 101 bob pb {first} a6 {third} h6\n"));
        }
    }
    w.mail("b@x", "multiple", &body);
    let r = w.replies();
    assert_eq!(tree(&w, "chess", Color::Black).len(), 50, "{r:#?}");
    w.mail("b@x", "chess if 101 bob pb d3 a6 h3 h6", "");
    let e = &w.replies()[0];
    assert!(
        common::joined(&e.body).contains("You hold 50 conditional lines on this board already"),
        "{}",
        e.body
    );
    // Continuing a line adds none.
    w.mail("b@x", "chess if 101 bob pb a3 a6 h3 h6 Nf3 Nf6", "");
    w.replies();
    let lines = tree(&w, "chess", Color::Black);
    assert_eq!(lines.len(), 50);
    assert!(lines.contains(&"a3 a6 h3 h6 Nf3 Nf6".to_string()));
}

#[test]
fn on_the_players_own_turn_the_first_ply_is_played_as_move_plays_it() {
    let mut w = world("chess");
    w.mail("a@x", "chess if 101 alice pa Ng1f3 d5 d4 Nf6 c4", "");
    let r = w.replies();
    assert_eq!(plies(&w, "chess"), ["Nf3"]);
    assert_eq!(tree(&w, "chess", Color::White), ["d5 d4 Nf6 c4"]);
    let alice = one(&r, "a@x");
    assert_eq!(alice.subject, "Chess Board 101 bob");
    assert!(
        alice.body.contains("Your conditional moves"),
        "{}",
        alice.body
    );
    assert!(
        alice.body.contains("  1...d5 2. d4 Nf6 3. c4"),
        "{}",
        alice.body
    );
    let bob = one(&r, "b@x");
    assert!(!bob.body.contains("conditional"), "{}", bob.body);
    assert!(!bob.body.contains("Nf6"), "{}", bob.body);
    w.mail("b@x", "chess move 101 bob pb d5", "");
    w.mail("b@x", "chess move 101 bob pb Nf6", "");
    assert_eq!(plies(&w, "chess"), ["Nf3", "d5", "d4", "Nf6", "c4"]);
}

#[test]
fn list_and_cancel_of_all_or_one_branch_answer_the_owner_alone() {
    let mut w = world("chess");
    w.mail("b@x", "chess if 101 bob pb e4 e5 Nf3 Nc6", "");
    w.mail("b@x", "chess if 101 bob pb e4 e5 Bc4 Nf6", "");
    w.mail("b@x", "chess if 101 bob pb d4 d5", "");
    w.replies();
    w.mail("b@x", "chess if 101 bob pb list", "");
    let r = w.replies();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert!(r[0]
        .body
        .contains("  1. e4 e5\n    2. Nf3 Nc6\n    2. Bc4 Nf6\n  1. d4 d5"));
    w.mail("b@x", "chess if 101 bob pb cancel e2e4 e5 Bf1c4", "");
    let r = w.replies();
    assert_eq!(r.len(), 1);
    assert_eq!(tree(&w, "chess", Color::Black), ["e4 e5 Nf3 Nc6", "d4 d5"]);
    w.mail("b@x", "chess if 101 bob pb cancel h4", "");
    assert!(common::joined(&w.replies()[0].body).contains("None of your conditional lines"));
    w.mail("b@x", "chess if 101 bob pb cancel", "");
    w.replies();
    assert!(tree(&w, "chess", Color::Black).is_empty());
    w.mail("b@x", "chess if 101 bob pb list", "");
    assert!(w.replies()[0]
        .body
        .contains("You hold no conditional moves on chess board 101."));
}

#[test]
fn queue_and_a_tree_replace_each_other_and_say_so() {
    let mut w = world("chess");
    w.mail("b@x", "chess queue 101 bob pb e5", "");
    w.replies();
    w.mail("b@x", "chess if 101 bob pb e4 c5", "");
    let r = w.replies();
    assert!(
        common::joined(&r[0].body).contains("This replaces your queued move e5."),
        "{}",
        r[0].body
    );
    assert_eq!(
        store::pending_move(
            &w.conn,
            store::BoardId::new("chess", 101),
            Color::Black,
            store::PendingKind::Queued
        )
        .unwrap(),
        None
    );
    w.mail("b@x", "chess queue 101 bob pb e6", "");
    let r = w.replies();
    assert!(
        common::joined(&r[0].body).contains("This replaces your conditional moves."),
        "{}",
        r[0].body
    );
    assert!(tree(&w, "chess", Color::Black).is_empty());
    w.mail("a@x", "chess move 101 alice pa e4", "");
    assert_eq!(plies(&w, "chess"), ["e4", "e6"]);
}

#[test]
fn an_accepted_undo_and_a_resignation_clear_trees_and_a_request_or_a_draw_offer_does_not() {
    let mut w = world("chess");
    w.mail("b@x", "chess if 101 bob pb e4 e5 Nf3 Nc6", "");
    w.mail("a@x", "chess move 101 alice pa propose", "");
    let r = w.replies();
    assert!(!tree(&w, "chess", Color::Black).is_empty());
    assert!(r.iter().all(|m| !m.body.contains("cleared")), "{r:#?}");
    w.mail("b@x", "chess move 101 bob pb reject", "");
    // Undo of a ply the tree played.
    w.mail("a@x", "chess move 101 alice pa e4", "");
    assert_eq!(plies(&w, "chess"), ["e4", "e5"]);
    w.mail("b@x", "chess move 101 bob pb undo", "");
    w.mail("a@x", "chess move 101 alice pa accept", "");
    assert_eq!(plies(&w, "chess"), ["e4"]);
    assert!(tree(&w, "chess", Color::Black).is_empty());
    // An undo asked for leaves the trees, and so does its rejection.
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.mail("a@x", "chess if 101 alice pa Nf3 Nc6 Bb5", "");
    assert_eq!(tree(&w, "chess", Color::White), ["Nc6 Bb5"]);
    w.replies();
    w.mail("b@x", "chess move 101 bob pb undo", "");
    let r = w.replies();
    assert_eq!(tree(&w, "chess", Color::White), ["Nc6 Bb5"]);
    assert!(r.iter().all(|m| !m.body.contains("cleared")), "{r:#?}");
    w.mail("a@x", "chess move 101 alice pa reject", "");
    assert_eq!(tree(&w, "chess", Color::White), ["Nc6 Bb5"]);
    w.replies();
    // Accepted, it clears them, and the owner alone is told.
    w.mail("b@x", "chess move 101 bob pb undo", "");
    w.mail("a@x", "chess move 101 alice pa accept", "");
    let r = w.replies();
    assert_eq!(plies(&w, "chess"), ["e4"]);
    assert!(tree(&w, "chess", Color::White).is_empty());
    assert!(to(&r, "a@x").iter().any(|m| common::joined(&m.body)
        .contains("Your conditional moves on this board were cleared, as plies were taken back.")));
    assert!(to(&r, "b@x")
        .iter()
        .all(|m| !m.body.contains("conditional")));
    w.mail("b@x", "chess if 101 bob pb Nc6 Bb5 a6", "");
    assert_eq!(tree(&w, "chess", Color::Black), ["Bb5 a6"]);
    w.mail("b@x", "chess resign 101 bob pb", "");
    assert!(tree(&w, "chess", Color::Black).is_empty());
    w.replies();
}

#[test]
fn double_chess_tree_castles() {
    let mut w = world("doublechess");
    w.mail(
        "b@x",
        "doublechess if 101 bob pb a3 Nj6 a4 k6 a5 Bk7 a6 O-O",
        "",
    );
    let r = w.replies();
    assert!(r[0].body.contains("Your conditional line"), "{}", r[0].body);
    for m in ["a3", "a4", "a5", "a6"] {
        w.mail("a@x", &format!("doublechess move 101 alice pa {m}"), "");
    }
    let r = w.replies();
    assert_eq!(
        plies(&w, "doublechess"),
        ["a3", "Nj6", "a4", "k6", "a5", "Bk7", "a6", "O-O"]
    );
    assert!(r.last().unwrap().body.contains("O-O (Cond)"));
}

#[test]
fn doppelganger_tree_names_the_pawn_chosen() {
    let mut w = world("doppelganger");
    w.mail("a@x", "doppelganger move 101 alice pa e4", "");
    w.replies();
    w.mail(
        "a@x",
        "doppelganger if 101 alice pa d5 exd5/c7 Qxd5/h2 Nc3",
        "",
    );
    let r = w.replies();
    assert!(r.iter().all(|m| m.to == "a@x"), "{r:#?}");
    assert!(
        r.iter().any(|m| m.body.contains("You hold 1 line")),
        "{r:#?}"
    );
    assert_eq!(
        tree(&w, "doppelganger", Color::White),
        ["d5 exd5/c7 Qxd5/h2 Nc3"]
    );
    w.mail("b@x", "doppelganger move 101 bob pb d5", "");
    assert_eq!(plies(&w, "doppelganger"), ["e4", "d5", "exd5/c7"]);
    w.mail("b@x", "doppelganger move 101 bob pb Qxd5/h2", "");
    let r = w.replies();
    assert_eq!(
        plies(&w, "doppelganger"),
        ["e4", "d5", "exd5/c7", "Qxd5/h2", "Nc3"]
    );
    assert!(r.iter().any(|m| m.body.contains("Nc3 (Cond)")));
}

#[test]
fn a_tree_by_multiple_is_stored_like_one_by_subject() {
    let mut w = world("chess");
    w.mail(
        "b@x",
        "multiple",
        "chess if 101 bob pb e4 e5 Nf3 Nc6\nchess if 101 bob pb d4 d5\n",
    );
    w.replies();
    assert_eq!(tree(&w, "chess", Color::Black), ["e4 e5 Nf3 Nc6", "d4 d5"]);
}

/// Every game: bob's line of six plies, each the rules' own action where
/// the line stands (read back as the line names them, the pieces between
/// commas), is played out by the tree while alice mails hers.
#[test]
fn every_game_plays_a_tree_line_out() {
    for game in game::command::GAME_NAMES {
        let mut w = world(game);
        let rules = rules::game(game).unwrap();
        let mut position = rules.start(&[]).unwrap();
        let mut line = Vec::new();
        for k in 0..6 {
            let actions = position.legal_actions();
            assert!(!actions.is_empty(), "{game} at ply {k}");
            let action = actions[(7 * k + 3) % actions.len()].clone();
            line.push(position.play(&action).unwrap().notation);
        }
        w.mail(
            "b@x",
            &format!("{game} if 101 bob pb {}", line.join(", ")),
            "",
        );
        let r = w.replies();
        assert!(
            r.iter().all(|m| !m.subject.ends_with("Error")),
            "{game}: {r:#?}"
        );
        for k in [0, 2, 4] {
            w.mail("a@x", &format!("{game} move 101 alice pa {}", line[k]), "");
            assert_eq!(plies(&w, game).len(), k + 2, "{game}: {line:?}");
        }
        assert_eq!(plies(&w, game), line, "{game}");
        let r = w.replies();
        every_line_fits(&r);
        assert!(
            r.iter()
                .any(|m| m.body.contains(&format!("{} (Cond)", line[5]))),
            "{game}: {r:#?}"
        );
    }
}

/// Shadow Chess: while the owner's own reveal is pending, a line that
/// leaves it out waits for it (never decides it), then answers.
#[test]
fn a_shadow_line_entered_during_its_owners_reveal_waits_for_it() {
    let mut w = world("shadowchess");
    w.mail("a@x", "shadowchess move 101 alice pa e4/e2e3", "");
    w.mail("b@x", "shadowchess move 101 bob pb d5/d7d6", "");
    w.mail("a@x", "shadowchess move 101 alice pa exd5/d2d3", "");
    assert_eq!(plies(&w, "shadowchess").len(), 3);
    w.replies();
    w.mail("b@x", "shadowchess if 101 bob pb Nf6/g8f6", "");
    let r = w.replies();
    assert!(r.iter().all(|m| !m.subject.ends_with("Error")), "{r:#?}");
    assert_eq!(
        plies(&w, "shadowchess").len(),
        3,
        "the reveal is bob's to send"
    );
    assert_eq!(
        tree(&w, "shadowchess", Color::Black),
        ["(decision) Nf6/g8f6"]
    );
    w.mail("b@x", "shadowchess move 101 bob pb reveal d6", "");
    let r = w.replies();
    let played = plies(&w, "shadowchess");
    assert_eq!(played.len(), 5, "{played:?}");
    assert_eq!(played[4], "Nf6/g8f6");
    assert!(
        r.iter().any(|m| m.body.contains("Nf6/g8f6 (Cond)")),
        "{r:#?}"
    );
}
