//! Addresses prove that they are read before they get any mail of their
//! account: double opt-in, as mailing-list managers do.
//!
//! Rulings:
//!
//! - A signup's own address (the sender's) is *unconfirmed*: the account
//!   exists at once and may be challenged, and it may play by password
//!   (the answers to its own commands go back to the address each command
//!   came from, as every answer does), but no mail of the account reaches
//!   an unconfirmed address: no board mails, reminders, notices, copies,
//!   comments, chat or messages. Only the welcome mail, which carries its
//!   code; replying to it with its Subject kept (`confirm address carol
//!   K7Q3P9`) confirms the address, and the confirmation brings the
//!   current mail of each active board of the account at once.
//! - An extra address of a signup (a signup names the sender's address and
//!   at most one more), and every new address of `change address`, is
//!   *pending*: it gets one confirmation mail with its own code and nothing
//!   else until confirmed, like an unconfirmed one.
//! - Observing (`subscribe`), `notify`, `chat` and `message` need an account
//!   with a confirmed address; a comment is relayed only when its author
//!   has one (see `play`, `social`, `settings`).
//! - **One confirmation mail a day per address**, whatever asks for it
//!   (signup, change address, for any account): a second request within 24
//!   hours of the last mail is refused with the time a new one may go,
//!   unless it is for the same account, whose code already mailed stays
//!   good (no new mail). See migration 0033.
//! - Except for the sender's own address: a signup (or
//!   `change address`) from an address always gets that address a fresh
//!   code for its own account, as the answer to its own mail, whatever
//!   another account asked for it before. So a signup forged "from" a
//!   victim never blocks the victim's own: the forged account keeps the
//!   address unconfirmed beside it (it never gets mail of that account
//!   unless the victim confirms it), and the victim's signup goes through
//!   with its own code. A userid the forged signup took stays taken.
//! - Addresses on file before this rule (migration 0022) and those the
//!   admin gives with `admin user add` count as confirmed.
//! - Codes: [`CODE_LEN`] characters from [`ALPHABET`] (no 0/O, 1/I/L, 2/Z,
//!   5/S, 8/B), drawn from the operating system's randomness, stored only
//!   as a SHA-256 of userid, address and code, good for `[accounts]
//!   confirmation_days`. The code may come back from any address (a
//!   forwarding alias): it confirms the address it was mailed to. A wrong
//!   code is counted like a wrong password, in buckets of its own (see
//!   [`super::guard`]), so codes cannot be guessed either. An expired code
//!   is refused, saying how to get a new one (`change address`).

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};

use super::{Ctx, Handled, Refusal, Reply, ServerError};
use crate::store::{self, AddressStatus};
use game::command::Password;

/// The letters and digits of codes: none that reads like another.
pub(crate) const ALPHABET: &[u8] = b"ACDEFGHJKMNPQRTUVWXY34679";
/// Characters in a code.
pub(crate) const CODE_LEN: usize = 6;

/// A fresh code from the operating system's randomness.
pub(crate) fn new_code() -> Result<String, ServerError> {
    let mut bytes = [0u8; CODE_LEN * 2];
    getrandom::fill(&mut bytes)
        .map_err(|e| ServerError::Hash(format!("no randomness for a code: {e}")))?;
    // Two bytes per character: the bias of 65536 mod 25 is negligible.
    Ok(bytes
        .chunks(2)
        .map(|b| {
            let n = u16::from_le_bytes([b[0], b[1]]) as usize;
            ALPHABET[n % ALPHABET.len()] as char
        })
        .collect())
}

fn code_hash(userid: &str, address: &str, code: &str) -> String {
    let mut h = Sha256::new();
    for part in [userid, address, &code.to_ascii_uppercase()] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    crate::hex::encode(&h.finalize())
}

/// What [`issue`] did for an address.
pub(crate) enum Issued {
    /// A fresh code, to be mailed now.
    Code(String),
    /// No new mail: the same account's code mailed at this time (less than
    /// a day ago) still confirms the address.
    SentBefore(DateTime<Utc>),
}

/// Give `address` of `userid` this status with a fresh code, unless a
/// confirmation mail went to the address less than a day ago (module doc):
/// then the code of that mail is kept when it was for `userid`, and the
/// command is refused otherwise.
pub(crate) fn issue(
    ctx: &Ctx<'_>,
    userid: &str,
    address: &str,
    status: AddressStatus,
) -> Handled<Issued> {
    let address = address.to_ascii_lowercase();
    // The sender's own address: its code goes back as the answer to its
    // own mail, so no one-a-day refusal applies (module doc).
    let own = ctx.sender.is_some_and(|s| s.eq_ignore_ascii_case(&address));
    if let Some(last) = store::confirmation_mail(ctx.conn, &address)? {
        let next = last.sent_at + Duration::days(1);
        if next > ctx.now {
            if own && last.userid != userid {
                return fresh_code(ctx, userid, &address, status);
            }
            if last.userid == userid && last.code_expires_at > ctx.now {
                store::set_address_status(
                    ctx.conn,
                    userid,
                    &address,
                    status,
                    Some((&last.code_hash, last.code_expires_at)),
                )?;
                return Ok(Issued::SentBefore(last.sent_at));
            }
            return Err(Refusal::new(format!(
                "{address} got a confirmation mail less than a day ago, and this server mails an address at most one a day, so none can go to it before {} UTC; give it again after that time.",
                next.format("%Y-%m-%d %H:%M")
            ))
            .into());
        }
    }
    fresh_code(ctx, userid, &address, status)
}

/// Give `address` of `userid` this status with a fresh code, recorded as
/// the address's last confirmation mail.
fn fresh_code(
    ctx: &Ctx<'_>,
    userid: &str,
    address: &str,
    status: AddressStatus,
) -> Handled<Issued> {
    let code = new_code()?;
    let days = i64::from(ctx.server.config.accounts.confirmation_days.max(1));
    let expires = ctx.now + Duration::days(days);
    let hash = code_hash(userid, address, &code);
    store::set_address_status(ctx.conn, userid, address, status, Some((&hash, expires)))?;
    store::record_confirmation_mail(
        ctx.conn,
        address,
        &store::ConfirmationMail {
            userid: userid.to_string(),
            code_hash: hash,
            code_expires_at: expires,
            sent_at: ctx.now,
        },
    )?;
    Ok(Issued::Code(code))
}

/// Most mails to addresses that have not confirmed (other than its
/// sender's) that one inbound mail causes (see
/// `Server::charge_strangers`).
pub(crate) const STRANGER_MAILS_PER_MAIL: usize = 2;

/// Such mails one account asks for in an hour from a confirmed address of
/// its own, charged to it rather than to the server's `[limits]
/// unconfirmed_mails_per_hour`.
pub(crate) const STRANGER_MAILS_PER_ACCOUNT_PER_HOUR: u32 = 2;

/// The server-wide hourly count of the mails charged to accounts' own
/// allowances: bounded by `[limits] unconfirmed_mails_per_hour` apart
/// from the strangers' and signups' count (see `Server::charge_strangers`).
pub(crate) const ACCOUNTS_BUCKET: &str = "unconfirmed-mails-of-accounts";

/// The account whose own allowance pays for a confirmation mail to `to`
/// sent now: the account the code was issued for by this mail, when
/// `sender` is one of its confirmed addresses (so a player's change of
/// address from their own mailbox, proved by password). `None` for a
/// signup and for an account with no confirmed address: those are charged
/// to the server's hourly limit.
pub(crate) fn asking_account(
    conn: &rusqlite::Connection,
    to: &str,
    sender: &str,
    now: DateTime<Utc>,
) -> Result<Option<String>, ServerError> {
    // Issued by this mail: at its time (stored to the second).
    let issued_now = |m: &store::ConfirmationMail| m.sent_at + Duration::seconds(1) > now;
    let Some(last) = store::confirmation_mail(conn, to)?.filter(issued_now) else {
        return Ok(None);
    };
    let Some(user) = store::user(conn, &last.userid)? else {
        return Ok(None);
    };
    let own = user
        .confirmed_addresses()
        .any(|a| a.eq_ignore_ascii_case(sender));
    Ok(own.then_some(user.userid))
}

/// What the sender is told of the mails not sent to addresses that have
/// not confirmed: `unsent` holds those past the mail's count, past the
/// server's hourly `limit`, and past the account's own allowance.
pub(crate) fn not_sent_text(
    unsent: &[Vec<String>; 3],
    limit: u32,
    now: DateTime<Utc>,
) -> Option<String> {
    use chrono::DurationRound;
    let hour = now.duration_trunc(Duration::hours(1)).unwrap_or(now) + Duration::hours(1);
    let again = format!(
        "Ask again after {} UTC (for a confirmation mail: change address <userid> <password> <addresses>).",
        hour.format("%H:%M")
    );
    let mut text = Vec::new();
    if !unsent[0].is_empty() {
        text.push(format!(
            "No mail went to {}: one mail makes this server write to at most {STRANGER_MAILS_PER_MAIL} addresses that have not confirmed they want its mail; name the others in another mail.",
            unsent[0].join(", ")
        ));
    }
    if !unsent[1].is_empty() {
        text.push(format!(
            "No mail went to {}: this server sends at most {limit} mails an hour to addresses that have not confirmed they want its mail, and that many have gone this hour. {again}",
            unsent[1].join(", ")
        ));
    }
    if !unsent[2].is_empty() {
        text.push(format!(
            "No mail went to {}: one account has at most {STRANGER_MAILS_PER_ACCOUNT_PER_HOUR} confirmation mails an hour, and that many have gone. {again}",
            unsent[2].join(", ")
        ));
    }
    (!text.is_empty()).then(|| text.join("\n\n"))
}

/// What the sender is told when `address` got its code less than a day ago.
pub(crate) fn sent_before(address: &str, at: DateTime<Utc>) -> String {
    format!(
        "{address} got a confirmation mail at {} UTC, less than a day ago, so no new one is sent: the code of that mail confirms it.",
        at.format("%Y-%m-%d %H:%M")
    )
}

/// The Subject of a mail that carries a code: replying to it confirms.
/// Every mail shows its code in this form (also inside its text), and
/// carries it as data ([`super::Reply::codes`]): the outbox blanks codes
/// once a mail is sent.
pub(crate) fn subject(userid: &str, code: &str) -> String {
    format!("confirm address {userid} {code}")
}

/// What a welcome or confirmation mail says about its code.
pub(crate) fn how_to_confirm(userid: &str, address: &str, code: &str, days: u32) -> String {
    format!(
        "To confirm that {address} is yours, reply to this mail keeping its Subject, or send a mail with the Subject:\n  {}\nThe code is good for {days} days. Once confirmed, {address} gets the account's mail, starting with its boards.",
        subject(userid, code)
    )
}

/// The one mail a pending address gets: its code, nothing a player wrote.
pub(crate) fn confirmation_mail(
    ctx: &Ctx<'_>,
    userid: &str,
    address: &str,
    code: &str,
) -> Handled<Reply> {
    let name = &ctx.server.config.server.name;
    let mut text = format!(
        "This address was given for the account {userid} on {name}. If that was not you, ignore this mail: nothing more will come.\n\n{}",
        how_to_confirm(
            userid,
            address,
            code,
            ctx.server.config.accounts.confirmation_days
        )
    );
    // Messages held back from the account (names only, never their text).
    if let Some(note) = super::social::held_back_note(ctx, userid)? {
        text.push_str("\n\n");
        text.push_str(&note);
    }
    Ok(ctx
        .notice(address, subject(userid, code), text)?
        .showing_code(code))
}

/// Ruling: observing, chat, `message` and `notify` need an
/// account with at least one confirmed address (see `confirm`), so that a
/// signup forged "from" a stranger cannot have the server mail them (or
/// relay text to players) without their consent. With `[accounts]
/// confirm_addresses = false` every address is confirmed.
pub(crate) fn needs_confirmed(user: &store::User, what: &str) -> Result<(), Refusal> {
    if user.confirmed_addresses().next().is_some() {
        return Ok(());
    }
    Err(Refusal::new(format!(
        "{} has no confirmed address yet, so it cannot {what}: first confirm your address with the code of your welcome mail (confirm address {} <code>).",
        user.userid, user.userid
    )))
}

/// `confirm address <userid> <code>`.
pub(crate) fn confirm_address(ctx: &Ctx<'_>, userid: &str, code: &Password) -> Handled<Vec<Reply>> {
    let userid = userid.to_ascii_lowercase();
    let refuse = |ctx: &Ctx<'_>| -> Handled<Vec<Reply>> {
        // Counted like a wrong password, apart from them (see `guard`):
        // codes cannot be guessed either.
        ctx.session.failed_code(&userid);
        Err(Refusal::new(format!(
            "That is not the code of any address of {userid} waiting for confirmation; copy it from the confirmation mail (or reply to that mail keeping its Subject)."
        ))
        .into())
    };
    if let Some(refusal) = super::guard::code_lock(ctx, &userid)? {
        return Err(refusal.into());
    }
    let Some(user) = store::user(ctx.conn, &userid)? else {
        return refuse(ctx);
    };
    let records = store::address_records(ctx.conn, &user.userid)?;
    let found = records.iter().find(|r| {
        r.code_hash.as_deref() == Some(&code_hash(&user.userid, &r.address, code.expose()))
    });
    let Some(record) = found else {
        return refuse(ctx);
    };
    if record.code_expires_at.is_some_and(|t| t <= ctx.now) {
        return Err(Refusal::new(format!(
            "The code for {} has expired; for a new one send: change address {} <your password> {}.",
            record.address, user.userid, record.address
        ))
        .into());
    }
    store::set_address_status(
        ctx.conn,
        &user.userid,
        &record.address,
        AddressStatus::Confirmed,
        None,
    )?;
    let mut text = format!(
        "The address {} of {} is confirmed: it gets all of the account's mail from now on.",
        record.address, user.userid
    );
    if let Some(note) = super::social::held_back_note(ctx, &user.userid)? {
        text.push_str("\n\n");
        text.push_str(&note);
    }
    let mut replies = vec![ctx.notice(&record.address, "Address confirmed", &text)?];
    if let Some(sender) = ctx.sender.filter(|s| *s != record.address) {
        replies.push(ctx.notice(sender, "Address confirmed", &text)?);
    }
    // The boards it has not been getting, as they stand, at once.
    if record.status != AddressStatus::Confirmed {
        replies.extend(super::loaded::boards_for_address(
            ctx,
            &user,
            &record.address,
        )?);
    }
    Ok(replies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_six_unambiguous_characters_and_differ() {
        let a = new_code().unwrap();
        let b = new_code().unwrap();
        assert_eq!(a.len(), CODE_LEN);
        assert!(a.bytes().all(|c| ALPHABET.contains(&c)), "{a}");
        assert_ne!(a, b);
        for ambiguous in b"0O1IL2Z5S8B" {
            assert!(!ALPHABET.contains(ambiguous));
        }
    }

    #[test]
    fn the_hash_binds_userid_address_and_code_ignoring_case() {
        let h = code_hash("carol", "c@x", "K7Q3P9");
        assert_eq!(h, code_hash("carol", "c@x", "k7q3p9"));
        assert_ne!(h, code_hash("carol", "d@x", "K7Q3P9"));
        assert_ne!(h, code_hash("carl", "c@x", "K7Q3P9"));
        assert_eq!(h.len(), 64);
    }
}
