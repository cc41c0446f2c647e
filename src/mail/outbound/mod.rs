//! Outbound mail: the [`Sender`] contract the transports keep, and the
//! retry schedule. Building the message from an outbox row is in
//! `message`; the Maildir outbox in `maildir`.

mod maildir;
mod message;
mod message_id;

pub use maildir::MaildirOutbox;
pub use message::build_message;
pub(crate) use message::{build_message_in_form, build_message_with_id, MailForm, MessageId};
pub use message_id::outgoing_message_id;
pub(crate) use message_id::{is_error_message_id, is_error_subject};

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use lettre::Message;

/// Why a send failed, and whether trying again can help.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Try again later (connection refused, timeout, 4xx, disk full...).
    #[error("temporary failure: {0}")]
    Temporary(String),
    /// Trying again will not help (5xx, malformed address, ...): mark the
    /// outbox row failed.
    #[error("permanent failure: {0}")]
    Permanent(String),
}

impl SendError {
    pub(crate) fn is_permanent(&self) -> bool {
        matches!(self, SendError::Permanent(_))
    }
}

/// A mail transport. One instance is reused for a whole outbox pass.
pub trait Sender: Send {
    /// Hands one message over for delivery (at-least-once: a message may
    /// be handed over again after a crash; it keeps its Message-ID).
    fn send(&mut self, msg: &Message) -> Result<(), SendError>;

    /// Makes every message handed over so far durable, where the transport
    /// itself does not at each [`Sender::send`] (a Maildir written in
    /// batches). A sending pass calls it before it records a batch as sent.
    fn flush(&mut self) -> Result<(), SendError> {
        Ok(())
    }

    /// The longest one [`Sender::send`] of a mail within `[limits]
    /// max_reply_bytes` can take: a sending pass starts no send that could
    /// outlive its claim on the mail (`daemon::SEND_LEASE`). The default
    /// (a minute) is for local transports: a Maildir, a sendmail program.
    fn longest_send(&self) -> Duration {
        Duration::from_secs(60)
    }

    /// [`Sender::send`], abandoned as soon as `stop` is set where the
    /// transport can wait long (SMTP, a sendmail program): the daemon
    /// answers SIGTERM within seconds even while a send hangs. A send
    /// abandoned so is a [`SendError::Temporary`].
    fn send_or_stop(&mut self, msg: &Message, stop: &AtomicBool) -> Result<(), SendError> {
        let _ = stop;
        self.send(msg)
    }

    /// Whether a message is delivered for good once [`Sender::send`]
    /// returned (an SMTP server or a sendmail program took it over): a
    /// pass then records each mail sent at once, so a crash sends again at
    /// most the one mail in flight. False where [`Sender::flush`] makes the
    /// batch durable (a Maildir): its mails are recorded after the flush.
    fn durable_at_send(&self) -> bool {
        true
    }

    /// The end of a sending pass: close what it opened (the SMTP
    /// connection, which the next pass opens afresh).
    fn end_pass(&mut self) {}
}

/// First retry delay after a temporary failure.
pub(crate) const RETRY_FIRST_DELAY: Duration = Duration::from_secs(60);
/// Longest delay between two attempts.
pub(crate) const RETRY_MAX_DELAY: Duration = Duration::from_secs(60 * 60);
/// A row still failing temporarily this long after its first attempt is
/// given up (as MTAs do with their queue lifetime).
pub(crate) const GIVE_UP_AFTER: Duration = Duration::from_secs(3 * 24 * 60 * 60);

/// How often and how long a mail that failed temporarily is tried again.
/// The defaults: 1 min after the first failure, doubling each time (2, 4,
/// 8, 16, 32 min), at most [`RETRY_MAX_DELAY`] apart, given up after
/// [`GIVE_UP_AFTER`] (as MTAs do with their queue lifetime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RetryPolicy {
    pub first_delay: Duration,
    pub max_delay: Duration,
    pub give_up_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            first_delay: RETRY_FIRST_DELAY,
            max_delay: RETRY_MAX_DELAY,
            give_up_after: GIVE_UP_AFTER,
        }
    }
}

impl RetryPolicy {
    /// How long to wait before the next attempt, after `attempts` failed
    /// ones. `attempts == 0` means no failure yet: no delay.
    pub(crate) fn delay(&self, attempts: u32) -> Duration {
        if attempts == 0 {
            return Duration::ZERO;
        }
        let factor = 1u32.checked_shl(attempts - 1).unwrap_or(u32::MAX);
        self.first_delay
            .checked_mul(factor)
            .unwrap_or(Duration::MAX)
            .min(self.max_delay)
    }

    /// The retry decision for a row that just failed with `error`:
    /// `attempts` counts the failed attempts including this one,
    /// `since_first_attempt` is the time from the row's first attempt to now.
    pub(crate) fn after_failure(
        &self,
        error: &SendError,
        attempts: u32,
        since_first_attempt: Duration,
    ) -> Retry {
        match error {
            SendError::Permanent(_) => Retry::GiveUp,
            SendError::Temporary(_) if since_first_attempt >= self.give_up_after => Retry::GiveUp,
            SendError::Temporary(_) => Retry::After(self.delay(attempts.max(1))),
        }
    }
}

/// What to do with an outbox row after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Try again after this delay.
    After(Duration),
    /// Stop: mark the row failed (permanent error, or temporary for longer
    /// than the policy's give-up time).
    GiveUp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_delays_double_from_one_minute_up_to_one_hour() {
        let mins: Vec<u64> = (0..10)
            .map(|a| RetryPolicy::default().delay(a).as_secs() / 60)
            .collect();
        assert_eq!(mins, [0, 1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(RetryPolicy::default().delay(u32::MAX), RETRY_MAX_DELAY);
        assert_eq!(RetryPolicy::default().delay(64), RETRY_MAX_DELAY);
    }

    #[test]
    fn temporary_failures_give_up_after_three_days_permanent_at_once() {
        let temp = SendError::Temporary("421".into());
        let perm = SendError::Permanent("550".into());
        assert_eq!(
            RetryPolicy::default().after_failure(&temp, 1, Duration::ZERO),
            Retry::After(Duration::from_secs(60))
        );
        assert_eq!(
            RetryPolicy::default().after_failure(&temp, 40, GIVE_UP_AFTER - Duration::from_secs(1)),
            Retry::After(RETRY_MAX_DELAY)
        );
        assert_eq!(
            RetryPolicy::default().after_failure(&temp, 41, GIVE_UP_AFTER),
            Retry::GiveUp
        );
        assert_eq!(
            RetryPolicy::default().after_failure(&perm, 1, Duration::ZERO),
            Retry::GiveUp
        );
    }
}
