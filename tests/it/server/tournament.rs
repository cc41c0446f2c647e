//! Tournaments through the server's library face: create,
//! join, leave, start, the boards made, the next Swiss round, withdrawal,
//! forfeits for silence, show, pgn, the list, and the refusals.

use crate::common;

use chrono::Duration;
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

/// The board `a` and `b` play in, and who is White.
fn board_of(w: &World, a: &str, b: &str) -> store::BoardRow {
    active(w)
        .into_iter()
        .find(|r| r.players.contains(&a.to_string()) && r.players.contains(&b.to_string()))
        .unwrap_or_else(|| panic!("a board of {a} and {b}"))
}

/// End every active board: White resigns each.
fn white_resigns_all(w: &mut World) -> Vec<Outgoing> {
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
fn a_withdrawal_ends_the_players_boards_by_forfeit_unrated() {
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
                        "forfeit: p3 left the tournament; unrated"
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
    // p4 is to act; the timers forfeit them, and p4's tournament ends: the
    // board where p4 waits is lost by forfeit too, unrated.
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
                "forfeit: p4 left the tournament; unrated"
            )
        }
        store::BoardStatus::Active => unreachable!(),
    }
    assert!(store::rating(&w.conn, "chess", &left.players[0])
        .unwrap()
        .is_none_or(|r| r.games == 0));
}

#[test]
fn show_pgn_and_the_list_answer_the_sender() {
    let mut w = world(4);
    full(&mut w, "roundrobin 4", 4);
    as_player(
        &mut w,
        1,
        "chess tournament create autumn CREDS swiss 8 rounds 3",
    );
    let r = as_player(&mut w, 2, "chess tournaments");
    let body = answer_to(&r, "p2@x");
    assert!(body.contains("spring"), "{body}");
    assert!(body.contains("autumn"), "{body}");
    assert!(body.contains("open (1 of 8 joined)"), "{body}");
    let r = as_player(&mut w, 2, "chess tournament show spring");
    let body = answer_to(&r, "p2@x");
    assert!(
        body.contains("\nRunning, its 3 rounds at once.\n"),
        "{body}"
    );
    assert!(body.contains("Round 3  board "), "{body}");
    assert!(body.contains("Boards in play:"), "{body}");
    for i in 1..=4 {
        assert!(body.contains(&format!("p{i}")), "{body}");
    }
    narrow(&r);
    let b = board_of(&w, "p1", "p2");
    let i: usize = b.players[0][1..].parse().unwrap();
    as_player(&mut w, i, &format!("chess move {} CREDS e4", b.board));
    let r = as_player(&mut w, 3, "chess tournament pgn spring");
    let body = answer_to(&r, "p3@x");
    assert_eq!(
        body.matches("[Event \"Chess tournament spring").count(),
        6,
        "{body}"
    );
    assert!(body.contains("1. e4"), "{body}");
    assert!(body.contains("[Round \"1\"]"), "{body}");
    let r = as_player(&mut w, 3, "chess tournament show nosuch");
    assert!(answer_to(&r, "p3@x").contains("There is no Chess tournament called nosuch"));
}

#[test]
fn a_pgn_too_large_for_one_mail_says_what_it_left_out() {
    let mut w = world(4);
    full(&mut w, "roundrobin 4", 4);
    w.config.limits.max_reply_bytes = 1000;
    let r = as_player(&mut w, 3, "chess tournament pgn spring");
    let body = answer_to(&r, "p3@x");
    assert!(
        body.contains("more games did not fit in this mail"),
        "{body}"
    );
    assert!(body.len() <= 1000, "{}", body.len());
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
