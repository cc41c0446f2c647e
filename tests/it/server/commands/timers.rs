//! Timers: reminders, forfeits, the clock line and total time.

use super::*;

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
