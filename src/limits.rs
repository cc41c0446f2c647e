//! Every bound on what one mail may cost, in one place.
//!
//! Inbound (`[limits]` in the config, defaults in brackets):
//!
//! - `max_message_bytes` (256 KiB): an inbound mail larger than this is
//!   judged by its size *before* it is read: the Maildir inbox looks at the
//!   file's size, IMAP asks for `RFC822.SIZE`, `process` reads standard
//!   input only so far. Of such a mail only its header is read (at most
//!   [`HEADER_BYTES`]); the server answers it from the header alone with one
//!   short refusal (the never-answer rules still apply), and files it away.
//! - A file in the inbox that cannot be read at all is quarantined at once,
//!   without its bytes, and the rest of the inbox goes on.
//! - `command::MAX_COMMANDS` (50) commands in one `multiple` mail; the
//!   same command that only reads, given twice, is answered once.
//! - `max_list_items` (20): repeated words in a command collapse (`help
//!   chess chess`, `chess show 101 101`, `message alice pw bob bob`), and
//!   a command that still names more boards, users, topics or recipients
//!   is refused (see `command::collapse`).
//! - `command::MAX_LINE_BYTES` (1 KB) of a command line are read, and
//!   `command::MAX_WORDS` (1,000) words of a `multiple` mail's commands;
//!   HTML-to-text quotes at most `mail::text::MAX_QUOTE_DEPTH` (8) deep and
//!   writes no more text than the HTML it reads.
//! - Conditional moves (`if`): [`MAX_CONDITIONAL_PLIES`] (20)
//!   plies a line, [`MAX_CONDITIONAL_LINES`] (50) lines per player and
//!   board.
//! - `[computer] seconds_per_mail` (5): the computer's thinking for one
//!   mail or timers pass (see `server::computer`).
//! - A mail that killed the process `failures_before_quarantine` times is
//!   quarantined before it runs again (see `crate::quarantine`).
//!
//! Outbound:
//!
//! - `max_reply_bytes` (64 KiB): no mail the server sends is larger. A mail
//!   whose answers would be larger (the answers to its sender joined, or any
//!   one mail to someone else) changes nothing and gets one short error
//!   instead ([`reply_too_large`]). Outbox rows older than this bound that
//!   are larger than [`MAX_SENDABLE_FACTOR`] times it are given up, never sent.
//! - The send lease: see [`SEND_LEASE`]. A pass claims a batch for
//!   the lease and starts no send that could outlive it, so a mail is never
//!   sent twice by two overlapping passes; a mail that cannot be sent within
//!   its lease is left for the next claim.
//!
//! Kept records (`[retention]`): processed Message-IDs 90 days, sent outbox
//! mails 30 days; each pass (and `tick`) deletes at most [`PRUNE_BATCH`] of
//! each that are older.
//!
//! Logs: every field taken from a mail is written through [`log_field`]:
//! control characters escaped, cut at [`LOG_FIELD_CHARS`] characters.

/// The default of `[limits] max_message_bytes`: what an inbox reads of
/// one mail until the configuration says otherwise (here, not in
/// `config`, so that `mail` needs nothing of `config`).
pub(crate) const MAX_MESSAGE_BYTES: usize = 256 * 1024;

/// The most of an oversized inbound mail that is read: its header.
pub(crate) const HEADER_BYTES: usize = 64 * 1024;

/// How long a pass holds a mail it is sending, by default. A pass claims a
/// batch for the lease (or twice the transport's [`crate::mail::Sender::longest_send`],
/// when that is longer) and starts a send only while the whole send fits in
/// what is left of it; the rest of the batch is given back and claimed
/// afresh. So a send still running never loses its claim to another pass.
/// Outbox mails are bounded by `[limits] max_reply_bytes`, so every send
/// fits; a row too large to send within any lease
/// ([`MAX_SENDABLE_FACTOR`]) is given up.
/// After a crash mid-send the claimed mails are due again as soon as the
/// next sender takes the send lock ([`crate::store::SendLock`]); only where the
/// lock file cannot be opened do they wait for the lease to run out.
/// `[retry] lease_seconds` sets it. It lives here, with the other limits,
/// so that `config` (its default) and `daemon` (its user) both import it
/// from below them.
pub(crate) const SEND_LEASE: std::time::Duration = std::time::Duration::from_secs(600);

/// The longest field taken from a mail that a log line shows.
pub(crate) const LOG_FIELD_CHARS: usize = 200;

/// Outbox rows larger than this many times `max_reply_bytes` (written
/// before the bound existed) are given up rather than sent.
pub(crate) const MAX_SENDABLE_FACTOR: usize = 4;

/// Rows of each kind one prune deletes at most, so a pass stays short.
pub(crate) const PRUNE_BATCH: u32 = 5000;

/// `text` safe for one log line: control characters (escape sequences,
/// line breaks, NUL) written as `\u{..}` escapes, and cut after
/// [`LOG_FIELD_CHARS`] characters with `…` and the full length.
pub(crate) fn log_field(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(LOG_FIELD_CHARS + 16));
    for (n, c) in text.chars().enumerate() {
        if n == LOG_FIELD_CHARS {
            out.push_str(&format!("…({} bytes)", text.len()));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The header of a raw mail: the bytes up to and with the blank line that
/// ends it, at most [`HEADER_BYTES`] (a mail whose header runs longer is
/// cut there).
pub(crate) fn header_of(raw: &[u8]) -> &[u8] {
    let head = &raw[..raw.len().min(HEADER_BYTES)];
    let end = head
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|i| i + 2)
        .into_iter()
        .chain(
            head.windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map(|i| i + 4),
        )
        .min();
    &head[..end.unwrap_or(head.len())]
}

/// The one sentence that refuses a mail whose answers would be `size`
/// bytes (`None` when they fit in `max`). It does not tell the size: the
/// size of answers not sent could tell a guesser which of their commands
/// were answered how.
pub(crate) fn reply_too_large(size: usize, max: usize) -> Option<String> {
    (size > max).then(|| {
        format!(
            "The answers to your mail would be longer than the {max} bytes this server sends in one mail, so nothing of it was done (what it was charged, such as commands and wrong passwords, still counts); ask for fewer boards, topics or players at a time, or send a shorter message."
        )
    })
}

/// Conditional moves: the most plies one line of a tree may
/// have, as the player writes it (an own first ply played at once counts).
pub(crate) const MAX_CONDITIONAL_PLIES: usize = 20;

/// Conditional moves: the most lines one player's tree on one board may
/// hold (lines that share a beginning count once per end).
pub(crate) const MAX_CONDITIONAL_LINES: usize = 50;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_fields_escape_controls_and_are_cut() {
        assert_eq!(
            log_field("a\u{1b}[31mb\r\nc\0"),
            "a\\u{1b}[31mb\\r\\nc\\u{0}"
        );
        let long = "x".repeat(256 * 1024);
        let shown = log_field(&long);
        assert!(shown.chars().count() < LOG_FIELD_CHARS + 20, "{shown}");
        assert!(shown.ends_with("…(262144 bytes)"));
    }

    #[test]
    fn the_header_ends_at_the_first_blank_line() {
        assert_eq!(header_of(b"A: b\r\n\r\nbody\r\n\r\nmore"), b"A: b\r\n\r\n");
        assert_eq!(header_of(b"A: b\n\nbody"), b"A: b\n\n");
        let endless = vec![b'h'; HEADER_BYTES * 2];
        assert_eq!(header_of(&endless).len(), HEADER_BYTES);
    }
}
