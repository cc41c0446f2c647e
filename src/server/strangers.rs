//! What a mail from a stranger can make the server send back.
//!
//! Ruling: a *stranger* is a sender whose address is no confirmed address
//! of any account (not on file, or on file but never confirmed: a forged
//! From may be anyone's), and, with `[security] authserv_id` set, any
//! sender whose From the receiving MTA did not authenticate, whatever
//! address it shows (forged "from" a player, it is aimed at the player).
//! The answers to a stranger's mail are bounded in
//! count and in bytes, whatever its commands (`help`, `games`,
//! `standings`, `players`, `history`, `pgn`, `show`, `preview`, `list`,
//! `tournament show|pgn`, or errors):
//!
//! - they are one mail, as every mail's answers to its sender are;
//! - `help` answers a stranger with one page per command (the first topic
//!   named; the reply says how to ask for the others);
//! - together they are at most [`STRANGER_REPLY_BYTES`]: a command whose
//!   answer would go past it is not run (nothing of it is done), and
//!   neither is any command after it; the reply says so, and how many
//!   were left out. A confirmed player gets `[limits] max_reply_bytes`.

use super::{Ctx, Reply, ServerError};
use crate::store;

/// Most bytes (subjects and bodies) the answers to one mail from a
/// stranger hold.
pub(crate) const STRANGER_REPLY_BYTES: usize = 16 * 1024;

/// Whether `sender`, the sender of the mail `ctx` runs, is a stranger
/// (module doc).
pub(crate) fn is_stranger(ctx: &Ctx<'_>, sender: &str) -> Result<bool, ServerError> {
    Ok(ctx.session.sender_unproved() || !store::is_confirmed_address(ctx.conn, sender)?)
}

/// The bytes of the answers to `sender` among `replies`.
pub(crate) fn bytes_to<'r>(replies: impl Iterator<Item = &'r Reply>, sender: &str) -> usize {
    replies
        .filter(|r| r.to == sender)
        .map(|r| r.subject.len() + r.body.len())
        .sum()
}

/// The refusal of the command whose answer would pass the bound; `rest`
/// commands after it are not run either.
pub(crate) fn cut_sentence(rest: usize) -> String {
    let after = match rest {
        0 => String::new(),
        1 => ", nor the command after it".to_string(),
        n => format!(", nor the {n} commands after it"),
    };
    format!(
        "This server sends at most {} KB of answers to a mail from an address that is not a confirmed player's, and the answer to this command would pass that, so it was not run{after}. Send fewer commands a mail, or sign up and confirm your address.",
        STRANGER_REPLY_BYTES / 1024
    )
}

/// What the one help page a stranger gets says of the `others` topics
/// asked for in the same command.
pub(crate) fn one_page_note(others: &[String]) -> String {
    format!(
        "This server sends one help page a command to an address that is not a confirmed player's; ask for {} in a mail of its own.",
        others.join(", ")
    )
}
