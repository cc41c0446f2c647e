//! Leaving a running tournament (`withdraw`, a forfeit for silence), an
//! account signing off, and the admin's cancel.

use super::rounds::{finish, mail_entrants, send};
use super::table::{score_text, Table};
use crate::server::ending::finish_unrated;
use crate::server::loaded::load;
use crate::server::{Ctx, Handled, Refusal};
use crate::store::{self, BoardEnding, Tournament, TournamentState};
use game::tournament as pure;
use rules::{self, Game};

/// `withdraw`: the player leaves a running tournament.
pub(crate) fn withdraw_by_choice(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    userid: &str,
) -> Handled<String> {
    if t.state != TournamentState::Running {
        let how = if t.state == TournamentState::Open {
            format!(
                "it has not started: send {} tournament leave {} USERID PASSWORD",
                game.name(),
                t.name
            )
        } else {
            "it has finished".to_string()
        };
        return Err(Refusal::new(format!(
            "There is no withdrawing from tournament {} now, as {how}.",
            t.name
        ))
        .into());
    }
    let table = Table::read(ctx, t)?;
    let Some(seed) = table.seed_of(userid) else {
        return Err(Refusal::new(format!("{userid} is not in tournament {}.", t.name)).into());
    };
    if table.withdrawn.contains(&seed) {
        return Err(Refusal::new(format!(
            "{userid} has withdrawn from tournament {} already.",
            t.name
        ))
        .into());
    }
    let results = if withdraw(ctx, game, t, table, seed)? {
        "they left before half of their games were finished, so every result of theirs \
         is annulled and counts for no one"
    } else {
        "their finished games stand and their boards in play are lost by forfeit, unrated"
    };
    Ok(format!(
        "{userid} has withdrawn from {} tournament {}; {results}.",
        game.title(),
        t.name
    ))
}

/// End the tournament of entrant `seed` (withdrawal, or a forfeit for
/// silence): the pure core's ruling on their games, their boards in play
/// ended unrated and mailed: lost by the entrant, or annulled with no
/// result when the ruling annuls them (`true` then).
pub(super) fn withdraw(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    table: Table,
    seed: usize,
) -> Handled<bool> {
    let userid = table.entrants[seed].userid.clone();
    let finished = table
        .games
        .iter()
        .filter(|g| g.opponent_of(seed).is_some() && g.result.is_some())
        .count() as u32;
    if !store::set_withdrawn(ctx.conn, t.id, &userid, finished)? {
        return Ok(false);
    }
    let changes = pure::withdraw(&t.kind, &table.record(), seed);
    let annulled = changes
        .iter()
        .any(|(_, s)| *s == pure::GameResult::Annulled);
    for (i, score) in changes {
        let row = &table.rows[i];
        store::rule_tournament_game(ctx.conn, t.id, row, score_text(score))?;
        let Some(board) = table.boards[i].as_ref().filter(|b| b.is_active()) else {
            continue;
        };
        let mut loaded = load(ctx, game, board.board)?;
        let Some(seat) = loaded.row.seat_of(&userid) else {
            continue;
        };
        let (winner, ending) = if score == pure::GameResult::Annulled {
            let absent = userid.clone();
            (None, BoardEnding::AnnulledInTournament { absent })
        } else {
            let absent = userid.clone();
            (
                Some(seat.opponent()),
                BoardEnding::LeftTournament { absent },
            )
        };
        let news = finish_unrated(ctx, &mut loaded, winner, ending)?;
        send(ctx, loaded.view(game, news).to_players(ctx)?)?;
    }
    Ok(annulled)
}

/// `userid` signed off or was removed: they leave every open tournament,
/// and those they opened are removed, their entrants told (see the
/// module's rulings).
pub(crate) fn leave_all(ctx: &Ctx<'_>, userid: &str) -> Handled<()> {
    let open: Vec<Tournament> = store::tournaments(ctx.conn, None)?
        .into_iter()
        .filter(|t| t.state == TournamentState::Open)
        .collect();
    for t in open {
        if t.creator.as_deref() == Some(userid) {
            let Some(game) = rules::game(&t.game) else {
                continue;
            };
            store::remove_entrant(ctx.conn, t.id, userid)?;
            let text = format!(
                "{} tournament {} is cancelled: {userid}, who opened it, has left the server.",
                game.title(),
                t.name
            );
            mail_entrants(ctx, game, &t, &text)?;
            store::delete_tournament(ctx.conn, t.id)?;
        } else {
            store::remove_entrant(ctx.conn, t.id, userid)?;
        }
    }
    Ok(())
}

/// `admin tournament cancel`: an open tournament is removed, a running one
/// finished with its boards in play deleted (see the module's rulings).
pub(super) fn cancel(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament) -> Handled<String> {
    match t.state {
        TournamentState::Finished => Err(Refusal::new(format!(
            "Tournament {} has finished already; there is nothing to cancel.",
            t.name
        ))
        .into()),
        TournamentState::Open => {
            let text = format!(
                "{} tournament {} is cancelled by the server admin before it started.",
                game.title(),
                t.name
            );
            mail_entrants(ctx, game, t, &text)?;
            store::delete_tournament(ctx.conn, t.id)?;
            Ok(format!("{} tournament {} removed", game.name(), t.name))
        }
        TournamentState::Running => {
            let table = Table::read(ctx, t)?;
            let mut deleted = Vec::new();
            for board in table.boards.iter().flatten().filter(|b| b.is_active()) {
                store::delete_board(ctx.conn, store::BoardId::new(game.name(), board.board))?;
                deleted.push(board.board.to_string());
            }
            let note = if deleted.is_empty() {
                "The server admin cancelled it.".to_string()
            } else {
                format!(
                    "The server admin cancelled it; its boards in play ({}) are deleted, with no result.",
                    deleted.join(", ")
                )
            };
            finish(ctx, game, t, &note)?;
            Ok(format!(
                "{} tournament {} finished; {} boards in play deleted",
                game.name(),
                t.name,
                deleted.len()
            ))
        }
    }
}
