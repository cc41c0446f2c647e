//! When a board's clock calls for a reminder or a forfeit (commands.md §3).
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
    Forfeit,
}

/// A board's clock readings.
#[derive(Clone, Copy, Debug)]
pub struct BoardClock {
    pub last_action_at: DateTime<Utc>,
    pub last_nag_at: Option<DateTime<Utc>>,
    pub nag_days: u32,
    pub forfeit_days: u32,
}

/// Decide for one board at `now`.
pub fn decide(clock: &BoardClock, now: DateTime<Utc>) -> TimerAction {
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
            },
            now,
        )
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
    fn forfeit_at_forfeit_days_even_if_just_reminded() {
        let (c, now) = clock(21, Some(1));
        assert_eq!(decide(&c, now), TimerAction::Forfeit);
    }
}
