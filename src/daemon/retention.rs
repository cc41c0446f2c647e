//! Retention: what `[retention]` no longer keeps is deleted, a bounded
//! number at each pass.

use rusqlite::Connection;
use tracing::{info, warn};

use crate::clock::Clock;
use crate::config::Config;
use crate::mail;
use crate::server::ServerError;
use crate::store;

/// Forget what `[retention]` no longer keeps: processed Message-IDs, sent
/// outbox mails and reply tokens of past plies older than its days (and
/// once-a-day notices' records older than a day), a
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
        notices,
    } = store::prune(
        conn,
        days(keep.processed_mail_days),
        days(keep.sent_outbox_days),
        now,
        crate::limits::PRUNE_BATCH,
    )?;
    if processed + sent + reply_tokens + notices > 0 {
        info!(
            processed,
            sent, reply_tokens, notices, "old mail records pruned"
        );
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
