//! The password throttle: wrong passwords and codes counted in buckets,
//! lockouts and their notices, and the argon2id budget of a mail.

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use sha2::{Digest, Sha256};

use super::super::{Ctx, Handled, Refusal, Reply, ServerError};
use super::masking::{hide_misplaced, out_of_order};
use super::{Kind, Session, PASSWORD_CHECKS_PER_MAIL};
use crate::store;
use game::command::{self, Credentials};

/// Where the wrong passwords (or codes) of `userid` from this mail's sender
/// are counted (see the rulings above), and the account, if it exists.
pub(super) struct Bucket {
    pub(super) key: String,
    pub(super) user: Option<store::User>,
    pub(super) stranger: bool,
}

/// What stops a password for a bucket (see [`lock_of`]).
pub(super) enum Lock {
    /// The bucket itself is locked.
    Bucket(DateTime<Utc>),
    /// From the web form: the account's other bucket (its own addresses')
    /// is locked; the account's name.
    Account(String, DateTime<Utc>),
    /// From the web form: the client itself is locked.
    Client(DateTime<Utc>),
}

/// The bucket of the web client whose address is `sender`: every wrong
/// password the move form gives from it counts here too, whatever userid.
fn client_key(sender: &str) -> String {
    format!("web-client:{}", sender.to_ascii_lowercase())
}

/// What locks a password for `bucket` (a password bucket) from this
/// mail, if anything: the bucket's lockout; from the web form
/// (`web_client`, the client's sender address), any lockout of the
/// account, whichever bucket, and the client's own.
///
/// Ruling: the split buckets keep a forger from locking the owner's own
/// addresses by mail; the web form has no address of anyone's, so it
/// cannot be an owner's way around a lockout: a locked account is locked
/// there too, whoever's wrong passwords locked it. The form's own wrong
/// passwords count as a stranger's (so they never lock the owner's mail)
/// and per client: the client's address is the connection's, not a
/// header, so counting it locks out nobody but that client.
pub(super) fn lock_of(
    conn: &Connection,
    bucket: &Bucket,
    web_client: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Option<Lock>, ServerError> {
    if let Some(until) = store::locked_until(conn, &bucket.key, now)? {
        return Ok(Some(Lock::Bucket(until)));
    }
    let Some(client) = web_client else {
        return Ok(None);
    };
    if let Some(user) = &bucket.user {
        for key in [user.userid.clone(), format!("stranger:{}", user.userid)] {
            if key == bucket.key {
                continue;
            }
            if let Some(until) = store::locked_until(conn, &key, now)? {
                return Ok(Some(Lock::Account(user.userid.clone(), until)));
            }
        }
    }
    Ok(store::locked_until(conn, &client_key(client), now)?.map(Lock::Client))
}

/// The web client's sender address when this mail is the move form.
fn web_client<'a>(ctx: &Ctx<'a>) -> Option<&'a str> {
    ctx.sender.filter(|_| ctx.session.web_form.get())
}

pub(super) fn bucket(ctx: &Ctx<'_>, userid: &str, kind: Kind) -> Result<Bucket, ServerError> {
    let unproved = ctx.session.from_unproved.get();
    bucket_of(ctx.conn, ctx.sender, unproved, userid, kind)
}

/// [`bucket`] of a mail from `sender`, whose From was not authenticated
/// when `unproved`.
pub(super) fn bucket_of(
    conn: &Connection,
    sender: Option<&str>,
    unproved: bool,
    userid: &str,
    kind: Kind,
) -> Result<Bucket, ServerError> {
    let user = store::user(conn, userid)?;
    let stranger = match (&user, sender) {
        (Some(u), Some(sender)) => {
            unproved || !u.addresses.iter().any(|a| a.eq_ignore_ascii_case(sender))
        }
        _ => false,
    };
    let base = match &user {
        None => format!("#{}", keyed_hash(conn, userid)?),
        Some(u) if stranger => format!("stranger:{}", u.userid),
        Some(u) => u.userid.clone(),
    };
    let key = match kind {
        Kind::Password => base,
        Kind::Code => format!("code:{base}"),
    };
    Ok(Bucket {
        key,
        user,
        stranger,
    })
}

/// A userid that does not exist, as the throttle keeps it: a hash under the
/// server's throttle key (it may be a password typed in the wrong place).
/// Ruling: SHA-256 over the length-prefixed key and the userid, not HMAC:
/// the hash is stored in the throttle's rows and met again after a restart,
/// so it must stay these bytes; the key comes first and only half the
/// digest is kept, so no length extension applies.
fn keyed_hash(conn: &Connection, userid: &str) -> Result<String, ServerError> {
    let key = store::throttle_key(conn)?;
    let mut h = Sha256::new();
    h.update((key.len() as u64).to_le_bytes());
    h.update(&key);
    h.update(userid.to_ascii_lowercase().as_bytes());
    Ok(crate::hex::encode(&h.finalize()[..16]))
}

/// One argon2id verification from the mail's budget, or the refusal when
/// it is spent (told once a mail).
fn spend_check(ctx: &Ctx<'_>) -> Handled<()> {
    let session = ctx.session;
    if session.checks.get() >= PASSWORD_CHECKS_PER_MAIL {
        return Err(over_budget(ctx).into());
    }
    session.checks.set(session.checks.get() + 1);
    Ok(())
}

/// The refusal of a command past the mail's argon2id budget (told once a
/// mail): the same whatever its password is, right or wrong.
fn over_budget(ctx: &Ctx<'_>) -> Refusal {
    if Session::told(&ctx.session.told_limits, "checks") {
        ctx.session.quiet.set(true);
    }
    Refusal::new(format!(
        "Your mail has used the {PASSWORD_CHECKS_PER_MAIL} password checks one mail may make (hashing a new password is one); this and the rest of its commands that give a password were not carried out, and each of their passwords counts as a wrong one, since it was not checked. Send them again in another mail."
    ))
}

/// What this mail's checks said of `password` for `userid` (whose stored
/// hash is `stored`; `""` for a userid that does not exist), if one of
/// them checked it: asked again in the same mail, it costs nothing and
/// tells nothing the mail was not told.
pub(super) fn checked_before(
    session: &Session,
    userid: &str,
    stored: &str,
    password: &str,
) -> Option<bool> {
    let password = password.to_lowercase();
    session
        .checked
        .borrow()
        .iter()
        .find(|(u, h, p, _)| u.eq_ignore_ascii_case(userid) && h == stored && *p == password)
        .map(|(_, _, _, right)| *right)
}

/// A check of `password` for `userid` made by this mail (see
/// [`checked_before`]).
pub(super) fn remember_check(
    session: &Session,
    userid: &str,
    stored: &str,
    password: &str,
    right: bool,
) {
    session.checked.borrow_mut().push((
        userid.to_ascii_lowercase(),
        stored.to_string(),
        password.to_lowercase(),
        right,
    ));
}

/// Whether `password` is `user`'s: what this mail's checks said of it
/// before, else one argon2id verification from the mail's budget; past
/// the budget the refusal, and the password counts as a wrong one, right
/// or not (see the rulings).
pub(super) fn check_password(ctx: &Ctx<'_>, user: &store::User, password: &str) -> Handled<bool> {
    let (userid, stored) = (&user.userid, &user.password_hash);
    if let Some(right) = checked_before(ctx.session, userid, stored, password) {
        return Ok(right);
    }
    if let Err(e) = spend_check(ctx) {
        ctx.session.failed(userid);
        return Err(e);
    }
    // Checked before the transaction began; in it only when nothing was
    // prepared for the mail. A password whose account changed since is
    // not checked: no argon2id runs while the database is locked for
    // writing. (The daemon ends a group before a mail an earlier mail of
    // the group made stale, `Server::prepared_is_current`, so this is
    // left for a change made by another process in between.)
    let credentials = &ctx.server.credentials;
    let right = match credentials.prechecked(&ctx.session.prechecks, userid, Some(stored), password)
    {
        Some(right) => right,
        None if ctx.session.prepared_ahead => {
            ctx.session.failed(userid);
            return Err(not_checked(ctx, userid).into());
        }
        None => credentials.matches(userid, stored, password),
    };
    remember_check(ctx.session, userid, stored, password, right);
    Ok(right)
}

/// The refusal of a password not checked because its account changed
/// after the mail was read (see [`check_password`]): the same whatever the
/// password is, and it counts as a wrong one.
fn not_checked(ctx: &Ctx<'_>, userid: &str) -> Refusal {
    if Session::told(&ctx.session.told_limits, &format!("changed:{userid}")) {
        ctx.session.quiet.set(true);
    }
    Refusal::new(format!(
        "The account {userid} was made or had its password changed after your mail came in, so the password this command gives was not checked; it counts as a wrong one. Send the command again in another mail."
    ))
}

/// The argon2id hash of a new password (signup, change password): the
/// one made for it before the mail's transaction began (see
/// [`prepare_hashes`](super::prepare_hashes)). A password none was made for
/// (past the mail's budget) refuses the command as over the budget.
pub(crate) fn new_password_hash(ctx: &Ctx<'_>, password: &command::Password) -> Handled<String> {
    let credentials = &ctx.server.credentials;
    let mut prepared = ctx.session.prepared.borrow_mut();
    match prepared
        .iter()
        .position(|p| credentials.prepared_for(p, password.expose()))
    {
        Some(at) => Ok(prepared.remove(at).phc().to_string()),
        None => {
            drop(prepared);
            Err(over_budget(ctx).into())
        }
    }
}

/// Check a userid and password (see the rulings above); the user is
/// returned when they match.
pub(crate) fn authenticate(ctx: &Ctx<'_>, who: &Credentials) -> Handled<store::User> {
    let session = ctx.session;
    let credentials = &ctx.server.credentials;
    // A reply to a board mail: its token and the sender's address stand
    // for the password (see `reply`); a lockout stops passwords only.
    if ctx.vouched == Some(who.userid.as_str()) {
        if let Some(user) = store::user(ctx.conn, &who.userid)? {
            if user.signed_off_at.is_none() {
                session.verified.borrow_mut().push(user.userid.clone());
                session.proved.borrow_mut().push(user.userid.clone());
                return Ok(user);
            }
        }
    }
    let bucket = bucket(ctx, &who.userid, Kind::Password)?;
    if bucket.user.is_none() {
        // Never repeated: it may be a password in the wrong place.
        session.hide(&who.userid);
    }
    if let Some(lock) = lock_of(ctx.conn, &bucket, web_client(ctx), ctx.now)? {
        return Err(match lock {
            Lock::Bucket(until) => locked_bucket(ctx, &bucket, Kind::Password, until),
            Lock::Account(userid, until) => locked(ctx, &userid, until),
            Lock::Client(until) => locked_client(ctx, until),
        }
        .into());
    }
    let password = who.password.expose();
    let Some(user) = bucket.user else {
        hide_misplaced(ctx, who);
        session.failed(&who.userid);
        if checked_before(session, &who.userid, "", password).is_none() {
            spend_check(ctx)?;
            if !session.prepared_ahead
                && credentials
                    .prechecked(&session.prechecks, &who.userid, None, password)
                    .is_none()
            {
                // As long as a wrong password: the time tells nothing.
                credentials.no_such_user(password);
            }
            remember_check(session, &who.userid, "", password, false);
        }
        if let Some(refusal) = out_of_order(ctx, &[])? {
            return Err(refusal.into());
        }
        return Err(Refusal::new(
            "There is no user by the userid this command gives (it is masked here, in case it is a password); check its spelling, or sign up first with: signup <userid> <password>.",
        )
        .into());
    };
    if user.signed_off_at.is_some() {
        return Err(Refusal::new(format!(
            "The account {} has been signed off and can no longer play.",
            user.userid
        ))
        .into());
    }
    let right = check_password(ctx, &user, password).inspect_err(|_| hide_misplaced(ctx, who))?;
    if !right {
        hide_misplaced(ctx, who);
        session.failed(&user.userid);
        if let Some(refusal) = out_of_order(ctx, &[password])? {
            return Err(refusal.into());
        }
        return Err(Refusal::new(format!(
            "The password for {} is wrong; check it and send the command again.",
            user.userid
        ))
        .into());
    }
    session.add_secret(password);
    session.verified.borrow_mut().push(user.userid.clone());
    session.proved.borrow_mut().push(user.userid.clone());
    store::clear_failures_bucket(ctx.conn, &bucket.key)?;
    Ok(user)
}

/// The refusal for a locked userid; only the first of a mail is answered.
pub(crate) fn locked(ctx: &Ctx<'_>, userid: &str, until: DateTime<Utc>) -> Refusal {
    if Session::told(&ctx.session.told_locked, userid) {
        ctx.session.quiet.set(true);
    }
    Refusal::new(format!(
        "{userid} takes no password until {} UTC, after too many wrong ones; this and the rest of your commands for {userid} were not carried out. Send them again after that time.",
        until.format("%Y-%m-%d %H:%M")
    ))
}

/// The refusal for a locked web client (see [`lock_of`]); only the first
/// of a form is answered.
fn locked_client(ctx: &Ctx<'_>, until: DateTime<Utc>) -> Refusal {
    if Session::told(&ctx.session.told_locked, "web-client") {
        ctx.session.quiet.set(true);
    }
    Refusal::new(format!(
        "This form takes no password from your address until {} UTC, after too many wrong ones from it; your move was not played. Send it again after that time, or by mail.",
        until.format("%Y-%m-%d %H:%M")
    ))
}

/// The refusal for a locked bucket; only the first of a mail is answered.
fn locked_bucket(ctx: &Ctx<'_>, bucket: &Bucket, kind: Kind, until: DateTime<Utc>) -> Refusal {
    let at = until;
    let until = until.format("%Y-%m-%d %H:%M");
    let sentence = match (&bucket.user, bucket.stranger, kind) {
        (Some(u), false, Kind::Password) => return locked(ctx, &u.userid, at),
        (Some(u), true, Kind::Password) => format!(
            "{0} takes no password from addresses not on file for it until {until} UTC, after too many wrong ones from such addresses; this and the rest of your commands for {0} were not carried out. Send them again after that time, or from an address of the account.",
            u.userid
        ),
        (None, _, Kind::Password) => format!(
            "The userid this command gives takes no password until {until} UTC, after too many wrong ones; this and the rest of your commands for it were not carried out."
        ),
        (Some(u), _, Kind::Code) => format!(
            "{0} takes no confirmation code from this address until {until} UTC, after too many wrong ones; this and the rest of your codes for {0} were not tried. Send the code again after that time.",
            u.userid
        ),
        (None, _, Kind::Code) => format!(
            "The userid this command gives takes no confirmation code until {until} UTC, after too many wrong ones."
        ),
    };
    if Session::told(&ctx.session.told_locked, &bucket.key) {
        ctx.session.quiet.set(true);
    }
    Refusal::new(sentence)
}

/// `confirm address`: the refusal when wrong codes for `userid` from this
/// sender locked its codes (see the rulings above).
pub(crate) fn code_lock(ctx: &Ctx<'_>, userid: &str) -> Result<Option<Refusal>, ServerError> {
    let bucket = bucket(ctx, userid, Kind::Code)?;
    Ok(store::locked_until(ctx.conn, &bucket.key, ctx.now)?
        .map(|until| locked_bucket(ctx, &bucket, Kind::Code, until)))
}

/// After a command (its savepoint released or rolled back): count the
/// wrong passwords and codes it was given, rollback-proof. Returns the
/// notices of lockouts that began, for the accounts' owners (at most one
/// a day to an account).
pub(crate) fn count_failures(ctx: &Ctx<'_>) -> Handled<Vec<Reply>> {
    let failed: Vec<(String, Kind)> = ctx.session.failures.borrow_mut().drain(..).collect();
    let accounts = &ctx.server.config.accounts;
    let window = Duration::minutes(i64::from(accounts.lockout_minutes.max(1)));
    let max = accounts.password_failures;
    let now = ctx.now;
    let mut replies = Vec::new();
    for (userid, kind) in failed {
        if let Some(client) = web_client(ctx) {
            // The client's count: no notice (it is nobody's account), and
            // forgotten only with time, never by a right password.
            let key = client_key(client);
            ctx.session.lasting(ctx.conn, move |conn| {
                store::record_password_failure(conn, &key, now, max, window)?;
                Ok(())
            })?;
        }
        let bucket = bucket(ctx, &userid, kind)?;
        let key = bucket.key.clone();
        let notify = bucket
            .user
            .as_ref()
            .filter(|u| u.signed_off_at.is_none())
            .map(|u| u.userid.clone());
        let began = ctx.session.lasting(ctx.conn, move |conn| {
            let Some(until) = store::record_password_failure(conn, &key, now, max, window)? else {
                return Ok(None);
            };
            let Some(userid) = &notify else {
                return Ok(None);
            };
            if store::lockout_noticed_since(conn, userid, now - Duration::days(1))? {
                return Ok(None);
            }
            store::record_lockout_notice(conn, userid, now)?;
            Ok(Some(until))
        })?;
        let (Some(until), Some(user)) = (began, &bucket.user) else {
            continue;
        };
        let what = match kind {
            Kind::Password => "wrong passwords",
            Kind::Code => "wrong confirmation codes",
        };
        let whence = if bucket.stranger && ctx.session.web_form.get() {
            "by the web site's move form or from addresses that are not on file for it"
        } else if bucket.stranger && ctx.session.from_unproved.get() {
            "in mail whose From this server's mail host could not confirm, or from addresses that are not on file for it,"
        } else if bucket.stranger {
            "from addresses that are not on file for it"
        } else {
            "from one of its own addresses (or mail forged to look so)"
        };
        let text = format!(
            "Someone sent {max} {what} for your account {userid} {whence} within {} minutes, so they are not taken from there until {} UTC. If it was not you, nothing else happened: your password was not given away. This notice is sent at most once a day.",
            accounts.lockout_minutes,
            until.format("%Y-%m-%d %H:%M")
        );
        let notices = ctx.notice_to_user(user, "Account locked for a while", text)?;
        ctx.session
            .notices
            .borrow_mut()
            .extend(notices.iter().cloned());
        replies.extend(notices);
    }
    Ok(replies)
}
