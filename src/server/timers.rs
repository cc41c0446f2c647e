//! The timers' run: the reminders and forfeits due now (`tick`, and each
//! pass of the daemon). What is due is decided by `game::timers` (pure
//! clock arithmetic); the time a player has used is shown by `compose`.

use super::compose::{days, time_used, Occasion};
use super::computer;
use super::ending::{finish, finish_unrated};
use super::loaded::{load, seat_to_act};
use super::{Ctx, Handled, Reply, Server, ServerError};
use crate::store::{self, BoardEnding, ForfeitLimit, Proposal};
use rules::{self, Game};
use rusqlite::Connection;

impl Server<'_> {
    /// Send the reminders and apply the forfeits due now (`tick`, and each
    /// pass of the daemon), all in one transaction. Returns the mails queued.
    pub fn run_timers(&self, conn: &mut Connection) -> Result<usize, ServerError> {
        let replies = self
            .admin(conn, |ctx| {
                let replies = run_timers(ctx)?;
                Ok(self.queue(ctx.conn, replies, None, None, ctx.now)?)
            })?
            .unwrap_or(0);
        Ok(replies)
    }
}

/// Reminders and forfeits due now on every active board: one mail per
/// board and reader (`Nag: ...` for a reminder).
pub(super) fn run_timers(ctx: &Ctx<'_>) -> Handled<Vec<Reply>> {
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
        let Some(userid) = row.players.get(to_act.index()) else {
            continue;
        };
        // The computer is never reminded nor forfeited; a board that waited
        // for it while it was switched off gets its action now.
        if userid.eq_ignore_ascii_case(&ctx.server.config.computer.userid) {
            if computer::is_computer(ctx, userid) {
                replies.extend(computer_turn(ctx, game, row.board)?);
            }
            continue;
        }
        replies.extend(player_timers(ctx, game, &row, to_act)?);
    }
    Ok(replies)
}

/// The computer's turn on a board that waited for it: its board mail, or
/// none when it did not act (past its budget).
fn computer_turn(ctx: &Ctx<'_>, game: &'static dyn Game, board: u32) -> Handled<Vec<Reply>> {
    let mut loaded = load(ctx, game, board)?;
    let mut news = Vec::new();
    let played = loaded.played;
    computer::respond(ctx, game, &mut loaded, &mut news)?;
    // Past the computer's budget it did not act: no mail.
    if loaded.played != played {
        return loaded.view(game, news).to_players(ctx);
    }
    Ok(Vec::new())
}

/// The timers of a board whose player to act (in seat `to_act`) is a
/// person: a reminder, a forfeit, or nothing.
fn player_timers(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    row: &store::BoardRow,
    to_act: rules::Color,
) -> Handled<Vec<Reply>> {
    use game::timers::{decide, BoardClock, TimerAction};
    let defaults = &ctx.server.config.timers;
    let userid = &row.players[to_act.index()];
    // A player on vacation is neither reminded nor forfeited, and the
    // time away does not count against them.
    let away: Vec<_> = store::vacations(ctx.conn, userid, row.last_action_at)?
        .into_iter()
        .map(|v| (v.starts_at, v.ends_at))
        .collect();
    if away.iter().any(|&(s, e)| s <= ctx.now && ctx.now < e) {
        return Ok(Vec::new());
    }
    let total = match row.total_days {
        Some(days) => {
            let plies = store::plies(ctx.conn, store::BoardId::new(game.name(), row.board))?;
            Some((days, time_used(ctx, row, &plies, to_act, to_act)?))
        }
        None => None,
    };
    let clock = BoardClock {
        last_action_at: row.last_action_at
            + game::timers::time_on_vacation(&away, row.last_action_at, ctx.now),
        last_nag_at: row.last_nag_at,
        nag_days: row.nag_days.unwrap_or(defaults.nag_days),
        forfeit_days: row.forfeit_days.unwrap_or(defaults.forfeit_days),
        total,
    };
    let idle = (ctx.now - clock.last_action_at).num_days();
    let action = decide(&clock, ctx.now);
    match action {
        TimerAction::Nothing => Ok(Vec::new()),
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
            let replies = view.to_user(ctx, userid)?;
            store::set_last_nag(
                ctx.conn,
                store::BoardId::new(game.name(), row.board),
                ctx.now,
            )?;
            Ok(replies)
        }
        TimerAction::Forfeit | TimerAction::TimeUp => {
            let total_days = match (action, total) {
                (TimerAction::TimeUp, Some((days_total, _))) => Some(days_total),
                _ => None,
            };
            forfeit(ctx, game, row.board, idle, total_days)
        }
    }
}

/// A forfeit: the player to act lost on time, after `idle` days without
/// acting or (`total_days`) out of total time; the final board mail.
fn forfeit(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    board: u32,
    idle: i64,
    total_days: Option<u32>,
) -> Handled<Vec<Reply>> {
    let mut loaded = load(ctx, game, board)?;
    let loser = loaded.position.to_act();
    let absent = loaded.row.players[loser.index()].clone();
    let limit = match total_days {
        Some(days_total) => ForfeitLimit::TotalTime { days: days_total },
        None => ForfeitLimit::Idle { days: idle },
    };
    // Ruling: a board the absent player never made a ply on is
    // finished unrated, like a withdrawal, so that boards started by a
    // flood of challenges rate nobody.
    let touched = store::seats_that_played(ctx.conn, store::BoardId::new(game.name(), board))?
        .contains(&loser);
    let close = if touched { finish } else { finish_unrated };
    // A forfeit that annuls the player's tournament results annuls this
    // board with them (see `tournament::forfeit_annuls`).
    let annulled = !matches!(loaded.row.proposal, Some((Proposal::Draw, _)))
        && crate::server::tournament::forfeit_annuls(ctx, game, board, &absent)?;
    if annulled {
        let ending = BoardEnding::AnnulledInTournament {
            absent,
            silent: true,
        };
        let news = finish_unrated(ctx, &mut loaded, None, ending)?;
        return loaded.view(game, news).to_players(ctx);
    }
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
            Some(loser.opponent()),
            BoardEnding::Forfeit {
                absent,
                limit,
                rated: touched,
            },
        )?,
    };
    loaded.view(game, news).to_players(ctx)
}
