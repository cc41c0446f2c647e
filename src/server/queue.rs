//! `queue`: a move played now if it is the player's turn, else stored and
//! played when the turn comes (by `autoplay`, right after the opponent's
//! ply). `submit` shares its first checks ([`board_move`]) and its
//! comment ([`relayed_comment`]). Queued and submitted moves are the
//! store's pending moves (`store::pending`).
//!
//! Rulings (where docs/commands.md is silent):
//!
//! - Only board moves can be queued or submitted. The special moves
//!   (`resign`, `propose`, `undo`, `accept`, `reject`) take effect at once
//!   whoever's turn it is, so queueing or submitting them is refused with a
//!   sentence naming the `move` command to use; `pass` is refused as `move`
//!   refuses it in games without passing.
//! - `queue` when it is the player's turn is exactly `move` (same checks,
//!   same board mails). Out of turn the move is stored privately: only the
//!   player is answered (a board mail with one line saying what is queued),
//!   and the opponent learns of it only when it is played.
//! - One queued move per player and board: a new `queue` replaces the old
//!   one and the answer says so. `queue <board> <userid> <pw> cancel`
//!   withdraws it.
//! - At queue time the move is checked as far as it can be: when it would
//!   be the player's next ply, it must be legal after at least one of the
//!   opponent's possible moves; with a guard further ahead it must at least
//!   be readable. A guard must name a ply after the opponent's next one
//!   (`#N` with N greater than the next ply).
//! - The queued move is played right after the opponent's ply is applied,
//!   in the same transaction (`autoplay` does it), and the board mails of
//!   that ply show both plies (with a line saying the second was queued).
//!   If by then it is
//!   illegal, or its guard names another ply, it is dropped and its player
//!   is told why in one sentence added to their own copy of the board mail
//!   (the others do not see it). The comment sent with `queue` is stored
//!   with the ply and relayed in that mail.
//! - An accepted undo and the end of a game clear every pending move of
//!   the board (queued and submitted, and the conditional moves).
//! - A queued move replaces the player's conditional moves on the board
//!   and the answer says so; `if` replaces a queued move.

use super::loaded::{load, Loaded};
use super::play;
use super::seat::{seat, Seated};
use super::sentences::{capitalise, commented};
use super::{Ctx, Handled, Refusal, Reply};
use crate::store::{self, PendingKind, PendingMove};
use game::command::{Credentials, MoveAction};
use rules::{self, Color, Game, MoveError, Position};

/// The word that withdraws a queued move: `queue 101 bob pw cancel`.
const CANCEL: &str = "cancel";

/// The board move of `action`, or the refusal of a special move given to
/// `queue` or `submit` (`verb`).
pub(super) fn board_move<'a>(
    game: &'static dyn Game,
    number: u32,
    verb: &str,
    action: &'a MoveAction,
) -> Handled<&'a str> {
    let done = if verb.ends_with('e') {
        format!("{verb}d")
    } else {
        format!("{verb}ted")
    };
    let word = match action {
        MoveAction::Play(text) => return Ok(text),
        MoveAction::Resign => "resign",
        MoveAction::Propose => "propose",
        MoveAction::Undo => "undo",
        MoveAction::Accept => "accept",
        MoveAction::Reject => "reject",
        MoveAction::Pass => "pass",
    };
    let sentence = if matches!(action, MoveAction::Pass) {
        format!(
            "{} has no passing move; {verb} a move of the game instead.",
            game.title()
        )
    } else {
        format!(
            "Only board moves can be {done}; {word} takes effect at once whoever's turn it is, so send it with: {} move {number} <userid> <password> {word}.",
            game.name()
        )
    };
    Err(Refusal::new(sentence).on(game.name(), Some(number)).into())
}

/// Whose turn it is on an active board, as a seat.
pub(super) fn to_act(loaded: &Loaded) -> Color {
    loaded.position.to_act()
}

/// `queue <board> <userid> <pw> cancel`: the player's queued move on the
/// board withdrawn.
fn cancel_queued(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    guard: Option<u32>,
    loaded: &Loaded,
    user: &store::User,
    seat: Color,
) -> Handled<Vec<Reply>> {
    let number = loaded.row.board;
    if guard.is_some() {
        return Err(Refusal::new(format!(
            "A cancel needs no ply number; send: {} queue {number} {} <password> cancel.",
            game.name(),
            user.userid
        ))
        .on(game.name(), Some(number))
        .into());
    }
    let Some(old) = store::take_pending_move(
        ctx.conn,
        store::BoardId::new(game.name(), number),
        seat,
        PendingKind::Queued,
    )?
    else {
        return Err(Refusal::new(format!(
            "You have no queued move on {} board {number} to cancel.",
            game.name()
        ))
        .on(game.name(), Some(number))
        .into());
    };
    let line = format!(
        "Your queued move {} on {} board {number} is withdrawn.",
        old.notation,
        game.name()
    );
    private_board_mail(ctx, game, loaded, user, line)
}

/// The comment of the mail, relayed with a pending move only from an
/// account with a confirmed address; else none.
pub(super) fn relayed_comment(
    ctx: &Ctx<'_>,
    user: &store::User,
    who: &Credentials,
) -> Handled<String> {
    let relayable = play::confirmed_author(ctx, &user.userid)?;
    Ok(commented(ctx, None, Some(&who.password))
        .filter(|_| relayable)
        .map(|(_, c)| c)
        .unwrap_or_default())
}

/// `<game> queue <board> <userid> <pw> <move>[#N]`: play now if it is the
/// player's turn, else store it to be played when it is (see the module's
/// rulings).
pub(crate) fn queue(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
    action: &MoveAction,
    guard: Option<u32>,
) -> Handled<Vec<Reply>> {
    let text = board_move(game, number, "queue", action)?;
    let text = text.trim();
    let loaded = load(ctx, game, number).map_err(|f| f.on_board(game.name(), Some(number)))?;
    // In turn it is `move` (which authenticates): only one password check.
    let in_turn = loaded.row.is_active()
        && loaded.row.seat_of(&who.userid) == Some(to_act(&loaded))
        && !text.eq_ignore_ascii_case(CANCEL);
    if in_turn {
        return play::act(ctx, game, number, who, action, guard);
    }
    let Seated { loaded, user, seat } = seat(ctx, game, number, who, None)?;
    if text.eq_ignore_ascii_case(CANCEL) {
        return cancel_queued(ctx, game, guard, &loaded, &user, seat);
    }
    let next_ply = loaded.played + 1;
    let opponent = &loaded.row.players[to_act(&loaded).index()];
    if let Some(n) = guard {
        if n <= next_ply {
            return Err(Refusal::new(format!(
                    "Your queued move is guarded as ply {n}, but ply {next_ply} is {opponent}'s to play, so your next ply is {} at the earliest; guard it as #{} or leave the guard off.",
                    next_ply + 1,
                    next_ply + 1
                )).on(game.name(), Some(number)).into());
        }
    }
    let queuer = seat;
    if let Err(e) = check_queueable(loaded.position.as_ref(), queuer, text, guard, next_ply) {
        let sentence = match e {
            e @ MoveError::Unreadable { .. } => capitalise(&e.to_string()),
            _ => format!(
                "{text} would not be legal after any move {opponent} can make now, so it cannot be queued; check the move, or wait for {opponent}'s move."
            ),
        };
        return Err(Refusal::new(sentence).on(game.name(), Some(number)).into());
    }
    let comment = relayed_comment(ctx, &user, who)?;
    let old = store::set_pending_move(
        ctx.conn,
        &PendingMove {
            game: game.name().to_string(),
            board: number,
            seat,
            kind: PendingKind::Queued,
            notation: text.to_string(),
            guard,
            at_ply: loaded.played,
            position: loaded.position.to_text(),
            comment,
            created_at: ctx.now,
        },
    )?;
    let mut line = queued_line(game, number, text, guard, old, &user.userid);
    // A queued move and conditional moves exclude each other.
    if store::clear_conditional_tree(ctx.conn, store::BoardId::new(game.name(), number), seat)? {
        line.push_str(" This replaces your conditional moves.");
    }
    private_board_mail(ctx, game, &loaded, &user, line)
}

/// Whether `text` could be played by the player who is not to act. As
/// their next ply (no guard, or the guard names it) it must be legal after
/// at least one of the opponent's moves; further ahead it must be readable.
fn check_queueable(
    position: &dyn Position,
    queuer: Color,
    text: &str,
    guard: Option<u32>,
    next_ply: u32,
) -> Result<(), MoveError> {
    if guard.is_some_and(|n| n != next_ply + 1) {
        return match position.clone_box().play(text) {
            Err(e @ MoveError::Unreadable { .. }) => Err(e),
            _ => Ok(()),
        };
    }
    rules::answers::legal_after_some_answer(position, queuer, text)
}

/// A board mail to the player alone, with `line` under the status line.
/// It takes a reply as the player's board mails do (a reply to it is read
/// as a reply to the board).
fn private_board_mail(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    loaded: &Loaded,
    user: &store::User,
    line: String,
) -> Handled<Vec<Reply>> {
    let view = loaded.view(game, vec![line]);
    let drawing = ctx.drawing_of(&user.userid, game.name())?;
    Ok(vec![Reply {
        to: ctx.answer_to(user).to_string(),
        subject: view.subject(),
        body: view.body(ctx, drawing)?,
        reply_key: view.reply_key(ctx, &user.userid)?,
        codes: Vec::new(),
        board: None,
        picture: None,
    }])
}

/// What the player is told of the move `text` queued (replacing `old`).
fn queued_line(
    game: &'static dyn Game,
    number: u32,
    text: &str,
    guard: Option<u32>,
    old: Option<PendingMove>,
    userid: &str,
) -> String {
    let as_ply = guard.map(|n| format!(" as ply {n}")).unwrap_or_default();
    let mut line = format!(
        "Your move {text} is queued on {} board {number}: it is played automatically{as_ply} when your turn comes, if it is legal then.",
        game.name()
    );
    if let Some(old) = old {
        line.push_str(&format!(
            " It replaces your earlier queued move {}.",
            old.notation
        ));
    }
    line.push_str(&format!(
        " To withdraw it, send: {} queue {number} {} <password> cancel.",
        game.name(),
        userid
    ));
    line
}
