//! Moves that wait: `queue` (played when the player's turn comes),
//! `submit`/`confirm` (a two-step move with a preview), and `preview`
//! (a hypothetical position, nothing stored).
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
//!   in the same transaction (`queued` does it), and the board mails of that ply show both
//!   plies (with a line saying the second was queued). If by then it is
//!   illegal, or its guard names another ply, it is dropped and its player
//!   is told why in one sentence added to their own copy of the board mail
//!   (the others do not see it). The comment sent with `queue` is stored
//!   with the ply and relayed in that mail.
//! - An accepted undo and the end of a game clear every pending move of
//!   the board (queued and submitted, and the conditional moves).
//! - A queued move replaces the player's conditional moves on the board
//!   (issue #26), and the answer says so; `if` replaces a queued move.
//! - `submit` checks everything `move` checks (turn, guard, legality) and
//!   mails the player (only) a preview: the board as it would be after the
//!   move, in the player's board size for the game. A newer `submit`
//!   replaces the older one.
//! - `confirm` plays the submitted move through `move` (guarded as the ply
//!   it was submitted for) when the board still stands exactly where it
//!   stood at `submit` (same ply count and same position); otherwise it is
//!   refused and the player submits again. The comment relayed is that of
//!   the `confirm` mail, or the `submit` mail's when the confirm has none.
//! - `preview` needs no password and may look at any board, finished ones
//!   included (from an earlier ply with `#N`). Its answer goes to the
//!   sender only, with the subject `<Game> Board <n> preview`, the played
//!   plies up to the starting point (the recent ones), the previewed plies,
//!   the board after them and who would act then (or how the game would
//!   end). A move that cannot be played is refused naming its place in the
//!   list, the ply it would be and the rules' reason.
//! - `preview new [-options] [<move>...]` plays the moves from the game's
//!   start position (default options unless given); no board is needed.
//!   Its subject is `<Game> preview`, the sides are named White and Black,
//!   and without moves it shows the start position.
//! - A board replayed to an earlier ply (`preview 604#4150`) is kept for
//!   the rest of the mail ([`Previews`]), so that a `multiple` of previews
//!   from one ply replays the game once, not once per line. Any command
//!   that may change a board forgets them.

use super::compose::{numbered_move_list, RECENT_PLIES};
use super::loaded::{all_plies, load, replay, Loaded};
use super::play;
use super::sentences::{capitalise, commented, move_refusal};
use super::{Ctx, Failure, Handled, Refusal, Reply};
use crate::store::{self, BoardStatus, PendingKind, PendingMove};
use game::command::{Credentials, MoveAction, PreviewFrom};
use game::render::{self, Drawing, MoveRecord};
use rules::{self, Color, Game, MoveError, Played, Position};

/// How many boards replayed to an earlier ply one mail keeps.
const KEPT_PREVIEWS: usize = 4;

/// Boards replayed to an earlier ply for `preview`, kept while one mail's
/// commands only read (the server forgets them at each new mail and
/// before any command that may change a board).
#[derive(Default)]
pub(crate) struct Previews {
    kept: std::sync::Mutex<Vec<Replayed>>,
}

/// A board as it stood after ply `ply`: its recent plies up to it and
/// the position.
struct Replayed {
    game: String,
    board: u32,
    ply: u32,
    plies: Vec<store::Ply>,
    position: Box<dyn Position>,
}

impl std::fmt::Debug for Previews {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Previews")
    }
}

impl Previews {
    /// Forget every replayed board.
    pub(crate) fn forget(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Replayed>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn find(
        &self,
        game: &str,
        board: u32,
        ply: u32,
    ) -> Option<(Vec<store::Ply>, Box<dyn Position>)> {
        self.lock()
            .iter()
            .find(|r| r.game == game && r.board == board && r.ply == ply)
            .map(|r| (r.plies.clone(), r.position.clone_box()))
    }

    fn keep(
        &self,
        game: &str,
        board: u32,
        ply: u32,
        plies: &[store::Ply],
        position: &dyn Position,
    ) {
        let mut kept = self.lock();
        if kept.len() == KEPT_PREVIEWS {
            kept.remove(0);
        }
        kept.push(Replayed {
            game: game.to_string(),
            board,
            ply,
            plies: plies.to_vec(),
            position: position.clone_box(),
        });
    }
}

/// The word that withdraws a queued move: `queue 101 bob pw cancel`.
const CANCEL: &str = "cancel";

/// The board move of `action`, or the refusal of a special move given to
/// `queue` or `submit` (`verb`).
fn board_move<'a>(
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

/// Load a board and check that `who` plays on it and that it is not over.
fn seated(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
) -> Handled<(Loaded, store::User, Color)> {
    let loaded = load(ctx, game, number).map_err(|f| f.on_board(game.name(), Some(number)))?;
    let user = ctx
        .authenticate(who)
        .map_err(|f| f.on_board(game.name(), Some(number)))?;
    let Some(seat) = loaded.row.seat_of(&user.userid) else {
        return Err(Refusal::new(format!(
            "{} does not play on {} board {number}; check the board number.",
            user.userid,
            game.name()
        ))
        .on(game.name(), Some(number))
        .into());
    };
    if let BoardStatus::Finished { .. } = loaded.row.status {
        return Err(Refusal::new(format!(
            "{} board {number} is over; nothing more can be played on it.",
            game.title()
        ))
        .on(game.name(), Some(number))
        .into());
    }
    Ok((loaded, user, seat))
}

/// Whose turn it is on an active board, as a seat.
fn to_act(loaded: &Loaded) -> Color {
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
/// account with a confirmed address (issue #31); else none.
fn relayed_comment(ctx: &Ctx<'_>, user: &store::User, who: &Credentials) -> Handled<String> {
    // Relayed only from an account with a confirmed address (issue #31).
    let relayable = super::play::confirmed_author(ctx, &user.userid)?;
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
    let (loaded, user, seat) = seated(ctx, game, number, who)?;
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
    // A queued move and conditional moves exclude each other (issue #26).
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
        reply_key: None,
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
    let (loaded, user, seat) = seated(ctx, game, number, who)?;
    let next_ply = loaded.played + 1;
    if let Some(n) = guard.filter(|&n| n != next_ply) {
        return Err(Refusal::new(format!(
                "Your command is guarded as ply {n}, but the next ply on {} board {number} is {next_ply}; look at the board and send it again with #{next_ply} if it still fits.",
                game.name()
            )).on(game.name(), Some(number)).into());
    }
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
    }])
}

/// `<game> confirm <board> <userid> <pw>`: play the submitted move, as
/// `move` would, if the board has not changed since it was submitted.
pub(crate) fn confirm(
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
            let (_, user, _) = seated(ctx, game, number, who)?;
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

/// `<game> preview <board>[#N] <move>...`: the position after these moves,
/// to the sender; nothing is stored and no password is needed.
pub(crate) fn preview(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    from: &PreviewFrom,
    moves: &[String],
) -> Handled<Vec<Reply>> {
    let at = match from {
        PreviewFrom::Board(at) => *at,
        PreviewFrom::Start { options } => return preview_new(ctx, game, options, moves),
    };
    let number = at.board;
    let mut loaded = load(ctx, game, number).map_err(|f| f.on_board(game.name(), Some(number)))?;
    if let Some(n) = at.ply {
        if n > loaded.played {
            return Err(Refusal::new(format!(
                "{} board {number} has {} plies so far; preview from #0 to #{} instead of #{n}.",
                game.title(),
                loaded.played,
                loaded.played
            ))
            .on(game.name(), Some(number))
            .into());
        }
        let previews = &ctx.server.previews;
        match previews.find(game.name(), number, n) {
            Some((plies, position)) => {
                loaded.plies = plies;
                loaded.position = position;
            }
            None => {
                let mut plies = all_plies(ctx, &loaded)?;
                plies.truncate(n as usize);
                loaded.position = replay(game, &loaded.row, &plies)?;
                // Only the recent plies are shown, as a load holds them.
                plies.drain(..plies.len().saturating_sub(RECENT_PLIES + 1));
                previews.keep(game.name(), number, n, &plies, loaded.position.as_ref());
                loaded.plies = plies;
            }
        }
        loaded.played = n;
    }
    let mut position = loaded.position.clone_box();
    let previewed = play_preview(position.as_mut(), loaded.played as usize, moves)
        .map_err(|sentence| Refusal::new(sentence).on(game.name(), Some(number)))?;
    let from = match at.ply {
        Some(n) => format!("the position after ply {n}"),
        None => "the position as it stands".to_string(),
    };
    let intro = format!(
        "Preview of {} board {number} from {from}; nothing is played or stored.",
        game.title()
    );
    let drawing = ctx.sender_drawing(game.name())?;
    let body = hypothetical_body(
        ctx,
        Some(&loaded),
        &previewed,
        position.as_ref(),
        drawing,
        intro,
    )?;
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: preview_subject(game, number),
        body,
        reply_key: None,
    }])
}

/// `<game> preview new [-options] [<move>...]`: the moves played from the
/// game's start position under those options; no board is needed, and
/// the sides are named White and Black. Subject `<Game> preview`.
fn preview_new(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    options: &[String],
    moves: &[String],
) -> Handled<Vec<Reply>> {
    let refuse = |sentence: String| Failure::Refused(Refusal::new(sentence).on(game.name(), None));
    let mut position = game
        .start(options)
        .map_err(|e| refuse(capitalise(&e.to_string())))?;
    let previewed = play_preview(position.as_mut(), 0, moves).map_err(refuse)?;
    let with = if options.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = options.iter().map(|o| format!("-{o}")).collect();
        format!(" with {}", list.join(" "))
    };
    let intro = format!(
        "Preview of a new {} board{with} from the start position; nothing is played or stored.",
        game.title()
    );
    let drawing = ctx.sender_drawing(game.name())?;
    let body = hypothetical_body(ctx, None, &previewed, position.as_ref(), drawing, intro)?;
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: format!("{} preview", game.title()),
        body,
        reply_key: None,
    }])
}

/// Play the moves of a preview on `position`, after `played` plies; a move
/// that cannot be played is refused naming its place in the list, the ply
/// it would be and the rules' reason. The words are read as
/// [`play_move_words`] reads them.
fn play_preview(
    position: &mut dyn Position,
    played: usize,
    moves: &[String],
) -> Result<Vec<(u32, Color, Played)>, String> {
    play_move_words(position, played, moves)
}

/// Play a list of moves as `preview` reads it (rulings, issue #23): a
/// game record's move text may be given as it stands, so move numbers
/// (`12.`, `12...`, or glued to a move that does not read with it,
/// `12.Nf3`) and a last word that is a result (`1-0`, `0-1`, `1/2-1/2`,
/// `*`) are skipped; a word that cannot be played alone is played together
/// with the next one when the two are one move (`reveal c4`, split at
/// the space). `played` plies come before the first; the plies played
/// with their numbers and seats, or the sentence that refuses a move,
/// naming its place among the moves, the ply it would be and the rules'
/// reason.
pub fn play_move_words(
    position: &mut dyn Position,
    played: usize,
    moves: &[String],
) -> Result<Vec<(u32, Color, Played)>, String> {
    let mut previewed: Vec<(u32, Color, Played)> = Vec::new();
    let mut i = 0;
    while i < moves.len() {
        let word = moves[i].trim();
        i += 1;
        let last = i == moves.len();
        if is_move_number(word) || (last && is_result(word)) {
            continue;
        }
        let ply = (played + previewed.len()) as u32 + 1;
        let seat = position.to_act();
        let refused = match position.play(word) {
            Ok(p) => {
                previewed.push((ply, seat, p));
                continue;
            }
            Err(e) => e,
        };
        let unnumbered = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let unnumbered = match unnumbered.strip_prefix('.') {
            Some(rest) if unnumbered.len() < word.len() => rest.trim_start_matches('.'),
            _ => "",
        };
        if !unnumbered.is_empty() {
            if let Ok(p) = position.play(unnumbered) {
                previewed.push((ply, seat, p));
                continue;
            }
        }
        if let Some(next) = moves.get(i) {
            if let Ok(p) = position.play(&format!("{word} {}", next.trim())) {
                previewed.push((ply, seat, p));
                i += 1;
                continue;
            }
        }
        return Err(format!(
            "Move {} of your preview ({word}, which would be ply {ply}) cannot be played: {refused}",
            previewed.len() + 1
        ));
    }
    Ok(previewed)
}

/// A move number of a game record: digits then one or three dots.
fn is_move_number(word: &str) -> bool {
    let dots = word.trim_start_matches(|c: char| c.is_ascii_digit());
    dots.len() < word.len() && (dots == "." || dots == "...")
}

/// A game record's result.
fn is_result(word: &str) -> bool {
    matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*")
}

fn preview_subject(game: &'static dyn Game, number: u32) -> String {
    format!("{} Board {number} preview", game.title())
}

/// A preview: `intro`, the recent played plies, the previewed plies, the
/// board after them, and who would act then (or how the game would end).
fn hypothetical_body(
    ctx: &Ctx<'_>,
    board: Option<&Loaded>,
    previewed: &[(u32, Color, Played)],
    position: &dyn Position,
    drawing: Drawing,
    intro: String,
) -> Handled<String> {
    // One list: the played plies (the board's recent ones, numbered as in
    // its whole list), then the previewed ones marked as such.
    let more = previewed
        .iter()
        .map(|(ply, seat, p)| MoveRecord {
            ply: *ply,
            seat: *seat,
            notation: p.notation.clone(),
            mark: "(preview)",
            events: p.events.clone(),
        })
        .collect();
    let (game, number, plies) = board.map_or(("", 0, &[][..]), |b| {
        (b.row.game.as_str(), b.row.board, b.plies.as_slice())
    });
    let list = numbered_move_list(
        ctx,
        game,
        number,
        plies,
        more,
        RECENT_PLIES + previewed.len(),
    )?;
    let players = board.map(|b| b.row.players.as_slice());
    // The players by name on a board, by colour on a new one.
    let name = |seat: Color| match players {
        Some(players) => players[seat.index()].clone(),
        None => seat.name().to_string(),
    };
    let then = match position.outcome() {
        rules::Outcome::Ongoing => format!(
            "After the previewed plies it would be {}'s turn.",
            name(position.to_act())
        ),
        rules::Outcome::Won { winner, ending } => format!(
            "The previewed plies would end the game: won by {} ({ending}).",
            name(winner)
        ),
        rules::Outcome::Drawn { ending } => {
            format!("The previewed plies would end the game: a tie ({ending}).")
        }
    };
    let mut text = intro;
    if !list.is_empty() {
        text.push_str("\n\n");
        text.push_str(list.trim_end());
    }
    text.push_str("\n\n");
    text.push_str(render::board(&position.diagram(), drawing).trim_end());
    text.push_str("\n\n");
    text.push_str(&then);
    Ok(ctx.server.notice_body(&text)?)
}
