//! Starting boards: `challenge` (and `admin challenge`), `seek`, and the
//! checks a new board passes (players, options, timers, boards per day).

use super::compose::Occasion;
use super::computer;
use super::loaded::load;
use super::play::{confirmed_author, copy_to_sender};
use super::settings::check_challenge;
use super::text::{capitalise, commented};
use super::{Ctx, Handled, Refusal, Reply};
use crate::command::{Credentials, Timers};
use crate::rules::{self, Game};
use crate::store;
use chrono::Duration;

/// Start a board: check the players and options, store it, and return its
/// number and the board mails to the players. The comment (if any) is
/// shown as `commenter`'s; by default the userid of the sender's address.
pub(crate) fn start_board(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    players: &[String],
    options: &[String],
    timers: &Timers,
    commenter: Option<&str>,
) -> Handled<(u32, Vec<Reply>)> {
    let players: Vec<String> = players.iter().map(|p| p.to_ascii_lowercase()).collect();
    let Ok(players) = <[String; 2]>::try_from(players) else {
        return Err(Refusal::new(format!(
            "{} is played by two players; name them both, the first plays White: {} challenge alice bob.",
            game.title(),
            game.name()
        ))
        .into());
    };
    let options: Vec<String> = options.iter().map(|o| o.to_lowercase()).collect();
    let (options, level) = computer::take_level(ctx, &players, &options)?;
    check_players(ctx, &players)?;
    check_timers(timers)?;
    check_challenge(ctx, game, &players)?;
    check_boards_per_day(ctx, &players)?;
    let number = insert_board(ctx, game, &players, &options, level, timers)?;
    // Counted so that no rollback undoes it (see `guard`).
    super::guard::board_started(ctx, &players)?;
    // The challenger is named by userid, never by address. No password is
    // needed to challenge, so the comment is relayed only when the
    // sender's address is a confirmed one of a player of the board: a
    // stranger's challenge (or one "from" a forged player's address not
    // yet confirmed) relays nothing (issue #31).
    let challenger = match commenter {
        Some(userid) => confirmed_author(ctx, userid)?.then(|| userid.to_string()),
        None => confirmed_player_sending(ctx, &players)?,
    };
    let comment = match challenger {
        Some(userid) => commented(ctx, Some(&userid), None),
        None => None,
    };
    Ok((number, new_board_mails(ctx, game, number, comment)?))
}

/// Start a board of a tournament (issue #27): the players joined it, so
/// neither's challenge settings nor the boards-per-day bound apply, and
/// the board counts for neither. A `-level` option is kept only for a
/// board the computer plays. `link` ties the new board's number to its
/// tournament before its mails are composed (they name the tournament).
/// Returns its board mails.
pub(crate) fn start_tournament_board(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    players: &[String; 2],
    options: &[String],
    timers: &Timers,
    link: impl FnOnce(u32) -> Handled<()>,
) -> Handled<Vec<Reply>> {
    let computer = &ctx.server.config.computer.userid;
    let with_computer = players.iter().any(|p| p.eq_ignore_ascii_case(computer));
    let options: Vec<String> = options
        .iter()
        .filter(|o| with_computer || !o.starts_with("level"))
        .cloned()
        .collect();
    let (options, level) = computer::take_level(ctx, players, &options)?;
    check_players(ctx, players)?;
    check_timers(timers)?;
    let number = insert_board(ctx, game, players, &options, level, timers)?;
    link(number)?;
    new_board_mails(ctx, game, number, None)
}

/// Store a new board of `game` at its start position under `options`
/// (checked here), with its timers (the server's defaults where `timers`
/// names none) and the computer's level; its number.
fn insert_board(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    players: &[String; 2],
    options: &[String],
    level: Option<crate::computer::Level>,
    timers: &Timers,
) -> Handled<u32> {
    rules::check_options(game, options).map_err(|e| Refusal::new(capitalise(&e.to_string())))?;
    let position = game
        .start(options)
        .map_err(|e| Refusal::new(capitalise(&e.to_string())))?;
    let defaults = &ctx.server.config.timers;
    let number = store::insert_board(
        ctx.conn,
        &store::NewBoard {
            game: game.name(),
            options,
            start_position: &position.to_text(),
            players,
            nag_days: Some(timers.nag_days.unwrap_or(defaults.nag_days)),
            forfeit_days: Some(timers.forfeit_days.unwrap_or(defaults.forfeit_days)),
            total_days: timers.total_days,
            now: ctx.now,
        },
    )?;
    if let Some(level) = level {
        let id = store::BoardId::new(game.name(), number);
        store::set_computer_level(ctx.conn, id, level.number())?;
    }
    Ok(number)
}

/// The first mails of a new board, to its players: the computer's first
/// move made if it plays White, `comment` (author, text) shown with it.
fn new_board_mails(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    comment: Option<(String, String)>,
) -> Handled<Vec<Reply>> {
    let mut news = Vec::new();
    let mut loaded = load(ctx, game, number)?;
    computer::respond(ctx, game, &mut loaded, &mut news)?;
    let mut view = loaded.view(game, news);
    view.occasion = Occasion::New;
    view.comment = comment;
    view.to_players(ctx)
}

/// Check a tournament's game options and board timers when it is opened,
/// as its boards will be checked (`-level` aside, which needs the
/// computer among a board's players).
pub(crate) fn check_tournament_options(
    game: &'static dyn Game,
    options: &[String],
    timers: &Timers,
) -> Handled<()> {
    check_timers(timers)?;
    let options: Vec<String> = options
        .iter()
        .filter(|o| !o.starts_with("level"))
        .cloned()
        .collect();
    rules::check_options(game, &options).map_err(|e| Refusal::new(capitalise(&e.to_string())))?;
    Ok(())
}

/// The two players of a new board: two different users, signed up and
/// not signed off.
fn check_players(ctx: &Ctx<'_>, players: &[String]) -> Handled<()> {
    if players[0] == players[1] {
        return Err(Refusal::new(format!(
            "{} cannot play against themselves; name two different players.",
            players[0]
        ))
        .into());
    }
    for userid in players {
        match store::user(ctx.conn, userid)? {
            None => {
                return Err(Refusal::new(format!(
                    "There is no user called {userid}; every player must sign up first (signup <userid> <password>)."
                ))
                .into())
            }
            Some(u) if u.signed_off_at.is_some() => {
                return Err(Refusal::new(format!(
                    "{userid} has signed off and cannot be challenged."
                ))
                .into())
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The longest reminder interval (`--nagtime`) a board may have, in days.
pub(crate) const MAX_NAG_DAYS: u32 = 30;

/// The longest time without action before a forfeit (`--forfeittime`).
pub(crate) const MAX_FORFEIT_DAYS: u32 = 60;

/// The longest total time per player (`--totaltime`).
pub(crate) const MAX_TOTAL_DAYS: u32 = 365;

/// Ruling (issue #31): a board's own timers stay within sane ranges, so
/// that a board a stranger starts cannot nag (or stand) for years:
/// `--nagtime` 1 to [`MAX_NAG_DAYS`], `--forfeittime` 1 to
/// [`MAX_FORFEIT_DAYS`], `--totaltime` 1 to [`MAX_TOTAL_DAYS`] days (the
/// parser already refuses 0). By mail and from the admin CLI alike; the
/// server's `[timers]` defaults are the admin's and are not capped.
fn check_timers(timers: &Timers) -> Handled<()> {
    for (name, value, max) in [
        ("nagtime", timers.nag_days, MAX_NAG_DAYS),
        ("forfeittime", timers.forfeit_days, MAX_FORFEIT_DAYS),
        ("totaltime", timers.total_days, MAX_TOTAL_DAYS),
    ] {
        if let Some(days) = value.filter(|d| *d == 0 || *d > max) {
            return Err(Refusal::new(format!(
                "--{name}={days} is out of range: give 1 to {max} days."
            ))
            .into());
        }
    }
    Ok(())
}

/// The player of `players` whose confirmed addresses include the sender's,
/// if any: the author of a challenge's comment.
fn confirmed_player_sending(ctx: &Ctx<'_>, players: &[String]) -> Handled<Option<String>> {
    let Some(sender) = ctx.sender else {
        return Ok(None);
    };
    for userid in players {
        if let Some(user) = store::user(ctx.conn, userid)? {
            if user
                .confirmed_addresses()
                .any(|a| a.eq_ignore_ascii_case(sender))
            {
                return Ok(Some(user.userid));
            }
        }
    }
    Ok(None)
}

/// Ruling (issue #15): by mail (challenges and seeks), a player is put on
/// at most `[limits] boards_per_player_per_day` boards in 24 hours, so a
/// flood of challenges cannot bury anyone. The admin CLI is not counted,
/// nor is the computer player.
fn check_boards_per_day(ctx: &Ctx<'_>, players: &[String]) -> Handled<()> {
    if ctx.sender.is_none() {
        return Ok(());
    }
    let cap = ctx.server.config.limits.boards_per_player_per_day;
    let computer = &ctx.server.config.computer.userid;
    for userid in players.iter().filter(|p| !p.eq_ignore_ascii_case(computer)) {
        let started = store::boards_started_since(ctx.conn, userid, ctx.now - Duration::days(1))?;
        if started >= cap {
            return Err(Refusal::new(format!(
                "{userid} has been put on {started} new boards in the last 24 hours, the most this server starts for one player in a day; challenge them again tomorrow."
            ))
            .into());
        }
    }
    Ok(())
}

/// `<game> challenge <user1> <user2> [-opts] [--timers]`
pub(crate) fn challenge(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    players: &[String],
    options: &[String],
    timers: &Timers,
) -> Handled<Vec<Reply>> {
    let (_, mut replies) = start_board(ctx, game, players, options, timers, None)?;
    copy_to_sender(ctx, &mut replies);
    Ok(replies)
}

/// `<game> seek <userid> <pw> [note]`: join the waiting list of the game;
/// when someone else is already waiting, the longest-waiting seeker and
/// this one start a board at once. Ruling: the one who waited plays White
/// (they asked first), and their note is the new board's comment. Seeking
/// again replaces one's note and keeps one's place.
pub(crate) fn seek(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    who: &Credentials,
    note: &str,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let Some(waiting) = store::take_seek(ctx.conn, game.name(), &user.userid)? else {
        store::add_seek(ctx.conn, game.name(), &user.userid, note, ctx.now)?;
        let text = format!(
            "{} is on the waiting list for {}: the next player who seeks a game of {} plays you, and you play White. Send the seek again to change your note.",
            user.userid,
            game.title(),
            game.name()
        );
        return Ok(vec![ctx.notice(
            ctx.answer_to(&user),
            format!("{} seek", game.title()),
            text,
        )?]);
    };
    let paired = Ctx {
        conn: ctx.conn,
        server: ctx.server,
        now: ctx.now,
        sender: ctx.sender,
        comment: &waiting.note,
        line: ctx.line,
        vouched: ctx.vouched,
        session: ctx.session,
    };
    let players = [waiting.userid.clone(), user.userid.clone()];
    let (_, replies) = start_board(
        &paired,
        game,
        &players,
        &[],
        &Timers::default(),
        Some(&waiting.userid),
    )?;
    Ok(replies)
}
