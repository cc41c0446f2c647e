//! Sending the outbox: due mails claimed in batches, sent on the
//! configured transport, and what became of each recorded.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use tracing::{error, info, warn};

use super::{Pace, PassReport};
use crate::clock::Clock;
use crate::config::Config;
use crate::mail::{self, Retry, Sender};
use crate::server::ServerError;
use crate::store;

/// What became of one outbox mail the pass tried to send.
pub(super) enum SendResult {
    Accepted,
    Retry(chrono::DateTime<chrono::Utc>, String),
    GivenUp(String),
}

/// Send every due outbox mail, in batches of `SEND_BATCH`: a batch is
/// claimed in one transaction and sent, each mail on the transport's one
/// connection for the pass ([`Sender::end_pass`] closes it).
///
/// One process sends at a time: the pass first takes the database's
/// `store::SendLock`; when another live process holds it, this one sends
/// nothing (the holder sends every due row before it lets go, and looks
/// once more after letting go for rows committed meanwhile). A sender that
/// takes the lock makes the claims of a sender that died due at once
/// (`store::reclaim_orphans`), so a crash costs seconds, not the lease.
///
/// What became of each mail is recorded at once, in a transaction of its
/// own, when the transport delivers for good at each send
/// ([`Sender::durable_at_send`]: SMTP, sendmail), so a crash sends again
/// only the one mail in flight; those small commits do not wait for the
/// disk (`synchronous = NORMAL` while the pass sends: a power cut may
/// forget that a mail went, and it goes again, never the reverse). For a
/// Maildir the batch is flushed and then recorded in one transaction. A
/// resend carries the same Message-ID.
pub fn drain_outbox(
    config: &Config,
    clock: &dyn Clock,
    conn: &Connection,
    sender: &mut dyn Sender,
    stop: &AtomicBool,
    report: &mut PassReport,
) -> Result<(), ServerError> {
    drain_outbox_paced(config, clock, conn, sender, &Pace::unhurried(stop), report)
}

/// [`drain_outbox`] within `pace`: it begins no send after its send slice
/// (what is left is [`PassReport::more_waiting`]) or once a reload is
/// asked for, and none after a send that failed only after [`HUNG_SEND`]
/// or more ([`PassReport::relay_hung`]): a relay that hangs costs a pass
/// one timeout, not one per due mail.
pub(crate) fn drain_outbox_paced(
    config: &Config,
    clock: &dyn Clock,
    conn: &Connection,
    sender: &mut dyn Sender,
    pace: &Pace<'_>,
    report: &mut PassReport,
) -> Result<(), ServerError> {
    // A send abandoned (a stop, or `serve`'s reload) is not tried: it is
    // due again at once.
    let stop = pace.abandon.unwrap_or(pace.stop);
    let until = pace.send_until();
    let out_of_time = || pace.interrupted() || until.is_some_and(|t| Instant::now() >= t);
    // The holder's last look and its letting go are two steps: rows
    // committed between them by a process that found the lock taken are
    // found by looking again after letting go (a few rounds at most).
    for _ in 0..4 {
        let lock = match store::SendLock::try_take(conn) {
            store::SendLockState::Taken(lock) => {
                let orphans = store::reclaim_orphans(conn, clock.now())?;
                if orphans > 0 {
                    info!(
                        mails = orphans,
                        "outbox mails claimed by a sender that stopped are due again"
                    );
                }
                Some(lock)
            }
            store::SendLockState::Busy => {
                tracing::debug!("another process is sending the outbox; it sends these too");
                return Ok(());
            }
            store::SendLockState::Unavailable(e) => {
                if let Some(e) = e {
                    warn!(error = %e, "cannot take the outbox send lock; claims alone keep senders apart");
                }
                None
            }
        };
        let relaxed = if sender.durable_at_send() {
            Some(RelaxedSync::new(conn)?)
        } else {
            None
        };
        let drained = send_batches(config, clock, conn, sender, stop, &out_of_time, report);
        sender.end_pass();
        drop(relaxed);
        let locked = lock.is_some();
        drop(lock);
        if !drained? || !locked || stop.load(Ordering::SeqCst) || report.relay_hung {
            return Ok(());
        }
        if !store::any_due(conn, clock.now())? {
            return Ok(());
        }
    }
    Ok(())
}

/// `PRAGMA synchronous = NORMAL` on a connection for as long as it lives,
/// then the setting it had.
struct RelaxedSync<'c> {
    conn: &'c Connection,
    before: i64,
}

impl<'c> RelaxedSync<'c> {
    fn new(conn: &'c Connection) -> Result<Self, ServerError> {
        let before: i64 = conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .map_err(store::StoreError::from)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(store::StoreError::from)?;
        Ok(RelaxedSync { conn, before })
    }
}

impl Drop for RelaxedSync<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.conn.pragma_update(None, "synchronous", self.before) {
            error!(error = %e, "cannot restore PRAGMA synchronous");
        }
    }
}

/// Records what became of one outbox mail.
fn record(
    conn: &Connection,
    id: i64,
    result: &SendResult,
    done_at: chrono::DateTime<chrono::Utc>,
) -> Result<(), ServerError> {
    match result {
        SendResult::Accepted => store::mark_sent(conn, id, done_at)?,
        SendResult::Retry(next, error) => store::mark_retry(conn, id, *next, error)?,
        SendResult::GivenUp(error) => store::mark_failed(conn, id, done_at, error)?,
    }
    Ok(())
}

/// The batches of [`drain_outbox`]. True when it ended because nothing
/// more was due (not stopped, nor the transport down).
fn send_batches(
    config: &Config,
    clock: &dyn Clock,
    conn: &Connection,
    sender: &mut dyn Sender,
    stop: &AtomicBool,
    out_of_time: &dyn Fn() -> bool,
    report: &mut PassReport,
) -> Result<bool, ServerError> {
    // No send starts that could outlive the claim (see [`SEND_LEASE`]).
    let longest_send = chrono::Duration::from_std(sender.longest_send()).unwrap_or_default();
    let lease_length = chrono::Duration::seconds(
        i64::try_from(config.retry.lease_seconds).unwrap_or(i64::MAX / 1000),
    )
    .max(longest_send * 2);
    let mut sending = Sending {
        config,
        stop,
        from: format!("{} <{}>", config.server.name, config.server.address),
        too_large: config
            .limits
            .max_reply_bytes
            .saturating_mul(crate::limits::MAX_SENDABLE_FACTOR),
        temporary_in_a_row: 0,
        message_id_key: store::message_id_key(conn)?,
        down: false,
        hung: false,
    };
    let each = sender.durable_at_send();
    while !stop.load(Ordering::SeqCst) {
        if out_of_time() {
            report.more_waiting |= store::any_due(conn, clock.now())?;
            return Ok(false);
        }
        let now = clock.now();
        // Another pass (an overlapping cron run) may be sending some already.
        let lease = now + lease_length;
        let batch = claim_batch(conn, now, lease)?;
        if batch.is_empty() {
            return Ok(true);
        }
        // Results not yet recorded (all of them for a Maildir; for the
        // others each is recorded as it comes).
        let mut results = Vec::with_capacity(batch.len());
        let mut tried = 0;
        let mut lease_out = false;
        for row in &batch {
            if stop.load(Ordering::SeqCst) || sending.down || out_of_time() {
                // Claimed but not tried: due again at once (close_batch).
                break;
            }
            if clock.now() + longest_send > lease {
                // The send might outlive the claim and another pass send
                // it too: leave the rest to a fresh claim.
                lease_out = true;
                break;
            }
            let Some(result) = sending.send(sender, row, now, report) else {
                break;
            };
            tried += 1;
            if each {
                let tx = immediate(conn)?;
                record(&tx, row.id, &result, clock.now())?;
                tx.commit()?;
            } else {
                results.push((row.id, result));
            }
        }
        if !each {
            if let Err(e) = sender.flush() {
                // Not durable: leave the batch claimed, to be sent again once
                // the claim runs out (the same messages, the same Message-IDs).
                warn!(error = %e, "sent mail could not be made durable; it will be sent again");
                let before = results.len();
                results.retain(|(_, r)| !matches!(r, SendResult::Accepted));
                report.sent -= before - results.len();
            }
        }
        close_batch(conn, &batch[tried..], &results, now, clock)?;
        if sending.down {
            report.relay_hung |= sending.hung;
            return Ok(false);
        }
        if tried < batch.len() && !lease_out {
            report.more_waiting |= out_of_time();
            return Ok(false);
        }
    }
    Ok(false)
}

/// An immediate transaction on a shared connection: the outbox steps read
/// before they write, and a deferred transaction that another process's
/// write overtook between its read and its write fails at once with
/// "database is locked" (the busy timeout cannot help it); an immediate
/// one waits for the write lock up front, as the inbox's groups do.
fn immediate(conn: &Connection) -> Result<rusqlite::Transaction<'_>, ServerError> {
    Ok(rusqlite::Transaction::new_unchecked(
        conn,
        rusqlite::TransactionBehavior::Immediate,
    )?)
}

/// Claim a batch of due outbox mails until `lease`, in one transaction.
pub(super) fn claim_batch(
    conn: &Connection,
    now: chrono::DateTime<chrono::Utc>,
    lease: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<store::OutboxMail>, ServerError> {
    let tx = immediate(conn)?;
    let mut claimed = Vec::new();
    for row in store::due_mail_first(&tx, now, SEND_BATCH)? {
        if store::claim(&tx, row.id, now, lease)? {
            claimed.push(row);
        }
    }
    tx.commit()?;
    Ok(claimed)
}

/// In one transaction: record the `results` of a batch not recorded yet,
/// and make its mails claimed but not tried (stopped, or the transport is
/// down) due again now, not only once the claim runs out.
pub(super) fn close_batch(
    conn: &Connection,
    untried: &[store::OutboxMail],
    results: &[(i64, SendResult)],
    now: chrono::DateTime<chrono::Utc>,
    clock: &dyn Clock,
) -> Result<(), ServerError> {
    let tx = immediate(conn)?;
    let done_at = clock.now();
    for row in untried {
        store::unclaim(&tx, row.id, now)?;
    }
    for (id, result) in results {
        record(&tx, *id, result, done_at)?;
    }
    tx.commit()?;
    Ok(())
}

/// What [`send_batches`] sends with, and what it learnt of the transport.
struct Sending<'a> {
    config: &'a Config,
    stop: &'a AtomicBool,
    /// The From of every mail.
    from: String,
    /// A body longer than this is given up, never sent.
    too_large: usize,
    /// Temporary failures in a row (reset by a mail accepted).
    temporary_in_a_row: u32,
    /// The key of the Message-IDs made from outbox rows.
    message_id_key: Vec<u8>,
    /// [`DOWN_AFTER_FAILURES`] in a row, or one that hung: the transport
    /// is down, and the rest is left for a later pass.
    down: bool,
    /// A send failed only after [`HUNG_SEND`] or more.
    hung: bool,
}

impl Sending<'_> {
    /// Send one outbox mail: what became of it, or `None` when its send
    /// was abandoned for the stop (not tried: due again at the next start).
    fn send(
        &mut self,
        sender: &mut dyn Sender,
        row: &store::OutboxMail,
        now: chrono::DateTime<chrono::Utc>,
        report: &mut PassReport,
    ) -> Option<SendResult> {
        use crate::limits::log_field;
        if row.mail.body.len() > self.too_large {
            let e = format!(
                "the mail is {} bytes long, more than this server sends",
                row.mail.body.len()
            );
            error!(id = row.id, error = %e, "outbox mail given up");
            report.send_failures += 1;
            return Some(SendResult::GivenUp(e));
        }
        // A board mail keeps the Message-ID of its reply token.
        let id = match &row.message_id {
            Some(own) => mail::MessageId::Own(own),
            None => mail::MessageId::Row(row.id, &self.message_id_key),
        };
        let form = mail::MailForm::of_row(row.html, row.picture.as_deref());
        let message = match mail::build_message_in_form(
            &row.mail,
            id,
            form,
            &self.from,
            row.created_at.into(),
        ) {
            Ok(message) => message,
            Err(e) => {
                error!(id = row.id, to = %log_field(&row.mail.to), error = %e, "outbox mail cannot be built; given up");
                report.send_failures += 1;
                return Some(SendResult::GivenUp(e.to_string()));
            }
        };
        let began = Instant::now();
        let sent = sender.send_or_stop(&message, self.stop);
        if sent.as_ref().is_err_and(|e| !e.is_permanent()) && began.elapsed() >= HUNG_SEND {
            // A refusal or a 4xx comes back at once; this was a timeout,
            // or a relay too slow to wait for: no more mail to it now.
            warn!(
                id = row.id,
                waited_ms = u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX),
                "the relay hangs; no more mail is sent to it in this pass"
            );
            self.hung = true;
            self.down = true;
        }
        match sent {
            Ok(()) => {
                self.temporary_in_a_row = 0;
                report.sent += 1;
                info!(id = row.id, to = %log_field(&row.mail.to), subject = %log_field(&row.log_subject()), "mail sent");
                Some(SendResult::Accepted)
            }
            Err(e) if self.stop.load(Ordering::SeqCst) && !e.is_permanent() => {
                // Abandoned for the stop: not tried, due again at the
                // next start.
                info!(id = row.id, error = %e, "send abandoned to stop");
                None
            }
            Err(e) => Some(self.failed(row, &e, now, report)),
        }
    }

    /// A send that failed: given up, or tried again after the retry
    /// policy's delay.
    fn failed(
        &mut self,
        row: &store::OutboxMail,
        e: &mail::SendError,
        now: chrono::DateTime<chrono::Utc>,
        report: &mut PassReport,
    ) -> SendResult {
        use crate::limits::log_field;
        report.send_failures += 1;
        let age = (now - row.created_at).to_std().unwrap_or_default();
        match self
            .config
            .retry
            .policy()
            .after_failure(e, row.attempts + 1, age)
        {
            Retry::GiveUp => {
                error!(id = row.id, to = %log_field(&row.mail.to), error = %e, "mail given up");
                SendResult::GivenUp(e.to_string())
            }
            Retry::After(delay) => {
                let next = now + chrono::Duration::from_std(delay).unwrap_or_default();
                warn!(id = row.id, to = %log_field(&row.mail.to), error = %e, retry_in = ?delay, "mail not sent; will retry");
                // One recipient's 4xx must not hold up the others, but
                // several failures in a row mean the transport is down:
                // leave the rest for a later pass.
                self.temporary_in_a_row += 1;
                self.down |= self.temporary_in_a_row >= DOWN_AFTER_FAILURES;
                SendResult::Retry(next, e.to_string())
            }
        }
    }
}

/// Send the due outbox mail now (after `process` and `tick`), when the
/// configured transport opens; otherwise it waits in the outbox for the
/// next pass, and a warning is logged.
pub(crate) fn send_outbox_now(
    config: &Config,
    clock: &dyn Clock,
    conn: &Connection,
) -> Result<(), ServerError> {
    let stop = AtomicBool::new(false);
    let mut report = PassReport::default();
    match mail::open_sender(&config.outbox) {
        Ok(mut sender) => drain_outbox(config, clock, conn, sender.as_mut(), &stop, &mut report),
        Err(e) => {
            warn!(error = %e, "replies stay in the outbox");
            Ok(())
        }
    }
}

/// Temporary send failures in a row after which a pass stops sending.
pub(super) const DOWN_AFTER_FAILURES: u32 = 3;

/// Outbox mails claimed and sent at a time.
const SEND_BATCH: u32 = 100;

/// A send that fails only after this long hangs (a timeout, or a relay
/// too slow to wait for): the pass sends no more (a refusal or a 4xx
/// comes back within milliseconds).
pub(crate) const HUNG_SEND: Duration = Duration::from_secs(1);
