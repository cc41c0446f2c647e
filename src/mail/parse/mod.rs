//! Raw RFC 5322 bytes to an [`Envelope`], with the loop-protection rules.

use crate::hex::encode as hex;
use mail_parser::{Address, Message, MessageParser, MimeHeaders, PartType};
use sha2::{Digest, Sha256};

use super::comment::extract_comment;
use super::html_text::html_to_text;
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
///   itself (see `is_plausible_address`). `Reply-To` never names who is asking (anyone may
///   write anyone's address there); answers go to From too. A mail with
///   two From headers, or a From naming several addresses, has no sender
///   and is never answered (whom it is from cannot be told).
/// - `body`: the text/plain parts joined; HTML-only mail turned into text by
///   `html_to_text`. Line ends are `\n`. Only decoded when the mail may be
///   answered: the never-answer rules read the headers alone, so an ignored
///   mail costs the parsing of its headers.
/// - `comment`: see `extract_comment`.
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

/// Whether `addr` is the server's address `own` (which may be
/// `Name <address>`), ignoring case and a `+tag` on either.
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
mod tests;
