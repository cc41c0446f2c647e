//! Outbound mail: building the message from an outbox row, the transports
//! behind [`Sender`], and the retry schedule.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};

use lettre::message::header::{
    ContentTransferEncoding, ContentType, HeaderName, HeaderValue, MIME_VERSION_1_0,
};
use lettre::message::{Body, Mailbox, MessageBuilder, MultiPart, SinglePart};
use lettre::Message;
use sha2::{Digest, Sha256};

use super::inbox::create_maildir;
use super::{MailError, Outgoing};
use crate::hex::encode as hex;

/// Why a send failed, and whether trying again can help.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Try again later (connection refused, timeout, 4xx, disk full...).
    #[error("temporary failure: {0}")]
    Temporary(String),
    /// Trying again will not help (5xx, malformed address, ...): mark the
    /// outbox row failed.
    #[error("permanent failure: {0}")]
    Permanent(String),
}

impl SendError {
    pub(crate) fn is_permanent(&self) -> bool {
        matches!(self, SendError::Permanent(_))
    }
}

/// A mail transport. One instance is reused for a whole outbox pass.
pub trait Sender: Send {
    /// Hands one message over for delivery (at-least-once: a message may
    /// be handed over again after a crash; it keeps its Message-ID).
    fn send(&mut self, msg: &Message) -> Result<(), SendError>;

    /// Makes every message handed over so far durable, where the transport
    /// itself does not at each [`Sender::send`] (a Maildir written in
    /// batches). A sending pass calls it before it records a batch as sent.
    fn flush(&mut self) -> Result<(), SendError> {
        Ok(())
    }

    /// The longest one [`Sender::send`] of a mail within `[limits]
    /// max_reply_bytes` can take: a sending pass starts no send that could
    /// outlive its claim on the mail (`daemon::SEND_LEASE`). The default
    /// (a minute) is for local transports: a Maildir, a sendmail program.
    fn longest_send(&self) -> Duration {
        Duration::from_secs(60)
    }

    /// [`Sender::send`], abandoned as soon as `stop` is set where the
    /// transport can wait long (SMTP, a sendmail program): the daemon
    /// answers SIGTERM within seconds even while a send hangs. A send
    /// abandoned so is a [`SendError::Temporary`].
    fn send_or_stop(&mut self, msg: &Message, stop: &AtomicBool) -> Result<(), SendError> {
        let _ = stop;
        self.send(msg)
    }

    /// Whether a message is delivered for good once [`Sender::send`]
    /// returned (an SMTP server or a sendmail program took it over): a
    /// pass then records each mail sent at once, so a crash sends again at
    /// most the one mail in flight. False where [`Sender::flush`] makes the
    /// batch durable (a Maildir): its mails are recorded after the flush.
    fn durable_at_send(&self) -> bool {
        true
    }

    /// The end of a sending pass: close what it opened (the SMTP
    /// connection, which the next pass opens afresh).
    fn end_pass(&mut self) {}
}

/// The Message-ID (without angle brackets) [`build_message`] gives the
/// outbox row `outbox_id`: `pbmchess.<id>.<16 hex>@<domain of from>`, the
/// hex being a hash of the row keyed with `key` (the server's secret,
/// `store::message_id_key`): stable for the row, so a resend after a crash
/// carries the same Message-ID, and unpredictable to anyone without the
/// key, so that no one can quote the id of a mail sent to someone else in
/// a forged bounce (see `server::bounces`). The hash is SHA-256 over the
/// key and the row's parts, each prefixed with its length; only 64 bits
/// of it are shown.
///
/// Ruling: this stays SHA-256 over the length-prefixed key and parts, not
/// HMAC. The id is worked out again from the row long after the mail went
/// (a bounce quoting it, a resend after a crash, the outbox Maildir's file
/// key), across restarts and upgrades; HMAC-SHA256 gives other bytes, so a
/// switch would leave every mail sent before it unrecognised. The
/// construction is sound for this use: the key comes first with its
/// length, and only 64 of the 256 bits are shown, so the length extension
/// HMAC guards against has no state to start from.
pub fn outgoing_message_id(
    out: &Outgoing,
    outbox_id: i64,
    from_domain: &str,
    key: &[u8],
) -> String {
    let mut h = Sha256::new();
    let row = outbox_id.to_string();
    for part in [
        key,
        row.as_bytes(),
        out.to.as_bytes(),
        out.subject.as_bytes(),
        out.body.as_bytes(),
        out.in_reply_to.as_deref().unwrap_or("").as_bytes(),
    ] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part);
    }
    let digest = hex(&h.finalize());
    let kind = if is_error_subject(&out.subject) {
        ERROR_ID_SUFFIX
    } else {
        ""
    };
    format!("pbmchess.{outbox_id}.{}{kind}@{from_domain}", &digest[..16])
}

/// What ends the local part of an error mail's Message-ID
/// (`pbmchess.<id>.<hash>.error@<domain>`), so that a mail answering one
/// is recognised: it is never answered with another error (two servers
/// must not ping-pong errors; issue #31).
const ERROR_ID_SUFFIX: &str = ".error";

/// Whether a mail with this Subject is an error mail: the server's error
/// mails are titled `Error`, `<Game> Error` or `<Game> Board <n> Error`.
pub(crate) fn is_error_subject(subject: &str) -> bool {
    subject == "Error" || subject.ends_with(" Error")
}

/// Whether `id` (without brackets) is the Message-ID of one of our error
/// mails: our shape, in the domain of our `address` (which may be
/// `Name <address>`).
pub(crate) fn is_error_message_id(id: &str, address: &str) -> bool {
    let address = address.trim().trim_end_matches('>');
    let Some((_, domain)) = address.rsplit_once('@') else {
        return false;
    };
    match id.rsplit_once('@') {
        Some((local, d)) => {
            d.eq_ignore_ascii_case(domain)
                && local.starts_with("pbmchess.")
                && local.ends_with(ERROR_ID_SUFFIX)
        }
        None => false,
    }
}

/// Builds the mail for one outbox row, with the headers of docs/commands.md §5:
/// `From` (the server, `from` may be `Name <address>` or a bare address),
/// `To`, `Subject` (RFC 2047-encoded when not ASCII; control characters
/// become spaces, runs of spaces one), `Message-ID` (see
/// [`outgoing_message_id`]), `Date` (`date`: pass the row's creation time
/// so a resend is the same mail),
/// `In-Reply-To` and `References` to the cause when its id is a real
/// Message-ID (not a `hash:` id), `Auto-Submitted` (see `auto_submitted`),
/// `X-Loop: <the server's address>`,
/// `MIME-Version: 1.0` and `Content-Type: text/plain; charset=utf-8`,
/// `Content-Transfer-Encoding: 7bit` (`8bit` when not ASCII; see
/// `text_body`). [`build_message_in_form`] builds a board mail with its
/// HTML part.
///
/// The SMTP envelope sender is the server's address (not `<>`), so bounces
/// come back to the server, where loop protection files them away.
///
/// A malformed `from` or `to` address is a [`SendError::Permanent`].
pub fn build_message(
    out: &Outgoing,
    outbox_id: i64,
    key: &[u8],
    from: &str,
    date: SystemTime,
) -> Result<Message, SendError> {
    build_message_with_id(out, MessageId::Row(outbox_id, key), from, date)
}

/// The Message-ID a mail is built with: derived from its outbox row with
/// the server's key (see [`outgoing_message_id`]), or its own (without
/// brackets; a board mail's reply token, kept with the row).
#[derive(Clone, Copy, Debug)]
pub(crate) enum MessageId<'a> {
    Row(i64, &'a [u8]),
    Own(&'a str),
}

/// [`build_message`] with the Message-ID chosen by the caller.
pub(crate) fn build_message_with_id(
    out: &Outgoing,
    message_id: MessageId<'_>,
    from: &str,
    date: SystemTime,
) -> Result<Message, SendError> {
    build_message_in_form(out, message_id, MailForm::Plain, from, date)
}

/// What the body of a mail is made of (issue #23 §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MailForm {
    /// One text/plain part.
    Plain,
    /// multipart/alternative: the text/plain part, then a text/html part
    /// showing the same text in a monospace `<pre>` (see `mail::html`).
    WithHtml,
}

impl MailForm {
    /// The form an outbox mail was queued with (`html` of its row).
    pub(crate) fn of_row(html: bool) -> MailForm {
        if html {
            MailForm::WithHtml
        } else {
            MailForm::Plain
        }
    }
}

/// [`build_message_with_id`] in the form `form`. Every text part goes out
/// `7bit` when it is ASCII and `8bit` when not (see `text_body`).
pub(crate) fn build_message_in_form(
    out: &Outgoing,
    message_id: MessageId<'_>,
    form: MailForm,
    from: &str,
    date: SystemTime,
) -> Result<Message, SendError> {
    let builder = headers(out, message_id, from, date)?;
    let built = match form {
        MailForm::Plain => builder
            .header(ContentType::TEXT_PLAIN)
            .body(text_body(&out.body)),
        MailForm::WithHtml => {
            let html = super::html::html_document(&out.body);
            builder.multipart(
                MultiPart::alternative()
                    .boundary(boundary(&out.body, &html))
                    .singlepart(
                        SinglePart::builder()
                            .header(ContentType::TEXT_PLAIN)
                            .body(text_body(&out.body)),
                    )
                    .singlepart(
                        SinglePart::builder()
                            .header(ContentType::TEXT_HTML)
                            .body(text_body(&html)),
                    ),
            )
        }
    };
    built.map_err(|e| SendError::Permanent(format!("cannot build the message: {e}")))
}

/// The headers of [`build_message`], all but `Content-Type` and
/// `Content-Transfer-Encoding`.
fn headers(
    out: &Outgoing,
    message_id: MessageId<'_>,
    from: &str,
    date: SystemTime,
) -> Result<MessageBuilder, SendError> {
    let from: Mailbox = from
        .trim()
        .parse()
        .map_err(|e| SendError::Permanent(format!("bad server address {from:?}: {e}")))?;
    // The mail library would send a non-ASCII address to an ASCII
    // look-alike (see `parse::is_plausible_address`).
    if !out.to.trim().is_ascii() {
        return Err(SendError::Permanent(format!(
            "recipient address {:?} is not ASCII: not sent",
            out.to
        )));
    }
    let to: Mailbox =
        out.to.trim().parse().map_err(|e| {
            SendError::Permanent(format!("bad recipient address {:?}: {e}", out.to))
        })?;
    let domain = from.email.domain().to_string();
    let loop_address = from.email.to_string();
    let subject: String = out
        .subject
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    // One space between words: lettre leaves a run of spaces between two
    // encoded words outside them, where RFC 2047 decoding drops it
    // ("♞  ü" would arrive as "♞ü").
    let subject = subject.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(subject)
        .message_id(Some(format!(
            "<{}>",
            match message_id {
                MessageId::Row(id, key) => outgoing_message_id(out, id, &domain, key),
                MessageId::Own(id) => id.to_string(),
            }
        )))
        .date(date)
        .header(MIME_VERSION_1_0)
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Auto-Submitted"),
            auto_submitted(out).to_string(),
        ))
        // A mail that comes back through a forwarder is recognised by it
        // (see `parse::never_answer_reason`), even if Auto-Submitted is
        // stripped on the way.
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("X-Loop"),
            loop_address,
        ));
    if let Some(cause) = out.in_reply_to.as_deref().filter(|id| is_message_id(id)) {
        builder = builder
            .in_reply_to(format!("<{cause}>"))
            .references(format!("<{cause}>"));
    }
    Ok(builder)
}

/// The longest line a `7bit` or `8bit` body may have, in octets without
/// the CRLF (RFC 5322 §2.1.1).
const MAX_UNENCODED_LINE: usize = 998;

/// A text part's body, lines ended by CRLF, sent as written (issue #23 §1):
/// `7bit` when it is ASCII, `8bit` when not, so that a raw view and a bot
/// read the board lines whole (lettre alone would choose
/// quoted-printable for any line of 76 characters or more, and for any
/// non-ASCII text, cutting a board line as `|  8  B=` / `lack`). The SMTP
/// client declares `BODY=8BITMIME` for an 8bit mail where the server
/// offers it. Ruling: only a text with a line over 998 octets or a NUL,
/// which no `7bit`/`8bit` body may carry, is left to lettre's choice
/// (quoted-printable or base64).
fn text_body(text: &str) -> Body {
    let crlf = crlf_lines(text);
    let sendable_as_is = !crlf.contains('\0')
        && crlf
            .split("\r\n")
            .all(|line| line.len() <= MAX_UNENCODED_LINE);
    if !sendable_as_is {
        return Body::new(crlf);
    }
    let encoding = if crlf.is_ascii() {
        ContentTransferEncoding::SevenBit
    } else {
        ContentTransferEncoding::EightBit
    };
    Body::dangerous_pre_encoded(crlf.into_bytes(), encoding)
}

/// The boundary of a multipart mail: made from its parts, so a resend is
/// the same mail byte for byte, and never found in them (no text holds
/// the hash of itself).
fn boundary(text: &str, html: &str) -> String {
    let mut h = Sha256::new();
    h.update((text.len() as u64).to_be_bytes());
    h.update(text.as_bytes());
    h.update(html.as_bytes());
    format!("pbmchess-{}", &hex(&h.finalize())[..32])
}

/// The `Auto-Submitted` value of a mail (RFC 3834): `auto-replied` for a
/// mail that answers one (its row names the mail that caused it), else
/// `auto-generated` (reminders, forfeits, broadcasts, the admin's boards).
/// Ruling: an answer to a mail that had no Message-ID is queued without a
/// cause and so goes out `auto-generated`; both values keep other
/// responders from answering it.
pub(super) fn auto_submitted(out: &Outgoing) -> &'static str {
    if out.in_reply_to.is_some() {
        "auto-replied"
    } else {
        "auto-generated"
    }
}

/// `text` with every line ending `\r\n`, in one linear pass: lettre
/// converts a body that is not yet in this form by inserting each `\r`
/// into the string, which takes time quadratic in the body's length.
fn crlf_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 32 + 2);
    let mut after_cr = false;
    for c in text.chars() {
        if after_cr && c != '\n' {
            // A lone CR ends a line too.
            out.push('\n');
        }
        match c {
            '\n' if !after_cr => out.push_str("\r\n"),
            c => out.push(c),
        }
        after_cr = c == '\r';
    }
    if after_cr {
        out.push('\n');
    }
    out
}

/// A Message-ID (without brackets) safe to put in a header.
fn is_message_id(id: &str) -> bool {
    id.contains('@')
        && !id.starts_with("hash:")
        && id.len() <= 900
        && id
            .bytes()
            .all(|b| b.is_ascii_graphic() && b != b'<' && b != b'>')
}

/// Writes each message into `new/` of a Maildir: the default local setup,
/// and what tests read. Failures are temporary (disk full, permissions).
///
/// Each message is written into `tmp/` and renamed into `new/` (the
/// Maildir way, so a reader never sees half a message); durability comes
/// per batch: [`Sender::flush`] syncs the Maildir's file system once (on
/// Linux `syncfs`; elsewhere each file and `new/`), instead of one `fsync`
/// per message. A crash before the flush loses only messages whose outbox
/// rows are not yet marked sent, so they are written again.
///
/// Each message is written once: its file name ends in a key of its
/// Message-ID (`….KEY.pbmchess`, see `message_key`), and a message
/// whose key is in `new/` already (a batch written, then not recorded as
/// sent: the disk filled before the flush or the database's commit) is
/// written over that file, not beside it. Ruling: what a reader took out
/// of `new/` meanwhile is written again (at least once, as the
/// [`Sender`] contract says).
#[derive(Debug)]
pub struct MaildirOutbox {
    /// The Maildir: `tmp/`, `new/` and `cur/` under it.
    path: PathBuf,
    /// Messages written since the last flush (their paths in `new/`).
    unsynced: Vec<PathBuf>,
    /// The file name in `new/` of each message key written there: read
    /// from `new/` at the first send of a pass, kept up to date by each.
    written: Option<std::collections::HashMap<String, String>>,
}

impl MaildirOutbox {
    /// Opens the Maildir at `path`, creating `new/`, `cur/`, `tmp/`.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, MailError> {
        let path = path.into();
        create_maildir(&path)?;
        Ok(MaildirOutbox {
            path,
            unsynced: Vec::new(),
            written: None,
        })
    }

    /// The file name for a message of key `key`: the one it was written
    /// to already, or a new one.
    fn name_for(&mut self, key: &str) -> std::io::Result<String> {
        if self.written.is_none() {
            let mut written = std::collections::HashMap::new();
            for entry in std::fs::read_dir(self.path.join("new"))? {
                let name = entry?.file_name();
                let Some(name) = name.to_str() else { continue };
                if let Some(key) = key_of_name(name) {
                    written.insert(key.to_string(), name.to_string());
                }
            }
            self.written = Some(written);
        }
        let written = self.written.get_or_insert_with(Default::default);
        Ok(written
            .entry(key.to_string())
            .or_insert_with(|| format!("{}.{key}.pbmchess", MaildirOutbox::unique_name()))
            .clone())
    }

    /// A name unique to this message: `SECONDS.MMICROSPPIDQN` (the Maildir
    /// convention's parts; the sequence number is per process).
    /// Microseconds and sequence are zero-padded, so that names written in
    /// one second sort in the order they were written (a file system's
    /// coarse modification times cannot tell them apart).
    fn unique_name() -> String {
        use std::sync::atomic::{AtomicU64, Ordering};
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        format!(
            "{}.M{:06}P{}Q{:010}",
            now.as_secs(),
            now.subsec_micros(),
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        )
    }
}

impl Sender for MaildirOutbox {
    /// Writing one file of a bounded size into a local folder.
    fn longest_send(&self) -> Duration {
        Duration::from_secs(5)
    }

    /// Durable only after [`Sender::flush`].
    fn durable_at_send(&self) -> bool {
        false
    }

    fn send(&mut self, msg: &Message) -> Result<(), SendError> {
        let fail = |e: std::io::Error| {
            SendError::Temporary(format!("cannot write to the outbox Maildir: {e}"))
        };
        let name = self.name_for(&message_key(msg)).map_err(fail)?;
        let tmp = self.path.join("tmp").join(&name);
        let new = self.path.join("new").join(&name);
        write_owner_only(&tmp, &msg.formatted()).map_err(fail)?;
        std::fs::rename(&tmp, &new).map_err(fail)?;
        self.unsynced.push(new);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), SendError> {
        if self.unsynced.is_empty() {
            return Ok(());
        }
        let fail = |e: std::io::Error| {
            SendError::Temporary(format!("cannot sync the outbox Maildir: {e}"))
        };
        sync_maildir(&self.path.join("new"), &self.unsynced).map_err(fail)?;
        self.unsynced.clear();
        Ok(())
    }

    /// `new/` is read again at the next pass (a reader may have emptied it).
    fn end_pass(&mut self) {
        self.written = None;
    }
}

/// The key a message's file name in the outbox Maildir ends in: 16 hex
/// digits of the SHA-256 of its Message-ID (of the whole message, should
/// it have none). A message sent again keeps its Message-ID, so its key.
pub(super) fn message_key(msg: &Message) -> String {
    let mut h = Sha256::new();
    match msg.headers().get_raw("Message-ID") {
        Some(id) => h.update(id.trim().as_bytes()),
        None => h.update(msg.formatted()),
    }
    hex(&h.finalize()[..8])
}

/// The message key in an outbox file name `….KEY.pbmchess`, if it has one.
fn key_of_name(name: &str) -> Option<&str> {
    let rest = name.strip_suffix(".pbmchess")?;
    let (_, key) = rest.rsplit_once('.')?;
    (key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit())).then_some(key)
}

/// Write a new file readable by its owner only (0600): mail to players
/// is nobody else's business.
fn write_owner_only(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(bytes)
}

/// Make the files written into `new` durable, with the directory entries.
#[cfg(target_os = "linux")]
fn sync_maildir(new: &Path, _files: &[PathBuf]) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let dir = std::fs::File::open(new)?;
    // SAFETY: syncfs takes an open file descriptor, which `dir` owns for
    // the whole call.
    if unsafe { libc::syncfs(dir.as_raw_fd()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Make the files written into `new` durable, with the directory entries.
#[cfg(not(target_os = "linux"))]
fn sync_maildir(new: &Path, files: &[PathBuf]) -> std::io::Result<()> {
    for f in files {
        std::fs::File::open(f)?.sync_all()?;
    }
    std::fs::File::open(new)?.sync_all()
}

/// First retry delay after a temporary failure.
pub(crate) const RETRY_FIRST_DELAY: Duration = Duration::from_secs(60);
/// Longest delay between two attempts.
pub(crate) const RETRY_MAX_DELAY: Duration = Duration::from_secs(60 * 60);
/// A row still failing temporarily this long after its first attempt is
/// given up (as MTAs do with their queue lifetime).
pub(crate) const GIVE_UP_AFTER: Duration = Duration::from_secs(3 * 24 * 60 * 60);

/// How often and how long a mail that failed temporarily is tried again.
/// The defaults: 1 min after the first failure, doubling each time (2, 4,
/// 8, 16, 32 min), at most [`RETRY_MAX_DELAY`] apart, given up after
/// [`GIVE_UP_AFTER`] (as MTAs do with their queue lifetime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RetryPolicy {
    pub first_delay: Duration,
    pub max_delay: Duration,
    pub give_up_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            first_delay: RETRY_FIRST_DELAY,
            max_delay: RETRY_MAX_DELAY,
            give_up_after: GIVE_UP_AFTER,
        }
    }
}

impl RetryPolicy {
    /// How long to wait before the next attempt, after `attempts` failed
    /// ones. `attempts == 0` means no failure yet: no delay.
    pub(crate) fn delay(&self, attempts: u32) -> Duration {
        if attempts == 0 {
            return Duration::ZERO;
        }
        let factor = 1u32.checked_shl(attempts - 1).unwrap_or(u32::MAX);
        self.first_delay
            .checked_mul(factor)
            .unwrap_or(Duration::MAX)
            .min(self.max_delay)
    }

    /// The retry decision for a row that just failed with `error`:
    /// `attempts` counts the failed attempts including this one,
    /// `since_first_attempt` is the time from the row's first attempt to now.
    pub(crate) fn after_failure(
        &self,
        error: &SendError,
        attempts: u32,
        since_first_attempt: Duration,
    ) -> Retry {
        match error {
            SendError::Permanent(_) => Retry::GiveUp,
            SendError::Temporary(_) if since_first_attempt >= self.give_up_after => Retry::GiveUp,
            SendError::Temporary(_) => Retry::After(self.delay(attempts.max(1))),
        }
    }
}

/// What to do with an outbox row after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Try again after this delay.
    After(Duration),
    /// Stop: mark the row failed (permanent error, or temporary for longer
    /// than the policy's give-up time).
    GiveUp,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn row() -> Outgoing {
        Outgoing {
            to: "bob@example.org".into(),
            subject: "Chess Board 101 bob".into(),
            body: "It is bob's turn.\n\n  +---+\n  |:P:|\n".into(),
            in_reply_to: Some("abc@example.org".into()),
        }
    }

    const FROM: &str = "PBM Chess <pbm@chess.example>";
    /// The server's Message-ID key in these tests.
    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn at() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_000_000)
    }

    fn formatted(out: &Outgoing, id: i64) -> String {
        String::from_utf8(build_message(out, id, KEY, FROM, at()).unwrap().formatted()).unwrap()
    }

    fn header<'a>(text: &'a str, name: &str) -> Option<&'a str> {
        let head = text.split("\r\n\r\n").next().unwrap();
        head.split("\r\n")
            .find_map(|l| l.strip_prefix(&format!("{name}: ")))
    }

    #[test]
    fn bodies_reach_the_builder_in_crlf_form() {
        assert_eq!(crlf_lines("a\nb\r\nc\rd\r\r"), "a\r\nb\r\nc\r\nd\r\n\r\n");
        let body = "line of a board\n".repeat(100_000);
        let mut out = row();
        out.body = body;
        let msg = build_message(&out, 1, KEY, "pbm@games.test", SystemTime::UNIX_EPOCH).unwrap();
        let raw = String::from_utf8(msg.formatted()).unwrap();
        assert_eq!(raw.matches("line of a board\r\n").count(), 100_000);
    }

    #[test]
    fn headers_follow_the_spec() {
        let t = formatted(&row(), 7);
        assert_eq!(
            header(&t, "From"),
            Some("\"PBM Chess\" <pbm@chess.example>")
        );
        assert_eq!(header(&t, "To"), Some("bob@example.org"));
        assert_eq!(header(&t, "Subject"), Some("Chess Board 101 bob"));
        assert_eq!(header(&t, "In-Reply-To"), Some("<abc@example.org>"));
        assert_eq!(header(&t, "References"), Some("<abc@example.org>"));
        assert_eq!(header(&t, "Auto-Submitted"), Some("auto-replied"));
        assert_eq!(header(&t, "X-Loop"), Some("pbm@chess.example"));
        assert_eq!(
            header(&t, "Content-Type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(header(&t, "MIME-Version"), Some("1.0"));
        assert!(header(&t, "Date").unwrap().contains("2026"), "{t}");
        let mid = header(&t, "Message-ID").unwrap();
        assert!(
            mid.starts_with("<pbmchess.7.") && mid.ends_with("@chess.example>"),
            "{mid}"
        );
        assert!(
            t.ends_with("It is bob's turn.\r\n\r\n  +---+\r\n  |:P:|\r\n"),
            "{t}"
        );
    }

    #[test]
    fn message_id_is_stable_per_row_and_differs_between_rows() {
        let a = formatted(&row(), 7);
        let b = formatted(&row(), 7);
        assert_eq!(header(&a, "Message-ID"), header(&b, "Message-ID"));
        assert_eq!(a, b, "a resend is byte for byte the same mail");
        let c = formatted(&row(), 8);
        assert_ne!(header(&a, "Message-ID"), header(&c, "Message-ID"));
        let mut other = row();
        other.body.push('x');
        assert_ne!(
            header(&a, "Message-ID"),
            header(&formatted(&other, 7), "Message-ID")
        );
    }

    #[test]
    fn message_id_is_keyed_with_the_servers_secret() {
        // The same row under another key: another id, so that without the
        // key no one can work out the id of a mail sent to someone else.
        let a = outgoing_message_id(&row(), 7, "chess.example", KEY);
        let b = outgoing_message_id(&row(), 7, "chess.example", b"another key");
        assert_ne!(a, b);
        assert_eq!(a, outgoing_message_id(&row(), 7, "chess.example", KEY));
        // Nothing of the unkeyed hash of the row shows.
        let mut h = Sha256::new();
        for part in [&row().to, &row().subject, &row().body, "abc@example.org"] {
            h.update((part.len() as u64).to_be_bytes());
            h.update(part.as_bytes());
        }
        let unkeyed = hex(&h.finalize());
        assert!(!a.contains(&unkeyed[..16]), "{a}");
    }

    #[test]
    fn error_mails_have_a_message_id_of_their_own_shape() {
        let mut out = row();
        for subject in ["Error", "Chess Error", "Chess Board 101 Error"] {
            out.subject = subject.into();
            let id = outgoing_message_id(&out, 9, "chess.example", KEY);
            assert!(is_error_message_id(&id, FROM), "{id}");
            assert!(!is_error_message_id(&id, "pbm@other.example"), "{id}");
        }
        for subject in ["Chess Board 101 bob", "Errors of mine", "Password changed"] {
            out.subject = subject.into();
            let id = outgoing_message_id(&out, 9, "chess.example", KEY);
            assert!(!is_error_message_id(&id, FROM), "{id}");
            assert!(id.starts_with("pbmchess.9."), "{id}");
        }
        assert!(!is_error_message_id("t.abc@chess.example", FROM));
        assert!(!is_error_message_id("x.error@chess.example", FROM));
    }

    #[test]
    fn a_mail_that_comes_back_through_a_forwarder_is_never_answered() {
        let t = formatted(&row(), 1);
        // A forwarder that strips Auto-Submitted.
        let stripped = t.replace("Auto-Submitted: auto-replied\r\n", "");
        assert!(!stripped.contains("Auto-Submitted"));
        let stripped = stripped.replace(
            "From: \"PBM Chess\" <pbm@chess.example>",
            "From: fwd@relay.example",
        );
        let e = super::super::parse_envelope(stripped.as_bytes(), &["pbm@chess.example".into()]);
        assert!(e.never_answer.unwrap().contains("X-Loop"));
    }

    #[test]
    fn a_mail_with_its_own_message_id_carries_it() {
        let msg = build_message_with_id(&row(), MessageId::Own("t.0a1b@chess.example"), FROM, at())
            .unwrap();
        let t = String::from_utf8(msg.formatted()).unwrap();
        assert_eq!(header(&t, "Message-ID"), Some("<t.0a1b@chess.example>"));
    }

    #[test]
    fn utf8_subject_is_encoded_and_control_characters_removed() {
        let mut out = row();
        out.subject = "Schach Brett 101 jürgen\r\nBcc: evil@x.y".into();
        let t = formatted(&out, 1);
        let subject = header(&t, "Subject").unwrap();
        assert!(
            subject.contains("=?utf-8?") && subject.is_ascii(),
            "{subject}"
        );
        assert!(!t.contains("\r\nBcc:"));
        let parsed = super::super::parse_envelope(t.as_bytes(), &[]);
        assert_eq!(parsed.subject, "Schach Brett 101 jürgen Bcc: evil@x.y");
    }

    #[test]
    fn spaces_between_non_ascii_words_survive() {
        let mut out = row();
        out.subject = "♞  ü\t\té  x".into();
        let t = formatted(&out, 1);
        let parsed = super::super::parse_envelope(t.as_bytes(), &[]);
        assert_eq!(parsed.subject, "♞ ü é x");
    }

    #[test]
    fn hash_ids_and_missing_causes_give_no_in_reply_to() {
        let mut out = row();
        out.in_reply_to = Some("hash:0123".into());
        assert_eq!(header(&formatted(&out, 1), "In-Reply-To"), None);
        out.in_reply_to = None;
        let t = formatted(&out, 1);
        assert_eq!(header(&t, "In-Reply-To"), None);
        assert_eq!(header(&t, "References"), None);
    }

    #[test]
    fn answers_are_auto_replied_and_mail_nobody_asked_for_auto_generated() {
        let mut out = row();
        out.in_reply_to = Some("cmd1@players.test".into());
        assert_eq!(
            header(&formatted(&out, 1), "Auto-Submitted"),
            Some("auto-replied")
        );
        // A reminder, a broadcast, an admin's board: no mail caused it.
        out.in_reply_to = None;
        let t = formatted(&out, 1);
        assert_eq!(header(&t, "Auto-Submitted"), Some("auto-generated"));
        // Still never answered by another responder, nor by the server.
        let e = super::super::parse_envelope(t.as_bytes(), &[]);
        assert!(e.never_answer.unwrap().contains("Auto-Submitted"));
    }

    #[test]
    fn our_replies_are_never_answered_by_ourselves() {
        let t = formatted(&row(), 1);
        let e = super::super::parse_envelope(t.as_bytes(), &["pbm@chess.example".into()]);
        assert!(e.never_answer.is_some());
        let e = super::super::parse_envelope(t.as_bytes(), &[]);
        assert!(e.never_answer.unwrap().contains("Auto-Submitted"));
    }

    #[test]
    fn bad_addresses_are_permanent_errors() {
        let mut out = row();
        out.to = "not an address".into();
        assert!(build_message(&out, 1, KEY, FROM, at())
            .unwrap_err()
            .is_permanent());
        assert!(build_message(&row(), 1, KEY, "nope", at())
            .unwrap_err()
            .is_permanent());
    }

    #[test]
    fn maildir_outbox_writes_into_new() {
        let tmp = tempfile::tempdir().unwrap();
        let mut outbox = MaildirOutbox::open(tmp.path().join("out")).unwrap();
        let msg = build_message(&row(), 3, KEY, FROM, at()).unwrap();
        outbox.send(&msg).unwrap();
        let files: Vec<_> = std::fs::read_dir(tmp.path().join("out/new"))
            .unwrap()
            .collect();
        assert_eq!(files.len(), 1);
        let bytes = std::fs::read(files[0].as_ref().unwrap().path()).unwrap();
        assert_eq!(bytes, msg.formatted());
    }

    #[test]
    fn retry_delays_double_from_one_minute_up_to_one_hour() {
        let mins: Vec<u64> = (0..10)
            .map(|a| RetryPolicy::default().delay(a).as_secs() / 60)
            .collect();
        assert_eq!(mins, [0, 1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(RetryPolicy::default().delay(u32::MAX), RETRY_MAX_DELAY);
        assert_eq!(RetryPolicy::default().delay(64), RETRY_MAX_DELAY);
    }

    #[test]
    fn temporary_failures_give_up_after_three_days_permanent_at_once() {
        let temp = SendError::Temporary("421".into());
        let perm = SendError::Permanent("550".into());
        assert_eq!(
            RetryPolicy::default().after_failure(&temp, 1, Duration::ZERO),
            Retry::After(Duration::from_secs(60))
        );
        assert_eq!(
            RetryPolicy::default().after_failure(&temp, 40, GIVE_UP_AFTER - Duration::from_secs(1)),
            Retry::After(RETRY_MAX_DELAY)
        );
        assert_eq!(
            RetryPolicy::default().after_failure(&temp, 41, GIVE_UP_AFTER),
            Retry::GiveUp
        );
        assert_eq!(
            RetryPolicy::default().after_failure(&perm, 1, Duration::ZERO),
            Retry::GiveUp
        );
    }

    fn in_form(out: &Outgoing, form: MailForm) -> String {
        let msg = build_message_in_form(out, MessageId::Row(7, KEY), form, FROM, at()).unwrap();
        String::from_utf8(msg.formatted()).unwrap()
    }

    #[test]
    fn text_parts_go_out_7bit_or_8bit_with_long_lines_whole() {
        let mut out = row();
        let rank = format!("  8 |{}|  8  Black", "*R*|".repeat(16));
        assert!(rank.len() > 76);
        out.body = format!("It is bob's turn.\n{rank}\n");
        let t = formatted(&out, 1);
        assert_eq!(header(&t, "Content-Transfer-Encoding"), Some("7bit"));
        assert!(t.contains(&format!("\r\n{rank}\r\n")), "{t}");
        out.body = "Schöne Grüße ♞\n".into();
        let t = formatted(&out, 1);
        assert_eq!(header(&t, "Content-Transfer-Encoding"), Some("8bit"));
        assert!(t.ends_with("\r\n\r\nSchöne Grüße ♞\r\n"), "{t}");
        // Only what no 7bit/8bit body may carry is encoded.
        out.body = "x".repeat(999);
        let t = formatted(&out, 1);
        assert_eq!(
            header(&t, "Content-Transfer-Encoding"),
            Some("quoted-printable")
        );
    }

    #[test]
    fn a_board_mail_is_multipart_alternative_text_first_and_resent_the_same() {
        let out = row();
        let t = in_form(&out, MailForm::WithHtml);
        let ct = header(&t, "Content-Type").unwrap();
        assert!(ct.starts_with("multipart/alternative;"), "{ct}");
        let text_at = t.find("Content-Type: text/plain; charset=utf-8").unwrap();
        let html_at = t.find("Content-Type: text/html; charset=utf-8").unwrap();
        assert!(text_at < html_at, "{t}");
        assert_eq!(t.matches("Content-Transfer-Encoding: 7bit").count(), 2);
        assert!(t.contains("<pre style=\"font-family: monospace, monospace\">\r\n"));
        assert_eq!(
            t,
            in_form(&out, MailForm::WithHtml),
            "a resend is the same mail"
        );
        assert_eq!(in_form(&out, MailForm::Plain), formatted(&out, 7));
        // Bots and the server itself read the text part.
        let raw = t.replacen("Auto-Submitted: auto-replied\r\n", "", 1);
        let env = super::super::parse_envelope(raw.as_bytes(), &[]);
        assert_eq!(env.body, out.body);
    }

    proptest! {
        #[test]
        fn subject_and_body_survive_the_round_trip(
            subject in "[ -~\u{e9}\u{fc}\u{4e2d}\u{265e}]{0,150}",
            body in "[ -~\n\u{e9}\u{265e}]{0,400}",
        ) {
            let out = Outgoing {
                to: "bob@example.org".into(),
                subject: subject.clone(),
                body: body.clone(),
                in_reply_to: Some("a@b".into()),
            };
            let msg = build_message(&out, 1, KEY, FROM, at()).unwrap();
            // As a person's mail: ours is never answered, so its body
            // would not be decoded.
            let raw = String::from_utf8(msg.formatted())
                .unwrap()
                .replacen("Auto-Submitted: auto-replied\r\n", "", 1);
            let env = super::super::parse_envelope(raw.as_bytes(), &[]);
            // RFC 2047: white space between two encoded words is not part
            // of the text, so where lettre splits a non-ASCII subject into
            // several words the spaces between them may go; every other
            // character survives, and an ASCII subject survives whole.
            let squeeze = |s: &str| s.split_whitespace().collect::<String>();
            prop_assert_eq!(squeeze(&env.subject), squeeze(&subject));
            if subject.is_ascii() {
                let normal = subject.split_whitespace().collect::<Vec<_>>().join(" ");
                prop_assert_eq!(env.subject, normal);
            }
            prop_assert_eq!(env.body.trim_end(), body.trim_end());
        }
    }
}
