//! Addresses prove that they are read before they get what players wrote
//! (issue #15: no open relay).
//!
//! Rulings:
//!
//! - A signup's own address (the sender's) is *unconfirmed*: play starts at
//!   once, as in pbmserv, and the address gets every text the server wrote
//!   (board mails, notices), but no comment, chat or message a player
//!   wrote. Its welcome mail carries a code; replying to it with its
//!   Subject kept (`confirm address carol K7Q3P9`) confirms the address.
//! - An extra address of a signup, and every new address of `change
//!   address`, is *pending*: it gets one confirmation mail with its own
//!   code and nothing else until confirmed.
//! - Addresses on file before this rule (migration 0022) and those the
//!   admin gives with `admin user add` count as confirmed.
//! - Codes: [`CODE_LEN`] characters from [`ALPHABET`] (no 0/O, 1/I/L, 2/Z,
//!   5/S, 8/B), drawn from the operating system's randomness, stored only
//!   as a SHA-256 of userid, address and code, good for `[accounts]
//!   confirmation_days`. The code may come back from any address (a
//!   forwarding alias): it confirms the address it was mailed to. A wrong
//!   code counts as a wrong password for the userid (see [`super::guard`]),
//!   so codes cannot be guessed either. An expired code is refused, saying
//!   how to get a new one (`change address`).

use chrono::Duration;
use sha2::{Digest, Sha256};

use super::{Ctx, Handled, Refusal, Reply, ServerError};
use crate::command::Password;
use crate::store::{self, AddressStatus};

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
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Give `address` of `userid` this status with a fresh code; returns the code.
pub(crate) fn issue(
    ctx: &Ctx<'_>,
    userid: &str,
    address: &str,
    status: AddressStatus,
) -> Handled<String> {
    let code = new_code()?;
    let days = i64::from(ctx.server.config.accounts.confirmation_days.max(1));
    let expires = ctx.now + Duration::days(days);
    let hash = code_hash(userid, address, &code);
    store::set_address_status(ctx.conn, userid, address, status, Some((&hash, expires)))?;
    Ok(code)
}

/// The Subject of a mail that carries a code: replying to it confirms.
/// Every mail shows its code in this form (also inside its text), so that
/// [`codes_in`] finds it: the outbox blanks codes once a mail is sent.
pub(crate) fn subject(userid: &str, code: &str) -> String {
    format!("confirm address {userid} {code}")
}

/// The codes `text` shows as [`subject`] writes them (`confirm address
/// <userid> <CODE>`, across line breaks too): the secrets an outbox mail
/// carries, blanked once it is sent (issue #31: no code at rest).
pub(crate) fn codes_in(text: &str) -> Vec<String> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
        .collect();
    let is_code = |w: &str| w.len() == CODE_LEN && w.bytes().all(|b| ALPHABET.contains(&b));
    let mut codes = Vec::new();
    for window in words.windows(4) {
        if window[0].eq_ignore_ascii_case("confirm")
            && window[1].eq_ignore_ascii_case("address")
            && is_code(window[3])
            && !codes.iter().any(|c| c == window[3])
        {
            codes.push(window[3].to_string());
        }
    }
    codes
}

/// `text` with every code [`codes_in`] finds blanked (for log lines).
pub(crate) fn hide_codes(text: &str) -> String {
    let mut out = text.to_string();
    for code in codes_in(text) {
        out = out.replace(&code, "******");
    }
    out
}

/// What a welcome or confirmation mail says about its code.
pub(crate) fn how_to_confirm(userid: &str, address: &str, code: &str, days: u32) -> String {
    format!(
        "To confirm that {address} is yours, reply to this mail keeping its Subject, or send a mail with the Subject:\n  {}\nThe code is good for {days} days. Until then {address} gets no text written by other players (comments, chat, messages).",
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
    let text = format!(
        "This address was given for the account {userid} on {name}. If that was not you, ignore this mail: nothing more will come.\n\n{}",
        how_to_confirm(
            userid,
            address,
            code,
            ctx.server.config.accounts.confirmation_days
        )
    );
    ctx.notice(address, subject(userid, code), text)
}

/// `confirm address <userid> <code>`.
pub(crate) fn confirm_address(ctx: &Ctx<'_>, userid: &str, code: &Password) -> Handled<Vec<Reply>> {
    let userid = userid.to_lowercase();
    let refuse = |ctx: &Ctx<'_>| -> Handled<Vec<Reply>> {
        // Counted like a wrong password: codes cannot be guessed either.
        ctx.session.failed(&userid);
        Err(Refusal::new(format!(
            "That is not the code of any address of {userid} waiting for confirmation; copy it from the confirmation mail (or reply to that mail keeping its Subject)."
        ))
        .into())
    };
    if let Some(until) = store::locked_until(ctx.conn, &userid, ctx.now)? {
        return Err(super::guard::locked(ctx, &userid, until).into());
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
    let text = format!(
        "The address {} of {} is confirmed: it gets all of the account's mail from now on.",
        record.address, user.userid
    );
    let mut replies = vec![ctx.notice(&record.address, "Address confirmed", &text)?];
    if let Some(sender) = ctx.sender.filter(|s| *s != record.address) {
        replies.push(ctx.notice(sender, "Address confirmed", &text)?);
    }
    Ok(replies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_found_where_mails_show_them_and_hidden() {
        let code = new_code().unwrap();
        let text = format!(
            "To confirm, reply keeping the Subject:\n  {}\nThe code is good.",
            subject("carol", &code)
        );
        assert_eq!(codes_in(&text), vec![code.clone()]);
        assert_eq!(
            codes_in(&format!("confirm address\ncarol {code}.")),
            vec![code.clone()]
        );
        assert!(codes_in("confirm address carol hello1").is_empty());
        assert!(codes_in("please confirm your address").is_empty());
        let hidden = hide_codes(&subject("carol", &code));
        assert_eq!(hidden, "confirm address carol ******");
    }

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
