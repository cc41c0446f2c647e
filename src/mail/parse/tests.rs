//! The envelope parser against raw mails: ids, senders, bodies, and the
//! rules that keep the server from answering machines and itself.

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
        reason("Content-Type: multipart/report; report-type=delivery-status; boundary=x").is_some()
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
