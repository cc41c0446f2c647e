//! Board mails: the subject and the body in pbmserv's order (docs/commands.md §5).

use std::cell::{OnceCell, RefCell};

use chrono::{DateTime, Duration, Utc};
use minijinja::context;

use super::record::{every_ply, game_record, record};
use super::{BoardMail, Ctx, Handled, Reply, ReplyKey};
use crate::store::{self, BoardEnding, BoardStatus, Ply, Proposal};
use game::ratings;
use game::render::{Drawing, MoveRecord};
use rules::{Color, Game, Position};

/// Plies shown in a turn mail; show and final mails list them all.
pub(crate) const RECENT_PLIES: usize = 10;

/// The whole score of a turn mail takes at most this share of `[limits]
/// max_reply_bytes` (see [`whole_score`]).
const SCORE_SHARE: usize = 8;

/// The whole move list `list` of a turn mail, within `budget` bytes.
/// Ruling: postal and ICCF players keep the whole score, so a turn mail
/// shows it all (`set … moves all`, the default, whatever the drawing:
/// small or large, a player's score is the same), with the events under
/// the last five moves only (the show and end-of-game mails have them
/// all), up to an eighth of
/// `[limits] max_reply_bytes` (8 KiB by default: some 300 moves of
/// chess), which keeps the mail, and a `multiple` answer joining a few,
/// under that limit; a longer score shows its first moves, a line `...`,
/// and its last moves, half the bound each, never cutting a move's line
/// from the event lines under it.
pub(crate) fn whole_score(list: &str, budget: usize) -> String {
    // A move's numbered line and the event lines under it stay together.
    let mut entries: Vec<String> = Vec::new();
    for line in list.lines() {
        let numbered = line
            .trim_start()
            .split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        match entries.last_mut() {
            Some(entry) if !numbered => {
                entry.push('\n');
                entry.push_str(line);
            }
            _ => entries.push(line.to_string()),
        }
    }
    let size = |e: &[String]| e.iter().map(|l| l.len() + 1).sum::<usize>();
    if size(&entries) <= budget {
        return list.to_string();
    }
    let half = budget / 2;
    let mut head = 0;
    while head < entries.len() && size(&entries[..=head]) <= half {
        head += 1;
    }
    let mut tail = entries.len();
    while tail > head && size(&entries[tail - 1..]) <= half {
        tail -= 1;
    }
    let mut shown: Vec<&str> = entries[..head].iter().map(String::as_str).collect();
    shown.push("...");
    shown.extend(entries[tail..].iter().map(String::as_str));
    shown.join("\n")
}

/// Why a board mail is sent; it decides the subject's prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Occasion {
    /// A turn played, or the board asked for: `Chess Board 101 bob`.
    Turn,
    /// A board just started: `New Chess Board 102 alice`.
    New,
    /// A reminder: `Nag: Chess Board 105 dave`.
    Nag,
    /// The board as it stood after an earlier ply (`show 102#5`), out of
    /// how many played by now: `Chess Board 102 after ply 5 (historic)`.
    Historic { ply: u32, of: usize },
    /// A board resigned by the player in `seat` before both players had
    /// moved: deleted, unrated, won by nobody (docs/commands.md §4):
    /// `Chess Board 101 withdrawn`.
    Withdrawn { seat: Color },
}

/// A board in a state worth mailing.
pub(crate) struct BoardView<'a> {
    pub game: &'static dyn Game,
    pub row: &'a store::BoardRow,
    pub plies: &'a [Ply],
    pub position: &'a dyn Position,
    /// Lines after the status line: rating changes, or what just happened.
    pub news: Vec<String>,
    /// Only the last plies (turn mails) or all of them.
    pub recent_only: bool,
    /// Who commented, and what (relayed to everyone).
    pub comment: Option<(String, String)>,
    pub occasion: Occasion,
    /// Every ply of the board, once read (see [`BoardView::every_ply`]).
    pub whole: OnceCell<Vec<Ply>>,
    /// Bodies rendered so far, by drawing and score (whole or not): the
    /// readers who draw the board alike (both players, most often) share
    /// one rendering.
    pub bodies: RefCell<Vec<(Drawing, bool, String)>>,
    /// Pictures drawn so far, by side (`from_black`; see `picture`).
    pub pictures: RefCell<Vec<(bool, Option<crate::mail::picture::Png>)>>,
}

/// The move list of `plies` (a board's last plies, its last one last,
/// or all of them) and then `more` (previewed plies), showing the lines of
/// the last `recent` of them, numbered as in the whole game's list (a seat
/// that acts twice opens a line of its own, so a move's number depends on
/// every ply before it): when the first ply is not the game's first, from
/// where its line stands in the whole list (`store::move_line_of`). First
/// plies that finish a line whose start is not in `plies` are left out
/// (callers hold a ply to spare).
pub(crate) fn numbered_move_list(
    ctx: &Ctx<'_>,
    game: &str,
    board: u32,
    plies: &[Ply],
    more: Vec<MoveRecord>,
    recent: usize,
) -> Handled<String> {
    let (lines_before, white_open) = match plies.first() {
        Some(first) if first.ply > 1 => {
            store::move_line_of(ctx.conn, store::BoardId::new(game, board), first.ply)?
        }
        _ => (0, false),
    };
    let mut records: Vec<MoveRecord> = plies.iter().map(record).collect();
    records.extend(more);
    Ok(game::render::move_list_after(
        &records,
        Some(recent),
        lines_before,
        white_open,
    ))
}

/// `White` or `Black` for a seat.
pub(crate) fn colour(seat: Color) -> &'static str {
    if seat == Color::White {
        "White"
    } else {
        "Black"
    }
}

/// A time as the clock block writes it.
fn at(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A duration in days with one decimal (`3.5 days`).
pub(crate) fn days(d: Duration) -> String {
    let tenths = (d.num_minutes().max(0) as f64 / 144.0).round() / 10.0;
    if tenths == 1.0 {
        "1 day".to_string()
    } else {
        format!("{tenths:.1} days")
    }
}

impl<'a> BoardView<'a> {
    /// The same view without the comment (nor a queued move's), for
    /// addresses not yet confirmed (they get nothing a player wrote). What
    /// is left out is said, with how to confirm (see
    /// [`super::sentences::held_back_comments`]).
    pub(super) fn without_comment(&self) -> BoardView<'a> {
        let (kept, dropped): (Vec<String>, Vec<String>) = self
            .news
            .iter()
            .cloned()
            .partition(|l| !l.contains(QUEUED_COMMENT));
        let mut authors: Vec<String> = self.comment.iter().map(|(who, _)| who.clone()).collect();
        for line in &dropped {
            if let Some((who, _)) = line.split_once(QUEUED_COMMENT) {
                authors.push(who.to_string());
            }
        }
        let mut news = kept;
        news.extend(super::sentences::held_back_comments(&authors));
        BoardView {
            game: self.game,
            row: self.row,
            plies: self.plies,
            position: self.position,
            news,
            recent_only: self.recent_only,
            comment: None,
            occasion: self.occasion,
            whole: self.whole.clone(),
            bodies: RefCell::default(),
            pictures: RefCell::default(),
        }
    }

    /// What a mail of this view says about its board, for saying it once
    /// (see `once`).
    pub(super) fn board_mail(&self) -> BoardMail {
        BoardMail {
            game: self.game.name().to_string(),
            board: self.row.board,
            news: self.news.clone(),
            refused: None,
        }
    }

    /// The player to act on an active board.
    fn to_act(&self) -> &str {
        &self.row.players[self.position.to_act().index()]
    }

    /// `Chess Board 101 bob`: the player to act, or `finished`; ` **`
    /// when a comment is attached; `New `/`Nag: ` before it for a new
    /// board or a reminder; a historic view says so.
    pub(super) fn subject(&self) -> String {
        let stars = if self.comment.is_some() { " **" } else { "" };
        let title = self.game.title();
        let number = self.row.board;
        if let Occasion::Historic { ply, .. } = self.occasion {
            return format!("{title} Board {number} after ply {ply} (historic)");
        }
        let who = match (&self.row.status, self.occasion) {
            (_, Occasion::Withdrawn { .. }) => "withdrawn",
            (BoardStatus::Active, _) => self.to_act(),
            (BoardStatus::Finished { .. }, _) => "finished",
        };
        let prefix = match self.occasion {
            Occasion::New => "New ",
            Occasion::Nag => "Nag: ",
            _ => "",
        };
        format!("{prefix}{title} Board {number} {who}{stars}")
    }

    /// `It is bob's turn.` / `Game won by alice (checkmate).` / `Game was a tie (stalemate).`
    pub(super) fn status(&self) -> String {
        if let Occasion::Historic { ply, of } = self.occasion {
            let then = if self.position.outcome() == rules::Outcome::Ongoing {
                format!(" {} was to act then.", self.to_act())
            } else {
                String::new()
            };
            return format!(
                "Historic view: {} Board {} as it stood after ply {ply} of {of}.{then} Send \"{} show {}\" for the board now.",
                self.game.title(),
                self.row.board,
                self.game.name(),
                self.row.board
            );
        }
        if let Occasion::Withdrawn { seat } = self.occasion {
            return format!(
                "{} Board {} is withdrawn: {} resigned before both players had moved, so the game is not rated and the board is deleted.",
                self.game.title(),
                self.row.board,
                self.row.players[seat.index()]
            );
        }
        match &self.row.status {
            BoardStatus::Active => {
                let to_act = self.to_act();
                let mut line = if self.position.is_decision() {
                    format!("It is {to_act}'s decision (see below the board).")
                } else {
                    format!("It is {to_act}'s turn.")
                };
                if let Some((proposal, seat)) = self.row.proposal {
                    let by = &self.row.players[seat.index()];
                    let what = match proposal {
                        Proposal::Draw => "a draw",
                        Proposal::Undo => "to take back the last ply",
                    };
                    let others: Vec<&str> = self
                        .row
                        .players
                        .iter()
                        .enumerate()
                        .filter(|(s, _)| *s != seat.index())
                        .map(|(_, p)| p.as_str())
                        .collect();
                    line.push_str(&format!(
                        " {by} proposes {what}; {} may answer with the move accept or reject.",
                        others.join(" and ")
                    ));
                }
                line
            }
            BoardStatus::Finished {
                winner_seat: Some(seat),
                ending,
            } => format!("Game won by {} ({ending}).", self.row.players[seat.index()]),
            BoardStatus::Finished {
                winner_seat: None,
                ending: ending @ BoardEnding::AnnulledInTournament { .. },
            } => format!("Game {ending}."),
            BoardStatus::Finished {
                winner_seat: None,
                ending,
            } => format!("Game was a tie ({ending})."),
        }
    }

    /// `Chess Board 101: alice (White, 1616) against bob (Black, 1584, provisional)`,
    /// and the game's options when it has any; a tournament's board says
    /// `Chess Board 101, tournament spring, round 2: ...`.
    fn header(&self, ctx: &Ctx<'_>) -> Handled<String> {
        let mut sides = Vec::new();
        for (seat, userid) in [Color::White, Color::Black]
            .into_iter()
            .zip(&self.row.players)
        {
            let rating = store::rating(ctx.conn, self.game.name(), userid)?;
            let (points, games) =
                rating.map_or((ratings::START_RATING, 0), |r| (r.rating, r.games));
            let provisional = if games < ratings::PROVISIONAL_GAMES {
                ", provisional"
            } else {
                ""
            };
            sides.push(format!(
                "{userid} ({}, {points}{provisional})",
                colour(seat)
            ));
        }
        // A tournament board names its tournament and round.
        let event = store::tournament_of_board(ctx.conn, self.game.name(), self.row.board)?
            .map(|t| format!(", tournament {}, round {}", t.name, t.round))
            .unwrap_or_default();
        let mut header = format!(
            "{} Board {}{event}: {}",
            self.game.title(),
            self.row.board,
            sides.join(" against ")
        );
        if !self.row.options.is_empty() {
            header.push_str(&format!("\nOptions: {}", self.row.options.join(" ")));
        }
        Ok(header)
    }

    /// Every ply of the board: the view's own when it holds them all, else
    /// read from the store once for all the mails of the view (a loaded
    /// board holds only its recent plies, see `Loaded`).
    fn every_ply(&self, ctx: &Ctx<'_>) -> Handled<&[Ply]> {
        if let Some(whole) = self.whole.get() {
            return Ok(whole);
        }
        match every_ply(ctx, self.game.name(), self.row.board, self.plies)? {
            Some(whole) => Ok(self.whole.get_or_init(|| whole)),
            None => Ok(self.plies),
        }
    }

    /// The move list: in an active board's turn mail the whole score,
    /// bounded (see [`whole_score`]), or for a reader who asked for the
    /// last moves (`set … moves last`, not `whole`) the recent plies
    /// (numbered as in the whole list, see [`numbered_move_list`]); else
    /// every ply.
    fn moves(&self, ctx: &Ctx<'_>, whole: bool) -> Handled<String> {
        let (game, board) = (self.game.name(), self.row.board);
        if self.recent_only && self.row.is_active() && !whole {
            numbered_move_list(ctx, game, board, self.plies, vec![], RECENT_PLIES)
        } else if self.recent_only && self.row.is_active() {
            let mut records: Vec<MoveRecord> = self.every_ply(ctx)?.iter().map(record).collect();
            // What happened with a move (a capture's reveal, a duplicate's
            // counters) is said under the recent moves only: the earlier
            // ones' was said in their own mails, and a score of 60 moves
            // stays a page (see `whole_score`).
            let recent = records.len().saturating_sub(RECENT_PLIES);
            for older in &mut records[..recent] {
                older.events.clear();
            }
            let budget = ctx.server.config.limits.max_reply_bytes / SCORE_SHARE;
            Ok(whole_score(
                &game::render::move_list(&records, None),
                budget,
            ))
        } else {
            let records: Vec<MoveRecord> = self.every_ply(ctx)?.iter().map(record).collect();
            Ok(game::render::move_list(&records, None))
        }
    }

    /// When the board started and its last action (or its end), and with a
    /// total time limit, the time each player has used.
    fn clock(&self, ctx: &Ctx<'_>) -> Handled<String> {
        if let Occasion::Historic { ply, .. } = self.occasion {
            let when = self
                .plies
                .last()
                .map_or(self.row.created_at, |p| p.played_at);
            return Ok(format!(
                "Started {}. Ply {ply} was played {}.",
                self.row.created_at.format("%Y-%m-%d"),
                at(when)
            ));
        }
        let started = self.row.created_at.format("%Y-%m-%d");
        let mut clock = match &self.row.status {
            BoardStatus::Active => {
                format!(
                    "Started {started}. Last action {}.",
                    at(self.row.last_action_at)
                )
            }
            BoardStatus::Finished { .. } => format!(
                "Started {started}. Ended {}.",
                at(self.row.finished_at.unwrap_or(self.row.last_action_at))
            ),
        };
        if let Some(total) = self.row.total_days {
            // Time used sums every turn of the game.
            let plies = self.every_ply(ctx)?;
            let used: Vec<String> = [Color::White, Color::Black]
                .into_iter()
                .map(|seat| {
                    Ok(format!(
                        "{} {}",
                        self.row.players[seat.index()],
                        days(time_used(
                            ctx,
                            self.row,
                            plies,
                            seat,
                            self.position.to_act()
                        )?)
                    ))
                })
                .collect::<Handled<_>>()?;
            clock.push_str(&format!(
                "\nTime used of the {total} days each: {}.",
                used.join(", ")
            ));
        }
        Ok(clock)
    }

    /// The game record of a finished game (its end-of-game mail and its
    /// board when shown carry it); none for an active, historic or
    /// withdrawn board.
    fn record(&self, ctx: &Ctx<'_>) -> Handled<Option<String>> {
        if self.row.is_active() || self.occasion != Occasion::Turn {
            return Ok(None);
        }
        let text = game_record(ctx, self.game, self.row, self.every_ply(ctx)?)?;
        Ok(Some(text.trim_end().to_string()))
    }

    /// The body as drawn for one reader, with the whole score (the
    /// default: see [`BoardView::body_for`] for a reader's own choice).
    pub(super) fn body(&self, ctx: &Ctx<'_>, drawing: Drawing) -> Handled<String> {
        self.body_scored(ctx, drawing, true)
    }

    /// [`BoardView::body`], with the whole score or the last moves.
    fn body_scored(&self, ctx: &Ctx<'_>, drawing: Drawing, whole: bool) -> Handled<String> {
        let cached = self
            .bodies
            .borrow()
            .iter()
            .find(|(d, w, _)| *d == drawing && *w == whole)
            .map(|(_, _, body)| body.clone());
        if let Some(body) = cached {
            return Ok(body);
        }
        let body = self.render_body(ctx, drawing, None, whole)?;
        self.bodies
            .borrow_mut()
            .push((drawing, whole, body.clone()));
        Ok(body)
    }

    /// The body for `userid` alone: [`BoardView::body`], with their
    /// conditional moves on this board under the move list when they hold
    /// some (only the owner's own mails show a tree, never the opponent's
    /// or an observer's, nor a copy to another address).
    pub(super) fn body_for(
        &self,
        ctx: &Ctx<'_>,
        drawing: Drawing,
        userid: &str,
    ) -> Handled<String> {
        let whole = !store::last_moves_only(ctx.conn, userid)?;
        match self.conditional_of(ctx, userid)? {
            Some(tree) => self.render_body(ctx, drawing, Some(tree), whole),
            None => self.body_scored(ctx, drawing, whole),
        }
    }

    /// The conditional moves `userid` holds on this active board, drawn
    /// (see [`conditional_text`]); none on a historic view.
    fn conditional_of(&self, ctx: &Ctx<'_>, userid: &str) -> Handled<Option<String>> {
        let current = matches!(
            self.occasion,
            Occasion::Turn | Occasion::New | Occasion::Nag
        );
        let Some(seat) = self
            .row
            .seat_of(userid)
            .filter(|_| current && self.row.is_active())
        else {
            return Ok(None);
        };
        let id = store::BoardId::new(self.game.name(), self.row.board);
        store::conditional_tree(ctx.conn, id, seat)?
            .filter(|(_, tree)| !tree.is_empty())
            .map(|(from, tree)| conditional_text(ctx, id, seat, from, &tree))
            .transpose()
    }

    fn render_body(
        &self,
        ctx: &Ctx<'_>,
        drawing: Drawing,
        conditional: Option<String>,
        whole: bool,
    ) -> Handled<String> {
        let board = game::render::board(&self.position.diagram(), drawing);
        let board = board.trim_end();
        let (commenter, comment) = match &self.comment {
            Some((who, text)) => (who.as_str(), text.as_str()),
            None => ("", ""),
        };
        // Only boards the computer plays have a level.
        let computer = store::computer_level(
            ctx.conn,
            store::BoardId::new(self.game.name(), self.row.board),
        )?
        .map(|level| {
            let userid = &ctx.server.config.computer.userid;
            format!("{userid} is the computer player, at level {level} of 5.")
        });
        Ok(ctx.server.templates.render(
            "board.txt",
            context! {
                status => self.status(),
                computer => computer,
                rating_changes => &self.news,
                header => self.header(ctx)?,
                moves => self.moves(ctx, whole)?.trim_end(),
                conditional => conditional,
                board => board,
                observers => store::observers(ctx.conn, store::BoardId::new(self.game.name(), self.row.board))?,
                commenter => commenter,
                comment => comment,
                clock => self.clock(ctx)?,
                record => self.record(ctx)?,
            },
        )?)
    }

    /// One mail to each address of each player and each observer (and, once
    /// the game is over, of each who asked for its result), drawn as each
    /// reader asked. Signed-off users get no more mail.
    pub(super) fn to_players(&self, ctx: &Ctx<'_>) -> Handled<Vec<Reply>> {
        let mut readers = self.row.players.to_vec();
        let mut others = store::observers(
            ctx.conn,
            store::BoardId::new(self.game.name(), self.row.board),
        )?;
        if !self.row.is_active() {
            // The end of a game also goes to those who asked for results.
            others.extend(store::result_watchers(
                ctx.conn,
                store::BoardId::new(self.game.name(), self.row.board),
            )?);
        }
        for observer in others {
            if !readers.contains(&observer) {
                readers.push(observer);
            }
        }
        if !self.row.is_active() {
            // Replies to this board's mails play no more.
            store::expire_reply_tokens(
                ctx.conn,
                store::BoardId::new(self.game.name(), self.row.board),
                ctx.now,
            )?;
        }
        let mut replies = Vec::new();
        for userid in &readers {
            replies.extend(self.to_user(ctx, userid)?);
        }
        Ok(replies)
    }

    /// What a reply to this mail to `userid` is keyed to: a player of an
    /// active board, as it stands, who has not set `noreply` for the game.
    pub(super) fn reply_key(&self, ctx: &Ctx<'_>, userid: &str) -> Handled<Option<ReplyKey>> {
        let current = matches!(
            self.occasion,
            Occasion::Turn | Occasion::New | Occasion::Nag
        );
        if !current
            || !self.row.is_active()
            || self.row.seat_of(userid).is_none()
            || store::no_reply(ctx.conn, userid, self.game.name())?
        {
            return Ok(None);
        }
        Ok(Some(ReplyKey {
            game: self.game.name().to_string(),
            board: self.row.board,
            userid: userid.to_string(),
            ply: self.plies.last().map_or(0, |p| p.ply),
            to_move: self.to_act() == userid,
            proposal_to_answer: self
                .row
                .proposal
                .is_some_and(|(_, by)| self.row.players[by.index()] != userid),
        }))
    }

    /// This board mail to each address of one user (none when the user
    /// does not exist or has signed off).
    pub(super) fn to_user(&self, ctx: &Ctx<'_>, userid: &str) -> Handled<Vec<Reply>> {
        let Some(user) = store::user(ctx.conn, userid)? else {
            return Ok(vec![]);
        };
        if user.signed_off_at.is_some() {
            return Ok(vec![]);
        }
        if user.confirmed_addresses().next().is_none() {
            return Ok(vec![]);
        }
        let drawing = ctx.drawing_of(userid, self.game.name())?;
        let body = self.body_for(ctx, drawing, userid)?;
        let key = self.reply_key(ctx, userid)?;
        let picture = if store::picture_mail(ctx.conn, userid)? {
            self.picture(ctx, drawing.from_black)?
        } else {
            None
        };
        // Confirmed addresses only (see `Reply::to_user`).
        let mut replies = Reply::to_user(&user, &self.subject(), &body);
        for reply in &mut replies {
            reply.reply_key = key.clone();
            reply.board = Some(self.board_mail());
            reply.picture = picture.clone();
        }
        Ok(replies)
    }
}

/// The time the player in `seat` has used on a board (vacations not
/// counted; the turn of the player in `to_act` up to now, or up to the end
/// of a finished game, included).
pub(crate) fn time_used(
    ctx: &Ctx<'_>,
    row: &store::BoardRow,
    plies: &[Ply],
    seat: Color,
    to_act: Color,
) -> Handled<Duration> {
    let mut turns = Vec::new();
    let mut since = row.created_at;
    for p in plies {
        if p.seat == seat {
            turns.push((since, p.played_at));
        }
        since = p.played_at;
    }
    if seat == to_act {
        // The turn still running, or the one the game ended in (a forfeit).
        turns.push((since, row.finished_at.unwrap_or(ctx.now)));
    }
    let userid = &row.players[seat.index()];
    let away: Vec<_> = store::vacations(ctx.conn, userid, row.created_at)?
        .into_iter()
        .map(|v| (v.starts_at, v.ends_at))
        .collect();
    Ok(game::timers::time_used(&turns, &away))
}

/// A player's conditional moves as their board mails show them: a title
/// line, then the tree drawn as indented lines within 78 columns (each
/// line of moves from the next ply on; the branches under the moves they
/// share).
///
/// Ruling: the plies are numbered as the board's move list numbers them
/// from where the tree starts (`5...e5 6. Nf3`; `game::render::Numbering`,
/// so a seat that acts twice and a Shadow reveal, which takes no number,
/// are numbered alike in every game); a row that begins with Black's ply
/// shows its number (`6...Nc6`), as White's half is not beside it.
pub(crate) fn conditional_text(
    ctx: &Ctx<'_>,
    id: store::BoardId<'_>,
    seat: Color,
    from: u32,
    tree: &game::conditional::Tree,
) -> Handled<String> {
    let (lines_before, white_open) = store::move_line_of(ctx.conn, id, from + 1)?;
    let word = |line: &[game::conditional::Step], k: usize, row_start: bool| {
        let mut numbering = game::render::Numbering::after(lines_before, white_open);
        let mut number = game::render::Numbered::Decision;
        for step in &line[..=k] {
            let by = if step.mine { seat } else { seat.opponent() };
            let decision = step.is_open() || game::render::is_decision(&step.notation);
            number = numbering.next(by, decision);
        }
        number.written(&line[k].notation, row_start)
    };
    let mut text = format!(
        "Your conditional moves (only you see them), from ply {} on:",
        from + 1
    );
    for line in tree.draw_with(2, 78, &word) {
        text.push('\n');
        text.push_str(&line);
    }
    Ok(text)
}

/// What joins a player's name and the comment of their queued move in the
/// news of a board mail; such a line is player text, which addresses not
/// yet confirmed do not get (see [`BoardView::without_comment`]).
pub(crate) const QUEUED_COMMENT: &str = " wrote with it: ";

#[cfg(test)]
mod tests {
    use super::whole_score;

    #[test]
    fn a_score_over_its_bound_shows_its_first_and_last_moves_around_dots() {
        let list: Vec<String> = (1..=400)
            .map(|n| format!("{n:>3}. Nf3          Nf6"))
            .collect();
        let list = list.join("\n");
        assert_eq!(whole_score(&list, list.len() + 1), list);
        let cut = whole_score(&list, 2000);
        assert!(cut.len() <= 2000 + 4, "{}", cut.len());
        let lines: Vec<&str> = cut.lines().collect();
        assert!(lines[0].starts_with("  1. "), "{cut}");
        assert!(lines.last().unwrap().starts_with("400. "), "{cut}");
        assert_eq!(lines.iter().filter(|l| **l == "...").count(), 1, "{cut}");
        // A move's event lines stay with it.
        let with_events = "1. e4 e5\n   an event\n2. Nf3 Nc6\n   another\n3. Bb5 a6";
        let cut = whole_score(with_events, 30);
        assert!(!cut.ends_with("2. Nf3 Nc6"), "{cut}");
        for line in cut.lines() {
            assert!(line == "..." || with_events.contains(line), "{cut}");
        }
    }
}
