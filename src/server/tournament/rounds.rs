//! The start of a tournament (seeding, the first pairing, its boards), the
//! next Swiss round when a round has ended, and the finish with the final
//! crosstable.

use super::table::Table;
use super::withdrawal::{withdraw, Leaving};
use super::{entrants_still_here, MIN_ROUND_ROBIN, MIN_SWISS};
use crate::server::challenge::start_tournament_board;
use crate::server::{Ctx, Failure, Handled, Refusal, Reply};
use crate::store::{self, BoardEnding, BoardStatus, Tournament, TournamentState};
use game::command::Timers;
use game::tournament::{self as pure, Kind};
use rules::{self, Game};

/// `start` before the tournament is full (the creator or an admin).
pub(crate) fn start_now(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament) -> Handled<String> {
    if t.state != TournamentState::Open {
        return Err(Refusal::new(format!("Tournament {} has started already.", t.name)).into());
    }
    let count = entrants_still_here(ctx, t)?.len() as u32;
    let min = match t.kind {
        Kind::RoundRobin { .. } => MIN_ROUND_ROBIN,
        Kind::Swiss { rounds } => MIN_SWISS.max(rounds + 1),
    };
    if count < min {
        return Err(Refusal::new(format!(
            "Tournament {} has {count} players and needs at least {min} to start.",
            t.name
        ))
        .into());
    }
    start(ctx, game, t)?;
    Ok(format!(
        "{} tournament {} has started with {count} players: every player is mailed their \
         boards.",
        game.title(),
        t.name
    ))
}

/// Seed the entrants, pair (every round of a round robin, the first of a
/// Swiss), make the boards and mail them.
pub(super) fn start(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament) -> Handled<()> {
    let mut entrants = store::entrants(ctx.conn, t.id)?;
    let mut rated = Vec::new();
    for e in entrants.drain(..) {
        // An entrant who signed off since joining is not seeded.
        if store::user(ctx.conn, &e.userid)?.is_none_or(|u| u.signed_off_at.is_some()) {
            store::remove_entrant(ctx.conn, t.id, &e.userid)?;
            continue;
        }
        let rating = store::rating(ctx.conn, game.name(), &e.userid)?
            .map_or(game::ratings::START_RATING, |r| r.rating);
        rated.push((rating, e));
    }
    rated.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.joined.cmp(&b.1.joined)));
    for (seed, (rating, e)) in rated.iter().enumerate() {
        store::set_seed(ctx.conn, t.id, &e.userid, seed, *rating)?;
    }
    let n = rated.len();
    let min = match t.kind {
        Kind::RoundRobin { .. } => MIN_ROUND_ROBIN,
        Kind::Swiss { rounds } => MIN_SWISS.max(rounds + 1),
    };
    if (n as u32) < min {
        return Err(Refusal::new(format!(
            "Tournament {} has {n} players who have not signed off, and needs {min} to start.",
            t.name
        ))
        .into());
    }
    match t.kind {
        Kind::RoundRobin { double } => {
            let rounds = pure::round_robin(n, double);
            store::start_tournament(ctx.conn, t.id, rounds.len() as u32, ctx.now)?;
            for (i, round) in rounds.iter().enumerate() {
                record_round(ctx, t.id, i as u32 + 1, round)?;
            }
            store::set_tournament_round(ctx.conn, t.id, rounds.len() as u32)?;
        }
        Kind::Swiss { .. } => {
            store::start_tournament(ctx.conn, t.id, t.rounds, ctx.now)?;
            let t = store::tournament_by_id(ctx.conn, t.id)?.expect("a started tournament");
            let table = Table::read(ctx, &t)?;
            match pure::swiss_round(&table.record(), 1) {
                Ok(round) => {
                    record_round(ctx, t.id, 1, &round)?;
                    store::set_tournament_round(ctx.conn, t.id, 1)?;
                }
                Err(e) => {
                    return Err(
                        Refusal::new(format!("Tournament {} cannot start: {e}", t.name)).into(),
                    )
                }
            }
        }
    }
    let t = store::tournament_by_id(ctx.conn, t.id)?.expect("a started tournament");
    make_boards(ctx, game, &t)?;
    let opening = format!(
        "{} tournament {} has started: {} players, {} rounds.",
        game.title(),
        t.name,
        n,
        t.rounds,
    );
    mail_pairings(ctx, game, &t, 1..=t.round, &opening)
}

/// Every entrant still playing is told what rounds `rounds` hold for
/// them, after `opening`: each board (number, colour, opponent; the
/// board comes in a mail of its own), or the bye (a Swiss's scores a
/// point, a round robin's nothing). An entrant who has left (withdrew,
/// forfeited for silence, signed off) is told nothing.
fn mail_pairings(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    rounds: std::ops::RangeInclusive<u32>,
    opening: &str,
) -> Handled<()> {
    let entrants = store::entrants(ctx.conn, t.id)?;
    let games = store::tournament_games(ctx.conn, t.id)?;
    let byes = store::byes(ctx.conn, t.id)?;
    let bye = match t.kind {
        Kind::Swiss { .. } => "you have the bye (1 point)",
        Kind::RoundRobin { .. } => "you sit this round out (no points in a round robin)",
    };
    let subject = format!("{} tournament {}", game.title(), t.name);
    let mut replies = Vec::new();
    for e in &entrants {
        let Some(seed) = e.seed.filter(|_| e.withdrawn_after.is_none()) else {
            continue;
        };
        let Some(user) = store::user(ctx.conn, &e.userid)? else {
            continue;
        };
        let mut lines = Vec::new();
        for round in rounds.clone() {
            for g in games.iter().filter(|g| g.round == round) {
                let (colour, opponent) = if g.white == seed {
                    ("White", g.black)
                } else if g.black == seed {
                    ("Black", g.white)
                } else {
                    continue;
                };
                let board = g.board.map_or(String::new(), |n| format!("board {n}, "));
                let opponent = entrants.get(opponent).map_or("?", |o| o.userid.as_str());
                lines.push(format!(
                    "  Round {round}: {board}{colour} against {opponent}"
                ));
            }
            if byes.contains(&(round, seed)) {
                lines.push(format!("  Round {round}: {bye}"));
            }
        }
        if lines.is_empty() {
            continue;
        }
        let boards = if lines.iter().any(|l| l.contains(" against ")) {
            "Each board comes in a mail of its own. "
        } else {
            ""
        };
        let text = format!(
            "{opening} Yours:\n\n{}\n\n{boards}Send \"{} tournament show {}\" for the \
             crosstable.",
            lines.join("\n"),
            game.name(),
            t.name
        );
        replies.extend(ctx.notice_to_user(&user, subject.clone(), &text)?);
    }
    send(ctx, replies)
}

/// Record a round's pairings and bye.
fn record_round(ctx: &Ctx<'_>, id: i64, number: u32, round: &pure::Round) -> Handled<()> {
    for p in &round.pairings {
        store::add_tournament_game(ctx.conn, id, number, p.white, p.black)?;
    }
    if let Some(bye) = round.bye {
        store::add_bye(ctx.conn, id, number, bye)?;
    }
    Ok(())
}

/// Make the board of every pairing that has none yet, and queue its
/// mails.
fn make_boards(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament) -> Handled<()> {
    let entrants = store::entrants(ctx.conn, t.id)?;
    let timers = Timers {
        nag_days: t.nag_days,
        forfeit_days: t.forfeit_days,
        total_days: t.total_days,
    };
    for g in store::tournament_games(ctx.conn, t.id)? {
        if g.board.is_some() {
            continue;
        }
        let players = [
            entrants[g.white].userid.clone(),
            entrants[g.black].userid.clone(),
        ];
        // The ratings when the game begins, as the seeding counts them
        // (the start rating for a player not yet rated), for its PGN.
        let mut ratings = [0; 2];
        for (rating, userid) in ratings.iter_mut().zip(&players) {
            *rating = store::rating(ctx.conn, game.name(), userid)?
                .map_or(game::ratings::START_RATING, |r| r.rating);
        }
        let link = |number| {
            Ok(store::set_tournament_board(
                ctx.conn, t.id, &g, number, ratings,
            )?)
        };
        let replies = start_tournament_board(ctx, game, &players, &t.options, &timers, link)?;
        send(ctx, replies)?;
    }
    Ok(())
}

/// Queue mails the tournament sends of itself (not answers to the
/// sender): each is a mail of its own, a board mail with its reply token.
pub(super) fn send(ctx: &Ctx<'_>, replies: Vec<Reply>) -> Handled<()> {
    ctx.server.queue(ctx.conn, replies, None, None, ctx.now)?;
    Ok(())
}

/// A notice to every entrant of `t`.
pub(super) fn mail_entrants(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    text: &str,
) -> Handled<()> {
    let mut replies = Vec::new();
    for e in store::entrants(ctx.conn, t.id)? {
        if let Some(user) = store::user(ctx.conn, &e.userid)? {
            let subject = format!("{} tournament {}", game.title(), t.name);
            replies.extend(ctx.notice_to_user(&user, subject, text)?);
        }
    }
    send(ctx, replies)
}

/// After a command (or the timers' pass) changed boards: every running
/// tournament with a player forfeited for silence has them withdrawn, and
/// every one whose boards have all ended gets its next Swiss round, or is
/// finished and its final crosstable mailed. In the transaction that
/// ended the boards.
pub(crate) fn advance(ctx: &Ctx<'_>) -> Handled<()> {
    for id in store::tournaments_to_advance(ctx.conn)? {
        let Some(t) = store::tournament_by_id(ctx.conn, id)? else {
            continue;
        };
        let Some(game) = rules::game(&t.game) else {
            continue;
        };
        // A round that cannot be made (a board refused) ends the
        // tournament, saying why, rather than fail every later mail.
        match store::savepoint(ctx.conn, "tournament", || advance_one(ctx, game, t.clone())) {
            Ok(()) => {}
            Err(Failure::Refused(r)) => {
                finish(ctx, game, &t, &format!("It ended early: {}", r.sentence))?
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn advance_one(ctx: &Ctx<'_>, game: &'static dyn Game, t: Tournament) -> Handled<()> {
    // Forfeits for silence (and signing off) end the player's tournament.
    let table = Table::read(ctx, &t)?;
    let mut gone = Vec::new();
    for e in &table.entrants {
        let signed_off =
            store::user(ctx.conn, &e.userid)?.is_none_or(|u| u.signed_off_at.is_some());
        if signed_off && e.withdrawn_after.is_none() {
            gone.extend(e.seed.map(|s| (s, Leaving::SignedOff)));
        }
    }
    let silent: Vec<(usize, Leaving)> = table
        .boards
        .iter()
        .flatten()
        .filter_map(|b| match &b.status {
            // A forfeit for silence, or one the timers annulled at once
            // (a withdrawal annuls its boards after marking the player
            // withdrawn, so an annulled board of a player still here is
            // the timers').
            BoardStatus::Finished {
                ending:
                    BoardEnding::Forfeit { absent, .. }
                    | BoardEnding::AnnulledInTournament { absent, .. },
                ..
            } => Some((table.seed_of(absent)?, Leaving::Silence(b.board))),
            _ => None,
        })
        .filter(|(s, _)| !table.withdrawn.contains(s))
        .chain(gone)
        .collect();
    for (seed, why) in silent {
        let table = Table::read(ctx, &t)?;
        if !table.withdrawn.contains(&seed) {
            withdraw(ctx, game, &t, table, seed, why)?;
        }
    }
    let table = Table::read(ctx, &t)?;
    if table.games.iter().any(|g| g.result.is_none()) {
        return Ok(());
    }
    if matches!(t.kind, Kind::Swiss { .. }) && t.round < t.rounds {
        let next = t.round + 1;
        match pure::swiss_round(&table.record(), next) {
            Ok(round) => {
                record_round(ctx, t.id, next, &round)?;
                store::set_tournament_round(ctx.conn, t.id, next)?;
                make_boards(ctx, game, &t)?;
                let opening = format!(
                    "Round {next} of {} tournament {} is paired.",
                    game.title(),
                    t.name
                );
                return mail_pairings(ctx, game, &t, next..=next, &opening);
            }
            Err(e) => {
                return finish(
                    ctx,
                    game,
                    &t,
                    &format!("It ended after round {}: {e}", t.round),
                )
            }
        }
    }
    finish(ctx, game, &t, "")
}

/// Finish `t` and mail every entrant the final crosstable.
pub(super) fn finish(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    note: &str,
) -> Handled<()> {
    store::finish_tournament(ctx.conn, t.id, note, ctx.now)?;
    let t = store::tournament_by_id(ctx.conn, t.id)?.expect("a finished tournament");
    let table = Table::read(ctx, &t)?;
    let mut text = format!(
        "{} tournament {} has finished. {note}\n\nThe final crosstable:\n\n",
        game.title(),
        t.name
    );
    text.push_str(
        &pure::crosstable(&t.kind, &table.record(), &table.names(), &t.tiebreaks).join("\n"),
    );
    mail_entrants(ctx, game, &t, &text)
}
