//! What arrives pretending to be from the mail system, second round: a
//! mail delivered again after a mail system on the way re-encoded it.
//! Each attack is sent as the mail that carried it, through the real
//! binary (`poll`, Maildir in and out).

use crate::common;

use common::{to, Install, SentMail, SERVER_ADDRESS};

const ALICE: &str = "alice@a.example";
const SIGNUP: &str = "signup alice Sesame-alice1\r\n";

fn deliver(s: &mut Install, raw: &str) -> Vec<SentMail> {
    s.deliver_raw(raw);
    s.poll();
    s.take_outbox()
}

/// alice's mail `id` with `body`, as a mail system on the way may have
/// rewritten it (`content_type` and its encoded text).
fn alices(id: &str, content_type: &str, body: &str) -> String {
    format!(
        "From: {ALICE}\r\nTo: {SERVER_ADDRESS}\r\nSubject: commands\r\n\
         Message-ID: <{id}>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\n\
         MIME-Version: 1.0\r\n{content_type}\r\n\r\n{body}"
    )
}

#[test]
fn a_mail_delivered_again_re_encoded_on_the_way_is_not_run_twice() {
    let mut s = Install::new();
    let id = "resent.1@a.example";
    let plain = "Content-Type: text/plain; charset=utf-8";
    let first = deliver(&mut s, &alices(id, plain, SIGNUP));
    assert_eq!(to(&first, ALICE).len(), 1, "{first:#?}");
    for (content_type, body) in [
        // A trailing blank line added.
        (plain, "signup alice Sesame-alice1\r\n\r\n"),
        // White space added, the last line end dropped.
        (plain, " signup  alice Sesame-alice1 \t"),
        // Wrapped in a multipart by a relay (with another boundary).
        (
            "Content-Type: multipart/mixed; boundary=\"relay-1\"",
            "--relay-1\r\nContent-Type: text/plain\r\n\r\nsignup alice Sesame-alice1\r\n--relay-1--\r\n",
        ),
        // Re-encoded as base64 without its line end.
        (
            "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64",
            "c2lnbnVwIGFsaWNlIFNlc2FtZS1hbGljZTE=\r\n",
        ),
    ] {
        let again = deliver(&mut s, &alices(id, content_type, body));
        assert!(again.is_empty(), "{content_type} {body:?}: {again:#?}");
    }
    // Other text under the same id is another mail, and is answered.
    let other = deliver(&mut s, &alices(id, plain, "signup alice Sesame-alice2\r\n"));
    assert_eq!(to(&other, ALICE).len(), 1, "{other:#?}");
}

/// `KARL@` with a KELVIN SIGN for its `K`: mail to it could only reach
/// the ASCII look-alike `karl@`.
const KELVIN_KARL: &str = "\u{212A}arl@k.example";

#[test]
fn the_admin_cli_adds_no_address_that_is_not_ascii() {
    let s = Install::new();
    let out = s.run(&["admin", "user", "add", "karl", "Sesame-karl1", KELVIN_KARL]);
    let said =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("not plain ASCII"), "{said}");
    // Nothing half-written: the userid is free for the right address.
    s.ok(&[
        "admin",
        "user",
        "add",
        "karl",
        "Sesame-karl1",
        "karl@k.example",
    ]);
}

#[test]
fn a_mail_without_message_id_relayed_again_is_not_run_twice() {
    let mut s = Install::new();
    let mail = format!(
        "From: {ALICE}\r\nTo: {SERVER_ADDRESS}\r\nSubject: commands\r\n\
         Date: Sun, 22 Nov 2026 10:00:00 +0000\r\n\r\n{SIGNUP}"
    );
    let first = deliver(&mut s, &format!("Received: from a by mx; q1\r\n{mail}"));
    assert_eq!(to(&first, ALICE).len(), 1, "{first:#?}");
    // The sending relay saw no answer and sent it again: the receiving
    // one adds its own trace headers, with another time and queue id.
    let again = deliver(
        &mut s,
        &format!(
            "Return-Path: <{ALICE}>\r\nDelivered-To: {SERVER_ADDRESS}\r\n\
             Received: from a by mx; q2\r\n{mail}"
        ),
    );
    assert!(again.is_empty(), "{again:#?}");
    // Another mail of hers with the same text, written at another time,
    // is another mail.
    let later = deliver(&mut s, &mail.replace("10:00:00", "10:05:00"));
    assert_eq!(to(&later, ALICE).len(), 1, "{later:#?}");
}
