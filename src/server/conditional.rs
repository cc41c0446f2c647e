//! `if`: conditional moves. The tree itself is
//! `game::conditional` (pure); it is played in `autoplay`, right after each
//! ply, in the transaction of the mail that played the ply.
//!
//! Rulings:
//!
//! - A line is read on a copy of the board as it stands: the words one
//!   ply each, two words together when they are one move only so (Shadow
//!   `reveal c4`; `move` reads it as one text), or the pieces between
//!   commas or semicolons. Each ply must be legal where the line reaches;
//!   the refusal names the ply of the line, the ply of the game it would
//!   be, and the rules' reason as `move` words it (the legal moves
//!   listed); a ply after the first is shown on the board the line reaches
//!   there (`LineRefused`). The plies are kept in the game's own notation,
//!   as the move list writes them.
//! - Whoever must act on each ply is the rules' answer: on the
//!   opponent's turn the line starts with their ply; a pending Shadow
//!   reveal is the ply of whoever must decide it. A line may name it where
//!   it falls, or leave it out: the next ply is then read after the first
//!   choice that allows it, and the tree waits there for the decision,
//!   whatever it is (`game::conditional`'s open step). A tree plays its
//!   owner's plies only (their own reveals when the line names them),
//!   never the opponent's and never an open decision. Where one line names
//!   the opponent's decision and another leaves it open, the named one
//!   wins when that decision is made, the open one follows any other, and
//!   the answer to `if` says so; the owner's own decision named in one
//!   line and open in another is refused as a clash.
//! - On the player's own turn the line's first ply is played at once
//!   through `move` (same checks, same mails); the rest is kept.
//! - `queue` and a tree exclude each other: the later replaces the
//!   earlier, and its answer says so.
//! - An accepted undo clears both players' trees on the board (the board
//!   goes back under the lines), each owner told in their own mail
//!   (`play::clear_trees_on_takeback`); an undo asked for, a draw offer and
//!   their rejection leave them. The end of the game clears them too (with
//!   the pending moves, `store::clear_pending_moves`); a board deleted
//!   takes its trees with it.
//! - The answers to `if` (added, listed, cancelled) go to the player
//!   alone: to the sender when it is one of the player's confirmed
//!   addresses, else to those addresses. A line added or cancelled is
//!   answered with a short note (subject `<Game> Board <n> conditional
//!   moves`) saying what changed and how many lines are held, so that a
//!   `multiple` mail of fifty lines stays within the reply bound; `list`
//!   answers with the board mail, the tree under the move list. The
//!   player's own board mails show their tree there; nobody else's does.
//!   These answers take a reply as a board mail does (see
//!   `Owner::owner_mails`).

use super::loaded::Loaded;
use super::play;
use super::seat::{seat, Seated};
use super::sentences::move_refusal;
use super::{Ctx, Handled, Refusal, Reply};
use crate::limits::{MAX_CONDITIONAL_LINES, MAX_CONDITIONAL_PLIES};
use crate::store::{self, PendingKind};
use game::command::{Conditional, Credentials, MoveAction};
use game::conditional::{Added, Line, Step, Tree};
use rules::{Color, Game, Position};

/// `<game> if <board> <userid> <pw> <moves>|list|cancel [<moves>]`.
pub(crate) fn run(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
    what: &Conditional,
) -> Handled<Vec<Reply>> {
    let Seated { loaded, user, seat } = seat(ctx, game, number, who, None)?;
    let owner = Owner {
        ctx,
        game,
        loaded: &loaded,
        user: &user,
        seat,
    };
    match what {
        Conditional::List => owner.list(),
        Conditional::Cancel(moves) => owner.cancel(moves),
        Conditional::Add(moves) => {
            let line = match read_line(loaded.position.as_ref(), seat, loaded.played, moves) {
                Ok(line) => line,
                Err(refused) => {
                    let mut refusal = Refusal::new(refused.sentence).on(game.name(), Some(number));
                    if let Some(there) = refused.there {
                        let drawing = ctx.drawing_of(&user.userid, game.name())?;
                        refusal = refusal.drawn(game::render::board(&there.diagram(), drawing));
                    }
                    return Err(refusal.into());
                }
            };
            add(ctx, game, who, owner, line)
        }
    }
}

/// A line refused: the sentence, and the position where its ply fails
/// when that is not the board as it stands.
///
/// Ruling: a ply refused deep in a line is shown on the board the line
/// reaches there, drawn as the player's board mails draw it (their size
/// and side, and what the rules show every reader, so nothing of a Shadow
/// Chess board that the board mail would not show), and the sentence says
/// so; a first ply refused is shown on the board now, as `move` shows it.
struct LineRefused {
    sentence: String,
    there: Option<Box<dyn Position>>,
}

impl LineRefused {
    fn new(sentence: String) -> LineRefused {
        LineRefused {
            sentence,
            there: None,
        }
    }
}

/// Read a line's moves on a copy of `position` (after `played` plies) for
/// the player in `owner`: the plies in the game's notation, or the
/// sentence that refuses the line (see the module's rulings).
fn read_line(
    position: &dyn Position,
    owner: Color,
    played: u32,
    moves: &[String],
) -> Result<Line, LineRefused> {
    // Each ply is a word at least; more words than twice the bound are
    // refused before any is read.
    if moves.len() > 2 * MAX_CONDITIONAL_PLIES {
        return Err(LineRefused::new(too_long(moves.len())));
    }
    let mut position = position.clone_box();
    let mut line = Vec::new();
    let mut i = 0;
    while i < moves.len() {
        let word = moves[i].trim();
        let next = moves.get(i + 1).map(|n| n.trim());
        let mine = position.to_act() == owner;
        let refused = match play_words(position.as_mut(), word, next) {
            Ok((notation, used)) => {
                line.push(Step::new(notation, mine));
                i += used;
                continue;
            }
            Err(e) => e,
        };
        // A decision the line leaves open: the next ply must be playable
        // after one of its choices (the first that allows it is followed).
        if position.is_decision() {
            let open = position.legal_actions().into_iter().find_map(|choice| {
                let mut after = position.clone_box();
                after.play(&choice).ok()?;
                let to_act = after.to_act();
                let played = play_words(after.as_mut(), word, next).ok()?;
                Some((after, to_act, played))
            });
            if let Some((after, to_act, (notation, used))) = open {
                line.push(Step::any_decision(mine));
                line.push(Step::new(notation, to_act == owner));
                position = after;
                i += used;
                continue;
            }
        }
        let mut sentence = format!(
            "Ply {} of your line, {word} (which would be ply {} of the game), cannot be played there: {}",
            line.len() + 1,
            played as usize + line.len() + 1,
            move_refusal(&refused)
        );
        if line.is_empty() {
            return Err(LineRefused::new(sentence));
        }
        sentence.push_str(&format!(
            " The board below is as your line leaves it after {}.",
            written(&line)
        ));
        return Err(LineRefused {
            sentence,
            there: Some(position),
        });
    }
    if line.len() > MAX_CONDITIONAL_PLIES {
        return Err(LineRefused::new(too_long(line.len())));
    }
    Ok(line)
}

/// A line's plies in the game's notation, one space apart (an open
/// decision as `(decision)`).
fn written(line: &[Step]) -> String {
    let plies: Vec<&str> = line.iter().map(|s| s.notation.as_str()).collect();
    plies.join(" ")
}

/// Play `word` on `position`, or `word` and `next` as one move (`reveal
/// c4`); the notation played and how many words it took.
fn play_words(
    position: &mut dyn Position,
    word: &str,
    next: Option<&str>,
) -> Result<(String, usize), rules::MoveError> {
    let refused = match position.play(word) {
        Ok(p) => return Ok((p.notation, 1)),
        Err(e) => e,
    };
    if let Some(next) = next {
        if let Ok(p) = position.play(&format!("{word} {next}")) {
            return Ok((p.notation, 2));
        }
    }
    Err(refused)
}

fn too_long(plies: usize) -> String {
    game::conditional::Refused::TooLong {
        plies,
        max: MAX_CONDITIONAL_PLIES,
    }
    .to_string()
}

/// The player's tree on the board as it stands: a tree stored for
/// another ply than the next (none should be) counts as none.
fn current_tree(ctx: &Ctx<'_>, loaded: &Loaded, seat: Color) -> Handled<Tree> {
    let id = store::BoardId::new(&loaded.row.game, loaded.row.board);
    Ok(store::conditional_tree(ctx.conn, id, seat)?
        .filter(|(from, _)| *from == loaded.played)
        .map(|(_, tree)| tree)
        .unwrap_or_default())
}

/// Add `line` to the player's tree; on their own turn its first ply is
/// played at once, through `move`.
fn add(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    who: &Credentials,
    owner: Owner<'_, '_>,
    line: Line,
) -> Handled<Vec<Reply>> {
    let (loaded, seat) = (owner.loaded, owner.seat);
    let number = loaded.row.board;
    let id = store::BoardId::new(game.name(), number);
    let mut tree = current_tree(ctx, loaded, seat)?;
    let written = written(&line);
    // An open decision of the player's own is theirs to send: the line
    // then waits for it, as on the opponent's turn.
    let first = line
        .first()
        .filter(|s| s.mine && !s.is_open())
        .map(|s| s.notation.clone());
    let overlap = tree.overlap(&line);
    let added = tree
        .add(line, MAX_CONDITIONAL_PLIES, MAX_CONDITIONAL_LINES)
        .map_err(|e| Refusal::new(e.to_string()).on(game.name(), Some(number)))?;
    let queued = store::take_pending_move(ctx.conn, id, seat, PendingKind::Queued)?;
    store::set_conditional_tree(ctx.conn, id, seat, loaded.played, &tree)?;
    if let Some(first) = first {
        // The player's own turn (or own decision): played as `move` plays
        // it; the tree follows the ply in `autoplay`.
        return play::act(ctx, game, number, who, &MoveAction::Play(first), None);
    }
    let mut news = match added {
        Added::New | Added::Extended => format!(
            "Your conditional line {written} is added on {} board {number}.",
            game.name()
        ),
        Added::Held => format!(
            "Your conditional moves on {} board {number} hold the line {written} already.",
            game.name()
        ),
    };
    if let Some((after, named)) = overlap {
        news.push_str(&format!(
            " After {}, {named} follows your line that names it, and any other decision your line that leaves it open.",
            after.join(" ")
        ));
    }
    if let Some(q) = queued {
        news.push_str(&format!(" This replaces your queued move {}.", q.notation));
    }
    news.push_str(&format!(
        " You hold {} there; to see them, send: {} if {number} {} <password> list",
        super::sentences::counted(tree.lines().len() as u32, "line", "lines"),
        game.name(),
        owner.user.userid
    ));
    owner.note(&news)
}

/// A player's tree on one board, and their mails about it.
#[derive(Clone, Copy)]
struct Owner<'c, 'a> {
    ctx: &'c Ctx<'a>,
    game: &'static dyn Game,
    loaded: &'c Loaded,
    user: &'c store::User,
    seat: Color,
}

impl Owner<'_, '_> {
    /// `if ... list`: the tree, to its owner alone.
    fn list(&self) -> Handled<Vec<Reply>> {
        let tree = current_tree(self.ctx, self.loaded, self.seat)?;
        let number = self.loaded.row.board;
        let news = if tree.is_empty() {
            format!(
                "You hold no conditional moves on {} board {number}.",
                self.game.name()
            )
        } else {
            // The board mail draws the tree under the move list: once.
            let n = tree.lines().len();
            let lines = if n == 1 { "line" } else { "lines" };
            format!(
                "You hold {n} conditional {lines} on {} board {number}, drawn under the move list.",
                self.game.name()
            )
        };
        self.mail(news)
    }

    /// `if ... cancel [<moves>]`: all lines, or those that begin with the
    /// moves (read on the board as a line is).
    fn cancel(&self, moves: &[String]) -> Handled<Vec<Reply>> {
        let (ctx, game, loaded, seat) = (self.ctx, self.game, self.loaded, self.seat);
        let number = loaded.row.board;
        let id = store::BoardId::new(game.name(), number);
        let refuse = |sentence: String| -> super::Failure {
            Refusal::new(sentence).on(game.name(), Some(number)).into()
        };
        let mut tree = current_tree(ctx, loaded, seat)?;
        if tree.is_empty() {
            return Err(refuse(format!(
                "You hold no conditional moves on {} board {number} to cancel.",
                game.name()
            )));
        }
        let position = loaded.position.as_ref();
        let beginning: Vec<String> = match read_line(position, seat, loaded.played, moves) {
            Ok(line) => line.into_iter().map(|s| s.notation).collect(),
            // Not playable here, so no line of the tree begins with it.
            Err(_) => moves.to_vec(),
        };
        if tree.cancel(&beginning) == 0 {
            return Err(refuse(format!(
                "None of your conditional lines on {} board {number} begins with {}; send {} if {number} {} <password> list to see them.",
                game.name(),
                beginning.join(" "),
                game.name(),
                self.user.userid
            )));
        }
        store::set_conditional_tree(ctx.conn, id, seat, loaded.played, &tree)?;
        let news = if beginning.is_empty() || tree.is_empty() {
            format!(
                "Your conditional moves on {} board {number} are cancelled.",
                game.name()
            )
        } else {
            format!(
                "Your conditional lines beginning {} on {} board {number} are cancelled.",
                beginning.join(" "),
                game.name()
            )
        };
        self.note(&news)
    }

    /// A short answer to the player alone (no board: a `multiple` mail of
    /// fifty lines stays within the reply bound).
    fn note(&self, text: &str) -> Handled<Vec<Reply>> {
        let subject = format!(
            "{} Board {} conditional moves",
            self.game.title(),
            self.loaded.row.board
        );
        let body = self.ctx.server.notice_body(text)?;
        self.owner_mails(subject, body)
    }

    /// The mails to the player alone: to the sender when it is one of
    /// their confirmed addresses, else to those addresses.
    ///
    /// Ruling: they take a reply as the player's board mails do (same
    /// token, same `#N` guard, unless the player set `noreply`): a reply to
    /// the answer to `if` is read as a reply to the board, so another line
    /// (`if c5 Nc3`), `if list`, a queued move or a move may follow by
    /// reply.
    fn owner_mails(&self, subject: String, body: String) -> Handled<Vec<Reply>> {
        let user = self.user;
        let key = self
            .loaded
            .view(self.game, vec![])
            .reply_key(self.ctx, &user.userid)?;
        let own = self.ctx.sender.filter(|s| {
            user.confirmed_addresses()
                .any(|a| a.eq_ignore_ascii_case(s))
        });
        let mut mails = match own {
            Some(sender) => vec![Reply {
                to: sender.to_string(),
                subject,
                body,
                reply_key: None,
                codes: Vec::new(),
                board: None,
                picture: None,
            }],
            None => Reply::to_user(user, &subject, &body),
        };
        for mail in &mut mails {
            mail.reply_key = key.clone();
        }
        Ok(mails)
    }

    /// A board mail to the player alone with `news` under the status line
    /// (and their tree under the move list).
    fn mail(&self, news: String) -> Handled<Vec<Reply>> {
        let (ctx, user) = (self.ctx, self.user);
        let view = self.loaded.view(self.game, vec![news]);
        let drawing = ctx.drawing_of(&user.userid, self.game.name())?;
        let body = view.body_for(ctx, drawing, &user.userid)?;
        self.owner_mails(view.subject(), body)
    }
}
