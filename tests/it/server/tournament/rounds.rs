//! Rounds through the server: the next Swiss round when the last board
//! ends, the computer entered, a double round robin.

use crate::common;

use super::{active, answer_to, as_player, boards, full, narrow, tournament, world};
use common::world::World;
use pbmchess::mail::Outgoing;
use pbmchess::store::{self, TournamentState};

/// The board `a` and `b` play in, and who is White.
pub(super) fn board_of(w: &World, a: &str, b: &str) -> store::BoardRow {
    active(w)
        .into_iter()
        .find(|r| r.players.contains(&a.to_string()) && r.players.contains(&b.to_string()))
        .unwrap_or_else(|| panic!("a board of {a} and {b}"))
}

/// End every active board: White resigns each.
pub(super) fn white_resigns_all(w: &mut World) -> Vec<Outgoing> {
    let mut all = Vec::new();
    for b in active(w) {
        let white = &b.players[0];
        let i: usize = white[1..].parse().unwrap();
        all.extend(as_player(w, i, &format!("chess resign {} CREDS", b.board)));
    }
    all
}

#[test]
fn a_swiss_pairs_the_next_round_when_the_last_board_ends_and_finishes() {
    let mut w = world(4);
    full(&mut w, "swiss 4 rounds 2", 4);
    let t = tournament(&w, "spring");
    assert_eq!((t.state, t.round), (TournamentState::Running, 1));
    assert_eq!(active(&w).len(), 2);
    let first = active(&w);
    // One board ends: no new round yet.
    let b = &first[0];
    let i: usize = b.players[0][1..].parse().unwrap();
    as_player(&mut w, i, &format!("chess resign {} CREDS", b.board));
    assert_eq!(tournament(&w, "spring").round, 1);
    assert_eq!(active(&w).len(), 1);
    // The last board of the round ends: round 2 is paired in the same mail.
    let b = &first[1];
    let i: usize = b.players[0][1..].parse().unwrap();
    let r = as_player(&mut w, i, &format!("chess resign {} CREDS", b.board));
    assert_eq!(tournament(&w, "spring").round, 2);
    let second = active(&w);
    assert_eq!(second.len(), 2);
    // Nobody meets the same opponent twice.
    for s in &second {
        for f in &first {
            let mut a = s.players.clone();
            let mut b = f.players.clone();
            a.sort();
            b.sort();
            assert_ne!(a, b, "a repeat pairing");
        }
    }
    assert!(
        r.iter()
            .any(|m| m.body.contains(", tournament spring, round 2")),
        "{r:#?}"
    );
    let r = white_resigns_all(&mut w);
    let t = tournament(&w, "spring");
    assert_eq!(t.state, TournamentState::Finished);
    for i in 1..=4 {
        let body = answer_to(&r, &format!("p{i}@x"));
        assert!(body.contains("The final crosstable"), "{body}");
        assert!(body.contains("Buch"), "{body}");
        for j in 1..=4 {
            assert!(body.contains(&format!(" p{j} ")), "{body}");
        }
    }
    narrow(&r);
    // Nothing more is paired by later mail that changes something.
    as_player(&mut w, 1, "chess limit CREDS 5");
    w.ticks();
    assert_eq!(boards(&w).len(), 4);
    assert_eq!(
        store::tournament_games(&w.conn, t.id).unwrap().len(),
        4,
        "each pairing once"
    );
}

#[test]
fn the_admin_enters_the_computer_and_a_round_that_cannot_be_made_ends_it() {
    let mut w = world(3);
    as_player(
        &mut w,
        1,
        "chess tournament create spring CREDS swiss 4 rounds 2",
    );
    for i in 2..=3 {
        as_player(&mut w, i, "chess tournament join spring CREDS");
    }
    {
        let server = pbmchess::server::Server::new(&w.config, &w.clock, &w.templates);
        let said = server
            .admin_tournament(
                &mut w.conn,
                Some("chess"),
                "spring",
                pbmchess::server::AdminTournamentAct::Join("computer"),
            )
            .unwrap();
        assert!(said.contains("It is full and has started"), "{said}");
    }
    w.replies();
    let first = active(&w);
    assert_eq!(first.len(), 2);
    let (with_computer, without): (Vec<_>, Vec<_>) = first
        .into_iter()
        .partition(|b| b.players.contains(&"computer".to_string()));
    // The human resigns against the computer; then the computer is
    // switched off, and the last board of round 1 ends.
    let b = &with_computer[0];
    let human = b.players.iter().find(|p| *p != "computer").unwrap();
    let i: usize = human[1..].parse().unwrap();
    as_player(&mut w, i, &format!("chess resign {} CREDS", b.board));
    w.config.computer.enabled = false;
    let b = &without[0];
    let i: usize = b.players[0][1..].parse().unwrap();
    let r = as_player(&mut w, i, &format!("chess resign {} CREDS", b.board));
    let t = tournament(&w, "spring");
    assert_eq!(t.state, TournamentState::Finished, "{t:?}");
    assert!(t.note.contains("It ended early"), "{}", t.note);
    assert!(active(&w).is_empty());
    assert!(
        r.iter().any(|m| m.body.contains("The final crosstable")),
        "{r:#?}"
    );
}

#[test]
fn a_double_round_robin_plays_every_pair_twice_with_colours_swapped() {
    let mut w = world(3);
    full(&mut w, "roundrobin 3 double", 3);
    let all = boards(&w);
    assert_eq!(all.len(), 6);
    for a in 1..=3 {
        for b in 1..=3 {
            if a != b {
                let (pa, pb) = (format!("p{a}"), format!("p{b}"));
                let n = all
                    .iter()
                    .filter(|r| r.players[0] == pa && r.players[1] == pb)
                    .count();
                assert_eq!(n, 1, "{pa} White against {pb}");
            }
        }
    }
}
