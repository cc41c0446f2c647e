//! Only a player acts for a player: the attacks of the threat model,
//! each sent as the mail that carried it through the real binary (`poll`,
//! Maildir in and out), get nothing played, nothing mailed, nothing leaked.
//! Header hygiene: ignored mail is cheap, References bounded.

use crate::common;

use common::{only_one, to, Install, SentMail, SERVER_ADDRESS};

mod authserv;
mod hygiene;
mod tokens;

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";
const BOB2: &str = "bob@second.org";
const MALLORY: &str = "mallory@evil.example";
const ALICE_PW: &str = "Sesame-A1";
const BOB_PW: &str = "Sesame-B2";

fn signed_up(extra: &str) -> Install {
    let mut s = Install::with_config(extra);
    s.send(ALICE, &format!("signup alice {ALICE_PW}"), "");
    s.send(BOB, &format!("signup bob {BOB_PW}"), "");
    s.poll();
    s.take_outbox();
    s
}

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

fn deliver(s: &mut Install, raw: &str) -> Vec<SentMail> {
    s.deliver_raw(raw);
    s.poll();
    s.take_outbox()
}

fn mid(m: &SentMail) -> String {
    m.header("Message-ID").expect("a Message-ID")
}

/// A reply to `parent` (its Message-ID in In-Reply-To) with `text` on top.
fn reply(from: &str, parent: &str, id: &str, extra_headers: &str, text: &str) -> String {
    format!(
        "From: {from}\r\nTo: {SERVER_ADDRESS}\r\nSubject: Re: Chess Board 101 alice\r\n\
         Message-ID: <{id}>\r\nIn-Reply-To: {parent}\r\nReferences: {parent}\r\n\
         Date: Mon, 23 Nov 2026 10:05:00 +0000\r\nMIME-Version: 1.0\r\n{extra_headers}\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n"
    )
}

/// Board 101 as `show` tells it to alice.
fn board_now(s: &mut Install) -> String {
    let mails = round(s, ALICE, "chess show 101", "");
    only_one(&mails, ALICE).body.clone()
}

fn nothing_played(s: &mut Install) {
    let board = board_now(s);
    assert!(board.starts_with("It is alice's turn."), "{board}");
    assert!(!board.contains("1. e4"), "{board}");
}

/// The database file of an installation.
fn db(s: &Install) -> rusqlite::Connection {
    rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap()
}
