//! The server's commands through its library face: an on-disk-free SQLite,
//! a clock the test moves, and the replies read from the outbox table.

use crate::common;

use chrono::Duration;
use common::world::World;
use pbmchess::mail::{Envelope, Outgoing};
use pbmchess::server::{MailOutcome, Server};
use pbmchess::store;

mod accounts;
mod games;
mod help;
mod mails;
mod timers;

fn single_ref<'a>(replies: &[&'a Outgoing]) -> &'a Outgoing {
    assert_eq!(replies.len(), 1, "{replies:#?}");
    replies[0]
}

fn single(replies: &[Outgoing]) -> &Outgoing {
    assert_eq!(replies.len(), 1, "{replies:#?}");
    &replies[0]
}
