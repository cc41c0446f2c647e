//! The message of an outbox row: its headers (Message-ID, threading,
//! `Auto-Submitted`), its text and HTML parts, their encodings.

use std::time::SystemTime;

#[cfg(test)]
use std::time::Duration;

use lettre::message::header::{
    ContentTransferEncoding, ContentType, HeaderName, HeaderValue, MIME_VERSION_1_0,
};
use lettre::message::{Attachment, Body, Mailbox, MessageBuilder, MultiPart, SinglePart};
use lettre::Message;
use sha2::{Digest, Sha256};

use super::message_id::{is_message_id, outgoing_message_id};
use super::SendError;
use crate::hex::encode as hex;
use crate::mail::Outgoing;

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
/// `text_body`). `build_message_in_form` builds a board mail with its
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

/// What the body of a mail is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MailForm<'a> {
    /// One text/plain part.
    Plain,
    /// multipart/alternative: the text/plain part, then a text/html part
    /// showing the same text in a monospace `<pre>` (see `mail::html`).
    WithHtml,
    /// multipart/alternative: the text/plain part, then a
    /// multipart/related of the text/html part showing this picture (a
    /// PNG, see `mail::picture`) above the text, and the picture as an
    /// inline image/png part with its `Content-ID`.
    WithPicture(&'a [u8]),
}

impl<'a> MailForm<'a> {
    /// The form an outbox mail was queued with (`html` and `picture` of
    /// its row). A picture whose size cannot be read is left out.
    pub(crate) fn of_row(html: bool, picture: Option<&'a [u8]>) -> MailForm<'a> {
        match picture {
            Some(png) if html && crate::mail::picture::size(png).is_some() => {
                MailForm::WithPicture(png)
            }
            _ if html => MailForm::WithHtml,
            _ => MailForm::Plain,
        }
    }
}

/// [`build_message_with_id`] in the form `form`. Every text part goes out
/// `7bit` when it is ASCII and `8bit` when not (see `text_body`).
pub(crate) fn build_message_in_form(
    out: &Outgoing,
    message_id: MessageId<'_>,
    form: MailForm<'_>,
    from: &str,
    date: SystemTime,
) -> Result<Message, SendError> {
    let builder = headers(out, message_id, from, date)?;
    let built = match form {
        MailForm::Plain => builder
            .header(ContentType::TEXT_PLAIN)
            .body(text_body(&out.body)),
        MailForm::WithHtml => {
            let html = crate::mail::html::html_document(&out.body);
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
        MailForm::WithPicture(png) => {
            let (width, height) = crate::mail::picture::size(png).unwrap_or((0, 0));
            let id = crate::mail::picture::content_id(png);
            let html = crate::mail::html::html_document_with_picture(&out.body, &id, width, height);
            let picture = Attachment::new_inline(id).body(
                Body::new(png.to_vec()),
                ContentType::parse("image/png")
                    .map_err(|e| SendError::Permanent(format!("cannot build the message: {e}")))?,
            );
            builder.multipart(
                MultiPart::alternative()
                    .boundary(boundary(&out.body, &html))
                    .singlepart(
                        SinglePart::builder()
                            .header(ContentType::TEXT_PLAIN)
                            .body(text_body(&out.body)),
                    )
                    .multipart(
                        MultiPart::related()
                            .boundary(boundary(&html, &out.body))
                            .singlepart(
                                SinglePart::builder()
                                    .header(ContentType::TEXT_HTML)
                                    .body(text_body(&html)),
                            )
                            .singlepart(picture),
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

/// A text part's body, lines ended by CRLF, sent as written:
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
fn auto_submitted(out: &Outgoing) -> &'static str {
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use proptest::prelude::*;

    pub(crate) fn row() -> Outgoing {
        Outgoing {
            to: "bob@example.org".into(),
            subject: "Chess Board 101 bob".into(),
            body: "It is bob's turn.\n\n  +---+\n  |:P:|\n".into(),
            in_reply_to: Some("abc@example.org".into()),
        }
    }

    pub(crate) const FROM: &str = "PBM Chess <pbm@chess.example>";
    /// The server's Message-ID key in these tests.
    pub(crate) const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    pub(crate) fn at() -> SystemTime {
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
    fn a_mail_that_comes_back_through_a_forwarder_is_never_answered() {
        let t = formatted(&row(), 1);
        // A forwarder that strips Auto-Submitted.
        let stripped = t.replace("Auto-Submitted: auto-replied\r\n", "");
        assert!(!stripped.contains("Auto-Submitted"));
        let stripped = stripped.replace(
            "From: \"PBM Chess\" <pbm@chess.example>",
            "From: fwd@relay.example",
        );
        let e = crate::mail::parse_envelope(stripped.as_bytes(), &["pbm@chess.example".into()]);
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
        let parsed = crate::mail::parse_envelope(t.as_bytes(), &[]);
        assert_eq!(parsed.subject, "Schach Brett 101 jürgen Bcc: evil@x.y");
    }

    #[test]
    fn spaces_between_non_ascii_words_survive() {
        let mut out = row();
        out.subject = "♞  ü\t\té  x".into();
        let t = formatted(&out, 1);
        let parsed = crate::mail::parse_envelope(t.as_bytes(), &[]);
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
        let e = crate::mail::parse_envelope(t.as_bytes(), &[]);
        assert!(e.never_answer.unwrap().contains("Auto-Submitted"));
    }

    #[test]
    fn our_replies_are_never_answered_by_ourselves() {
        let t = formatted(&row(), 1);
        let e = crate::mail::parse_envelope(t.as_bytes(), &["pbm@chess.example".into()]);
        assert!(e.never_answer.is_some());
        let e = crate::mail::parse_envelope(t.as_bytes(), &[]);
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

    fn in_form(out: &Outgoing, form: MailForm<'_>) -> String {
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
        let env = crate::mail::parse_envelope(raw.as_bytes(), &[]);
        assert_eq!(env.body, out.body);
    }

    #[test]
    fn a_picture_goes_inline_in_a_related_part_after_the_text_and_resends_the_same() {
        let out = row();
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"32\">\
                   <rect width=\"32\" height=\"32\" fill=\"#b58863\"/></svg>";
        let png = crate::mail::picture::png(svg).unwrap();
        let t = in_form(&out, MailForm::WithPicture(&png));
        assert!(header(&t, "Content-Type")
            .unwrap()
            .starts_with("multipart/alternative;"));
        let id = crate::mail::picture::content_id(&png);
        let at = |needle: &str| t.find(needle).unwrap_or_else(|| panic!("{needle}: {t}"));
        assert!(at("Content-Type: text/plain") < at("Content-Type: multipart/related"));
        assert!(at("Content-Type: multipart/related") < at("Content-Type: text/html"));
        assert!(at("Content-Type: text/html") < at("Content-Type: image/png"));
        assert!(at(&format!("src=\"cid:{id}\"")) < at(&format!("Content-ID: <{id}>")));
        assert!(t.contains("width=\"64\" height=\"32\""), "{t}");
        assert!(t.contains("Content-Disposition: inline"), "{t}");
        assert!(t.contains("Content-Transfer-Encoding: base64"), "{t}");
        for line in t.split("\r\n") {
            assert!(line.len() <= 78, "{line:?}");
        }
        assert!(!t.contains("src=\"http"), "nothing remote");
        // The picture's bytes come back from the base64 lines.
        use base64::Engine as _;
        let body = t[at("Content-Type: image/png")..]
            .split("\r\n\r\n")
            .nth(1)
            .unwrap();
        let b64: String = body.lines().take_while(|l| !l.starts_with("--")).collect();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .unwrap();
        assert_eq!(decoded, png);
        assert_eq!(
            t,
            in_form(&out, MailForm::WithPicture(&png)),
            "a resend is the same mail"
        );
        let raw = t.replacen("Auto-Submitted: auto-replied\r\n", "", 1);
        let env = crate::mail::parse_envelope(raw.as_bytes(), &[]);
        assert_eq!(env.body, out.body);
        // A row keeps its form; a picture that is no PNG is left out.
        assert_eq!(
            MailForm::of_row(true, Some(&png)),
            MailForm::WithPicture(&png)
        );
        assert_eq!(MailForm::of_row(false, Some(&png)), MailForm::Plain);
        assert_eq!(MailForm::of_row(true, Some(b"junk")), MailForm::WithHtml);
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
            let env = crate::mail::parse_envelope(raw.as_bytes(), &[]);
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
