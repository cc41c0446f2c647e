//! Executes commands: one inbound mail in one SQLite transaction, together
//! with every reply it causes (the outbox).
//!
//! A mail's way: its Message-ID and fingerprint are recorded (a duplicate,
//! the same mail delivered again, stops there), the
//! never-answer and rate rules are applied, `command` reads it, each command
//! runs inside its own savepoint (a refused command changes nothing, the
//! others still apply), the replies are grouped into one mail per recipient
//! and queued in the outbox, and the transaction commits. A database or
//! template failure rolls everything back and leaves the mail in the inbox.
//!
//! The modules, in layers: each imports only modules listed after it
//! (and `Ctx`, `Refusal`, `Failure`, `Reply` from here); nothing below
//! imports upwards, so each can be read, and changed, knowing only what
//! is under it.
//!
//! - the dispatch tables: `dispatch` (the handler of each command);
//! - the commands: `admin` (what the server admin does: users, boards
//!   deleted, adjudicated and shown, vacations, broadcasts; see also
//!   `crate::admin`), `social` (chat, observers, listings), `submit`
//!   (submit and confirm), `queue`, `preview`, `timers` (the timers' run:
//!   reminders and forfeits), `challenge` (challenge, seek: boards
//!   started), `show` (show, games, pgn), `help`, `settings` (vacations,
//!   notifications, which challenges a player takes, how boards look),
//!   `account` (signup, passwords, addresses, signoff), `conditional`
//!   (`if`: conditional moves), `play` (move, resign, draw and undo),
//!   `tournament` (tournaments: their commands, rounds, withdrawals and
//!   crosstables);
//! - below them: `computer` (the computer player's turns and answers),
//!   `autoplay` (queued and conditional moves played when their turn
//!   comes), `seat` (a board act's player seated on the board), `outbox`
//!   (the mails grouped per recipient, charged when they go to strangers,
//!   and queued: one outbox row each, written once), `confirm`
//!   (address confirmation), `loaded` (a board loaded with its plies; a
//!   ply stored, a game finished and rated), `compose` (board mails),
//!   `record` (the move list's records and the game record, PGN);
//! - at the bottom: `reply` (playing by reply: the reply tokens of board
//!   mails, and a reply read as its player's command), `templates`,
//!   `guard` (throttles and charges), `text` (capitals, comments with
//!   passwords masked), `credentials` (password checks within the mail's
//!   budget), `password` (hashes), `addresses`, `bounces` (bounces of the
//!   server's own mail: which count, when an address is stopped; the
//!   daemon calls it around each mail).

mod account;
mod addresses;
mod admin;
mod autoplay;
pub(crate) mod bounces;
mod challenge;
mod compose;
mod computer;
mod conditional;
mod confirm;
pub(crate) mod credentials;
mod dispatch;
mod guard;
mod help;
mod listings;
mod loaded;
mod masking;
mod outbox;
mod password;
mod play;
mod preview;
mod queue;
mod record;
mod reply;
mod seat;
mod sentences;
mod settings;
mod show;
mod social;
mod strangers;
mod submit;
pub mod templates;
mod timers;
mod tournament;
mod wrapping;

use chrono::{DateTime, Utc};
use minijinja::context;
use rusqlite::{Connection, TransactionBehavior};

use crate::clock::Clock;
use crate::config::Config;
use crate::mail::Envelope;
use crate::store::{self, StoreError};
use game::command::{self, Command, Credentials, Parsed};
use game::render::Drawing;
use templates::{TemplateError, Templates};

pub(crate) use admin::{AdminError, Ruling};
pub use preview::play_move_words;
pub(crate) use reply::ReplyKey;
pub use tournament::AdminTournamentAct;

/// What became of one inbound mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MailOutcome {
    /// Seen before (same Message-ID, sender and text): nothing applied,
    /// nothing sent.
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

/// What became of one inbound mail, with its Subject as its log line
/// shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Processed {
    pub outcome: MailOutcome,
    /// The Subject made by [`log_subject`], with every password the server
    /// found in the mail while handling it masked too (see `guard`).
    pub log_subject: String,
    /// The computer thought for a board in this mail (the daemon ends its
    /// group of mails after it: see `computer`).
    pub computer_thought: bool,
}

/// The Subject of a mail as a log line (or the record of a failed mail)
/// may show it: the one place that text is made. Passwords are not written
/// to logs.
pub(crate) fn log_subject(subject: &str) -> String {
    command::log_line(subject)
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
    pub(crate) fn new(sentence: impl Into<String>) -> Refusal {
        Refusal {
            sentence: sentence.into(),
            game: None,
            board: None,
        }
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

/// A mail admitted to run its commands (see [`Server::admit`]).
struct Letter<'m> {
    mail: &'m Envelope,
    /// Its sender's address (a mail without one is settled at admission).
    sender: &'m str,
    /// The receiving MTA authenticated its From (`[security] authserv_id`).
    authenticated: bool,
    /// It was read as a reply to a board mail.
    by_reply: Option<reply::ByReply>,
    /// Its commands, read once.
    request: command::Request,
    now: DateTime<Utc>,
}

/// What [`Server::admit`] made of a mail.
enum Admitted<'m> {
    /// Its outcome is final: none of its commands run.
    Settled(MailOutcome),
    /// A reply settled so: its log names the board it answers.
    SettledReply(MailOutcome, String),
    /// Its commands are to run.
    Read(Box<Letter<'m>>),
}

/// The answers the commands of a mail caused so far, and how many of them
/// were refused (and of those, how many for the limits).
#[derive(Default)]
struct Tally {
    replies: Vec<Reply>,
    refused: usize,
    dropped: usize,
    /// From a stranger: the bytes their answers may still take.
    stranger_room: Option<usize>,
    /// A stranger's command was not run for that bound.
    stranger_cut: bool,
}

impl Tally {
    /// A command refused with this error mail.
    fn refuse(&mut self, reply: Reply) {
        self.refused += 1;
        self.replies.push(reply);
    }
}

/// The answers of a mail, ready to queue.
enum Answered {
    /// Every command was dropped for the limits: nothing ran.
    Dropped(Vec<Reply>),
    /// The mails to send; `refused` of the commands were.
    Mails { mails: Vec<Reply>, refused: usize },
}

/// Why the `answers` savepoint of a mail is rolled back.
enum Unanswered {
    /// The answers are over `[limits] max_reply_bytes`: this sentence.
    TooLarge(String),
    /// A failure that is not the player's.
    Failed(ServerError),
}

impl<E: Into<ServerError>> From<E> for Unanswered {
    fn from(e: E) -> Self {
        Unanswered::Failed(e.into())
    }
}

/// The server: config, clock and templates; the database is passed per call.
pub struct Server<'a> {
    pub config: &'a Config,
    pub clock: &'a dyn Clock,
    pub templates: &'a Templates,
    /// Passwords verified in this process (see [`credentials`]).
    pub credentials: credentials::VerifiedCredentials,
    /// The argon2id work of mails, done before their transactions (see
    /// [`Server::prepare_mail`]).
    prepared: credentials::PreparedHashes,
}

impl<'a> Server<'a> {
    pub fn new(config: &'a Config, clock: &'a dyn Clock, templates: &'a Templates) -> Self {
        Server {
            config,
            clock,
            templates,
            credentials: credentials::VerifiedCredentials::new(),
            prepared: credentials::PreparedHashes::default(),
        }
    }

    /// Before the transaction that handles `mail` begins: its argon2id
    /// work, within its budget (the hashes of the new passwords it gives,
    /// the checks of the passwords its commands give), so that none runs
    /// while the database is locked for writing (see
    /// `guard::prepare_hashes`). A mail handled without this has no new
    /// password hashed (its signups and password changes are refused as
    /// over the budget) and checks its passwords in the transaction.
    /// Reads only; [`Server::handle_mail`] calls it itself.
    pub fn prepare_mail(
        &self,
        conn: &Connection,
        mail: &Envelope,
        raw_len: usize,
    ) -> Result<(), ServerError> {
        if !self.prepared.has(&mail.message_id) {
            let hashes = guard::prepare_hashes(self, conn, mail, raw_len)?;
            self.prepared.put(&mail.message_id, hashes);
        }
        Ok(())
    }

    /// Whether the work [`Server::prepare_mail`] did for the mail
    /// `message_id` still holds: every account it was done against has
    /// the stored hash it had then. An earlier mail of the same group may
    /// have signed one up or changed its password; the daemon then ends
    /// the group before this mail, which is prepared again outside the
    /// write lock (see [`Server::forget_prepared`]).
    pub(crate) fn prepared_is_current(
        &self,
        conn: &Connection,
        message_id: &str,
    ) -> Result<bool, ServerError> {
        for (userid, stored) in self.prepared.accounts_of(message_id) {
            let now = crate::store::user(conn, &userid)?.map(|u| u.password_hash);
            if now != stored {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Drop the work prepared for the mail `message_id`, so that
    /// [`Server::prepare_mail`] does it again.
    pub(crate) fn forget_prepared(&self, message_id: &str) {
        self.prepared.take(message_id);
    }

    /// The body of a plain text answer, from `message.txt`.
    pub(crate) fn notice_body(&self, text: &str) -> Result<String, TemplateError> {
        self.templates
            .render("message.txt", context! { text => text })
    }

    /// The envelope of a raw inbound mail, read with this server's own
    /// address (mail from it is never answered): the one place the daemon
    /// and the quarantine's replay read a mail.
    pub(crate) fn envelope_of(&self, raw: &[u8]) -> crate::mail::Envelope {
        let own = [self.config.server.address.to_ascii_lowercase()];
        crate::mail::parse_envelope(raw, &own)
    }

    /// Process one inbound mail completely: everything it changes and every
    /// reply it causes commit together, or nothing does.
    pub fn handle_mail(
        &self,
        conn: &mut Connection,
        mail: &Envelope,
        raw_len: usize,
    ) -> Result<MailOutcome, ServerError> {
        self.prepare_mail(conn, mail, raw_len)?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let processed = self.handle_mail_within(&tx, mail, raw_len)?;
        tx.commit()?;
        Ok(processed.outcome)
    }

    /// [`Server::handle_mail`] inside a transaction the caller opened and
    /// commits (several mails to one commit: `daemon` does so, each mail in
    /// a savepoint of its own), with the Subject its log line shows. On an
    /// error the mail's changes are partly made: the caller rolls them
    /// back.
    ///
    /// The mail goes through three steps: `Server::admit` (settled there,
    /// or read into its commands), `Server::run_commands` and
    /// `Server::finish_answers` (together in the savepoint `answers`,
    /// which answers too large roll back), then `Server::settle` queues
    /// what it sends and records the outcome.
    pub fn handle_mail_within(
        &self,
        tx: &Connection,
        mail: &Envelope,
        raw_len: usize,
    ) -> Result<Processed, ServerError> {
        let now = self.clock.now();
        let hashes = self.prepared.take(&mail.message_id);
        let letter = match self.admit(tx, mail, raw_len, now)? {
            Admitted::Settled(outcome) => {
                return Ok(Processed {
                    outcome,
                    log_subject: log_subject(&mail.subject),
                    computer_thought: false,
                })
            }
            Admitted::SettledReply(outcome, log_subject) => {
                return Ok(Processed {
                    outcome,
                    log_subject,
                    computer_thought: false,
                })
            }
            Admitted::Read(letter) => letter,
        };
        let computer_budget = computer::Budget::default();
        let mut session = guard::Session::for_reply(letter.by_reply.is_some());
        session.prepared(hashes);
        if !letter.authenticated {
            session.sent_unauthenticated();
        }
        // A command read from the body's first line (empty Subject) has the
        // rest of the body as its comment.
        let body_comment = letter
            .request
            .body_after_command
            .as_deref()
            .map(crate::mail::extract_comment);
        let ctx = Ctx {
            conn: tx,
            server: self,
            now,
            sender: Some(letter.sender),
            // The body of a `multiple` mail is its commands (with their
            // passwords), never a comment to relay.
            comment: match (&letter.by_reply, &body_comment) {
                (Some(r), _) => &r.comment,
                (None, Some(comment)) => comment,
                (None, None) if letter.request.multiple => "",
                (None, None) => &mail.comment,
            },
            line: if letter.request.multiple || letter.by_reply.is_some() {
                ""
            } else {
                // The part the parser read (its first 1 KB): words after
                // it were never read, so they are no password to mask.
                command::read_part(&mail.subject)
            },
            vouched: letter.by_reply.as_ref().and_then(|r| r.vouched.as_deref()),
            session: &session,
            computer_budget: &computer_budget,
            previews: &preview::Previews::default(),
        };
        // Every answer is bounded (see `crate::limits`): the commands run
        // in a savepoint that an answer too large rolls back (their
        // charges stay: see `guard`).
        let answered = session.savepoint(tx, "answers", || {
            let tally = self.run_commands(&ctx, &letter)?;
            self.finish_answers(&ctx, &letter, tally)
        });
        let outcome = self.settle(tx, &letter, &session, answered)?;
        // A reply's Subject is the board mail's: the log names the board
        // the reply was read for.
        let log_subject = match &letter.by_reply {
            Some(reply) => reply.log_subject.clone(),
            None => log_subject(&mail.subject),
        };
        Ok(Processed {
            outcome,
            log_subject: session.mask_quote(&log_subject),
            computer_thought: computer_budget.used(),
        })
    }

    /// Record what became of `mail` (its Message-ID is seen from now on).
    fn record(
        &self,
        tx: &Connection,
        mail: &Envelope,
        outcome: &str,
        now: DateTime<Utc>,
    ) -> Result<(), ServerError> {
        let fingerprint = mail.fingerprint();
        let seen = (mail.message_id.as_str(), fingerprint.as_str());
        store::record_mail(tx, seen, mail.sender.as_deref(), outcome, now)?;
        Ok(())
    }

    /// Step 1, admit. Guarantees: a mail seen before changes nothing
    /// (`Duplicate`); a mail never to be answered (or without a sender),
    /// one over `[limits] max_message_bytes`, a reply by token whose From
    /// is not authenticated and a mail without a command from an address
    /// over its limit are recorded and settled here, charged as the limits
    /// say, and none of their commands run. Any other mail is read once
    /// (as a reply to a board mail, else its Subject and body) into the
    /// commands to run.
    fn admit<'m>(
        &self,
        tx: &Connection,
        mail: &'m Envelope,
        raw_len: usize,
        now: DateTime<Utc>,
    ) -> Result<Admitted<'m>, ServerError> {
        if store::mail_seen(tx, &mail.message_id, &mail.fingerprint())? {
            return Ok(Admitted::Settled(MailOutcome::Duplicate));
        }
        let sender = match (&mail.never_answer, &mail.sender) {
            (None, Some(sender)) => sender.as_str(),
            (reason, _) => {
                let reason = reason
                    .clone()
                    .unwrap_or_else(|| "the mail has no sender address".into());
                // Ignored mail still costs its sender's hourly count (no
                // reply says so), so that it is no free channel.
                if let Some(sender) = &mail.sender {
                    store::count_command(tx, store::CountScope::Address, sender, now)?;
                }
                self.record(tx, mail, "ignored", now)?;
                return Ok(Admitted::Settled(MailOutcome::Ignored(reason)));
            }
        };
        if raw_len > self.config.limits.max_message_bytes {
            let outcome = self.refuse_too_large(tx, mail, sender, raw_len, now)?;
            return Ok(Admitted::Settled(outcome));
        }
        let request = command::parse_mail(&mail.subject, &mail.body);
        let by_reply = reply::read(tx, self, mail, sender, &request)?;
        let unauthenticated = by_reply
            .as_ref()
            .and_then(|r| Some((r.unauthenticated.as_deref()?, &r.log_subject)));
        if let Some((userid, logged)) = unauthenticated {
            let outcome = self.unauthenticated_reply(tx, mail, userid, now)?;
            return Ok(Admitted::SettledReply(outcome, logged.clone()));
        }
        let request = match &by_reply {
            Some(r) => r.request(),
            None => request,
        };
        if request.commands.is_empty() && guard::over_address_limit(self, tx, sender, now)? {
            self.record(tx, mail, "rate-limited", now)?;
            return Ok(Admitted::Settled(MailOutcome::RateLimited));
        }
        let authserv_id = self.config.security.authserv_id.as_deref();
        Ok(Admitted::Read(Box::new(Letter {
            mail,
            sender,
            authenticated: mail.authenticated(authserv_id),
            by_reply,
            request,
            now,
        })))
    }

    /// A mail over `[limits] max_message_bytes`: one error mail saying so
    /// (none when its address is over its hourly limit), nothing read.
    fn refuse_too_large(
        &self,
        tx: &Connection,
        mail: &Envelope,
        sender: &str,
        raw_len: usize,
        now: DateTime<Utc>,
    ) -> Result<MailOutcome, ServerError> {
        if guard::over_address_limit(self, tx, sender, now)? {
            self.record(tx, mail, "rate-limited", now)?;
            return Ok(MailOutcome::RateLimited);
        }
        self.record(tx, mail, "too-large", now)?;
        let nothing_proved = guard::Session::default();
        if !guard::answer_may_go(self, tx, &nothing_proved, sender, sender, now)? {
            return Ok(MailOutcome::TooLarge);
        }
        let text = format!(
            "Your mail is {raw_len} bytes long, more than the {} bytes this server reads; send the command again without attachments or long quotes.",
            self.config.limits.max_message_bytes
        );
        let body = self.notice_body(&text)?;
        self.queue_notice(tx, sender, "Error", body, Some(&mail.message_id), now)?;
        Ok(MailOutcome::TooLarge)
    }

    /// Step 2, run the commands, in order. Guarantees: each is admitted by
    /// the limits and throttles first ([`Server::admit_or_refuse`]); each
    /// that runs does so in a savepoint of its own, so a refused command
    /// changes nothing while the others still apply, and what it was
    /// charged stays; the answers (replies, refusals, lockout notices) are
    /// collected, with no password masked yet. No command runs once the
    /// answers so far are over `[limits] max_reply_bytes`.
    fn run_commands(&self, ctx: &Ctx<'_>, letter: &Letter<'_>) -> Result<Tally, ServerError> {
        let mut tally = Tally::default();
        if letter.request.commands.is_empty() {
            let refusal = Refusal::new(
                "Your mail holds no command: write the command on the Subject line, or Subject \"multiple\" and one command per line of the body.",
            );
            tally.refuse(self.refusal_reply(ctx, &refusal, &letter.mail.subject)?);
        }
        let mut read_before: Vec<&Command> = Vec::new();
        // A stranger's answers are bounded (see `strangers`).
        let stranger = strangers::is_stranger(ctx, letter.sender)?;
        let commands = &letter.request.commands;
        for (i, parsed) in commands.iter().enumerate() {
            let so_far = tally
                .replies
                .iter()
                .map(|r| (r.to.as_str(), r.subject.as_str(), r.body.as_str()));
            if answers_size(so_far, letter.sender) > self.config.limits.max_reply_bytes {
                break;
            }
            tally.stranger_room = stranger.then(|| {
                let used = strangers::bytes_to(tally.replies.iter(), letter.sender);
                strangers::STRANGER_REPLY_BYTES.saturating_sub(used)
            });
            match parsed {
                _ if tally.stranger_room == Some(0) => tally.stranger_cut = true,
                Ok(parsed) => {
                    self.run_command(ctx, letter, parsed, &mut read_before, &mut tally)?
                }
                Err(e) => self.refuse_unread(ctx, e, &mut tally)?,
            }
            if tally.stranger_cut {
                let rest = commands.len() - i - 1;
                let masked = match parsed {
                    Ok(p) => &p.masked,
                    Err(e) => &e.masked,
                };
                let refusal = Refusal::new(strangers::cut_sentence(rest));
                tally.refuse(self.refusal_reply(ctx, &refusal, masked)?);
                break;
            }
        }
        Ok(tally)
    }

    /// One command of step 2: skipped when it only reads what a command
    /// before it read; refused when it needs an authenticated From; then
    /// admitted, collapsed (`[limits] max_list_items`), run in its savepoint
    /// and charged, and the wrong passwords it was given counted.
    fn run_command<'r>(
        &self,
        ctx: &Ctx<'_>,
        letter: &Letter<'_>,
        parsed: &'r Parsed,
        read_before: &mut Vec<&'r Command>,
        tally: &mut Tally,
    ) -> Result<(), ServerError> {
        let reads = command::only_reads(&parsed.command);
        if reads && read_before.contains(&&parsed.command) {
            return Ok(());
        }
        if !letter.authenticated && dispatch::needs_authenticated_from(&parsed.command) {
            let refusal = Refusal::new(dispatch::UNAUTHENTICATED);
            tally.refuse(self.refusal_reply(ctx, &refusal, &parsed.masked)?);
            return Ok(());
        }
        let who = parsed.command.credentials();
        if !self.admit_or_refuse(ctx, who, &parsed.masked, tally)? {
            return Ok(());
        }
        ctx.session.begin(&parsed.masked);
        if reads {
            read_before.push(&parsed.command);
        }
        let run = match command::collapse(parsed.command.clone(), self.config.limits.max_list_items)
        {
            Ok(command) => Parsed {
                command,
                masked: parsed.masked.clone(),
            },
            Err(sentence) => {
                tally.refuse(self.refusal_reply(ctx, &Refusal::new(sentence), &parsed.masked)?);
                guard::charge(ctx, who)?;
                return Ok(());
            }
        };
        if !command::only_reads(&run.command) {
            // A board may change: replays for previews are stale.
            ctx.previews.forget();
        }
        let changes = !command::only_reads(&run.command);
        let room = tally.stranger_room;
        let over_room = std::cell::Cell::new(false);
        match ctx.session.savepoint(ctx.conn, "command", || {
            let replies = dispatch::execute(ctx, &run)?;
            // Past a stranger's bound: nothing of it is done (see
            // `strangers`); the refusal is said by `run_commands`.
            if room.is_some_and(|room| strangers::bytes_to(replies.iter(), letter.sender) > room) {
                over_room.set(true);
                return Err(Failure::Refused(Refusal::new(String::new())));
            }
            // A board may have ended: a tournament's next round, in this
            // transaction.
            if changes {
                tournament::advance(ctx)?;
            }
            Ok(replies)
        }) {
            Ok(mut replies) => tally.replies.append(&mut replies),
            Err(Failure::Refused(_)) if over_room.get() => tally.stranger_cut = true,
            Err(Failure::Refused(refusal)) => {
                tally.refused += 1;
                if !ctx.session.quiet() {
                    let reply = self.refusal_reply(ctx, &refusal, &run.masked)?;
                    tally.replies.push(reply);
                }
            }
            Err(Failure::Internal(e)) => return Err(e),
        }
        guard::charge(ctx, who)?;
        match guard::count_failures(ctx) {
            Ok(mut notices) => tally.replies.append(&mut notices),
            Err(Failure::Internal(e)) => return Err(e),
            Err(Failure::Refused(_)) => {}
        }
        Ok(())
    }

    /// A line of step 2 that is no command: it costs the sender's address
    /// (admitted like a command without credentials) and is answered with
    /// the parser's sentence.
    fn refuse_unread(
        &self,
        ctx: &Ctx<'_>,
        e: &command::ParseError,
        tally: &mut Tally,
    ) -> Result<(), ServerError> {
        if !self.admit_or_refuse(ctx, None, &e.masked, tally)? {
            return Ok(());
        }
        guard::charge(ctx, None)?;
        // Its sender's password in a wrong place.
        let (refusal, notices) = guard::parse_refusal(ctx, e)?;
        tally.refuse(self.refusal_reply(ctx, &refusal, &e.masked)?);
        tally.replies.extend(notices);
        Ok(())
    }

    /// The limits' word on a command for `who` (`None`: no credentials):
    /// true when it runs. One refused or dropped for the limits is counted
    /// as refused and dropped, and a refusal is answered quoting `masked`.
    fn admit_or_refuse(
        &self,
        ctx: &Ctx<'_>,
        who: Option<&Credentials>,
        masked: &str,
        tally: &mut Tally,
    ) -> Result<bool, ServerError> {
        let refusal = match guard::admit(ctx, who)? {
            guard::Admission::Run => return Ok(true),
            guard::Admission::Refuse(refusal) => Some(refusal),
            guard::Admission::Drop => None,
        };
        tally.refused += 1;
        tally.dropped += 1;
        if let Some(refusal) = refusal {
            tally
                .replies
                .push(self.refusal_reply(ctx, &refusal, masked)?);
        }
        Ok(false)
    }

    /// Step 3, finish the answers, still inside the `answers` savepoint.
    /// Guarantees: a refused reply of a board's player may be answered by
    /// reply; no error answers an error of ours; every password the mail
    /// showed is masked in every answer to its sender, and in no mail to
    /// anyone else (see `guard`); the answers to the sender are joined
    /// into one mail. `Err(TooLarge)` when the mails are over
    /// `[limits] max_reply_bytes` (the savepoint is then rolled back).
    fn finish_answers(
        &self,
        ctx: &Ctx<'_>,
        letter: &Letter<'_>,
        tally: Tally,
    ) -> Result<Answered, Unanswered> {
        let Tally {
            mut replies,
            refused,
            dropped,
            ..
        } = tally;
        let (mail, sender) = (letter.mail, letter.sender);
        // A refused reply of the board's player: the error mail shows the
        // board now and may itself be answered by reply.
        if let Some(key) = letter.by_reply.as_ref().and_then(|r| r.answerable.as_ref()) {
            if refused > 0 {
                for reply in replies.iter_mut().filter(|r| r.to == sender) {
                    reply.reply_key = Some(key.clone());
                }
            }
        }
        if answers_our_error(mail, &self.config.server.address) {
            // Never an error for an error (a loop with another server
            // behind a forwarder that strips Auto-Submitted).
            replies.retain(|r| r.to != sender || !crate::mail::is_error_subject(&r.subject));
        }
        ctx.session.mask_replies(&mut replies, sender);
        if dropped > 0 && dropped == letter.request.commands.len() {
            // Nothing of the mail ran: dropped for the limits.
            return Ok(Answered::Dropped(replies));
        }
        if letter.request.body_after_command.is_some() {
            for reply in replies.iter_mut().filter(|r| r.to == sender) {
                reply.body = format!("{}\n\n{EMPTY_SUBJECT_NOTE}\n", reply.body.trim_end());
            }
        }
        let mails = self.group(replies, Some(sender))?;
        let size = answers_size(
            mails
                .iter()
                .map(|m| (m.to.as_str(), m.subject.as_str(), m.body.as_str())),
            sender,
        );
        match crate::limits::reply_too_large(size, self.config.limits.max_reply_bytes) {
            Some(sentence) => Err(Unanswered::TooLarge(sentence)),
            None => Ok(Answered::Mails { mails, refused }),
        }
    }

    /// After the `answers` savepoint: queue what the mail sends and record
    /// its outcome. Answers too large were rolled back: nothing of the
    /// mail is done, but what it was charged stays (and the lockout
    /// notices it caused are sent): no rollback makes guessing free. The
    /// refusal does not tell the size. Mails to strangers are charged last
    /// ([`Server::charge_strangers`]).
    fn settle(
        &self,
        tx: &Connection,
        letter: &Letter<'_>,
        session: &guard::Session,
        answered: Result<Answered, Unanswered>,
    ) -> Result<MailOutcome, ServerError> {
        let (mail, sender, now) = (letter.mail, letter.sender, letter.now);
        let cause = Some(mail.message_id.as_str());
        let goes = |to: &str| guard::answer_may_go(self, tx, session, sender, to, now);
        match answered {
            Ok(Answered::Dropped(replies)) => {
                let mut mails = self.group(replies, Some(sender))?;
                retain_ok(&mut mails, |m| goes(&m.to))?;
                self.queue_grouped(tx, mails, Some(sender), cause, now)?;
                self.record(tx, mail, "rate-limited", now)?;
                Ok(MailOutcome::RateLimited)
            }
            Ok(Answered::Mails { mails, refused }) => {
                let mut mails = self.charge_strangers(tx, mails, sender, now)?;
                retain_ok(&mut mails, |m| goes(&m.to))?;
                self.queue_grouped(tx, mails, Some(sender), cause, now)?;
                self.record(tx, mail, "answered", now)?;
                Ok(MailOutcome::Answered {
                    commands: letter.request.commands.len(),
                    refused,
                })
            }
            Err(Unanswered::TooLarge(sentence)) => {
                let mut notices = session.notices();
                retain_ok(&mut notices, |r| goes(&r.to))?;
                self.queue(tx, notices, None, cause, now)?;
                if goes(sender)? {
                    let body = self.notice_body(&sentence)?;
                    self.queue_notice(tx, sender, "Error", body, cause, now)?;
                }
                self.record(tx, mail, "reply-too-large", now)?;
                Ok(MailOutcome::ReplyTooLarge)
            }
            Err(Unanswered::Failed(e)) => Err(e),
        }
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
        self.record(tx, mail, "unauthenticated", now)?;
        Ok(MailOutcome::Ignored(
            "a reply by token whose From is not authenticated".to_string(),
        ))
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
            .and_then(rules::game)
            .map(|g| g.title());
        let subject = match (title, refusal.board) {
            (Some(t), Some(b)) => format!("{t} Board {b} Error"),
            (Some(t), None) => format!("{t} Error"),
            _ => "Error".to_string(),
        };
        let board = match (&refusal.game, refusal.board) {
            (Some(game), Some(number)) => match show::drawing_for_sender(ctx, game, number) {
                Ok(drawing) => drawing.map(|d| d.trim_end().to_string()),
                Err(Failure::Internal(e)) => return Err(e),
                Err(Failure::Refused(_)) => None,
            },
            _ => None,
        };
        // The comment is quoted back, so that it is not lost; any word of
        // the command that the quote masks is masked in it too. Only to a
        // confirmed address: to any other (forged, unknown)
        // sender the error quotes the command line alone, never the body,
        // so the server cannot be made to mail a stranger's text.
        let comment = if ctx.session.sender_confirmed(ctx.conn, ctx.sender)? {
            masking::masked_like(ctx.comment.trim(), ctx.line, masked)
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
            codes: Vec::new(),
        })
    }

    /// Send the reminders and apply the forfeits due now (`tick`, and each
    /// pass of the daemon), all in one transaction. Returns the mails queued.
    pub fn run_timers(&self, conn: &mut Connection) -> Result<usize, ServerError> {
        let replies = self
            .admin(conn, |ctx| {
                let replies = timers::run_timers(ctx)?;
                Ok(self.queue(ctx.conn, replies, None, None, ctx.now)?)
            })?
            .unwrap_or(0);
        Ok(replies)
    }
}

/// Keep the items `keep` says yes to, in order.
fn retain_ok<T>(
    items: &mut Vec<T>,
    mut keep: impl FnMut(&T) -> Result<bool, ServerError>,
) -> Result<(), ServerError> {
    let mut kept = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        if keep(&item)? {
            kept.push(item);
        }
    }
    *items = kept;
    Ok(())
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
