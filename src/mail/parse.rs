//! Raw RFC 5322 bytes to an [`Envelope`], with the loop-protection rules.

use crate::hex::encode as hex;
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
///   `hash:<hex sha256 of raw>` when the mail has none; a Message-ID
///   longer than `MAX_MESSAGE_ID` bytes is kept as `hash:<hex sha256 of
///   it>`, so stored header values are bounded.
/// - `sender`: the address of From, ASCII-lower-cased (whole address;
///   local parts are case-insensitive in practice, and the server keys
///   accounts by it). Nothing else is folded: a non-ASCII character never
///   becomes an ASCII one (a KELVIN SIGN `K` is not `k`). Ruling: a From
///   that is not ASCII is no sender, and the mail is never answered
///   (`NON_ASCII_FROM`, in the log): it cannot be answered at exactly
///   itself (see [`is_plausible_address`]). `Reply-To` never names who is asking (issue #31: anyone may
///   write anyone's address there); answers go to From too. A mail with
///   two From headers, or a From naming several addresses, has no sender
///   and is never answered (whom it is from cannot be told).
/// - `body`: the text/plain parts joined; HTML-only mail turned into text by
///   [`html_to_text`]. Line ends are `\n`. Only decoded when the mail may be
///   answered: the never-answer rules read the headers alone, so an ignored
///   mail costs the parsing of its headers (issue #32).
/// - `comment`: see [`extract_comment`].
/// - `never_answer`: see `never_answer_reason`.
/// - `auth_results`: the `Authentication-Results` headers, topmost first
///   (see `mail::auth`).
///
/// `own_addresses` are the server's own addresses (compared
/// case-insensitively, with or without a `+tag`).
pub fn parse_envelope(raw: &[u8], own_addresses: &[String]) -> Envelope {
    let hash_id = || format!("hash:{}", hex(&Sha256::digest(raw)));
    let no_sender = |reason: &str| Envelope {
        message_id: hash_id(),
        sender: None,
        subject: String::new(),
        body: String::new(),
        comment: String::new(),
        never_answer: Some(reason.to_string()),
        replied_to: Vec::new(),
        auth_results: Vec::new(),
    };
    // The headers first: whether the mail is answered at all is decided
    // on them, before any body part is decoded.
    let Some(head) = MessageParser::default().parse_headers(raw) else {
        return no_sender("no sender (not a parseable mail)");
    };
    let headers = raw_headers(&head);
    let message_id = message_id_of(&head).unwrap_or_else(|| content_id(&headers, raw));
    let from_headers = headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("From"))
        .count();
    let from_addresses = from_addresses(&head);
    let from = from_addresses
        .iter()
        .find(|a| is_plausible_address(a))
        .cloned();
    let reply_to = head.reply_to().and_then(first_address);
    let subject = head
        .subject()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let mut never_answer = never_answer_reason(
        &head,
        &headers,
        from.as_deref(),
        reply_to.as_deref(),
        own_addresses,
    );
    if from.is_none() && from_addresses.iter().any(|a| !a.is_ascii()) {
        never_answer = never_answer
            .filter(|r| r != "no sender")
            .or_else(|| Some(NON_ASCII_FROM.to_string()));
    }
    if never_answer.is_none() {
        never_answer = several_senders(from_headers, from_addresses.len());
    }
    let replied_to = replied_to(&head);
    let auth_results = headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("Authentication-Results"))
        .take(super::auth::MAX_HEADERS)
        .filter_map(|(_, v)| super::auth::parse_auth_results(v))
        .collect();
    let (body, comment) = if never_answer.is_none() {
        body_and_comment(raw)
    } else {
        (String::new(), String::new())
    };
    let sender = if from_headers > 1 || from_addresses.len() > 1 {
        None
    } else {
        from
    };
    Envelope {
        message_id,
        sender,
        subject,
        body,
        comment,
        never_answer,
        replied_to,
        auth_results,
    }
}

/// The mail's Message-ID without brackets; one longer than
/// [`MAX_MESSAGE_ID`] as a hash.
fn message_id_of(head: &Message<'_>) -> Option<String> {
    head.message_id().and_then(bare_message_id).map(|id| {
        if id.len() > MAX_MESSAGE_ID {
            format!("hash:{}", hex(&Sha256::digest(id.as_bytes())))
        } else {
            id
        }
    })
}

/// The fields that name a mail without a Message-ID: what its writer put
/// in it, not what the mail systems on the way added (`Received`,
/// `Delivered-To`, `Return-Path`, `Authentication-Results`...).
const WRITERS_FIELDS: &[&str] = &[
    "from",
    "sender",
    "to",
    "cc",
    "date",
    "subject",
    "in-reply-to",
    "references",
];

/// The id of a mail without a Message-ID: a hash of its writer's fields
/// ([`WRITERS_FIELDS`]) and its body as sent. Ruling: the same mail
/// relayed again, with other trace headers on top, has the same id (and
/// runs once); the same text sent at another time (another `Date`) is
/// another mail. A mail without a `Date` either cannot be told from the
/// same text sent again later, so it is named by all its bytes.
fn content_id(headers: &[(String, String)], raw: &[u8]) -> String {
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("date")) {
        return format!("hash:{}", hex(&Sha256::digest(raw)));
    }
    let mut h = Sha256::new();
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        if WRITERS_FIELDS.contains(&name.as_str()) {
            for part in [name.as_bytes(), value.as_bytes()] {
                h.update((part.len() as u64).to_be_bytes());
                h.update(part);
            }
        }
    }
    let body_at = [&b"\r\n\r\n"[..], b"\n\n"]
        .iter()
        .filter_map(|end| {
            raw.windows(end.len())
                .position(|w| w == *end)
                .map(|i| i + end.len())
        })
        .min()
        .unwrap_or(raw.len());
    h.update(&raw[body_at..]);
    format!("hash:{}", hex(&h.finalize()))
}

/// Why a mail whose From address is not ASCII is never answered (see
/// [`is_plausible_address`]).
pub(super) const NON_ASCII_FROM: &str = "a From address that is not ASCII (an answer could only \
     reach an ASCII look-alike of it; write from a plain ASCII address)";

/// Every address of the From headers, trimmed and ASCII-lower-cased.
fn from_addresses(head: &Message<'_>) -> Vec<String> {
    head.from()
        .map(|a| {
            a.iter()
                .filter_map(|a| a.address())
                .map(|a| a.trim().to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default()
}

/// Why a mail with `from_headers` From headers naming `from_addresses`
/// addresses is never answered: whom it is from cannot be told.
fn several_senders(from_headers: usize, from_addresses: usize) -> Option<String> {
    if from_headers > 1 {
        Some("several From headers (whom the mail is from cannot be told)".to_string())
    } else if from_addresses > 1 {
        Some("a From of several addresses (whom the mail is from cannot be told)".to_string())
    } else {
        None
    }
}

/// The whole mail parsed: its text and the player's comment in it.
fn body_and_comment(raw: &[u8]) -> (String, String) {
    match MessageParser::default().parse(raw) {
        Some(msg) => {
            let body = body_text(&msg);
            let comment = extract_comment(&body);
            (body, comment)
        }
        None => (String::new(), String::new()),
    }
}

/// Message-IDs longer than this (the line length limit of RFC 5322) are
/// kept as a hash.
pub(super) const MAX_MESSAGE_ID: usize = 998;

/// A Message-ID without its brackets; none when empty or holding spaces.
fn bare_message_id(id: &str) -> Option<String> {
    let id = id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    (!id.is_empty() && !id.chars().any(char::is_whitespace)).then(|| id.to_string())
}

/// How many ids of `In-Reply-To` and `References` are kept.
const MAX_REPLIED_TO: usize = 100;

/// The Message-IDs of `In-Reply-To`, then of `References` newest first,
/// without brackets, each once; at most [`MAX_REPLIED_TO`] (a thread's
/// References can be long, and the newest are what matter). Linear: ids
/// are deduplicated with a set, and only as many as are kept are looked at.
fn replied_to(msg: &Message<'_>) -> Vec<String> {
    let ids = |v: &mail_parser::HeaderValue<'_>| -> Vec<String> {
        v.as_text_list()
            .unwrap_or_default()
            .iter()
            .filter_map(|id| bare_message_id(id))
            .collect()
    };
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let in_reply_to = ids(msg.in_reply_to());
    let references = ids(msg.references());
    for id in in_reply_to.into_iter().chain(references.into_iter().rev()) {
        if out.len() >= MAX_REPLIED_TO {
            break;
        }
        if id.len() <= MAX_MESSAGE_ID && seen.insert(id.clone()) {
            out.push(id);
        }
    }
    out
}

/// The first usable address (`local@domain`, no white space) of an address
/// header, ASCII-lower-cased.
fn first_address(addr: &Address<'_>) -> Option<String> {
    addr.iter()
        .filter_map(|a| a.address())
        .map(|a| a.trim().to_ascii_lowercase())
        .find(|a| is_plausible_address(a))
}

/// Whether mail can be sent to `a`: `local@domain` without white space,
/// control characters (NUL) or group syntax (`group:a@b;`), and taken by
/// the outbound mail builder, and whose local part does not start with `-`
/// (it could read as an option to a `sendmail` program, should a
/// transport ever forget the `--` before its recipients). Senders that
/// fail it are no senders (the mail is not answered), so no account is
/// ever made for such an address.
///
/// Ruling: an address must be ASCII. The mail library normalises a
/// non-ASCII address as it sends (NFKC: a KELVIN SIGN `K` becomes the
/// letter `K`), so mail to `Karl@...` written with a KELVIN SIGN would
/// reach `karl@...`; such an address can be answered at nothing but a
/// look-alike, and a mail from it is never answered (`NON_ASCII_FROM`).
pub(crate) fn is_plausible_address(a: &str) -> bool {
    match a.rsplit_once('@') {
        Some((local, domain)) => {
            a.is_ascii()
                && !local.is_empty()
                && !local.starts_with('-')
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
/// 7. no usable sender (no From address; a Reply-To alone is none);
/// 8. From or Reply-To is a machine: local part (before any `+tag`)
///    `mailer-daemon`, `postmaster`, `noreply`, `no-reply`, `no_reply`,
///    `donotreply`, `do-not-reply` or `do_not_reply`, any case;
/// 9. From or Reply-To is one of the server's own addresses, with or
///    without a `+tag` (`pbm+x@chess.example` is `pbm@chess.example`).
fn never_answer_reason(
    msg: &Message<'_>,
    headers: &[(String, String)],
    from: Option<&str>,
    reply_to: Option<&str>,
    own: &[String],
) -> Option<String> {
    marked_automatic(msg, headers, own).or_else(|| sender_reason(from, reply_to, own))
}

/// [`never_answer_reason`] from the headers that mark a mail as sent by a
/// machine (first match wins, in the order of the list).
fn marked_automatic(
    msg: &Message<'_>,
    headers: &[(String, String)],
    own: &[String],
) -> Option<String> {
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
        let ours = v
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '<' | '>'))
            .any(|word| own.iter().any(|o| is_own_address(o, word)));
        if ours {
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
    None
}

/// [`never_answer_reason`] from the sender's addresses: none, a machine's,
/// or our own.
fn sender_reason(from: Option<&str>, reply_to: Option<&str>, own: &[String]) -> Option<String> {
    if from.is_none() {
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
        if own.iter().any(|o| is_own_address(o, addr)) {
            return Some(format!("our own address {addr}"));
        }
    }
    None
}

/// Whether `addr` is the server's address `own` (which may be `Name
/// <address>`), ignoring case and a `+tag` on either.
pub(crate) fn is_own_address(own: &str, addr: &str) -> bool {
    let own = own.trim();
    let own = match (own.rfind('<'), own.rfind('>')) {
        (Some(a), Some(b)) if a < b => &own[a + 1..b],
        _ => own,
    };
    let untagged = |a: &str| -> Option<(String, String)> {
        let (local, domain) = a.trim().rsplit_once('@')?;
        let local = local.split('+').next().unwrap_or(local);
        Some((local.to_ascii_lowercase(), domain.to_ascii_lowercase()))
    };
    match (untagged(own), untagged(addr)) {
        (Some(o), Some(a)) => !o.0.is_empty() && o == a,
        _ => false,
    }
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
    fn reply_to_never_names_the_sender() {
        let e = parse_envelope(&plain("Reply-To: <Bob@Example.org>"), &own());
        assert_eq!(e.sender.as_deref(), Some("alice@example.org"));
        let e = parse_envelope(
            &mail("Reply-To: bob@example.org\nSubject: help", "x"),
            &own(),
        );
        assert_eq!(e.sender, None);
        assert_eq!(e.never_answer.as_deref(), Some("no sender"));
    }

    #[test]
    fn two_from_headers_or_several_from_addresses_are_never_answered() {
        let raw = mail(
            "From: alice@example.org\nFrom: mallory@evil.test\nSubject: help",
            "x",
        );
        let e = parse_envelope(&raw, &own());
        assert_eq!(e.sender, None);
        assert!(e.never_answer.unwrap().contains("From"));
        let raw = mail(
            "From: alice@example.org, mallory@evil.test\nSubject: help",
            "x",
        );
        let e = parse_envelope(&raw, &own());
        assert_eq!(e.sender, None);
        assert!(e.never_answer.unwrap().contains("several addresses"));
    }

    #[test]
    fn our_own_address_with_a_tag_is_never_answered() {
        for from in [
            "pbm+x@chess.example",
            "PBM+@Chess.Example",
            "pbm@chess.example",
        ] {
            let raw = mail(&format!("From: {from}\nSubject: help"), "b");
            assert!(
                parse_envelope(&raw, &own())
                    .never_answer
                    .unwrap()
                    .contains("own address"),
                "{from}"
            );
        }
        assert!(is_own_address(
            "PBM Chess <pbm@chess.example>",
            "pbm+a@chess.example"
        ));
        assert!(!is_own_address("pbm@chess.example", "pbmx@chess.example"));
        assert!(!is_own_address(
            "pbm@chess.example",
            "pbm@chess.example.evil"
        ));
    }

    #[test]
    fn addresses_starting_with_a_dash_are_no_senders() {
        assert!(!is_plausible_address("-oQ/tmp@x.test"));
        assert!(!is_plausible_address("--help@x.test"));
        let e = parse_envelope(&mail("From: -bi@x.test\nSubject: help", "b"), &own());
        assert_eq!(e.sender, None);
        assert!(e.never_answer.is_some());
    }

    #[test]
    fn long_message_ids_are_kept_as_a_hash() {
        let long = format!("{}@x.test", "a".repeat(250_000));
        let e = parse_envelope(
            &mail(&format!("From: a@b.c\nMessage-ID: <{long}>"), "x"),
            &own(),
        );
        assert!(e.message_id.starts_with("hash:"), "{}", &e.message_id[..20]);
        assert_eq!(e.message_id.len(), 5 + 64);
        assert_eq!(
            e.message_id,
            format!("hash:{}", hex(&Sha256::digest(long.as_bytes())))
        );
        let exact = format!("{}@x.test", "b".repeat(MAX_MESSAGE_ID - 7));
        assert_eq!(exact.len(), MAX_MESSAGE_ID);
        let e = parse_envelope(
            &mail(&format!("From: a@b.c\nMessage-ID: <{exact}>"), "x"),
            &own(),
        );
        assert_eq!(e.message_id, exact);
    }

    #[test]
    fn references_keep_the_newest_hundred_ids_once_each() {
        let refs: Vec<String> = (0..34_000)
            .map(|i| format!("<r{}@x.test>", i % 20_000))
            .collect();
        let raw = mail(
            &format!(
                "From: a@b.c\nIn-Reply-To: <r33999@x.test>\nReferences: {}",
                refs.join(" ")
            ),
            "x",
        );
        let e = parse_envelope(&raw, &own());
        assert_eq!(e.replied_to.len(), 100);
        assert_eq!(e.replied_to[0], "r33999@x.test");
        // Newest first: the last of References (r13999), then before it.
        assert_eq!(e.replied_to[1], "r13999@x.test");
        assert_eq!(e.replied_to[2], "r13998@x.test");
        let unique: std::collections::HashSet<_> = e.replied_to.iter().collect();
        assert_eq!(unique.len(), 100);
    }

    #[test]
    fn ignored_mail_has_its_body_left_undecoded() {
        let bomb = format!(
            "<html><body>{}{}</body></html>",
            "<blockquote>".repeat(10_900),
            "x<br>".repeat(32_700)
        );
        let raw = mail(
            "From: a@b.c\nPrecedence: bulk\nSubject: help\nContent-Type: text/html",
            &bomb,
        );
        let e = parse_envelope(&raw, &own());
        assert!(e.never_answer.unwrap().contains("bulk"));
        assert_eq!(e.body, "");
        assert_eq!(e.comment, "");
        assert_eq!(e.sender.as_deref(), Some("a@b.c"));
    }

    #[test]
    fn missing_message_id_gives_content_hash() {
        // Without a Date either: its bytes.
        let raw = mail("From: a@b.c\nSubject: x", "body");
        let e = parse_envelope(&raw, &own());
        let expected = format!("hash:{}", hex(&Sha256::digest(&raw)));
        assert_eq!(e.message_id, expected);
        let dated = |head: &str, body: &str| mail(&format!("{head}\nDate: {DATE}"), body);
        let raw = dated("From: a@b.c\nSubject: x", "body");
        let e = parse_envelope(&raw, &own());
        assert!(e.message_id.starts_with("hash:"), "{}", e.message_id);
        assert_eq!(e.message_id.len(), 5 + 64);
        // Trace headers added on the way change nothing; the writer's do.
        let relayed = [
            &b"Received: from x by y; 1\nDelivered-To: p@q.r\n"[..],
            &raw,
        ]
        .concat();
        assert_eq!(parse_envelope(&relayed, &own()).message_id, e.message_id);
        for other in [
            dated("From: a@b.c\nSubject: y", "body"),
            dated("From: a@b.c\nSubject: x", "body2"),
            mail(
                "From: a@b.c\nSubject: x\nDate: Sun, 22 Nov 2026 10:05:00 +0000",
                "body",
            ),
        ] {
            assert_ne!(parse_envelope(&other, &own()).message_id, e.message_id);
        }
    }

    const DATE: &str = "Sun, 22 Nov 2026 10:00:00 +0000";

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
    fn addresses_fold_ascii_case_only_and_a_non_ascii_from_is_never_answered() {
        let e = parse_envelope(&mail("From: Karl@K.Example\nSubject: help", "x"), &own());
        assert_eq!(e.sender.as_deref(), Some("karl@k.example"));
        // KELVIN SIGN, and a dotless I that upper-cases to I.
        for from in [
            "\u{212a}arl@k.example",
            "\u{131}van@k.example",
            "k\u{e4}rl@k.example",
        ] {
            assert!(!is_plausible_address(from), "{from}");
            let e = parse_envelope(&mail(&format!("From: {from}\nSubject: help"), "x"), &own());
            assert_eq!(e.sender, None, "{from}");
            assert_eq!(e.never_answer.as_deref(), Some(NON_ASCII_FROM), "{from}");
        }
        let reply_to = "From: \u{212a}arl@k.example\nReply-To: karl@k.example\nSubject: help";
        assert_eq!(parse_envelope(&mail(reply_to, "x"), &own()).sender, None);
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
