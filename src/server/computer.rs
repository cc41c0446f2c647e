//! The computer player at the table: it is challenged like anyone (its
//! level a challenge option, `-level=1` to `-level=5`), and it acts in the
//! same transaction as the action that gives it the turn, so the board
//! mail that answers a player's move already carries the computer's
//! reply. What it plays comes from [`computer`].
//!
//! # Rulings
//! - Its account has no password and no address: nobody can act for it
//!   and no mail is ever sent to it; it is rated and listed in the
//!   standings like any player. Its userid is reserved even while it is
//!   switched off.
//! - Switched off, it cannot be challenged; its running boards wait, and
//!   the first pass after it is switched on again plays them.
//! - It is never reminded and never forfeits.
//! - It answers draw proposals at once (see [`computer`] for when
//!   it accepts), and declines every proposal to take back a ply.
//! - It has a budget ([`Budget`], `[computer] seconds_per_mail`, 0.8 s)
//!   for one inbound mail, one pass of the timers or one admin command: a
//!   move starts only while the whole time its level may take still fits
//!   in what is left; the first move of a budget always starts, its search
//!   cut to the budget. Ruling: no mail may cost more than a
//!   second of processor time, so the default budget is under a second
//!   and cuts level 5's move time (`move_seconds`, 1 s) to 0.8 s; an admin
//!   who wants every second of level 5 raises `seconds_per_mail` to at
//!   least `move_seconds`, and the thinking inside one write transaction
//!   stays bounded by it. A board it cannot answer within the budget says so in its
//!   mail and gets the computer's move in the next pass of the timers
//!   (they look at every board the computer plays). A draw proposal is
//!   always answered, its search cut to what is left of the budget.
//!   Thinking happens inside the mail's transaction (the move and the
//!   board mails commit with the mail), which the budget keeps short; the
//!   daemon commits a group of mails as soon as one of them made the
//!   computer think, so a group never adds up several budgets.

use std::cell::Cell;
use std::time::{Duration, Instant};

use super::autoplay::{self, Notice};
use super::ending::finish;
use super::loaded::Loaded;
use super::ply::apply_move;
use super::{Ctx, Handled, Refusal, ServerError};
use crate::store::{self, Proposal};
use computer::{self, Level};
use rules::{Color, Game};

/// Whether `userid` is the computer while it plays.
pub(crate) fn is_computer(ctx: &Ctx<'_>, userid: &str) -> bool {
    ctx.server.config.computer.is(userid)
}

/// Check a challenge's players for the computer (creating its account on
/// first use) and take `-level=N` off its options: the options left for
/// the game, and the computer's level when it plays.
pub(crate) fn take_level(
    ctx: &Ctx<'_>,
    players: &[String],
    options: &[String],
) -> Handled<(Vec<String>, Option<Level>)> {
    let config = &ctx.server.config.computer;
    let plays = players.iter().any(|p| config.is(p));
    if !config.enabled
        && players
            .iter()
            .any(|p| p.eq_ignore_ascii_case(&config.userid))
    {
        return Err(Refusal::new(format!(
            "The computer player {} is switched off on this server; challenge another player.",
            config.userid
        ))
        .into());
    }
    if plays {
        store::ensure_computer_user(ctx.conn, &config.userid.to_ascii_lowercase(), ctx.now)?;
    }
    let mut level = None;
    let mut rest = Vec::new();
    for option in options {
        let Some(value) = option.strip_prefix("level") else {
            rest.push(option.clone());
            continue;
        };
        if !plays {
            return Err(Refusal::new(format!(
                "-level sets the strength of the computer player; it needs {} among the players, or leave it out.",
                config.userid
            ))
            .into());
        }
        let n = value.strip_prefix('=').and_then(|v| v.parse::<u8>().ok());
        match n.and_then(Level::new) {
            Some(l) => level = Some(l),
            None => {
                return Err(Refusal::new(format!(
                    "The computer's level is a number from 1 to 5, written -level=3, not -{option}."
                ))
                .into())
            }
        }
    }
    Ok((rest, plays.then(|| level.unwrap_or(Level::DEFAULT))))
}

/// While the computer is to act on an active board: think, play, and
/// let a queued move of its opponent answer. Adds a line per computer
/// action to `news`; returns what only a queuing player may read.
pub(crate) fn respond(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    loaded: &mut Loaded,
    news: &mut Vec<String>,
) -> Handled<Vec<Notice>> {
    let mut notices = Vec::new();
    while loaded.row.is_active() {
        let seat = loaded.position.to_act();
        let userid = loaded.row.players[seat.index()].clone();
        if !is_computer(ctx, &userid) {
            break;
        }
        let level = level_on(ctx, loaded)?;
        let config = &ctx.server.config.computer;
        let start = Instant::now();
        let mut limits = level.limits(config.move_time(), start);
        let need = limits.deadline.map_or(Duration::ZERO, |d| d - start);
        let budget = &ctx.computer_budget;
        let Some(left) = budget.grant(config.mail_time(), need) else {
            // One short line (a userid is at most 32 characters).
            news.push(format!("{userid} moves shortly, in a mail of its own."));
            break;
        };
        limits.deadline = limits.deadline.map(|d| d.min(start + left));
        let found = computer::choose(loaded.position.as_ref(), limits);
        budget.spend(start.elapsed());
        let Some(found) = found else {
            break;
        };
        match apply_move(
            ctx,
            game,
            loaded,
            seat,
            &found.notation,
            String::new(),
            false,
        )? {
            Ok(mut ratings) => {
                let ply = &loaded.plies[loaded.plies.len() - 1];
                news.push(format!(
                    "{userid} plays {} (ply {}).",
                    ply.notation, ply.ply
                ));
                news.append(&mut ratings);
            }
            Err(e) => {
                return Err(ServerError::Replay {
                    game: game.name().to_string(),
                    board: loaded.row.board,
                    reason: format!("the computer's action {} was refused: {e}", found.notation),
                }
                .into())
            }
        }
        notices.extend(autoplay::play_queued(ctx, game, loaded, news)?);
    }
    Ok(notices)
}

/// The least a unit of work's first search is given, however small the
/// budget: the computer always answers.
const SHORTEST_SEARCH: Duration = Duration::from_millis(50);

/// What the computer thought so far in one unit of work (a mail, a pass
/// of the timers, an admin command); see the rulings above.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    spent: Cell<Option<Duration>>,
}

impl Budget {
    /// Whether the computer thought in this unit of work.
    pub(crate) fn used(&self) -> bool {
        self.spent.get().is_some()
    }

    /// The time left of `total`, when a search of `need` may start: the
    /// first always may, cut to `total` (at least [`SHORTEST_SEARCH`]).
    fn grant(&self, total: Duration, need: Duration) -> Option<Duration> {
        match self.spent.get() {
            None => Some(total.max(SHORTEST_SEARCH)),
            Some(spent) => {
                let left = total.saturating_sub(spent);
                (left >= need && !left.is_zero()).then_some(left)
            }
        }
    }

    fn spend(&self, time: Duration) {
        self.spent
            .set(Some(self.spent.get().unwrap_or_default() + time));
    }
}

/// The computer's level on a board.
fn level_on(ctx: &Ctx<'_>, loaded: &Loaded) -> Handled<Level> {
    Ok(store::computer_level(ctx.conn, loaded.row.id())?
        .and_then(Level::new)
        .unwrap_or(Level::DEFAULT))
}

/// Answer a proposal made to the computer: a draw when its search says
/// it is lost or dead even, never a take-back. Adds the answer to `news`.
pub(crate) fn answer_proposal(
    ctx: &Ctx<'_>,
    loaded: &mut Loaded,
    news: &mut Vec<String>,
) -> Handled<()> {
    let Some((kind, by)) = loaded.row.proposal else {
        return Ok(());
    };
    let Some(me) = [Color::White, Color::Black]
        .into_iter()
        .find(|&s| s != by && is_computer(ctx, &loaded.row.players[s.index()]))
    else {
        return Ok(());
    };
    let level = level_on(ctx, loaded)?;
    let config = &ctx.server.config.computer;
    let start = Instant::now();
    let mut limits = level.limits(config.move_time(), start);
    let budget = &ctx.computer_budget;
    let left = budget
        .grant(config.mail_time(), Duration::ZERO)
        .unwrap_or_default();
    limits.deadline = limits.deadline.map(|d| d.min(start + left));
    let accepts =
        kind == Proposal::Draw && computer::accepts_draw(loaded.position.as_ref(), me, limits);
    budget.spend(start.elapsed());
    let (game, number) = (loaded.row.game.clone(), loaded.row.board);
    store::set_proposal(ctx.conn, store::BoardId::new(&game, number), None)?;
    loaded.row.proposal = None;
    let (computer, proposer) = (
        &loaded.row.players[me.index()],
        &loaded.row.players[by.index()],
    );
    let what = match kind {
        Proposal::Draw => "a draw",
        Proposal::Undo => "taking back plies",
    };
    if accepts {
        news.push(format!(
            "{computer} accepts {proposer}'s proposal of {what}."
        ));
        let mut changes = finish(ctx, loaded, None, store::BoardEnding::Agreement)?;
        news.append(&mut changes);
    } else {
        let why = match kind {
            Proposal::Draw => "it plays on",
            Proposal::Undo => "it never takes back a ply",
        };
        news.push(format!(
            "{computer} rejects {proposer}'s proposal of {what}: {why}."
        ));
        store::touch(ctx.conn, store::BoardId::new(&game, number), ctx.now)?;
    }
    Ok(())
}
