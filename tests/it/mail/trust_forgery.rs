//! What arrives pretending to be from the mail system: forged `Authentication-Results`, forged bounces, a
//! stranger's mail carrying a player's next Message-ID, and a From that
//! only Unicode folds into a player's address. Each attack is sent as the
//! mail that carried it, through the real binary (`poll`, Maildir in and
//! out).

use crate::common;

use common::{only_one, to, Install, SentMail, SERVER_ADDRESS};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";
const CAROL: &str = "carol@c.example";

fn deliver(s: &mut Install, raw: &str) -> Vec<SentMail> {
    s.deliver_raw(raw);
    s.poll();
    s.take_outbox()
}

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

fn mid(m: &SentMail) -> String {
    m.header("Message-ID").expect("a Message-ID")
}

/// A plain mail with `extra_headers` right after From.
fn with_headers(from: &str, subject: &str, id: &str, extra_headers: &str, body: &str) -> String {
    common::raw_mail(from, subject, body, id).replacen("\r\n", &format!("\r\n{extra_headers}"), 1)
}

/// The `Authentication-Results` an rspamd that writes the envelope sender
/// unquoted adds to a mail sent `MAIL FROM:<"x;dmarc=pass;"@evil.org>`
/// with a From in `from_domain`, whose DMARC check failed.
fn rspamd_injected(from_domain: &str) -> String {
    format!(
        "Authentication-Results: mx.games.test; dkim=none; spf=pass (mx.games.test: \
         domain of x;dmarc=pass;@evil.org designates 192.0.2.7 as permitted sender) \
         smtp.mailfrom=x;dmarc=pass;@evil.org; dmarc=fail reason=\"No valid SPF, No valid \
         DKIM\" header.from={from_domain} (policy=reject)\r\n"
    )
}

/// The same attack, written so that every part of the header reads.
fn rspamd_injected_clean(from_domain: &str) -> String {
    format!(
        "Authentication-Results: mx.games.test; dkim=none; spf=pass \
         smtp.mailfrom=a@b;dmarc=pass header.from={from_domain}; x=none x.y=a@evil.org; \
         dmarc=fail header.from={from_domain} (policy=reject)\r\n"
    )
}

const AUTHSERV: &str = "[security]\nauthserv_id = \"mx.games.test\"\n";

fn genuine(from_domain: &str) -> String {
    format!(
        "Authentication-Results: mx.games.test; dkim=pass header.d={from_domain} \
         header.s=s1 header.b=abc12345; dmarc=pass (policy=reject) header.from={from_domain}\r\n"
    )
}

/// alice, bob and carol signed up; `authserv_id` set.
fn authenticating() -> Install {
    let mut s = Install::with_config(AUTHSERV);
    for (who, addr) in [("alice", ALICE), ("bob", BOB), ("carol", CAROL)] {
        round(&mut s, addr, &format!("signup {who} Sesame-{who}1"), "");
    }
    s
}

#[test]
fn a_forged_dmarc_verdict_plays_no_reply_with_a_leaked_token() {
    let mut s = authenticating();
    // alice's genuine, authenticated challenge: her board mail carries
    // her reply token, which leaks to mallory.
    let raw = with_headers(
        ALICE,
        "chess challenge alice bob",
        "c1@a.example",
        &genuine("a.example"),
        "",
    );
    let mails = deliver(&mut s, &raw);
    let token = mid(only_one(&mails, ALICE));
    assert!(token.starts_with("<t."), "{token}");

    // mallory replies as alice with the token, through the rspamd header.
    for (i, header) in [
        rspamd_injected("a.example"),
        rspamd_injected_clean("a.example"),
    ]
    .iter()
    .enumerate()
    {
        let forged = format!(
            "From: {ALICE}\r\nTo: {SERVER_ADDRESS}\r\n{header}Subject: Re: Chess Board 101\r\n\
             Message-ID: <forged{i}@evil.example>\r\nIn-Reply-To: {token}\r\n\
             References: {token}\r\nDate: Mon, 23 Nov 2026 10:05:00 +0000\r\n\
             MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ne4\r\n"
        );
        let mails = deliver(&mut s, &forged);
        assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    }
    let board = round(&mut s, ALICE, "chess show 101", "");
    let board = &only_one(&board, ALICE).body;
    assert!(board.starts_with("It is alice's turn."), "{board}");
    assert!(!board.contains("1. e4"), "{board}");
}

#[test]
fn a_forged_dmarc_verdict_sends_no_challenge_in_a_players_name() {
    let mut s = authenticating();
    for (i, header) in [
        rspamd_injected("c.example"),
        rspamd_injected_clean("c.example"),
    ]
    .iter()
    .enumerate()
    {
        let raw = with_headers(
            CAROL,
            "chess challenge carol bob",
            &format!("ch{i}@evil.example"),
            header,
            "",
        );
        let mails = deliver(&mut s, &raw);
        assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    }
    // carol's genuine one goes through.
    let raw = with_headers(
        CAROL,
        "chess challenge carol bob",
        "ch9@c.example",
        &genuine("c.example"),
        "",
    );
    let mails = deliver(&mut s, &raw);
    assert_eq!(to(&mails, BOB).len(), 1, "{mails:#?}");
}

const MALLORY: &str = "mallory@evil.example";

fn sign_up(s: &mut Install, who: &str, addr: &str) {
    let mails = round(s, addr, &format!("signup {who} Sesame-{who}1"), "");
    assert_eq!(to(&mails, addr).len(), 1, "{mails:#?}");
}

/// A DSN from the recipient's MTA saying the mail `id` to `to` failed.
fn dsn(to: &str, id: &str, n: u32) -> String {
    format!(
        "From: MAILER-DAEMON@mx.a.example (Mail Delivery System)\r\n\
         To: {SERVER_ADDRESS}\r\n\
         Subject: Undelivered Mail Returned to Sender\r\n\
         Message-ID: <dsn{n}@mx.evil.example>\r\n\
         Auto-Submitted: auto-replied\r\n\
         MIME-Version: 1.0\r\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\
         \r\n\
         --B\r\n\
         Content-Type: text/plain\r\n\
         \r\n\
         Your message could not be delivered: bounced too often.\r\n\
         \r\n\
         --B\r\n\
         Content-Type: message/delivery-status\r\n\
         \r\n\
         Reporting-MTA: dns; mx.a.example\r\n\
         \r\n\
         Final-Recipient: rfc822; {to}\r\n\
         Action: failed\r\n\
         Status: 5.1.1\r\n\
         Diagnostic-Code: smtp; 550 5.1.1 no such user\r\n\
         \r\n\
         --B\r\n\
         Content-Type: text/rfc822-headers\r\n\
         \r\n\
         From: Test PBM <{SERVER_ADDRESS}>\r\n\
         To: {to}\r\n\
         Message-ID: <{id}>\r\n\
         \r\n\
         --B--\r\n"
    )
}

/// What an attacker works out as the Message-ID of the newest mail to
/// `to`, from its row number (sequential, shown in every Message-ID he
/// gets) and what the mail says (his own copy says the same): the hash of
/// the row without any secret.
fn predicted_id(s: &Install, to: &str) -> String {
    use sha2::{Digest, Sha256};
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let (id, subject, body, in_reply_to): (i64, String, String, Option<String>) = conn
        .query_row(
            "SELECT id, subject, body, in_reply_to FROM outbox WHERE recipient = ?1
             ORDER BY id DESC LIMIT 1",
            [to],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    let mut h = Sha256::new();
    for part in [to, &subject, &body, in_reply_to.as_deref().unwrap_or("")] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("pbmchess.{id}.{}@games.test", &hex[..16])
}

/// mallory writes to alice: alice's copy of the message.
fn message_alice(s: &mut Install) -> Vec<SentMail> {
    let mails = round(s, MALLORY, "message mallory Sesame-mallory1 alice", "hi");
    assert_eq!(to(&mails, ALICE).len(), 1, "{mails:#?}");
    mails
}

fn bounce_victim() -> Install {
    let mut s = Install::new();
    sign_up(&mut s, "alice", ALICE);
    sign_up(&mut s, "mallory", MALLORY);
    s
}

/// Mail still reaches alice: her copy of a message goes out, nothing of
/// hers is given up as bounced too often.
fn alice_gets_mail(s: &mut Install) {
    let status = s.ok(&["status"]);
    assert!(status.contains("stopped addresses: none"), "{status}");
    message_alice(s);
    let list = s.ok(&["admin", "outbox", "list"]);
    assert!(!list.contains("bounced too often"), "{list}");
}

#[test]
fn forged_bounces_quoting_a_predicted_message_id_count_for_nothing() {
    let mut s = bounce_victim();
    message_alice(&mut s);
    let predicted = predicted_id(&s, ALICE);
    for n in 0..5 {
        s.deliver_raw(&dsn(ALICE, &predicted, n));
    }
    s.poll();
    assert!(s.take_outbox().is_empty());
    alice_gets_mail(&mut s);
}

/// The Message-ID (without brackets) of alice's copy of a new message.
fn alices_copy(s: &mut Install) -> String {
    let mails = message_alice(s);
    mid(only_one(&mails, ALICE))
        .trim_matches(['<', '>'])
        .to_string()
}

#[test]
fn a_bounce_counts_once_per_mail_and_real_bounces_stop_and_are_told() {
    let mut s = Install::with_config("bounces_before_stop = 3\n");
    sign_up(&mut s, "alice", ALICE);
    sign_up(&mut s, "mallory", MALLORY);
    let (a, b, c) = (
        alices_copy(&mut s),
        alices_copy(&mut s),
        alices_copy(&mut s),
    );
    s.deliver_raw(&dsn(ALICE, &a, 1));
    // The bounce of b, quoted five times, is one bounce of one mail.
    for n in 10..15 {
        s.deliver_raw(&dsn(ALICE, &b, n));
    }
    s.poll();
    let status = s.ok(&["status"]);
    assert!(status.contains("stopped addresses: none"), "{status}");
    // Two days pass.
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let n = conn
        .execute(
            "UPDATE mail_bounces SET bounced_at = '2026-01-01T00:00:00Z'",
            [],
        )
        .unwrap();
    assert_eq!(n, 2, "one row per mail bounced");
    drop(conn);
    // A third mail bounces: three mails over two days, nothing accepted
    // in between: alice is stopped.
    s.deliver_raw(&dsn(ALICE, &c, 20));
    s.poll();
    let status = s.ok(&["status"]);
    assert!(
        status.contains("stopped addresses (bounced): 1") && status.contains("(3 bounces"),
        "{status}"
    );
    let mails = round(
        &mut s,
        MALLORY,
        "message mallory Sesame-mallory1 alice",
        "hi",
    );
    assert!(to(&mails, ALICE).is_empty(), "{mails:#?}");
    // alice writes: the answer goes, and says she was sent nothing.
    let mails = round(&mut s, ALICE, "help", "");
    let answer = only_one(&mails, ALICE);
    assert!(
        common::joined(&answer.body).contains("mail to this address bounced as undeliverable"),
        "{}",
        answer.body
    );
    assert!(answer.body.lines().all(|l| l.chars().count() <= 78));
    let status = s.ok(&["status"]);
    assert!(status.contains("stopped addresses: none"), "{status}");
    message_alice(&mut s);
}

#[test]
fn a_strangers_mail_with_a_players_next_message_id_drops_nothing() {
    let mut s = Install::new();
    sign_up(&mut s, "alice", ALICE);
    // mallory sends first, with the Message-ID alice's next mail will have.
    let next = "next.alice@a.example";
    let mails = deliver(&mut s, &common::raw_mail(MALLORY, "help", "", next));
    assert_eq!(to(&mails, MALLORY).len(), 1, "{mails:#?}");
    // alice's own mail with it is hers, and answered.
    let alices = common::raw_mail(
        ALICE,
        "change password alice Sesame-alice1 Sesame-alice2",
        "",
        next,
    );
    let mails = deliver(&mut s, &alices);
    assert_eq!(to(&mails, ALICE).len(), 1, "{mails:#?}");
    // The same mail delivered again is a duplicate: not run twice.
    let mails = deliver(&mut s, &alices);
    assert!(mails.is_empty(), "{mails:#?}");
    // A mail of alice's with other text under that id is another mail.
    let mails = deliver(&mut s, &common::raw_mail(ALICE, "help", "", next));
    assert_eq!(to(&mails, ALICE).len(), 1, "{mails:#?}");
}

#[test]
fn a_from_that_only_unicode_folds_to_a_players_address_is_not_the_player() {
    let mut s = Install::new();
    sign_up(&mut s, "karl", "karl@k.example");
    // KELVIN SIGN for the K.
    let kelvin = "\u{212a}arl@k.example";
    let mails = deliver(
        &mut s,
        &common::raw_mail(
            kelvin,
            "change password karl Sesame-karl1 Sesame-karl2",
            "",
            "kv1@k.example",
        ),
    );
    // Not answered at all: the mail library would send the answer to an
    // ASCII look-alike, karl's own address.
    assert!(mails.is_empty(), "{mails:#?}");
    // Not even under a plain Reply-To.
    let raw = common::raw_mail(kelvin, "help", "", "kv2@k.example").replacen(
        "\r\n",
        "\r\nReply-To: other@k.example\r\n",
        1,
    );
    let mails = deliver(&mut s, &raw);
    assert!(mails.is_empty(), "{mails:#?}");
    // The password was not changed: karl's old one still works.
    let mails = round(
        &mut s,
        "karl@k.example",
        "change password karl Sesame-karl1 Sesame-karl3",
        "",
    );
    let answer = only_one(&mails, "karl@k.example");
    assert!(!answer.subject.contains("Error"), "{answer:#?}");
    // Nor may a command name such an address: it is refused in a sentence.
    let mails = round(
        &mut s,
        "karl@k.example",
        "change address karl Sesame-karl3 \u{212a}arl@karl.org",
        "",
    );
    let answer = only_one(&mails, "karl@k.example");
    assert!(
        common::joined(&answer.body).contains("is not plain ASCII"),
        "{}",
        answer.body
    );
}
