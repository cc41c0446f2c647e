//! Tournaments by mail: `<game> tournament create|join|leave|
//! start|withdraw|show|pgn` and `<game> tournaments`, the start (seeding,
//! every round robin round or the first Swiss round, the boards), the next
//! Swiss round when a round's last board ends, withdrawals and forfeits
//! for silence, and the final crosstable. The pairing and the scoring are
//! `game::tournament`'s (pure); this module maps the store's rows to its
//! `Record` and back.
//!
//! Rulings:
//! - Who opens one: the userids of `[server] admins` by mail, any player
//!   when `[tournaments] players_may_create` is true, and the admin CLI.
//!   A player who opens one by mail is its first entrant (they may
//!   `leave`); the admin CLI enters no one.
//! - Sizes: a round robin has [`MIN_ROUND_ROBIN`] to
//!   [`MAX_ROUND_ROBIN_PLAYERS`] players (all its boards start at once,
//!   and its crosstable has a column per opponent); a Swiss
//!   [`MIN_SWISS`] to [`MAX_PLAYERS`], and 1 to [`MAX_ROUNDS`] rounds, at
//!   most one fewer than its players (no pair meets twice). The `start`
//!   of a tournament not yet full needs as many entrants.
//! - Bounds: a player has at most [`OPEN_PER_CREATOR`] tournaments not
//!   finished that they opened, the server `[limits] open_tournaments`.
//! - Seeding: rating in the game descending (the start rating for the
//!   unrated), then join order. Entrant `n` of the crosstable is seed `n`.
//! - Only accounts with a confirmed address open or join by mail: a signup nobody confirmed cannot fill the server's tournaments.
//!   The server's `[limits] open_tournaments` bounds what mail opens; the
//!   admin CLI opens beyond it.
//! - Signing off (by mail, or `admin user remove`) leaves every open
//!   tournament at once, and removes the open ones the account opened
//!   (their entrants are told); in a running one it withdraws the player
//!   before the next round is paired (their boards are forfeited by the
//!   timers).
//! - `admin tournament cancel NAME`: an open tournament is removed (its
//!   entrants are told); a running one is finished at once with the note
//!   that the admin cancelled it, its boards in play are deleted (no
//!   result, unrated; finished games keep their results and ratings), and
//!   every entrant gets the final crosstable.
//! - The start and every round: the pairing, its boards and their mails
//!   are made in the transaction of the mail (or timers' pass, or admin
//!   command) that causes them; each pairing is a row keyed by
//!   (tournament, round, white, black), so a round is made exactly once.
//!   Tournament boards skip the players' challenge settings and the
//!   boards-per-day bound: joining is the consent.
//! - A Swiss round is paired when every board of the round before has
//!   ended, in the transaction that ended the last one (a move, a
//!   resignation, a draw, a forfeit of the timers, an adjudication); when
//!   no legal pairing exists, the tournament ends there, saying why.
//! - Withdrawal (`withdraw`, while it runs) and a forfeit for silence on
//!   any tournament board end the player's tournament the same way:
//!   `game::tournament::withdraw` rules (a Swiss keeps their finished
//!   games and forfeits the rest; a round robin annuls every result
//!   before half their games are finished, later forfeits the games in
//!   play); their boards in play end at once, unrated, and a Swiss
//!   pairs them no more. The board forfeited for silence itself is rated
//!   as the timers rate any board, unless the forfeit annuls the
//!   player's results: then the timers end it annulled too, unrated
//!   (`withdrawal.rs` `forfeit_annuls`).
//! - Round mails, one per entrant (`rounds.rs` `mail_pairings`): each
//!   entrant still playing is told their boards (number, colour,
//!   opponent) or the bye and what it scores; one who has left is told
//!   nothing. A leaving (`withdrawal.rs` `withdraw`) is told to every
//!   entrant still playing and to the player: why, and what becomes of
//!   their results. The final crosstable goes to every entrant.
//! - A tournament board's PGN (`record.rs`) has one Event for the whole
//!   tournament, `Round "r.b"` (its place among the round's boards in
//!   the pairing's order, best first), `EventDate` (the start), and `WhiteElo`/`BlackElo`: the
//!   ratings stored when its board was made (none for older boards).
//! - `tournament pgn` mails the games (finished ones and those in play)
//!   that fit within `[limits] max_reply_bytes`; a `%` escape line (which
//!   PGN readers skip) at the end says how many did not.

mod admin;
mod rounds;
pub(super) mod show;
pub(super) mod table;
mod withdrawal;

pub use self::admin::AdminTournamentAct;
pub(crate) use self::rounds::advance;
pub(crate) use self::withdrawal::{forfeit_annuls, leave_all};

use self::rounds::{start, start_now};
use self::show::{list, pgn, show};
use self::withdrawal::{withdraw_by_choice, Leaving};
use super::challenge::check_tournament_options;
use super::{Ctx, Handled, Refusal, Reply};
use crate::store::{self, EntrantRow, Tournament, TournamentState};
use game::command::{Credentials, TournamentAction, TournamentCommand, TournamentPlan};
use game::tournament::{tiebreak_codes, Kind, Tiebreak};
use rules::{self, Game};

/// Most players of a Swiss tournament.
pub(crate) const MAX_PLAYERS: u32 = 64;
/// Most players of a round robin.
pub(crate) const MAX_ROUND_ROBIN_PLAYERS: u32 = 12;
/// Fewest players a round robin starts with.
pub(crate) const MIN_ROUND_ROBIN: u32 = 3;
/// Fewest players a Swiss starts with.
pub(crate) const MIN_SWISS: u32 = 4;
/// Most rounds of a Swiss.
pub(crate) const MAX_ROUNDS: u32 = 20;
/// Tournaments not finished that one player may have opened.
pub(crate) const OPEN_PER_CREATOR: u32 = 3;
/// Finished tournaments `tournaments` lists (the latest).
const FINISHED_LISTED: usize = 20;

/// The tournament commands of `game`.
pub(crate) fn execute(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    command: &TournamentCommand,
) -> Handled<Vec<Reply>> {
    match command {
        TournamentCommand::Act { name, who, action } => tournament(ctx, game, name, who, action),
        TournamentCommand::Show { name } => show(ctx, game, name),
        TournamentCommand::Pgn { name } => pgn(ctx, game, name),
        TournamentCommand::List => list(ctx, game),
    }
}

/// `<game> tournament <action> <name> <userid> <pw> ...`
pub(super) fn tournament(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    name: &str,
    who: &Credentials,
    action: &TournamentAction,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let to = ctx.answer_to(&user).to_string();
    let text = match action {
        TournamentAction::Create(Err(sentence)) => {
            return Err(Refusal::new(super::sentences::capitalise(sentence)).into())
        }
        TournamentAction::Create(Ok(plan)) => {
            super::confirm::needs_confirmed(&user, "open tournaments")?;
            let admin = ctx.server.config.server.is_admin(&user.userid);
            if !admin && !ctx.server.config.tournaments.players_may_create {
                return Err(Refusal::new(format!(
                    "Only the admins of this server open tournaments; ask one of them to open \
                     {name} for you."
                ))
                .into());
            }
            let t = open(ctx, game, name, Some(&user.userid), plan)?;
            let mut text = format!(
                "{} tournament {name} is open: {}; ties are broken by, in order: {}. You are \
                 its first entrant; it starts when \
                 {} players have joined ({} tournament join {name} USERID PASSWORD), or when \
                 you send {} tournament start {name} USERID PASSWORD.",
                game.title(),
                describe(&t),
                tiebreak_codes(&t.tiebreaks, ", "),
                t.size,
                game.name(),
                game.name()
            );
            text.push_str(&enter(ctx, game, &t, &user.userid)?);
            text
        }
        TournamentAction::Join => {
            super::confirm::needs_confirmed(&user, "join tournaments")?;
            let t = find(ctx, game, name)?;
            join(ctx, game, &t, &user.userid)?
        }
        TournamentAction::Leave => leave(ctx, game, name, &user.userid)?,
        TournamentAction::Start => {
            let t = find(ctx, game, name)?;
            let admin = ctx.server.config.server.is_admin(&user.userid);
            if !admin && t.creator.as_deref() != Some(user.userid.as_str()) {
                return Err(Refusal::new(format!(
                    "Only the player who opened tournament {name} (or an admin) may start it; \
                     it starts by itself when full."
                ))
                .into());
            }
            start_now(ctx, game, &t)?
        }
        TournamentAction::Withdraw => {
            let t = find(ctx, game, name)?;
            withdraw_by_choice(ctx, game, &t, &user.userid, Leaving::Choice)?
        }
    };
    Ok(vec![ctx.notice(
        &to,
        format!("{} tournament {name}", game.title()),
        text,
    )?])
}

/// The tournament of `game` called `name`, or the refusal saying there is
/// none.
pub(crate) fn find(ctx: &Ctx<'_>, game: &'static dyn Game, name: &str) -> Handled<Tournament> {
    if !game::command::is_tournament_name(name) {
        return Err(not_a_name());
    }
    store::tournament(ctx.conn, game.name(), name)?.ok_or_else(|| {
        Refusal::new(format!(
            "There is no {} tournament called {name}; send \"{} tournaments\" for the list.",
            game.title(),
            game.name()
        ))
        .into()
    })
}

/// The refusal of a word that is no tournament name (never quoted: it
/// may be anything, a password written in the wrong place too).
fn not_a_name() -> super::Failure {
    Refusal::new(format!(
        "The word after the action should be a tournament's name: 1 to {} letters, digits or \
         '-', a letter or digit first.",
        game::command::MAX_TOURNAMENT_NAME
    ))
    .into()
}

/// `round robin, 6 players` / `Swiss, 5 rounds, 8 players`.
pub(super) fn describe(t: &Tournament) -> String {
    let kind = match t.kind {
        Kind::RoundRobin { double: true } => "double round robin".to_string(),
        Kind::RoundRobin { double: false } => "round robin".to_string(),
        Kind::Swiss { rounds } => format!("Swiss, {rounds} rounds"),
    };
    format!("{kind}, {} players", t.size)
}

/// Check a plan against the bounds (see the module's rulings).
fn check_plan(plan: &TournamentPlan) -> Handled<u32> {
    let (min, max) = if plan.swiss {
        (MIN_SWISS, MAX_PLAYERS)
    } else {
        (MIN_ROUND_ROBIN, MAX_ROUND_ROBIN_PLAYERS)
    };
    let kind = if plan.swiss {
        "A Swiss"
    } else {
        "A round robin"
    };
    if plan.players < min || plan.players > max {
        return Err(Refusal::new(format!(
            "{kind} tournament has {min} to {max} players on this server; ask for a number in \
             that range."
        ))
        .into());
    }
    if !plan.swiss {
        return Ok(0);
    }
    let most = MAX_ROUNDS.min(plan.players - 1);
    match plan.rounds {
        Some(r) if (1..=most).contains(&r) => Ok(r),
        _ => Err(Refusal::new(format!(
            "A Swiss tournament of {} players has 1 to {most} rounds; ask for a number in that \
             range.",
            plan.players
        ))
        .into()),
    }
}

/// Open a tournament (by mail: `creator` is the player; from the admin
/// CLI: `None`), after the bounds and the name are checked.
pub(super) fn open(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    name: &str,
    creator: Option<&str>,
    plan: &TournamentPlan,
) -> Handled<Tournament> {
    if !game::command::is_tournament_name(name) {
        return Err(not_a_name());
    }
    let rounds = check_plan(plan)?;
    let name = name.to_ascii_lowercase();
    if store::tournament(ctx.conn, game.name(), &name)?.is_some() {
        return Err(Refusal::new(format!(
            "There is a {} tournament called {name} already; choose another name.",
            game.title()
        ))
        .into());
    }
    let cap = ctx.server.config.limits.open_tournaments;
    if ctx.sender.is_some() && store::unfinished_tournaments(ctx.conn, None)? >= cap {
        return Err(Refusal::new(format!(
            "This server holds {cap} tournaments not yet finished, its most; open yours when \
             one has finished."
        ))
        .into());
    }
    if let Some(userid) = creator {
        if store::unfinished_tournaments(ctx.conn, Some(userid))? >= OPEN_PER_CREATOR {
            return Err(Refusal::new(format!(
                "{userid} has opened {OPEN_PER_CREATOR} tournaments not yet finished, the most \
                 one player may; open another when one has finished."
            ))
            .into());
        }
    }
    let options: Vec<String> = plan.options.iter().map(|o| o.to_lowercase()).collect();
    check_tournament_options(game, &options, &plan.timers)?;
    let kind = if plan.swiss {
        Kind::Swiss { rounds }
    } else {
        Kind::RoundRobin {
            double: plan.double,
        }
    };
    let id = store::insert_tournament(
        ctx.conn,
        &store::NewTournament {
            game: game.name(),
            name: &name,
            kind,
            rounds,
            size: plan.players,
            options: &options,
            nag_days: plan.timers.nag_days,
            forfeit_days: plan.timers.forfeit_days,
            total_days: plan.timers.total_days,
            creator,
            tiebreaks: &plan
                .tiebreaks
                .clone()
                .unwrap_or_else(|| Tiebreak::defaults(&kind)),
            now: ctx.now,
        },
    )?;
    Ok(store::tournament_by_id(ctx.conn, id)?.expect("the tournament just inserted"))
}

/// `join`: enter `userid`, and start the tournament when that fills it.
pub(crate) fn join(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    userid: &str,
) -> Handled<String> {
    if t.state != TournamentState::Open {
        return Err(Refusal::new(format!(
            "Tournament {} has started already; join another (send \"{} tournaments\").",
            t.name,
            game.name()
        ))
        .into());
    }
    let entered = enter(ctx, game, t, userid)?;
    Ok(format!(
        "{userid} has joined {} tournament {}.{entered}",
        game.title(),
        t.name
    ))
}

/// Enter `userid` into open tournament `t`; when that fills it, start it.
/// The words to add to the answer.
fn enter(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament, userid: &str) -> Handled<String> {
    // The computer player (entered by the admin) has an account once it
    // plays; it is made here if need be.
    let computer = &ctx.server.config.computer;
    if computer.enabled && userid.eq_ignore_ascii_case(&computer.userid) {
        store::ensure_computer_user(ctx.conn, &computer.userid.to_ascii_lowercase(), ctx.now)?;
    }
    match store::user(ctx.conn, userid)? {
        Some(u) if u.signed_off_at.is_none() => {}
        _ => {
            return Err(Refusal::new(format!(
                "There is no user called {userid} (or they signed off); players sign up first."
            ))
            .into())
        }
    }
    let joined = entrants_still_here(ctx, t)?;
    if joined.iter().any(|e| e.userid == userid) {
        return Err(Refusal::new(format!("{userid} is in tournament {} already.", t.name)).into());
    }
    if joined.len() as u32 >= t.size {
        return Err(Refusal::new(format!("Tournament {} is full.", t.name)).into());
    }
    store::add_entrant(ctx.conn, t.id, userid)?;
    let count = joined.len() as u32 + 1;
    if count < t.size {
        return Ok(format!(" It has {count} of its {} players.", t.size));
    }
    start(ctx, game, t)?;
    Ok(" It is full and has started: every player is mailed their boards.".to_string())
}

/// The entrants of open tournament `t`, once those who signed off since
/// they joined have left it (ruling: signing off leaves an open
/// tournament, so it fills only with players who can play).
fn entrants_still_here(ctx: &Ctx<'_>, t: &Tournament) -> Handled<Vec<EntrantRow>> {
    let mut here = Vec::new();
    for e in store::entrants(ctx.conn, t.id)? {
        if store::user(ctx.conn, &e.userid)?.is_none_or(|u| u.signed_off_at.is_some()) {
            store::remove_entrant(ctx.conn, t.id, &e.userid)?;
        } else {
            here.push(e);
        }
    }
    Ok(here)
}

/// `leave`, before the start.
fn leave(ctx: &Ctx<'_>, game: &'static dyn Game, name: &str, userid: &str) -> Handled<String> {
    let t = find(ctx, game, name)?;
    if t.state != TournamentState::Open {
        return Err(Refusal::new(format!(
            "Tournament {name} has started, so there is no leaving it; to stop playing send \
             {} tournament withdraw {name} USERID PASSWORD.",
            game.name()
        ))
        .into());
    }
    if !store::remove_entrant(ctx.conn, t.id, userid)? {
        return Err(Refusal::new(format!("{userid} is not in tournament {name}.")).into());
    }
    Ok(format!("{userid} has left tournament {name}."))
}
