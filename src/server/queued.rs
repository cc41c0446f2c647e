//! Queued moves played when their turn comes: right after a ply is
//! applied (by `move`, or by another queued move), in the same
//! transaction. The rulings are in `pending`, where moves are queued.

use super::compose::{BoardView, QUEUED_COMMENT};
use super::loaded::{apply_move, Loaded};
use super::{Ctx, Handled, Reply};
use crate::rules::Game;
use crate::store::{self, PendingKind};

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
    // A queued move is a turn, never a decision the rules ask for (a
    // Shadow reveal): while one waits, queued moves wait too.
    while loaded.row.is_active() && !loaded.position.is_decision() {
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
            }
            Err(e) => notices.push(dropped(format!(
                "{}; it is your turn, so send your move.",
                e.to_string().trim_end_matches('.')
            ))),
        }
    }
    Ok(notices)
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
        };
        let drawing = ctx.drawing_of(&user.userid, view.game.name())?;
        for reply in replies
            .iter_mut()
            .filter(|r| user.addresses.contains(&r.to))
        {
            reply.body = if user.unconfirmed.contains(&reply.to) {
                personal.without_comment().body(ctx, drawing)?
            } else {
                personal.body(ctx, drawing)?
            };
        }
    }
    Ok(())
}
