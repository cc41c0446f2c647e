//! The daemon: the inbox, the outbox and the database it holds open, its
//! passes, and the loop of `serve` that repeats them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use tracing::{error, info, warn};

use super::inbound::read_inbox;
use super::outbox::drain_outbox_paced;
use super::retention::prune;
use super::{Pace, PassReport};
use crate::mail::{self, Inbox, Sender};
use crate::server::{Server, ServerError};
use crate::store;

/// Everything the daemon holds open between passes.
pub(crate) struct Daemon<'a> {
    pub server: Server<'a>,
    pub conn: Connection,
    pub inbox: Box<dyn Inbox>,
    pub sender: Box<dyn Sender>,
    /// No mail is sent before this (the relay hung; see
    /// [`Daemon::pass_paced`]).
    relay_paused_until: Option<Instant>,
    /// The last such pause.
    relay_pause: Option<Duration>,
}

impl<'a> Daemon<'a> {
    /// The daemon of `server` on `conn`, with the inbox and the outbox of
    /// its config opened (an IMAP or SMTP server is not connected yet).
    pub(crate) fn open(
        server: Server<'a>,
        conn: Connection,
    ) -> Result<Daemon<'a>, mail::MailError> {
        let mut inbox = mail::open_inbox(&server.config.inbox)?;
        inbox.limit_message_bytes(server.config.limits.max_message_bytes);
        let sender = mail::open_sender(&server.config.outbox)?;
        Ok(Daemon {
            server,
            conn,
            inbox,
            sender,
            relay_paused_until: None,
            relay_pause: None,
        })
    }

    /// One pass of `poll`: what was waiting in the inbox when it began,
    /// however long that takes ([`Pace::polling`]); see
    /// [`Daemon::pass_paced`].
    pub(crate) fn pass(&mut self, stop: &AtomicBool) -> Result<PassReport, ServerError> {
        self.pass_paced(&Pace::polling(stop))
    }

    /// One pass: the outbox first (what an earlier pass committed goes out
    /// before anything new is read, even when each start dies in its
    /// reading), then the inbox (its replies sent after each batch), the
    /// timers, pruning, and the outbox again. `pace` cuts the reading and
    /// each sending short (`serve`: so that a pass under steady mail ends
    /// within seconds and the timers, a reload and `status` keep their
    /// time); after a stop or a reload only the timers run. While the relay
    /// hangs ([`PassReport::relay_hung`]) nothing is sent for a pause that
    /// doubles with each pass that finds it hanging still
    /// (`RELAY_PAUSE` up to `RELAY_PAUSE_MAX`), so that the inbox is
    /// read on: one timeout per pause, not one per pass.
    pub(crate) fn pass_paced(&mut self, pace: &Pace<'_>) -> Result<PassReport, ServerError> {
        let mut report = PassReport::default();
        let checks_before = self.server.credentials.stats();
        let sending = self.relay_paused_until.is_none_or(|t| Instant::now() >= t);
        if sending && !pace.interrupted() {
            self.drain(pace, &mut report)?;
        }
        let sender: Option<&mut dyn Sender> = if sending && !report.relay_hung {
            Some(&mut *self.sender)
        } else {
            None
        };
        let read = read_inbox(
            &self.server,
            &mut self.conn,
            self.inbox.as_mut(),
            sender,
            pace,
            &mut report,
        );
        // Password checks are over until the next pass's mail.
        self.server.credentials.release_memory();
        read?;
        report.timer_mails = self.server.run_timers(&mut self.conn)?;
        prune(self.server.config, self.server.clock, &self.conn)?;
        if sending && !report.relay_hung && !pace.interrupted() {
            self.drain(pace, &mut report)?;
        }
        if sending {
            self.pause_sending(report.relay_hung);
        }
        let checks = self.server.credentials.stats();
        report.password_verifications = checks.verifications - checks_before.verifications;
        report.password_time = checks.time.saturating_sub(checks_before.time);
        // For `status`: when the last pass ended, and the inbox's last error.
        let now = self.server.clock.now();
        let inbox_error = report.inbox_error.as_deref();
        if let Err(e) = store::record_pass(&self.conn, now, inbox_error) {
            warn!(error = %e, "cannot record the pass for `status`");
        }
        Ok(report)
    }

    /// One drain of the outbox within `pace`'s send slice.
    fn drain(&mut self, pace: &Pace<'_>, report: &mut PassReport) -> Result<(), ServerError> {
        drain_outbox_paced(
            self.server.config,
            self.server.clock,
            &self.conn,
            self.sender.as_mut(),
            pace,
            report,
        )
    }

    /// After a pass that sent: a relay that hung is left alone for a
    /// pause, twice as long as the last when it hung again; one that did
    /// not hang is tried at every pass.
    fn pause_sending(&mut self, hung: bool) {
        if !hung {
            self.relay_pause = None;
            self.relay_paused_until = None;
            return;
        }
        let pause = self
            .relay_pause
            .map_or(RELAY_PAUSE, |p| (p * 2).min(RELAY_PAUSE_MAX));
        warn!(
            pause_seconds = pause.as_secs(),
            "the relay hangs: replies wait in the outbox, and the inbox is read on"
        );
        self.relay_pause = Some(pause);
        self.relay_paused_until = Some(Instant::now() + pause);
    }

    /// Wait until the next pass is due: `interval` after `started`, or
    /// earlier when the inbox says new mail may be there (IMAP IDLE) and
    /// `wake_early` allows it, but never sooner than [`MIN_PASS_SPACING`]
    /// after `started`. Waits in slices so `stop` (or `reload`) is seen
    /// within one.
    fn wait(
        &mut self,
        started: Instant,
        interval: Duration,
        wake_early: bool,
        stop: &AtomicBool,
        reload: &AtomicBool,
    ) {
        let until = started + interval;
        let earliest = started + MIN_PASS_SPACING;
        while !stop.load(Ordering::SeqCst) && !reload.load(Ordering::SeqCst) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            let slice = left.min(WAIT_SLICE);
            let t0 = Instant::now();
            if let Err(e) = self.inbox.wait_for_mail(slice) {
                warn!(error = %e, "waiting for mail failed");
                std::thread::sleep(slice);
                continue;
            }
            if wake_early && t0.elapsed() < slice {
                // Mail may have arrived: go, but not in a tight loop.
                std::thread::sleep(earliest.saturating_duration_since(Instant::now()));
                return;
            }
        }
    }

    /// Repeat passes every `interval` until `stop` is set
    /// ([`Served::Stopped`]) or `reload` is (SIGHUP: [`Served::Reload`],
    /// after the pass in hand; the caller reads the config again and
    /// serves on). A pass in hand is finished first; database failures are
    /// logged and retried. A send in hand is abandoned once `abandon`
    /// is set (the caller sets it with `stop` and with `reload`, so that a
    /// relay that hangs holds up neither: see [`Pace::abandon`]).
    pub(crate) fn serve_until_abandoning(
        &mut self,
        stop: &AtomicBool,
        reload: &AtomicBool,
        abandon: &AtomicBool,
    ) -> Served {
        let interval = Duration::from_secs(self.server.config.poll.interval_seconds.max(1));
        info!(interval_seconds = interval.as_secs(), "serving");
        while !stop.load(Ordering::SeqCst) {
            if reload.load(Ordering::SeqCst) {
                return Served::Reload;
            }
            let started = Instant::now();
            // After a mail failed, wait the whole interval: it is still in
            // the inbox and would otherwise be retried at once, again and again.
            let (wake_early, more) =
                match self.pass_paced(&Pace::serving(stop, reload).abandoning(abandon)) {
                    Ok(r) => {
                        if r != PassReport::default() {
                            r.log();
                        }
                        (r.mails_failed == 0, r.more_waiting && r.mails_failed == 0)
                    }
                    Err(e) => {
                        error!(error = %e, "pass failed; will try again");
                        (false, false)
                    }
                };
            if !more {
                self.wait(started, interval, wake_early, stop, reload);
            }
        }
        info!("stopped");
        Served::Stopped
    }
}

/// Why [`Daemon::serve_until_abandoning`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Served {
    /// SIGTERM or SIGINT: the daemon is done.
    Stopped,
    /// SIGHUP: read the config again and serve on.
    Reload,
}

/// How long `serve` sends nothing after a pass found the relay hanging;
/// doubled each time it hangs again, up to [`RELAY_PAUSE_MAX`].
const RELAY_PAUSE: Duration = Duration::from_secs(60);
const RELAY_PAUSE_MAX: Duration = Duration::from_secs(16 * 60);

/// How long one wait for mail lasts at most, so a stop signal is noticed soon.
const WAIT_SLICE: Duration = Duration::from_secs(5);

/// The least time between the starts of two passes when the inbox woke
/// the daemon early: it bounds the passes a server that wakes IDLE for
/// nothing can cause (ten a second, each one `UID SEARCH` when nothing is
/// there) while costing a move that arrives just after a pass started at
/// most this much.
const MIN_PASS_SPACING: Duration = Duration::from_millis(100);
