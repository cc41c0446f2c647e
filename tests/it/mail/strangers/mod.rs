//! Mailing strangers, and accounts: each attack replayed with the mail that
//! carried it, through the server (a clock the test moves) or the real
//! binary; the server mails nobody who did not ask for it.

use crate::common;

use chrono::Duration;
use common::world::World;
use common::Install;
use pbmchess::mail::Outgoing;
use pbmchess::server::Server;

mod binary;
mod opt_in;
mod refusals;

const ALICE: &str = "alice@players.org";
const BOB: &str = "bob@players.org";
const MALLORY: &str = "mallory@evil.org";
const VICTIM: &str = "victim@victim.org";

/// A world with address confirmation on, as in production.
fn confirming() -> World {
    let mut w = World::new();
    w.config.accounts.confirm_addresses = true;
    w
}

fn to<'a>(mails: &'a [Outgoing], addr: &str) -> Vec<&'a Outgoing> {
    mails.iter().filter(|m| m.to == addr).collect()
}

fn only<'a>(mails: &'a [Outgoing], addr: &str) -> &'a Outgoing {
    let mine = to(mails, addr);
    assert_eq!(mine.len(), 1, "one mail to {addr}: {mails:#?}");
    mine[0]
}

/// The code in a confirmation mail's Subject (`confirm address alice K7Q2P9`).
fn code_of(mail: &Outgoing) -> String {
    let words: Vec<&str> = mail.subject.split_whitespace().collect();
    assert_eq!(&words[..2], ["confirm", "address"], "{}", mail.subject);
    words[3].to_string()
}

/// `userid` signs up from `addr` and confirms it.
fn confirmed(w: &mut World, addr: &str, userid: &str, pw: &str) {
    w.mail(addr, &format!("signup {userid} {pw}"), "");
    let code = code_of(only(&w.replies(), addr));
    w.mail(addr, &format!("confirm address {userid} {code}"), "");
    let mails = w.replies();
    assert!(
        only(&mails, addr).body.contains("is confirmed"),
        "{mails:#?}"
    );
}

/// alice and bob, confirmed.
fn two_players() -> World {
    let mut w = confirming();
    confirmed(&mut w, ALICE, "alice", "apw");
    confirmed(&mut w, BOB, "bob", "bpw");
    w
}

/// `admin user add`, as the admin CLI runs it.
fn admin_add(w: &mut World, userid: &str, password: &str, address: &str) {
    let server = Server::new(&w.config, &w.clock, &w.templates);
    server
        .admin_add_user(&mut w.conn, userid, password, &[address.to_string()])
        .unwrap();
}
