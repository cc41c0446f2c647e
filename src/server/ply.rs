//! A ply played on a loaded board: judged by the rules and stored with its
//! position, a pending proposal ended, and the board finished when the
//! ply ends the game.

use super::ending::finish;
use super::loaded::Loaded;
use super::{Ctx, Handled};
use crate::store::{self, BoardEnding, Ply, Proposal};
use rules::{self, Game};

/// Judge and apply a board move of the player in `seat` (whose turn it is)
/// and store it: the ply, the position, the end of a pending proposal and,
/// when the move ends the game, the result. Returns the rating sentences of
/// a finished game, or the rules' refusal (nothing changed then).
/// `from_queue` marks a ply played from the player's queue (listed
/// `(Auto)`).
pub(crate) fn apply_move(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    loaded: &mut Loaded,
    seat: rules::Color,
    text: &str,
    comment: String,
    from_queue: bool,
) -> Handled<Result<Vec<String>, rules::MoveError>> {
    let origin = if from_queue {
        Origin::Queue
    } else {
        Origin::Mail
    };
    apply_ply(ctx, game, loaded, seat, text, comment, origin)
}

/// Where a ply comes from, for its mark in the move list.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A mail of its player.
    Mail,
    /// Their queued move (`(Auto)`).
    Queue,
    /// Their conditional moves (`(Cond)`).
    Tree,
}

/// [`apply_move`], the ply marked as from `origin`.
pub(crate) fn apply_ply(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    loaded: &mut Loaded,
    seat: rules::Color,
    text: &str,
    comment: String,
    origin: Origin,
) -> Handled<Result<Vec<String>, rules::MoveError>> {
    let number = loaded.row.board;
    let before = loaded.position.diagram();
    let played = match loaded.position.play(text) {
        Ok(played) => played,
        Err(e) => return Ok(Err(e)),
    };
    let corrected = game
        .marks_checks()
        .then(|| {
            super::sentences::check_mark_note(
                &loaded.row.players[seat.index()],
                text,
                &played.notation,
            )
        })
        .flatten();
    let ply = Ply {
        ply: loaded.played + 1,
        seat,
        notation: played.notation,
        events: played.events,
        comment,
        played_at: ctx.now,
        auto: origin != Origin::Mail,
        conditional: origin == Origin::Tree,
    };
    let key = loaded.position.position_key();
    store::append_ply(
        ctx.conn,
        store::BoardId::new(game.name(), number),
        &ply,
        Some(key),
    )?;
    // The squares it changed: the last move's mark in pictures.
    store::set_ply_changed(
        ctx.conn,
        store::BoardId::new(game.name(), number),
        ply.ply,
        &super::picture::changed_text(&before, &loaded.position.diagram()),
    )?;
    loaded.played = ply.ply;
    let text = loaded.position.to_text();
    if loaded.position.history_plies() == 0 {
        // Nothing before this ply matters to the rules any more.
        store::set_resume_point(
            ctx.conn,
            store::BoardId::new(game.name(), number),
            ply.ply,
            Some(&text),
        )?;
    }
    loaded.plies.push(ply);
    store::update_position(
        ctx.conn,
        store::BoardId::new(game.name(), number),
        &text,
        ctx.now,
    )?;
    loaded.row.last_action_at = ctx.now;
    let mut news: Vec<String> = corrected.into_iter().collect();
    // Ruling (the ICCF's): a draw offer lasts until the opponent's next
    // move, so the offerer's own move (a move with an offer) keeps it; any
    // other pending proposal ends with the ply. One that ends so, unanswered,
    // is said in both players' mails, so the player whose move (or tree)
    // let it lapse knows it was made.
    if let Some((kind, by)) = loaded.row.proposal {
        if !(kind == Proposal::Draw && by == seat) {
            store::set_proposal(ctx.conn, store::BoardId::new(game.name(), number), None)?;
            loaded.row.proposal = None;
            let what = match kind {
                Proposal::Draw => "draw offer",
                Proposal::Undo => "request to take back a ply",
            };
            let how = if origin == Origin::Tree {
                "conditional move was played"
            } else {
                "move was played"
            };
            news.push(format!(
                "{}'s {what} lapsed unanswered, as {}'s {how}.",
                loaded.row.players[by.index()],
                loaded.row.players[seat.index()]
            ));
        }
    }
    news.extend(match loaded.position.outcome() {
        rules::Outcome::Ongoing => vec![],
        rules::Outcome::Won { winner, ending } => {
            finish(ctx, loaded, Some(winner), BoardEnding::Board(ending))?
        }
        rules::Outcome::Drawn { ending } => finish(ctx, loaded, None, BoardEnding::Board(ending))?,
    });
    Ok(Ok(news))
}
