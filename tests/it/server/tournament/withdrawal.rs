//! Withdrawals and forfeits for silence through the server, and a
//! player who signed off.

use crate::common;

use super::rounds::white_resigns_all;
use super::{active, answer_to, as_player, boards, full, tournament, world};
use chrono::Duration;
use common::world::World;
use pbmchess::store::{self};

/// A withdrawal from a round robin before any game is finished annuls
/// the player's boards: no winner, unrated.
#[test]
fn a_withdrawal_before_half_the_games_ends_the_players_boards_annulled_unrated() {
    let mut w = world(4);
    full(&mut w, "roundrobin 4", 4);
    let r = as_player(&mut w, 3, "chess tournament withdraw spring CREDS");
    assert!(answer_to(&r, "p3@x").contains("p3 has withdrawn"), "{r:#?}");
    for b in boards(&w) {
        if b.players.contains(&"p3".to_string()) {
            assert!(!b.is_active());
            match &b.status {
                store::BoardStatus::Finished { ending, .. } => {
                    assert_eq!(
                        ending.to_string(),
                        "annulled: p3 left the tournament before half their games were \
                         finished; no result, unrated"
                    )
                }
                _ => unreachable!(),
            }
        } else {
            assert!(b.is_active());
        }
    }
    // Unrated: nobody has a rated game.
    for i in 1..=4 {
        assert!(store::rating(&w.conn, "chess", &format!("p{i}"))
            .unwrap()
            .is_none());
    }
    let r = as_player(&mut w, 3, "chess tournament withdraw spring CREDS");
    assert!(answer_to(&r, "p3@x").contains("withdrawn from tournament spring already"));
}

#[test]
fn a_forfeit_for_silence_ends_the_players_other_boards_too() {
    let mut w = world(4);
    full(&mut w, "roundrobin 4 --forfeittime=3", 4);
    let seat = |b: &store::BoardRow, k: usize| b.players[k][1..].parse::<usize>().unwrap();
    let p4 = "p4".to_string();
    // Day 0: White moves on every board where p4 is not White.
    for b in active(&w) {
        if b.players[0] != p4 {
            as_player(
                &mut w,
                seat(&b, 0),
                &format!("chess move {} CREDS e4", b.board),
            );
        }
    }
    // Day 2: Black answers on every board but one of p4's, where p4 as
    // Black answers: there p4 waits for the opponent.
    w.advance(Duration::days(2));
    let waiting = active(&w)
        .into_iter()
        .find(|b| b.players[1] == p4)
        .expect("p4 plays Black once at least");
    for b in active(&w) {
        if !b.players.contains(&p4) || b.board == waiting.board {
            as_player(
                &mut w,
                seat(&b, 1),
                &format!("chess move {} CREDS e5", b.board),
            );
        }
    }
    // Day 4: p4 has been silent past the forfeit time on the boards where
    // p4 is to act; the timers forfeit them, and p4's tournament ends: no
    // game of p4's was finished (the forfeits for silence do not count), so
    // the board where p4 waits is annulled, unrated.
    w.advance(Duration::days(2));
    w.ticks();
    w.replies();
    let t = tournament(&w, "spring");
    let entrant = store::entrants(&w.conn, t.id)
        .unwrap()
        .into_iter()
        .find(|e| e.userid == "p4")
        .unwrap();
    assert!(entrant.withdrawn_after.is_some());
    for b in boards(&w) {
        assert_eq!(b.is_active(), !b.players.contains(&p4), "{b:?}");
    }
    let left = store::board(&w.conn, store::BoardId::new("chess", waiting.board))
        .unwrap()
        .unwrap();
    match left.status {
        store::BoardStatus::Finished { ending, .. } => {
            assert_eq!(
                ending.to_string(),
                "annulled: p4 left the tournament before half their games were \
                 finished; no result, unrated"
            )
        }
        store::BoardStatus::Active => unreachable!(),
    }
    assert!(store::rating(&w.conn, "chess", &left.players[0])
        .unwrap()
        .is_none_or(|r| r.games == 0));
}

#[test]
fn a_player_who_signed_off_is_paired_no_more() {
    let mut w = world(5);
    full(&mut w, "swiss 5 rounds 2", 5);
    let t = tournament(&w, "spring");
    let byes = store::byes(&w.conn, t.id).unwrap();
    assert_eq!(byes.len(), 1);
    // A player with a board signs off; their opponent resigns it, and
    // the other board of round 1 ends too.
    let first = active(&w);
    let leaver = first[0].players[1].clone();
    let i: usize = leaver[1..].parse().unwrap();
    as_player(&mut w, i, "signoff CREDS");
    white_resigns_all(&mut w);
    let t = tournament(&w, "spring");
    assert_eq!(t.round, 2, "{t:?}");
    for b in active(&w) {
        assert!(!b.players.contains(&leaver), "{b:?}");
    }
    // Four players left: two boards, no bye in round 2.
    assert_eq!(active(&w).len(), 2);
    assert_eq!(store::byes(&w.conn, t.id).unwrap().len(), 1);
}

#[test]
fn a_withdrawal_before_half_the_games_annuls_every_result_of_the_player() {
    // 4 players: 3 games each; withdrawn after 1 finished: all annulled.
    let mut w = world(4);
    full(&mut w, "roundrobin 4", 4);
    let t = tournament(&w, "spring");
    let games = |w: &World| store::tournament_games(&w.conn, t.id).unwrap();
    // The board of round 1 with seed 0 ends: its White resigns.
    let b = store::board(
        &w.conn,
        store::BoardId::new("chess", games(&w)[0].board.unwrap()),
    )
    .unwrap()
    .unwrap();
    let early = b.players[0].clone();
    let i: usize = early[1..].parse().unwrap();
    as_player(&mut w, i, &format!("chess resign {} CREDS", b.board));
    as_player(&mut w, i, "chess tournament withdraw spring CREDS");
    let entrants = store::entrants(&w.conn, t.id).unwrap();
    let seed = entrants.iter().position(|e| e.userid == early).unwrap();
    for g in games(&w) {
        if g.white == seed || g.black == seed {
            assert_eq!(g.ruled.as_deref(), Some("annulled"), "{g:?}");
        } else {
            assert_eq!(g.ruled, None, "{g:?}");
        }
    }
    let r = as_player(&mut w, 2, "chess tournament show spring");
    let body = answer_to(&r, "p2@x");
    assert!(body.contains('x'), "annulled games are marked: {body}");
}

#[test]
fn a_withdrawal_after_half_the_games_keeps_the_results_and_forfeits_the_rest() {
    let mut w = world(4);
    full(&mut w, "roundrobin 4", 4);
    let t = tournament(&w, "spring");
    // Two of p1's three games end (p1 resigns them), then p1 withdraws.
    let mine: Vec<_> = active(&w)
        .into_iter()
        .filter(|b| b.players.contains(&"p1".to_string()))
        .collect();
    assert_eq!(mine.len(), 3);
    for b in &mine[..2] {
        as_player(&mut w, 1, &format!("chess resign {} CREDS", b.board));
    }
    as_player(&mut w, 1, "chess tournament withdraw spring CREDS");
    let last = store::board(&w.conn, store::BoardId::new("chess", mine[2].board))
        .unwrap()
        .unwrap();
    assert!(!last.is_active());
    for g in store::tournament_games(&w.conn, t.id).unwrap() {
        let expected = if g.board == Some(mine[2].board) {
            let seat = last.seat_of("p1").unwrap();
            Some(if seat == rules::Color::White {
                "white-forfeits"
            } else {
                "black-forfeits"
            })
        } else {
            None
        };
        assert_eq!(g.ruled.as_deref(), expected, "{g:?}");
    }
    // The two resignations were rated; the forfeit was not.
    let p1 = store::rating(&w.conn, "chess", "p1").unwrap().unwrap();
    assert_eq!(p1.games, 2);
}
