//! Board mails: the subject and the body in pbmserv's order (commands.md §5).

use minijinja::context;

use super::{Ctx, Handled, Reply};
use crate::command::BoardSize;
use crate::rules::{Game, Position};
use crate::store::{self, BoardStatus, Ply, Proposal};

/// Plies shown in a turn mail; show and final mails list them all.
pub(crate) const RECENT_PLIES: usize = 10;

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
}

impl BoardView<'_> {
    /// `Chess Board 101 bob`: the player to act, or `finished`; ` **`
    /// when a comment is attached.
    pub fn subject(&self) -> String {
        let who = match &self.row.status {
            BoardStatus::Active => self.row.players[self.position.to_act().index()].as_str(),
            BoardStatus::Finished { .. } => "finished",
        };
        let stars = if self.comment.is_some() { " **" } else { "" };
        format!(
            "{} Board {} {}{stars}",
            self.game.title(),
            self.row.board,
            who
        )
    }

    /// `It is bob's turn.` / `Game won by alice (checkmate).` / `Game was a tie (stalemate).`
    pub fn status(&self) -> String {
        match &self.row.status {
            BoardStatus::Active => {
                let to_act = &self.row.players[self.position.to_act().index()];
                let mut line = if self.position.is_decision() {
                    format!("It is {to_act}'s decision (see below the board).")
                } else {
                    format!("It is {to_act}'s turn.")
                };
                if let Some((proposal, seat)) = self.row.proposal {
                    let by = &self.row.players[seat];
                    let what = match proposal {
                        Proposal::Draw => "a draw",
                        Proposal::Undo => "to take back the last ply",
                    };
                    let others: Vec<&str> = self
                        .row
                        .players
                        .iter()
                        .enumerate()
                        .filter(|(s, _)| *s != seat)
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
            } => format!("Game won by {} ({ending}).", self.row.players[*seat]),
            BoardStatus::Finished {
                winner_seat: None,
                ending,
            } => format!("Game was a tie ({ending})."),
        }
    }

    /// The move list: the recent plies of an active board's turn mail,
    /// else every ply (read when the view holds only the recent ones).
    fn moves(&self, ctx: &Ctx<'_>) -> Handled<String> {
        let all;
        let (plies, skip) = if self.recent_only && self.row.is_active() {
            (self.plies, self.plies.len().saturating_sub(RECENT_PLIES))
        } else if self.plies.first().is_some_and(|p| p.ply > 1) {
            all = store::plies(ctx.conn, self.game.name(), self.row.board)?;
            (all.as_slice(), 0)
        } else {
            (self.plies, 0)
        };
        let lines: Vec<crate::render::MoveRecord> = plies[skip..]
            .iter()
            .map(|p| crate::render::MoveRecord {
                ply: p.ply,
                notation: p.notation.clone(),
                events: p.events.clone(),
            })
            .collect();
        Ok(crate::render::move_list(&lines))
    }

    fn clock(&self) -> String {
        let last = self.row.last_action_at.format("%Y-%m-%d %H:%M UTC");
        match &self.row.status {
            BoardStatus::Active => format!(
                "Started {}. Last action {last}.",
                self.row.created_at.format("%Y-%m-%d")
            ),
            BoardStatus::Finished { .. } => format!(
                "Started {}. Ended {last}.",
                self.row.created_at.format("%Y-%m-%d")
            ),
        }
    }

    /// The body as drawn for one reader.
    pub fn body(&self, ctx: &Ctx<'_>, size: BoardSize) -> Handled<String> {
        let board = crate::render::board(&self.position.diagram(), size);
        let board = board.trim_end();
        let (commenter, comment) = match &self.comment {
            Some((who, text)) => (who.as_str(), text.as_str()),
            None => ("", ""),
        };
        Ok(ctx.server.templates.render(
            "board.txt",
            context! {
                status => self.status(),
                rating_changes => &self.news,
                moves => self.moves(ctx)?.trim_end(),
                board => board,
                observers => store::observers(ctx.conn, self.game.name(), self.row.board)?,
                commenter => commenter,
                comment => comment,
                clock => self.clock(),
            },
        )?)
    }

    /// One mail to each player and each observer (and, once the game is
    /// over, each who asked for its result), in their own board size.
    pub fn to_players(&self, ctx: &Ctx<'_>) -> Handled<Vec<Reply>> {
        let mut readers = self.row.players.clone();
        let mut others = store::observers(ctx.conn, self.game.name(), self.row.board)?;
        if !self.row.is_active() {
            // The end of a game also goes to those who asked for results.
            others.extend(store::result_watchers(
                ctx.conn,
                self.game.name(),
                self.row.board,
            )?);
        }
        for observer in others {
            if !readers.contains(&observer) {
                readers.push(observer);
            }
        }
        let mut replies = Vec::new();
        for userid in &readers {
            let Some(user) = store::user(ctx.conn, userid)? else {
                continue;
            };
            let size = store::board_size(ctx.conn, userid, self.game.name())?;
            replies.push(Reply {
                to: user.address().to_string(),
                subject: self.subject(),
                body: self.body(ctx, size)?,
            });
        }
        Ok(replies)
    }
}
