//! One mail's way in: recorded (a duplicate stops there), admitted or
//! settled by the rules on what is never answered and on the limits, read
//! into its commands, and its outcome recorded.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, TransactionBehavior};

use super::{computer, guard, preview, reply, Ctx, Reply, Server, ServerError};
use crate::mail::Envelope;
use crate::store;
use game::command;

/// Where a mail came in: the mail inbox, or the web site's move form
/// (built by the site; see [`guard::Session::came_by_web_form`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Inbox {
    Mail,
    WebForm,
}

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
    /// The Subject made by `log_subject`, with every password the server
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

/// A mail admitted to run its commands (see [`Server::admit`]).
pub(super) struct Letter<'m> {
    pub(super) mail: &'m Envelope,
    /// Its sender's address (a mail without one is settled at admission).
    pub(super) sender: &'m str,
    /// The receiving MTA authenticated its From (`[security] authserv_id`).
    pub(super) authenticated: bool,
    /// It was read as a reply to a board mail.
    pub(super) by_reply: Option<reply::ByReply>,
    /// Its commands, read once.
    pub(super) request: command::Request,
    pub(super) now: DateTime<Utc>,
}

/// What [`Server::admit`] made of a mail.
pub(super) enum Admitted<'m> {
    /// Its outcome is final: none of its commands run.
    Settled(MailOutcome),
    /// A reply settled so: its log names the board it answers.
    SettledReply(MailOutcome, String),
    /// Its commands are to run.
    Read(Box<Letter<'m>>),
}

impl Server<'_> {
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
        self.handle_within(tx, mail, raw_len, Inbox::Mail)
    }

    /// [`Server::handle_mail_within`] for the web site's move form, whose
    /// `mail` is built by the site from a client's request (its sender the
    /// client's own web address): the guard counts it as the web's (see
    /// [`guard::Session::came_by_web_form`]). Prepared by
    /// [`Server::prepare_form`].
    pub(crate) fn handle_form_within(
        &self,
        tx: &Connection,
        mail: &Envelope,
        raw_len: usize,
    ) -> Result<Processed, ServerError> {
        self.handle_within(tx, mail, raw_len, Inbox::WebForm)
    }

    fn handle_within(
        &self,
        tx: &Connection,
        mail: &Envelope,
        raw_len: usize,
        inbox: Inbox,
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
        if inbox == Inbox::WebForm {
            session.came_by_web_form();
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
    pub(super) fn record(
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
}
