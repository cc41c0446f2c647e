//! A player's standing wishes: vacations, result notifications, which
//! challenges they take, and how their boards look (`set`).

use chrono::{Datelike, Duration, TimeZone, Utc};

use super::loaded::require_board;
use super::{Ctx, Handled, Refusal, Reply};
use crate::store::{self, ChallengeSettings, Vacation};
use game::command::{BoardSize, Credentials, Look};
use rules::Game;

fn confirm(
    ctx: &Ctx<'_>,
    user: &store::User,
    subject: String,
    text: String,
) -> Handled<Vec<Reply>> {
    Ok(vec![ctx.notice(ctx.answer_to(user), subject, &text)?])
}

/// `vacation <userid> <pw> <days>|off`: from now on, for that many days, the
/// player is neither reminded nor forfeited and the time does not count
/// against them. Ruling: the yearly allowance counts the days of vacations
/// started in the current calendar year (UTC), as they were taken (a
/// vacation ended early with `off` counts only its days taken, rounded up).
/// A new vacation replaces a running one.
pub(crate) fn vacation(ctx: &Ctx<'_>, who: &Credentials, days: Option<u32>) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let subject = "Vacation".to_string();
    let Some(days) = days else {
        let ended = store::end_vacations(ctx.conn, &user.userid, ctx.now)?;
        let text = if ended > 0 {
            format!(
                "Welcome back, {}: your vacation is over and your clocks run again.",
                user.userid
            )
        } else {
            format!("{} is not on vacation.", user.userid)
        };
        return confirm(ctx, &user, subject, text);
    };
    store::end_vacations(ctx.conn, &user.userid, ctx.now)?;
    let (left, allowance) = vacation_days_left(ctx, &user.userid)?;
    if days as i64 > left {
        return Err(Refusal::new(format!(
            "You have {left} of your {allowance} vacation days left this year; ask for at most {left}."
        ))
        .into());
    }
    let ends_at = ctx.now + Duration::days(days as i64);
    store::add_vacation(
        ctx.conn,
        &user.userid,
        Vacation {
            starts_at: ctx.now,
            ends_at,
        },
    )?;
    let text = format!(
        "Enjoy your vacation, {}: until {} you get no reminders and forfeit no games, and that time does not count against you. Send \"vacation {} <password> off\" to come back earlier.",
        user.userid,
        ends_at.format("%Y-%m-%d %H:%M UTC"),
        user.userid
    );
    let mut replies = confirm(ctx, &user, subject, text)?;
    replies.extend(tell_opponents(ctx, &user.userid, ends_at)?);
    Ok(replies)
}

/// Each opponent of `userid` on an active board is told that `userid` is
/// away until `ends_at`, and on which boards (one notice per opponent).
fn tell_opponents(
    ctx: &Ctx<'_>,
    userid: &str,
    ends_at: chrono::DateTime<Utc>,
) -> Handled<Vec<Reply>> {
    let mut boards_of: Vec<(String, Vec<String>)> = Vec::new();
    for b in store::boards_of_user(ctx.conn, None, userid)? {
        if !b.is_active() {
            continue;
        }
        let title = rules::game(&b.game).map_or(b.game.clone(), |g| g.title().to_string());
        for opponent in b.players.iter().filter(|p| *p != userid) {
            let named = format!("{title} Board {}", b.board);
            match boards_of.iter_mut().find(|(o, _)| o == opponent) {
                Some((_, list)) => list.push(named),
                None => boards_of.push((opponent.clone(), vec![named])),
            }
        }
    }
    let mut replies = Vec::new();
    for (opponent, boards) in boards_of {
        let Some(reader) = store::user(ctx.conn, &opponent)? else {
            continue;
        };
        replies.extend(ctx.notice_to_user(
            &reader,
            format!("{userid} is on vacation"),
            format!(
                "{userid} is on vacation until {}. Until then {userid} gets no reminders and forfeits nothing on {}; your own clock runs as usual.",
                ends_at.format("%Y-%m-%d %H:%M UTC"),
                boards.join(", ")
            ),
        )?);
    }
    Ok(replies)
}

/// The vacation days `userid` has left this year, and the yearly
/// allowance. A running vacation counts with all its booked days.
fn vacation_days_left(ctx: &Ctx<'_>, userid: &str) -> Handled<(i64, i64)> {
    let year_start = Utc
        .with_ymd_and_hms(ctx.now.year(), 1, 1, 0, 0, 0)
        .single()
        .unwrap_or(ctx.now);
    let used: i64 = store::vacations(ctx.conn, userid, year_start)?
        .iter()
        .filter(|v| v.starts_at >= year_start)
        .map(|v| {
            let secs = (v.ends_at - v.starts_at).num_seconds();
            (secs + 86_399) / 86_400
        })
        .sum();
    let allowance = ctx.server.config.timers.vacation_days_per_year as i64;
    Ok(((allowance - used).max(0), allowance))
}

/// `vacation <userid> <pw>` without days: whether the player is on
/// vacation now (until when), and the days left this year.
pub(crate) fn vacation_report(ctx: &Ctx<'_>, who: &Credentials) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let (left, allowance) = vacation_days_left(ctx, &user.userid)?;
    let running = store::vacations(ctx.conn, &user.userid, ctx.now)?
        .into_iter()
        .filter(|v| v.starts_at <= ctx.now)
        .map(|v| v.ends_at)
        .max();
    let now = match running {
        Some(ends) => format!(
            "{} is on vacation until {}",
            user.userid,
            ends.format("%Y-%m-%d %H:%M UTC")
        ),
        None => format!("{} is not on vacation", user.userid),
    };
    let text = format!(
        "{now}, and has {left} of {allowance} vacation day{} left this year.",
        if allowance == 1 { "" } else { "s" }
    );
    confirm(ctx, &user, "Vacation".to_string(), text)
}

/// `<game> notify <userid> <pw> [<board>...]`: mail me the results of those
/// boards (of every board of the game when none is named).
pub(crate) fn notify(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    who: &Credentials,
    boards: &[u32],
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    super::confirm::needs_confirmed(&user, "ask for results")?;
    if boards.is_empty() {
        store::add_result_notification(ctx.conn, game.name(), None, &user.userid)?;
    }
    for &n in boards {
        require_board(ctx, game, n)?;
        store::add_result_notification(ctx.conn, game.name(), Some(n), &user.userid)?;
    }
    let which = if boards.is_empty() {
        format!("every {} board", game.title())
    } else {
        format!(
            "{} board{} {}",
            game.title(),
            if boards.len() == 1 { "" } else { "s" },
            boards
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    confirm(
        ctx,
        &user,
        format!("{} notifications", game.title()),
        format!(
            "{} will get the result of {which} when it ends.",
            user.userid
        ),
    )
}

/// `<game> accept|reject <userid> <pw>` and `<game> limit <userid> <pw>
/// <N|inf>`: whether and how many challenges of this game the player takes.
pub(crate) fn challenges(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    who: &Credentials,
    change: impl FnOnce(&mut ChallengeSettings),
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let mut settings = store::challenge_settings(ctx.conn, &user.userid, game.name())?;
    change(&mut settings);
    store::set_challenge_settings(ctx.conn, &user.userid, game.name(), settings)?;
    let limit = match settings.limit {
        Some(n) => format!(
            ", at most {n} active board{} at a time",
            if n == 1 { "" } else { "s" }
        ),
        None => String::new(),
    };
    let text = if settings.accepts {
        format!("{} takes {} challenges{limit}.", user.userid, game.title())
    } else {
        format!("{} takes no {} challenges.", user.userid, game.title())
    };
    confirm(ctx, &user, format!("{} challenges", game.title()), text)
}

/// `<game> limit <userid> <pw>` without a number: whether the player
/// takes challenges of this game, the limit, and how many boards of it
/// they play now.
pub(crate) fn limit_report(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    who: &Credentials,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let settings = store::challenge_settings(ctx.conn, &user.userid, game.name())?;
    let active = store::boards_of_user(ctx.conn, Some(game.name()), &user.userid)?
        .iter()
        .filter(|b| b.is_active())
        .count();
    let boards = |n: usize| format!("{n} active board{}", if n == 1 { "" } else { "s" });
    let limit = match settings.limit {
        Some(n) => format!("at most {} at a time", boards(n as usize)),
        None => "no limit (inf)".to_string(),
    };
    let takes = if settings.accepts {
        "takes"
    } else {
        "takes no"
    };
    let text = format!(
        "{} {takes} {} challenges, with {limit}, and plays {} of {} now.",
        user.userid,
        game.title(),
        boards(active),
        game.title()
    );
    confirm(ctx, &user, format!("{} challenges", game.title()), text)
}

/// Refuse a challenge a named player does not take: they reject challenges
/// of this game, or are at their limit of active boards. A player may always
/// start a board themselves (their own address sent the challenge).
pub(crate) fn check_challenge(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    players: &[String],
) -> Handled<()> {
    let Some(sender) = ctx.sender else {
        return Ok(()); // the admin may start any board
    };
    let challengers = store::userids_with_address(ctx.conn, sender)?;
    for userid in players {
        if challengers.contains(userid) {
            continue;
        }
        let settings = store::challenge_settings(ctx.conn, userid, game.name())?;
        if !settings.accepts {
            return Err(Refusal::new(format!(
                "{userid} takes no {} challenges at the moment.",
                game.title()
            ))
            .into());
        }
        if let Some(limit) = settings.limit {
            let active = store::boards_of_user(ctx.conn, Some(game.name()), userid)?
                .iter()
                .filter(|b| b.is_active())
                .count();
            if active >= limit as usize {
                return Err(Refusal::new(format!(
                    "{userid} already plays {active} {} board{}, the most they take; challenge them when one has ended.",
                    game.title(),
                    if active == 1 { "" } else { "s" }
                ))
                .into());
            }
        }
    }
    Ok(())
}

/// `<game> set <userid> <pw> small|large`
pub(crate) fn set_look(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    who: &Credentials,
    look: Look,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let how = match look {
        Look::Size(size) => {
            store::set_board_size(ctx.conn, &user.userid, game.name(), size)?;
            match size {
                BoardSize::Small => "small",
                BoardSize::Large => "large",
            }
        }
        Look::FromBlack(flipped) => {
            store::set_from_black(ctx.conn, &user.userid, game.name(), flipped)?;
            if flipped {
                "from Black's side (rank 1 on top)"
            } else {
                "from White's side (rank 1 at the bottom)"
            }
        }
        Look::Html(html) => return set_mail_form(ctx, game, &user, html),
        Look::LastMovesOnly(last) => return set_score(ctx, game, &user, last),
        Look::Picture(on) => return set_picture(ctx, game, &user, on),
        Look::Reply(on) => {
            store::set_no_reply(ctx.conn, &user.userid, game.name(), !on)?;
            if !on {
                // Every token the player holds ends, on every board.
                store::expire_user_reply_tokens(ctx.conn, &user.userid, ctx.now)?;
            }
            let text = if on {
                format!(
                    "From now on you may answer your {} board mails by reply (with your move on the first line), {}; the Subject command works as ever.",
                    game.title(),
                    user.userid
                )
            } else {
                format!(
                    "From now on your {} board mails cannot be answered by reply, {}; send your moves with the Subject command ({} move <board> {} <password> <move>).",
                    game.title(),
                    user.userid,
                    game.name(),
                    user.userid
                )
            };
            return settings_answer(ctx, game, &user, &text);
        }
    };
    let text = format!(
        "From now on your {} boards are drawn {how}, {}.",
        game.title(),
        user.userid
    );
    settings_answer(ctx, game, &user, &text)
}

/// `<game> set <userid> <pw> picture|nopicture`: the HTML part of board
/// mails shows the board as a picture above the text board, or not.
/// Ruling: like `plain|html`, the choice is the player's for every game,
/// which the answer says; a player who chose `plain` is told that the
/// picture comes only with the HTML part.
fn set_picture(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    user: &store::User,
    on: bool,
) -> Handled<Vec<Reply>> {
    store::set_picture_mail(ctx.conn, &user.userid, on)?;
    let mut text = if on {
        format!(
            "From now on the HTML part of your board mails shows the board as a picture above the text board, {}, for every game. \"{} set {} <password> nopicture\" leaves it out.",
            user.userid,
            game.name(),
            user.userid
        )
    } else {
        format!(
            "From now on your board mails show the board as text only, without a picture, {}, for every game. \"{} set {} <password> picture\" shows it again.",
            user.userid,
            game.name(),
            user.userid
        )
    };
    if on && store::plain_mail(ctx.conn, &user.userid)? {
        text.push_str(&format!(
            " Your mails are text only now, so they carry no picture until you send \"{} set {} <password> html\".",
            game.name(),
            user.userid
        ));
    }
    settings_answer(ctx, game, user, &text)
}

/// `<game> set <userid> <pw> plain|html`: board mails as
/// text only, or with an HTML part too (the default). Ruling: the choice
/// is the player's for every game (it is about their mail program), which
/// the answer says.
fn set_mail_form(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    user: &store::User,
    html: bool,
) -> Handled<Vec<Reply>> {
    store::set_plain_mail(ctx.conn, &user.userid, !html)?;
    let text = if html {
        format!(
            "From now on your board mails carry the board twice, {}: as text, and as HTML that a phone shows in a fixed-width font. This holds for every game; \"{} set {} <password> plain\" sends text only.",
            user.userid,
            game.name(),
            user.userid
        )
    } else {
        format!(
            "From now on your board mails are text only, {}, for every game. \"{} set {} <password> html\" adds the HTML part again, which a phone shows in a fixed-width font.",
            user.userid,
            game.name(),
            user.userid
        )
    };
    settings_answer(ctx, game, user, &text)
}

/// `<game> set <userid> <pw> moves all|last`: a turn mail shows the whole
/// score (the default; see `compose::whole_score` for its bound) or only
/// the last five moves. Ruling: like `plain`/`html`, the choice is the
/// player's for every game (postal players keep the whole score in every
/// game), which the answer says; show and end-of-game mails list every
/// move either way.
fn set_score(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    user: &store::User,
    last: bool,
) -> Handled<Vec<Reply>> {
    store::set_last_moves_only(ctx.conn, &user.userid, last)?;
    let (now, other) = if last {
        ("only the last five moves", "all")
    } else {
        ("the whole score", "last")
    };
    let text = format!(
        "From now on your turn mails show {now}, {}, in every game. \"{} set {} <password> moves {other}\" changes it back.",
        user.userid,
        game.name(),
        user.userid
    );
    settings_answer(ctx, game, user, &text)
}

/// The answer to a `set`: one notice to the player, Subject `<Game> settings`.
fn settings_answer(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    user: &store::User,
    text: &str,
) -> Handled<Vec<Reply>> {
    Ok(vec![ctx.notice(
        ctx.answer_to(user),
        format!("{} settings", game.title()),
        text,
    )?])
}
