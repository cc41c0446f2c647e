//! Executes commands: one inbound mail in one SQLite transaction, together
//! with every reply it causes (the outbox).
//!
//! A mail's way: its Message-ID is recorded (a duplicate stops there), the
//! never-answer and rate rules are applied, `command` reads it, each command
//! runs inside its own savepoint (a refused command changes nothing, the
//! others still apply), the replies are grouped into one mail per recipient
//! and queued in the outbox, and the transaction commits. A database or
//! template failure rolls everything back and leaves the mail in the inbox.
//!
//! The modules, listed so that each imports only modules after it (and
//! `Ctx`, `Refusal`, `Reply` from here):
//!
//! - the commands: `admin` (what the server admin does: boards deleted
//!   and adjudicated, vacations, broadcasts), `account` (signup,
//!   passwords, help), `social` (chat,
//!   observers, listings), `pending` (queue, submit, confirm, preview),
//!   `play` (challenge, move, show, games, timers), `settings` (vacations,
//!   notifications, which challenges a player takes);
//! - below them: `computer` (the computer player's turns and answers),
//!   `queued` (a queued move played when its turn comes),
//!   `loaded` (a board loaded with its plies; a ply stored, a game finished
//!   and rated), `compose` (board mails), `text` (capitals, comments with
//!   passwords masked), `reply` (playing by reply: the reply tokens of
//!   board mails, and a reply read as its player's command), `templates`.

mod account;
mod addresses;
mod admin;
mod compose;
mod computer;
mod confirm;
pub mod credentials;
mod guard;
mod loaded;
mod pending;
mod play;
mod queued;
mod reply;
mod settings;
mod social;
pub mod templates;
mod text;

use chrono::{DateTime, Utc};
use minijinja::context;
use rusqlite::{Connection, TransactionBehavior};

use crate::clock::Clock;
use crate::command::{self, BoardSize, Command, Credentials, GameCommand, Parsed};
use crate::config::Config;
use crate::mail::{Envelope, Outgoing};
use crate::render::Drawing;
use crate::store::{self, StoreError};
use templates::{TemplateError, Templates};

pub use admin::{Ruling, ADJUDICATION};
pub use reply::ReplyKey;

/// What became of one inbound mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MailOutcome {
    /// Seen before: nothing applied, nothing sent.
    Duplicate,
    /// Never answered (auto-reply, bounce, list, our own address ...), for this reason.
    Ignored(String),
    /// Over the sender's hourly limit: dropped.
    RateLimited,
    /// Larger than the configured limit: refused with an error mail.
    TooLarge,
    /// Its answers would be larger than `[limits] max_reply_bytes`:
    /// nothing applied, one short error mail.
    ReplyTooLarge,
    /// Its commands ran: how many, and how many of them were refused.
    Answered { commands: usize, refused: usize },
}

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
}

impl Refusal {
    pub fn new(sentence: impl Into<String>) -> Refusal {
        Refusal {
            sentence: sentence.into(),
            game: None,
            board: None,
        }
    }

    pub fn on(mut self, game: &str, board: Option<u32>) -> Refusal {
        self.game = Some(game.to_string());
        self.board = board;
        self
    }
}

/// A command's failure: refused (the player's mistake) or internal.
#[derive(Debug)]
pub enum Failure {
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

/// What a command (or a step of one) comes to: its value, or its [`Failure`].
pub type Handled<T> = Result<T, Failure>;

/// One mail the server wants to send, before grouping per recipient.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub to: String,
    pub subject: String,
    pub body: String,
    /// A board mail to a player that may be answered by reply: it is sent
    /// with a reply token for this key (see `reply`).
    pub reply_key: Option<ReplyKey>,
}

impl Reply {
    /// The same mail to each confirmed address of `user` (docs/commands.md §5:
    /// every address gets the user's mail). The one place every mail of an
    /// account to its addresses is made (notices, relays, board mails,
    /// reminders): an address not yet confirmed gets none of them, only
    /// its confirmation mail (double opt-in, issue #31; see `confirm`).
    pub(crate) fn to_user(user: &store::User, subject: &str, body: &str) -> Vec<Reply> {
        user.confirmed_addresses()
            .map(|a| Reply {
                to: a.clone(),
                subject: subject.to_string(),
                body: body.to_string(),
                reply_key: None,
            })
            .collect()
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
}

impl Ctx<'_> {
    /// A plain text answer (a confirmation or a notice) to `to`.
    pub fn notice(
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
        })
    }

    /// A plain text notice, or text a player wrote (chat, message), to each
    /// confirmed address of `user` (see [`Reply::to_user`]; none once
    /// signed off).
    pub fn notice_to_user(
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
    pub fn answer_to<'u>(&'u self, user: &'u store::User) -> &'u str {
        self.sender.unwrap_or(user.address())
    }

    /// The board drawing the sender prefers for `game`: that of the user
    /// whose address it is, else large from White's side.
    pub fn sender_drawing(&self, game: &str) -> Handled<Drawing> {
        let Some(sender) = self.sender else {
            return Ok(Drawing::default());
        };
        match store::userids_with_address(self.conn, sender)?.first() {
            Some(userid) => self.drawing_of(userid, game),
            None => Ok(Drawing::default()),
        }
    }

    /// The board drawing `userid` chose for `game` (`set ... small|large|flip`).
    pub fn drawing_of(&self, userid: &str, game: &str) -> Handled<Drawing> {
        Ok(Drawing {
            size: store::board_size(self.conn, userid, game)?,
            from_black: store::from_black(self.conn, userid, game)?,
        })
    }

    /// Check a userid and password, throttled; the user is returned when
    /// they match (see [`guard`]).
    pub fn authenticate(&self, who: &Credentials) -> Handled<store::User> {
        guard::authenticate(self, who)
    }

    /// Charge this, rollback-proof: `charge` (a counter's write) runs now
    /// and is written again after any rollback of this mail's savepoints
    /// that undid it, so a refused command or a mail whose answers are too
    /// large is still charged. It must take the time as `self.now` (it may
    /// run twice on the same state). See [`guard::Session::lasting`].
    pub fn charge_lasting<T: 'static>(
        &self,
        charge: impl Fn(&Connection) -> Result<T, ServerError> + 'static,
    ) -> Result<T, ServerError> {
        self.session.lasting(self.conn, charge)
    }
}

/// `text` (an outbox Subject, for a log line) without the confirmation
/// codes it shows: a log must hold nothing that can be replayed (#31).
pub fn hide_secrets(text: &str) -> String {
    confirm::hide_codes(text)
}

/// The server: config, clock and templates; the database is passed per call.
pub struct Server<'a> {
    pub config: &'a Config,
    pub clock: &'a dyn Clock,
    pub templates: &'a Templates,
    /// Passwords verified in this process (see [`credentials`]).
    pub credentials: credentials::VerifiedCredentials,
    /// The Subject of the mail handled last, as its log line may show it
    /// (every password it showed masked), with its Message-ID.
    logged_subject: std::sync::Mutex<Option<(String, String)>>,
    /// The computer's thinking in the mail (or timers pass) at hand.
    pub(crate) computer_budget: computer::Budget,
    /// Boards replayed to a ply for `preview` in the mail at hand.
    pub(crate) previews: pending::Previews,
}

impl<'a> Server<'a> {
    pub fn new(config: &'a Config, clock: &'a dyn Clock, templates: &'a Templates) -> Self {
        Server {
            config,
            clock,
            templates,
            credentials: credentials::VerifiedCredentials::new(),
            logged_subject: std::sync::Mutex::new(None),
            computer_budget: computer::Budget::default(),
            previews: pending::Previews::default(),
        }
    }

    /// The Subject of `mail` as a log line may show it: the password word
    /// masked by the parser, and every password the server found in the
    /// mail while handling it (see [`guard`]) masked too.
    pub fn subject_for_log(&self, mail: &Envelope) -> String {
        let mut slot = self
            .logged_subject
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        match slot.take() {
            Some((id, subject)) if id == mail.message_id => subject,
            _ => command::mask_line(&mail.subject),
        }
    }

    fn remember_log_subject(&self, mail: &Envelope, session: &guard::Session) {
        let subject = session.mask_quote(&command::mask_line(&mail.subject));
        *self
            .logged_subject
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some((mail.message_id.clone(), subject));
    }

    /// The body of a plain text answer, from `message.txt`.
    pub(crate) fn notice_body(&self, text: &str) -> Result<String, TemplateError> {
        self.templates
            .render("message.txt", context! { text => text })
    }

    /// Process one inbound mail completely: everything it changes and every
    /// reply it causes commit together, or nothing does.
    pub fn handle_mail(
        &self,
        conn: &mut Connection,
        mail: &Envelope,
        raw_len: usize,
    ) -> Result<MailOutcome, ServerError> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let outcome = self.handle_mail_within(&tx, mail, raw_len)?;
        tx.commit()?;
        Ok(outcome)
    }

    /// [`Server::handle_mail`] inside a transaction the caller opened and
    /// commits (several mails to one commit: `daemon` does so, each mail in
    /// a savepoint of its own). On an error the mail's changes are partly
    /// made: the caller rolls them back.
    pub fn handle_mail_within(
        &self,
        tx: &Connection,
        mail: &Envelope,
        raw_len: usize,
    ) -> Result<MailOutcome, ServerError> {
        if store::mail_seen(tx, &mail.message_id)? {
            return Ok(MailOutcome::Duplicate);
        }
        self.computer_budget.start();
        self.previews.forget();
        let now = self.clock.now();
        let record = |outcome: &str| {
            store::record_mail(tx, &mail.message_id, mail.sender.as_deref(), outcome, now)
        };
        let sender = match (&mail.never_answer, &mail.sender) {
            (None, Some(sender)) => sender.as_str(),
            (reason, _) => {
                let reason = reason
                    .clone()
                    .unwrap_or_else(|| "the mail has no sender address".into());
                // Ignored mail still costs its sender's hourly count (no
                // reply says so), so that it is no free channel (issue #32).
                if let Some(sender) = &mail.sender {
                    store::count_command(tx, store::CountScope::Address, sender, now)?;
                }
                record("ignored")?;
                return Ok(MailOutcome::Ignored(reason));
            }
        };

        if raw_len > self.config.limits.max_message_bytes {
            if guard::over_address_limit(self, tx, sender, now)? {
                record("rate-limited")?;
                return Ok(MailOutcome::RateLimited);
            }
            record("too-large")?;
            let text = format!(
                "Your mail is {raw_len} bytes long, more than the {} bytes this server reads; send the command again without attachments or long quotes.",
                self.config.limits.max_message_bytes
            );
            let body = self.notice_body(&text)?;
            self.enqueue(tx, sender, "Error", body, Some(&mail.message_id), now)?;
            return Ok(MailOutcome::TooLarge);
        }

        let by_reply = reply::read(tx, self, mail, sender)?;
        if let Some(userid) = by_reply.as_ref().and_then(|r| r.unauthenticated.as_deref()) {
            return self.unauthenticated_reply(tx, mail, userid, now);
        }
        let authserv_id = self.config.security.authserv_id.as_deref();
        let authenticated = mail.authenticated(authserv_id);
        let request = match &by_reply {
            Some(r) => r.request(),
            None => command::parse_mail(&mail.subject, &mail.body),
        };
        let session = guard::Session::for_reply(by_reply.is_some());
        // A command read from the body's first line (empty Subject) has the
        // rest of the body as its comment.
        let body_comment = request
            .body_after_command
            .as_deref()
            .map(crate::mail::extract_comment);
        let ctx = Ctx {
            conn: tx,
            server: self,
            now,
            sender: Some(sender),
            // The body of a `multiple` mail is its commands (with their
            // passwords), never a comment to relay.
            comment: match (&by_reply, &body_comment) {
                (Some(r), _) => &r.comment,
                (None, Some(comment)) => comment,
                (None, None) if request.multiple => "",
                (None, None) => &mail.comment,
            },
            line: if request.multiple || by_reply.is_some() {
                ""
            } else {
                // The part the parser read (its first 1 KB): words after
                // it were never read, so they are no password to mask.
                command::read_part(&mail.subject)
            },
            vouched: by_reply.as_ref().and_then(|r| r.vouched.as_deref()),
            session: &session,
        };
        let mut replies = Vec::new();
        let mut refused = 0;
        let mut dropped = 0;
        // Every answer is bounded (see `crate::limits`): the commands run
        // in a savepoint that an answer too large rolls back.
        tx.execute_batch("SAVEPOINT answers")?;
        // Charges are written again after a rollback (see `guard`).
        let answers_mark = session.mark();
        let limits = &self.config.limits;
        let mut read_before: Vec<&Command> = Vec::new();
        if request.commands.is_empty() {
            if guard::over_address_limit(self, tx, sender, now)? {
                record("rate-limited")?;
                return Ok(MailOutcome::RateLimited);
            }
            refused += 1;
            replies.push(self.refusal_reply(
                &ctx,
                &Refusal::new(
                    "Your mail holds no command: write the command on the Subject line, or Subject \"multiple\" and one command per line of the body.",
                ),
                &mail.subject,
            )?);
        }
        for parsed in &request.commands {
            let so_far = replies
                .iter()
                .map(|r| (r.to.as_str(), r.subject.as_str(), r.body.as_str()));
            if answers_size(so_far, sender) > limits.max_reply_bytes {
                break;
            }
            match parsed {
                Ok(parsed)
                    if command::only_reads(&parsed.command)
                        && read_before.contains(&&parsed.command) => {}
                Ok(parsed) if !authenticated && needs_authenticated_from(&parsed.command) => {
                    refused += 1;
                    let refusal = Refusal::new(UNAUTHENTICATED);
                    replies.push(self.refusal_reply(&ctx, &refusal, &parsed.masked)?);
                }
                Ok(parsed) => {
                    let who = parsed.command.credentials();
                    match guard::admit(&ctx, who)? {
                        guard::Admission::Run => {}
                        guard::Admission::Refuse(refusal) => {
                            refused += 1;
                            dropped += 1;
                            replies.push(self.refusal_reply(&ctx, &refusal, &parsed.masked)?);
                            continue;
                        }
                        guard::Admission::Drop => {
                            refused += 1;
                            dropped += 1;
                            continue;
                        }
                    }
                    session.begin(&parsed.masked);
                    if command::only_reads(&parsed.command) {
                        read_before.push(&parsed.command);
                    }
                    let parsed =
                        match command::collapse(parsed.command.clone(), limits.max_list_items) {
                            Ok(command) => Parsed {
                                command,
                                masked: parsed.masked.clone(),
                            },
                            Err(sentence) => {
                                refused += 1;
                                replies.push(self.refusal_reply(
                                    &ctx,
                                    &Refusal::new(sentence),
                                    &parsed.masked,
                                )?);
                                guard::charge(&ctx, who)?;
                                continue;
                            }
                        };
                    let parsed = &parsed;
                    if !command::only_reads(&parsed.command) {
                        // A board may change: replays for previews are stale.
                        self.previews.forget();
                    }
                    tx.execute_batch("SAVEPOINT command")?;
                    let command_mark = session.mark();
                    match self.execute(&ctx, parsed) {
                        Ok(mut r) => {
                            tx.execute_batch("RELEASE command")?;
                            replies.append(&mut r);
                        }
                        Err(Failure::Refused(refusal)) => {
                            tx.execute_batch("ROLLBACK TO command; RELEASE command")?;
                            session.replay_since(tx, command_mark)?;
                            refused += 1;
                            if !session.quiet() {
                                replies.push(self.refusal_reply(&ctx, &refusal, &parsed.masked)?);
                            }
                        }
                        Err(Failure::Internal(e)) => return Err(e),
                    }
                    guard::charge(&ctx, who)?;
                    match guard::count_failures(&ctx) {
                        Ok(mut notices) => replies.append(&mut notices),
                        Err(Failure::Internal(e)) => return Err(e),
                        Err(Failure::Refused(_)) => {}
                    }
                }
                Err(e) => {
                    // A line that is no command costs the sender's address.
                    match guard::admit(&ctx, None)? {
                        guard::Admission::Run => guard::charge(&ctx, None)?,
                        guard::Admission::Refuse(refusal) => {
                            refused += 1;
                            dropped += 1;
                            replies.push(self.refusal_reply(&ctx, &refusal, &e.masked)?);
                            continue;
                        }
                        guard::Admission::Drop => {
                            refused += 1;
                            dropped += 1;
                            continue;
                        }
                    }
                    refused += 1;
                    // Its sender's password in a wrong place (issue #23 §3).
                    let (refusal, notices) = guard::parse_refusal(&ctx, e)?;
                    replies.push(self.refusal_reply(&ctx, &refusal, &e.masked)?);
                    replies.extend(notices);
                }
            }
        }
        // A refused reply of the board's player: the error mail shows the
        // board now and may itself be answered by reply.
        if let Some(key) = by_reply.as_ref().and_then(|r| r.answerable.as_ref()) {
            if refused > 0 {
                for reply in replies.iter_mut().filter(|r| r.to == sender) {
                    reply.reply_key = Some(key.clone());
                }
            }
        }
        if answers_our_error(mail, &self.config.server.address) {
            // Never an error for an error (a loop with another server
            // behind a forwarder that strips Auto-Submitted; issue #31).
            replies.retain(|r| r.to != sender || !crate::mail::is_error_subject(&r.subject));
        }
        session.mask_replies(&mut replies);
        self.remember_log_subject(mail, &session);
        if dropped > 0 && dropped == request.commands.len() {
            // Nothing of the mail ran: dropped for the limits.
            tx.execute_batch("RELEASE answers")?;
            self.queue(tx, replies, Some(sender), Some(&mail.message_id), now)?;
            record("rate-limited")?;
            return Ok(MailOutcome::RateLimited);
        }
        if request.body_after_command.is_some() {
            for reply in replies.iter_mut().filter(|r| r.to == sender) {
                reply.body = format!("{}\n\n{EMPTY_SUBJECT_NOTE}\n", reply.body.trim_end());
            }
        }
        let mails = self.group(replies, Some(sender))?;
        let size = answers_size(
            mails
                .iter()
                .map(|(t, s, b, _)| (t.as_str(), s.as_str(), b.as_str())),
            sender,
        );
        if let Some(sentence) = crate::limits::reply_too_large(size, limits.max_reply_bytes) {
            // Nothing of the mail is done, but what it was charged stays
            // (and the lockout notices it caused are sent): no rollback
            // makes guessing free. The refusal does not tell the size.
            tx.execute_batch("ROLLBACK TO answers; RELEASE answers")?;
            session.replay_since(tx, answers_mark)?;
            self.queue(tx, session.notices(), None, Some(&mail.message_id), now)?;
            let body = self.notice_body(&sentence)?;
            self.enqueue(tx, sender, "Error", body, Some(&mail.message_id), now)?;
            record("reply-too-large")?;
            return Ok(MailOutcome::ReplyTooLarge);
        }
        tx.execute_batch("RELEASE answers")?;
        let mails = self.charge_strangers(tx, mails, sender, now)?;
        self.queue_grouped(tx, mails, Some(sender), Some(&mail.message_id), now)?;
        record("answered")?;
        Ok(MailOutcome::Answered {
            commands: request.commands.len(),
            refused,
        })
    }

    /// A reply by token from the player's address whose From the MTA did
    /// not authenticate (`[security] authserv_id`): nothing runs, and the
    /// player's addresses get one notice a day, quoting nothing of it.
    fn unauthenticated_reply(
        &self,
        tx: &Connection,
        mail: &Envelope,
        userid: &str,
        now: DateTime<Utc>,
    ) -> Result<MailOutcome, ServerError> {
        let key = format!("unauthenticated-reply:{userid}");
        if store::notice_due_daily(tx, &key, now)? {
            if let Some(user) = store::user(tx, userid)?.filter(|u| u.signed_off_at.is_none()) {
                // Lines within 78 columns, as every mail's.
                let text = format!(
                    "A reply to one of your board mails came \"from\" an address of\n\
                     {userid}, but this server's mail host could not confirm that it was\n\
                     sent from there (no DMARC or aligned DKIM pass), so nothing of it\n\
                     was played. If it was yours, use the Subject command with your\n\
                     password:\n  <game> move <board> {userid} <password> <move>\n\
                     If not, someone tried to play for you, and nothing changed.\n\
                     This notice is sent at most once a day."
                );
                let body = self.notice_body(&text)?;
                let replies = Reply::to_user(&user, "Reply not played", &body);
                self.queue(tx, replies, None, None, now)?;
            }
        }
        store::record_mail(
            tx,
            &mail.message_id,
            mail.sender.as_deref(),
            "unauthenticated",
            now,
        )?;
        Ok(MailOutcome::Ignored(
            "a reply by token whose From is not authenticated".to_string(),
        ))
    }

    /// Queue one mail in the outbox, in reply to the mail `cause` (its
    /// Message-ID; content-hash ids are no Message-IDs and are left out).
    fn enqueue(
        &self,
        conn: &Connection,
        to: &str,
        subject: &str,
        body: String,
        cause: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<i64, ServerError> {
        Ok(store::enqueue(
            conn,
            &Outgoing {
                to: to.to_string(),
                subject: subject.to_string(),
                body,
                in_reply_to: cause
                    .filter(|id| !id.starts_with("hash:"))
                    .map(String::from),
            },
            now,
        )?)
    }

    /// Ruling (issue #31): the mails one inbound mail causes to addresses
    /// other than its sender's and the players' confirmed ones (in
    /// practice, confirmation mails to addresses a signup or `change
    /// address` names) count against `[limits] unconfirmed_mails_per_hour`,
    /// server-wide. They are charged here, at the last step before the
    /// outbox, after every savepoint of the mail is released: only mails
    /// that are queued count, and no rollback of the mail's commands can
    /// undo a charge. Beyond the limit they are not sent (an address whose
    /// confirmation mail was not sent may be asked for again at once), and
    /// the sender is told in a mail of their own: which addresses, and
    /// when to ask again.
    #[allow(clippy::type_complexity)]
    fn charge_strangers(
        &self,
        conn: &Connection,
        mails: Vec<(String, String, String, Option<ReplyKey>)>,
        sender: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<(String, String, String, Option<ReplyKey>)>, ServerError> {
        const KEY: &str = "unconfirmed-mails";
        let limit = self.config.limits.unconfirmed_mails_per_hour;
        let mut kept = Vec::with_capacity(mails.len());
        let mut unsent: Vec<String> = Vec::new();
        for mail in mails {
            if mail.0.eq_ignore_ascii_case(sender) || store::is_confirmed_address(conn, &mail.0)? {
                kept.push(mail);
                continue;
            }
            let used = store::commands_this_hour(conn, store::CountScope::Server, KEY, now)?;
            if used < limit {
                store::count_command(conn, store::CountScope::Server, KEY, now)?;
                kept.push(mail);
            } else {
                store::forget_confirmation_mail(conn, &mail.0, now)?;
                if !unsent.contains(&mail.0) {
                    unsent.push(mail.0);
                }
            }
        }
        if !unsent.is_empty() {
            use chrono::DurationRound;
            let hour = now
                .duration_trunc(chrono::Duration::hours(1))
                .unwrap_or(now)
                + chrono::Duration::hours(1);
            let text = format!(
                "No mail went to {}: this server sends at most {limit} mails an hour to addresses that have not confirmed they want its mail, and that many have gone this hour. Ask again after {} UTC (for a confirmation mail: change address <userid> <password> <addresses>).",
                unsent.join(", "),
                hour.format("%H:%M")
            );
            kept.push((
                sender.to_string(),
                "Not sent".to_string(),
                self.notice_body(&text)?,
                None,
            ));
        }
        Ok(kept)
    }

    /// Queue replies; those to the `sender` of a command are joined into
    /// one mail, every other reply is a mail of its own (a board mail
    /// stays one board's mail, whatever else the sender's mail did).
    /// Returns how many mails.
    fn queue(
        &self,
        conn: &Connection,
        replies: Vec<Reply>,
        sender: Option<&str>,
        cause: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<usize, ServerError> {
        let mails = self.group(replies, sender)?;
        self.queue_grouped(conn, mails, sender, cause, now)
    }

    /// Queue mails as [`Server::group`] made them.
    ///
    /// Rulings (issue #31):
    /// - Only the mail to the `sender` answers the mail `cause`: the
    ///   opponent's and observers' mails do not name it in `In-Reply-To` or
    ///   `References` (it would tell them the mover's mail domain).
    /// - A board mail carries a reply token only when its recipient is an
    ///   address on file of the token's player: no mail ever carries a
    ///   token of anyone but its recipient (a copy to a sender who is not
    ///   the player goes without, and without the line saying how to reply).
    /// - The secrets a mail carries (its token, codes it shows) are kept
    ///   with the row and blanked once it is sent (`store::forget_secrets`).
    fn queue_grouped(
        &self,
        conn: &Connection,
        mails: Vec<(String, String, String, Option<ReplyKey>)>,
        sender: Option<&str>,
        cause: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<usize, ServerError> {
        let n = mails.len();
        for (to, subject, mut body, key) in mails {
            let key = match key {
                Some(key) if reply::owns_address(conn, &key.userid, &to)? => Some(key),
                _ => None,
            };
            // A board mail to a player goes out with a reply token and
            // says how to answer it.
            let message_id = match &key {
                Some(key) => {
                    body = format!("{}\n\n{}\n", body.trim_end(), reply::how_to_answer(key));
                    Some(reply::issue(conn, self, key, now)?)
                }
                None => None,
            };
            let cause = cause.filter(|_| sender.is_some_and(|s| s.eq_ignore_ascii_case(&to)));
            let mut secrets = confirm::codes_in(&subject);
            secrets.extend(confirm::codes_in(&body));
            // A mail that shows codes gets its Message-ID fixed now, while
            // they are in it: once sent they are blanked, and a bounce must
            // still name the row (see `daemon::note_bounce`).
            let fixed_id = (message_id.is_none() && !secrets.is_empty()).then(|| Outgoing {
                to: to.clone(),
                subject: subject.clone(),
                body: body.clone(),
                in_reply_to: cause
                    .filter(|id| !id.starts_with("hash:"))
                    .map(String::from),
            });
            let id = self.enqueue(conn, &to, &subject, body, cause, now)?;
            if let Some(out) = fixed_id {
                let fixed = crate::mail::outgoing_message_id(&out, id, self.config.server.domain());
                store::set_outbox_message_id(conn, id, &fixed)?;
            }
            if let Some(message_id) = message_id {
                if let Some(token) = reply::token_of(&message_id) {
                    secrets.push(token.to_string());
                }
                store::set_outbox_message_id(conn, id, &message_id)?;
            }
            store::set_outbox_secrets(conn, id, &secrets)?;
        }
        Ok(n)
    }

    /// The mails to send, in the order of first mention: the replies to
    /// `sender` joined under their subjects (when there are several), each
    /// other reply as it is (a reply identical to one before is sent once).
    /// A joined mail answers no single board: it has no reply key.
    #[allow(clippy::type_complexity)]
    fn group(
        &self,
        replies: Vec<Reply>,
        sender: Option<&str>,
    ) -> Result<Vec<(String, String, String, Option<ReplyKey>)>, ServerError> {
        let mut out = Vec::new();
        let mut sender_done = false;
        for (i, r) in replies.iter().enumerate() {
            if Some(r.to.as_str()) != sender {
                if !replies[..i].contains(r) {
                    out.push((
                        r.to.clone(),
                        r.subject.clone(),
                        r.body.clone(),
                        r.reply_key.clone(),
                    ));
                }
                continue;
            }
            if sender_done {
                continue;
            }
            sender_done = true;
            let to = r.to.clone();
            let mine: Vec<&Reply> = replies.iter().filter(|r| r.to == to).collect();
            if let [one] = mine.as_slice() {
                out.push((
                    to,
                    one.subject.clone(),
                    one.body.clone(),
                    one.reply_key.clone(),
                ));
                continue;
            }
            let parts: Vec<_> = mine
                .iter()
                .map(|r| context! { subject => &r.subject, body => r.body.trim_end() })
                .collect();
            let body = self
                .templates
                .render("multiple.txt", context! { parts => parts })?;
            let subject = format!("{} answers ({} parts)", self.config.server.name, mine.len());
            out.push((to, subject, body, None));
        }
        Ok(out)
    }

    /// The error mail for a refused command, to the sender only.
    fn refusal_reply(
        &self,
        ctx: &Ctx<'_>,
        refusal: &Refusal,
        masked: &str,
    ) -> Result<Reply, ServerError> {
        // Words that may be a password (see `guard`) are masked too.
        let masked = &guard::quote(ctx, masked)?;
        let title = refusal
            .game
            .as_deref()
            .and_then(crate::rules::game)
            .map(|g| g.title());
        let subject = match (title, refusal.board) {
            (Some(t), Some(b)) => format!("{t} Board {b} Error"),
            (Some(t), None) => format!("{t} Error"),
            _ => "Error".to_string(),
        };
        let board = match (&refusal.game, refusal.board) {
            (Some(game), Some(number)) => match play::drawing_for_sender(ctx, game, number) {
                Ok(drawing) => drawing.map(|d| d.trim_end().to_string()),
                Err(Failure::Internal(e)) => return Err(e),
                Err(Failure::Refused(_)) => None,
            },
            _ => None,
        };
        // The comment is quoted back, so that it is not lost; any word of
        // the command that the quote masks is masked in it too. Only to a
        // confirmed address (issue #31): to any other (forged, unknown)
        // sender the error quotes the command line alone, never the body,
        // so the server cannot be made to mail a stranger's text.
        let confirmed = match ctx.sender {
            Some(sender) => store::is_confirmed_address(ctx.conn, sender)?,
            None => true,
        };
        let comment = if confirmed {
            text::masked_like(ctx.comment.trim(), ctx.line, masked)
        } else {
            String::new()
        };
        let body = self.templates.render(
            "error.txt",
            context! {
                message => &refusal.sentence,
                board => board,
                command => masked,
                comment => comment,
            },
        )?;
        Ok(Reply {
            to: ctx.sender.unwrap_or_default().to_string(),
            subject,
            body,
            reply_key: None,
        })
    }

    /// Run one parsed command.
    fn execute(&self, ctx: &Ctx<'_>, parsed: &Parsed) -> Handled<Vec<Reply>> {
        match &parsed.command {
            Command::Help { topics } => account::help(ctx, topics),
            Command::Signup {
                userid,
                password,
                addresses,
            } => account::signup(ctx, userid, password, addresses),
            Command::ChangePassword { who, new } => account::change_password(ctx, who, new),
            Command::ChangeAddress { who, addresses } => {
                account::change_address(ctx, who, addresses)
            }
            Command::Signoff { who } => account::signoff(ctx, who),
            Command::ConfirmAddress { userid, code } => confirm::confirm_address(ctx, userid, code),
            Command::List { games } => social::list(ctx, games),
            Command::Vacation { who, days } => settings::vacation(ctx, who, *days),
            Command::ShowVacation { who } => settings::vacation_report(ctx, who),
            Command::Message { who, to } => social::message_users(ctx, who, to),
            Command::Broadcast { who } => admin::broadcast(ctx, who),
            Command::AllShow { userid, filter } => social::all_show(ctx, userid, *filter),
            Command::Game { game, command } => self.execute_game(ctx, game, command),
        }
    }

    fn execute_game(
        &self,
        ctx: &Ctx<'_>,
        game: &str,
        command: &GameCommand,
    ) -> Handled<Vec<Reply>> {
        let Some(rules) = crate::rules::game(game) else {
            return Err(Refusal::new(format!(
                "This server does not referee {game} yet; send \"help\" for the games it has."
            ))
            .into());
        };
        match command {
            GameCommand::Help => account::help(ctx, &[rules.name().to_string()]),
            GameCommand::Challenge {
                players,
                options,
                timers,
            } => play::challenge(ctx, rules, players, options, timers),
            GameCommand::Move {
                board,
                who,
                action,
                ply,
            } => play::act(ctx, rules, *board, who, action, *ply),
            GameCommand::Resign { board, who } => {
                play::act(ctx, rules, *board, who, &command::MoveAction::Resign, None)
            }
            GameCommand::Queue {
                board,
                who,
                action,
                ply,
            } => pending::queue(ctx, rules, *board, who, action, *ply),
            GameCommand::Submit {
                board,
                who,
                action,
                ply,
            } => pending::submit(ctx, rules, *board, who, action, *ply),
            GameCommand::Confirm { board, who } => pending::confirm(ctx, rules, *board, who),
            GameCommand::Preview { from, moves } => pending::preview(ctx, rules, from, moves),
            GameCommand::Show { boards } => play::show(ctx, rules, boards),
            GameCommand::ShowUsers { users, filter } => {
                play::show_users(ctx, rules, users, *filter)
            }
            GameCommand::Games { users, filter } => play::games(ctx, rules, users, *filter),
            GameCommand::Set { who, look } => account::set_look(ctx, rules, who, *look),
            GameCommand::Chat { board, who } => social::chat(ctx, rules, *board, who),
            GameCommand::Subscribe { boards, all, who } => {
                social::subscribe(ctx, rules, boards, *all, who)
            }
            GameCommand::Unsubscribe { boards, all, who } => {
                social::unsubscribe(ctx, rules, boards, *all, who)
            }
            GameCommand::Standings => social::standings(ctx, rules),
            GameCommand::ShowAs {
                who,
                boards,
                filter,
            } => social::show_as(ctx, rules, who, boards, *filter),
            GameCommand::Notify { who, boards } => settings::notify(ctx, rules, who, boards),
            GameCommand::AcceptChallenges { who } => {
                settings::challenges(ctx, rules, who, |s| s.accepts = true)
            }
            GameCommand::RejectChallenges { who } => {
                settings::challenges(ctx, rules, who, |s| s.accepts = false)
            }
            GameCommand::Limit { who, max } => {
                settings::challenges(ctx, rules, who, |s| s.limit = *max)
            }
            GameCommand::ShowLimit { who } => settings::limit_report(ctx, rules, who),
            GameCommand::History => social::history(ctx, rules),
            GameCommand::Players => social::players(ctx, rules),
            GameCommand::Seek { who, note } => play::seek(ctx, rules, who, note),
            GameCommand::Record { board } => play::record(ctx, rules, *board),
        }
    }

    /// Send the reminders and apply the forfeits due now (`tick`, and each
    /// pass of the daemon), all in one transaction. Returns the mails queued.
    pub fn run_timers(&self, conn: &mut Connection) -> Result<usize, ServerError> {
        let replies = self
            .admin(conn, |ctx| {
                let replies = play::run_timers(ctx)?;
                Ok(self.queue(ctx.conn, replies, None, None, ctx.now)?)
            })?
            .unwrap_or(0);
        Ok(replies)
    }

    /// Create a user from the admin CLI.
    pub fn admin_add_user(
        &self,
        conn: &mut Connection,
        userid: &str,
        password: &str,
        addresses: &[String],
    ) -> Result<Result<(), Refusal>, ServerError> {
        self.admin(conn, |ctx| {
            account::create_user(ctx, userid, &command::Password::new(password), addresses)
                .map(|_| ())
        })
    }

    /// Set a user's password from the admin CLI.
    pub fn admin_set_password(
        &self,
        conn: &mut Connection,
        userid: &str,
        password: &str,
    ) -> Result<Result<(), Refusal>, ServerError> {
        self.admin(conn, |ctx| {
            let userid = userid.to_lowercase();
            if store::user(ctx.conn, &userid)?.is_none() {
                return Err(Refusal::new(format!("there is no user called {userid}")).into());
            }
            if password.is_empty() {
                return Err(Refusal::new("the password must not be empty").into());
            }
            store::set_password_hash(ctx.conn, &userid, &account::hash_password(password)?)?;
            // A new password from the admin ends a lockout too.
            store::clear_password_failures(ctx.conn, &userid)?;
            self.credentials.forget(&userid);
            Ok(())
        })
    }

    /// Start a board from the admin CLI; the players get their board mails.
    pub fn admin_challenge(
        &self,
        conn: &mut Connection,
        game: &str,
        players: &[String],
        options: &[String],
        timers: &command::Timers,
    ) -> Result<Result<u32, Refusal>, ServerError> {
        self.admin(conn, |ctx| {
            let Some(rules) = crate::rules::game(game) else {
                return Err(Refusal::new(format!("There is no game called {game}.")).into());
            };
            let (number, replies) = play::start_board(ctx, rules, players, options, timers, None)?;
            self.queue(ctx.conn, replies, None, None, ctx.now)?;
            Ok(number)
        })
    }

    /// The board mail body of a board, as `show` would send it.
    pub fn admin_show(
        &self,
        conn: &mut Connection,
        game: &str,
        board: u32,
        size: BoardSize,
    ) -> Result<Result<String, Refusal>, ServerError> {
        self.admin(conn, |ctx| {
            let Some(rules) = crate::rules::game(game) else {
                return Err(Refusal::new(format!("There is no game called {game}.")).into());
            };
            play::show_body(ctx, rules, board, None, Drawing::from(size))
        })
    }

    fn admin<T>(
        &self,
        conn: &mut Connection,
        f: impl FnOnce(&Ctx<'_>) -> Handled<T>,
    ) -> Result<Result<T, Refusal>, ServerError> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        self.computer_budget.start();
        self.previews.forget();
        let ctx = Ctx {
            conn: &tx,
            server: self,
            now: self.clock.now(),
            sender: None,
            comment: "",
            line: "",
            vouched: None,
            session: &guard::Session::default(),
        };
        let result = f(&ctx);
        match result {
            Ok(value) => {
                tx.commit()?;
                Ok(Ok(value))
            }
            Err(Failure::Refused(r)) => Ok(Err(r)),
            Err(Failure::Internal(e)) => Err(e),
        }
    }
}

/// The size that counts against `[limits] max_reply_bytes`: the answers
/// to `sender` together, or the largest mail to anyone else; each mail as
/// (to, subject, body).
fn answers_size<'r>(
    mails: impl Iterator<Item = (&'r str, &'r str, &'r str)>,
    sender: &str,
) -> usize {
    let mut to_sender = 0;
    let mut largest = 0;
    for (to, subject, body) in mails {
        let size = subject.len() + body.len();
        if to == sender {
            to_sender += size;
        } else {
            largest = largest.max(size);
        }
    }
    to_sender.max(largest)
}

/// The refusal of a command that needs no password from a mail whose From
/// the receiving MTA did not authenticate.
const UNAUTHENTICATED: &str =
    "This server's mail host could not confirm that your mail comes from\n\
the address in its From (no DMARC or aligned DKIM pass), and this command\n\
needs no password, so it is not run; send it from a mail system that\n\
signs its mail (DKIM), or ask the server's admin.";

/// Whether `command` may only come from an authenticated From when
/// `[security] authserv_id` is set: a command that needs no password and
/// mails others than the sender (a challenge; a reply by token is checked
/// in `reply`). Commands with a password are the password's; those that
/// only answer the sender cost the sender's address one mail.
fn needs_authenticated_from(command: &Command) -> bool {
    matches!(
        command,
        Command::Game {
            command: GameCommand::Challenge { .. },
            ..
        }
    )
}

/// Whether `mail` answers one of our own error mails (by its
/// `In-Reply-To`/`References`; see [`crate::mail::is_error_message_id`]).
fn answers_our_error(mail: &Envelope, address: &str) -> bool {
    mail.replied_to
        .iter()
        .any(|id| crate::mail::is_error_message_id(id, address))
}

/// Said under every answer to the sender of a mail whose command was read
/// from the first line of its body.
const EMPTY_SUBJECT_NOTE: &str =
    "Your Subject was empty, so the first line of your mail was read as the command.";
