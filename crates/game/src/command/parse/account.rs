//! The account verbs (`signup`, `change`, `message` ...): one reader
//! function per verb.

use super::*;

pub(super) fn help(p: &mut Parser<'_>) -> Res<Command> {
    Ok(Command::Help {
        topics: p.rest().iter().map(|w| w.to_ascii_lowercase()).collect(),
    })
}

pub(super) fn signup(p: &mut Parser<'_>) -> Res<Command> {
    let word = p.need()?;
    let userid = p.check_userid(word)?;
    if RESERVED_USERIDS.contains(&userid.as_str()) {
        return Err(p.fail(format!(
            "{} is a word the server keeps for itself (show and games read it as a \
             filter), so it cannot be a userid; choose another, like: {}.",
            p.slot(word),
            p.example()
        )));
    }
    let password = p.new_password()?;
    let mut addresses = Vec::new();
    for word in p.rest() {
        addresses.push(p.address(word)?);
    }
    Ok(Command::Signup {
        userid,
        password,
        addresses,
    })
}

pub(super) fn change(p: &mut Parser<'_>) -> Res<Command> {
    let sub = p.need()?.to_ascii_lowercase();
    // `password`, `address`, `addresses`, or a prefix of one.
    let what = if "password".starts_with(&sub) {
        Some(ChangeWhat::Password)
    } else if "addresses".starts_with(&sub) {
        Some(ChangeWhat::Address)
    } else {
        None
    };
    match what {
        Some(ChangeWhat::Password) => {
            p.cmd = "change password".to_string();
            p.usage = Usage {
                needs: "your userid, your old password and your new password",
                example: "change password alice oldsecret newsecret",
            };
            let who = p.creds()?;
            let new = p.new_password()?;
            Ok(Command::ChangePassword { who, new })
        }
        Some(ChangeWhat::Address) => {
            p.cmd = "change address".to_string();
            p.usage = Usage {
                needs: "your userid, your password and the new mail addresses (none \
                        for the address you write from)",
                example: "change address alice secret alice@example.org",
            };
            let who = p.creds()?;
            let mut addresses = Vec::new();
            for word in p.rest() {
                addresses.push(p.address(word)?);
            }
            Ok(Command::ChangeAddress { who, addresses })
        }
        None => {
            let word = p.toks[p.i - 1].text;
            if let Some(meant) = nearest(&sub, ["password", "address"]) {
                return Err(p.fail(format!(
                    "{} should be password or address; did you mean {meant}, as in: {}?",
                    p.slot(word),
                    p.corrected(p.i - 1, meant)
                )));
            }
            Err(p.bad(word, "password or address"))
        }
    }
}

pub(super) fn confirm(p: &mut Parser<'_>) -> Res<Command> {
    let word = p.need()?;
    if !word.eq_ignore_ascii_case("address") {
        return Err(p.bad(word, "address"));
    }
    p.cmd = "confirm address".to_string();
    let userid = p.userid()?;
    // The code is masked where the line is quoted, as a password.
    let code = p.password()?;
    Ok(Command::ConfirmAddress { userid, code })
}

pub(super) fn signoff(p: &mut Parser<'_>) -> Res<Command> {
    Ok(Command::Signoff { who: p.creds()? })
}

pub(super) fn vacation(p: &mut Parser<'_>) -> Res<Command> {
    let who = p.creds()?;
    let Some(word) = p.next() else {
        p.end()?;
        return Ok(Command::ShowVacation { who });
    };
    let days = if word.eq_ignore_ascii_case("off") {
        None
    } else {
        let days = p.number(word, "a number of days or off")?;
        if days == 0 {
            return Err(p.bad(word, "a number of days (to end a vacation write off)"));
        }
        Some(days)
    };
    Ok(Command::Vacation { who, days })
}

pub(super) fn list(p: &mut Parser<'_>) -> Res<Command> {
    let mut games = Vec::new();
    for word in p.rest() {
        match game_name(word) {
            Some(g) => games.push(g.to_string()),
            None => {
                return Err(p.fail(match suggest_game(word) {
                    Some(g) => format!(
                        "{} is no game I know (did you mean {g}?); the games are {}.",
                        p.slot(word),
                        list_words(GAME_NAMES)
                    ),
                    None => format!(
                        "{} is no game I know; the games are {}.",
                        p.slot(word),
                        list_words(GAME_NAMES)
                    ),
                }))
            }
        }
    }
    Ok(Command::List { games })
}

pub(super) fn broadcast(p: &mut Parser<'_>) -> Res<Command> {
    Ok(Command::Broadcast { who: p.creds()? })
}

pub(super) fn message(p: &mut Parser<'_>) -> Res<Command> {
    let who = p.creds()?;
    let mut to = Vec::new();
    for word in p.rest() {
        to.push(p.check_userid(word)?);
    }
    if to.is_empty() {
        return Err(p.missing());
    }
    Ok(Command::Message { who, to })
}

pub(super) fn all_show(p: &mut Parser<'_>) -> Res<Command> {
    let word = p.need()?;
    if !word.eq_ignore_ascii_case("show") {
        return Err(p.fail(format!(
            "all is followed by show, not by {}, like: {}.",
            p.slot(word),
            p.example()
        )));
    }
    let userid = p.userid()?;
    let filter = match p.next() {
        None => BoardFilter::default(),
        Some(word) => {
            filter_word(word).ok_or_else(|| p.bad(word, "all, active, inactive or next"))?
        }
    };
    Ok(Command::AllShow { userid, filter })
}
