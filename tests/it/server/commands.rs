//! The server's commands through its library face: an on-disk-free SQLite,
//! a clock the test moves, and the replies read from the outbox table.

use crate::common;

use chrono::Duration;
use common::world::World;
use pbmchess::mail::{Envelope, Outgoing};
use pbmchess::server::{MailOutcome, Server};
use pbmchess::store;

fn single_ref<'a>(replies: &[&'a Outgoing]) -> &'a Outgoing {
    assert_eq!(replies.len(), 1, "{replies:#?}");
    replies[0]
}

fn single(replies: &[Outgoing]) -> &Outgoing {
    assert_eq!(replies.len(), 1, "{replies:#?}");
    &replies[0]
}

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
fn a_move_cancels_a_proposal_and_reject_clears_it() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("a@x", "chess move 101 alice pa propose", "");
    w.mail("b@x", "chess move 101 bob pb reject", "");
    assert_eq!(w.board().proposal, None);
    w.mail("b@x", "chess move 101 bob pb propose", "");
    assert!(w.board().proposal.is_some());
    w.mail("b@x", "chess move 101 bob pb e5", "");
    assert_eq!(w.board().proposal, None);
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

#[test]
fn multiple_runs_each_line_and_answers_once_per_recipient() {
    let mut w = World::with_board();
    w.mail(
        "a@x",
        "multiple",
        "chess move 101 alice pa e4\nchess show 101\nchess move 101 alice pa e5\n\nignored after blank",
    );
    let r = w.replies();
    let to_a: Vec<_> = r.iter().filter(|m| m.to == "a@x").collect();
    assert_eq!(to_a.len(), 1, "{r:#?}");
    // The move, the show, and the refused second move, in one answer.
    assert!(
        to_a[0].body.contains("It is bob's turn."),
        "{}",
        to_a[0].body
    );
    assert!(
        to_a[0]
            .body
            .contains("It is bob's turn on chess board 101, not yours"),
        "{}",
        to_a[0].body
    );
    assert_eq!(
        store::plies(&w.conn, store::BoardId::new("chess", 101))
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn duplicate_message_ids_change_nothing() {
    let mut w = World::with_board();
    assert_eq!(
        w.mail_with_id("same@t", "a@x", "chess move 101 alice pa e4", ""),
        MailOutcome::Answered {
            commands: 1,
            refused: 0
        }
    );
    w.replies();
    assert_eq!(
        w.mail_with_id("same@t", "a@x", "chess move 101 alice pa e4", ""),
        MailOutcome::Duplicate
    );
    assert!(w.replies().is_empty());
}

#[test]
fn rate_limit_drops_with_one_notice() {
    let mut w = World::new();
    w.config.limits.commands_per_hour = 3;
    for _ in 0..3 {
        w.mail("a@x", "help", "");
    }
    assert_eq!(w.replies().len(), 3);
    assert_eq!(w.mail("a@x", "help", ""), MailOutcome::RateLimited);
    assert_eq!(w.mail("a@x", "help", ""), MailOutcome::RateLimited);
    let r = w.replies();
    assert!(single(&r).body.contains("more than 3 commands"), "{r:#?}");
    w.advance(Duration::hours(2));
    w.mail("a@x", "help", "");
    assert_eq!(w.replies().len(), 1);
}

#[test]
fn never_answered_mail_is_recorded_but_not_answered() {
    let mut w = World::new();
    let server = Server::new(&w.config, &w.clock, &w.templates);
    let env = Envelope {
        message_id: "auto@t".into(),
        sender: Some("a@x".into()),
        subject: "help".into(),
        body: String::new(),
        comment: String::new(),
        never_answer: Some("Auto-Submitted: auto-replied".into()),
        replied_to: Vec::new(),
        auth_results: Vec::new(),
    };
    let outcome = server.handle_mail(&mut w.conn, &env, 10).unwrap();
    assert!(matches!(outcome, MailOutcome::Ignored(_)));
    assert!(w.replies().is_empty());
    assert!(store::mail_seen(&w.conn, "auto@t", &env.fingerprint()).unwrap());
}

#[test]
fn timers_remind_then_forfeit() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.replies();
    w.advance(Duration::days(6));
    assert_eq!(w.ticks(), 0);
    w.advance(Duration::days(1));
    assert_eq!(w.ticks(), 1);
    let r = w.replies();
    let m = single(&r);
    assert_eq!(m.to, "a@x");
    assert!(m.body.contains("Reminder"), "{}", m.body);
    assert!(
        m.subject.starts_with("Nag: Chess Board 101 alice"),
        "{}",
        m.subject
    );
    assert_eq!(w.ticks(), 0, "not twice a day");
    w.advance(Duration::days(14));
    assert_eq!(w.ticks(), 2);
    let r = w.replies();
    assert!(
        r[0].body
            .starts_with("Game won by bob (forfeit: alice did not act for 21 days)."),
        "{}",
        r[0].body
    );
    assert!(!w.board().is_active());
}

#[test]
fn help_topics() {
    let mut w = World::new();
    w.mail("a@x", "help", "");
    assert!(single(&w.replies()).body.contains("help commands"));
    w.mail("a@x", "help chess", "");
    assert!(single(&w.replies()).body.contains("O-O"));
    w.mail("a@x", "chess help", "");
    assert!(single(&w.replies()).body.contains("O-O"));
    w.mail("a@x", "help commands", "");
    assert!(single(&w.replies()).body.contains("challenge"));
    w.mail("a@x", "help frobnicate", "");
    assert!(single(&w.replies()).body.contains("no help on"));
}

#[test]
fn a_multiple_answer_lists_each_part_under_its_subject() {
    let mut w = World::with_board();
    w.mail(
        "a@x",
        "multiple",
        "chess move 101 alice pa e4\nchess games\nchess move 101 alice pa e5\n",
    );
    let r = w.replies();
    let to_a: Vec<_> = r.iter().filter(|m| m.to == "a@x").collect();
    assert_eq!(to_a.len(), 1, "{r:#?}");
    let body = &to_a[0].body;
    assert_eq!(to_a[0].subject, "pbmchess answers (3 parts)");
    let turn = body.find("=== Chess Board 101 bob ===").expect(body);
    let games = body.find("=== List of Chess games ===").expect(body);
    let error = body.find("=== Chess Board 101 Error ===").expect(body);
    assert!(turn < games && games < error, "{body}");
    assert!(
        body.contains("It is bob's turn on chess board 101, not yours"),
        "{body}"
    );
    // bob gets only his own turn mail, without the commands as a comment
    // (they hold alice's password).
    let to_b: Vec<_> = r.iter().filter(|m| m.to == "b@x").collect();
    assert_eq!(to_b.len(), 1);
    assert_eq!(to_b[0].subject, "Chess Board 101 bob");
    assert!(!to_b[0].body.contains("Comment"), "{}", to_b[0].body);
    assert!(!to_b[0].body.contains(" pa "), "{}", to_b[0].body);
}

#[test]
fn a_password_typed_into_a_comment_is_not_relayed() {
    let mut w = World::with_board();
    w.mail(
        "a@x",
        "chess move 101 alice pa e4",
        "Oops, my password is PA!",
    );
    let r = w.replies();
    let to_b = r.iter().find(|m| m.to == "b@x").unwrap();
    assert!(
        to_b.body.contains("Oops, my password is *****!"),
        "{}",
        to_b.body
    );
    let plies = store::plies(&w.conn, store::BoardId::new("chess", 101)).unwrap();
    assert_eq!(plies[0].comment, "Oops, my password is *****!");
}

#[test]
fn observers_get_copies_and_are_named_and_can_chat() {
    let mut w = World::with_board();
    w.mail("c@x", "signup carol pc", "");
    w.mail("c@x", "chess subscribe 101 carol pc", "");
    let r = w.replies();
    assert!(r
        .last()
        .unwrap()
        .body
        .contains("carol now observes Chess board 101"));
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    assert_eq!(r.len(), 3, "{r:#?}");
    let to_c = r.iter().find(|m| m.to == "c@x").unwrap();
    assert_eq!(to_c.subject, "Chess Board 101 bob");
    assert!(to_c.body.contains("Observers: carol"), "{}", to_c.body);

    w.mail("c@x", "chess chat 101 carol pc", "Nice opening!");
    let r = w.replies();
    assert_eq!(r.len(), 3);
    assert!(r.iter().all(|m| m
        .body
        .contains("carol says on chess board 101:\n\nNice opening!")));
    // Strangers cannot chat.
    w.mail("d@x", "signup dave pd", "");
    w.replies();
    w.mail("d@x", "chess chat 101 dave pd", "hi");
    assert!(common::joined(&single(&w.replies()).body).contains("subscribe to it first"));

    w.mail("c@x", "chess unsubscribe all carol pc", "");
    w.replies();
    w.mail("b@x", "chess move 101 bob pb e5", "");
    assert_eq!(w.replies().len(), 2);
}

#[test]
fn standings_history_and_list() {
    let mut w = World::with_board();
    w.mail("a@x", "chess challenge alice bob", "");
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.mail("b@x", "chess resign 101 bob pb", "");
    w.replies();
    w.mail("z@x", "chess standings", "");
    let r = w.replies();
    let table = &single(&r).body;
    let alice = table.find("alice").expect(table);
    let bob = table.find("bob").expect(table);
    assert!(alice < bob, "best first: {table}");
    assert!(table.contains("1616"), "{table}");
    assert!(table.contains("Provisional (fewer than 20"), "{table}");
    w.mail("z@x", "chess history", "");
    let r = w.replies();
    assert!(
        single(&r).body.contains("won by alice (resignation)"),
        "{}",
        r[0].body
    );
    assert!(!r[0].body.contains("102"), "{}", r[0].body);
    w.mail("z@x", "list", "");
    let r = w.replies();
    let list = &single(&r).body;
    assert!(list.contains("chess        102"), "{list}");
    assert!(!list.contains("101"), "{list}");
    w.mail("z@x", "list nogame", "");
    let r = w.replies();
    // The word is named by its place, not quoted (issue #23 §3).
    assert!(
        single(&r).body.contains("second word is no game I know"),
        "{}",
        r[0].body
    );
    assert!(!r[0].body.contains("nogame"), "{}", r[0].body);
    assert_eq!(r[0].subject, "Error");
}

#[test]
fn passwords_and_addresses_change_and_signoff_stops_the_account() {
    let mut w = World::with_board();
    w.mail("a@x", "change password alice pa newsecret", "");
    let r = w.replies();
    assert_eq!(single(&r).to, "a@x");
    assert!(!r[0].body.contains("newsecret"));
    w.mail("a@x", "chess move 101 alice pa e4", "");
    assert!(single(&w.replies())
        .body
        .contains("password for alice is wrong"));
    w.mail("a@x", "chess move 101 alice NEWSECRET e4", "");
    assert_eq!(w.replies().len(), 2);

    w.mail(
        "a@x",
        "change address alice newsecret alice@new-mail.org",
        "",
    );
    let r = w.replies();
    // The old address (the sender) is told; the new one gets no notice of
    // its own, so lines of change address cannot fan out (issue #37).
    assert_eq!(single(&r).to, "a@x", "{r:#?}");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    let r = w.replies();
    assert!(r.iter().any(|m| m.to == "alice@new-mail.org"), "{r:#?}");

    w.mail("b@x", "signoff bob pb", "");
    let r = w.replies();
    assert!(
        single(&r).body.contains("forfeited by the timers"),
        "{}",
        r[0].body
    );
    w.mail("b@x", "chess move 101 bob pb Nf6", "");
    assert!(single(&w.replies()).body.contains("signed off"));
}

#[test]
fn vacation_stops_reminders_and_forfeits_and_the_time_does_not_count() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.replies();
    // bob is to act and goes away for 20 days.
    w.mail("b@x", "vacation bob pb 20", "");
    let r = w.replies();
    let to_bob: Vec<_> = r.iter().filter(|m| m.to == "b@x").collect();
    assert!(single_ref(&to_bob)
        .body
        .contains("Enjoy your vacation, bob"));
    // His opponent is told.
    assert!(r
        .iter()
        .any(|m| m.to == "a@x" && m.subject == "bob is on vacation"));
    w.advance(Duration::days(19));
    assert_eq!(w.ticks(), 0, "no reminder on vacation");
    w.advance(Duration::days(2));
    // Back after 20 days: only 1 day counts so far.
    assert_eq!(w.ticks(), 0);
    w.advance(Duration::days(6));
    assert_eq!(w.ticks(), 1, "reminded after 7 days that count");
    w.replies();
    w.advance(Duration::days(14));
    assert_eq!(w.ticks(), 2, "forfeit after 21 days that count");
    assert!(!w.board().is_active());
}

#[test]
fn vacation_days_are_limited_per_year() {
    let mut w = World::new();
    w.mail("b@x", "signup bob pb", "");
    w.mail("b@x", "vacation bob pb 20", "");
    w.advance(Duration::days(20));
    w.replies();
    w.mail("b@x", "vacation bob pb 11", "");
    let r = w.replies();
    assert!(
        single(&r).body.contains("10 of your 30 vacation days left"),
        "{}",
        r[0].body
    );
    w.mail("b@x", "vacation bob pb 10", "");
    assert!(single(&w.replies()).body.contains("Enjoy"));
    w.mail("b@x", "vacation bob pb off", "");
    assert!(single(&w.replies()).body.contains("Welcome back"));
    w.mail("b@x", "vacation bob pb off", "");
    assert!(single(&w.replies()).body.contains("not on vacation"));
}

#[test]
fn notify_sends_results_only() {
    let mut w = World::with_board();
    w.mail("c@x", "signup carol pc", "");
    w.mail("c@x", "chess notify carol pc", "");
    w.replies();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    assert!(r.iter().all(|m| m.to != "c@x"), "no turn mails: {r:#?}");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.mail("a@x", "chess resign 101 alice pa", "");
    let r = w.replies();
    let to_c: Vec<_> = r.iter().filter(|m| m.to == "c@x").collect();
    assert_eq!(to_c.len(), 1, "{r:#?}");
    assert!(to_c[0].body.starts_with("Game won by bob (resignation)."));
}

#[test]
fn challenges_respect_reject_and_limit() {
    let mut w = World::with_board();
    w.mail("b@x", "chess reject bob pb", "");
    w.replies();
    w.mail("a@x", "chess challenge alice bob", "");
    assert!(single(&w.replies())
        .body
        .contains("bob takes no Chess challenges"));
    // bob may still start a board himself.
    w.mail("b@x", "chess challenge bob alice", "");
    assert_eq!(w.replies().len(), 2);
    w.mail("b@x", "chess accept bob pb", "");
    w.mail("b@x", "chess limit bob pb 2", "");
    w.replies();
    w.mail("a@x", "chess challenge alice bob", "");
    assert!(single(&w.replies())
        .body
        .contains("already plays 2 Chess boards"));
    w.mail("b@x", "chess limit bob pb inf", "");
    w.mail("a@x", "chess challenge alice bob", "");
    assert_eq!(w.replies().len(), 3);
}

#[test]
fn message_all_show_and_showas() {
    let mut w = World::with_board();
    w.mail("a@x", "message alice pa bob", "Fancy another game?");
    let r = w.replies();
    let to_b = r.iter().find(|m| m.to == "b@x").unwrap();
    assert!(to_b.body.contains("Fancy another game?"));
    assert!(!to_b.body.contains("a@x"), "address hidden: {}", to_b.body);
    assert!(r
        .iter()
        .any(|m| m.to == "a@x" && m.body.contains("went to bob")));

    w.mail("b@x", "chess set bob pb small", "");
    w.mail("z@x", "all show alice", "");
    let r = w.replies();
    let m = r.iter().find(|m| m.to == "z@x").unwrap();
    assert_eq!(m.subject, "Chess Board 101 alice");
    w.mail("z@x", "chess showas bob pb", "");
    let r = w.replies();
    assert!(!single(&r).body.contains("+---+"), "bob's small board");
    w.mail("z@x", "all show alice inactive", "");
    assert!(single(&w.replies()).body.contains("no boards that match"));
}

#[test]
fn help_pages_fit_a_76_column_mail() {
    let mut w = World::new();
    for topic in ["", " commands", " chess", " doublechess"] {
        w.mail("a@x", &format!("help{topic}"), "");
        let r = w.replies();
        for line in single(&r).body.lines() {
            assert!(line.chars().count() <= 76, "help{topic}: {line:?}");
        }
    }
}

#[test]
fn the_clock_line_tells_the_time_of_the_action_itself() {
    let mut w = World::with_board();
    w.advance(Duration::days(2));
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    let m = r.iter().find(|m| m.to == "b@x").unwrap();
    assert!(
        m.body
            .contains("Started 2026-11-22. Last action 2026-11-24 10:00 UTC."),
        "{}",
        m.body
    );
    w.advance(Duration::hours(5));
    w.mail("b@x", "chess move 101 bob pb propose", "");
    let r = w.replies();
    let m = r.iter().find(|m| m.to == "a@x").unwrap();
    assert!(
        m.body.contains("Last action 2026-11-24 15:00 UTC."),
        "{}",
        m.body
    );
    // A forfeit's mail ends when the forfeit happened, and says who did not act.
    w.advance(Duration::days(30));
    w.ticks();
    let r = w.replies();
    let m = r.iter().find(|m| m.to == "a@x").unwrap();
    assert!(
        common::joined(&m.body).starts_with(
            "Game was a tie (agreement by silence: the draw proposal stood unanswered for 30 days)."
        ),
        "{}",
        m.body
    );
    assert!(m.body.contains("Ended 2026-12-24 15:00 UTC."), "{}", m.body);
}

#[test]
fn total_time_is_shown_while_it_applies_and_a_player_over_it_forfeits() {
    let mut w = World::new();
    w.mail("a@x", "signup alice pa", "");
    w.mail("b@x", "signup bob pb", "");
    w.mail("a@x", "chess challenge alice bob --totaltime=3", "");
    w.replies();
    w.advance(Duration::days(1));
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    let m = r.iter().find(|m| m.to == "b@x").unwrap();
    assert!(
        m.body
            .contains("Time used of the 3 days each: alice 1 day, bob 0.0 days."),
        "{}",
        m.body
    );
    w.advance(Duration::hours(36));
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.replies();
    // alice has used 1 day; after 2 more without a move she is out of time,
    // long before the 21 forfeit days.
    w.advance(Duration::days(1));
    assert_eq!(w.ticks(), 0);
    w.advance(Duration::days(1));
    assert_eq!(w.ticks(), 2);
    let r = w.replies();
    assert!(
        r[0].body
            .starts_with("Game won by bob (forfeit: alice used up the 3 days of total time)."),
        "{}",
        r[0].body
    );
    assert!(
        r[0].body.contains("alice 3.0 days, bob 1.5 days."),
        "{}",
        r[0].body
    );
    assert!(!w.board().is_active());
}
