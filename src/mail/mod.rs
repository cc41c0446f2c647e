//! Mail at the edges: reading inbound messages into [`Envelope`]s, deciding
//! which mail must never be answered, extracting the player's comment, and
//! sending [`Outgoing`] mail from the outbox.
//!
//! Pure parts ([`parse_envelope`], [`extract_comment`], [`html_to_text`],
//! [`build_message`], [`next_attempt_delay`]) are separate from the I/O
//! parts (the [`Inbox`] and [`Sender`] implementations).

mod config;
mod imap;
mod inbox;
mod outbound;
mod parse;
mod text;
mod transports;

pub use config::{
    open_inbox, open_sender, ImapConfig, ImapTls, InboxConfig, OutboxConfig, Secret, SmtpConfig,
    SmtpTls,
};
pub use imap::ImapInbox;
pub use inbox::{maildir_flags, Done, InboundMessage, Inbox, MaildirInbox};
pub use outbound::{
    build_message, next_attempt_delay, outgoing_message_id, retry_after_failure, MaildirOutbox,
    Retry, SendError, Sender, GIVE_UP_AFTER, RETRY_FIRST_DELAY, RETRY_MAX_DELAY,
};
pub use parse::parse_envelope;
pub use text::{decode_entities, extract_comment, html_to_text};
pub use transports::{SendmailOutbox, SmtpOutbox};

use std::path::{Path, PathBuf};

/// A failure of an inbox or of opening a mail transport.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("IMAP: {0}")]
    Imap(String),
    #[error("mail configuration: {0}")]
    Config(String),
    #[error("{0}")]
    Other(String),
}

impl MailError {
    pub(crate) fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        MailError::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }
}

/// One inbound message as the server needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// The Message-ID without angle brackets, or `hash:<hex>` of the raw
    /// bytes when the mail has none. Recorded so a mail is applied once.
    pub message_id: String,
    /// The sender's address (Reply-To if present, else From), lower-cased
    /// as a whole; `None` when the mail has no usable sender.
    pub sender: Option<String>,
    pub subject: String,
    /// The plain-text body (HTML-only mail turned into text).
    pub body: String,
    /// The player's comment: the body without quoted text, the `On … wrote:`
    /// line before it, or the signature.
    pub comment: String,
    /// Why this mail must never be answered (auto-reply, bounce, list, our
    /// own address, no sender), or `None` when it may be answered.
    pub never_answer: Option<String>,
}

/// One mail the server wants to send, as stored in the outbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    pub to: String,
    pub subject: String,
    pub body: String,
    /// Message-ID (without brackets) of the mail that caused this one.
    pub in_reply_to: Option<String>,
}
