//! Tournaments through the server's library face: create,
//! join, leave, start, the boards made, the next Swiss round, withdrawal,
//! forfeits for silence, show, pgn, the list, and the refusals.

mod rounds;
mod show;
mod withdrawal;

use crate::common;

use common::world::World;
use pbmchess::mail::Outgoing;
use pbmchess::store::{self, TournamentState};

/// `n` players p1..pn (addresses p1@x ..., passwords w1 ...); p1 is an
/// admin of the server.
fn world(n: usize) -> World {
    let mut w = World::new();
    for i in 1..=n {
        w.mail(&format!("p{i}@x"), &format!("signup p{i} w{i}"), "");
    }
    w.replies();
    // An admin's userid is not taken by mail: named once signed up.
    w.config.server.admins = vec!["p1".into()];
    w
}

/// Player `i` sends `subject` with their credentials put in for `CREDS`.
fn as_player(w: &mut World, i: usize, subject: &str) -> Vec<Outgoing> {
    let line = subject.replace("CREDS", &format!("p{i} w{i}"));
    w.mail(&format!("p{i}@x"), &line, "");
    w.replies()
}

fn answer_to(replies: &[Outgoing], addr: &str) -> String {
    let mine: Vec<&Outgoing> = replies.iter().filter(|m| m.to == addr).collect();
    assert!(!mine.is_empty(), "a mail to {addr}: {replies:#?}");
    mine.iter()
        .map(|m| m.body.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn tournament(w: &World, name: &str) -> store::Tournament {
    store::tournament(&w.conn, "chess", name).unwrap().unwrap()
}

fn boards(w: &World) -> Vec<store::BoardRow> {
    store::boards_of_game(&w.conn, "chess").unwrap()
}

fn active(w: &World) -> Vec<store::BoardRow> {
    boards(w).into_iter().filter(|b| b.is_active()).collect()
}

/// Every player's mails stay within 78 columns.
fn narrow(replies: &[Outgoing]) {
    for m in replies {
        for line in m.body.lines() {
            assert!(line.chars().count() <= 78, "too wide: {line:?}\n{}", m.body);
        }
    }
}

/// p1 (an admin) opens `spec`, and players 2..=n join.
fn full(w: &mut World, spec: &str, n: usize) -> Vec<Outgoing> {
    as_player(
        w,
        1,
        &format!("chess tournament create spring CREDS {spec}"),
    );
    let mut all = Vec::new();
    for i in 2..=n {
        all.extend(as_player(w, i, "chess tournament join spring CREDS"));
    }
    all
}

#[test]
fn a_player_may_not_open_a_tournament_unless_the_server_allows_it() {
    let mut w = world(3);
    let r = as_player(
        &mut w,
        2,
        "chess tournament create spring CREDS roundrobin 3",
    );
    assert!(
        answer_to(&r, "p2@x").contains("Only the admins of this server open tournaments"),
        "{r:#?}"
    );
    assert!(store::tournament(&w.conn, "chess", "spring")
        .unwrap()
        .is_none());
    w.config.tournaments.players_may_create = true;
    let r = as_player(
        &mut w,
        2,
        "chess tournament create spring CREDS roundrobin 3",
    );
    assert!(answer_to(&r, "p2@x").contains("is open"), "{r:#?}");
    let t = tournament(&w, "spring");
    assert_eq!(t.creator.as_deref(), Some("p2"));
    assert_eq!(t.state, TournamentState::Open);
}

#[test]
fn a_round_robin_starts_when_full_with_every_board_at_once() {
    let mut w = world(4);
    let r = full(&mut w, "roundrobin 4", 4);
    let t = tournament(&w, "spring");
    assert_eq!(t.state, TournamentState::Running);
    assert_eq!(t.rounds, 3);
    // 4 players: 6 games, all started.
    assert_eq!(active(&w).len(), 6);
    let entrants = store::entrants(&w.conn, t.id).unwrap();
    assert_eq!(entrants.len(), 4);
    // Every player is mailed their three boards, each naming the
    // tournament and round in its header.
    for i in 1..=4 {
        let addr = format!("p{i}@x");
        let mine: Vec<&Outgoing> = r
            .iter()
            .filter(|m| m.to == addr && m.subject.starts_with("New Chess Board"))
            .collect();
        assert_eq!(mine.len(), 3, "{addr}: {mine:#?}");
        for m in mine {
            assert!(m.body.contains(", tournament spring, round "), "{}", m.body);
        }
    }
    narrow(&r);
}

#[test]
fn seeding_is_by_rating_then_join_order() {
    let mut w = world(3);
    store::set_rating(
        &w.conn,
        "chess",
        "p3",
        store::Rating {
            rating: 1900,
            games: 20,
        },
    )
    .unwrap();
    full(&mut w, "roundrobin 3", 3);
    let t = tournament(&w, "spring");
    let order: Vec<String> = store::entrants(&w.conn, t.id)
        .unwrap()
        .into_iter()
        .map(|e| e.userid)
        .collect();
    assert_eq!(order, ["p3", "p1", "p2"]);
}

#[test]
fn leaving_is_allowed_before_the_start_only() {
    let mut w = world(4);
    as_player(
        &mut w,
        1,
        "chess tournament create spring CREDS roundrobin 4",
    );
    as_player(&mut w, 2, "chess tournament join spring CREDS");
    let r = as_player(&mut w, 2, "chess tournament leave spring CREDS");
    assert!(answer_to(&r, "p2@x").contains("p2 has left tournament spring"));
    let t = tournament(&w, "spring");
    assert_eq!(store::entrants(&w.conn, t.id).unwrap().len(), 1);
    for i in 2..=4 {
        as_player(&mut w, i, "chess tournament join spring CREDS");
    }
    assert_eq!(tournament(&w, "spring").state, TournamentState::Running);
    let r = as_player(&mut w, 3, "chess tournament leave spring CREDS");
    assert!(
        answer_to(&r, "p3@x").contains("tournament withdraw spring"),
        "{r:#?}"
    );
}

#[test]
fn only_the_creator_or_an_admin_starts_early_and_only_with_enough_players() {
    let mut w = world(4);
    w.config.tournaments.players_may_create = true;
    as_player(
        &mut w,
        2,
        "chess tournament create spring CREDS roundrobin 6",
    );
    as_player(&mut w, 3, "chess tournament join spring CREDS");
    let r = as_player(&mut w, 3, "chess tournament start spring CREDS");
    assert!(answer_to(&r, "p3@x").contains("Only the player who opened"));
    let r = as_player(&mut w, 2, "chess tournament start spring CREDS");
    assert!(
        answer_to(&r, "p2@x").contains("has 2 players and needs at least 3"),
        "{r:#?}"
    );
    as_player(&mut w, 4, "chess tournament join spring CREDS");
    let r = as_player(&mut w, 2, "chess tournament start spring CREDS");
    assert!(answer_to(&r, "p2@x").contains("has started with 3 players"));
    let t = tournament(&w, "spring");
    assert_eq!(t.state, TournamentState::Running);
    // 3 players: 3 games over 3 rounds, each with a bye.
    assert_eq!(active(&w).len(), 3);
    assert_eq!(store::byes(&w.conn, t.id).unwrap().len(), 3);
}

#[test]
fn bad_names_and_sizes_are_refused_with_one_sentence() {
    let mut w = world(2);
    for (line, says) in [
        (
            "chess tournament create Spring_2026 CREDS roundrobin 4",
            "should be a tournament's name",
        ),
        (
            "chess tournament create abcdefghijklmnopq CREDS roundrobin 4",
            "should be a tournament's name",
        ),
        (
            "chess tournament create spring CREDS roundrobin 13",
            "round robin tournament has 3 to 12 players",
        ),
        (
            "chess tournament create spring CREDS swiss 65 rounds 5",
            "Swiss tournament has 4 to 64 players",
        ),
        (
            "chess tournament create spring CREDS swiss 6 rounds 6",
            "has 1 to 5 rounds",
        ),
        (
            "chess tournament create spring CREDS swiss 6",
            "needs its number of rounds",
        ),
        (
            "chess tournament create spring CREDS knockout 6",
            "roundrobin or swiss",
        ),
        (
            "chess tournament create spring CREDS roundrobin 4 -nosuchoption",
            "nosuchoption",
        ),
    ] {
        let r = as_player(&mut w, 1, line);
        let body = answer_to(&r, "p1@x");
        assert!(body.contains(says), "{line}: {body}");
        assert!(!body.contains("w1"), "the password is not quoted: {body}");
    }
    assert!(store::tournaments(&w.conn, None).unwrap().is_empty());
}

#[test]
fn a_name_is_unique_per_game_and_a_player_opens_at_most_three() {
    let mut w = world(2);
    w.config.tournaments.players_may_create = true;
    as_player(&mut w, 2, "chess tournament create a CREDS roundrobin 4");
    let r = as_player(&mut w, 2, "chess tournament create a CREDS roundrobin 4");
    assert!(answer_to(&r, "p2@x").contains("called a already"));
    as_player(&mut w, 2, "chess tournament create b CREDS roundrobin 4");
    as_player(&mut w, 2, "chess tournament create c CREDS roundrobin 4");
    let r = as_player(&mut w, 2, "chess tournament create d CREDS roundrobin 4");
    assert!(answer_to(&r, "p2@x").contains("the most one player may"));
    // The server's own bound holds for everyone, admins too.
    w.config.limits.open_tournaments = 3;
    let r = as_player(&mut w, 1, "chess tournament create e CREDS roundrobin 4");
    assert!(answer_to(&r, "p1@x").contains("3 tournaments not yet finished"));
    assert_eq!(store::tournaments(&w.conn, None).unwrap().len(), 3);
}

#[test]
fn joining_is_refused_twice_when_started_or_unknown_and_changes_nothing() {
    let mut w = world(5);
    as_player(
        &mut w,
        1,
        "chess tournament create spring CREDS roundrobin 3",
    );
    let r = as_player(&mut w, 1, "chess tournament join spring CREDS");
    assert!(answer_to(&r, "p1@x").contains("p1 is in tournament spring already"));
    let r = as_player(&mut w, 2, "chess tournament join autumn CREDS");
    assert!(answer_to(&r, "p2@x").contains("There is no Chess tournament called autumn"));
    let r = as_player(&mut w, 2, "chess tournament join spring p2 wrong");
    assert!(!answer_to(&r, "p2@x").contains("has joined"));
    for i in 2..=3 {
        as_player(&mut w, i, "chess tournament join spring CREDS");
    }
    let r = as_player(&mut w, 4, "chess tournament join spring CREDS");
    assert!(answer_to(&r, "p4@x").contains("has started already"));
    let t = tournament(&w, "spring");
    assert_eq!(store::entrants(&w.conn, t.id).unwrap().len(), 3);
    // Start again, or withdraw someone who is not in it: refused.
    let r = as_player(&mut w, 1, "chess tournament start spring CREDS");
    assert!(answer_to(&r, "p1@x").contains("has started already"));
    let r = as_player(&mut w, 5, "chess tournament withdraw spring CREDS");
    assert!(answer_to(&r, "p5@x").contains("p5 is not in tournament spring"));
    assert_eq!(boards(&w).len(), 3);
}
