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

/// `withdraw`: the player leaves a running tournament (`why`: by their
/// own command, or the admin's).
pub(crate) fn withdraw_by_choice(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    userid: &str,
    why: Leaving,
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
    let annulled = withdraw(ctx, game, t, table, seed, why)?;
    Ok(format!(
        "{userid} has withdrawn from {} tournament {}; {}.",
        game.title(),
        t.name,
        what_becomes_of_results(t, annulled)
    ))
}

/// Why an entrant's tournament ends.
#[derive(Clone, Copy, Debug)]
pub(super) enum Leaving {
    /// They sent `withdraw` (their answer says what becomes of their
    /// results).
    Choice,
    /// The admin withdrew them (`admin tournament withdraw`).
    Admin,
    /// The timers forfeited them for silence on this board.
    Silence(u32),
    /// They signed off, or the admin removed them.
    SignedOff,
}

/// What a withdrawal does to the player's results, as the mails say it
/// (the same words to the player and to every other entrant).
fn what_becomes_of_results(t: &Tournament, annulled: bool) -> String {
    if annulled {
        return "they left before half of their games were finished, so every result of \
                theirs is annulled and counts for no one"
            .to_string();
    }
    let paired = match t.kind {
        pure::Kind::Swiss { .. } => "; they are paired no more",
        pure::Kind::RoundRobin { .. } => "",
    };
    format!(
        "their finished games stand and their boards in play are lost by forfeit \
         (the opponent scores 1, unrated){paired}"
    )
}

/// End the tournament of entrant `seed` (withdrawal, or a forfeit for
/// silence): the pure core's ruling on their games, their boards in play
/// ended unrated and mailed: lost by the entrant, or annulled with no
/// result when the ruling annuls them (`true` then). Every other entrant
/// still playing is told, and so is the player unless they asked
/// (their answer says it): who left, why, and what becomes of their
/// results.
pub(super) fn withdraw(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    table: Table,
    seed: usize,
    why: Leaving,
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
    let annulled = pure::annuls(&t.kind, &table.record(), seed);
    let changes = pure::withdraw(&t.kind, &table.record(), seed);
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
            let silent = false;
            (None, BoardEnding::AnnulledInTournament { absent, silent })
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
    let left = match why {
        Leaving::Choice => "has withdrawn from".to_string(),
        Leaving::Silence(board) => {
            format!("was forfeited for silence on board {board}, and so leaves")
        }
        Leaving::SignedOff => "has signed off, and so leaves".to_string(),
        Leaving::Admin => "was withdrawn by the server admin from".to_string(),
    };
    let text = format!(
        "{userid} {left} {} tournament {}: {}.",
        game.title(),
        t.name,
        what_becomes_of_results(t, annulled)
    );
    let subject = format!("{} tournament {}", game.title(), t.name);
    let mut replies = Vec::new();
    for e in &table.entrants {
        let Some(other) = e.seed else {
            continue;
        };
        let told = if other == seed {
            !matches!(why, Leaving::Choice)
        } else {
            !table.withdrawn.contains(&other)
        };
        if let Some(user) = store::user(ctx.conn, &e.userid)?.filter(|_| told) {
            replies.extend(ctx.notice_to_user(&user, subject.clone(), &text)?);
        }
    }
    send(ctx, replies)?;
    Ok(annulled)
}

/// Whether the timers' forfeit for silence of `absent` on board `board`
/// ends their tournament with every result annulled (a round robin left
/// before half their games were finished): the timers then end that
/// board annulled too, with no result and unrated, rather than won by
/// forfeit. Ruling: the board that ends a player's tournament shares the
/// fate of their other games, so its mail, its rating and the crosstable
/// say the same (`x`), and no opponent of theirs keeps a point the others
/// lose.
pub(crate) fn forfeit_annuls(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    board: u32,
    absent: &str,
) -> Handled<bool> {
    let Some(place) = store::tournament_of_board(ctx.conn, game.name(), board)? else {
        return Ok(false);
    };
    let Some(t) = store::tournament(ctx.conn, game.name(), &place.name)? else {
        return Ok(false);
    };
    if t.state != TournamentState::Running {
        return Ok(false);
    }
    let table = Table::read(ctx, &t)?;
    let Some(seed) = table
        .seed_of(absent)
        .filter(|s| !table.withdrawn.contains(s))
    else {
        return Ok(false);
    };
    let Some(i) = table.rows.iter().position(|g| g.board == Some(board)) else {
        return Ok(false);
    };
    // The record as the forfeit would leave it.
    let mut games = table.games.clone();
    games[i].result = Some(if games[i].white == seed {
        pure::GameResult::WhiteForfeits
    } else {
        pure::GameResult::BlackForfeits
    });
    let record = pure::Record {
        games: &games,
        ..table.record()
    };
    Ok(pure::annuls(&t.kind, &record, seed))
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
