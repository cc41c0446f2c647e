//! When a board's clock calls for a reminder or a forfeit (docs/commands.md §3).
//! Pure: the server applies the decision.
//!
//! A board whose player to act has not acted for `nag_days` gets a
//! reminder to that player, repeated at most daily; at `forfeit_days` the
//! player forfeits (an unanswered draw proposal then counts as accepted).

use chrono::{DateTime, Duration, Utc};

/// What the timers do to one board now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerAction {
    Nothing,
    Remind,
    /// The player to act has not acted for `forfeit_days`.
    Forfeit,
    /// The player to act has used up the board's total time.
    TimeUp,
}

/// A board's clock readings.
#[derive(Clone, Copy, Debug)]
pub struct BoardClock {
    pub last_action_at: DateTime<Utc>,
    pub last_nag_at: Option<DateTime<Utc>>,
    pub nag_days: u32,
    pub forfeit_days: u32,
    /// With `--totaltime=N`: N, and the time the player to act has used,
    /// their current turn included.
    pub total: Option<(u32, Duration)>,
}

/// The time a player has used on a board: the sum of the spans in which it
/// was their turn (`turns`, each from the action before to their own, the
/// running turn up to now included), less the time they spent on vacation
/// within them. Ruling: vacation days count against neither the forfeit
/// time nor the total time.
pub fn time_used(
    turns: &[(DateTime<Utc>, DateTime<Utc>)],
    vacations: &[(DateTime<Utc>, DateTime<Utc>)],
) -> Duration {
    turns
        .iter()
        .filter(|(from, to)| from < to)
        .map(|&(from, to)| (to - from) - time_on_vacation(vacations, from, to))
        .fold(Duration::zero(), |a, b| a + b)
}

/// How much of the time from `from` to `to` the player spent on vacation
/// (vacations given as start and end; overlaps counted once).
pub fn time_on_vacation(
    vacations: &[(DateTime<Utc>, DateTime<Utc>)],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Duration {
    let mut spans: Vec<(DateTime<Utc>, DateTime<Utc>)> = vacations
        .iter()
        .map(|&(s, e)| (s.max(from), e.min(to)))
        .filter(|(s, e)| s < e)
        .collect();
    spans.sort();
    let mut total = Duration::zero();
    let mut reached = from;
    for (s, e) in spans {
        let s = s.max(reached);
        if e > s {
            total += e - s;
            reached = e;
        }
    }
    total
}

/// Decide for one board at `now`.
pub fn decide(clock: &BoardClock, now: DateTime<Utc>) -> TimerAction {
    if let Some((days, used)) = clock.total {
        if used >= Duration::days(days as i64) {
            return TimerAction::TimeUp;
        }
    }
    let idle = now - clock.last_action_at;
    if idle >= Duration::days(clock.forfeit_days as i64) {
        return TimerAction::Forfeit;
    }
    if idle >= Duration::days(clock.nag_days as i64) {
        let nagged_lately = clock
            .last_nag_at
            .is_some_and(|t| now - t < Duration::days(1));
        if !nagged_lately {
            return TimerAction::Remind;
        }
    }
    TimerAction::Nothing
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(days_idle: i64, nagged_hours_ago: Option<i64>) -> (BoardClock, DateTime<Utc>) {
        let now = DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        (
            BoardClock {
                last_action_at: now - Duration::days(days_idle),
                last_nag_at: nagged_hours_ago.map(|h| now - Duration::hours(h)),
                nag_days: 7,
                forfeit_days: 21,
                total: None,
            },
            now,
        )
    }

    #[test]
    fn vacation_time_is_the_union_of_spans_within_the_window() {
        let t = |d: i64| {
            DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
                .unwrap()
                .with_timezone(&Utc)
                + Duration::days(d)
        };
        let v = [(t(2), t(5)), (t(4), t(8)), (t(20), t(30))];
        assert_eq!(time_on_vacation(&v, t(0), t(10)), Duration::days(6));
        assert_eq!(time_on_vacation(&v, t(6), t(25)), Duration::days(7));
        assert_eq!(time_on_vacation(&[], t(0), t(10)), Duration::zero());
    }

    #[test]
    fn quiet_boards_are_left_alone() {
        let (c, now) = clock(6, None);
        assert_eq!(decide(&c, now), TimerAction::Nothing);
    }

    #[test]
    fn reminders_start_at_nag_days_and_repeat_daily() {
        let (c, now) = clock(7, None);
        assert_eq!(decide(&c, now), TimerAction::Remind);
        let (c, now) = clock(8, Some(5));
        assert_eq!(decide(&c, now), TimerAction::Nothing);
        let (c, now) = clock(8, Some(24));
        assert_eq!(decide(&c, now), TimerAction::Remind);
    }

    #[test]
    fn total_time_is_the_sum_of_turns_less_vacations_and_forfeits_when_used_up() {
        let t = |d: i64| {
            DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
                .unwrap()
                .with_timezone(&Utc)
                + Duration::days(d)
        };
        let turns = [(t(0), t(3)), (t(5), t(6)), (t(10), t(14))];
        assert_eq!(time_used(&turns, &[]), Duration::days(8));
        assert_eq!(time_used(&turns, &[(t(12), t(20))]), Duration::days(6));
        let (mut c, now) = clock(1, None);
        c.total = Some((8, Duration::days(8)));
        assert_eq!(decide(&c, now), TimerAction::TimeUp);
        c.total = Some((8, Duration::days(7)));
        assert_eq!(decide(&c, now), TimerAction::Nothing);
    }

    #[test]
    fn forfeit_at_forfeit_days_even_if_just_reminded() {
        let (c, now) = clock(21, Some(1));
        assert_eq!(decide(&c, now), TimerAction::Forfeit);
    }
}
