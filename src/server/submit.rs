//! `submit` and `confirm`: a two-step move. `submit` checks the move and
//! mails the player a preview of it; `confirm` plays it.
//!
//! Rulings (where docs/commands.md is silent):
//!
//! - `submit` checks everything `move` checks (turn, guard, legality) and
//!   mails the player (only) a preview: the board as it would be after the
//!   move, in the player's board size for the game. A newer `submit`
//!   replaces the older one.
//! - `confirm` plays the submitted move through `move` (guarded as the ply
//!   it was submitted for) when the board still stands exactly where it
//!   stood at `submit` (same ply count and same position); otherwise it is
//!   refused and the player submits again. The comment relayed is that of
//!   the `confirm` mail, or the `submit` mail's when the confirm has none.

use super::loaded::load;
use super::play;
use super::preview::{hypothetical_body, preview_subject};
use super::queue::{board_move, relayed_comment, to_act};
use super::seat::{seat, Seated};
use super::sentences::move_refusal;
use super::{Ctx, Handled, Refusal, Reply};
use crate::store::{self, PendingKind, PendingMove};
use game::command::{Credentials, MoveAction};
use rules::Game;

/// `<game> submit <board> <userid> <pw> <move>[#N]`: check the move and
/// mail the player the position it leads to, without playing it.
pub(crate) fn submit(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
    action: &MoveAction,
    guard: Option<u32>,
) -> Handled<Vec<Reply>> {
    let text = board_move(game, number, "submit", action)?;
    let Seated { loaded, user, seat } = seat(ctx, game, number, who, guard)?;
    let next_ply = loaded.played + 1;
    let on_turn = to_act(&loaded);
    if on_turn != seat {
        return Err(Refusal::new(format!(
                "It is {}'s turn on {} board {number}, not yours; to have a move played when your turn comes, use: {} queue {number} {} <password> <move>.",
                loaded.row.players[on_turn.index()],
                game.name(),
                game.name(),
                user.userid
            )).on(game.name(), Some(number)).into());
    }
    let mut after = loaded.position.clone_box();
    let played = after
        .play(text)
        .map_err(|e| Refusal::new(move_refusal(&e)).on(game.name(), Some(number)))?;
    let comment = relayed_comment(ctx, &user, who)?;
    let old = store::set_pending_move(
        ctx.conn,
        &PendingMove {
            game: game.name().to_string(),
            board: number,
            seat,
            kind: PendingKind::Submitted,
            notation: played.notation.clone(),
            guard,
            at_ply: loaded.played,
            position: loaded.position.to_text(),
            comment,
            created_at: ctx.now,
        },
    )?;
    let mut intro = format!(
        "Preview of your move {} on {} board {number}; it is not played yet. To play it, send: {} confirm {number} {} <password>",
        played.notation,
        game.title(),
        game.name(),
        user.userid
    );
    if let Some(old) = old {
        intro.push_str(&format!(
            "\nThis replaces your earlier submitted move {}.",
            old.notation
        ));
    }
    let drawing = ctx.drawing_of(&user.userid, game.name())?;
    let body = hypothetical_body(
        ctx,
        Some(&loaded),
        &[(next_ply, seat, played)],
        after.as_ref(),
        drawing,
        intro,
    )?;
    Ok(vec![Reply {
        to: ctx.answer_to(&user).to_string(),
        subject: preview_subject(game, number),
        body,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture: None,
    }])
}

/// `<game> confirm <board> <userid> <pw>`: play the submitted move, as
/// `move` would, if the board has not changed since it was submitted.
pub(crate) fn confirm_submitted(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
) -> Handled<Vec<Reply>> {
    let loaded = load(ctx, game, number).map_err(|f| f.on_board(game.name(), Some(number)))?;
    let submitted = match loaded.row.seat_of(&who.userid) {
        Some(seat) => store::take_pending_move(
            ctx.conn,
            store::BoardId::new(game.name(), number),
            seat,
            PendingKind::Submitted,
        )?,
        None => None,
    };
    let played_plies = loaded.played;
    match submitted {
        Some(s) if s.at_ply == played_plies && s.position == loaded.position.to_text() => {
            // `move` checks the password, the turn and the move again; a
            // refusal there rolls the removal of the submission back.
            let own_comment = ctx.comment.trim();
            let comment = if own_comment.is_empty() {
                s.comment.as_str()
            } else {
                own_comment
            };
            let ctx = Ctx {
                conn: ctx.conn,
                server: ctx.server,
                now: ctx.now,
                sender: ctx.sender,
                comment,
                line: ctx.line,
                vouched: ctx.vouched,
                session: ctx.session,
                computer_budget: ctx.computer_budget,
                previews: ctx.previews,
            };
            play::act(
                &ctx,
                game,
                number,
                who,
                &MoveAction::Play(s.notation),
                Some(played_plies + 1),
            )
        }
        submitted => {
            // Every refusal below needs the password first.
            let Seated { user, .. } = seat(ctx, game, number, who, None)?;
            let sentence = match submitted {
                None => format!(
                    "You have no submitted move on {} board {number} to confirm; first send: {} submit {number} {} <password> <move>.",
                    game.name(),
                    game.name(),
                    user.userid
                ),
                Some(s) => format!(
                    "Your submitted move {} was checked against the position after ply {}, but {} board {number} has changed since (it now stands after ply {played_plies}); look at the board and submit your move again.",
                    s.notation,
                    s.at_ply,
                    game.name()
                ),
            };
            Err(Refusal::new(sentence).on(game.name(), Some(number)).into())
        }
    }
}
