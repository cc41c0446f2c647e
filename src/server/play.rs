//! Playing on a board: `move` (with the special moves: resign, draw and
//! undo proposals, accept, reject), and the copies of the board mail to
//! its sender.

use super::autoplay;
use super::compose::Occasion;
use super::computer;
use super::ending::finish;
use super::loaded::{replay_all, Loaded};
use super::ply::apply_move;
use super::seat::{seat, Seated};
use super::sentences::{commented, move_refusal};
use super::{Ctx, Failure, Handled, Refusal, Reply};
use crate::store::{self, BoardEnding, BoardStatus, Ply, Proposal};
use game::command::{Credentials, MoveAction};
use rules::{self, Game};

/// Whether `userid` may have text relayed to other players: an account
/// with at least one confirmed address. With `[accounts]
/// confirm_addresses = false` every address is confirmed.
pub(crate) fn confirmed_author(ctx: &Ctx<'_>, userid: &str) -> Handled<bool> {
    Ok(store::user(ctx.conn, userid)?
        .is_some_and(|u| u.signed_off_at.is_none() && u.confirmed_addresses().next().is_some()))
}

/// The copy of a board mail to a sender whose address is not confirmed
/// (a player moving from another address, or anyone who knows the
/// password): the board as it stands, without any text a player wrote
/// (nothing a player wrote goes to an address not confirmed).
fn bare_copy_to_unconfirmed_sender(
    ctx: &Ctx<'_>,
    view: &super::compose::BoardView<'_>,
    replies: &mut [Reply],
) -> Handled<()> {
    let Some(sender) = ctx.sender else {
        return Ok(());
    };
    if store::is_confirmed_address(ctx.conn, sender)? {
        return Ok(());
    }
    let bare = view.without_comment();
    let drawing = ctx.sender_drawing(view.game.name())?;
    for reply in replies.iter_mut().filter(|r| r.to == sender) {
        reply.subject = bare.subject();
        reply.body = bare.body(ctx, drawing)?;
        reply.board = Some(bare.board_mail());
    }
    Ok(())
}

/// The copy for a sender who is none of the board's readers: the board
/// mail as everyone gets it, with nothing personal in it.
fn general_copy_to_sender(
    ctx: &Ctx<'_>,
    view: &super::compose::BoardView<'_>,
    replies: &mut [Reply],
) -> Handled<()> {
    let Some(sender) = ctx.sender else {
        return Ok(());
    };
    let drawing = ctx.sender_drawing(view.game.name())?;
    for reply in replies.iter_mut().filter(|r| r.to == sender) {
        reply.body = view.body(ctx, drawing)?;
    }
    Ok(())
}

/// Ruling: an undo accepted clears both players' conditional moves on the
/// board (the board goes back under the trees' lines); each owner is told
/// in their own mail. A request alone changes nothing on the board, so it
/// leaves the trees alone, and so does a request rejected or lapsed; so
/// does a draw offer (an opponent could otherwise erase a tree for free;
/// a tree answering the offerer's move lets the offer lapse, said in both
/// mails, see `ply::apply_ply`).
fn clear_trees_on_takeback(ctx: &Ctx<'_>, loaded: &Loaded) -> Handled<Vec<autoplay::Notice>> {
    let id = store::BoardId::new(&loaded.row.game, loaded.row.board);
    let mut notices = Vec::new();
    for seat in [rules::Color::White, rules::Color::Black] {
        if store::clear_conditional_tree(ctx.conn, id, seat)? {
            notices.push(autoplay::Notice {
                userid: loaded.row.players[seat.index()].clone(),
                text:
                    "Your conditional moves on this board were cleared, as plies were taken back."
                        .to_string(),
            });
        }
    }
    Ok(notices)
}

/// A sender who is not among the recipients gets a copy of the first mail.
pub(crate) fn copy_to_sender(ctx: &Ctx<'_>, replies: &mut Vec<Reply>) {
    if let Some(sender) = ctx.sender {
        if !replies.iter().any(|r| r.to == sender) {
            if let Some(first) = replies.first() {
                let mut copy = first.clone();
                copy.to = sender.to_string();
                // A copy for the sender never carries the player's reply
                // token (it would let the sender play as them).
                copy.reply_key = None;
                replies.push(copy);
            }
        }
    }
}

/// `<game> move <board> <userid> <pw> <action>[#N]` and `<game> resign`.
pub(crate) fn act(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
    action: &MoveAction,
    guard: Option<u32>,
) -> Handled<Vec<Reply>> {
    let Seated {
        mut loaded,
        user,
        seat,
    } = seat(ctx, game, number, who, guard)?;
    let userid = user.userid;
    // A comment is relayed only from an account with a confirmed address.
    let relayable = confirmed_author(ctx, &userid)?;
    let board = Board {
        ctx,
        game,
        number,
        seat,
    };
    let turn = |news| (news, Vec::new(), Occasion::Turn);
    let (news, notices, occasion) = match action {
        MoveAction::Play(text) => {
            let comment = commented(ctx, None, Some(&who.password))
                .filter(|_| relayable)
                .map(|(_, c)| c)
                .unwrap_or_default();
            let (news, notices) = board.play(&mut loaded, text, comment)?;
            (news, notices, Occasion::Turn)
        }
        MoveAction::Resign => {
            let (news, occasion) = board.resign(&mut loaded)?;
            (news, Vec::new(), occasion)
        }
        MoveAction::Propose | MoveAction::Undo => {
            let kind = match action {
                MoveAction::Undo => Proposal::Undo,
                _ => Proposal::Draw,
            };
            // A proposal leaves the trees alone (see
            // `clear_trees_on_takeback`).
            turn(board.propose(&mut loaded, kind)?)
        }
        MoveAction::Accept | MoveAction::Reject => {
            let accepted = matches!(action, MoveAction::Accept);
            let (news, cleared) = board.answer(&mut loaded, &userid, accepted)?;
            (news, cleared, Occasion::Turn)
        }
        MoveAction::Pass => {
            return Err(board.refuse(format!(
                "{} has no passing move; play a move, or resign.",
                game.title()
            )))
        }
    };
    let mut view = loaded.view(game, news);
    view.occasion = occasion;
    view.comment = commented(ctx, Some(&userid), Some(&who.password)).filter(|_| relayable);
    let mut replies = view.to_players(ctx)?;
    autoplay::tell_players(ctx, &view, &mut replies, &notices)?;
    let reader = ctx
        .sender
        .is_some_and(|s| replies.iter().any(|r| r.to == s));
    copy_to_sender(ctx, &mut replies);
    if !reader {
        // The copy is of a player's own mail: make it the board alone,
        // without anything only that player may read (their notices,
        // their conditional moves).
        general_copy_to_sender(ctx, &view, &mut replies)?;
    }
    bare_copy_to_unconfirmed_sender(ctx, &view, &mut replies)?;
    Ok(replies)
}

/// A board `act` works on, and the seat of the player acting.
struct Board<'c, 'a> {
    ctx: &'c Ctx<'a>,
    game: &'static dyn Game,
    number: u32,
    seat: rules::Color,
}

impl Board<'_, '_> {
    /// A refusal on this board (its drawing goes under the sentence).
    fn refuse(&self, sentence: impl Into<String>) -> Failure {
        Refusal::new(sentence)
            .on(self.game.name(), Some(self.number))
            .into()
    }

    /// `move`: the player's move, then the queued moves and the computer's
    /// answer it lets play. The news and the queued moves' notices.
    fn play(
        &self,
        loaded: &mut Loaded,
        text: &str,
        comment: String,
    ) -> Handled<(Vec<String>, Vec<autoplay::Notice>)> {
        let (ctx, game, number, seat) = (self.ctx, self.game, self.number, self.seat);
        let to_act = loaded.position.to_act();
        if to_act != seat {
            return Err(self.refuse(super::sentences::out_of_turn(
                game,
                number,
                &loaded.row.players[to_act.index()],
                &loaded.row.players[seat.index()],
                text,
            )));
        }
        let mut news = apply_move(ctx, game, loaded, seat, text, comment, false)?
            .map_err(|e| self.refuse(move_refusal(&e)))?;
        let mut notices = autoplay::play_queued(ctx, game, loaded, &mut news)?;
        notices.extend(computer::respond(ctx, game, loaded, &mut news)?);
        Ok((news, notices))
    }

    /// `resign`: the other player wins; before both players have acted the
    /// board is withdrawn instead. The news and the board mail's occasion.
    fn resign(&self, loaded: &mut Loaded) -> Handled<(Vec<String>, Occasion)> {
        let (ctx, game, number, seat) = (self.ctx, self.game, self.number, self.seat);
        let seats = store::seats_that_played(ctx.conn, store::BoardId::new(game.name(), number))?;
        // Ruling: a tournament's board is never withdrawn; a
        // resignation there is one at any ply, rated, and the board stays.
        let in_tournament = store::tournament_of_board(ctx.conn, game.name(), number)?.is_some();
        if !in_tournament
            && ![rules::Color::White, rules::Color::Black]
                .iter()
                .all(|s| seats.contains(s))
        {
            // Resigned before both players had acted: withdrawn,
            // unrated and deleted (docs/commands.md §4); nobody won it.
            store::delete_board(ctx.conn, store::BoardId::new(game.name(), number))?;
            loaded.row.status = BoardStatus::Finished {
                winner_seat: None,
                ending: BoardEnding::Withdrawn,
            };
            loaded.row.finished_at = Some(ctx.now);
            Ok((Vec::new(), Occasion::Withdrawn { seat }))
        } else {
            let news = finish(ctx, loaded, Some(seat.opponent()), BoardEnding::Resignation)?;
            Ok((news, Occasion::Turn))
        }
    }

    /// `draw` or `undo`: propose it (the computer player answers at once).
    fn propose(&self, loaded: &mut Loaded, kind: Proposal) -> Handled<Vec<String>> {
        let (ctx, game, number, seat) = (self.ctx, self.game, self.number, self.seat);
        if let Some((pending, by)) = loaded.row.proposal {
            let what = describe(pending);
            return Err(self.refuse(format!(
                "{} already proposed {what} on this board; answer it with accept or reject first.",
                loaded.row.players[by.index()]
            )));
        }
        let mut news = Vec::new();
        if kind == Proposal::Undo {
            if loaded.played == 0 {
                return Err(
                    self.refuse("No ply has been played yet, so there is nothing to take back.")
                );
            }
            let Some(from) = takeback_from(loaded, seat) else {
                return Err(self.refuse(
                    "You have played no ply on this board, so there is nothing of yours to take back.",
                ));
            };
            news.push(format!(
                "{} asks to take back {}.",
                loaded.row.players[seat.index()],
                plies_named(&loaded.plies[from..])
            ));
        }
        store::set_proposal(
            ctx.conn,
            store::BoardId::new(game.name(), number),
            Some((kind, seat)),
        )?;
        loaded.row.proposal = Some((kind, seat));
        store::touch(ctx.conn, store::BoardId::new(game.name(), number), ctx.now)?;
        loaded.row.last_action_at = ctx.now;
        computer::answer_proposal(ctx, loaded, &mut news)?;
        Ok(news)
    }

    /// `accept` or `reject` the other player's proposal: a draw agreed, or
    /// the asker's plies taken back. The news, and the notices of the
    /// trees an accepted undo cleared.
    fn answer(
        &self,
        loaded: &mut Loaded,
        userid: &str,
        accepted: bool,
    ) -> Handled<(Vec<String>, Vec<autoplay::Notice>)> {
        let (ctx, game, number, seat) = (self.ctx, self.game, self.number, self.seat);
        let Some((kind, by)) = loaded.row.proposal else {
            return Err(
                self.refuse("There is no draw or undo proposal on this board to accept or reject.")
            );
        };
        if by == seat {
            return Err(self.refuse(format!(
                "You made the proposal yourself; the other player must accept or reject {}.",
                describe(kind)
            )));
        }
        store::set_proposal(ctx.conn, store::BoardId::new(game.name(), number), None)?;
        loaded.row.proposal = None;
        let verb = if accepted { "accepts" } else { "rejects" };
        let mut news = vec![format!(
            "{userid} {verb} {}'s proposal of {}.",
            loaded.row.players[by.index()],
            describe(kind)
        )];
        let mut cleared = Vec::new();
        match (accepted, kind) {
            (false, _) => {
                store::touch(ctx.conn, store::BoardId::new(game.name(), number), ctx.now)?;
                loaded.row.last_action_at = ctx.now;
            }
            (true, Proposal::Draw) => {
                let mut changes = finish(ctx, loaded, None, BoardEnding::Agreement)?;
                news.append(&mut changes);
            }
            (true, Proposal::Undo) => {
                cleared = clear_trees_on_takeback(ctx, loaded)?;
                news.extend(self.take_back(loaded, by)?);
            }
        }
        Ok((news, cleared))
    }

    /// An undo accepted: the asking player's last ply and every ply after
    /// it taken back (and the queued moves dropped), the position replayed
    /// and stored.
    fn take_back(&self, loaded: &mut Loaded, by: rules::Color) -> Handled<Option<String>> {
        let (ctx, game, number) = (self.ctx, self.game, self.number);
        let Some(from) = takeback_from(loaded, by) else {
            return Ok(None);
        };
        store::clear_pending_moves(ctx.conn, store::BoardId::new(game.name(), number))?;
        let taken: Vec<Ply> = loaded.plies.split_off(from);
        for _ in &taken {
            store::remove_last_ply(ctx.conn, store::BoardId::new(game.name(), number))?;
        }
        replay_all(ctx, loaded)?;
        store::update_position(
            ctx.conn,
            store::BoardId::new(game.name(), number),
            &loaded.position.to_text(),
            ctx.now,
        )?;
        loaded.row.last_action_at = ctx.now;
        let verb = if taken.len() == 1 { "is" } else { "are" };
        Ok(Some(format!(
            "{} {verb} taken back.",
            capitalized(&plies_named(&taken))
        )))
    }
}

/// Ruling (lichess's takeback): an undo asked for by a player takes back
/// that player's last ply and every ply after it (a conditional move or
/// queued move that answered it too), so a player can always take back
/// their own move. The index in `loaded.plies` where that begins; `None`
/// when the player has no ply there.
fn takeback_from(loaded: &Loaded, seat: rules::Color) -> Option<usize> {
    loaded.plies.iter().rposition(|p| p.seat == seat)
}

/// `ply 15 (c3)` or `plies 14 (O-O) and 15 (c3)`.
fn plies_named(plies: &[Ply]) -> String {
    let named: Vec<String> = plies
        .iter()
        .map(|p| format!("{} ({})", p.ply, p.notation))
        .collect();
    match named.as_slice() {
        [one] => format!("ply {one}"),
        [rest @ .., last] => format!("plies {} and {last}", rest.join(", ")),
        [] => "no ply".to_string(),
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn describe(kind: Proposal) -> &'static str {
    match kind {
        Proposal::Draw => "a draw",
        Proposal::Undo => "taking back plies",
    }
}
