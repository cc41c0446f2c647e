//! Opening the configured inbox and outbox: the one place that knows every
//! transport.

use super::config::{InboxConfig, OutboxConfig};
use super::imap::ImapInbox;
use super::inbox::{Inbox, MaildirInbox};
use super::outbound::{MaildirOutbox, Sender};
use super::transports::{SendmailOutbox, SmtpOutbox};
use super::MailError;

/// Opens the configured inbox. A Maildir is created if missing; an IMAP
/// inbox connects lazily on the first fetch (so a server that is down at
/// start only delays mail), but its password is read now.
pub fn open_inbox(config: &InboxConfig) -> Result<Box<dyn Inbox>, MailError> {
    Ok(match config {
        InboxConfig::Maildir { path } => Box::new(MaildirInbox::open(path)?),
        InboxConfig::Imap(imap) => Box::new(ImapInbox::new(imap)?),
    })
}

/// Opens the configured transport. Nothing is connected yet.
pub fn open_sender(config: &OutboxConfig) -> Result<Box<dyn Sender>, MailError> {
    Ok(match config {
        OutboxConfig::Maildir { path } => Box::new(MaildirOutbox::open(path)?),
        OutboxConfig::Smtp(smtp) => Box::new(SmtpOutbox::new(smtp)?),
        OutboxConfig::Sendmail {
            command,
            timeout_seconds,
        } => Box::new(SendmailOutbox::with_timeout(
            command,
            std::time::Duration::from_secs(*timeout_seconds),
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_creates_default_maildirs() {
        let tmp = tempfile::tempdir().unwrap();
        let inbox = InboxConfig::Maildir {
            path: tmp.path().join("in"),
        };
        let outbox = OutboxConfig::Maildir {
            path: tmp.path().join("out"),
        };
        open_inbox(&inbox).unwrap();
        open_sender(&outbox).unwrap();
        assert!(tmp.path().join("in/new").is_dir());
        assert!(tmp.path().join("out/new").is_dir());
    }
}
