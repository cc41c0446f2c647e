//! Accounts: signup, password changes (the hashing is `password`'s),
//! addresses, signing off.

use super::confirm::Issued;
pub(crate) use super::password::hash_password;
use super::{addresses, confirm, Ctx, Handled, Refusal, Reply};

use crate::store::{self, AddressStatus};
use game::command::{self, Credentials, Password};

/// A userid has the parser's shape ([`command::is_valid_userid`]: a letter
/// first, then letters, digits, `-`, `_`, `.`), is none of the listing
/// words, and is no game name (so `help chess` stays unambiguous).
fn check_userid(userid: &str) -> Result<(), Refusal> {
    let valid = command::is_valid_userid(userid)
        && !command::RESERVED_USERIDS.contains(&userid)
        && command::game_name(userid).is_none();
    if !valid {
        return Err(Refusal::new(format!(
            "The userid \"{userid}\" cannot be used: choose up to {} letters, digits, '-', '_' or '.', starting with a letter, and not a game name or one of {}.",
            command::MAX_USERID_LEN,
            command::RESERVED_USERIDS.join(", ")
        )));
    }
    Ok(())
}

/// A userid as it may look to a reader (no `a1ice` next to `alice`): lower case; `-`, `_` and `.` dropped; `rn` read as `m`, `vv`
/// as `w`; then `1`, `i` and `|` as `l`, `0` as `o`, `v` as `u` and `5` as
/// `s`. Two userids that fold alike cannot both sign up (the first keeps
/// it). Userids are ASCII ([`command::is_valid_userid`]), so there are no
/// Unicode confusables.
pub(crate) fn fold_lookalikes(userid: &str) -> String {
    let kept: String = userid
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .collect();
    kept.replace("rn", "m")
        .replace("vv", "w")
        .chars()
        .map(|c| match c {
            '1' | 'i' | '|' => 'l',
            '0' => 'o',
            'v' => 'u',
            '5' => 's',
            c => c,
        })
        .collect()
}

/// A userid as it is compared with the names the server keeps: its trailing digits dropped, then [`fold_lookalikes`], then one
/// trailing `s` dropped. A userid *looks like* a kept name when the two
/// fold alike so: `computer1`, `computers`, `compvter` and `c0mputer`
/// look like `computer`, `richard2` like `richard`, `Post_Master5` like
/// `postmaster`. (Between players, only [`fold_lookalikes`] counts, so
/// `bob2` may sign up beside `bob`.)
pub(crate) fn fold_kept_name(userid: &str) -> String {
    let base = userid.trim_end_matches(|c: char| c.is_ascii_digit());
    let folded = fold_lookalikes(base);
    match folded.strip_suffix('s') {
        Some(stem) if !stem.is_empty() => stem.to_string(),
        _ => folded,
    }
}

fn check_address(address: &str) -> Result<(), Refusal> {
    let ok = address
        .split_once('@')
        .is_some_and(|(local, domain)| !local.is_empty() && !domain.is_empty())
        && !address.contains(char::is_whitespace);
    if !ok {
        return Err(Refusal::new(format!(
            "\"{address}\" is not a mail address; write addresses like alice@example.org."
        )));
    }
    if !address.is_ascii() {
        // No mail is sent to it (`mail::build_message`), and none could
        // reach it but an ASCII look-alike; the admin CLI too is held to it.
        return Err(Refusal::new(format!(
            "The address \"{address}\" is not plain ASCII (a look-alike letter?); \
             type it again in plain letters, like alice@example.org."
        )));
    }
    Ok(())
}

/// Most addresses a signup by mail names besides the sender's own (one
/// mail must not make the server mail many strangers). More may
/// be added later with `change address`, each confirmed on its own.
pub(crate) const MAX_SIGNUP_EXTRA_ADDRESSES: usize = 1;

/// Most addresses `change address` names (one command must not
/// make the server mail many strangers; each new one gets a confirmation
/// mail). A signup names at most two as well: its sender's and one more.
pub(crate) const MAX_CHANGE_ADDRESSES: usize = 2;

/// Addresses named by a command from `sender` (lower-cased): each must be
/// one mail may go to ([`addresses::check_named`]), except the sender's
/// own; the admin CLI (no sender) is trusted with any address's shape.
fn named_addresses(ctx: &Ctx<'_>, addresses: &[String]) -> Handled<Vec<String>> {
    let sender = ctx.sender.map(str::to_lowercase);
    let mut out: Vec<String> = Vec::new();
    for a in addresses.iter().map(|a| a.to_ascii_lowercase()) {
        check_address(&a)?;
        if sender.is_some() && sender.as_deref() != Some(a.as_str()) {
            addresses::check_named(&a)?;
        }
        if !out.contains(&a) {
            out.push(a);
        }
    }
    Ok(out)
}

/// Ruling: by mail, a userid may not be, nor look like
/// ([`fold_kept_name`]), a name the server keeps: the computer player's,
/// one of `[server] admins` (an admin's account is made with `admin user
/// add` only), a role name ([`command::ROLE_USERIDS`]: `postmaster`,
/// `abuse`, ...) or the local part of the server's own `[server]
/// address`; so a stranger cannot pose as any of them. The admin CLI may
/// make any but the computer's. Accounts that exist keep their names.
fn check_reserved(ctx: &Ctx<'_>, userid: &str) -> Result<(), Refusal> {
    let config = &ctx.server.config;
    if userid.eq_ignore_ascii_case(&config.computer.userid) {
        return Err(Refusal::new(format!(
            "The userid {userid} belongs to the server's computer player; choose another one."
        )));
    }
    if ctx.sender.is_none() {
        return Ok(());
    }
    if config.server.is_admin(userid) {
        return Err(Refusal::new(format!(
            "The userid {userid} is kept for an admin of this server; choose another one."
        )));
    }
    let own = config
        .server
        .address
        .split_once('@')
        .map(|(local, _)| local.to_string());
    let folded = fold_kept_name(userid);
    let kept = std::iter::once(config.computer.userid.clone())
        .chain(config.server.admins.iter().cloned())
        .chain(own)
        .chain(command::ROLE_USERIDS.iter().map(|r| r.to_string()));
    for name in kept {
        if fold_kept_name(&name) == folded {
            return Err(Refusal::new(format!(
                "The userid {userid} looks too much like {}, a name this server keeps; choose one that cannot be mistaken for another.",
                name.to_ascii_lowercase()
            )));
        }
    }
    Ok(())
}

/// A new password passes the one rule for passwords
/// ([`command::password_problem`]), whether it comes by mail (signup,
/// `change password`) or from the admin CLI (`admin user add|passwd`),
/// so that no account has a password mail cannot carry.
pub(crate) fn check_password(password: &str) -> Result<(), Refusal> {
    match command::password_problem(password) {
        None => Ok(()),
        Some(why) => Err(Refusal::new(format!(
            "{}; choose another password.",
            super::sentences::capitalise(why)
        ))),
    }
}

/// Create an account (signup by mail or `admin user add`); `hash` gives
/// the argon2id hash of `password`, made before the transaction began
/// (see [`super::guard::new_password_hash`]).
pub(crate) fn create_user(
    ctx: &Ctx<'_>,
    userid: &str,
    password: &Password,
    hash: impl FnOnce() -> Handled<String>,
    addresses: &[String],
) -> Handled<Vec<String>> {
    let userid = userid.to_ascii_lowercase();
    check_userid(&userid)?;
    check_reserved(ctx, &userid)?;
    check_password(password.expose())?;
    let addresses: Vec<String> = if addresses.is_empty() {
        match ctx.sender {
            Some(s) => vec![s.to_ascii_lowercase()],
            None => return Err(Refusal::new("Give at least one mail address for the user.").into()),
        }
    } else {
        named_addresses(ctx, addresses)?
    };
    if let Some(sender) = ctx.sender.map(str::to_lowercase) {
        let extra = addresses.iter().filter(|a| **a != sender).count();
        if extra > MAX_SIGNUP_EXTRA_ADDRESSES {
            return Err(Refusal::new(format!(
                "A signup names at most one address besides the one it is sent from ({sender}); sign up with one, and add others later with: change address <userid> <password> <address>..."
            ))
            .into());
        }
    }
    if store::user(ctx.conn, &userid)?.is_some() {
        return Err(Refusal::new(format!(
            "The userid {userid} is taken; choose another one and sign up again."
        ))
        .into());
    }
    let folded = fold_lookalikes(&userid);
    if let Some(other) = store::all_userids(ctx.conn)?
        .into_iter()
        .find(|u| fold_lookalikes(u) == folded)
    {
        return Err(Refusal::new(format!(
            "The userid {userid} looks too much like {other}, who plays here already; choose one that cannot be mistaken for another."
        ))
        .into());
    }
    let hash = hash()?;
    store::insert_user(ctx.conn, &userid, &hash, &addresses, ctx.now)?;
    Ok(addresses)
}

/// `signup <userid> <password> [addr...]`: the account exists at once;
/// the sender's address is unconfirmed and its welcome mail carries its
/// code, the other address given (at most one) is pending and gets a
/// confirmation mail of its own; neither gets any other mail of the
/// account until confirmed (see [`super::confirm`]).
pub(crate) fn signup(
    ctx: &Ctx<'_>,
    userid: &str,
    password: &Password,
    addresses: &[String],
) -> Handled<Vec<Reply>> {
    let hash = || super::guard::new_password_hash(ctx, password);
    let addresses = create_user(ctx, userid, password, hash, addresses)?;
    let userid = userid.to_ascii_lowercase();
    let name = &ctx.server.config.server.name;
    let sender = ctx.sender.unwrap_or_default().to_ascii_lowercase();
    let mut replies = Vec::new();
    let mut own_code = None;
    let confirming = ctx.server.config.accounts.confirm_addresses;
    let mut earlier = Vec::new();
    for a in addresses.iter().filter(|_| confirming) {
        let status = if *a == sender {
            AddressStatus::Unconfirmed
        } else {
            AddressStatus::Pending
        };
        match confirm::issue(ctx, &userid, a, status)? {
            Issued::Code(code) if *a == sender => own_code = Some(code),
            Issued::Code(code) => replies.push(confirm::confirmation_mail(ctx, &userid, a, &code)?),
            Issued::SentBefore(at) => earlier.push(confirm::sent_before(a, at)),
        }
    }
    let mut text = if confirming {
        format!(
            "Welcome to {name}, {userid}! Your account is ready. No mail of it reaches {} until confirmed, and until then you cannot observe, chat or send messages; you may be challenged and play with your password (each command is answered where it came from).\n\nOnce your address is confirmed, start a game by challenging someone:\n  chess challenge {userid} <their userid>\nSend \"help\" for everything else.",
            addresses.join(", ")
        )
    } else {
        format!(
            "Welcome to {name}, {userid}! Your account is ready; board mail for it goes to {}.\n\nTo start a game, challenge someone:\n  chess challenge {userid} <their userid>\nSend \"help\" for everything else.",
            addresses.join(", ")
        )
    };
    for line in &earlier {
        text.push_str("\n\n");
        text.push_str(line);
    }
    let subject = match &own_code {
        Some(code) => {
            text.push_str("\n\n");
            text.push_str(&confirm::how_to_confirm(
                &userid,
                &sender,
                code,
                ctx.server.config.accounts.confirmation_days,
            ));
            confirm::subject(&userid, code)
        }
        None if confirming => {
            text.push_str("\n\nEach of those addresses got a mail with a code to confirm it (or has one from less than a day ago); until it is confirmed it gets no mail of the account.");
            format!("Welcome to {name}, {userid}")
        }
        None => format!("Welcome to {name}, {userid}"),
    };
    let mut welcome = ctx.notice(&sender, subject, &text)?;
    if let Some(code) = &own_code {
        welcome = welcome.showing_code(code);
    }
    replies.insert(0, welcome);
    Ok(replies)
}

fn confirmation(ctx: &Ctx<'_>, to: &str, subject: &str, text: String) -> Handled<Vec<Reply>> {
    Ok(vec![ctx.notice(to, subject, &text)?])
}

/// `change password <userid> <old> <new>`
pub(crate) fn change_password(
    ctx: &Ctx<'_>,
    who: &Credentials,
    new: &Password,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    check_password(new.expose())?;
    let hash = super::guard::new_password_hash(ctx, new)?;
    store::set_password_hash(ctx.conn, &user.userid, &hash)?;
    ctx.server.credentials.forget(&user.userid);
    // Its reply tokens end with the old password.
    store::expire_user_reply_tokens(ctx.conn, &user.userid, ctx.now)?;
    let text = format!(
        "The password of {} is changed; use the new one from now on.",
        user.userid
    );
    // To the account's own addresses too, so a stranger's change is noticed.
    let mut replies = ctx.notice_to_user(&user, "Password changed", &text)?;
    // And to the sender, when none of those (confirmed ones) is theirs.
    if let Some(sender) = ctx.sender.filter(|s| !replies.iter().any(|r| r.to == *s)) {
        replies.extend(confirmation(ctx, sender, "Password changed", text)?);
    }
    Ok(replies)
}

/// `change address <userid> <pw> [addr...]` (the sender's when none given).
pub(crate) fn change_address(
    ctx: &Ctx<'_>,
    who: &Credentials,
    addresses: &[String],
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let addresses: Vec<String> = if addresses.is_empty() {
        ctx.sender
            .map(|s| vec![s.to_ascii_lowercase()])
            .unwrap_or_default()
    } else {
        addresses.iter().map(|a| a.to_ascii_lowercase()).collect()
    };
    if addresses.is_empty() {
        return Err(Refusal::new("Give at least one mail address.").into());
    }
    let addresses = named_addresses(ctx, &addresses)?;
    if addresses.len() > MAX_CHANGE_ADDRESSES {
        return Err(Refusal::new(format!(
            "change address names at most {MAX_CHANGE_ADDRESSES} addresses, the ones {} is to have from now on; give one or two.",
            user.userid
        ))
        .into());
    }
    let before = store::address_records(ctx.conn, &user.userid)?;
    store::set_addresses(ctx.conn, &user.userid, &addresses)?;
    // Tokens mailed to the old addresses end.
    store::expire_user_reply_tokens(ctx.conn, &user.userid, ctx.now)?;
    let text = format!(
        "Mail for {} goes to {} from now on; a new address gets it once confirmed.",
        user.userid,
        addresses.join(", ")
    );
    // To the old (confirmed) addresses and the sender; each new one gets
    // only its confirmation mail.
    let mut replies = ctx.notice_to_user(&user, "Address changed", &text)?;
    let mut earlier = Vec::new();
    for a in &addresses {
        let kept = before.iter().find(|r| r.address == *a);
        let confirming = ctx.server.config.accounts.confirm_addresses;
        match kept {
            // Kept: as confirmed as before.
            Some(r) if r.status == AddressStatus::Confirmed || !confirming => {
                store::set_address_status(
                    ctx.conn,
                    &user.userid,
                    a,
                    r.status,
                    r.code_hash.as_deref().zip(r.code_expires_at),
                )?
            }
            // Ruling: without confirmation a new address gets
            // no notice of its own (the sender and the old addresses are
            // told), so that lines of `change address` cannot fan out to
            // strangers; it gets the account's mail from now on.
            None if !confirming => {}
            // Not confirmed yet, kept or new: a fresh code, mailed (at
            // most once a day; within the day the code mailed stays good).
            _ => match confirm::issue(
                ctx,
                &user.userid,
                a,
                kept.map_or(AddressStatus::Pending, |r| r.status),
            )? {
                Issued::Code(code) => {
                    replies.push(confirm::confirmation_mail(ctx, &user.userid, a, &code)?)
                }
                Issued::SentBefore(at) => earlier.push(confirm::sent_before(a, at)),
            },
        }
    }
    if let Some(sender) = ctx.sender {
        if !replies.iter().any(|r| r.to == sender) {
            replies.push(ctx.notice(sender, "Address changed", &text)?);
        }
        for line in earlier {
            replies.push(ctx.notice(sender, "Address changed", line)?);
        }
    }
    Ok(replies)
}

/// `signoff <userid> <pw>` / `delete`: the account stops; its active boards
/// run on until the timers forfeit them; its history stays.
pub(crate) fn signoff(ctx: &Ctx<'_>, who: &Credentials) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    store::sign_off(ctx.conn, &user.userid, ctx.now)?;
    store::expire_user_reply_tokens(ctx.conn, &user.userid, ctx.now)?;
    ctx.server.credentials.forget(&user.userid);
    super::tournament::leave_all(ctx, &user.userid)?;
    let active = store::boards_of_user(ctx.conn, None, &user.userid)?
        .into_iter()
        .filter(|b| b.is_active())
        .count();
    let text = format!(
        "Goodbye, {}. The account is signed off{}; its finished games stay in the history.",
        user.userid,
        if active > 0 {
            format!(
                " and its {active} active board{} will be forfeited by the timers",
                if active == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        }
    );
    confirmation(ctx, ctx.answer_to(&user), "Signed off", text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userids_are_checked() {
        assert!(check_userid("alice").is_ok());
        assert!(check_userid("a.b-c_9").is_ok());
        for bad in [
            "",
            "-x",
            "123",
            "9lives",
            "chess",
            "all",
            "a b",
            &"x".repeat(33),
        ] {
            assert!(check_userid(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lookalike_userids_fold_alike() {
        for (a, b) in [
            ("alice", "a1ice"),
            ("alice", "ALICE"),
            ("alice", "aIice"),
            ("bob", "b0b"),
            ("martin", "rnartin"),
            ("wendy", "vvendy"),
            ("john.doe", "john_doe"),
        ] {
            assert_eq!(fold_lookalikes(a), fold_lookalikes(b), "{a} {b}");
        }
        for (a, b) in [("alice", "alicia"), ("bob", "rob"), ("ann", "anne")] {
            assert_ne!(fold_lookalikes(a), fold_lookalikes(b), "{a} {b}");
        }
    }

    #[test]
    fn kept_names_fold_with_their_digits_and_plural_dropped() {
        for (kept, like) in [
            ("computer", "computer1"),
            ("computer", "computers"),
            ("computer", "compvter"),
            ("computer", "C0mputer"),
            ("richard", "richard2"),
            ("postmaster", "Post_Master5"),
            ("mailer-daemon", "mailerdaemon"),
            ("info", "1nfo"),
        ] {
            assert_eq!(fold_kept_name(kept), fold_kept_name(like), "{kept} {like}");
        }
        for (kept, other) in [
            ("computer", "computing"),
            ("richard", "richards2x"),
            ("noc", "nick"),
        ] {
            assert_ne!(
                fold_kept_name(kept),
                fold_kept_name(other),
                "{kept} {other}"
            );
        }
    }

    #[test]
    fn addresses_are_checked() {
        assert!(check_address("a@b.c").is_ok());
        for bad in ["a", "@b", "a@", "a b@c"] {
            assert!(check_address(bad).is_err(), "{bad}");
        }
    }
}
