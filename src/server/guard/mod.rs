//! What guards the accounts while a mail runs: passwords
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
//!   hourly limits and [`out_of_order`](masking::out_of_order)): forged mail
//!   cannot lock the owner out. Without it, mail forged with the owner's
//!   address counts against the owner's bucket: the server cannot tell it apart
//!   (see docs/security.md, Limits). A right password forgets the wrong ones of
//!   its own bucket only (the owner's moves do not reset the strangers' count);
//!   a new password from the admin forgets both.
//! - **The web site's move form** ([`Session::came_by_web_form`]) is a
//!   stranger whatever its address, and more: its password is refused
//!   (unchecked) while *any* bucket of the account is locked, its own
//!   addresses' too, with that bucket's sentence, and its wrong passwords
//!   count in a bucket of the client's as well (`web-client:`), for any
//!   userid, forgotten only with time; see [`throttle::lock_of`]. The
//!   split keeps forged mail from locking the owner's mail; the form has
//!   no address of anyone's, so it is no way around a lockout, and its
//!   client address is the connection's, which a mail cannot forge.
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
//!   password: so no answer tells which word was (masking only the word
//!   that matched would tell a guesser which of five guesses was right). For a
//!   stranger they are not checked against the password: with all of them
//!   masked a check would tell nobody anything; each wrong password counts one
//!   failure. From an address on file for the account they are (see
//!   [`out_of_order`](masking::out_of_order)): the owner is told "the words are
//!   out of order", never which word, and only at that address. Every password
//!   verified in a mail is masked (`*****`, any case, however quoted or
//!   bracketed: see [`masking::Hidden`](super::masking::Hidden)) in the answers to
//!   the mail's sender (their own copies, the quotes of their commands) and in
//!   its log line, and never in a mail to anyone else: masking there would make
//!   what others read depend on what the password is (an observer named after a
//!   guess would read `*****` in the list of observers), an oracle. Of the
//!   sender's own words others read (the comment, a chat line, a message) the
//!   word equal to the password the command gave is masked (`sentences::commented`,
//!   `sentences::own_text`): that depends on what the sender wrote, not on what the
//!   password is.
//! - **Argon2id is a budget**: at most [`PASSWORD_CHECKS_PER_MAIL`] (5)
//!   argon2id runs per inbound mail, verifications and hashes of new
//!   passwords together. The cache of verified passwords
//!   ([`super::credentials`]) saves a check's time, never its place in the
//!   budget: a password this process verified before costs a check like
//!   any other. Past the budget every command that gives a password is
//!   refused with the same sentence (told once a mail) and its password
//!   counts as a wrong one toward its bucket, right or wrong, checked or
//!   not: nothing the server answers, writes or logs depends on whether an
//!   unchecked password was right (a right one answered from the cache
//!   would name it among twenty guesses). A password this mail checked before
//!   (the same userid, stored hash and password) costs nothing and answers as
//!   it did ([`checked_before`](throttle::checked_before)): it tells the mail
//!   nothing it was not told, and a wrong one counts again.
//! - **Argon2id runs before the mail's transaction** ([`prepare_hashes`]),
//!   not while the database is locked for writing (a mail of 50 signups
//!   would hold it for seconds): the hashes of its new passwords (signup,
//!   change password) and the checks of the passwords its commands give, at
//!   most the budget in all, in the order of its commands, then the words of
//!   the Subject's line that [`out_of_order`](masking::out_of_order) would
//!   check (it tries only those checked ahead). A hash is one of the mail's
//!   checks whether or not its command runs; a command whose new password has
//!   no hash (past the budget) is refused as over the budget
//!   ([`new_password_hash`]). A check made ahead is spent, and its answer used,
//!   only when a command asks for it within the budget, as any check. The
//!   mail's own signups and password changes are foreseen: its later checks for
//!   those userids are made against the hashes they will store. A password
//!   whose stored hash changed since otherwise (an earlier mail of the daemon's
//!   group signed the account up or changed its password) is not checked in the
//!   transaction: it is refused with one sentence, the same right or wrong, and
//!   counts as a wrong one ([`check_password`](throttle::check_password)). Only
//!   a mail nobody prepared (none of the server's entry points) checks in its
//!   transaction. The admin CLI hashes before its transaction too.
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
//! - **Why the server's limit does not count proved commands**:
//!   it guards against floods from strangers — signups, unknown or forged
//!   senders, guessed passwords — whose numbers nothing else bounds. The
//!   players' own commands are bounded by their accounts' limits, and
//!   accounts by address confirmation. Counting them too would make the backlog
//!   after an outage (10,000 moves from 200 players, every one of them
//!   under their account's limit) refuse half its moves in the first hour
//!   back, and the players would have to send them again.
//! - **Charges survive a rollback**. Every charge — a
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
//!
//! The rooms: [`session`] (what one mail learnt, and the masking of its
//! passwords), [`charges`] (charges no rollback undoes), [`throttle`]
//! (wrong passwords and codes, lockouts, the argon2id budget), [`prepare`]
//! (the argon2id work done before the transaction), [`masking`] (quotes
//! and passwords in the wrong place) and [`limits`] (the hourly limits).

mod charges;
mod limits;
mod masking;
mod prepare;
mod session;
mod throttle;

pub(crate) use limits::{admit, answer_may_go, charge, over_address_limit, Admission};
pub(crate) use masking::{parse_refusal, quote};
pub(crate) use prepare::prepare_hashes;
pub(crate) use session::Session;
pub(crate) use throttle::{authenticate, code_lock, count_failures, new_password_hash};

/// Words after the userid of a command with a wrong password that are
/// masked (one of them may be the password, put in the wrong place).
pub(crate) const MAX_CANDIDATES: usize = 4;

/// Argon2id verifications one inbound mail may cause.
pub(crate) const PASSWORD_CHECKS_PER_MAIL: u32 = 5;

/// What is counted for a wrong secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Password,
    Code,
}
