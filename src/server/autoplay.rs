//! Moves played for a player when their turn comes: right after a ply is
//! applied (by `move`, or by another move played here), in the same
//! transaction. Queued moves' rulings are in `queue`, where they are
//! queued. Conditional moves are played here too, before a queued
//! move (a player holds one or the other); their rulings are in
//! `conditional` (the server's and the pure one).

use super::compose::{BoardView, QUEUED_COMMENT};
use super::loaded::Loaded;
use super::ply::{apply_move, apply_ply, Origin};
use super::{Ctx, Handled, Reply};
use crate::store::{self, PendingKind};
use game::conditional::Advance;
use rules::{Color, Game};

/// A sentence for one player only, added to their copy of a board mail.
pub(crate) struct Notice {
    pub userid: String,
    pub text: String,
}

/// Right after a ply is applied: play the queued move of whoever is to act
/// now (and again, should that give the turn to another queued move).
/// Lines for every board mail are added to `news`; what only the queuing
/// player may read is returned.
pub(crate) fn play_queued(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    loaded: &mut Loaded,
    news: &mut Vec<String>,
) -> Handled<Vec<Notice>> {
    let number = loaded.row.board;
    let mut notices = Vec::new();
    follow_trees(ctx, game, loaded, &mut notices)?;
    while loaded.row.is_active() {
        if play_tree_answer(ctx, game, loaded, news, &mut notices)? {
            continue;
        }
        // A queued move is a turn, never a decision the rules ask for (a
        // Shadow reveal): while one waits, queued moves wait too.
        if loaded.position.is_decision() {
            break;
        }
        let seat = loaded.position.to_act();
        let Some(queued) = store::take_pending_move(
            ctx.conn,
            store::BoardId::new(game.name(), number),
            seat,
            PendingKind::Queued,
        )?
        else {
            break;
        };
        let userid = loaded.row.players[seat.index()].clone();
        let ply = loaded.played + 1;
        let dropped = |why: String| Notice {
            userid: userid.clone(),
            text: format!(
                "Your queued move {} was not played and is dropped: {why}",
                queued.notation
            ),
        };
        if let Some(n) = queued.guard.filter(|&n| n != ply) {
            notices.push(dropped(format!(
                "it was guarded as ply {n}, but your turn came at ply {ply}; send your move for ply {ply}."
            )));
            continue;
        }
        let comment = queued.comment.clone();
        match apply_move(
            ctx,
            game,
            loaded,
            seat,
            &queued.notation,
            comment.clone(),
            true,
        )? {
            Ok(mut ratings) => {
                let notation = &loaded.plies[loaded.plies.len() - 1].notation;
                news.push(format!(
                    "{userid}'s queued move {notation} was played automatically as ply {ply}."
                ));
                if !comment.is_empty() {
                    news.push(format!("{userid}{QUEUED_COMMENT}{comment}"));
                }
                news.append(&mut ratings);
                follow_trees(ctx, game, loaded, &mut notices)?;
            }
            Err(e) => notices.push(dropped(format!(
                "{}; it is your turn, so send your move.",
                e.to_string().trim_end_matches('.')
            ))),
        }
    }
    Ok(notices)
}

/// Right after a ply is applied: each player's conditional moves
/// follow it. Lines that began with it keep what follows it; when
/// none did, the tree is cleared and its owner alone is told so (a
/// [`Notice`]). A tree whose lines start at another ply than this one
/// (which no path should leave) is cleared too.
fn follow_trees(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    loaded: &Loaded,
    notices: &mut Vec<Notice>,
) -> Handled<()> {
    let Some(last) = loaded.plies.last().filter(|p| p.ply == loaded.played) else {
        return Ok(());
    };
    let id = store::BoardId::new(game.name(), loaded.row.board);
    for seat in [Color::White, Color::Black] {
        let Some((from, mut tree)) = store::conditional_tree(ctx.conn, id, seat)? else {
            continue;
        };
        let userid = loaded.row.players[seat.index()].clone();
        let decision = game::render::is_decision(&last.notation);
        let expected =
            from + 1 == last.ply && tree.advance(&last.notation, decision) == Advance::Expected;
        if expected {
            store::set_conditional_tree(ctx.conn, id, seat, last.ply, &tree)?;
            continue;
        }
        store::clear_conditional_tree(ctx.conn, id, seat)?;
        let whose = if last.seat == seat {
            "your own move "
        } else {
            ""
        };
        notices.push(Notice {
            userid,
            text: format!(
                "Your conditional moves did not expect {whose}{}; they were cleared.",
                last.notation
            ),
        });
    }
    Ok(())
}

/// When the player to act holds conditional moves that answer the board
/// as it stands, play the answer (marked `(Cond)`) and let the trees
/// follow it; whether a ply was played. A tree plays its owner's plies
/// only (their turns, and their own Shadow reveal decisions when their
/// line names them), never the opponent's: while the opponent must decide,
/// the tree waits.
fn play_tree_answer(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    loaded: &mut Loaded,
    news: &mut Vec<String>,
    notices: &mut Vec<Notice>,
) -> Handled<bool> {
    let seat = loaded.position.to_act();
    let id = store::BoardId::new(game.name(), loaded.row.board);
    let Some((from, tree)) = store::conditional_tree(ctx.conn, id, seat)? else {
        return Ok(false);
    };
    let Some(answer) = tree.answer().filter(|_| from == loaded.played) else {
        return Ok(false);
    };
    let answer = answer.to_string();
    let userid = loaded.row.players[seat.index()].clone();
    let ply = loaded.played + 1;
    match apply_ply(
        ctx,
        game,
        loaded,
        seat,
        &answer,
        String::new(),
        Origin::Tree,
    )? {
        Ok(mut ratings) => {
            news.push(format!(
                "{userid}'s conditional move {answer} was played automatically as ply {ply}."
            ));
            news.append(&mut ratings);
            follow_trees(ctx, game, loaded, notices)?;
            Ok(true)
        }
        Err(e) => {
            // Checked when entered, so only a rules change gets here.
            store::clear_conditional_tree(ctx.conn, id, seat)?;
            notices.push(Notice {
                userid,
                text: format!(
                    "Your conditional move {answer} could not be played ({}), so your conditional moves were cleared; it is your turn, so send your move.",
                    e.to_string().trim_end_matches('.')
                ),
            });
            Ok(false)
        }
    }
}

/// Add each notice to its player's own copy of the board mail.
pub(crate) fn tell_players(
    ctx: &Ctx<'_>,
    view: &BoardView<'_>,
    replies: &mut [Reply],
    notices: &[Notice],
) -> Handled<()> {
    for notice in notices {
        let Some(user) = store::user(ctx.conn, &notice.userid)? else {
            continue;
        };
        let mut news = view.news.clone();
        news.push(notice.text.clone());
        let personal = BoardView {
            game: view.game,
            row: view.row,
            plies: view.plies,
            position: view.position,
            news,
            recent_only: view.recent_only,
            comment: view.comment.clone(),
            occasion: view.occasion,
            whole: view.whole.clone(),
            bodies: Default::default(),
            pictures: Default::default(),
        };
        let drawing = ctx.drawing_of(&user.userid, view.game.name())?;
        for reply in replies
            .iter_mut()
            .filter(|r| user.addresses.contains(&r.to))
        {
            reply.body = if user.unconfirmed.contains(&reply.to) {
                personal.without_comment().body(ctx, drawing)?
            } else {
                personal.body_for(ctx, drawing, &user.userid)?
            };
        }
    }
    Ok(())
}
