//! Starting boards: `challenge` (and `admin challenge`), `seek`, and the
//! checks a new board passes (players, options, timers, boards per day).

use super::compose::Occasion;
use super::computer;
use super::loaded::load;
use super::play::{confirmed_author, copy_to_sender};
use super::sentences::{capitalise, commented};
use super::settings::check_challenge;
use super::{Ctx, Failure, Handled, Refusal, Reply};
use crate::store;
use chrono::Duration;
use game::command::{Credentials, Timers};
use rules::{self, Game};

/// Start a board: check the players and options, store it, and return its
/// number and the board mails to the players. The comment (if any) is
/// shown as `commenter`'s; by default the userid of the sender's address.
/// `askers` are the players who asked for the board by mail (the
/// challenger, or both seekers): only their daily allowances are checked
/// and spent (none from the admin CLI).
pub(crate) fn start_board(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    players: &[String],
    options: &[String],
    timers: &Timers,
    commenter: Option<&str>,
    askers: &[String],
) -> Handled<(u32, Vec<Reply>)> {
    let players = two_players(game, players)?;
    let options: Vec<String> = options.iter().map(|o| o.to_lowercase()).collect();
    let (options, level) = computer::take_level(ctx, &players, &options)?;
    check_players(ctx, &players)?;
    check_timers(timers)?;
    check_challenge(ctx, game, &players)?;
    for asker in askers {
        check_boards_per_day(ctx, asker, opponent_of(&players, asker))?;
    }
    let number = insert_board(ctx, game, &players, &options, level, timers)?;
    // Counted so that no rollback undoes it (see `guard`).
    for asker in askers {
        board_started(ctx, asker, opponent_of(&players, asker))?;
    }
    // The challenger is named by userid, never by address. No password is
    // needed to challenge, so the comment is relayed only when the
    // sender's address is a confirmed one of a player of the board: a
    // stranger's challenge (or one "from" a forged player's address not
    // yet confirmed) relays nothing.
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

/// The two players of a board (lower-cased), or the refusal saying a
/// board has two.
fn two_players(game: &'static dyn Game, players: &[String]) -> Handled<[String; 2]> {
    let players: Vec<String> = players.iter().map(|p| p.to_ascii_lowercase()).collect();
    <[String; 2]>::try_from(players).map_err(|_| {
        Refusal::new(format!(
            "{} is played by two players; name them both, the first plays White: {} challenge alice bob.",
            game.title(),
            game.name()
        ))
        .into()
    })
}

/// The player of `players` who is not `userid`.
fn opponent_of<'p>(players: &'p [String; 2], userid: &str) -> &'p str {
    if players[0] == userid {
        &players[1]
    } else {
        &players[0]
    }
}

/// Start a board of a tournament: the players joined it, so
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
    level: Option<::computer::Level>,
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

/// Ruling: a board's own timers stay within sane ranges, so
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

/// New boards one player may ask for by mail against one opponent in 24
/// hours (see [`check_boards_per_day`]).
pub(crate) const BOARDS_PER_OPPONENT_PER_DAY: u32 = 3;

/// Active boards two players may have together before a challenge of one
/// of them by the other is refused (see [`check_boards_per_day`]).
pub(crate) const BOARDS_BETWEEN_TWO: usize = 10;

/// Ruling: by mail, a board spends the allowance of the
/// player who asked for it only: the challenger's, or both seekers' (each
/// asked). A challenged player's allowance is never spent by another's
/// challenge, so a flood of challenges cannot keep them from starting
/// their own boards. An asker starts at most `[limits]
/// boards_per_player_per_day` boards in 24 hours, at most
/// [`BOARDS_PER_OPPONENT_PER_DAY`] of them against one opponent, and none
/// while the two play [`BOARDS_BETWEEN_TWO`] active boards together; so
/// one player makes the server send one opponent at most 3 new boards a
/// day, and reminders of at most 10 boards (one a day each at the
/// shortest `--nagtime`). The opponent may refuse challenges altogether
/// (`set ... reject`, `limit`). The admin CLI is not counted, nor is the
/// computer player.
fn check_boards_per_day(ctx: &Ctx<'_>, asker: &str, opponent: &str) -> Handled<()> {
    let computer = &ctx.server.config.computer.userid;
    if ctx.sender.is_none() || asker.eq_ignore_ascii_case(computer) {
        return Ok(());
    }
    check_day_allowance(ctx, asker)?;
    if opponent.eq_ignore_ascii_case(computer) {
        return Ok(());
    }
    let since = ctx.now - Duration::days(1);
    let against = store::boards_started_since(ctx.conn, asker, Some(opponent), since)?;
    if against >= BOARDS_PER_OPPONENT_PER_DAY {
        return Err(Refusal::new(format!(
            "{asker} has started {against} boards against {opponent} in the last 24 hours, the most this server starts against one opponent in a day; challenge them again tomorrow."
        ))
        .into());
    }
    let together = store::boards_of_user(ctx.conn, None, asker)?
        .iter()
        .filter(|b| b.is_active() && b.players.iter().any(|p| p == opponent))
        .count();
    if together >= BOARDS_BETWEEN_TWO {
        return Err(Refusal::new(format!(
            "{asker} and {opponent} play {together} boards together already, the most this server starts for two players; challenge again when one has ended."
        ))
        .into());
    }
    Ok(())
}

/// The part of [`check_boards_per_day`] that is `asker`'s alone: their
/// `[limits] boards_per_player_per_day`.
fn check_day_allowance(ctx: &Ctx<'_>, asker: &str) -> Handled<()> {
    let computer = &ctx.server.config.computer.userid;
    if ctx.sender.is_none() || asker.eq_ignore_ascii_case(computer) {
        return Ok(());
    }
    let cap = ctx.server.config.limits.boards_per_player_per_day;
    let since = ctx.now - Duration::days(1);
    let started = store::boards_started_since(ctx.conn, asker, None, since)?;
    if started >= cap {
        return Err(Refusal::new(format!(
            "{asker} has been put on {started} new boards in the last 24 hours by their own challenges and seeks, the most this server starts for one player in a day; challenge again tomorrow."
        ))
        .into());
    }
    Ok(())
}

/// A board was asked for by mail: `asker` is charged a board start
/// against `opponent`, rollback-proof (the board itself is rolled back
/// with a mail whose answers are too large; the start stays counted).
fn board_started(ctx: &Ctx<'_>, asker: &str, opponent: &str) -> Handled<()> {
    let computer = &ctx.server.config.computer.userid;
    if ctx.sender.is_none() || asker.eq_ignore_ascii_case(computer) {
        return Ok(());
    }
    let (asker, opponent, now) = (asker.to_string(), opponent.to_string(), ctx.now);
    ctx.charge_lasting(move |conn| Ok(store::record_board_start(conn, &asker, &opponent, now)?))?;
    Ok(())
}

/// Ruling: a challenge by mail comes from one of its two
/// players: its sender's address is a confirmed address of one of them
/// (and, with `[security] authserv_id` set, its From is authenticated:
/// see `needs_authenticated_from`). Nobody starts boards (and their
/// reminders) for two others; the admin CLI may. Returns the challenger.
fn challenger(ctx: &Ctx<'_>, game: &'static dyn Game, players: &[String]) -> Handled<String> {
    let players = two_players(game, players)?;
    if let Some(userid) = confirmed_player_sending(ctx, &players)? {
        return Ok(userid);
    }
    let sender = ctx.sender.unwrap_or_default();
    let on_file = store::userids_with_address(ctx.conn, sender)?
        .into_iter()
        .any(|u| players.contains(&u));
    let text = if on_file {
        format!(
            "A challenge comes from a confirmed address of one of its two players, and {sender} is not confirmed yet: confirm it first with the code of its welcome mail (confirm address <userid> <code>)."
        )
    } else {
        format!(
            "A challenge comes from one of its two players, and {sender} is no address of {} or {}: send it from your own address, naming yourself: {} challenge <you> <opponent>.",
            players[0],
            players[1],
            game.name()
        )
    };
    Err(Refusal::new(text).into())
}

/// `<game> challenge <user1> <user2> [-opts] [--timers]`
pub(crate) fn challenge(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    players: &[String],
    options: &[String],
    timers: &Timers,
) -> Handled<Vec<Reply>> {
    let challenger = challenger(ctx, game, players)?;
    let (_, mut replies) = start_board(
        ctx,
        game,
        players,
        options,
        timers,
        Some(&challenger),
        std::slice::from_ref(&challenger),
    )?;
    copy_to_sender(ctx, &mut replies);
    Ok(replies)
}

/// Waiting seekers one seek tries to pair with before it waits itself
/// (see [`seek`]): the cost of one seek stays bounded.
const SEEKERS_TRIED: usize = 20;

/// `<game> seek <userid> <pw> [note]`: join the waiting list of the game;
/// when someone else is already waiting, the longest-waiting seeker and
/// this one start a board at once. Ruling: the one who waited plays White
/// (they asked first), and their note is the new board's comment. Seeking
/// again replaces one's note and keeps one's place.
///
/// Ruling: a waiting seeker whose board with this one cannot
/// start now (their day's boards spent, their settings refusing
/// challenges, the two playing too many boards together) is passed over
/// and keeps their place; the next is tried (at most [`SEEKERS_TRIED`]),
/// and when none can play, this one waits. So no seeker at the head of
/// the list keeps everyone after them from being paired. A seeker whose
/// own day's boards are spent is refused, not put on the list.
pub(crate) fn seek(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    who: &Credentials,
    note: &str,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    check_day_allowance(ctx, &user.userid)?;
    let mut passed_over = Vec::new();
    let mut paired = None;
    while passed_over.len() < SEEKERS_TRIED {
        let Some(waiting) = store::take_seek(ctx.conn, game.name(), &user.userid)? else {
            break;
        };
        match ctx.session.savepoint(ctx.conn, "seek", || {
            seek_board(ctx, game, &waiting, &user.userid)
        }) {
            Ok(replies) => {
                paired = Some(replies);
                break;
            }
            Err(Failure::Refused(_)) => passed_over.push(waiting),
            Err(e) => return Err(e),
        }
    }
    for waiting in &passed_over {
        store::add_seek(
            ctx.conn,
            game.name(),
            &waiting.userid,
            &waiting.note,
            waiting.created_at,
        )?;
    }
    if let Some(replies) = paired {
        return Ok(replies);
    }
    store::add_seek(ctx.conn, game.name(), &user.userid, note, ctx.now)?;
    let text = format!(
        "{} is on the waiting list for {}: the next player who seeks a game of {} plays you, and you play White. Send the seek again to change your note.",
        user.userid,
        game.title(),
        game.name()
    );
    Ok(vec![ctx.notice(
        ctx.answer_to(&user),
        format!("{} seek", game.title()),
        text,
    )?])
}

/// The board of a seek: `waiting` (White, their note its comment) against
/// `userid`, both spending their allowance.
fn seek_board(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    waiting: &store::Seek,
    userid: &str,
) -> Handled<Vec<Reply>> {
    let paired = Ctx {
        conn: ctx.conn,
        server: ctx.server,
        now: ctx.now,
        sender: ctx.sender,
        comment: &waiting.note,
        line: ctx.line,
        vouched: ctx.vouched,
        session: ctx.session,
        computer_budget: ctx.computer_budget,
        previews: ctx.previews,
    };
    let players = [waiting.userid.clone(), userid.to_string()];
    let (_, replies) = start_board(
        &paired,
        game,
        &players,
        &[],
        &Timers::default(),
        Some(&waiting.userid),
        &players,
    )?;
    Ok(replies)
}
