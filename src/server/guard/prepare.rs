//! The argon2id work of a mail, done before its transaction begins.

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::super::ServerError;
use super::masking::misplaced_candidates;
use super::throttle::{bucket_of, lock_of};
use super::{Kind, PASSWORD_CHECKS_PER_MAIL};
use crate::store::{self, CountScope};
use game::command::{self, Credentials};

/// The argon2id work of `mail`, done before its transaction begins so
/// that it does not run while the database is locked for writing: the
/// hashes of the new passwords it gives (signup, change password) and the
/// checks of the passwords its commands give, at most
/// [`PASSWORD_CHECKS_PER_MAIL`] in all, in the order of its commands. A
/// hash is charged to the mail's budget when the mail runs, whether or not
/// its command does (see [`Session::prepared`](super::Session::prepared)); a
/// check when a command asks for it, as any check
/// ([`check_password`](super::throttle::check_password)). Nothing for a mail
/// whose commands will not run: seen before, never answered, too large; nor for
/// a command that will not: a stranger's (a signup, a password not from an
/// address on file for its userid) from an address over its hourly limit or
/// while the server's is spent, or one for a locked userid (from the web
/// form, `web`: a userid with any bucket locked, or a locked client; see
/// [`lock_of`]). Reads only.
pub(crate) fn prepare_hashes(
    server: &crate::server::Server<'_>,
    conn: &Connection,
    mail: &crate::mail::Envelope,
    raw_len: usize,
    web: bool,
) -> Result<crate::server::credentials::Prepared, ServerError> {
    let mut prepared = crate::server::credentials::Prepared {
        made: true,
        ..Default::default()
    };
    let (None, Some(sender)) = (&mail.never_answer, &mail.sender) else {
        return Ok(prepared);
    };
    crate::server::credentials::warm_up();
    let limits = &server.config.limits;
    if raw_len > limits.max_message_bytes
        || store::mail_seen(conn, &mail.message_id, &mail.fingerprint())?
    {
        return Ok(prepared);
    }
    let now = server.clock.now();
    // The web form is anyone's (see `Session::came_by_web_form`).
    let unproved = web || !mail.authenticated(server.config.security.authserv_id.as_deref());
    let web_client = web.then_some(sender.as_str());
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
            if !checked.contains(&check) && lock_of(conn, &bucket, web_client, now)?.is_none() {
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
        (sender, unproved, web_client),
        line,
        given,
        now,
        &mut prepared,
    )?;
    Ok(prepared)
}

/// For [`prepare_hashes`], as [`admit`](super::admit) will find them: whether a
/// stranger's command from `sender` is closed out by the hourly limits,
/// and the userids `sender` is on file for (none when its From was not
/// authenticated, `unproved`).
fn admission_ahead(
    server: &crate::server::Server<'_>,
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
    credentials: &crate::server::credentials::VerifiedCredentials,
    prepared: &crate::server::credentials::Prepared,
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
/// [`out_of_order`](super::masking::out_of_order) would check, within what is
/// left of the mail's budget: none when the line's verb takes no password or
/// its own password (`given`) is right; that password is not checked again.
fn precheck_misplaced(
    server: &crate::server::Server<'_>,
    conn: &Connection,
    (sender, unproved, web_client): (&str, bool, Option<&str>),
    line: &str,
    given: Option<&Credentials>,
    now: DateTime<Utc>,
    prepared: &mut crate::server::credentials::Prepared,
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
    if lock_of(conn, &bucket, web_client, now)?.is_some() {
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
