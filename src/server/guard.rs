//! What guards the accounts while a mail runs (issue #15): passwords
//! checked and throttled, commands counted against the hourly limits, and
//! every password the mail showed masked in everything it causes.
//!
//! Rulings:
//!
//! - **Password throttle.** Wrong passwords are counted per userid, whether
//!   the userid exists or not (a lockout tells nothing about existence):
//!   at `[accounts] password_failures` (5) within `lockout_minutes` (15) of
//!   the first, the userid takes no password at all, right or wrong, for
//!   `lockout_minutes`; no password is verified for it meanwhile. The
//!   failure that begins the lockout mails one notice to the account's
//!   addresses (when the account exists). A mail's commands for a locked
//!   userid are refused with one sentence, once per mail; the rest of its
//!   commands for that userid get no answer. A right password forgets the
//!   wrong ones before it. A nonexistent userid costs one argon2id
//!   verification like a wrong password does (see [`super::credentials`])
//!   and gets the same answers at the same counts. The throttle cannot
//!   tell a forger from the owner, so a stranger who knows a userid can
//!   keep it locked by sending wrong passwords: lockouts are short for
//!   that reason, and the owner is told.
//! - **Passwords in the wrong place.** The parser masks the word in a
//!   verb's password position. When a password is wrong, the words after
//!   the userid in the command (at most [`MAX_CANDIDATES`]) are checked
//!   against the account's password, at the same cost for a nonexistent
//!   userid: one that is the password (`chess move 101 alice e4 secret`) is
//!   masked like a verified password. Every password verified or found in
//!   a mail is masked (`*****`, as a whole word, any case) in every reply
//!   the mail causes, to anyone, and in its log line: comments, chat and
//!   message bodies, refusals that quote a word back. A password that is
//!   also a move (`e4`) is masked in move lists too: choose a better one.
//! - **Command limits** (`[limits]`), per clock hour (UTC): each command
//!   counts, each line of a `multiple` too. A command whose password is
//!   right counts against its account (`commands_per_hour_per_account`),
//!   any other against the sender address (`commands_per_hour`) and the
//!   server's `commands_per_hour_total`. Over the address's limit only
//!   commands that carry a password still run, so that mail forged "from"
//!   a player's address cannot silence the player, who proves themselves
//!   with their password; the others are dropped, with one notice to the
//!   address an hour. Over the server's limit, commands without a password
//!   are refused with one sentence a mail, and so are those with one from
//!   an address over its own limit (a flood of guessed passwords stops
//!   costing password checks); a player's command from their own quiet
//!   address still runs.
//! - **Why the server's limit does not count proved commands** (issue #14):
//!   it guards against floods from strangers — signups, unknown or forged
//!   senders, guessed passwords — whose numbers nothing else bounds. The
//!   players' own commands are bounded by their accounts' limits, and
//!   accounts by address confirmation. Counting them too made the backlog
//!   after an outage (10,000 moves from 200 players, every one of them
//!   under their account's limit) refuse half its moves in the first hour
//!   back, so the players had to send them again.

use std::cell::{Cell, RefCell};

use chrono::{DateTime, Duration, Utc};

use super::{text, Ctx, Handled, Refusal, Reply, ServerError};
use crate::command::Credentials;
use crate::store::{self, CountScope};

/// Words of a command checked for a misplaced password.
pub(crate) const MAX_CANDIDATES: usize = 4;

/// What one mail learnt while its commands ran.
#[derive(Default)]
pub(crate) struct Session {
    /// Passwords verified right, or found in the wrong place: masked in
    /// every reply and in the log line.
    secrets: RefCell<Vec<String>>,
    /// Userids given a wrong password by the command in hand, counted after
    /// its savepoint (a refused command's changes are rolled back, its
    /// wrong passwords must not be).
    failures: RefCell<Vec<String>>,
    /// Userids whose password was right in the command in hand.
    verified: RefCell<Vec<String>>,
    /// Userids whose lockout this mail has already told.
    told_locked: RefCell<Vec<String>>,
    /// Limits this mail has already told of (`server`, `address`, or a userid).
    told_limits: RefCell<Vec<String>>,
    /// The command in hand as quoted (password masked).
    quote: RefCell<String>,
    /// The command in hand was refused with a sentence this mail already
    /// sent: no answer.
    quiet: Cell<bool>,
}

impl Session {
    /// Start a command: `quote` is its masked line.
    pub fn begin(&self, quote: &str) {
        *self.quote.borrow_mut() = quote.to_string();
        self.verified.borrow_mut().clear();
        self.quiet.set(false);
    }

    /// Whether the command in hand was refused with a repeated sentence.
    pub fn quiet(&self) -> bool {
        self.quiet.get()
    }

    /// A wrong password (or confirmation code) for `userid`: counted
    /// after the command.
    pub fn failed(&self, userid: &str) {
        self.failures.borrow_mut().push(userid.to_string());
    }

    fn add_secret(&self, secret: &str) {
        let mut secrets = self.secrets.borrow_mut();
        if !secret.is_empty() && !secrets.iter().any(|s| s.eq_ignore_ascii_case(secret)) {
            secrets.push(secret.to_string());
        }
    }

    /// `text` with every password this mail showed masked.
    pub fn mask(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in self.secrets.borrow().iter() {
            out = text::mask_word(&out, secret);
        }
        out
    }

    /// Every reply with the passwords this mail showed masked.
    pub fn mask_replies(&self, replies: &mut [Reply]) {
        if self.secrets.borrow().is_empty() {
            return;
        }
        for r in replies {
            r.subject = self.mask(&r.subject);
            r.body = self.mask(&r.body);
        }
    }

    fn told(list: &RefCell<Vec<String>>, key: &str) -> bool {
        let mut list = list.borrow_mut();
        if list.iter().any(|k| k == key) {
            return true;
        }
        list.push(key.to_string());
        false
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
                return Ok(user);
            }
        }
    }
    if let Some(until) = store::locked_until(ctx.conn, &who.userid, ctx.now)? {
        return Err(locked(ctx, &who.userid, until).into());
    }
    let Some(user) = store::user(ctx.conn, &who.userid)? else {
        // As long as a wrong password: the time tells nothing.
        credentials.no_such_user(who.password.expose());
        find_misplaced(ctx, who, None);
        session.failed(&who.userid);
        return Err(Refusal::new(format!(
            "There is no user called {}; check the spelling, or sign up first with: signup <userid> <password>.",
            who.userid
        ))
        .into());
    };
    if user.signed_off_at.is_some() {
        return Err(Refusal::new(format!(
            "The account {} has been signed off and can no longer play.",
            user.userid
        ))
        .into());
    }
    if !credentials.matches(&user.userid, &user.password_hash, who.password.expose()) {
        find_misplaced(ctx, who, Some(&user));
        session.failed(&user.userid);
        return Err(Refusal::new(format!(
            "The password for {} is wrong; check it and send the command again.",
            user.userid
        ))
        .into());
    }
    session.add_secret(who.password.expose());
    session.verified.borrow_mut().push(user.userid.clone());
    store::clear_password_failures(ctx.conn, &user.userid)?;
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

/// A wrong password: is the account's password among the words after the
/// userid? Those are checked (the same number of checks for a nonexistent
/// userid) and one that matches is masked from now on.
fn find_misplaced(ctx: &Ctx<'_>, who: &Credentials, user: Option<&store::User>) {
    let quote = ctx.session.quote.borrow().clone();
    let words: Vec<&str> = quote.split_whitespace().collect();
    let Some(at) = words
        .iter()
        .position(|w| w.eq_ignore_ascii_case(&who.userid))
    else {
        return;
    };
    let credentials = &ctx.server.credentials;
    for word in words[at + 1..]
        .iter()
        .filter(|w| **w != "*****" && !w.eq_ignore_ascii_case(who.password.expose()))
        .take(MAX_CANDIDATES)
    {
        let found = match user {
            Some(u) => credentials.matches(&u.userid, &u.password_hash, word),
            None => credentials.no_such_user(word),
        };
        if found {
            ctx.session.add_secret(word);
        }
    }
}

/// After a command (its savepoint released or rolled back): count the
/// wrong passwords it was given. Returns the notices of lockouts that
/// began, for the accounts' owners.
pub(crate) fn count_failures(ctx: &Ctx<'_>) -> Handled<Vec<Reply>> {
    let failed: Vec<String> = ctx.session.failures.borrow_mut().drain(..).collect();
    let accounts = &ctx.server.config.accounts;
    let window = Duration::minutes(i64::from(accounts.lockout_minutes.max(1)));
    let mut replies = Vec::new();
    for userid in failed {
        let Some(until) = store::record_password_failure(
            ctx.conn,
            &userid,
            ctx.now,
            accounts.password_failures,
            window,
        )?
        else {
            continue;
        };
        if let Some(user) = store::user(ctx.conn, &userid)? {
            let text = format!(
                "Someone sent {} wrong passwords for your account {userid} within {} minutes, so it takes no password until {} UTC; your commands sent before then are refused. If it was not you, nothing else happened: your password was not given away.",
                accounts.password_failures,
                accounts.lockout_minutes,
                until.format("%Y-%m-%d %H:%M")
            );
            replies.extend(ctx.notice_to_user(&user, "Account locked for a while", text)?);
        }
    }
    Ok(replies)
}

/// Whether a command may run under the hourly limits.
pub(crate) enum Admission {
    Run,
    /// Refused with this sentence (told once a mail, or an hour).
    Refuse(Refusal),
    /// Refused without an answer (told before).
    Drop,
}

fn next_hour(now: DateTime<Utc>) -> String {
    use chrono::DurationRound;
    let hour = now.duration_trunc(Duration::hours(1)).unwrap_or(now) + Duration::hours(1);
    hour.format("%H:%M UTC").to_string()
}

/// Count a command against the server's limit and decide whether it runs
/// (see the rulings above). A command that runs is charged to its account
/// or address by [`charge`] afterwards.
pub(crate) fn admit(ctx: &Ctx<'_>, who: Option<&Credentials>) -> Result<Admission, ServerError> {
    let limits = &ctx.server.config.limits;
    let session = ctx.session;
    let sender = ctx.sender.unwrap_or_default();
    let total = store::commands_this_hour(ctx.conn, CountScope::Server, "", ctx.now)?;
    let over_total = total >= limits.commands_per_hour_total
        && (who.is_none()
            || store::commands_this_hour(ctx.conn, CountScope::Address, sender, ctx.now)?
                >= limits.commands_per_hour);
    if over_total {
        if Session::told(&session.told_limits, "server") {
            return Ok(Admission::Drop);
        }
        return Ok(Admission::Refuse(Refusal::new(format!(
            "This server has taken all the {} commands it takes in an hour from senders who give no right password; this and the rest of your commands were not carried out. Send them again after {}.",
            limits.commands_per_hour_total,
            next_hour(ctx.now)
        ))));
    }
    if let Some(who) = who {
        let used = store::commands_this_hour(ctx.conn, CountScope::Account, &who.userid, ctx.now)?;
        if used >= limits.commands_per_hour_per_account {
            if Session::told(&session.told_limits, &who.userid) {
                return Ok(Admission::Drop);
            }
            return Ok(Admission::Refuse(Refusal::new(format!(
                "{} has sent the {} commands an account may send in an hour; this and the rest of your commands for {} were not carried out. Send them again after {}.",
                who.userid,
                limits.commands_per_hour_per_account,
                who.userid,
                next_hour(ctx.now)
            ))));
        }
        return Ok(Admission::Run);
    }
    let used = store::commands_this_hour(ctx.conn, CountScope::Address, sender, ctx.now)?;
    if used < limits.commands_per_hour {
        return Ok(Admission::Run);
    }
    // Over the address's limit: counted on, and told once an hour.
    let n = store::count_command(ctx.conn, CountScope::Address, sender, ctx.now)?;
    if n == limits.commands_per_hour + 1 && !Session::told(&session.told_limits, "address") {
        return Ok(Admission::Refuse(Refusal::new(format!(
            "You sent more than {} commands within an hour, so further commands from {sender} are dropped unanswered until {}, except those with your password (they count against your account instead). Please send fewer.",
            limits.commands_per_hour,
            next_hour(ctx.now)
        ))));
    }
    Ok(Admission::Drop)
}

/// A mail with no command to read (too large, or empty) counts as one
/// command against its address; true when the address was over its limit
/// already, so the mail is dropped unanswered.
pub(crate) fn over_address_limit(
    server: &super::Server<'_>,
    conn: &rusqlite::Connection,
    sender: &str,
    now: DateTime<Utc>,
) -> Result<bool, ServerError> {
    let n = store::count_command(conn, CountScope::Address, sender, now)?;
    store::count_command(conn, CountScope::Server, "", now)?;
    Ok(n > server.config.limits.commands_per_hour)
}

/// Charge a command that ran: to the account whose password it proved,
/// else to the sender address and the server.
pub(crate) fn charge(ctx: &Ctx<'_>, who: Option<&Credentials>) -> Result<(), ServerError> {
    let verified = who.filter(|w| ctx.session.verified.borrow().contains(&w.userid));
    match verified {
        Some(w) => store::count_command(ctx.conn, CountScope::Account, &w.userid, ctx.now)?,
        None => {
            store::count_command(
                ctx.conn,
                CountScope::Address,
                ctx.sender.unwrap_or_default(),
                ctx.now,
            )?;
            store::count_command(ctx.conn, CountScope::Server, "", ctx.now)?
        }
    };
    Ok(())
}
