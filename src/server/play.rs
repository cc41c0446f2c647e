//! Boards: challenge, move (with the special moves), show, games.

use super::compose::{days, time_used, Occasion};
use super::computer;
use super::loaded::{
    all_plies, apply_move, finish, finish_unrated, load, passes, replay, replay_all, seat_to_act,
};
use super::queued;
use super::settings::check_challenge;
use super::text::{capitalise, commented, move_refusal};
use super::{Ctx, Failure, Handled, Refusal, Reply};
use crate::command::{BoardFilter, BoardRef, Credentials, MoveAction, Timers};
use crate::render::Drawing;
use crate::rules::{self, Game};
use crate::store::{self, BoardEnding, BoardStatus, ForfeitLimit, Proposal};
use chrono::Duration;

/// The board drawn for the sender of an erroneous command, if it exists.
pub(crate) fn drawing_for_sender(
    ctx: &Ctx<'_>,
    game: &str,
    number: u32,
) -> Handled<Option<String>> {
    let Some(game) = rules::game(game) else {
        return Ok(None);
    };
    if !store::board_exists(ctx.conn, store::BoardId::new(game.name(), number))? {
        return Ok(None);
    }
    let loaded = load(ctx, game, number)?;
    let drawing = ctx.sender_drawing(game.name())?;
    Ok(Some(crate::render::board(
        &loaded.position.diagram(),
        drawing,
    )))
}

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
    let players: Vec<String> = players.iter().map(|p| p.to_lowercase()).collect();
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
    if players[0] == players[1] {
        return Err(Refusal::new(format!(
            "{} cannot play against themselves; name two different players.",
            players[0]
        ))
        .into());
    }
    for userid in &players {
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
    check_timers(timers)?;
    check_challenge(ctx, game, &players)?;
    check_boards_per_day(ctx, &players)?;
    rules::check_options(game, &options).map_err(|e| Refusal::new(capitalise(&e.to_string())))?;
    let position = game
        .start(&options)
        .map_err(|e| Refusal::new(capitalise(&e.to_string())))?;
    let defaults = &ctx.server.config.timers;
    let number = store::insert_board(
        ctx.conn,
        &store::NewBoard {
            game: game.name(),
            options: &options,
            start_position: &position.to_text(),
            players: &players,
            nag_days: Some(timers.nag_days.unwrap_or(defaults.nag_days)),
            forfeit_days: Some(timers.forfeit_days.unwrap_or(defaults.forfeit_days)),
            total_days: timers.total_days,
            now: ctx.now,
        },
    )?;
    // Counted so that no rollback undoes it (see `guard`).
    super::guard::board_started(ctx, &players)?;
    let mut news = Vec::new();
    if let Some(level) = level {
        store::set_computer_level(
            ctx.conn,
            store::BoardId::new(game.name(), number),
            level.number(),
        )?;
    }
    let mut loaded = load(ctx, game, number)?;
    computer::respond(ctx, game, &mut loaded, &mut news)?;
    let mut view = loaded.view(game, news);
    view.occasion = Occasion::New;
    // The challenger is named by userid, never by address. No password is
    // needed to challenge, so the comment is relayed only when the
    // sender's address is a confirmed one of a player of the board: a
    // stranger's challenge (or one "from" a forged player's address not
    // yet confirmed) relays nothing (issue #31).
    let challenger = match commenter {
        Some(userid) => confirmed_author(ctx, userid)?.then(|| userid.to_string()),
        None => confirmed_player_sending(ctx, &players)?,
    };
    view.comment = match challenger {
        Some(userid) => commented(ctx, Some(&userid), None),
        None => None,
    };
    let replies = view.to_players(ctx)?;
    Ok((number, replies))
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

/// Whether `userid` may have text relayed to other players: an account
/// with at least one confirmed address (issue #31). With `[accounts]
/// confirm_addresses = false` every address is confirmed.
pub(crate) fn confirmed_author(ctx: &Ctx<'_>, userid: &str) -> Handled<bool> {
    Ok(store::user(ctx.conn, userid)?
        .is_some_and(|u| u.signed_off_at.is_none() && u.confirmed_addresses().next().is_some()))
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

/// The current board mail of each active board of `user`, to `address`
/// alone (an address just confirmed: see `confirm`), each answerable by
/// reply like any board mail to the player.
pub(crate) fn boards_for_address(
    ctx: &Ctx<'_>,
    user: &store::User,
    address: &str,
) -> Handled<Vec<Reply>> {
    let mut replies = Vec::new();
    if user.signed_off_at.is_some() {
        return Ok(replies);
    }
    for row in store::boards_of_user(ctx.conn, None, &user.userid)? {
        let Some(game) = rules::game(&row.game).filter(|_| row.is_active()) else {
            continue;
        };
        let loaded = load(ctx, game, row.board)?;
        let view = loaded.view(game, vec![]);
        let drawing = ctx.drawing_of(&user.userid, game.name())?;
        replies.push(Reply {
            to: address.to_string(),
            subject: view.subject(),
            body: view.body(ctx, drawing)?,
            reply_key: view.reply_key(ctx, &user.userid)?,
        });
    }
    Ok(replies)
}

/// The copy of a board mail to a sender whose address is not confirmed
/// (a player moving from another address, or anyone who knows the
/// password): the board as it stands, without any text a player wrote
/// (issue #31: nothing a player wrote goes to an address not confirmed).
fn bare_copy_to_unconfirmed_sender(
    ctx: &Ctx<'_>,
    view: &super::compose::BoardView<'_>,
    replies: &mut [Reply],
) -> Handled<()> {
    let Some(sender) = ctx.sender else {
        return Ok(());
    };
    if store::is_confirmed_address(ctx.conn, sender)? {
        return Ok(());
    }
    let bare = view.without_comment();
    let drawing = ctx.sender_drawing(view.game.name())?;
    for reply in replies.iter_mut().filter(|r| r.to == sender) {
        reply.subject = bare.subject();
        reply.body = bare.body(ctx, drawing)?;
    }
    Ok(())
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

/// A sender who is not among the recipients gets a copy of the first mail.
pub(crate) fn copy_to_sender(ctx: &Ctx<'_>, replies: &mut Vec<Reply>) {
    if let Some(sender) = ctx.sender {
        if !replies.iter().any(|r| r.to == sender) {
            if let Some(first) = replies.first() {
                let mut copy = first.clone();
                copy.to = sender.to_string();
                // A copy for the sender never carries the player's reply
                // token (issue #31: it would let the sender play as them).
                copy.reply_key = None;
                replies.push(copy);
            }
        }
    }
}

/// `<game> move <board> <userid> <pw> <action>[#N]` and `<game> resign`.
pub(crate) fn act(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
    action: &MoveAction,
    guard: Option<u32>,
) -> Handled<Vec<Reply>> {
    let on_board = |r: Refusal| Failure::Refused(r.on(game.name(), Some(number)));
    let mut loaded = load(ctx, game, number).map_err(|f| match f {
        Failure::Refused(r) => on_board(r),
        other => other,
    })?;
    let user = ctx.authenticate(who).map_err(|f| match f {
        Failure::Refused(r) => on_board(r),
        other => other,
    })?;
    let Some(seat) = loaded.row.seat_of(&user.userid) else {
        return Err(on_board(Refusal::new(format!(
            "{} does not play on {} board {number}; check the board number.",
            user.userid,
            game.name()
        ))));
    };
    if let BoardStatus::Finished { .. } = loaded.row.status {
        return Err(on_board(Refusal::new(format!(
            "{} board {number} is over; nothing more can be played on it.",
            game.title()
        ))));
    }
    let next_ply = loaded.played + 1;
    if let Some(n) = guard {
        if n != next_ply {
            return Err(on_board(Refusal::new(format!(
                "Your command is guarded as ply {n}, but the next ply on {} board {number} is {next_ply}; look at the board and send it again with #{next_ply} if it still fits.",
                game.name()
            ))));
        }
    }
    let userid = user.userid.clone();
    // A comment is relayed only from an account with a confirmed address.
    let relayable = confirmed_author(ctx, &userid)?;
    let mut news = Vec::new();
    let mut notices = Vec::new();
    let mut occasion = Occasion::Turn;
    match action {
        MoveAction::Play(text) => {
            let to_act = loaded.position.to_act().index();
            if to_act != seat {
                return Err(on_board(Refusal::new(format!(
                    "It is {}'s turn on {} board {number}, not yours; wait for their move.",
                    loaded.row.players[to_act],
                    game.name()
                ))));
            }
            let comment = commented(ctx, None, Some(&who.password))
                .filter(|_| relayable)
                .map(|(_, c)| c)
                .unwrap_or_default();
            news = apply_move(ctx, game, &mut loaded, seat, text, comment, false)?
                .map_err(|e| on_board(Refusal::new(move_refusal(&e))))?;
            notices = queued::play_queued(ctx, game, &mut loaded, &mut news)?;
            notices.extend(computer::respond(ctx, game, &mut loaded, &mut news)?);
        }
        MoveAction::Resign => {
            let seats =
                store::seats_that_played(ctx.conn, store::BoardId::new(game.name(), number))?;
            if !(0..loaded.row.players.len()).all(|s| seats.contains(&s)) {
                // Resigned before both players had acted: withdrawn,
                // unrated and deleted (docs/commands.md §4); nobody won it.
                store::delete_board(ctx.conn, store::BoardId::new(game.name(), number))?;
                loaded.row.status = BoardStatus::Finished {
                    winner_seat: None,
                    ending: BoardEnding::Withdrawn,
                };
                loaded.row.finished_at = Some(ctx.now);
                occasion = Occasion::Withdrawn { seat };
            } else {
                news = finish(
                    ctx,
                    &mut loaded,
                    rules::Color::from_index(seat).map(rules::Color::opponent),
                    BoardEnding::Resignation,
                )?;
            }
        }
        MoveAction::Propose | MoveAction::Undo => {
            let kind = if matches!(action, MoveAction::Propose) {
                Proposal::Draw
            } else {
                Proposal::Undo
            };
            if let Some((pending, by)) = loaded.row.proposal {
                let what = describe(pending);
                return Err(on_board(Refusal::new(format!(
                    "{} already proposed {what} on this board; answer it with accept or reject first.",
                    loaded.row.players[by]
                ))));
            }
            if kind == Proposal::Undo && loaded.played == 0 {
                return Err(on_board(Refusal::new(
                    "No ply has been played yet, so there is nothing to take back.",
                )));
            }
            store::set_proposal(
                ctx.conn,
                store::BoardId::new(game.name(), number),
                Some((kind, seat)),
            )?;
            loaded.row.proposal = Some((kind, seat));
            store::touch(ctx.conn, store::BoardId::new(game.name(), number), ctx.now)?;
            loaded.row.last_action_at = ctx.now;
            computer::answer_proposal(ctx, &mut loaded, &mut news)?;
        }
        MoveAction::Accept | MoveAction::Reject => {
            let Some((kind, by)) = loaded.row.proposal else {
                return Err(on_board(Refusal::new(
                    "There is no draw or undo proposal on this board to accept or reject.",
                )));
            };
            if by == seat {
                return Err(on_board(Refusal::new(format!(
                    "You made the proposal yourself; the other player must accept or reject {}.",
                    describe(kind)
                ))));
            }
            store::set_proposal(ctx.conn, store::BoardId::new(game.name(), number), None)?;
            loaded.row.proposal = None;
            let accepted = matches!(action, MoveAction::Accept);
            let verb = if accepted { "accepts" } else { "rejects" };
            news.push(format!(
                "{userid} {verb} {}'s proposal of {}.",
                loaded.row.players[by],
                describe(kind)
            ));
            match (accepted, kind) {
                (false, _) => {
                    store::touch(ctx.conn, store::BoardId::new(game.name(), number), ctx.now)?;
                    loaded.row.last_action_at = ctx.now;
                }
                (true, Proposal::Draw) => {
                    let mut changes = finish(ctx, &mut loaded, None, BoardEnding::Agreement)?;
                    news.append(&mut changes);
                }
                (true, Proposal::Undo) => {
                    store::clear_pending_moves(ctx.conn, store::BoardId::new(game.name(), number))?;
                    store::remove_last_ply(ctx.conn, store::BoardId::new(game.name(), number))?;
                    let taken = loaded.plies.pop();
                    replay_all(ctx, &mut loaded)?;
                    store::update_position(
                        ctx.conn,
                        store::BoardId::new(game.name(), number),
                        &loaded.position.to_text(),
                        ctx.now,
                    )?;
                    loaded.row.last_action_at = ctx.now;
                    if let Some(taken) = taken {
                        news.push(format!(
                            "Ply {} ({}) is taken back.",
                            taken.ply, taken.notation
                        ));
                    }
                }
            }
        }
        MoveAction::Pass => {
            return Err(on_board(Refusal::new(format!(
                "{} has no passing move; play a move, or resign.",
                game.title()
            ))))
        }
    }
    let mut view = loaded.view(game, news);
    view.occasion = occasion;
    view.comment = commented(ctx, Some(&userid), Some(&who.password)).filter(|_| relayable);
    let mut replies = view.to_players(ctx)?;
    queued::tell_players(ctx, &view, &mut replies, &notices)?;
    copy_to_sender(ctx, &mut replies);
    bare_copy_to_unconfirmed_sender(ctx, &view, &mut replies)?;
    Ok(replies)
}

fn describe(kind: Proposal) -> &'static str {
    match kind {
        Proposal::Draw => "a draw",
        Proposal::Undo => "taking back the last ply",
    }
}

/// The body `show` sends for one board (optionally at ply `at`).
pub(crate) fn show_body(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    at: Option<u32>,
    drawing: Drawing,
) -> Handled<String> {
    Ok(show_mail(ctx, game, number, at, drawing)?.1)
}

/// The subject and the body `show` sends for one board: as it is now, or
/// (with `at`) a historic view of the position after ply `at`, which says
/// so in its subject and body.
pub(crate) fn show_mail(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    at: Option<u32>,
    drawing: Drawing,
) -> Handled<(String, String)> {
    let mut loaded = load(ctx, game, number)?;
    let of = loaded.played as usize;
    if let Some(n) = at {
        if n as usize > of {
            return Err(Refusal::new(format!(
                "{} board {number} has {of} plies so far; ask for #0 to #{of} instead of #{n}.",
                game.title(),
            ))
            .on(game.name(), Some(number))
            .into());
        }
        // A view of the past: the whole game from the start.
        loaded.plies = all_plies(ctx, &loaded)?;
        loaded.plies.truncate(n as usize);
        loaded.played = n;
        loaded.position = replay(game, &loaded.row, &loaded.plies)?;
    }
    let mut view = loaded.view(game, vec![]);
    view.recent_only = false;
    if let Some(ply) = at {
        view.occasion = Occasion::Historic { ply, of };
    }
    Ok((view.subject(), view.body(ctx, drawing)?))
}

/// `<game> show <board>[#N]...`: board mails to the sender.
pub(crate) fn show(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    boards: &[BoardRef],
) -> Handled<Vec<Reply>> {
    let drawing = ctx.sender_drawing(game.name())?;
    let mut replies = Vec::new();
    for r in boards {
        let (subject, body) = show_mail(ctx, game, r.board, r.ply, drawing)?;
        let reply_key = match r.ply {
            None => sender_reply_key(ctx, game, r.board)?,
            Some(_) => None,
        };
        replies.push(Reply {
            to: ctx.sender.unwrap_or_default().to_string(),
            subject,
            body,
            reply_key,
        });
    }
    Ok(replies)
}

/// The board as it stands shown to one of its players may be answered by
/// reply, like their board mails.
fn sender_reply_key(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
) -> Handled<Option<super::ReplyKey>> {
    let Some(sender) = ctx.sender else {
        return Ok(None);
    };
    let userids = store::userids_with_address(ctx.conn, sender)?;
    let loaded = load(ctx, game, number)?;
    let Some(userid) = loaded.row.players.iter().find(|p| userids.contains(p)) else {
        return Ok(None);
    };
    loaded.view(game, vec![]).reply_key(ctx, userid)
}

fn filtered(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    users: &[String],
    filter: BoardFilter,
) -> Handled<Vec<store::BoardRow>> {
    let mut boards = if users.is_empty() {
        store::boards_of_game(ctx.conn, game.name())?
    } else {
        let mut all = Vec::new();
        for u in users {
            for b in store::boards_of_user(ctx.conn, Some(game.name()), &u.to_lowercase())? {
                if !all.iter().any(|x: &store::BoardRow| x.board == b.board) {
                    all.push(b);
                }
            }
        }
        all.sort_by_key(|b| b.board);
        all
    };
    let mut keep = Vec::new();
    for b in boards.drain(..) {
        if passes(game, &b, filter, users)? {
            keep.push(b);
        }
    }
    Ok(keep)
}

/// `<game> show <userid>... [filter]`: board mails of those users' boards.
pub(crate) fn show_users(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    users: &[String],
    filter: BoardFilter,
) -> Handled<Vec<Reply>> {
    let boards = filtered(ctx, game, users, filter)?;
    if boards.is_empty() {
        return Err(Refusal::new(format!(
            "No {} boards of {} match; try \"{} games all\".",
            game.name(),
            users.join(", "),
            game.name()
        ))
        .into());
    }
    let refs: Vec<BoardRef> = boards
        .iter()
        .map(|b| BoardRef {
            board: b.board,
            ply: None,
        })
        .collect();
    show(ctx, game, &refs)
}

/// `<game> games [<userid>...] [filter]`: a table to the sender.
pub(crate) fn games(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    users: &[String],
    filter: BoardFilter,
) -> Handled<Vec<Reply>> {
    let boards = filtered(ctx, game, users, filter)?;
    let mut lines = Vec::new();
    for b in &boards {
        let state = match &b.status {
            BoardStatus::Active => format!(
                "{} to act, ply {}",
                b.players[seat_to_act(game, b)?],
                store::ply_count(ctx.conn, store::BoardId::new(game.name(), b.board))? + 1
            ),
            BoardStatus::Finished {
                winner_seat: Some(s),
                ending,
            } => format!("won by {} ({ending})", b.players[s.index()]),
            BoardStatus::Finished {
                winner_seat: None,
                ending,
            } => format!("tie ({ending})"),
        };
        lines.push(format!(
            "{:<6} {:<30} {state}",
            b.board,
            b.players.join(" - ")
        ));
    }
    let which = match filter {
        BoardFilter::All => "All",
        BoardFilter::Active => "Active",
        BoardFilter::Inactive => "Finished",
        BoardFilter::Next => "Waiting",
    };
    let title = if users.is_empty() {
        format!("{which} {} boards", game.title())
    } else {
        format!("{which} {} boards of {}", game.title(), users.join(", "))
    };
    let body = ctx.server.templates.render(
        "games.txt",
        minijinja::context! { title => title, lines => lines },
    )?;
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: format!("List of {} games", game.title()),
        body,
        reply_key: None,
    }])
}

/// Reminders and forfeits due now on every active board: one mail per
/// board and reader (`Nag: ...` for a reminder).
pub(crate) fn run_timers(ctx: &Ctx<'_>) -> Handled<Vec<Reply>> {
    use crate::timers::{decide, BoardClock, TimerAction};
    let defaults = &ctx.server.config.timers;
    let mut replies = Vec::new();
    let candidates = store::boards_for_timers(
        ctx.conn,
        ctx.now,
        defaults.nag_days,
        defaults.forfeit_days,
        &ctx.server.config.computer.userid,
    )?;
    for row in candidates {
        let Some(game) = rules::game(&row.game) else {
            continue;
        };
        let to_act = seat_to_act(game, &row)?;
        let Some(userid) = row.players.get(to_act) else {
            continue;
        };
        // The computer is never reminded nor forfeited; a board that waited
        // for it while it was switched off gets its action now.
        if userid.eq_ignore_ascii_case(&ctx.server.config.computer.userid) {
            if computer::is_computer(ctx, userid) {
                let mut loaded = load(ctx, game, row.board)?;
                let mut news = Vec::new();
                let played = loaded.played;
                computer::respond(ctx, game, &mut loaded, &mut news)?;
                // Past the computer's budget it did not act: no mail.
                if loaded.played != played {
                    replies.extend(loaded.view(game, news).to_players(ctx)?);
                }
            }
            continue;
        }
        // A player on vacation is neither reminded nor forfeited, and the
        // time away does not count against them.
        let away: Vec<_> = store::vacations(ctx.conn, userid, row.last_action_at)?
            .into_iter()
            .map(|v| (v.starts_at, v.ends_at))
            .collect();
        if away.iter().any(|&(s, e)| s <= ctx.now && ctx.now < e) {
            continue;
        }
        let total = match row.total_days {
            Some(days) => {
                let plies = store::plies(ctx.conn, store::BoardId::new(game.name(), row.board))?;
                Some((days, time_used(ctx, &row, &plies, to_act, to_act)?))
            }
            None => None,
        };
        let clock = BoardClock {
            last_action_at: row.last_action_at
                + crate::timers::time_on_vacation(&away, row.last_action_at, ctx.now),
            last_nag_at: row.last_nag_at,
            nag_days: row.nag_days.unwrap_or(defaults.nag_days),
            forfeit_days: row.forfeit_days.unwrap_or(defaults.forfeit_days),
            total,
        };
        let idle = (ctx.now - clock.last_action_at).num_days();
        let action = decide(&clock, ctx.now);
        match action {
            TimerAction::Nothing => {}
            TimerAction::Remind => {
                let loaded = load(ctx, game, row.board)?;
                let mut lines = vec![format!(
                    "Reminder: {userid}, {} board {} has waited {idle} days for you; you forfeit after {} days without acting.",
                    game.title(),
                    row.board,
                    clock.forfeit_days
                )];
                if let Some((days_total, used)) = total {
                    lines.push(format!(
                        "You have used {} of your {days_total} days of total time.",
                        days(used)
                    ));
                }
                let mut view = loaded.view(game, lines);
                view.occasion = Occasion::Nag;
                replies.extend(view.to_user(ctx, userid)?);
                store::set_last_nag(
                    ctx.conn,
                    store::BoardId::new(game.name(), row.board),
                    ctx.now,
                )?;
            }
            TimerAction::Forfeit | TimerAction::TimeUp => {
                let mut loaded = load(ctx, game, row.board)?;
                let loser = loaded.position.to_act().index();
                let absent = loaded.row.players[loser].clone();
                let limit = match (action, total) {
                    (TimerAction::TimeUp, Some((days_total, _))) => {
                        ForfeitLimit::TotalTime { days: days_total }
                    }
                    _ => ForfeitLimit::Idle { days: idle },
                };
                // Ruling (issue #15): a board the absent player never made
                // a ply on is finished unrated, like a withdrawal, so that
                // boards started by a flood of challenges rate nobody.
                let touched = store::seats_that_played(
                    ctx.conn,
                    store::BoardId::new(game.name(), row.board),
                )?
                .contains(&loser);
                let close = if touched { finish } else { finish_unrated };
                let news = match loaded.row.proposal {
                    // An unanswered draw proposal counts as accepted.
                    Some((Proposal::Draw, _)) => close(
                        ctx,
                        &mut loaded,
                        None,
                        BoardEnding::AgreementBySilence { days: idle },
                    )?,
                    _ => close(
                        ctx,
                        &mut loaded,
                        rules::Color::from_index(loser).map(rules::Color::opponent),
                        BoardEnding::Forfeit {
                            absent,
                            limit,
                            rated: touched,
                        },
                    )?,
                };
                let view = loaded.view(game, news);
                replies.extend(view.to_players(ctx)?);
            }
        }
    }
    Ok(replies)
}

/// The game record of a board in PGN's layout (see [`crate::render::record`]):
/// PGN proper for chess; the same tags and layout with its own move text for
/// every other game (a `Variant` tag names it). A board that did not start
/// from the game's usual position carries `SetUp` and `FEN` tags with its
/// start position text.
pub(crate) fn game_record(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    row: &store::BoardRow,
    plies: &[store::Ply],
) -> Handled<String> {
    let result = match &row.status {
        BoardStatus::Active => "*",
        BoardStatus::Finished {
            winner_seat: Some(rules::Color::White),
            ..
        } => "1-0",
        BoardStatus::Finished {
            winner_seat: Some(_),
            ..
        } => "0-1",
        BoardStatus::Finished {
            winner_seat: None, ..
        } => "1/2-1/2",
    };
    let mut extra = Vec::new();
    if game.name() != "chess" {
        extra.push(("Variant".to_string(), game.title().to_string()));
    }
    let usual = game.start(&row.options).map(|p| p.to_text()).ok();
    if usual.as_deref() != Some(row.start_position.as_str()) {
        extra.push(("SetUp".to_string(), "1".to_string()));
        extra.push(("FEN".to_string(), row.start_position.clone()));
    }
    if let BoardStatus::Finished { ending, .. } = &row.status {
        extra.push(("Termination".to_string(), ending.termination().to_string()));
    }
    let server = &ctx.server.config.server;
    let tags = crate::render::RecordTags {
        event: format!("{} Board {}", game.title(), row.board),
        site: format!("{} <{}>", server.name, server.address),
        date: row.created_at.format("%Y.%m.%d").to_string(),
        round: "-".to_string(),
        white: row.players[0].clone(),
        black: row.players[1].clone(),
        result: result.to_string(),
        extra,
    };
    let records: Vec<_> = plies.iter().map(super::compose::record).collect();
    Ok(crate::render::record(&tags, &records))
}

/// `<game> pgn <board>`: the game record, to the sender.
pub(crate) fn record(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> Handled<Vec<Reply>> {
    let loaded = load(ctx, game, number)?;
    // The record alone, so that a program can read the mail as a PGN file.
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: format!("{} Board {number} record", game.title()),
        body: game_record(ctx, game, &loaded.row, &all_plies(ctx, &loaded)?)?,
        reply_key: None,
    }])
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
