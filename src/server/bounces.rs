//! Bounces of the server's own mail: which count, when an address is
//! stopped, and how its player learns of it. The DSN itself is read by
//! [`crate::mail::bounce::hard_bounce`]; the counts are kept in
//! `crate::store` (`count_bounce`, `clear_bounces`).
//!
//! Rulings:
//!
//! - A bounce counts only when the original Message-ID it quotes is one the
//!   server sent to that very recipient. Every such id is unpredictable: a
//!   board mail's carries its random reply token; every other mail's is made
//!   from its outbox row with a keyed hash whose key never leaves the
//!   database ([`crate::mail::outgoing_message_id`]), and a resend of a row
//!   keeps it. Only the recipient's mail system sees it.
//! - A bounce counts once per original mail: quoting one id again (or a
//!   second DSN for it) changes nothing.
//! - An address is stopped only on bounces of `[accounts]
//!   bounces_before_stop` distinct mails, the first and the last of them
//!   more than a day apart, with no delivery accepted in between: the relay
//!   accepting a later mail to the address that did not bounce, or mail
//!   coming from the address (after which a bounce of a mail queued before
//!   it counts for nothing).
//! - Mail from a stopped address ends its stop; the next mail the server
//!   queues to it says since when it was sent nothing. `pbmchess status`
//!   lists stopped addresses and those with bounces counted.

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use tracing::{info, warn};

use super::{MailOutcome, Server, ServerError};
use crate::{mail, store};

/// The least time between the first and the last bounce of a run that
/// stops an address.
fn stop_span() -> chrono::Duration {
    chrono::Duration::days(1)
}

/// Mail from an address that may be answered (not a bounce, not an
/// auto-reply) shows the address is read: its bounces are forgotten, and a
/// stopped address gets mail again (before the server queues its answers).
pub(crate) fn clear(conn: &Connection, envelope: &mail::Envelope) -> Result<(), ServerError> {
    if envelope.never_answer.is_none() {
        if let Some(sender) = &envelope.sender {
            if store::clear_bounces(conn, sender)? {
                info!(address = %crate::limits::log_field(sender), "mail from an address that bounced: it gets mail again");
            }
        }
    }
    Ok(())
}

/// A mail the server ignored may be a bounce of its own mail: when it is a
/// DSN that quotes the Message-ID of a mail the server sent to the failed
/// recipient, that bounce is counted (module doc). Anything else (a forged
/// DSN, one of mail pruned long ago) counts for nothing.
pub(crate) fn note(
    server: &Server<'_>,
    conn: &Connection,
    outcome: &MailOutcome,
    raw: &[u8],
) -> Result<(), ServerError> {
    if !matches!(outcome, MailOutcome::Ignored(_)) {
        return Ok(());
    }
    let Some(bounce) = mail::bounce::hard_bounce(raw) else {
        return Ok(());
    };
    let Some(id) = bounce.original_message_id.as_deref() else {
        return Ok(());
    };
    let Some(row) = sent_to(server, conn, id, &bounce.recipient)? else {
        return Ok(());
    };
    let now = server.clock.now();
    let run = store::count_bounce(conn, &bounce.recipient, row, now)?;
    let address = crate::limits::log_field(&bounce.recipient);
    if !run.new {
        info!(address = %address, "a bounce of a mail counted before: counted once");
        return Ok(());
    }
    let limit = server.config.accounts.bounces_before_stop;
    if stops(limit, run.bounces, run.first_at, run.last_at) {
        store::stop_address(conn, &bounce.recipient, now)?;
        warn!(address = %address, bounces = run.bounces, "address bounced too often: it gets no more mail until mail comes from it");
    } else {
        info!(address = %address, bounces = run.bounces, "mail to an address bounced");
    }
    Ok(())
}

/// Whether a run of `bounces` distinct mails bounced from `first` to
/// `last` stops the address (`limit` 0 never does).
fn stops(
    limit: u32,
    bounces: u32,
    first: Option<DateTime<Utc>>,
    last: Option<DateTime<Utc>>,
) -> bool {
    match (first, last) {
        (Some(first), Some(last)) => limit > 0 && bounces >= limit && last - first > stop_span(),
        _ => false,
    }
}

/// The outbox row of the mail the server sent with Message-ID `id` to
/// `recipient`, if it did.
fn sent_to(
    server: &Server<'_>,
    conn: &Connection,
    id: &str,
    recipient: &str,
) -> Result<Option<i64>, ServerError> {
    let Some((row, out, own_id)) = store::outbox_mail_for_id(conn, id)? else {
        return Ok(None);
    };
    let ours = match own_id {
        // A token's id is kept hashed once sent (see `forget_secrets`).
        Some(own) => own == id || store::message_id_at_rest(id).is_some_and(|rest| own == rest),
        None => {
            let key = store::message_id_key(conn)?;
            mail::outgoing_message_id(&out, row, server.config.server.domain(), &key) == id
        }
    };
    Ok((ours && out.to.trim().eq_ignore_ascii_case(recipient)).then_some(row))
}

/// `body` for `to`, with the notice owed to an address whose stop by its
/// bounces ended (taken once; see `store::take_bounce_notice`).
pub(crate) fn with_stop_notice(
    conn: &Connection,
    to: &str,
    body: String,
) -> Result<String, ServerError> {
    let Some((bounces, stopped_at)) = store::take_bounce_notice(conn, to)? else {
        return Ok(body);
    };
    Ok(format!(
        "{}\n\n{}\n",
        body.trim_end(),
        stop_notice(bounces, stopped_at)
    ))
}

/// What the player of a stopped address is told once it gets mail again.
fn stop_notice(bounces: u32, stopped_at: DateTime<Utc>) -> String {
    format!(
        "Note: mail to this address bounced as undeliverable ({bounces} mails),\n\
         so from {} the server sent it nothing until\n\
         mail came from it again: what it had for you meanwhile was not sent.",
        stopped_at.format("%Y-%m-%d %H:%M UTC")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: i64) -> Option<DateTime<Utc>> {
        Some(chrono::DateTime::UNIX_EPOCH + chrono::Duration::hours(h))
    }

    #[test]
    fn a_stop_needs_enough_mails_over_more_than_a_day() {
        assert!(stops(5, 5, at(0), at(25)));
        assert!(!stops(5, 5, at(0), at(24)));
        assert!(!stops(5, 4, at(0), at(48)));
        assert!(!stops(0, 50, at(0), at(48)));
        assert!(!stops(5, 5, None, None));
    }

    #[test]
    fn the_stop_notice_fits_78_columns() {
        let text = stop_notice(u32::MAX, at(0).unwrap());
        assert!(text.lines().all(|l| l.chars().count() <= 78), "{text}");
    }
}
