//! Mail at the edges: reading inbound messages into [`Envelope`]s, deciding
//! which mail must never be answered, extracting the player's comment, and
//! sending [`Outgoing`] mail from the outbox.
//!
//! Pure parts ([`parse_envelope`], `extract_comment`, `html_to_text`,
//! [`build_message`], the retry policy) are
//! separate from the I/O parts (the [`Inbox`] and [`Sender`]
//! implementations).
//!
//! The files, arrows pointing one way: `open` turns the config into an
//! [`Inbox`] or a [`Sender`] and is the one file that knows every
//! transport: `inbox` (the trait, Maildir), `imap`, `outbound` (the trait,
//! message building, retries, the Maildir outbox) and `transports` (SMTP
//! through our own client in `smtp`, sendmail). `imap` and `transports` read their settings from `config`
//! (the `[inbox]` and `[outbox]` sections) and share `connect` (password,
//! extra CA certificates, the loopback check). `parse`, `html_text` and
//! `comment` turn inbound mail into an [`Envelope`].
//!
//! # The daemon's use
//!
//! ```no_run
//! # use pbmchess::mail::*;
//! # use std::time::{Duration, SystemTime};
//! # fn commit(_: &Envelope) -> Vec<(i64, Outgoing)> { vec![] }
//! # fn main() -> Result<(), MailError> {
//! let own = vec!["chess@example.org".to_string()];
//! let key = [0u8; 32]; // the server's Message-ID key (`store::message_id_key`)
//! let mut inbox = open_inbox(&InboxConfig::default())?;
//! let mut sender = open_sender(&OutboxConfig::default())?;
//! for msg in inbox.fetch(100)? {
//!     let env = parse_envelope(&msg.raw, &own);
//!     if env.never_answer.is_some() {
//!         // log env.never_answer, then file it away
//!         inbox.mark_done(&msg, Done::Ignored)?;
//!         continue;
//!     }
//!     let rows = commit(&env); // server: one transaction, replies into the outbox
//!     inbox.mark_done(&msg, Done::Processed)?; // only after the commit
//!     for (row_id, out) in rows {
//!         // `date`: the row's creation time, so a resend is the same mail
//!         match build_message(&out, row_id, &key, "PBM Chess <chess@example.org>", SystemTime::now())
//!             .and_then(|m| sender.send(&m))
//!         {
//!             Ok(()) => { /* mark the row sent */ }
//!             // The retry policy says when to try again, or to give up.
//!             Err(e) => { /* next attempt later, or mark the row failed, log e */ }
//!         }
//!     }
//! }
//! inbox.wait_for_mail(Duration::from_secs(60))?;
//! # Ok(()) }
//! ```
//!
//! # Rulings
//!
//! - Sender: From's address, lower-cased as a whole; `Reply-To` never
//!   names who is asking (anyone may write anyone's address there), and
//!   answers go to From too. Two From headers, or a From of several
//!   addresses: never answered. `Authentication-Results` are kept for
//!   `[security] authserv_id` (see `auth`).
//! - Never answered (see `parse::never_answer_reason` for the list, first
//!   match wins): Auto-Submitted other than `no`, Precedence
//!   bulk/junk/list, List-Id or List-Unsubscribe, X-Autoreply/X-Autorespond,
//!   `Return-Path: <>`, `multipart/report`, no sender, a machine local part
//!   in From or Reply-To (`mailer-daemon`, `postmaster`, `noreply`,
//!   `no-reply`, `no_reply`, `donotreply`, `do-not-reply`, `do_not_reply`;
//!   any case, ignoring a `+tag`), or one of our own addresses in From or
//!   Reply-To.
//! - Bodies: text/plain parts joined; HTML only when there is no text part.
//!   `format=flowed` is not re-flowed (soft-wrapped lines stay wrapped,
//!   which reads well when relayed; trailing spaces are trimmed in the
//!   comment).
//! - Done mail: Maildir `cur/` with flag `S` (processed) or `FS` (ignored);
//!   IMAP `\Seen` (+ `\Flagged` when ignored), then moved to
//!   `processed_mailbox` if configured. Quarantined mail (failed inside the
//!   server too often, see `crate::quarantine`): Maildir
//!   `.Quarantine/cur/` with flag `F`; IMAP `\Seen \Flagged`, moved to
//!   `quarantine_mailbox`.
//! - Outgoing: envelope sender = the server's address (bounces come back
//!   and are filed away by the loop rules), `Auto-Submitted: auto-replied`
//!   and `X-Loop: <the server's address>` on every mail, Message-ID stable
//!   per outbox row (derived from the row, or the row's own: a board mail's
//!   reply token, see `server::reply`); an error mail's ends in
//!   `.error@<domain>`, so that a mail answering it gets no error back.
//! - Outgoing bodies: every text part `7bit` (ASCII) or `8bit`, never
//!   quoted-printable while its lines fit (see `outbound::message::text_body`). A
//!   mail carrying a board drawing goes out multipart/alternative, its
//!   text and the same text in an HTML `<pre>`, unless its recipient chose
//!   `set … plain` (see `html`, `MailForm`); for a reader who chose
//!   `set … picture` the HTML part shows the board's picture too, an
//!   inline PNG in a multipart/related (see `picture`).
//! - `In-Reply-To` and `References` of inbound mail are kept in
//!   [`Envelope::replied_to`], newest first, for playing by reply.
//! - Retries: 1 min after the first failure, doubling, at most 1 h apart;
//!   give up after 3 days of temporary failures, at once on a permanent one.

mod auth;
pub(crate) mod bounce;
mod comment;
mod config;
mod connect;
mod html;
mod html_text;
mod imap;
mod inbox;
mod open;
mod outbound;
mod parse;
pub mod picture;
mod smtp;
mod transports;

pub(crate) use auth::AuthResults;
pub(crate) use comment::{extract_comment, reply_text, ReplyText};
pub use config::{ImapConfig, ImapTls, InboxConfig, OutboxConfig, Secret, SmtpConfig, SmtpTls};
pub(crate) use html::{fits_with_picture, wants_html_part};
pub use imap::ImapInbox;
pub(crate) use inbox::{create_dir_owner_only, prune_processed_maildir, MaildirInbox};
pub use inbox::{Done, InboundMessage, Inbox};
pub use open::{open_inbox, open_sender};
pub use outbound::{build_message, outgoing_message_id, MaildirOutbox, SendError, Sender};
pub(crate) use outbound::{
    build_message_in_form, build_message_with_id, is_error_message_id, is_error_subject, MailForm,
    MessageId, Retry, RetryPolicy,
};
pub(crate) use parse::is_plausible_address;
pub use parse::parse_envelope;
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Envelope {
    /// The Message-ID without angle brackets, or `hash:<hex>` of the
    /// writer's fields and body when the mail has none (of the raw bytes
    /// when it cannot be read; see `parse::content_id`). Recorded so a
    /// mail is applied once.
    pub message_id: String,
    /// The sender's address (From; never Reply-To), ASCII-lower-cased as
    /// a whole (non-ASCII characters are never folded); `None` when the mail has no usable sender (or two From
    /// headers, or a From of several addresses).
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
    /// The Message-IDs (without brackets) this mail answers: those of
    /// `In-Reply-To`, then those of `References` from the newest (last)
    /// to the oldest. A reply to a board mail names its reply token here.
    pub replied_to: Vec<String>,
    /// The `Authentication-Results` headers, topmost first.
    pub auth_results: Vec<AuthResults>,
}

impl Envelope {
    /// What tells this mail from another under the same Message-ID: a
    /// hash of its sender, subject and text. A mail delivered again has
    /// the same; a stranger's mail carrying a player's Message-ID has not
    /// (see `store::mail_seen`).
    ///
    /// Ruling: the text is taken as its words, line by line, blank lines
    /// dropped, so a mail a relay delivers again after re-encoding it
    /// (another transfer encoding, wrapped in a multipart, white space
    /// added or taken at a line's end, a blank line more) is still the
    /// same mail and is not run twice. White space never changes what a
    /// command line means; a mail whose words differ is another mail.
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let text: Vec<String> = self
            .body
            .lines()
            .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|line| !line.is_empty())
            .collect();
        let text = text.join("\n");
        let mut h = Sha256::new();
        for part in [self.sender.as_deref().unwrap_or(""), &self.subject, &text] {
            h.update((part.len() as u64).to_be_bytes());
            h.update(part.as_bytes());
        }
        crate::hex::encode(&h.finalize())
    }

    /// Whether the receiving MTA `authserv_id` vouches for the From
    /// address (see `auth`: the topmost header of that host, read
    /// cleanly, with one `dmarc=pass` for the From domain). With no
    /// `authserv_id` configured every mail counts as authenticated (the
    /// server then trusts From).
    pub(crate) fn authenticated(&self, authserv_id: Option<&str>) -> bool {
        match authserv_id.map(str::trim).filter(|id| !id.is_empty()) {
            None => true,
            Some(id) => self
                .sender
                .as_deref()
                .is_some_and(|from| auth::authenticated(&self.auth_results, id, from)),
        }
    }
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
