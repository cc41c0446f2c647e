//! Accounts and players: observers, standings, passwords and addresses,
//! vacation, notify, challenges and messages.

use super::*;

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
    // The word is named by its place, not quoted: it may be a password.
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
    // its own, so lines of change address cannot fan out to strangers.
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
