//! The quotes of refused commands, and passwords in the wrong place: the
//! words that may be a password masked, and "the words are out of order".

use rusqlite::Connection;

use super::super::{Ctx, Refusal, Reply, ServerError};
use super::throttle::{bucket, checked_before, count_failures, remember_check};
use super::{Kind, MAX_CANDIDATES, PASSWORD_CHECKS_PER_MAIL};
use crate::store;
use game::command::{self, Credentials};

/// Userids looked up at most to quote a refused command (see [`quote`]).
const MAX_QUOTED_USERIDS: usize = 20;

/// The quote of a refused command, as its error mail shows it: every password
/// this mail showed and every word that may be one masked
/// ([`Session::mask_quote`](super::Session::mask_quote)); and until the command
/// in hand had its password verified, every word but the words of the language,
/// numbers and userids on file masked too ([`command::strict_quote`]): before
/// that, any of its words may be the password in a wrong place (a reply's first
/// line excepted, see below). After it, the line was written by someone who
/// knows the password, and is quoted as the parser masked it (the move stays
/// readable in "not a legal move").
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
            drawing: None,
        },
    };
    let notices = match count_failures(ctx) {
        Ok(notices) => notices,
        Err(crate::server::Failure::Internal(e)) => return Err(e),
        Err(crate::server::Failure::Refused(_)) => Vec::new(),
    };
    Ok((refusal, notices))
}

/// Whether the command line of this mail holds the password of a userid
/// it names, in a wrong place: then the refusal says "the
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
///   log, proves the account (see [`answer_may_go`](super::answer_may_go)), and
///   forgets the failures of its bucket as a right password does. A candidate
///   this mail checked before costs nothing; past the budget none is tried,
///   cached or not.
/// - With `[security] authserv_id` set, only mail whose From the MTA
///   authenticated is the owner's (see
///   [`from_address_on_file`](super::limits::from_address_on_file)).
/// - The sentence never says which word was the password.
/// - Only the Subject's command is looked at (`Ctx::line`); the lines of a
///   `multiple` body are not.
pub(super) fn out_of_order(
    ctx: &Ctx<'_>,
    checked: &[&str],
) -> Result<Option<Refusal>, ServerError> {
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
pub(super) fn misplaced_candidates<'l>(
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
pub(super) fn hide_misplaced(ctx: &Ctx<'_>, who: &Credentials) {
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
