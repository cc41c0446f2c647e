//! A server killed before a tournament mail commits: after the restart,
//! every board and round is made once.

use crate::common;

use std::collections::BTreeMap;

use super::{
    create_tournament, finish, install_with, new_boards, tour, Board, Ending, ANN, BEN, CAT,
    CONFIG, DAN, FAY,
};
use common::Install;

/// The text whose presence in a mail makes a debug build abort before
/// the mail's transaction commits (the test hook of `daemon::take_mail`),
/// as if the server were killed right after the mail before it did its
/// work in the same transaction.
const KILLER: &str = "KILLS-THE-SERVER";

/// One `poll` with the abort hook armed: it must die.
fn poll_killed(s: &Install) {
    let out = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("poll")
        .env("RUST_LOG", "error")
        .env("PBMCHESS_TEST_ABORT_ON", KILLER)
        .output()
        .unwrap();
    assert!(!out.status.success(), "the pass dies");
}

/// Boards in the database, by (white, black), counted.
pub(super) fn boards_in_database(s: &Install) -> BTreeMap<(String, String), i64> {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT w.userid, b.userid, count(*) FROM board_players w \
             JOIN board_players b ON b.game = w.game AND b.board = w.board \
             WHERE w.seat = 0 AND b.seat = 1 GROUP BY w.userid, b.userid",
        )
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))
        .unwrap();
    rows.map(|r| r.unwrap()).collect()
}

/// A kill after the join that fills a tournament did its work, before
/// the commit: nothing of it stays, and the pass after the restart starts
/// the tournament with every board once, each announced once.
#[test]
fn a_kill_during_the_join_that_fills_the_tournament_creates_every_board_once() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    create_tournament(&mut s, ANN, "spring", "roundrobin 4");
    for p in [BEN, CAT] {
        tour(&mut s, "join", "spring", p);
    }
    s.send(
        &DAN.addr(),
        &format!("chess tournament join spring dan {}", DAN.pw()),
        "",
    );
    s.send(&FAY.addr(), "help", KILLER);
    poll_killed(&s);
    assert!(s.take_outbox().is_empty(), "nothing was sent");
    assert!(boards_in_database(&s).is_empty(), "no board was kept");
    // The restart (unarmed) works both mails.
    s.poll();
    let mails = s.take_outbox();
    let boards = new_boards(&mails, "spring", &all);
    assert_eq!(boards.len(), 6, "{mails:#?}");
    let stored = boards_in_database(&s);
    assert_eq!(stored.len(), 6, "{stored:?}");
    assert!(stored.values().all(|n| *n == 1), "{stored:?}");
    // A pass more changes nothing.
    s.poll();
    assert!(new_boards(&s.take_outbox(), "spring", &all).is_empty());
    assert_eq!(boards_in_database(&s), stored);
}

/// A kill after the mail that ends a Swiss round's last board did its
/// work (pairing the next round), before the commit: after the restart
/// the next round's boards exist once each, announced once.
#[test]
fn a_kill_during_the_mail_that_ends_a_round_pairs_the_next_round_once() {
    let entrants = [ANN, BEN, CAT, DAN];
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    create_tournament(&mut s, ANN, "cup", "swiss 4 rounds 3");
    let mut boards = BTreeMap::new();
    for &p in &entrants[1..] {
        boards = new_boards(&tour(&mut s, "join", "cup", p), "cup", &all);
    }
    let round1: Vec<Board> = boards.into_values().collect();
    assert_eq!(round1.len(), 2);
    finish(&mut s, &round1[0], Ending::Win(round1[0].white));
    let last = &round1[1];
    s.send(
        &last.black.addr(),
        &format!(
            "chess resign {} {} {}",
            last.number,
            last.black.user(),
            last.black.pw()
        ),
        "",
    );
    s.send(&FAY.addr(), "help", KILLER);
    let before = boards_in_database(&s);
    poll_killed(&s);
    assert!(s.take_outbox().is_empty(), "nothing was sent");
    assert_eq!(boards_in_database(&s), before, "no board was kept");
    s.poll();
    let round2 = new_boards(&s.take_outbox(), "cup", &all);
    assert_eq!(round2.len(), 2, "{round2:#?}");
    assert!(round2.values().all(|b| b.round == 2));
    let stored = boards_in_database(&s);
    assert_eq!(stored.len(), 4, "{stored:?}");
    assert!(stored.values().all(|n| *n == 1), "{stored:?}");
    s.poll();
    assert!(new_boards(&s.take_outbox(), "cup", &all).is_empty());
    assert_eq!(boards_in_database(&s), stored);
}
