//! One pass of the server's work, and the loop that repeats it.
//!
//! A pass first sends what earlier passes committed, then reads the inbox
//! oldest first and hands each mail to the server; only after the server's
//! transaction committed is the mail marked done in the inbox (and logged),
//! so a crash re-reads rather than loses (and the recorded Message-ID makes
//! re-reading harmless). The due outbox rows are sent after each batch,
//! each marked sent only after the transport accepted it, and the timers
//! run. A pass of `serve` does each step for seconds at most (`Pace`),
//! so under steady mail the timers, a reload and `status` keep their time.
//!
//! Inbound mail is read in `inbound`, the outbox is sent in `outbox`,
//! old records are pruned in `retention`, and `serve` holds the
//! daemon and the loop of its passes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tracing::info;

mod inbound;
mod outbox;
mod retention;
mod serve;
#[cfg(test)]
mod tests;

pub(crate) use inbound::{take_mail, Taken};
pub use outbox::drain_outbox;
pub(crate) use outbox::send_outbox_now;
pub(crate) use retention::prune;
pub(crate) use serve::{Daemon, Served};

/// What a pass did, for the log and for tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    /// The inbox could not be read (server down, login refused, ...).
    pub inbox_failed: bool,
    pub mails_read: usize,
    pub mails_failed: usize,
    /// Of the failed mails, those that failed too often and were quarantined.
    pub mails_quarantined: usize,
    pub sent: usize,
    pub send_failures: usize,
    pub timer_mails: usize,
    /// Argon2id password verifications run in the pass (the cache of
    /// verified credentials answers the others), and the time they took.
    pub password_verifications: u64,
    pub password_time: Duration,
    /// Why the inbox could not be read, when it could not (`status` shows
    /// the last one).
    pub inbox_error: Option<String>,
    /// The pass ended its reading or sending at its time slice with work
    /// left: `serve` begins the next pass at once.
    pub more_waiting: bool,
    /// A send failed only after `HUNG_SEND` or more: the relay hangs, and
    /// the pass tried no more mail to it.
    pub relay_hung: bool,
}

impl PassReport {
    /// Whether the pass failed (`poll` exits 2): the inbox could not be
    /// read, or a mail could not be processed. Replies that wait for the
    /// SMTP server are no failure: the outbox keeps them.
    pub(crate) fn failed(&self) -> bool {
        self.inbox_failed || self.mails_failed > 0
    }
}

impl PassReport {
    /// The `pass done` log line, each count a field of its own (plain
    /// numbers in `--log-format json`, not a Rust debug string).
    pub(crate) fn log(&self) {
        info!(
            inbox_failed = self.inbox_failed,
            mails_read = self.mails_read,
            mails_failed = self.mails_failed,
            mails_quarantined = self.mails_quarantined,
            sent = self.sent,
            send_failures = self.send_failures,
            timer_mails = self.timer_mails,
            password_verifications = self.password_verifications,
            password_ms = u64::try_from(self.password_time.as_millis()).unwrap_or(u64::MAX),
            "pass done"
        );
    }
}

/// When a pass cuts its reading and sending short: at `stop` (SIGTERM,
/// SIGINT), at `reload` (SIGHUP), and at its time slices. `poll` reads
/// without a slice: all that was waiting when it began, then it exits.
#[derive(Clone, Copy)]
pub(crate) struct Pace<'a> {
    pub stop: &'a AtomicBool,
    pub reload: Option<&'a AtomicBool>,
    /// Set with `stop` and with `reload` (`serve`: by its signal
    /// handler): a send in hand is abandoned when it is set (a hanging
    /// relay holds neither a stop nor a reload); `None`: `stop`.
    pub abandon: Option<&'a AtomicBool>,
    /// No mail is begun after this instant (`serve`: `READ_SLICE` after
    /// the pass began).
    pub read_until: Option<Instant>,
    /// Each drain of the outbox begins no send after this long
    /// (`serve`: `SEND_SLICE`).
    pub send_slice: Option<Duration>,
}

impl<'a> Pace<'a> {
    /// No slices, no reload: `process`, `tick`, and the tests.
    pub(crate) fn unhurried(stop: &'a AtomicBool) -> Pace<'a> {
        Pace {
            stop,
            reload: None,
            abandon: None,
            read_until: None,
            send_slice: None,
        }
    }

    /// The pace of `poll`: it reads all that was waiting when it began,
    /// and each drain sends for `SEND_SLICE` at most (a slow relay does
    /// not keep a cron job running; what is left waits in the outbox for
    /// the next pass).
    pub(crate) fn polling(stop: &'a AtomicBool) -> Pace<'a> {
        Pace {
            send_slice: Some(SEND_SLICE),
            ..Pace::unhurried(stop)
        }
    }

    /// The pace of a `serve` pass that begins now.
    pub(crate) fn serving(stop: &'a AtomicBool, reload: &'a AtomicBool) -> Pace<'a> {
        Pace {
            stop,
            reload: Some(reload),
            abandon: None,
            read_until: Some(Instant::now() + READ_SLICE),
            send_slice: Some(SEND_SLICE),
        }
    }

    /// This pace, its send in hand abandoned when `abandon` is set.
    pub(crate) fn abandoning(self, abandon: &'a AtomicBool) -> Pace<'a> {
        Pace {
            abandon: Some(abandon),
            ..self
        }
    }

    /// A stop or a reload was asked for: the pass ends after the mail in
    /// hand.
    pub(crate) fn interrupted(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.reload.is_some_and(|r| r.load(Ordering::SeqCst))
    }

    /// The pass begins no more inbound mail.
    fn reading_over(&self) -> bool {
        self.interrupted() || self.read_until.is_some_and(|t| Instant::now() >= t)
    }

    /// The instant a drain that begins now begins no more sends after.
    fn send_until(&self) -> Option<Instant> {
        self.send_slice.map(|d| Instant::now() + d)
    }
}

/// How long a `serve` pass begins inbound mail: then it runs the timers,
/// records itself for `status`, and the next pass begins at once when
/// more is waiting. Under steady mail a pass so ends within seconds (plus
/// the mail in hand), so the timers, a SIGHUP and `status` keep their time.
const READ_SLICE: Duration = Duration::from_secs(2);

/// How long one drain of the outbox in a `serve` pass begins sends: a
/// slow relay holds the reading at most this long per drain (plus the
/// send in hand).
const SEND_SLICE: Duration = Duration::from_secs(2);
