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
//! (and `Ctx`, `Refusal`, `Failure`, `Reply`, re-exported here from
//! `ctx`); nothing below imports upwards, so each can be read, and
//! changed, knowing only what is under it.
//!
//! - a mail's way: `pipeline` (the mail recorded, admitted or settled,
//!   and read into its commands: [`Server::handle_mail`]), `answers` (its
//!   commands run, each in its savepoint, and their answers settled and
//!   queued);
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
//!   (address confirmation), `ply` (a ply played and stored), `ending`
//!   (a board ended and rated), `loaded` (a board loaded with its plies),
//!   `compose` (board mails), `record` (the move list's records and the
//!   game record, PGN);
//! - at the bottom: `reply` (playing by reply: the reply tokens of board
//!   mails, and a reply read as its player's command), `templates`,
//!   `guard` (throttles and charges), `sentences` (the sentences the
//!   commands share), `masking` (passwords masked in what is quoted),
//!   `wrapping` (prose wrapped to 78 columns), `credentials` (password
//!   checks within the mail's budget), `password` (hashes), `addresses`,
//!   `bounces` (bounces of the server's own mail: which count, when an
//!   address is stopped; the daemon calls it around each mail), `ctx`
//!   (what a command runs with and what it comes to).

mod account;
mod addresses;
mod admin;
mod answers;
mod autoplay;
pub(crate) mod bounces;
mod challenge;
mod compose;
mod computer;
mod conditional;
mod confirm;
pub(crate) mod credentials;
mod ctx;
mod dispatch;
mod ending;
mod guard;
mod help;
mod listings;
mod loaded;
mod masking;
mod once;
mod outbox;
mod password;
mod picture;
mod pipeline;
mod play;
mod ply;
mod preview;
pub(crate) mod public;
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

use minijinja::context;
use rusqlite::Connection;

use crate::clock::Clock;
use crate::config::Config;
use crate::mail::Envelope;
use templates::{TemplateError, Templates};

pub(crate) use admin::{AdminError, Ruling};
pub(crate) use ctx::{BoardMail, Ctx, Failure, Handled, Reply};
pub use ctx::{Refusal, ServerError};
pub(crate) use masking::each_word;
pub(crate) use pipeline::log_subject;
use pipeline::Inbox;
pub use pipeline::{MailOutcome, Processed};
pub use preview::play_move_words;
pub(crate) use reply::ReplyKey;
pub use tournament::AdminTournamentAct;

/// The server: config, clock and templates; the database is passed per call.
pub struct Server<'a> {
    pub config: &'a Config,
    pub clock: &'a dyn Clock,
    pub templates: &'a Templates,
    /// Passwords verified in this process (see `credentials`).
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
        self.prepare(conn, mail, raw_len, Inbox::Mail)
    }

    /// [`Server::prepare_mail`] for the web site's move form (see
    /// [`Server::handle_form_within`]).
    pub(crate) fn prepare_form(
        &self,
        conn: &Connection,
        mail: &Envelope,
        raw_len: usize,
    ) -> Result<(), ServerError> {
        self.prepare(conn, mail, raw_len, Inbox::WebForm)
    }

    fn prepare(
        &self,
        conn: &Connection,
        mail: &Envelope,
        raw_len: usize,
        inbox: Inbox,
    ) -> Result<(), ServerError> {
        if !self.prepared.has(&mail.message_id) {
            let web = inbox == Inbox::WebForm;
            let hashes = guard::prepare_hashes(self, conn, mail, raw_len, web)?;
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

    /// `f` on a read-only view of `conn`, in one read transaction (a
    /// consistent snapshot; in WAL mode it never blocks a writer), with no
    /// sender: what the web site reads (see [`public`]).
    pub(crate) fn reading<T>(
        &self,
        conn: &Connection,
        f: impl FnOnce(&Ctx<'_>) -> Handled<T>,
    ) -> Result<Result<T, Refusal>, ServerError> {
        conn.execute_batch("BEGIN DEFERRED")?;
        let ctx = Ctx {
            conn,
            server: self,
            now: self.clock.now(),
            sender: None,
            comment: "",
            line: "",
            vouched: None,
            session: &guard::Session::default(),
            computer_budget: &Default::default(),
            previews: &Default::default(),
        };
        let result = f(&ctx);
        // Nothing was written: ending the read is all there is to do.
        let ended = conn.execute_batch("ROLLBACK");
        match result {
            Ok(value) => {
                ended?;
                Ok(Ok(value))
            }
            Err(Failure::Refused(r)) => Ok(Err(r)),
            Err(Failure::Internal(e)) => Err(e),
        }
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
}
