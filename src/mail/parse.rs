//! Raw RFC 5322 bytes to an [`Envelope`], with the loop-protection rules.

use mail_parser::{Address, Message, MessageParser, MimeHeaders, PartType};
use sha2::{Digest, Sha256};

use super::text::{extract_comment, html_to_text};
use super::Envelope;

/// Local parts (before any `+tag`) of addresses that are machines and must
/// never be answered.
const MACHINE_LOCAL_PARTS: &[&str] = &[
    "mailer-daemon",
    "postmaster",
    "noreply",
    "no-reply",
    "no_reply",
    "donotreply",
    "do-not-reply",
    "do_not_reply",
];

/// Parses one raw inbound message. Never panics and never fails: malformed
/// MIME or binary junk gives an envelope with empty strings, `sender: None`
/// and a `never_answer` reason.
///
/// - `message_id`: the Message-ID without angle brackets, or
///   `hash:<hex sha256 of raw>` when the mail has none.
/// - `sender`: the first address of Reply-To if present, else of From,
///   lower-cased (whole address; local parts are case-insensitive in
///   practice, and the server keys accounts by it).
/// - `body`: the text/plain parts joined; HTML-only mail turned into text by
///   [`html_to_text`]. Line ends are `\n`.
/// - `comment`: see [`extract_comment`].
/// - `never_answer`: see [`never_answer_reason`].
///
/// `own_addresses` are the server's own addresses (compared
/// case-insensitively).
pub fn parse_envelope(raw: &[u8], own_addresses: &[String]) -> Envelope {
    let hash_id = || format!("hash:{}", hex(&Sha256::digest(raw)));
    let Some(msg) = MessageParser::default().parse(raw) else {
        return Envelope {
            message_id: hash_id(),
            sender: None,
            subject: String::new(),
            body: String::new(),
            comment: String::new(),
            never_answer: Some("no sender (not a parseable mail)".to_string()),
            replied_to: Vec::new(),
        };
    };
    let message_id = msg
        .message_id()
        .and_then(bare_message_id)
        .unwrap_or_else(hash_id);
    let from = msg.from().and_then(first_address);
    let reply_to = msg.reply_to().and_then(first_address);
    let sender = reply_to.clone().or_else(|| from.clone());
    let subject = msg
        .subject()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let body = body_text(&msg);
    let comment = extract_comment(&body);
    let never_answer =
        never_answer_reason(&msg, from.as_deref(), reply_to.as_deref(), own_addresses);
    let replied_to = replied_to(&msg);
    Envelope {
        message_id,
        sender,
        subject,
        body,
        comment,
        never_answer,
        replied_to,
    }
}

/// A Message-ID without its brackets; none when empty or holding spaces.
fn bare_message_id(id: &str) -> Option<String> {
    let id = id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    (!id.is_empty() && !id.chars().any(char::is_whitespace)).then(|| id.to_string())
}

/// The Message-IDs of `In-Reply-To`, then of `References` newest first,
/// without brackets, each once; at most 100 (a thread's References can
/// be long, and the newest are what matter).
fn replied_to(msg: &Message<'_>) -> Vec<String> {
    let ids = |v: &mail_parser::HeaderValue<'_>| -> Vec<String> {
        v.as_text_list()
            .unwrap_or_default()
            .iter()
            .filter_map(|id| bare_message_id(id))
            .collect()
    };
    let mut out = ids(msg.in_reply_to());
    for id in ids(msg.references()).into_iter().rev() {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out.truncate(100);
    out
}

/// The first usable address (`local@domain`, no white space) of an address
/// header, lower-cased.
fn first_address(addr: &Address<'_>) -> Option<String> {
    addr.iter()
        .filter_map(|a| a.address())
        .map(|a| a.trim().to_lowercase())
        .find(|a| is_plausible_address(a))
}

/// Whether mail can be sent to `a`: `local@domain` without white space,
/// control characters (NUL) or group syntax (`group:a@b;`), and taken by
/// the outbound mail builder. Senders that fail it are no senders (the
/// mail is not answered), so no account is ever made for such an address.
pub(crate) fn is_plausible_address(a: &str) -> bool {
    match a.rsplit_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !a.chars().any(|c| {
                    c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | ':' | ';' | ',')
                })
                && a.parse::<lettre::Address>().is_ok()
        }
        None => false,
    }
}

/// The plain text of the body: every text body part (HTML parts converted),
/// joined by a newline, with `\r\n` turned into `\n`.
fn body_text(msg: &Message<'_>) -> String {
    let mut parts: Vec<String> = Vec::new();
    for &id in &msg.text_body {
        match msg.parts.get(id as usize).map(|p| &p.body) {
            Some(PartType::Text(t)) => parts.push(t.to_string()),
            Some(PartType::Html(h)) => parts.push(html_to_text(h)),
            _ => {}
        }
    }
    if parts.is_empty() {
        // No text/plain: fall back to the first HTML part.
        if let Some(PartType::Html(h)) = msg
            .html_body
            .first()
            .and_then(|&id| msg.parts.get(id as usize))
            .map(|p| &p.body)
        {
            parts.push(html_to_text(h));
        }
    }
    let joined = parts.join("\n");
    joined.replace("\r\n", "\n").replace('\r', "\n")
}

/// Why a mail must never be answered, or `None`. Rules, first match wins:
///
/// 1. `Auto-Submitted` present with a value other than `no` (RFC 3834);
/// 2. `Precedence: bulk`, `junk` or `list`;
/// 3. any `List-Id` or `List-Unsubscribe` header (mailing list traffic);
/// 4. an `X-Autoreply` or `X-Autorespond` header (older vacation
///    responders that do not set `Auto-Submitted`);
/// 5. an empty return path (`Return-Path: <>`): bounces and DSNs, or an
///    `X-Loop` header naming one of our own addresses (a mail that went
///    round through a forwarder);
/// 6. a delivery report (`Content-Type: multipart/report`);
/// 7. no usable sender (no From nor Reply-To address);
/// 8. From or Reply-To is a machine: local part (before any `+tag`)
///    `mailer-daemon`, `postmaster`, `noreply`, `no-reply`, `no_reply`,
///    `donotreply`, `do-not-reply` or `do_not_reply`, any case;
/// 9. From or Reply-To is one of the server's own addresses.
fn never_answer_reason(
    msg: &Message<'_>,
    from: Option<&str>,
    reply_to: Option<&str>,
    own: &[String],
) -> Option<String> {
    let headers = raw_headers(msg);
    let values = |name: &'static str| {
        headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    // The first word of a value, before any parameter or (comment).
    let token = |v: &str| {
        v.split(|c: char| c == ';' || c == '(' || c.is_whitespace())
            .find(|t| !t.is_empty())
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    for v in values("Auto-Submitted") {
        let token = token(v);
        if token != "no" {
            return Some(format!("Auto-Submitted: {}", v.trim()));
        }
    }
    for v in values("Precedence") {
        let token = token(v);
        if matches!(token.as_str(), "bulk" | "junk" | "list") {
            return Some(format!("Precedence: {token}"));
        }
    }
    for name in ["List-Id", "List-Unsubscribe"] {
        if values(name).next().is_some() {
            return Some(format!("mailing list mail ({name})"));
        }
    }
    for name in ["X-Autoreply", "X-Autorespond"] {
        if values(name).next().is_some() {
            return Some(format!("auto-reply ({name})"));
        }
    }
    for v in values("X-Loop") {
        let v = v.to_ascii_lowercase();
        if own
            .iter()
            .any(|o| !o.trim().is_empty() && v.contains(&o.trim().to_ascii_lowercase()))
        {
            return Some(format!("loop (X-Loop: {})", v.trim()));
        }
    }
    for v in values("Return-Path") {
        let inner: String = v.chars().filter(|c| !c.is_whitespace()).collect();
        if inner == "<>" || inner.is_empty() {
            return Some("empty return path (bounce)".to_string());
        }
    }
    if let Some(ct) = msg.root_part().content_type() {
        if ct.ctype().eq_ignore_ascii_case("multipart")
            && ct
                .subtype()
                .is_some_and(|s| s.eq_ignore_ascii_case("report"))
        {
            return Some("delivery report (multipart/report)".to_string());
        }
    }
    if from.is_none() && reply_to.is_none() {
        return Some("no sender".to_string());
    }
    for addr in [from, reply_to].into_iter().flatten() {
        let local = addr.rsplit_once('@').map(|(l, _)| l).unwrap_or(addr);
        let local = local.split('+').next().unwrap_or(local);
        if MACHINE_LOCAL_PARTS.contains(&local) {
            return Some(format!("machine sender {addr}"));
        }
    }
    for addr in [from, reply_to].into_iter().flatten() {
        if own.iter().any(|o| o.trim().eq_ignore_ascii_case(addr)) {
            return Some(format!("our own address {addr}"));
        }
    }
    None
}

/// The top-level headers as (name, unfolded raw value), in order.
fn raw_headers(msg: &Message<'_>) -> Vec<(String, String)> {
    let raw = msg.raw_message();
    msg.root_part()
        .headers
        .iter()
        .map(|h| {
            let start = (h.offset_start as usize).min(raw.len());
            let end = (h.offset_end as usize).clamp(start, raw.len());
            let value = String::from_utf8_lossy(&raw[start..end])
                .replace("\r\n", "")
                .replace('\n', "");
            (h.name().to_string(), value.trim().to_string())
        })
        .collect()
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const OWN: &str = "pbm@chess.example";

    fn own() -> Vec<String> {
        vec![OWN.to_string()]
    }

    fn mail(headers: &str, body: &str) -> Vec<u8> {
        format!("{headers}\r\n\r\n{body}")
            .replace("\r\n", "\n")
            .replace('\n', "\r\n")
            .into_bytes()
    }

    fn plain(extra: &str) -> Vec<u8> {
        let mut h = String::from("From: Alice <Alice@Example.ORG>\nTo: pbm@chess.example\nSubject: chess move 101 alice pw e4\nMessage-ID: <abc@example.org>");
        if !extra.is_empty() {
            h.push('\n');
            h.push_str(extra);
        }
        mail(&h, "Your move!\n")
    }

    #[test]
    fn plain_mail_gives_all_fields() {
        let e = parse_envelope(&plain(""), &own());
        assert_eq!(e.message_id, "abc@example.org");
        assert_eq!(e.sender.as_deref(), Some("alice@example.org"));
        assert_eq!(e.subject, "chess move 101 alice pw e4");
        assert_eq!(e.body, "Your move!\n");
        assert_eq!(e.comment, "Your move!");
        assert_eq!(e.never_answer, None);
    }

    #[test]
    fn reply_to_wins_over_from() {
        let e = parse_envelope(&plain("Reply-To: <Bob@Example.org>"), &own());
        assert_eq!(e.sender.as_deref(), Some("bob@example.org"));
    }

    #[test]
    fn missing_message_id_gives_content_hash() {
        let raw = mail("From: a@b.c\nSubject: x", "body");
        let e = parse_envelope(&raw, &own());
        let expected = format!("hash:{}", hex(&Sha256::digest(&raw)));
        assert_eq!(e.message_id, expected);
        assert_eq!(e.message_id.len(), 5 + 64);
    }

    #[test]
    fn message_id_without_brackets_is_kept() {
        let e = parse_envelope(&mail("From: a@b.c\nMessage-ID: plain-id@host", "x"), &own());
        assert_eq!(e.message_id, "plain-id@host");
    }

    #[test]
    fn encoded_subject_is_decoded_and_unfolded() {
        let e = parse_envelope(
            &mail(
                "From: a@b.c\nSubject: =?utf-8?q?chess_move_101_=C3=A9?=\n  folded",
                "x",
            ),
            &own(),
        );
        assert_eq!(e.subject, "chess move 101 é folded");
    }

    #[test]
    fn empty_subject_is_empty_string() {
        let e = parse_envelope(&mail("From: a@b.c\nSubject:", "x"), &own());
        assert_eq!(e.subject, "");
        let e = parse_envelope(&mail("From: a@b.c", "x"), &own());
        assert_eq!(e.subject, "");
    }

    fn reason(extra: &str) -> Option<String> {
        parse_envelope(&plain(extra), &own()).never_answer
    }

    #[test]
    fn precedence_with_a_comment_is_still_bulk() {
        assert!(reason("Precedence: bulk (x)").unwrap().contains("bulk"));
        assert!(reason("Precedence:   LIST(mailman)")
            .unwrap()
            .contains("list"));
        assert_eq!(reason("Auto-Submitted: no (a person)"), None);
    }

    #[test]
    fn addresses_that_cannot_be_sent_to_are_no_senders() {
        for bad in [
            "a\0b@x.test",
            "grp:a@x.test",
            "a@x.test;",
            "a b@x.test",
            "@x.test",
        ] {
            assert!(!is_plausible_address(bad), "{bad:?}");
        }
        assert!(is_plausible_address("alice+chess@example.org"));
        let e = parse_envelope(&mail("From: friends: ;\nSubject: signup x pw", "x"), &own());
        assert_eq!(e.sender, None);
    }

    #[test]
    fn auto_submitted_other_than_no_is_never_answered() {
        assert!(reason("Auto-Submitted: auto-replied")
            .unwrap()
            .contains("Auto-Submitted"));
        assert!(reason("Auto-Submitted: auto-generated; owner=x").is_some());
        assert_eq!(reason("Auto-Submitted: no"), None);
        assert_eq!(reason("Auto-Submitted: No ; comment"), None);
    }

    #[test]
    fn precedence_bulk_junk_list_is_never_answered() {
        for p in ["bulk", "junk", "list", "Bulk"] {
            assert!(reason(&format!("Precedence: {p}")).is_some(), "{p}");
        }
        assert_eq!(reason("Precedence: first-class"), None);
    }

    #[test]
    fn list_headers_are_never_answered() {
        assert!(reason("List-Id: <chess.lists.example>").is_some());
        assert!(reason("List-Unsubscribe: <mailto:x@y>").is_some());
    }

    #[test]
    fn vacation_markers_are_never_answered() {
        assert!(reason("X-Autoreply: yes").is_some());
        assert!(reason("X-Autorespond: yes").is_some());
    }

    #[test]
    fn empty_return_path_is_never_answered() {
        assert!(reason("Return-Path: <>").unwrap().contains("return path"));
        assert!(reason("Return-Path: < >").is_some());
        assert_eq!(reason("Return-Path: <alice@example.org>"), None);
    }

    #[test]
    fn delivery_reports_are_never_answered() {
        assert!(
            reason("Content-Type: multipart/report; report-type=delivery-status; boundary=x")
                .is_some()
        );
    }

    #[test]
    fn machine_senders_are_never_answered() {
        for from in [
            "MAILER-DAEMON@mx.example",
            "postmaster@example.org",
            "mailer-daemon@x.y",
            "noreply@github.example",
            "no-reply+abc@x.y",
            "Do-Not-Reply@x.y",
        ] {
            let raw = mail(&format!("From: {from}\nSubject: x"), "b");
            assert!(
                parse_envelope(&raw, &own()).never_answer.is_some(),
                "{from}"
            );
        }
        // A human with a machine Reply-To, or the other way round.
        let raw = mail(
            "From: alice@example.org\nReply-To: noreply@example.org",
            "b",
        );
        assert!(parse_envelope(&raw, &own()).never_answer.is_some());
        let raw = mail(
            "From: noreply@example.org\nReply-To: alice@example.org",
            "b",
        );
        assert!(parse_envelope(&raw, &own()).never_answer.is_some());
        // Similar names are humans.
        let raw = mail("From: postmasterfan@example.org", "b");
        assert_eq!(parse_envelope(&raw, &own()).never_answer, None);
    }

    #[test]
    fn own_address_is_never_answered_case_insensitively() {
        let raw = mail(
            "From: Chess Server <PBM@Chess.Example>\nSubject: Chess Board 101 bob",
            "b",
        );
        let e = parse_envelope(&raw, &own());
        assert!(e.never_answer.unwrap().contains("own address"));
    }

    #[test]
    fn no_sender_is_never_answered() {
        let e = parse_envelope(&mail("To: x@y.z\nSubject: hi", "b"), &own());
        assert_eq!(e.sender, None);
        assert_eq!(e.never_answer.as_deref(), Some("no sender"));
        let e = parse_envelope(
            &mail("From: undisclosed-recipients:;\nSubject: hi", "b"),
            &own(),
        );
        assert_eq!(e.sender, None);
        assert!(e.never_answer.is_some());
    }

    #[test]
    fn html_only_mail_becomes_text() {
        let raw = mail(
            "From: a@b.c\nSubject: chess move\nContent-Type: text/html; charset=utf-8",
            "<html><body><p>Nice &amp; quick</p><div>line two<br>three</div>\
             <div>On Mon, B wrote:</div><blockquote><p>old</p></blockquote></body></html>",
        );
        let e = parse_envelope(&raw, &own());
        assert_eq!(
            e.body,
            "Nice & quick\nline two\nthree\nOn Mon, B wrote:\n> old"
        );
        assert_eq!(e.comment, "Nice & quick\nline two\nthree");
    }

    #[test]
    fn multipart_alternative_prefers_plain_text() {
        let raw = mail(
            "From: a@b.c\nSubject: s\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=XX",
            "--XX\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n\
             Caf=C3=A9 move\n--XX\nContent-Type: text/html\n\n<p>HTML version</p>\n--XX--\n",
        );
        let e = parse_envelope(&raw, &own());
        assert_eq!(e.body.trim(), "Café move");
    }

    #[test]
    fn quotes_and_signature_are_not_in_the_comment() {
        let raw = mail(
            "From: a@b.c\nSubject: s",
            "Check!\n\nOn Sun, Bob <bob@x.y> wrote:\n> your turn\n> board\n\n-- \nAlice\n",
        );
        let e = parse_envelope(&raw, &own());
        assert_eq!(e.comment, "Check!");
        assert!(e.body.contains("> your turn"));
    }

    #[test]
    fn junk_bytes_give_an_envelope() {
        for raw in [
            &b""[..],
            b"\x00\xff\xfe garbage",
            b"\r\n\r\n",
            b"From:",
            b"::::\n\n\n",
        ] {
            let e = parse_envelope(raw, &own());
            assert!(e.message_id.starts_with("hash:"));
            assert_eq!(e.sender, None);
            assert!(e.never_answer.is_some());
        }
    }

    #[test]
    fn broken_mime_does_not_lose_the_sender() {
        let raw = mail(
            "From: a@b.c\nSubject: s\nContent-Type: multipart/mixed; boundary=\"nope",
            "--nope\n\x7f junk\n--",
        );
        let e = parse_envelope(&raw, &own());
        assert_eq!(e.sender.as_deref(), Some("a@b.c"));
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(raw in proptest::collection::vec(any::<u8>(), 0..600)) {
            let e = parse_envelope(&raw, &own());
            prop_assert!(!e.message_id.is_empty());
        }

        #[test]
        fn never_panics_on_mail_shaped_junk(
            headers in proptest::collection::vec("[A-Za-z-]{1,15}: [ -~\u{e9}<>@=?]{0,40}", 0..8),
            body in "[ -~\n\r\u{e9}<>&;]{0,200}",
            ctype in prop_oneof![Just("text/plain"), Just("text/html"), Just("multipart/mixed; boundary=b"), Just("multipart/alternative; boundary=\"b")],
        ) {
            let raw = format!("From: a@b.c\r\nContent-Type: {ctype}\r\n{}\r\n\r\n{body}\r\n--b\r\nContent-Type: text/html\r\n\r\n{body}\r\n--b--", headers.join("\r\n"));
            let _ = parse_envelope(raw.as_bytes(), &own());
        }
    }
}
