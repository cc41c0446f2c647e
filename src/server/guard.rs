//! What guards the accounts while a mail runs (issue #15): passwords
//! checked and throttled, commands counted against the hourly limits, and
//! every password the mail showed masked in what goes back to its sender.
//!
//! Rulings:
//!
//! - **Password throttle, in buckets.** Wrong passwords are counted per
//!   userid *and* per kind of sender, in separate buckets: those sent from
//!   an address on file for the account, and those from any other address
//!   (a stranger). At `[accounts] password_failures` (5) within
//!   `lockout_minutes` (15) of the first, that bucket takes no password at
//!   all, right or wrong, for `lockout_minutes`; no password is verified
//!   for it meanwhile. So strangers guessing (or forging wrong passwords to
//!   annoy) lock out only strangers: the account's own addresses keep
//!   working. With `[security] authserv_id` set, mail whose From the
//!   receiving MTA did not authenticate counts as a stranger's, whatever
//!   address it shows (no address of it is on file, here and for the
//!   hourly limits and [`out_of_order`]): forged mail cannot lock the owner
//!   out. Without it, mail forged with the owner's address counts against
//!   the owner's bucket: the server cannot tell it apart (see docs/security.md,
//!   Limits). A right password forgets the wrong ones
//!   of its own bucket only (the owner's moves do not reset the strangers'
//!   count); a new password from the admin forgets both.
//! - **Wrong confirmation codes are not wrong passwords**: they are counted
//!   in buckets of their own (`code:`), by the same rule and bounds, and a
//!   code lockout stops only codes ([`code_lock`], [`Session::failed_code`]).
//! - **A userid that does not exist** is counted under a keyed hash of it
//!   (the key is drawn at random once, kept in the database), so a password
//!   typed into the userid slot is never stored; it costs one argon2id
//!   verification like a wrong password does, and is never repeated: not in
//!   the refusal (which does not name it), its quote, the comment quoted
//!   back, nor the log line.
//! - **Lockout notices**: the failure that begins a lockout of an existing
//!   account mails one notice to its addresses, at most one a day.
//!   A mail's commands for a locked bucket are refused with one sentence,
//!   once per mail; the rest of its commands for it get no answer.
//! - **Passwords in the wrong place.** The parser masks the word in a
//!   verb's password position. When a password is wrong (or the userid
//!   does not exist), the words after the userid in the command (at most
//!   [`MAX_CANDIDATES`]) are masked in the quote, the quoted comment and
//!   the log line, every one of them, whether or not one of them is the
//!   password: so no answer tells which word was (issue #31: masking only
//!   the word that matched told a guesser which of five guesses was
//!   right). For a stranger they are not checked against the password:
//!   with all of them masked a check would tell nobody anything; each
//!   wrong password counts one failure. From an address on file for the
//!   account they are (issue #23 §3, see [`out_of_order`]): the owner is
//!   told "the words are out of order", never which word, and only at
//!   that address. Every password verified in a mail is masked
//!   (`*****`, any case, however quoted or bracketed: see
//!   [`masking::Hidden`]) in the answers to the mail's sender (their own
//!   copies, the quotes of their commands) and in its log line, and never
//!   in a mail to anyone else: masking there made what others read depend
//!   on what the password is (an observer named after a guess read
//!   `*****` in the list of observers), an oracle. Of the sender's own
//!   words others read (the comment, a chat line, a message) the word
//!   equal to the password the command gave is masked
//!   (`sentences::commented`, `sentences::own_text`): that depends on what the
//!   sender wrote, not on what the password is.
//! - **Argon2id is a budget**: at most [`PASSWORD_CHECKS_PER_MAIL`] (5)
//!   argon2id runs per inbound mail, verifications and hashes of new
//!   passwords together. The cache of verified passwords
//!   ([`super::credentials`]) saves a check's time, never its place in the
//!   budget: a password this process verified before costs a check like
//!   any other. Past the budget every command that gives a password is
//!   refused with the same sentence (told once a mail) and its password
//!   counts as a wrong one toward its bucket, right or wrong, checked or
//!   not: nothing the server answers, writes or logs depends on whether an
//!   unchecked password was right (a right one run from the cache named it
//!   among twenty guesses). A password this mail checked before (the same
//!   userid, stored hash and password) costs nothing and answers as it did
//!   ([`checked_before`]): it tells the mail nothing it was not told, and a
//!   wrong one counts again.
//! - **Argon2id runs before the mail's transaction** ([`prepare_hashes`]),
//!   not while the database is locked for writing (a mail of 50 signups
//!   held it for seconds): the hashes of its new passwords (signup, change
//!   password) and the checks of the passwords its commands give, at most
//!   the budget in all, in the order of its commands, then the words of
//!   the Subject's line that [`out_of_order`] would check (it tries only
//!   those checked ahead). A hash is one of the
//!   mail's checks whether or not its command runs; a command whose new
//!   password has no hash (past the budget) is refused as over the budget
//!   ([`new_password_hash`]). A check made ahead is spent, and its answer
//!   used, only when a command asks for it within the budget, as any
//!   check. The mail's own signups and password changes are foreseen:
//!   its later checks for those userids are made against the hashes they
//!   will store. A password whose stored hash changed since otherwise (an
//!   earlier mail of the daemon's group signed the account up or changed
//!   its password) is not checked in the transaction: it is refused with
//!   one sentence, the same right or wrong, and counts as a wrong one
//!   ([`check_password`]). Only a mail nobody prepared (none of the
//!   server's entry points) checks in its transaction. The admin CLI
//!   hashes before its transaction too.
//! - **Answers to unproved mail are bounded per address**
//!   ([`answer_may_go`]): the answer to a mail (the mail to its From) is
//!   counted against that address, `[limits] unproved_answers_per_hour`
//!   per clock hour (unset: `commands_per_hour` and one, the answers an
//!   address's own commands that prove nothing may get and the notice that
//!   it sent too many), unless the mail proved an account that has the
//!   address confirmed (a right password, a reply token, the right
//!   password among words out of order; an address a forged signup named
//!   is not confirmed). Past the bound it is not sent, and nothing says so
//!   (that would be a mail too). Counted is what is mailed, not what
//!   arrives: forged mail "from" a player runs as the player's over the
//!   address's limit, and without this each of them mailed the player an
//!   error. Mail to others than the sender is bounded by the rules that
//!   make it (confirmation mails, boards per player, lockout notices).
//! - **Command limits** (`[limits]`), per clock hour (UTC): each command
//!   counts, each line of a `multiple` too. A command whose password is
//!   right counts against its account (`commands_per_hour_per_account`),
//!   any other against the sender address (`commands_per_hour`) and the
//!   server's `commands_per_hour_total`. A password proves nothing before
//!   it is checked, so only a command for a userid sent from one of that
//!   userid's addresses on file is admitted as a player's: over its
//!   address's limit it still runs (mail forged "from" a player's address
//!   cannot silence the player, who proves themselves with their
//!   password), and so it does over the server's limit while its address is
//!   under its own. Any other command, password or none, is a stranger's:
//!   over the address's limit it is dropped, with one notice to the address
//!   an hour; over the server's limit it is refused with one sentence a
//!   mail. So a flood of guessed passwords from rotating addresses stops
//!   costing password checks once the server's hour is spent.
//! - **Why the server's limit does not count proved commands** (issue #14):
//!   it guards against floods from strangers — signups, unknown or forged
//!   senders, guessed passwords — whose numbers nothing else bounds. The
//!   players' own commands are bounded by their accounts' limits, and
//!   accounts by address confirmation. Counting them too made the backlog
//!   after an outage (10,000 moves from 200 players, every one of them
//!   under their account's limit) refuse half its moves in the first hour
//!   back, so the players had to send them again.
//! - **Charges survive a rollback** (issue #31, #32). Every charge — a
//!   command counted, a wrong password or code counted, a lockout notice
//!   recorded — is written through [`Session::lasting`]: written at once
//!   (so the rest of the mail sees it), and written again after any
//!   rollback of the mail's savepoints that undid it (a refused command's
//!   `command`, the `answers` of a mail whose answers are too large). It is
//!   still written in the mail's transaction: a crash before the commit
//!   charges nothing, and the mail, still in the inbox, is charged when it
//!   is handled again (a mail that fails internally is likewise rolled back
//!   whole, charges included, and retried; the crash and failure counts
//!   of the inbox quarantine a mail that keeps failing, so it cannot repeat
//!   uncharged for ever). Other counters that a rollback must not undo use
//!   the same function ([`Ctx::charge_lasting`](super::Ctx::charge_lasting)).

use std::cell::{Cell, RefCell};

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use sha2::{Digest, Sha256};

use super::{masking, Ctx, Handled, Refusal, Reply, ServerError};
use crate::store::{self, CountScope};
use game::command::{self, Credentials};

/// Words after the userid of a command with a wrong password that are
/// masked (one of them may be the password, put in the wrong place).
pub(crate) const MAX_CANDIDATES: usize = 4;

/// Argon2id verifications one inbound mail may cause.
pub(crate) const PASSWORD_CHECKS_PER_MAIL: u32 = 5;

/// A charge written again after a rollback undid it.
type Replay = Box<dyn Fn(&Connection) -> Result<(), ServerError>>;

/// What is counted for a wrong secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Password,
    Code,
}

/// What one mail learnt while its commands ran.
#[derive(Default)]
pub(crate) struct Session {
    /// Passwords verified right: masked in the answers to the sender and in
    /// the log line.
    secrets: RefCell<masking::Hidden>,
    /// Words that may be a password (a nonexistent userid, the words after
    /// a wrong password): masked in the quotes of commands, the comment
    /// quoted back and the log line.
    hidden: RefCell<masking::Hidden>,
    /// Userids given a wrong password (or code) by the command in hand,
    /// counted after its savepoint.
    failures: RefCell<Vec<(String, Kind)>>,
    /// Userids whose password was right in the command in hand.
    verified: RefCell<Vec<String>>,
    /// Buckets whose lockout this mail has already told.
    told_locked: RefCell<Vec<String>>,
    /// Limits this mail has already told of (`server`, `address`,
    /// `checks`, or a userid).
    told_limits: RefCell<Vec<String>>,
    /// The command in hand as quoted (password masked).
    quote: RefCell<String>,
    /// The command in hand was refused with a sentence this mail already
    /// sent: no answer.
    quiet: Cell<bool>,
    /// Argon2id verifications this mail made.
    checks: Cell<u32>,
    /// Every charge this mail wrote, in order (see [`Session::lasting`]).
    ledger: RefCell<Vec<Replay>>,
    /// Lockout notices this mail made: sent even when its answers are
    /// rolled back.
    notices: RefCell<Vec<Reply>>,
    /// Whether the sender's address is confirmed, once read (see
    /// [`Session::sender_confirmed`]).
    sender_confirmed: Cell<Option<bool>>,
    /// The mail is a reply to a board mail (see [`quote`]).
    reply: Cell<bool>,
    /// The receiving MTA did not authenticate the mail's From while
    /// `[security] authserv_id` is set: no address of it is on file.
    from_unproved: Cell<bool>,
    /// The passwords this mail's checks answered: userid, stored hash,
    /// password (lower-cased), right or not (see [`checked_before`]).
    checked: RefCell<Vec<(String, String, String, bool)>>,
    /// Userids whose password (or reply token) this mail proved.
    proved: RefCell<Vec<String>>,
    /// New passwords hashed before the mail's transaction (see
    /// [`new_password_hash`]).
    prepared: RefCell<Vec<super::credentials::PreparedHash>>,
    /// Passwords checked before the mail's transaction (see
    /// [`check_password`]).
    prechecks: Vec<super::credentials::PreparedCheck>,
    /// The mail's argon2id work was done before its transaction: a check
    /// not made then is not made in it (see [`check_password`]).
    prepared_ahead: bool,
}

impl Session {
    /// The session of a mail; `reply` when it is a reply to a board mail.
    pub(crate) fn for_reply(reply: bool) -> Session {
        let session = Session::default();
        session.reply.set(reply);
        session
    }

    /// A mail whose From the receiving MTA did not authenticate
    /// (`[security] authserv_id` set): no address of it counts as on file.
    pub(crate) fn sent_unauthenticated(&self) {
        self.from_unproved.set(true);
    }

    /// Whether the mail's From is unauthenticated (see
    /// [`Session::sent_unauthenticated`]).
    pub(crate) fn sender_unproved(&self) -> bool {
        self.from_unproved.get()
    }

    /// The argon2id work done for this mail before its transaction: the
    /// new passwords' hashes are charged to its budget now, the checks
    /// when a command asks for them (see [`check_password`]).
    pub(crate) fn prepared(&mut self, prepared: super::credentials::Prepared) {
        let n = u32::try_from(prepared.hashes.len()).unwrap_or(u32::MAX);
        self.checks.set(self.checks.get().saturating_add(n));
        *self.prepared.borrow_mut() = prepared.hashes;
        self.prechecks = prepared.checks;
        self.prepared_ahead = prepared.made;
    }

    /// Whether this mail proved an account that has `address` among its
    /// confirmed addresses (see [`answer_may_go`]).
    fn proved_address(&self, conn: &Connection, address: &str) -> Result<bool, ServerError> {
        for userid in self.proved.borrow().iter() {
            if let Some(user) = store::user(conn, userid)? {
                if user
                    .confirmed_addresses()
                    .any(|a| a.eq_ignore_ascii_case(address))
                {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Start a command: `quote` is its masked line.
    pub(crate) fn begin(&self, quote: &str) {
        *self.quote.borrow_mut() = quote.to_string();
        self.verified.borrow_mut().clear();
        self.quiet.set(false);
    }

    /// Whether the command in hand was refused with a repeated sentence.
    pub(crate) fn quiet(&self) -> bool {
        self.quiet.get()
    }

    /// A wrong password for `userid`: counted after the command.
    pub(crate) fn failed(&self, userid: &str) {
        self.failures
            .borrow_mut()
            .push((userid.to_string(), Kind::Password));
    }

    /// A wrong confirmation code for `userid`: counted after the command,
    /// apart from wrong passwords.
    pub(crate) fn failed_code(&self, userid: &str) {
        self.failures
            .borrow_mut()
            .push((userid.to_string(), Kind::Code));
    }

    fn add_secret(&self, secret: &str) {
        self.secrets.borrow_mut().insert(secret);
    }

    /// Mask `word` in the quotes, the quoted comments and the log line of
    /// this mail.
    fn hide(&self, word: &str) {
        self.hidden.borrow_mut().insert(word);
    }

    /// `text` with every password this mail showed masked.
    pub(crate) fn mask(&self, text: &str) -> String {
        self.secrets.borrow().mask(text)
    }

    /// A command's quote (or the Subject, for the log) with every password
    /// and every word that may be one masked.
    pub(crate) fn mask_quote(&self, quote: &str) -> String {
        self.mask(&self.hidden.borrow().mask(quote))
    }

    /// Every reply to `sender` with the passwords this mail showed masked;
    /// the replies to anyone else are left as they are (see the rulings:
    /// no text another receives depends on what a password is).
    pub(crate) fn mask_replies(&self, replies: &mut [Reply], sender: &str) {
        let secrets = self.secrets.borrow();
        if secrets.is_empty() {
            return;
        }
        for r in replies
            .iter_mut()
            .filter(|r| r.to.eq_ignore_ascii_case(sender))
        {
            r.subject = secrets.mask(&r.subject);
            r.body = secrets.mask(&r.body);
        }
    }

    /// Write a charge that no rollback undoes ("charge this,
    /// rollback-proof"): `charge` runs now, and again after a rollback of
    /// this mail's `command` or `answers` savepoint that undid it (see
    /// [`Session::replay_since`]), in the order the charges were made.
    /// It must give the same result when run again on the same state: take
    /// the time as an argument (`ctx.now`), not from the clock. Still in
    /// the mail's transaction: a crash charges nothing (the mail is
    /// handled, and charged, again).
    pub(crate) fn lasting<T: 'static>(
        &self,
        conn: &Connection,
        charge: impl Fn(&Connection) -> Result<T, ServerError> + 'static,
    ) -> Result<T, ServerError> {
        let value = charge(conn)?;
        self.ledger
            .borrow_mut()
            .push(Box::new(move |c| charge(c).map(drop)));
        Ok(value)
    }

    /// Where the charges stand: take it when a savepoint opens.
    pub(crate) fn mark(&self) -> usize {
        self.ledger.borrow().len()
    }

    /// After `ROLLBACK TO` a savepoint opened at `mark`: write again the
    /// charges made since.
    pub(crate) fn replay_since(&self, conn: &Connection, mark: usize) -> Result<(), ServerError> {
        let ledger = self.ledger.borrow();
        for charge in ledger.iter().skip(mark) {
            charge(conn)?;
        }
        Ok(())
    }

    /// Run `work` in the savepoint `name` (see [`store::savepoint`]): kept
    /// when it returns `Ok`; when it returns `Err` everything it wrote is
    /// rolled back, and then every charge it made is written again (see
    /// [`Session::lasting`]): no rollback undoes a charge.
    pub(crate) fn savepoint<T, E>(
        &self,
        conn: &Connection,
        name: &'static str,
        work: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<rusqlite::Error> + From<ServerError>,
    {
        let mark = self.mark();
        let done = store::savepoint(conn, name, work);
        if done.is_err() {
            self.replay_since(conn, mark)?;
        }
        done
    }

    /// Whether `sender` (the mail's) is a confirmed address; `None` (the
    /// admin CLI) counts as confirmed. Read from the store once a mail:
    /// a mail's commands cannot confirm the address of a command after
    /// them that quotes a comment (a `multiple` quotes none, every other
    /// mail holds one command).
    pub(crate) fn sender_confirmed(
        &self,
        conn: &Connection,
        sender: Option<&str>,
    ) -> Result<bool, ServerError> {
        if let Some(known) = self.sender_confirmed.get() {
            return Ok(known);
        }
        let confirmed = match sender {
            Some(sender) => store::is_confirmed_address(conn, sender)?,
            None => true,
        };
        self.sender_confirmed.set(Some(confirmed));
        Ok(confirmed)
    }

    /// The lockout notices this mail made (for a mail whose other answers
    /// were rolled back).
    pub(crate) fn notices(&self) -> Vec<Reply> {
        self.notices.borrow().clone()
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

/// Where the wrong passwords (or codes) of `userid` from this mail's sender
/// are counted (see the rulings above), and the account, if it exists.
struct Bucket {
    key: String,
    user: Option<store::User>,
    stranger: bool,
}

fn bucket(ctx: &Ctx<'_>, userid: &str, kind: Kind) -> Result<Bucket, ServerError> {
    let unproved = ctx.session.from_unproved.get();
    bucket_of(ctx.conn, ctx.sender, unproved, userid, kind)
}

/// [`bucket`] of a mail from `sender`, whose From was not authenticated
/// when `unproved`.
fn bucket_of(
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
fn keyed_hash(conn: &Connection, userid: &str) -> Result<String, ServerError> {
    let key = store::throttle_key(conn)?;
    let mut h = Sha256::new();
    h.update((key.len() as u64).to_le_bytes());
    h.update(&key);
    h.update(userid.to_ascii_lowercase().as_bytes());
    Ok(h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
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
fn checked_before(session: &Session, userid: &str, stored: &str, password: &str) -> Option<bool> {
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
fn remember_check(session: &Session, userid: &str, stored: &str, password: &str, right: bool) {
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
fn check_password(ctx: &Ctx<'_>, user: &store::User, password: &str) -> Handled<bool> {
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
/// [`prepare_hashes`]). A password none was made for (past the mail's
/// budget) refuses the command as over the budget.
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

/// The argon2id work of `mail`, done before its transaction begins so
/// that it does not run while the database is locked for writing: the
/// hashes of the new passwords it gives (signup, change password) and the
/// checks of the passwords its commands give, at most
/// [`PASSWORD_CHECKS_PER_MAIL`] in all, in the order of its commands. A
/// hash is charged to the mail's budget when the mail runs, whether or not
/// its command does (see [`Session::prepared`]); a check when a command
/// asks for it, as any check ([`check_password`]). Nothing for a mail
/// whose commands will not run: seen before, never answered, too large;
/// nor for a command that will not: a stranger's (a signup, a password
/// not from an address on file for its userid) from an address over its
/// hourly limit or while the server's is spent, or one for a locked
/// userid. Reads only.
pub(crate) fn prepare_hashes(
    server: &super::Server<'_>,
    conn: &Connection,
    mail: &crate::mail::Envelope,
    raw_len: usize,
) -> Result<super::credentials::Prepared, ServerError> {
    let mut prepared = super::credentials::Prepared {
        made: true,
        ..Default::default()
    };
    let (None, Some(sender)) = (&mail.never_answer, &mail.sender) else {
        return Ok(prepared);
    };
    super::credentials::warm_up();
    let limits = &server.config.limits;
    if raw_len > limits.max_message_bytes
        || store::mail_seen(conn, &mail.message_id, &mail.fingerprint())?
    {
        return Ok(prepared);
    }
    let now = server.clock.now();
    let unproved = !mail.authenticated(server.config.security.authserv_id.as_deref());
    let (strangers_closed, on_file) = admission_ahead(server, conn, (sender, unproved), now)?;
    let admitted =
        |userid: &str| !strangers_closed || on_file.iter().any(|u| u.eq_ignore_ascii_case(userid));
    let credentials = &server.credentials;
    // Checks made: userid, stored hash, password (lower-cased).
    let mut checked: Vec<(String, String, String)> = Vec::new();
    // The hashes this mail's signups and password changes will store, by
    // userid: its later checks are made against them.
    let mut made: Vec<(String, String)> = Vec::new();
    let request = command::parse_mail(&mail.subject, &mail.body);
    for parsed in request.commands.iter().flatten() {
        let runs = prepared.hashes.len() + prepared.checks.len();
        if runs >= PASSWORD_CHECKS_PER_MAIL as usize {
            break;
        }
        if let Some(who) = parsed.command.credentials().filter(|w| admitted(&w.userid)) {
            let (userid, password) = (who.userid.to_ascii_lowercase(), who.password.expose());
            let bucket = bucket_of(conn, Some(sender), unproved, &userid, Kind::Password)?;
            let on_file = bucket.user.as_ref().map(|u| u.password_hash.as_str());
            prepared.note_account(&userid, on_file);
            let stored = stored_hash(&made, &userid, bucket.user.as_ref());
            let check = (
                userid.clone(),
                stored.unwrap_or_default().to_string(),
                password.to_lowercase(),
            );
            if !checked.contains(&check) && store::locked_until(conn, &bucket.key, now)?.is_none() {
                prepared
                    .checks
                    .push(credentials.precheck(&userid, stored, password));
                checked.push(check);
            }
        }
        if prepared.hashes.len() + prepared.checks.len() >= PASSWORD_CHECKS_PER_MAIL as usize {
            break;
        }
        let new = match &parsed.command {
            command::Command::Signup { password, .. } if !strangers_closed => password,
            command::Command::ChangePassword { who, new } if admitted(&who.userid) => new,
            _ => continue,
        };
        if let command::Command::Signup { userid, .. } = &parsed.command {
            let userid = userid.to_ascii_lowercase();
            let user = store::user(conn, &userid)?;
            prepared.note_account(&userid, user.as_ref().map(|u| u.password_hash.as_str()));
        }
        if !new.expose().is_empty() {
            let hash = credentials.prepare(new.expose())?;
            if let Some(userid) = stores_hash(conn, credentials, &prepared, &made, &parsed.command)?
            {
                made.push((userid, hash.phc().to_string()));
            }
            prepared.hashes.push(hash);
        }
    }
    let line = if request.multiple {
        ""
    } else {
        command::read_part(&mail.subject)
    };
    let first = request.commands.first().and_then(|c| c.as_ref().ok());
    let given = first.and_then(|p| p.command.credentials());
    precheck_misplaced(
        server,
        conn,
        (sender, unproved),
        line,
        given,
        now,
        &mut prepared,
    )?;
    Ok(prepared)
}

/// For [`prepare_hashes`], as [`admit`] will find them: whether a
/// stranger's command from `sender` is closed out by the hourly limits,
/// and the userids `sender` is on file for (none when its From was not
/// authenticated, `unproved`).
fn admission_ahead(
    server: &super::Server<'_>,
    conn: &Connection,
    (sender, unproved): (&str, bool),
    now: DateTime<Utc>,
) -> Result<(bool, Vec<String>), ServerError> {
    let limits = &server.config.limits;
    let strangers_closed = store::commands_this_hour(conn, CountScope::Address, sender, now)?
        >= limits.commands_per_hour
        || store::commands_this_hour(conn, CountScope::Server, "", now)?
            >= limits.commands_per_hour_total;
    let on_file = if unproved {
        Vec::new()
    } else {
        store::userids_with_address(conn, sender)?
    };
    Ok((strangers_closed, on_file))
}

/// The stored hash of `userid` (`user` on file) as this mail's signups
/// and password changes before the command in hand leave it (`made`).
fn stored_hash<'a>(
    made: &'a [(String, String)],
    userid: &str,
    user: Option<&'a store::User>,
) -> Option<&'a str> {
    made.iter()
        .rev()
        .find(|(u, _)| u == userid)
        .map(|(_, phc)| phc.as_str())
        .or(user.map(|u| u.password_hash.as_str()))
}

/// The userid whose stored hash `command` (a signup or a password change)
/// sets, when it will run as prepared: a signup of a userid not taken, a
/// change whose password the checks made so far found right; either with
/// a new password the password rule takes.
fn stores_hash(
    conn: &Connection,
    credentials: &super::credentials::VerifiedCredentials,
    prepared: &super::credentials::Prepared,
    made: &[(String, String)],
    command: &command::Command,
) -> Result<Option<String>, ServerError> {
    Ok(match command {
        command::Command::Signup { password, .. }
        | command::Command::ChangePassword { new: password, .. }
            if command::password_problem(password.expose()).is_some() =>
        {
            None
        }
        command::Command::Signup { userid, .. } => {
            let userid = userid.to_ascii_lowercase();
            let user = store::user(conn, &userid)?;
            stored_hash(made, &userid, user.as_ref())
                .is_none()
                .then_some(userid)
        }
        command::Command::ChangePassword { who, .. } => {
            let userid = who.userid.to_ascii_lowercase();
            let user = store::user(conn, &userid)?;
            let stored = stored_hash(made, &userid, user.as_ref());
            let password = who.password.expose();
            (stored.is_some()
                && credentials.prechecked(&prepared.checks, &userid, stored, password)
                    == Some(true))
            .then_some(userid)
        }
        _ => None,
    })
}

/// [`prepare_hashes`] for the words of the Subject's command `line` that
/// [`out_of_order`] would check, within what is left of the mail's
/// budget: none when the line's verb takes no password or its own
/// password (`given`) is right; that password is not checked again.
fn precheck_misplaced(
    server: &super::Server<'_>,
    conn: &Connection,
    (sender, unproved): (&str, bool),
    line: &str,
    given: Option<&Credentials>,
    now: DateTime<Utc>,
    prepared: &mut super::credentials::Prepared,
) -> Result<(), ServerError> {
    if command::word_order(line).is_none() {
        return Ok(());
    }
    let credentials = &server.credentials;
    let mut checked: Vec<&str> = Vec::new();
    if let Some(who) = given {
        if let Some(user) = store::user(conn, &who.userid)? {
            let password = who.password.expose();
            let stored = Some(user.password_hash.as_str());
            if credentials.prechecked(&prepared.checks, &user.userid, stored, password)
                == Some(true)
            {
                return Ok(());
            }
            checked.push(password);
        }
    }
    let Some((user, candidates)) =
        misplaced_candidates(conn, line, Some(sender), unproved, &checked)?
    else {
        return Ok(());
    };
    let bucket = bucket_of(conn, Some(sender), unproved, &user.userid, Kind::Password)?;
    if store::locked_until(conn, &bucket.key, now)?.is_some() {
        return Ok(());
    }
    let (userid, stored) = (&user.userid, Some(user.password_hash.as_str()));
    for candidate in candidates {
        if prepared.hashes.len() + prepared.checks.len() >= PASSWORD_CHECKS_PER_MAIL as usize {
            break;
        }
        if credentials
            .prechecked(&prepared.checks, userid, stored, candidate)
            .is_none()
        {
            let check = credentials.precheck(userid, stored, candidate);
            prepared.checks.push(check);
        }
    }
    Ok(())
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
    if let Some(until) = store::locked_until(ctx.conn, &bucket.key, ctx.now)? {
        return Err(locked_bucket(ctx, &bucket, Kind::Password, until).into());
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

/// Userids looked up at most to quote a refused command (see [`quote`]).
const MAX_QUOTED_USERIDS: usize = 20;

/// The quote of a refused command, as its error mail shows it (issue #23
/// §3): every password this mail showed and every word that may be one
/// masked ([`Session::mask_quote`]); and until the command in hand had its
/// password verified, every word but the words of the language, numbers
/// and userids on file masked too ([`command::strict_quote`]): before
/// that, any of its words may be the password in a wrong place (a reply's
/// first line excepted, see below). After it,
/// the line was written by someone who knows the password, and is quoted
/// as the parser masked it (the move stays readable in "not a legal move").
pub(crate) fn quote(ctx: &Ctx<'_>, masked: &str) -> Result<String, ServerError> {
    let session = ctx.session;
    let quote = session.mask_quote(masked);
    // A reply's first line is quoted as written: it carries no password
    // (the reply token stands in for it) and is the player's own move.
    let verified = !session.verified.borrow().is_empty() && *session.quote.borrow() == masked;
    if verified || session.reply.get() {
        return Ok(quote);
    }
    let mut on_file: Vec<String> = Vec::new();
    let mut looked = 0;
    for word in quote.split_whitespace() {
        if looked == MAX_QUOTED_USERIDS {
            break;
        }
        if !command::is_valid_userid(word) || command::is_quotable(word) {
            continue;
        }
        looked += 1;
        if store::user(ctx.conn, &word.to_ascii_lowercase())?.is_some() {
            on_file.push(word.to_ascii_lowercase());
        }
    }
    Ok(command::strict_quote(&quote, |w| {
        on_file.contains(&w.to_ascii_lowercase())
    }))
}

/// A line that is no command (the parser's refusal `e`): the refusal to
/// send, "the words are out of order" when the line holds its sender's
/// password in a wrong place (see [`out_of_order`]), and the notices of
/// lockouts its wrong candidates began.
pub(crate) fn parse_refusal(
    ctx: &Ctx<'_>,
    e: &command::ParseError,
) -> Result<(Refusal, Vec<Reply>), ServerError> {
    let refusal = match out_of_order(ctx, &[])? {
        Some(refusal) => refusal,
        None => Refusal {
            sentence: e.message.clone(),
            game: e.game.clone(),
            board: e.board,
        },
    };
    let notices = match count_failures(ctx) {
        Ok(notices) => notices,
        Err(super::Failure::Internal(e)) => return Err(e),
        Err(super::Failure::Refused(_)) => Vec::new(),
    };
    Ok((refusal, notices))
}

/// Whether the command line of this mail holds the password of a userid
/// it names, in a wrong place (issue #23 §3): then the refusal says "the
/// words are out of order" and how to write them, instead of "the
/// password is wrong" or "no such user". Rulings:
///
/// - Only for a line that names a verb taking a password (anywhere in
///   it), and a userid on file that the sender's address is on file for
///   (the owner writing; mail forged from that address too, as with every
///   password). A stranger gets no such check, so it is no oracle for
///   guessers.
/// - The candidates are the line's words other than the userid, the words
///   of the language and numbers (a new password is neither, see
///   `command`) and `checked` (the password already tried), at most
///   [`MAX_CANDIDATES`], in the order written. Each costs an argon2id
///   check from the mail's budget ([`PASSWORD_CHECKS_PER_MAIL`]; when it
///   is spent the rest are not tried). A wrong candidate is not counted
///   as a wrong password: the answer goes to the sender, an address on
///   file for the account, so a guesser forging that address never reads
///   it, and an owner who misplaced a word is not locked out faster for
///   it. The right one is masked in the answers to the sender and the
///   log, proves the account (see [`answer_may_go`]), and forgets the
///   failures of its bucket as a right password does. A candidate this
///   mail checked before costs nothing; past the budget none is tried,
///   cached or not.
/// - With `[security] authserv_id` set, only mail whose From the MTA
///   authenticated is the owner's (see [`from_address_on_file`]).
/// - The sentence never says which word was the password.
/// - Only the Subject's command is looked at (`Ctx::line`); the lines of a
///   `multiple` body are not.
fn out_of_order(ctx: &Ctx<'_>, checked: &[&str]) -> Result<Option<Refusal>, ServerError> {
    let session = ctx.session;
    // Only a line whose verb takes a password.
    let Some(order) = command::word_order(ctx.line) else {
        return Ok(None);
    };
    let unproved = session.from_unproved.get();
    let Some((user, candidates)) =
        misplaced_candidates(ctx.conn, ctx.line, ctx.sender, unproved, checked)?
    else {
        return Ok(None);
    };
    let bucket = bucket(ctx, &user.userid, Kind::Password)?;
    if store::locked_until(ctx.conn, &bucket.key, ctx.now)?.is_some() {
        return Ok(None);
    }
    let credentials = &ctx.server.credentials;
    let (userid, stored) = (&user.userid, &user.password_hash);
    for candidate in candidates {
        let right = match checked_before(session, userid, stored, candidate) {
            Some(right) => right,
            None if session.checks.get() >= PASSWORD_CHECKS_PER_MAIL => break,
            None => {
                // Checked before the transaction ([`prepare_hashes`]);
                // one that was not is not tried: no argon2id runs while
                // the database is locked for writing.
                let Some(right) =
                    credentials.prechecked(&session.prechecks, userid, Some(stored), candidate)
                else {
                    break;
                };
                session.checks.set(session.checks.get() + 1);
                remember_check(session, userid, stored, candidate, right);
                right
            }
        };
        if right {
            session.add_secret(candidate);
            session.proved.borrow_mut().push(user.userid.clone());
            session.failures.borrow_mut().retain(|(u, kind)| {
                !(u.eq_ignore_ascii_case(&user.userid) && *kind == Kind::Password)
            });
            store::clear_failures_bucket(ctx.conn, &bucket.key)?;
            return Ok(Some(Refusal::new(format!(
                "The words are out of order: {order}. Nothing was done; send the command again with its words in that order."
            ))));
        }
    }
    Ok(None)
}

/// The account whose password the command `line` from `sender` may hold
/// in a wrong place, and the words of it that may be the password, at
/// most [`MAX_CANDIDATES`] in the order written (see [`out_of_order`]'s
/// rulings): the first userid on file among its first words that the
/// sender's address is on file for (none when the From was not
/// authenticated, `unproved`), and the words other than that userid,
/// the words of the language, numbers and `checked`.
fn misplaced_candidates<'l>(
    conn: &Connection,
    line: &'l str,
    sender: Option<&str>,
    unproved: bool,
    checked: &[&str],
) -> Result<Option<(store::User, Vec<&'l str>)>, ServerError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let on_file = match sender {
        Some(_) if unproved => return Ok(None),
        Some(sender) => Some(store::userids_with_address(conn, sender)?),
        None => None,
    };
    let mut owner = None;
    for word in words.iter().take(12) {
        if !command::is_valid_userid(word) || command::is_quotable(word) {
            continue;
        }
        let Some(user) = store::user(conn, &word.to_ascii_lowercase())? else {
            continue;
        };
        let owns = on_file
            .as_ref()
            .is_none_or(|ids| ids.iter().any(|u| u.eq_ignore_ascii_case(&user.userid)));
        if user.signed_off_at.is_none() && owns {
            owner = Some(user);
            break;
        }
    }
    let Some(user) = owner else {
        return Ok(None);
    };
    let mut candidates: Vec<&str> = Vec::new();
    for word in words {
        let taken = candidates.iter().any(|c| c.eq_ignore_ascii_case(word))
            || checked.iter().any(|c| c.eq_ignore_ascii_case(word));
        if !taken && !word.eq_ignore_ascii_case(&user.userid) && !command::is_quotable(word) {
            candidates.push(word);
        }
    }
    candidates.truncate(MAX_CANDIDATES);
    Ok(Some((user, candidates)))
}

/// A wrong password (or a userid that does not exist): the words after
/// the userid in the command are masked, all of them (see the rulings).
fn hide_misplaced(ctx: &Ctx<'_>, who: &Credentials) {
    let quote = ctx.session.quote.borrow().clone();
    let words: Vec<&str> = quote.split_whitespace().collect();
    let Some(at) = words
        .iter()
        .position(|w| w.eq_ignore_ascii_case(&who.userid))
    else {
        return;
    };
    for word in words[at + 1..]
        .iter()
        .filter(|w| **w != "*****")
        .take(MAX_CANDIDATES)
    {
        ctx.session.hide(word);
    }
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
        let whence = if bucket.stranger && ctx.session.from_unproved.get() {
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
    // Only a command from one of its userid's addresses is a player's
    // until its password is checked; any other is a stranger's.
    let who = match who {
        Some(w) if from_address_on_file(ctx, &w.userid)? => Some(w),
        _ => None,
    };
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
            "This server has taken all the {} commands it takes in an hour from senders who give no right password from an address of their account; this and the rest of your commands were not carried out. Send them again after {}.",
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
    let n = count_lasting(ctx, CountScope::Address, sender)?;
    if n == limits.commands_per_hour + 1 && !Session::told(&session.told_limits, "address") {
        return Ok(Admission::Refuse(Refusal::new(format!(
            "You sent more than {} commands within an hour, so further commands from {sender} are dropped unanswered until {}, except those with your password from an address of your account (they count against your account instead). Please send fewer.",
            limits.commands_per_hour,
            next_hour(ctx.now)
        ))));
    }
    Ok(Admission::Drop)
}

/// Whether the sender's address is on file for `userid`.
fn from_address_on_file(ctx: &Ctx<'_>, userid: &str) -> Result<bool, ServerError> {
    let Some(sender) = ctx.sender else {
        return Ok(true);
    };
    // A From the MTA did not authenticate (`[security] authserv_id`) is
    // anyone's.
    if ctx.session.from_unproved.get() {
        return Ok(false);
    }
    Ok(store::userids_with_address(ctx.conn, sender)?
        .iter()
        .any(|u| u.eq_ignore_ascii_case(userid)))
}

/// Whether a mail that an inbound mail from `sender` causes may go to
/// `to` (see the rulings): always when `to` is not the sender, or is a
/// confirmed address of an account the mail proved (a password or a reply
/// token); any other answer is counted against `to`, and past `[limits]
/// unproved_answers_per_hour` in the clock hour it does not go.
pub(crate) fn answer_may_go(
    server: &super::Server<'_>,
    conn: &Connection,
    session: &Session,
    sender: &str,
    to: &str,
    now: DateTime<Utc>,
) -> Result<bool, ServerError> {
    if !to.eq_ignore_ascii_case(sender) || session.proved_address(conn, to)? {
        return Ok(true);
    }
    let key = format!("unproved-answers:{}", to.to_ascii_lowercase());
    let n = store::count_command(conn, CountScope::Server, &key, now)?;
    Ok(n <= server.config.limits.unproved_answers())
}

/// One command counted for `key`, rollback-proof; the count after it.
fn count_lasting(ctx: &Ctx<'_>, scope: CountScope, key: &str) -> Result<u32, ServerError> {
    let (key, now) = (key.to_string(), ctx.now);
    ctx.charge_lasting(move |conn| Ok(store::count_command(conn, scope, &key, now)?))
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
/// else to the sender address and the server (rollback-proof).
pub(crate) fn charge(ctx: &Ctx<'_>, who: Option<&Credentials>) -> Result<(), ServerError> {
    let verified = who.filter(|w| ctx.session.verified.borrow().contains(&w.userid));
    match verified {
        Some(w) => count_lasting(ctx, CountScope::Account, &w.userid)?,
        None => {
            count_lasting(ctx, CountScope::Address, ctx.sender.unwrap_or_default())?;
            count_lasting(ctx, CountScope::Server, "")?
        }
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count_of(conn: &Connection) -> u32 {
        store::commands_this_hour(conn, CountScope::Address, "a@x", Utc::now()).unwrap()
    }

    #[test]
    fn a_verified_password_is_masked_only_in_the_answers_to_the_sender() {
        let session = Session::default();
        session.add_secret("Lion7");
        let reply = |to: &str| Reply {
            to: to.to_string(),
            subject: "Chess Board 101".to_string(),
            body: "Observers: lion7, tiger99".to_string(),
            reply_key: None,
        };
        let mut replies = vec![reply("A@x"), reply("b@x")];
        session.mask_replies(&mut replies, "a@x");
        assert_eq!(replies[0].body, "Observers: *****, tiger99");
        assert_eq!(replies[1].body, "Observers: lion7, tiger99");
    }

    #[test]
    fn a_lasting_charge_is_written_again_after_each_rollback_that_undid_it() {
        let conn = store::open_in_memory().unwrap();
        let session = Session::default();
        let now = Utc::now();
        let count =
            move |c: &Connection| Ok(store::count_command(c, CountScope::Address, "a@x", now)?);
        // Before the mail's savepoints: no rollback of theirs undoes it.
        session.lasting(&conn, count).unwrap();
        conn.execute_batch("SAVEPOINT answers").unwrap();
        let answers = session.mark();
        assert_eq!(session.lasting(&conn, count).unwrap(), 2);
        conn.execute_batch("SAVEPOINT command").unwrap();
        let command = session.mark();
        assert_eq!(session.lasting(&conn, count).unwrap(), 3);
        conn.execute_batch("ROLLBACK TO command; RELEASE command")
            .unwrap();
        assert_eq!(count_of(&conn), 2);
        session.replay_since(&conn, command).unwrap();
        assert_eq!(count_of(&conn), 3);
        conn.execute_batch("ROLLBACK TO answers; RELEASE answers")
            .unwrap();
        assert_eq!(count_of(&conn), 1);
        session.replay_since(&conn, answers).unwrap();
        assert_eq!(count_of(&conn), 3);
    }

    #[test]
    fn a_savepoint_that_fails_undoes_its_writes_but_not_its_charges() {
        let conn = store::open_in_memory().unwrap();
        let session = Session::default();
        let now = Utc::now();
        let count =
            move |c: &Connection| Ok(store::count_command(c, CountScope::Address, "a@x", now)?);
        let other = |c: &Connection| store::count_command(c, CountScope::Address, "b@x", now);
        let failed: Result<(), ServerError> = session.savepoint(&conn, "answers", || {
            session.lasting(&conn, count)?;
            other(&conn)?;
            let inner: Result<(), ServerError> = session.savepoint(&conn, "command", || {
                session.lasting(&conn, count)?;
                other(&conn)?;
                Err(ServerError::Stopped)
            });
            assert!(inner.is_err());
            assert_eq!(count_of(&conn), 2, "the inner charge is written again");
            Err(ServerError::Stopped)
        });
        assert!(failed.is_err());
        assert_eq!(count_of(&conn), 2, "both charges outlive the rollbacks");
        let others = store::commands_this_hour(&conn, CountScope::Address, "b@x", now).unwrap();
        assert_eq!(others, 0, "what was not a charge is undone");
        let kept: Result<u32, ServerError> =
            session.savepoint(&conn, "answers", || session.lasting(&conn, count));
        assert_eq!(kept.unwrap(), 3);
        assert_eq!(count_of(&conn), 3, "a released savepoint charges once");
    }
}
