//! What a command runs with ([`Ctx`]) and what it comes to: a reply
//! ([`Reply`]), a refusal ([`Refusal`]) or a failure that is not the
//! player's ([`ServerError`]).

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::templates::TemplateError;
use super::{computer, guard, preview, ReplyKey, Server};
use crate::store::{self, StoreError};
use game::command::Credentials;
use game::render::Drawing;

/// A failure that is not the player's: nothing of the mail was applied.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error("password hashing failed: {0}")]
    Hash(String),
    #[error("board {game} {board} cannot be replayed: {reason}")]
    Replay {
        game: String,
        board: u32,
        reason: String,
    },
    /// The process died while it handled the mail (see `crate::quarantine`).
    #[error("the server stopped while it handled this mail (it crashed, or was killed for its memory or time)")]
    Stopped,
}

impl From<rusqlite::Error> for ServerError {
    fn from(e: rusqlite::Error) -> Self {
        ServerError::Store(StoreError::Sqlite(e))
    }
}

/// Why a command was refused: one plain sentence for the sender, and the
/// board it concerns (drawn under the sentence).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub sentence: String,
    pub game: Option<String>,
    pub board: Option<u32>,
    /// The board drawn under the sentence when it is not the board as it
    /// stands (a conditional line refused where the line reaches); `None`
    /// draws the board now.
    pub drawing: Option<String>,
}

impl Refusal {
    pub(crate) fn new(sentence: impl Into<String>) -> Refusal {
        Refusal {
            sentence: sentence.into(),
            game: None,
            board: None,
            drawing: None,
        }
    }

    /// The refusal with `drawing` under its sentence instead of the board
    /// now.
    pub(crate) fn drawn(mut self, drawing: String) -> Refusal {
        self.drawing = Some(drawing.trim_end().to_string());
        self
    }

    pub(crate) fn on(mut self, game: &str, board: Option<u32>) -> Refusal {
        self.game = Some(game.to_string());
        self.board = board;
        self
    }
}

/// A command's failure: refused (the player's mistake) or internal.
#[derive(Debug)]
pub(crate) enum Failure {
    Refused(Refusal),
    Internal(ServerError),
}

impl From<Refusal> for Failure {
    fn from(r: Refusal) -> Self {
        Failure::Refused(r)
    }
}

impl<E: Into<ServerError>> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::Internal(e.into())
    }
}

impl Failure {
    /// The board attached to a refusal that names none (its drawing goes
    /// under the sentence); an internal failure, or a refusal on a board
    /// already, unchanged. The one way a command puts its board on a
    /// refusal.
    pub(crate) fn on_board(self, game: &str, board: Option<u32>) -> Failure {
        match self {
            Failure::Refused(r) if r.game.is_none() => Failure::Refused(r.on(game, board)),
            other => other,
        }
    }
}

/// What a command (or a step of one) comes to: its value, or its [`Failure`].
pub(crate) type Handled<T> = Result<T, Failure>;

/// One mail the server will send, from the command that makes it to its
/// outbox row: grouped per recipient, then queued (see `outbox`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reply {
    pub to: String,
    pub subject: String,
    pub body: String,
    /// A board mail to a player that may be answered by reply: it is sent
    /// with a reply token for this key (see `reply`).
    pub reply_key: Option<ReplyKey>,
    /// The confirmation codes it shows, as the command that made them
    /// handed them along (see `confirm`): kept with its outbox row, and
    /// blanked there once it is sent.
    pub codes: Vec<String>,
    /// The board this mail shows and why (a board mail, or the refusal of
    /// a command on it): the mails one inbound mail makes for one board
    /// and one reader are said once (see `once`).
    pub board: Option<BoardMail>,
    /// The board's picture, for a board mail to a reader who chose
    /// `picture`: shown in the HTML part when the mail has one (see
    /// `mail::picture`).
    pub picture: Option<crate::mail::picture::Png>,
}

/// What a mail says about one board, for saying it once (see `once`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BoardMail {
    pub game: String,
    pub board: u32,
    /// A board mail: the lines under its status (what happened), as its
    /// reader was shown them.
    pub news: Vec<String>,
    /// A refusal of a command on the board: the command as quoted and the
    /// sentence, on one line.
    pub refused: Option<String>,
}

impl Reply {
    /// The same mail to each confirmed address of `user` (docs/commands.md §5:
    /// every address gets the user's mail). The one place every mail of an
    /// account to its addresses is made (notices, relays, board mails,
    /// reminders): an address not yet confirmed gets none of them, only
    /// its confirmation mail (double opt-in; see `confirm`).
    pub(crate) fn to_user(user: &store::User, subject: &str, body: &str) -> Vec<Reply> {
        user.confirmed_addresses()
            .map(|a| Reply {
                to: a.clone(),
                subject: subject.to_string(),
                body: body.to_string(),
                reply_key: None,
                codes: Vec::new(),
                board: None,
                picture: None,
            })
            .collect()
    }

    /// This mail, showing the confirmation code `code`.
    pub(crate) fn showing_code(mut self, code: &str) -> Reply {
        self.codes.push(code.to_string());
        self
    }
}

/// What a command runs with.
pub(crate) struct Ctx<'a> {
    pub conn: &'a Connection,
    pub server: &'a Server<'a>,
    pub now: DateTime<Utc>,
    /// The address the command came from (`None` for the admin CLI).
    pub sender: Option<&'a str>,
    /// The player's comment (board-changing commands relay it).
    pub comment: &'a str,
    /// The command line as the player wrote it (the Subject; empty for
    /// the admin CLI, for `multiple` mails and for replies).
    pub line: &'a str,
    /// On a reply to a board mail: the player its reply token and the
    /// sender's address vouch for, whose commands need no password.
    pub vouched: Option<&'a str>,
    /// What the mail learnt so far: passwords to mask, wrong passwords
    /// to count (see [`guard`]).
    pub session: &'a guard::Session,
    /// The computer's thinking in the mail (or timers pass) at hand.
    pub computer_budget: &'a computer::Budget,
    /// Boards replayed to a ply for `preview` in the mail at hand.
    pub previews: &'a preview::Previews,
}

impl Ctx<'_> {
    /// A plain text answer (a confirmation or a notice) to `to`.
    pub(crate) fn notice(
        &self,
        to: &str,
        subject: impl Into<String>,
        text: impl AsRef<str>,
    ) -> Handled<Reply> {
        Ok(Reply {
            to: to.to_string(),
            subject: subject.into(),
            body: self.server.notice_body(text.as_ref())?,
            reply_key: None,
            codes: Vec::new(),
            board: None,
            picture: None,
        })
    }

    /// A plain text notice, or text a player wrote (chat, message), to each
    /// confirmed address of `user` (see [`Reply::to_user`]; none once
    /// signed off).
    pub(crate) fn notice_to_user(
        &self,
        user: &store::User,
        subject: impl Into<String>,
        text: impl AsRef<str>,
    ) -> Handled<Vec<Reply>> {
        if user.signed_off_at.is_some() {
            return Ok(vec![]);
        }
        let body = self.server.notice_body(text.as_ref())?;
        Ok(Reply::to_user(user, &subject.into(), &body))
    }

    /// Where an answer to `user`'s command goes: the sender, or (from the
    /// admin CLI) the user's own address.
    pub(crate) fn answer_to<'u>(&'u self, user: &'u store::User) -> &'u str {
        self.sender.unwrap_or(user.address())
    }

    /// The board drawing the sender prefers for `game`: that of the user
    /// whose address it is, else large from White's side.
    pub(crate) fn sender_drawing(&self, game: &str) -> Handled<Drawing> {
        let Some(sender) = self.sender else {
            return Ok(Drawing::default());
        };
        match store::userids_with_address(self.conn, sender)?.first() {
            Some(userid) => self.drawing_of(userid, game),
            None => Ok(Drawing::default()),
        }
    }

    /// Whether the sender's mail shows the board's picture: the sender's
    /// first account (as for [`Ctx::sender_drawing`]) chose `picture`; an
    /// address of no account gets none.
    pub(crate) fn sender_picture(&self) -> Handled<bool> {
        let Some(sender) = self.sender else {
            return Ok(false);
        };
        match store::userids_with_address(self.conn, sender)?.first() {
            Some(userid) => Ok(store::picture_mail(self.conn, userid)?),
            None => Ok(false),
        }
    }

    /// The board drawing `userid` chose for `game` (`set ... small|large|flip`).
    pub(crate) fn drawing_of(&self, userid: &str, game: &str) -> Handled<Drawing> {
        Ok(Drawing {
            size: store::board_size(self.conn, userid, game)?,
            from_black: store::from_black(self.conn, userid, game)?,
        })
    }

    /// Check a userid and password, throttled; the user is returned when
    /// they match (see [`guard`]).
    pub(crate) fn authenticate(&self, who: &Credentials) -> Handled<store::User> {
        guard::authenticate(self, who)
    }

    /// Charge this, rollback-proof: `charge` (a counter's write) runs now
    /// and is written again after any rollback of this mail's savepoints
    /// that undid it, so a refused command or a mail whose answers are too
    /// large is still charged. It must take the time as `self.now` (it may
    /// run twice on the same state). See [`guard::Session::lasting`].
    pub(crate) fn charge_lasting<T: 'static>(
        &self,
        charge: impl Fn(&Connection) -> Result<T, ServerError> + 'static,
    ) -> Result<T, ServerError> {
        self.session.lasting(self.conn, charge)
    }
}
