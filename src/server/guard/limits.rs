//! The hourly limits: commands counted against their account, their
//! address and the server, and answers to unproved mail.

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;

use super::super::{Ctx, Refusal, ServerError};
use super::Session;
use crate::store::{self, CountScope};
use game::command::Credentials;

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
pub(super) fn from_address_on_file(ctx: &Ctx<'_>, userid: &str) -> Result<bool, ServerError> {
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
    server: &crate::server::Server<'_>,
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
    server: &crate::server::Server<'_>,
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
