//! Inbound mail: each mail handed to the server in a transaction (groups
//! of them committed together), then filed away in the inbox; failures
//! counted, and a mail that fails too often quarantined.

use std::collections::HashSet;

use rusqlite::Connection;
use tracing::{error, info, warn};

use super::outbox::drain_outbox_paced;
use super::{Pace, PassReport};
use crate::mail::{self, Done, Inbox, Sender};
use crate::quarantine::{self, Verdict};
use crate::server::{MailOutcome, Processed, Server, ServerError};
use crate::store;

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
pub(super) fn read_group(
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

/// Inbound mails fetched at a time (a pass goes on fetching until the
/// inbox is empty; the batch bounds the memory held).
const FETCH_BATCH: usize = 200;

/// Inbound mails handled in one transaction at most (group commit).
const GROUP_COMMIT: usize = 50;
