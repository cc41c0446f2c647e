//! One pass of the server's work, and the loop that repeats it.
//!
//! A pass first sends what earlier passes committed, then reads the inbox
//! oldest first and hands each mail to the server; only after the server's
//! transaction committed is the mail marked done in the inbox (and logged),
//! so a crash re-reads rather than loses (and the recorded Message-ID makes
//! re-reading harmless). The due outbox rows are sent after each batch,
//! each marked sent only after the transport accepted it, and the timers
//! run. A pass of `serve` does each step for seconds at most ([`Pace`]),
//! so under steady mail the timers, a reload and `status` keep their time.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use tracing::{error, info, warn};

use crate::clock::Clock;
use crate::config::Config;
use crate::mail::{self, Done, Inbox, Retry, Sender};
use crate::quarantine::{self, Verdict};
use crate::server::{MailOutcome, Processed, Server, ServerError};
use crate::store;

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
    /// A send failed only after [`HUNG_SEND`] or more: the relay hangs, and
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

/// What became of one inbound message taken from an inbox or the pipe.
#[derive(Debug)]
pub(crate) enum Taken {
    /// The server committed it.
    Done,
    /// It failed inside the server; `verdict` says whether it is tried
    /// again or quarantined (`None`: not even the failure could be
    /// recorded, so it stays where it is).
    Failed {
        error: ServerError,
        verdict: Option<Verdict>,
    },
}

/// Handle one raw inbound message (each mail of a pass, and `process`); a
/// failure is counted and may quarantine the mail (see [`quarantine`]).
/// `size` is the whole mail's: `raw` holds only its header when it is over
/// `[limits] max_message_bytes`. Its attempt is committed before it runs,
/// so a mail that kills the process is counted (see [`quarantine`]); one
/// that did so too often is quarantined here without running.
pub(crate) fn take_mail(
    server: &Server<'_>,
    conn: &mut Connection,
    raw: &[u8],
    size: usize,
) -> Taken {
    let key = quarantine::mail_key(raw);
    // Checked, and its attempt begun (alone), in one transaction.
    let begun =
        quarantine::check_attempts(server, conn, &[(key.as_str(), raw)]).map(|before| match before
            .first()
        {
            Some(quarantine::Before::Quarantined { id }) => Some(*id),
            _ => None,
        });
    match begun {
        Ok(Some(id)) => {
            return Taken::Failed {
                error: ServerError::Stopped,
                verdict: Some(Verdict::Quarantined { id }),
            }
        }
        Ok(None) => {}
        Err(e) => {
            return Taken::Failed {
                error: e.into(),
                verdict: None,
            }
        }
    }
    debug_abort(raw);
    let envelope = server.envelope_of(raw);
    let handled = (|| -> Result<MailOutcome, ServerError> {
        // Passwords are checked and hashed before the write lock is taken.
        server.prepare_mail(conn, &envelope, size)?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let processed = handle_one(server, &tx, &envelope, raw, size)?;
        store::end_attempt(&tx, &key)?;
        store::record_mail_handled(&tx, server.clock.now())?;
        tx.commit()?;
        log_mail(&envelope, &processed);
        Ok(processed.outcome)
    })();
    match handled {
        Ok(_) => Taken::Done,
        Err(error) => {
            let subject = crate::server::log_subject(&envelope.subject);
            let verdict =
                match quarantine::note_failure(server, conn, &envelope, &subject, raw, &error) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        error!(error = %e, "cannot record a failing mail; it stays in the inbox");
                        None
                    }
                };
            if let Err(e) = store::end_attempt(conn, &key) {
                warn!(error = %e, "cannot forget the attempt at a failed mail");
            }
            Taken::Failed { error, verdict }
        }
    }
}

/// A test hook of debug builds only: the process aborts, as if killed,
/// on a mail that holds the text of `PBMCHESS_TEST_ABORT_ON` (the tests of
/// crash counting use it; release builds have no such hook).
#[cfg(debug_assertions)]
fn debug_abort(raw: &[u8]) {
    if let Some(marker) = std::env::var_os("PBMCHESS_TEST_ABORT_ON") {
        let marker = marker.as_encoded_bytes();
        if !marker.is_empty() && raw.windows(marker.len()).any(|w| w == marker) {
            std::process::abort();
        }
    }
}

#[cfg(not(debug_assertions))]
fn debug_abort(_: &[u8]) {}

/// The envelope of an inbound message: the server's own address is one
/// that is never answered.
/// One inbound mail in the transaction `tx`: its sender's bounces
/// forgotten, the server's work, and a bounce it is noted. On an error the
/// caller rolls back.
fn handle_one(
    server: &Server<'_>,
    tx: &Connection,
    envelope: &mail::Envelope,
    raw: &[u8],
    size: usize,
) -> Result<Processed, ServerError> {
    clear_bounces_of(tx, envelope)?;
    let processed = server.handle_mail_within(tx, envelope, size)?;
    note_bounce(server, tx, &processed.outcome, raw)?;
    Ok(processed)
}

/// Mail from an address that may be answered shows the address is read:
/// see [`crate::server::bounces::clear`].
fn clear_bounces_of(conn: &Connection, envelope: &mail::Envelope) -> Result<(), ServerError> {
    crate::server::bounces::clear(conn, envelope)
}

/// A mail the server ignored may be a bounce of its own mail: see
/// [`crate::server::bounces::note`].
fn note_bounce(
    server: &Server<'_>,
    conn: &Connection,
    outcome: &MailOutcome,
    raw: &[u8],
) -> Result<(), ServerError> {
    crate::server::bounces::note(server, conn, outcome, raw)
}

/// The log line of one processed mail. Every field is a plain string or
/// number (`--log-format json` indexes them): `outcome` is the outcome's
/// name in lower case (`answered`, `ignored`, `duplicate`, ...), with
/// `commands` and `refused` when answered and `reason` when ignored.
fn log_mail(envelope: &mail::Envelope, processed: &Processed) {
    use crate::limits::log_field;
    let outcome = &processed.outcome;
    let (commands, refused) = match outcome {
        MailOutcome::Answered { commands, refused } => (Some(*commands), Some(*refused)),
        _ => (None, None),
    };
    let reason = match outcome {
        MailOutcome::Ignored(reason) => Some(log_field(reason)),
        _ => None,
    };
    info!(
        message_id = %log_field(&envelope.message_id),
        sender = %log_field(envelope.sender.as_deref().unwrap_or("-")),
        subject = %log_field(&processed.log_subject),
        outcome = %outcome_name(outcome),
        commands,
        refused,
        reason = reason.as_deref(),
        "mail processed"
    );
}

/// The log line of a mail whose group could not be committed: nothing
/// of it was kept, and it stays in the inbox.
fn log_rolled_back(envelope: &mail::Envelope) {
    use crate::limits::log_field;
    warn!(
        message_id = %log_field(&envelope.message_id),
        sender = %log_field(envelope.sender.as_deref().unwrap_or("-")),
        subject = %log_field(&crate::server::log_subject(&envelope.subject)),
        outcome = "rolled_back",
        "mail not processed"
    );
}

/// The name of an outcome for the log: its variant's name in snake case
/// (`Answered` → `answered`, `TooLarge` → `too_large`).
pub(crate) fn outcome_name(outcome: &MailOutcome) -> String {
    let debug = format!("{outcome:?}");
    let name = debug
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("");
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
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

/// Read the waiting inbound mail, in batches of `FETCH_BATCH`; after
/// each batch the replies it caused are sent, so a long backlog neither
/// waits for its answers nor piles them up. Only mail that was waiting
/// at the first fetch is read ([`Inbox::hold_to_waiting`]): the pass never
/// chases mail that arrives while it reads. Stops when nothing of that is
/// left, when `pace` says so (a stop, a reload, the read slice: then
/// [`PassReport::more_waiting`]), when the inbox cannot be read, or after a
/// batch in which a mail failed (it stays in the inbox for the next pass,
/// which then starts with it). No more is sent once the relay hangs
/// ([`PassReport::relay_hung`]).
pub(crate) fn read_inbox(
    server: &Server<'_>,
    conn: &mut Connection,
    inbox: &mut dyn Inbox,
    sender: Option<&mut dyn Sender>,
    pace: &Pace<'_>,
    report: &mut PassReport,
) -> Result<(), ServerError> {
    let mut sender = sender;
    // Every message handled in this pass: one fetched again (its filing
    // away failed) is no progress, and a batch of those only ends the pass.
    let mut seen = HashSet::new();
    inbox.hold_to_waiting();
    while !pace.interrupted() {
        if pace.reading_over() {
            report.more_waiting = true;
            break;
        }
        let messages = match inbox.fetch(FETCH_BATCH) {
            Ok(m) => m,
            Err(e) => {
                warn!(error = %e, "cannot read the inbox; will try again");
                report.inbox_failed = true;
                report.inbox_error = Some(e.to_string());
                return Ok(());
            }
        };
        let failed_before = report.mails_failed;
        let fresh: Vec<_> = messages
            .into_iter()
            .filter(|m| seen.insert(m.id.clone()))
            .collect();
        let progress = !fresh.is_empty();
        for group in fresh.chunks(GROUP_COMMIT) {
            if pace.reading_over() {
                break;
            }
            read_group(server, conn, inbox, group, pace, report)?;
        }
        if let Some(sender) = sender.as_deref_mut().filter(|_| !report.relay_hung) {
            drain_outbox_paced(server.config, server.clock, conn, sender, pace, report)?;
        }
        if !progress || report.mails_failed > failed_before {
            break;
        }
    }
    Ok(())
}

/// Hand a group of inbound messages to the server in one transaction
/// (group commit: one durable commit for the group, not one per mail),
/// each mail in a savepoint of its own, so a mail that fails is rolled
/// back alone and stays in the inbox while the others commit. Only after
/// the commit are the group's mails filed away in the inbox. A failing
/// commit leaves the whole group in the inbox.
///
/// Before the group runs, its attempts are committed in one small
/// transaction (see [`quarantine`]): a group in which a mail was found to
/// have stopped the process before runs one mail at a time, each attempt
/// its own, and a mail that stopped it too often alone is quarantined. A
/// mail that made the computer think ends its transaction (the mails
/// after it commit in the next), so that a group never holds the database
/// for more than one mail's computer budget.
fn read_group(
    server: &Server<'_>,
    conn: &mut Connection,
    inbox: &mut dyn Inbox,
    group: &[mail::InboundMessage],
    pace: &Pace<'_>,
    report: &mut PassReport,
) -> Result<(), ServerError> {
    let mut readable = Vec::with_capacity(group.len());
    let mut unreadable = Vec::new();
    for message in group {
        match &message.unreadable {
            Some(error) => unreadable.push((message, error)),
            None => readable.push((message, quarantine::mail_key(&message.raw))),
        }
    }
    let checks = readable
        .iter()
        .map(|(m, key)| (key.as_str(), m.raw.as_slice()))
        .collect::<Vec<_>>();
    let before = match quarantine::check_attempts(server, conn, &checks) {
        Ok(before) => before,
        Err(e) => {
            report.mails_failed += readable.len();
            error!(error = %e, "cannot record the attempts of a group of mails; they stay in the inbox");
            readable.clear();
            Vec::new()
        }
    };
    let mut alone = false;
    let mut run = Vec::with_capacity(readable.len());
    for ((message, key), before) in readable.into_iter().zip(before) {
        match before {
            quarantine::Before::Quarantined { id } => {
                report.mails_quarantined += 1;
                if let Err(e) = inbox.mark_done(message, Done::Quarantined) {
                    warn!(id, error = %e, "cannot move a quarantined mail out of the inbox; it will be seen again and quarantined again");
                }
            }
            quarantine::Before::Suspect => {
                alone = true;
                run.push((message, key));
            }
            quarantine::Before::Fresh => run.push((message, key)),
        }
    }
    // Every attempt is begun (check_attempts: alone for a single mail);
    // a group in which a mail stopped the process before runs one mail at
    // a time, each attempt begun again, alone, just before the mail runs.
    let one_by_one = alone && run.len() > 1;
    let mut rest = &run[..];
    while !rest.is_empty() {
        if pace.reading_over() {
            // Left in the inbox for the next pass, their attempts begun
            // but not run: forgotten, so they count as no crash.
            forget_attempts(conn, rest);
            break;
        }
        let slice = if one_by_one {
            if let Err(e) =
                store::begin_attempts(conn, &[rest[0].1.as_str()], true, server.clock.now())
            {
                report.mails_failed += rest.len();
                error!(error = %e, "cannot record the attempt of a mail; it stays in the inbox");
                break;
            }
            &rest[..1]
        } else {
            rest
        };
        let taken = read_slice(server, conn, inbox, slice, pace, report)?;
        rest = &rest[taken.max(1)..];
    }
    quarantine_unreadable(server, conn, inbox, unreadable, report);
    Ok(())
}

/// Forget the attempts of mails begun but not run (the pass ended before
/// them), in one transaction; on a failure they count as one stop each,
/// which only makes the next pass run them alone.
fn forget_attempts(conn: &mut Connection, mails: &[(&mail::InboundMessage, String)]) {
    let forgotten = (|| -> Result<(), ServerError> {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for (_, key) in mails {
            store::end_attempt(&tx, key)?;
        }
        tx.commit()?;
        Ok(())
    })();
    if let Err(e) = forgotten {
        warn!(error = %e, "cannot forget the attempts of mails left for the next pass");
    }
}

/// A file that cannot be read is quarantined at once, without its bytes:
/// reading it again would fail again.
fn quarantine_unreadable(
    server: &Server<'_>,
    conn: &Connection,
    inbox: &mut dyn Inbox,
    unreadable: Vec<(&mail::InboundMessage, &String)>,
    report: &mut PassReport,
) {
    for (message, error) in unreadable {
        match quarantine::unreadable(server, conn, &message.id, error) {
            Ok(id) => {
                report.mails_quarantined += 1;
                if let Err(e) = inbox.mark_done(message, Done::Quarantined) {
                    warn!(id, error = %e, "cannot move an unreadable mail out of the inbox; it will be seen again");
                }
            }
            Err(e) => {
                report.mails_failed += 1;
                error!(error = %e, "cannot record an unreadable mail; it stays in the inbox");
            }
        }
    }
}

/// Run mails of a group (with their attempt keys) in one transaction, up
/// to and with the first that made the computer think (or the last before
/// `pace` ends the reading); commit, then log them, file them away and
/// count the failures. Returns how many mails it took. The log line of
/// each mail is written only once its group committed; of a group whose
/// commit failed each mail is logged as rolled back.
fn read_slice(
    server: &Server<'_>,
    conn: &mut Connection,
    inbox: &mut dyn Inbox,
    slice: &[(&mail::InboundMessage, String)],
    pace: &Pace<'_>,
    report: &mut PassReport,
) -> Result<usize, ServerError> {
    // Of a mail over the size limit only the header was read: the server
    // refuses it by its size, answering from the header. Each mail is
    // parsed once; its passwords are checked and hashed before the write
    // lock is taken.
    let envelopes: Vec<mail::Envelope> = slice
        .iter()
        .map(|(m, _)| server.envelope_of(&m.raw))
        .collect();
    for ((message, _), envelope) in slice.iter().zip(&envelopes) {
        if let Err(e) = server.prepare_mail(conn, envelope, message.size) {
            warn!(error = %e, "cannot check or hash the passwords of a mail before its transaction");
        }
    }
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let mut handled = Vec::with_capacity(slice.len());
    let mut failed = Vec::new();
    let mut taken = 0;
    for ((message, key), envelope) in slice.iter().zip(envelopes) {
        // An earlier mail of this group signed up an account this one
        // gives a password for, or changed its password: the group ends
        // before it, and the next prepares it again outside the lock.
        if taken > 0 && !server.prepared_is_current(&tx, &envelope.message_id)? {
            server.forget_prepared(&envelope.message_id);
            break;
        }
        taken += 1;
        debug_abort(&message.raw);
        let result = store::savepoint(&tx, "mail", || {
            handle_one(server, &tx, &envelope, &message.raw, message.size).map_err(InMail::Failed)
        });
        let mut computer_thought = false;
        match result {
            Ok(processed) => {
                computer_thought = processed.computer_thought;
                let done = match processed.outcome {
                    MailOutcome::Ignored(_) | MailOutcome::TooLarge => Done::Ignored,
                    _ => Done::Processed,
                };
                handled.push((*message, envelope, processed, done));
            }
            Err(InMail::Failed(error)) => {
                report.mails_failed += 1;
                failed.push((*message, envelope, error));
            }
            Err(InMail::Savepoint(e)) => return Err(e.into()),
        }
        // Its failure (if any) is counted after the commit, in the
        // inbound_failures row: the attempt is over either way.
        store::end_attempt(&tx, key)?;
        if computer_thought || pace.reading_over() {
            break;
        }
    }
    if !handled.is_empty() {
        store::record_mail_handled(&tx, server.clock.now())?;
    }
    if let Err(e) = tx.commit() {
        report.mails_failed += handled.len();
        error!(error = %e, mails = handled.len(), "a group of mails could not be committed; they stay in the inbox");
        for (_, envelope, _, _) in &handled {
            log_rolled_back(envelope);
        }
        // The process did not die: these attempts count for nothing.
        for (_, key) in &slice[..taken] {
            let _ = store::end_attempt(conn, key);
        }
        return Ok(taken);
    }
    note_failures(server, conn, inbox, failed, report);
    for (message, envelope, processed, done) in handled {
        log_mail(&envelope, &processed);
        report.mails_read += 1;
        if let Err(e) = inbox.mark_done(message, done) {
            // Committed already: reading it again is harmless.
            warn!(error = %e, "cannot mark a processed mail done; it will be seen again and skipped");
        }
    }
    Ok(taken)
}

/// Why a mail's savepoint in a group was rolled back.
enum InMail {
    /// The mail failed: it alone is rolled back and stays in the inbox.
    Failed(ServerError),
    /// The savepoint itself failed: the group stops.
    Savepoint(rusqlite::Error),
}

impl From<rusqlite::Error> for InMail {
    fn from(e: rusqlite::Error) -> Self {
        InMail::Savepoint(e)
    }
}

/// Count the failures of a committed group (each may quarantine its
/// mail), each in a transaction of its own.
fn note_failures(
    server: &Server<'_>,
    conn: &Connection,
    inbox: &mut dyn Inbox,
    failed: Vec<(&mail::InboundMessage, mail::Envelope, ServerError)>,
    report: &mut PassReport,
) {
    for (message, envelope, error) in failed {
        let subject = crate::server::log_subject(&envelope.subject);
        match quarantine::note_failure(server, conn, &envelope, &subject, &message.raw, &error) {
            Ok(Verdict::Quarantined { id }) => {
                report.mails_quarantined += 1;
                if let Err(e) = inbox.mark_done(message, Done::Quarantined) {
                    warn!(id, error = %e, "cannot move a quarantined mail out of the inbox; it will be seen again and quarantined again");
                }
            }
            Ok(Verdict::TryAgain { .. }) => {
                error!(message_id = %crate::limits::log_field(&envelope.message_id), error = %error, "a mail could not be processed; it stays in the inbox");
            }
            Err(e) => {
                error!(error = %e, "cannot record a failing mail; it stays in the inbox");
            }
        }
    }
}

/// What became of one outbox mail the pass tried to send.
enum SendResult {
    Accepted,
    Retry(chrono::DateTime<chrono::Utc>, String),
    GivenUp(String),
}

/// Send every due outbox mail, in batches of `SEND_BATCH`: a batch is
/// claimed in one transaction and sent, each mail on the transport's one
/// connection for the pass ([`Sender::end_pass`] closes it).
///
/// One process sends at a time: the pass first takes the database's
/// [`store::SendLock`]; when another live process holds it, this one sends
/// nothing (the holder sends every due row before it lets go, and looks
/// once more after letting go for rows committed meanwhile). A sender that
/// takes the lock makes the claims of a sender that died due at once
/// ([`store::reclaim_orphans`]), so a crash costs seconds, not the lease.
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
fn claim_batch(
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
fn close_batch(
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
        let form = mail::MailForm::of_row(row.html);
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

/// Forget what `[retention]` no longer keeps: processed Message-IDs, sent
/// outbox mails and reply tokens of past plies older than its days, a
/// bounded number per call (each pass, and `tick`). Logs what it removed.
pub(crate) fn prune(
    config: &Config,
    clock: &dyn Clock,
    conn: &Connection,
) -> Result<(), ServerError> {
    let now = clock.now();
    let days = |n: u32| now - chrono::Duration::days(i64::from(n));
    let keep = &config.retention;
    let store::Pruned {
        processed,
        sent,
        reply_tokens,
    } = store::prune(
        conn,
        days(keep.processed_mail_days),
        days(keep.sent_outbox_days),
        crate::limits::PRUNE_BATCH,
    )?;
    if processed + sent + reply_tokens > 0 {
        info!(processed, sent, reply_tokens, "old mail records pruned");
    }
    prune_inbox(config, conn, now);
    Ok(())
}

/// Processed inbound mail holds passwords in clear: where the inbox files
/// it away, it goes after `[retention] inbox_mail_days` (counted from its
/// delivery; a bounded number per call). A Maildir's `cur/` is pruned at
/// every call; the IMAP processed mailbox (or the seen mail of the IMAP
/// mailbox) once a day, on a connection of its own, by whichever process
/// prunes first that day (the day is recorded in the database). A
/// failure is logged and tried again at the next call (a Maildir) or day
/// (IMAP).
fn prune_inbox(config: &Config, conn: &Connection, now: chrono::DateTime<chrono::Utc>) {
    let before = now - chrono::Duration::days(i64::from(config.retention.inbox_mail_days));
    let batch = crate::limits::PRUNE_BATCH as usize;
    let pruned = match &config.inbox {
        mail::InboxConfig::Maildir { path } => {
            mail::prune_processed_maildir(path, std::time::SystemTime::from(before), batch)
                .map_err(|e| e.to_string())
        }
        mail::InboxConfig::Imap(imap) => match store::notice_due_daily(conn, IMAP_PRUNE_DAY, now) {
            // Once a day: a day's worth of the per-call bound.
            Ok(true) => mail::ImapInbox::new(imap)
                .and_then(|mut inbox| inbox.prune_processed(before, batch * 24))
                .map_err(|e| e.to_string()),
            Ok(false) => Ok(0),
            Err(e) => Err(e.to_string()),
        },
    };
    match pruned {
        Ok(0) => {}
        Ok(mails) => info!(mails, "old processed inbox mail deleted"),
        Err(e) => warn!(error = %e, "old processed inbox mail cannot be deleted"),
    }
}

/// The key under which the day of the last IMAP inbox pruning is kept.
const IMAP_PRUNE_DAY: &str = "retention: IMAP processed mail pruned";

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
const DOWN_AFTER_FAILURES: u32 = 3;

/// Inbound mails fetched at a time (a pass goes on fetching until the
/// inbox is empty; the batch bounds the memory held).
const FETCH_BATCH: usize = 200;

/// Inbound mails handled in one transaction at most (group commit).
const GROUP_COMMIT: usize = 50;

/// Outbox mails claimed and sent at a time.
const SEND_BATCH: u32 = 100;

/// How long a `serve` pass begins inbound mail: then it runs the timers,
/// records itself for `status`, and the next pass begins at once when
/// more is waiting. Under steady mail a pass so ends within seconds (plus
/// the mail in hand), so the timers, a SIGHUP and `status` keep their time.
const READ_SLICE: Duration = Duration::from_secs(2);

/// How long one drain of the outbox in a `serve` pass begins sends: a
/// slow relay holds the reading at most this long per drain (plus the
/// send in hand).
const SEND_SLICE: Duration = Duration::from_secs(2);

/// A send that fails only after this long hangs (a timeout, or a relay
/// too slow to wait for): the pass sends no more (a refusal or a 4xx
/// comes back within milliseconds).
pub(crate) const HUNG_SEND: Duration = Duration::from_secs(1);

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
/// most this much (issue #24: it was a second).
const MIN_PASS_SPACING: Duration = Duration::from_millis(100);

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FixedClock;
    use crate::limits::SEND_LEASE;
    use crate::mail::{Outgoing, SendError};

    /// A transport that fails temporarily for some recipients (or all).
    struct Flaky {
        failing: Vec<&'static str>,
        all_down: bool,
        attempts: Vec<String>,
    }

    impl Sender for Flaky {
        fn send(&mut self, msg: &lettre::Message) -> Result<(), SendError> {
            let to = msg.envelope().to()[0].to_string();
            self.attempts.push(to.clone());
            if self.all_down || self.failing.contains(&to.as_str()) {
                Err(SendError::Temporary("451 try later".into()))
            } else {
                Ok(())
            }
        }
    }

    /// One drain of the outbox at `clock`; what it did.
    fn drain(
        config: &Config,
        clock: &dyn Clock,
        conn: &Connection,
        sender: &mut dyn Sender,
    ) -> PassReport {
        let mut report = PassReport::default();
        drain_outbox(
            config,
            clock,
            conn,
            sender,
            &AtomicBool::new(false),
            &mut report,
        )
        .unwrap();
        report
    }

    fn queued(conn: &Connection, now: chrono::DateTime<chrono::Utc>, to: &[&str]) {
        for t in to {
            store::enqueue(
                conn,
                &Outgoing {
                    to: t.to_string(),
                    subject: "s".into(),
                    body: "b".into(),
                    in_reply_to: None,
                },
                now,
            )
            .unwrap();
        }
    }

    /// lettre's stub transport as our `Sender`: it records what it is given
    /// and answers as it was built to (ok, or an error taken as temporary).
    struct Stub(lettre::transport::stub::StubTransport);

    impl Sender for Stub {
        fn send(&mut self, msg: &lettre::Message) -> Result<(), SendError> {
            use lettre::Transport;
            self.0
                .send(msg)
                .map_err(|e| SendError::Temporary(e.to_string()))
        }
    }

    fn due_at(conn: &Connection, id: i64) -> String {
        conn.query_row(
            "SELECT next_attempt_at FROM outbox WHERE id = ?1",
            [id],
            |r| r.get(0),
        )
        .unwrap()
    }

    #[test]
    fn drained_mail_carries_the_header_rules_and_keeps_its_message_id() {
        let conn = store::open_in_memory().unwrap();
        let clock = FixedClock(chrono::Utc::now());
        let id = store::enqueue(
            &conn,
            &Outgoing {
                to: "bob@x.test".into(),
                subject: "Chess Board 101 bob".into(),
                body: "It is bob's turn.\n".into(),
                in_reply_to: Some("cmd1@players.test".into()),
            },
            clock.0,
        )
        .unwrap();
        let mut config = Config::default();
        config.server.address = "pbm@games.test".into();
        config.server.name = "PBM".into();
        let mut stub = Stub(lettre::transport::stub::StubTransport::new_ok());
        let report = drain(&config, &clock, &conn, &mut stub);
        assert_eq!(report.sent, 1);
        let sent = stub.0.messages();
        assert_eq!(sent.len(), 1);
        let (envelope, raw) = &sent[0];
        assert_eq!(envelope.to()[0].to_string(), "bob@x.test");
        assert_eq!(
            envelope.from().map(|a| a.to_string()).as_deref(),
            Some("pbm@games.test")
        );
        for header in [
            "From: PBM <pbm@games.test>",
            "To: bob@x.test",
            "Subject: Chess Board 101 bob",
            "In-Reply-To: <cmd1@players.test>",
            "References: <cmd1@players.test>",
            "Auto-Submitted: auto-replied",
            "Content-Type: text/plain; charset=utf-8",
            "Date: ",
        ] {
            assert!(raw.contains(header), "{header} in {raw}");
        }
        let message_id = |raw: &str| {
            raw.lines()
                .find(|l| l.starts_with("Message-ID: "))
                .map(str::to_string)
                .unwrap()
        };
        // A crash after the transport took it but before it was marked
        // sent: once the pass's claim runs out, it is sent again, the same mail.
        conn.execute("UPDATE outbox SET sent_at = NULL WHERE id = ?1", [id])
            .unwrap();
        drain(&config, &clock, &conn, &mut stub);
        assert_eq!(
            stub.0.messages().len(),
            1,
            "claimed: not sent again at once"
        );
        let later = FixedClock(clock.0 + chrono::Duration::from_std(SEND_LEASE).unwrap());
        drain(&config, &later, &conn, &mut stub);
        let again = stub.0.messages();
        assert_eq!(message_id(&again[1].1), message_id(raw));
        assert_eq!(again[1].1, *raw);
    }

    #[test]
    fn failed_sends_follow_the_retry_schedule() {
        let conn = store::open_in_memory().unwrap();
        let start = chrono::Utc::now();
        queued(&conn, start, &["a@x"]);
        let config = Config::default();
        let mut stub = Stub(lettre::transport::stub::StubTransport::new_error());
        let mut now = start;
        // 1, 2, 4, 8 minutes after each failure, as the policy says.
        for minutes in [1, 2, 4, 8] {
            let clock = FixedClock(now);
            let report = drain(&config, &clock, &conn, &mut stub);
            assert_eq!(report.send_failures, 1);
            let next = now + chrono::Duration::minutes(minutes);
            assert_eq!(due_at(&conn, 1), crate::store::time_text(next));
            // Not due before then: nothing is tried.
            let early = FixedClock(next - chrono::Duration::seconds(1));
            let report = drain(&config, &early, &conn, &mut stub);
            assert_eq!(report.send_failures, 0);
            now = next;
        }
        assert_eq!(stub.0.messages().len(), 4);
        // After three days of failures the mail is given up.
        let late = FixedClock(start + chrono::Duration::days(4));
        conn.execute(
            "UPDATE outbox SET next_attempt_at = ?1",
            [crate::store::time_text(late.0)],
        )
        .unwrap();
        let report = drain(&config, &late, &conn, &mut stub);
        assert_eq!(report.send_failures, 1);
        assert_eq!(store::pending_count(&conn).unwrap(), 0);
    }

    #[test]
    fn one_recipients_4xx_does_not_hold_up_the_others() {
        let conn = store::open_in_memory().unwrap();
        let clock = FixedClock(chrono::Utc::now());
        queued(&conn, clock.0, &["a@x", "slow@x", "b@x", "c@x"]);
        let mut sender = Flaky {
            failing: vec!["slow@x"],
            all_down: false,
            attempts: vec![],
        };
        let report = drain(&Config::default(), &clock, &conn, &mut sender);
        assert_eq!(report.sent, 3);
        assert_eq!(report.send_failures, 1);
        assert_eq!(store::pending_count(&conn).unwrap(), 1);
    }

    #[test]
    fn a_pass_failed_when_mail_was_not_read_not_when_it_was_not_sent() {
        assert!(!PassReport::default().failed());
        let unsent = PassReport {
            send_failures: 3,
            ..PassReport::default()
        };
        assert!(!unsent.failed(), "the outbox keeps what was not sent");
        let down = PassReport {
            inbox_failed: true,
            ..PassReport::default()
        };
        assert!(down.failed());
        let broken = PassReport {
            mails_read: 2,
            mails_failed: 1,
            ..PassReport::default()
        };
        assert!(broken.failed());
    }

    #[test]
    fn sending_now_drains_the_outbox_or_leaves_it_for_later() {
        let dir = tempfile::tempdir().unwrap();
        let conn = store::open_in_memory().unwrap();
        let clock = FixedClock(chrono::Utc::now());
        queued(&conn, clock.0, &["a@x", "b@x"]);
        // A transport that cannot be opened (SMTP without a host): nothing
        // is lost, and it is no error.
        let mut config = Config {
            outbox: mail::OutboxConfig::Smtp(mail::SmtpConfig {
                url: None,
                host: None,
                port: None,
                tls: mail::SmtpTls::None,
                username: None,
                password: None,
                password_file: None,
                tls_ca_file: None,
                timeout_seconds: 1,
                hello_name: None,
            }),
            ..Config::default()
        };
        send_outbox_now(&config, &clock, &conn).unwrap();
        assert_eq!(store::pending_count(&conn).unwrap(), 2);
        config.outbox = mail::OutboxConfig::Maildir {
            path: dir.path().join("out"),
        };
        send_outbox_now(&config, &clock, &conn).unwrap();
        assert_eq!(store::pending_count(&conn).unwrap(), 0);
        let sent = std::fs::read_dir(dir.path().join("out/new")).unwrap();
        assert_eq!(sent.count(), 2);
    }

    #[test]
    fn a_daemon_opens_the_configured_mail_folders() {
        let dir = tempfile::tempdir().unwrap();
        let config = maildir_config(dir.path());
        let templates = crate::server::templates::Templates::load(None).unwrap();
        let clock = FixedClock(chrono::Utc::now());
        let server = Server::new(&config, &clock, &templates);
        let mut daemon = Daemon::open(server, store::open_in_memory().unwrap()).unwrap();
        assert!(dir.path().join("in/new").is_dir());
        assert!(dir.path().join("out/new").is_dir());
        let report = daemon.pass(&AtomicBool::new(false)).unwrap();
        assert_eq!(report, PassReport::default());
    }

    #[test]
    fn a_failing_mail_in_a_group_is_rolled_back_alone_and_stays_in_the_inbox() {
        let dir = tempfile::tempdir().unwrap();
        let mut inbox = mail::MaildirInbox::open(dir.path().join("in")).unwrap();
        let conn_path = dir.path().join("db.sqlite");
        let mut conn = store::open(&conn_path).unwrap();
        // A board whose stored start cannot be read: loading it is an
        // internal failure (not the player's), which fails the mail.
        store::insert_user(&conn, "a", "h", &["a@x".into()], chrono::Utc::now()).unwrap();
        store::insert_user(&conn, "b", "h", &["b@x".into()], chrono::Utc::now()).unwrap();
        store::insert_board(
            &conn,
            &store::NewBoard {
                game: "chess",
                options: &[],
                start_position: "not a position",
                players: &["a".into(), "b".into()],
                nag_days: None,
                forfeit_days: None,
                total_days: None,
                now: chrono::Utc::now(),
            },
        )
        .unwrap();
        let subjects = ["help", "chess show 101", "help chess", "help commands"];
        for (i, subject) in subjects.iter().enumerate() {
            let raw = format!(
                "From: p{i}@players.test\r\nSubject: {subject}\r\nMessage-ID: <g{i}@players.test>\r\n\r\nhi\r\n"
            );
            std::fs::write(
                dir.path()
                    .join(format!("in/new/{}.M{i}P1.test", 1_700_000_000 + i)),
                raw,
            )
            .unwrap();
        }
        let config = Config::default();
        let templates = crate::server::templates::Templates::load(None).unwrap();
        let clock = FixedClock(chrono::Utc::now());
        let server = Server::new(&config, &clock, &templates);
        let mut report = PassReport::default();
        read_inbox(
            &server,
            &mut conn,
            &mut inbox,
            None,
            &Pace::unhurried(&AtomicBool::new(false)),
            &mut report,
        )
        .unwrap();
        assert_eq!((report.mails_read, report.mails_failed), (3, 1));
        // The three others committed, with their replies; the failing one
        // left nothing behind and waits in new/.
        let answered: i64 = conn
            .query_row("SELECT count(*) FROM processed_mail", [], |r| r.get(0))
            .unwrap();
        assert_eq!(answered, 3);
        let failed: i64 = conn
            .query_row(
                "SELECT count(*) FROM processed_mail WHERE message_id = 'g1@players.test'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(failed, 0);
        assert_eq!(store::pending_count(&conn).unwrap(), 3);
        let waiting: Vec<_> = std::fs::read_dir(dir.path().join("in/new"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(waiting, vec!["1700000001.M1P1.test".to_string()]);
    }

    #[test]
    fn mails_a_pass_has_no_time_for_are_left_with_no_attempt_counted() {
        let dir = tempfile::tempdir().unwrap();
        let mut inbox = mail::MaildirInbox::open(dir.path().join("in")).unwrap();
        for i in 0..3 {
            std::fs::write(
                dir.path()
                    .join(format!("in/new/{}.M{i}P1.test", 1_700_000_000 + i)),
                help_mail(i),
            )
            .unwrap();
        }
        let mut conn = store::open(&dir.path().join("db.sqlite")).unwrap();
        let config = Config::default();
        let templates = crate::server::templates::Templates::load(None).unwrap();
        let clock = FixedClock(chrono::Utc::now());
        let server = Server::new(&config, &clock, &templates);
        let group = inbox.fetch(10).unwrap();
        let stop = AtomicBool::new(false);
        let over = Pace {
            read_until: Some(Instant::now()),
            ..Pace::unhurried(&stop)
        };
        let mut report = PassReport::default();
        read_group(&server, &mut conn, &mut inbox, &group, &over, &mut report).unwrap();
        assert_eq!(report.mails_read, 0);
        let attempts: i64 = conn
            .query_row("SELECT count(*) FROM inbound_attempts", [], |r| r.get(0))
            .unwrap();
        assert_eq!(attempts, 0, "no attempt left open to count as a crash");
        assert_eq!(files(dir.path(), "in/new").len(), 3, "all left for later");
        let mut report = PassReport::default();
        let pace = Pace::unhurried(&stop);
        read_inbox(&server, &mut conn, &mut inbox, None, &pace, &mut report).unwrap();
        assert_eq!((report.mails_read, report.mails_failed), (3, 0));
    }

    /// The default configuration with Maildir folders `in` and `out` under
    /// `dir`.
    fn maildir_config(dir: &std::path::Path) -> Config {
        Config {
            inbox: mail::InboxConfig::Maildir {
                path: dir.join("in"),
            },
            outbox: mail::OutboxConfig::Maildir {
                path: dir.join("out"),
            },
            ..Config::default()
        }
    }

    /// A daemon pass over `mails` (file name, bytes) delivered into a
    /// fresh Maildir inbox; the report, the database and the folder.
    fn pass_over(
        mails: &[(&str, Vec<u8>)],
        prepare: impl FnOnce(&std::path::Path),
    ) -> (PassReport, Connection, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let config = maildir_config(dir.path());
        mail::MaildirInbox::open(dir.path().join("in")).unwrap();
        for (name, raw) in mails {
            std::fs::write(dir.path().join("in/new").join(name), raw).unwrap();
        }
        prepare(dir.path());
        let templates = crate::server::templates::Templates::load(None).unwrap();
        let clock = FixedClock(chrono::Utc::now());
        let server = Server::new(&config, &clock, &templates);
        let conn = store::open(&dir.path().join("db.sqlite")).unwrap();
        let mut daemon = Daemon::open(server, conn).unwrap();
        let report = daemon.pass(&AtomicBool::new(false)).unwrap();
        (report, daemon.conn, dir)
    }

    fn help_mail(i: usize) -> Vec<u8> {
        format!("From: p{i}@players.test\r\nSubject: help\r\nMessage-ID: <h{i}@players.test>\r\n\r\nhi\r\n")
            .into_bytes()
    }

    fn files(dir: &std::path::Path, sub: &str) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(dir.join(sub))
            .map(|rd| {
                rd.map(|e| e.unwrap().file_name().into_string().unwrap())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[cfg(unix)]
    #[test]
    fn an_unreadable_file_is_quarantined_and_the_others_are_answered() {
        use std::os::unix::fs::PermissionsExt;
        let mails = [
            ("1700000001.a", help_mail(1)),
            ("1700000002.b", help_mail(2)),
            ("1700000003.c", help_mail(3)),
        ];
        let (report, conn, dir) = pass_over(&mails, |dir| {
            // A folder where a file should be cannot be read as one
            // (unlike a chmod 000 file, even by root).
            std::fs::remove_file(dir.join("in/new/1700000002.b")).unwrap();
            std::fs::create_dir(dir.join("in/new/1700000002.b.dir")).unwrap();
            let f = dir.join("in/new/1700000002.b");
            std::os::unix::fs::symlink(dir.join("in/new/1700000002.b.dir"), &f).unwrap();
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).ok();
        });
        assert!(!report.failed(), "{report:?}");
        assert_eq!((report.mails_read, report.mails_quarantined), (2, 1));
        assert_eq!(files(dir.path(), "out/new").len(), 2);
        assert!(files(dir.path(), "in/new")
            .iter()
            .all(|f| f.ends_with(".dir")));
        assert_eq!(
            files(dir.path(), "in/.Quarantine/cur"),
            ["1700000002.b:2,F"]
        );
        let listed = crate::quarantine::list(&conn).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].message_id, "unreadable:1700000002.b");
        assert!(listed[0].quarantined_at.is_some());
    }

    #[test]
    fn an_oversized_file_is_refused_from_its_header_without_being_read() {
        let mut big =
            b"From: big@players.test\r\nSubject: help\r\nMessage-ID: <big@players.test>\r\n\r\n"
                .to_vec();
        // A body that would be a command if it were read.
        big.extend(b"chess show 101\r\n".repeat(100_000));
        let mails = [("1700000001.big", big), ("1700000002.b", help_mail(2))];
        let (report, conn, dir) = pass_over(&mails, |_| {});
        assert!(!report.failed(), "{report:?}");
        assert_eq!(report.mails_read, 2);
        let outcome: String = conn
            .query_row(
                "SELECT outcome FROM processed_mail WHERE message_id = 'big@players.test'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(outcome, "too-large");
        let out = files(dir.path(), "out/new");
        assert_eq!(out.len(), 2);
        let refusal = out
            .iter()
            .map(|f| std::fs::read_to_string(dir.path().join("out/new").join(f)).unwrap())
            .find(|m| m.contains("To: big@players.test"))
            .unwrap();
        assert!(
            refusal.contains("1600073 bytes"),
            "the whole size is named: {refusal}"
        );
        assert!(refusal.len() < 4096);
    }

    #[cfg(unix)]
    #[test]
    fn outbox_maildir_files_are_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let (_, _, dir) = pass_over(&[("1700000001.a", help_mail(1))], |_| {});
        let out = files(dir.path(), "out/new");
        assert_eq!(out.len(), 1);
        let mode = std::fs::metadata(dir.path().join("out/new").join(&out[0]))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_transport_that_is_down_is_not_tried_for_every_mail() {
        let conn = store::open_in_memory().unwrap();
        let clock = FixedClock(chrono::Utc::now());
        queued(&conn, clock.0, &["a@x", "b@x", "c@x", "d@x", "e@x"]);
        let mut sender = Flaky {
            failing: vec![],
            all_down: true,
            attempts: vec![],
        };
        let report = drain(&Config::default(), &clock, &conn, &mut sender);
        assert_eq!(sender.attempts.len(), DOWN_AFTER_FAILURES as usize);
        assert_eq!(report.sent, 0);
        assert_eq!(store::pending_count(&conn).unwrap(), 5, "nothing lost");
    }

    /// A transport that checks, at each send, what the database (through
    /// a connection of its own) says of the mails sent before.
    struct Watching {
        db: std::path::PathBuf,
        sent_before_each: Vec<i64>,
        stop_at: Option<usize>,
        calls: usize,
    }

    impl Sender for Watching {
        fn send(&mut self, _msg: &lettre::Message) -> Result<(), SendError> {
            let conn = Connection::open(&self.db).unwrap();
            let sent: i64 = conn
                .query_row(
                    "SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            self.sent_before_each.push(sent);
            Ok(())
        }

        fn send_or_stop(
            &mut self,
            msg: &lettre::Message,
            stop: &AtomicBool,
        ) -> Result<(), SendError> {
            self.calls += 1;
            if self.stop_at == Some(self.calls) {
                stop.store(true, Ordering::SeqCst);
                return Err(SendError::Temporary("stopped".into()));
            }
            self.send(msg)
        }
    }

    fn file_db(dir: &std::path::Path) -> (Connection, std::path::PathBuf) {
        let path = dir.join("db.sqlite");
        (store::open(&path).unwrap(), path)
    }

    #[test]
    fn each_mail_is_recorded_sent_before_the_next_goes_out() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, db) = file_db(dir.path());
        let clock = FixedClock(chrono::Utc::now());
        queued(&conn, clock.0, &["a@x", "b@x", "c@x"]);
        let mut sender = Watching {
            db,
            sent_before_each: vec![],
            stop_at: None,
            calls: 0,
        };
        let report = drain(&Config::default(), &clock, &conn, &mut sender);
        assert_eq!(report.sent, 3);
        // A crash during the third send would send only it again.
        assert_eq!(sender.sent_before_each, vec![0, 1, 2]);
        let sync: i64 = conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2, "FULL again after the pass");
    }

    #[test]
    fn claims_left_by_a_dead_sender_are_sent_at_once_by_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, _) = file_db(dir.path());
        let clock = FixedClock(chrono::Utc::now());
        queued(&conn, clock.0, &["a@x", "b@x"]);
        // A sender claimed both for ten minutes and died (its lock went
        // with it).
        for id in [1, 2] {
            let until = clock.0 + chrono::Duration::minutes(10);
            assert!(store::claim(&conn, id, clock.0, until).unwrap());
        }
        let mut stub = Stub(lettre::transport::stub::StubTransport::new_ok());
        let report = drain(&Config::default(), &clock, &conn, &mut stub);
        assert_eq!(report.sent, 2);
        assert_eq!(store::pending_count(&conn).unwrap(), 0);
    }

    #[test]
    fn nothing_is_sent_while_another_process_holds_the_send_lock() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, db) = file_db(dir.path());
        let clock = FixedClock(chrono::Utc::now());
        queued(&conn, clock.0, &["a@x", "b@x"]);
        // Another open file description of the lock: as another process.
        let other = Connection::open(&db).unwrap();
        let held = match store::SendLock::try_take(&other) {
            store::SendLockState::Taken(lock) => lock,
            state => panic!("{state:?}"),
        };
        let lock_file = format!("{}.send-lock", db.display());
        assert!(std::path::Path::new(&lock_file).exists());
        let mut stub = Stub(lettre::transport::stub::StubTransport::new_ok());
        let report = drain(&Config::default(), &clock, &conn, &mut stub);
        assert_eq!(report.sent, 0);
        let claimed: i64 = conn
            .query_row("SELECT count(*) FROM outbox WHERE claimed = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(claimed, 0, "not even claimed");
        drop(held);
        let report = drain(&Config::default(), &clock, &conn, &mut stub);
        assert_eq!(report.sent, 2);
    }

    /// Another process (a cron `poll`, `process`) writes while a claim
    /// or a record runs: it waits for the write lock up front, and never
    /// fails as a deferred transaction that read before the other's
    /// commit and then writes does ("database is locked").
    #[test]
    fn the_outbox_steps_wait_for_a_writer_and_do_not_fail_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, db) = file_db(dir.path());
        conn.busy_timeout(Duration::from_secs(10)).unwrap();
        let clock = FixedClock(chrono::Utc::now());
        queued(&conn, clock.0, &["a@x", "b@x"]);
        let writer = |db: std::path::PathBuf| {
            let other = Connection::open(db).unwrap();
            other.execute_batch("BEGIN IMMEDIATE").unwrap();
            store::record_pass(&other, clock.0, None).unwrap();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                other.execute_batch("COMMIT").unwrap();
            })
        };
        let lease = clock.0 + chrono::Duration::minutes(10);
        let busy = writer(db.clone());
        let claimed = claim_batch(&conn, clock.0, lease).unwrap();
        busy.join().unwrap();
        assert_eq!(claimed.len(), 2);
        let busy = writer(db);
        let results = [(1, SendResult::Accepted), (2, SendResult::Accepted)];
        close_batch(&conn, &[], &results, clock.0, &clock).unwrap();
        busy.join().unwrap();
        assert_eq!(store::pending_count(&conn).unwrap(), 0);
    }

    #[test]
    fn a_send_abandoned_for_a_stop_is_not_counted_as_an_attempt() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, db) = file_db(dir.path());
        let clock = FixedClock(chrono::Utc::now());
        queued(&conn, clock.0, &["a@x", "b@x", "c@x"]);
        let mut sender = Watching {
            db,
            sent_before_each: vec![],
            stop_at: Some(2),
            calls: 0,
        };
        let stop = AtomicBool::new(false);
        let mut report = PassReport::default();
        drain_outbox(
            &Config::default(),
            &clock,
            &conn,
            &mut sender,
            &stop,
            &mut report,
        )
        .unwrap();
        assert_eq!((report.sent, report.send_failures), (1, 0));
        // The two left are due at once, untried, unclaimed.
        let due = store::due_mail(&conn, clock.0).unwrap();
        assert_eq!(due.iter().map(|m| m.id).collect::<Vec<_>>(), vec![2, 3]);
        assert!(due.iter().all(|m| m.attempts == 0));
    }
}
