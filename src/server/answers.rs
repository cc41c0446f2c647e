//! A mail's commands run, in order, each in a savepoint of its own, and
//! their answers settled: masked, joined per recipient, bounded by the
//! limits and queued.

use minijinja::context;
use rusqlite::Connection;

use super::pipeline::{Letter, MailOutcome};
use super::{
    dispatch, guard, masking, once, reply, show, strangers, tournament, BoardMail, Ctx, Failure,
    Refusal, Reply, Server, ServerError,
};
use crate::mail::Envelope;
use game::command::{self, Command, Credentials, Parsed};

/// The answers the commands of a mail caused so far, and how many of them
/// were refused (and of those, how many for the limits).
#[derive(Default)]
pub(super) struct Tally {
    replies: Vec<Reply>,
    refused: usize,
    dropped: usize,
    /// From a stranger: the bytes their answers may still take.
    stranger_room: Option<usize>,
    /// A stranger's command was not run for that bound.
    stranger_cut: bool,
    /// Each board a command acted on, with its plies before the first of
    /// them ran (see `once`).
    boards_before: Vec<once::Before>,
    /// Commands were left unrun for `[limits] max_reply_bytes`: the
    /// answers are too large, however small saying them once makes them.
    over_size: bool,
}

impl Tally {
    /// A command refused with this error mail.
    fn refuse(&mut self, reply: Reply) {
        self.refused += 1;
        self.replies.push(reply);
    }
}

/// The answers of a mail, ready to queue.
pub(super) enum Answered {
    /// Every command was dropped for the limits: nothing ran.
    Dropped(Vec<Reply>),
    /// The mails to send; `refused` of the commands were.
    Mails { mails: Vec<Reply>, refused: usize },
}

/// Why the `answers` savepoint of a mail is rolled back.
pub(super) enum Unanswered {
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

impl Server<'_> {
    /// Step 2, run the commands, in order. Guarantees: each is admitted by
    /// the limits and throttles first ([`Server::admit_or_refuse`]); each
    /// that runs does so in a savepoint of its own, so a refused command
    /// changes nothing while the others still apply, and what it was
    /// charged stays; the answers (replies, refusals, lockout notices) are
    /// collected, with no password masked yet. No command runs once the
    /// answers so far are over `[limits] max_reply_bytes`.
    pub(super) fn run_commands(
        &self,
        ctx: &Ctx<'_>,
        letter: &Letter<'_>,
    ) -> Result<Tally, ServerError> {
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
            // Counted as they will be sent: a board mail a later one of
            // the same board replaces is not (see `once`).
            let so_far = once::still_said(&tally.replies)
                .map(|r| (r.to.as_str(), r.subject.as_str(), r.body.as_str()));
            if answers_size(so_far, letter.sender) > self.config.limits.max_reply_bytes {
                tally.over_size = true;
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
        once::note_board(ctx, &run.command, &mut tally.boards_before)?;
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
                    let mut reply = self.refusal_reply(ctx, &refusal, &run.masked)?;
                    // A player's refused command on their board: the error
                    // may be answered by reply (see `reply::error_key`).
                    if let (Some(who), Some(game), Some(board)) =
                        (who, refusal.game.as_deref(), refusal.board)
                    {
                        if ctx.session.verified(&who.userid) {
                            reply.reply_key = reply::error_key(
                                ctx.conn,
                                game,
                                board,
                                &who.userid.to_ascii_lowercase(),
                            )?;
                        }
                    }
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
    pub(super) fn finish_answers(
        &self,
        ctx: &Ctx<'_>,
        letter: &Letter<'_>,
        tally: Tally,
    ) -> Result<Answered, Unanswered> {
        let Tally {
            replies,
            refused,
            dropped,
            boards_before,
            over_size,
            ..
        } = tally;
        // Each reader gets one board mail of each board the mail acted on.
        let mut replies = once::say_once(ctx, replies, &boards_before)?;
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
            // behind a forwarder that strips Auto-Submitted); one short
            // answer a day instead ([`error_reply_answer`]).
            let before = replies.len();
            replies.retain(|r| r.to != sender || !crate::mail::is_error_subject(&r.subject));
            if replies.len() < before {
                replies.extend(self.error_reply_answer(ctx, sender)?);
            }
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
        // Commands left unrun for the bound: too large, whatever the size
        // of what is said once.
        let size = if over_size {
            size.max(self.config.limits.max_reply_bytes + 1)
        } else {
            size
        };
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
    pub(super) fn settle(
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
            _ if refusal.drawing.is_some() => refusal.drawing.clone(),
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
        // A refusal on a board is said in the sender's board mail of it,
        // when this mail makes one (see `once`).
        let on_board = match (&refusal.game, refusal.board) {
            (Some(game), Some(number)) => Some(BoardMail {
                game: game.clone(),
                board: number,
                news: Vec::new(),
                refused: Some(format!("\"{masked}\": {}", refusal.sentence)),
            }),
            _ => None,
        };
        Ok(Reply {
            to: ctx.sender.unwrap_or_default().to_string(),
            subject,
            body,
            reply_key: None,
            codes: Vec::new(),
            board: on_board,
            picture: None,
        })
    }
}

impl Server<'_> {
    /// The answer to a mail that replies to one of our error mails that
    /// carried no reply token, and whose commands were refused in turn.
    ///
    /// Ruling: mail marked as automatic (Auto-Submitted, a bounce, our
    /// X-Loop, a list, a vacation responder) is never read at all (see
    /// `mail::parse`); what reaches here looks like a person's reply. It
    /// is not sent the errors it caused (a second server behind a
    /// forwarder that strips those headers would answer each with another
    /// error, for ever), but one short fixed notice, at most once a day
    /// per sender address: so a player who answered an error mail by reply
    /// hears why nothing happened, and two servers can exchange at most
    /// one such mail a day. From and Reply-To are anyone's: the notice
    /// quotes nothing of the mail and goes only to its From, so a forger
    /// can make the server send a given address at most this one fixed
    /// text a day this way, less than a plain bad command earns. An error
    /// mail to a player about their command on their board carries their
    /// token instead (see `reply::error_key`): a reply to it plays.
    fn error_reply_answer(
        &self,
        ctx: &Ctx<'_>,
        sender: &str,
    ) -> Result<Option<Reply>, ServerError> {
        let key = format!("error-reply:{}", sender.to_ascii_lowercase());
        if !crate::store::notice_due_daily(ctx.conn, &key, ctx.now)? {
            return Ok(None);
        }
        let text = "Your mail answers an error mail of this server and was refused in\n\
                    turn. Error mails take no replies, so the reason is not sent (two\n\
                    mail programs must not answer each other's errors for ever). Put the\n\
                    command on the Subject line:\n\
                    \x20 <game> move <board> <userid> <password> <move>\n\
                    or answer your newest board mail by reply (help reply).\n\
                    This notice is sent at most once a day.";
        Ok(Some(Reply {
            to: sender.to_string(),
            subject: "Error".to_string(),
            body: self.notice_body(text)?,
            reply_key: None,
            codes: Vec::new(),
            board: None,
            picture: None,
        }))
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
