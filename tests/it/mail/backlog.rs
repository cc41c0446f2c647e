//! A backlog of mail after an outage: one `poll` drains the whole inbox
//! (in batches, with group commit), checks each player's password once,
//! and boards load from their resume point without replaying the game.

use crate::common;

use common::world::World;
use common::Install;
use pbmchess::server::MailOutcome;

/// The `pass done` log line of one `poll` run with `RUST_LOG=info`.
fn poll_log(install: &Install) -> String {
    let out = common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .arg("poll")
        .env("RUST_LOG", "info")
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "poll failed");
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    log.lines()
        .rev()
        .find(|l| l.contains("pass done"))
        .expect("pass done line")
        .to_string()
}

fn count(install: &Install, rel: &str) -> usize {
    std::fs::read_dir(install.path(rel))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn one_poll_drains_an_inbox_larger_than_a_batch() {
    let mut install = Install::with_config("\n[limits]\ncommands_per_hour = 100000\n");
    // More than two fetch batches (200) and several groups (50).
    for i in 0..450 {
        install.send(&format!("p{}@players.test", i % 7), "chess games", "");
    }
    let line = poll_log(&install);
    assert!(line.contains("mails_read=450 "), "{line}");
    assert_eq!(count(&install, "var/inbox/new"), 0, "nothing left waiting");
    assert_eq!(count(&install, "var/inbox/cur"), 450);
    assert_eq!(
        count(&install, "var/outbox/new"),
        450,
        "every mail answered"
    );
    // A second poll finds nothing to do.
    let line = poll_log(&install);
    assert!(line.contains("mails_read=0 "), "{line}");
}

#[test]
fn a_players_password_is_verified_once_per_process_and_a_wrong_one_every_time() {
    let mut install = Install::new();
    install.send("a@x.test", "signup alice Secret", "");
    install.send("b@x.test", "signup bob pw", "");
    install.send("a@x.test", "chess challenge alice bob", "");
    install.poll();
    install.take_outbox();
    let moves = [
        ("a@x.test", "alice secret e4"),
        ("b@x.test", "bob pw e5"),
        ("a@x.test", "alice wrong Nf3"),
        ("a@x.test", "alice SECRET Nf3"),
        ("b@x.test", "bob pw Nc6"),
        ("c@x.test", "carol pw Bc4"),
        ("a@x.test", "alice secret Bc4"),
        ("b@x.test", "bob pw Bc5"),
    ];
    for (from, m) in moves {
        install.send(from, &format!("chess move 101 {m}"), "");
    }
    let line = poll_log(&install);
    // alice and bob once each, the wrong password, and the unknown carol
    // (as long as a wrong password); the words after a wrong password are
    // masked, and from an address of the account the one after it is
    // checked too, in case the words are out of order.
    assert!(line.contains("password_verifications=5 "), "{line}");
    let replies = install.take_outbox();
    let errors: Vec<_> = replies
        .iter()
        .filter(|m| m.subject.contains("Error"))
        .collect();
    assert_eq!(errors.len(), 2, "the wrong password and carol are refused");
    assert!(errors
        .iter()
        .any(|m| m.body.contains("password for alice is wrong")));
    assert!(errors
        .iter()
        .any(|m| m.body.contains("no user by the userid")));
    let last = replies.last().unwrap();
    assert!(last.body.contains("Bc5"), "{}", last.body);
}

fn resume_ply(w: &World) -> u32 {
    w.conn
        .query_row(
            "SELECT resume_ply FROM boards WHERE game = 'chess' AND board = 101",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

fn play(w: &mut World, moves: &[&str]) {
    play_from(w, 0, moves);
}

#[test]
fn a_board_resumes_after_its_last_irreversible_ply_and_still_sees_repetitions() {
    let mut w = World::with_board();
    play(&mut w, &["e4", "e5"]);
    assert_eq!(resume_ply(&w), 2, "a pawn move starts the history anew");
    play(&mut w, &["Nf3", "Nc6", "Ng1", "Nb8", "Nf3", "Nc6"]);
    assert_eq!(resume_ply(&w), 2, "knight moves are reversible");
    assert!(w.board().is_active());
    // The position after ply 2 occurs the third time: a draw, seen by a
    // load that starts at ply 2.
    play(&mut w, &["Ng1", "Nb8"]);
    match w.board().status {
        pbmchess::store::BoardStatus::Finished {
            winner_seat,
            ending,
        } => {
            assert_eq!(winner_seat, None);
            assert_eq!(ending, "threefold repetition");
        }
        other => panic!("{other:?}"),
    }
    // The final mail lists the whole game, not only the plies since ply 2.
    let last = w.replies().pop().unwrap();
    assert!(
        last.body.contains("e4") && last.body.contains("Nb8"),
        "{}",
        last.body
    );
}

#[test]
fn undo_and_views_of_the_past_replay_from_the_start() {
    let mut w = World::with_board();
    play(&mut w, &["e4", "e5", "Nf3", "d6"]);
    assert_eq!(resume_ply(&w), 4);
    w.mail("a@x", "chess show 101#1", "");
    let shown = w.replies().pop().unwrap();
    assert!(
        shown.body.contains("as it stood after ply 1 of 4") && shown.body.contains("1. e4"),
        "{}",
        shown.body
    );
    // Take back d6: the resume point goes back to e5 (ply 2).
    w.mail("b@x", "chess move 101 bob pb undo", "");
    w.mail("a@x", "chess move 101 alice pa accept", "");
    assert_eq!(resume_ply(&w), 2);
    assert_eq!(
        w.board().position,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    let outcome = w.mail("b@x", "chess move 101 bob pb Nc6", "");
    assert_eq!(
        outcome,
        MailOutcome::Answered {
            commands: 1,
            refused: 0
        }
    );
    assert_eq!(resume_ply(&w), 2);
}

/// The move-list lines of a board mail (`12. Nf3      Nc6`).
fn move_lines(body: &str) -> Vec<String> {
    body.lines()
        .filter(|l| {
            let t = l.trim_start();
            t.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .map(String::from)
        .collect()
}

/// A turn mail lists the recent plies of a board loaded from its resume
/// point, numbered as in the whole game's list (the `show` mail's), after
/// every ply of a long game, whichever colour's ply the loaded plies begin
/// with.
#[test]
fn turn_mails_number_their_recent_moves_as_the_whole_game_does() {
    let mut w = World::with_board();
    let game = [
        "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6", "O-O", "O-O", "h3", "h6",
        "Re1", "a6", "a4", "Ba7", "Nbd2", "Be6", "Bxe6", "fxe6", "Nf1", "Qe8", "Ng3", "Qg6", "Nh4",
        "Qf7", "Nf3", "Qg6",
    ];
    for (i, m) in game.iter().enumerate() {
        let (from, who) = if i % 2 == 0 {
            ("a@x", "alice pa")
        } else {
            ("b@x", "bob pb")
        };
        w.mail(from, &format!("chess move 101 {who} {m}"), "");
        let turn = w.replies().pop().unwrap();
        let recent = move_lines(&turn.body);
        w.mail("a@x", "chess show 101", "");
        let whole = move_lines(&w.replies().pop().unwrap().body);
        assert_eq!(whole.len(), i / 2 + 1, "ply {}", i + 1);
        assert!(!recent.is_empty() && recent.len() <= whole.len());
        assert_eq!(
            recent[..],
            whole[whole.len() - recent.len()..],
            "after ply {}:\n{}",
            i + 1,
            turn.body
        );
        // A preview of the next move numbers its lines the same way.
        if let Some(next) = game.get(i + 1) {
            w.mail("z@x", &format!("chess preview 101 {next}"), "");
            // Compared word by word: the preview's mark widens the column.
            let words = |l: &String| l.split_whitespace().collect::<Vec<_>>().join(" ");
            let preview = move_lines(&w.replies().pop().unwrap().body);
            let whole: Vec<String> = whole.iter().map(words).collect();
            let (marked, played): (Vec<String>, Vec<String>) = preview
                .iter()
                .map(words)
                .partition(|l| l.contains("(preview)"));
            let shown = whole.len() - usize::from((i + 1) % 2 == 1);
            assert_eq!(
                played[..],
                whole[shown - played.len()..shown],
                "preview after ply {}",
                i + 1
            );
            let number =
                |l: &str| -> usize { l.trim_start().split_once(". ").unwrap().0.parse().unwrap() };
            assert_eq!(marked.len(), 1, "{marked:?}");
            let expected = if (i + 1) % 2 == 0 {
                whole.len() + 1
            } else {
                whole.len()
            };
            assert_eq!(number(&marked[0]), expected, "{marked:?}");
        }
    }
    assert!(resume_ply(&w) > 12, "the loads began late in the game");
}

/// A board with no irreversible ply yet (its history starts at the start
/// position) whose plies lost their keys and lines (a database from before
/// migration 0026) still draws on the third occurrence of the start, at
/// ply 8, with every ply played on a freshly loaded board.
#[test]
fn a_board_without_stored_keys_still_sees_repetitions_from_the_start() {
    let mut w = World::with_board();
    play(&mut w, &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"]);
    w.conn
        .execute_batch("UPDATE plies SET position_key = NULL, line = NULL WHERE ply > 2")
        .unwrap();
    play_from(&mut w, 5, &["Nf6", "Ng1"]);
    assert!(w.board().is_active(), "the start occurred twice so far");
    assert_eq!(resume_ply(&w), 0);
    play_from(&mut w, 7, &["Ng8"]);
    match w.board().status {
        pbmchess::store::BoardStatus::Finished { ending, .. } => {
            assert_eq!(ending, "threefold repetition")
        }
        other => panic!("{other:?}"),
    }
    let keyed: i64 = w
        .conn
        .query_row(
            "SELECT count(*) FROM plies WHERE position_key IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(keyed, 8, "the replayed plies got their keys back");
}

/// Like [`play`], for plies from `done` + 1 on.
fn play_from(w: &mut World, done: usize, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let (from, who) = if (done + i).is_multiple_of(2) {
            ("a@x", "alice pa")
        } else {
            ("b@x", "bob pb")
        };
        let outcome = w.mail(from, &format!("chess move 101 {who} {m}"), "");
        assert_eq!(
            outcome,
            MailOutcome::Answered {
                commands: 1,
                refused: 0
            },
            "{m}"
        );
    }
}
