//! What the server admin does to a live server, each in one transaction
//! with the mails it causes: add a user, set a password, start or show a
//! board, delete or adjudicate a board, put a user on vacation beyond the
//! allowance, and broadcast a message to every user (from the CLI, or by
//! mail as a user named in `[server] admins`). The server's half of the
//! one admin module (`crate::admin` is the rest); every `admin_*` method
//! returns the flat [`AdminError`].
//!
//! Rulings:
//! - An adjudication ends an active board like any other result: it is
//!   rated (Elo, as a win, loss or draw), its pending moves are dropped, and
//!   the final board mail goes to the players, the observers and those who
//!   asked for the result; the status line reads `Game won by alice
//!   (adjudication).` or `Game was a tie (adjudication).`
//! - Deleting a board removes it with its plies, observers and pending
//!   moves; its players (and observers) get one notice. The ratings of a
//!   finished board stay as they are; board numbers are never given twice.
//! - A vacation set by the admin ignores the yearly allowance but still
//!   counts towards it; the user is told.
//! - A broadcast goes to every user not signed off, one mail each, subject
//!   `<server name>: <subject>`. By mail, the `broadcast <userid>
//!   <password>` command sends the mail's body; only the userids in
//!   `[server] admins` may use it.

use chrono::Duration;
use rusqlite::{Connection, TransactionBehavior};

use super::ending::finish;
use super::loaded::load;
use super::{account, challenge, guard, show};
use super::{Ctx, Failure, Handled, Refusal, Reply, Server, ServerError};
use crate::store::{self, Vacation};
use game::command::{self, BoardSize, Credentials};
use game::render::Drawing;

/// Why an admin command changed nothing: the admin's request was refused
/// (the sentence says why and how to fix it), or the server failed. One
/// flat error for every admin command (the CLI's exit code 1 or 2).
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// The request was wrong; the sentence says why.
    #[error("{}", .0.sentence)]
    Refused(Refusal),
    /// The database or a template failed; nothing was changed.
    #[error(transparent)]
    Failed(#[from] ServerError),
}

/// How an admin ends a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ruling {
    /// This player wins.
    Win(String),
    Draw,
}

impl Ruling {
    /// `draw`, or the userid of the winner.
    pub(crate) fn parse(text: &str) -> Ruling {
        if text.eq_ignore_ascii_case("draw") {
            Ruling::Draw
        } else {
            Ruling::Win(text.to_lowercase())
        }
    }
}

fn game(name: &str) -> Handled<&'static dyn rules::Game> {
    rules::game(name).ok_or_else(|| {
        let names: Vec<_> = rules::registry().iter().map(|g| g.name()).collect();
        Refusal::new(format!(
            "there is no game called {name}; the games are {}",
            names.join(", ")
        ))
        .into()
    })
}

impl Server<'_> {
    /// `admin board adjudicate GAME N RESULT`: end an active board with
    /// this result, rated, and mail the final board.
    pub(crate) fn admin_adjudicate(
        &self,
        conn: &mut rusqlite::Connection,
        game_name: &str,
        number: u32,
        ruling: &Ruling,
    ) -> Result<(), AdminError> {
        self.admin_command(conn, |ctx| {
            let game = game(game_name)?;
            let mut loaded = load(ctx, game, number)?;
            if !loaded.row.is_active() {
                return Err(Refusal::new(format!(
                    "{} board {number} is finished already",
                    game.name()
                ))
                .into());
            }
            let winner = match ruling {
                Ruling::Draw => None,
                Ruling::Win(userid) => match loaded.row.seat_of(userid) {
                    Some(seat) => Some(seat),
                    None => {
                        return Err(Refusal::new(format!(
                            "{userid} does not play {} board {number}; give one of {}, or draw",
                            game.name(),
                            loaded.row.players.join(", ")
                        ))
                        .into())
                    }
                },
            };
            let mut news = vec![format!(
                "The server admin adjudicated {} board {number}.",
                game.title()
            )];
            news.extend(finish(
                ctx,
                &mut loaded,
                winner,
                store::BoardEnding::Adjudication,
            )?);
            let mut view = loaded.view(game, news);
            view.recent_only = false;
            let replies = view.to_players(ctx)?;
            self.queue(ctx.conn, replies, None, None, ctx.now)?;
            Ok(())
        })
    }

    /// `admin board delete GAME N`: remove a board; its players and
    /// observers are told. Returns whom.
    pub(crate) fn admin_delete_board(
        &self,
        conn: &mut rusqlite::Connection,
        game_name: &str,
        number: u32,
    ) -> Result<Vec<String>, AdminError> {
        self.admin_command(conn, |ctx| {
            let game = game(game_name)?;
            let Some(row) = store::board(ctx.conn, store::BoardId::new(game.name(), number))? else {
                return Err(
                    Refusal::new(format!("there is no {} board {number}", game.name())).into(),
                );
            };
            let mut readers = row.players.to_vec();
            for observer in store::observers(ctx.conn, store::BoardId::new(game.name(), number))? {
                if !readers.contains(&observer) {
                    readers.push(observer);
                }
            }
            let text = format!(
                "The server admin deleted {} board {number} ({}). It is gone with its moves; its number will not be given again.",
                game.title(),
                row.players.join(" against ")
            );
            let mut replies = Vec::new();
            for userid in &readers {
                if let Some(user) = store::user(ctx.conn, userid)? {
                    replies.extend(ctx.notice_to_user(
                        &user,
                        format!("{} Board {number} deleted", game.title()),
                        &text,
                    )?);
                }
            }
            store::delete_board(ctx.conn, store::BoardId::new(game.name(), number))?;
            self.queue(ctx.conn, replies, None, None, ctx.now)?;
            Ok(readers)
        })
    }

    /// `admin user vacation USER DAYS|off`: a vacation beyond the yearly
    /// allowance (or its end); the user is told.
    pub(crate) fn admin_vacation(
        &self,
        conn: &mut rusqlite::Connection,
        userid: &str,
        days: Option<u32>,
    ) -> Result<String, AdminError> {
        self.admin_command(conn, |ctx| {
            let userid = userid.to_ascii_lowercase();
            let Some(user) = store::user(ctx.conn, &userid)? else {
                return Err(Refusal::new(format!("there is no user called {userid}")).into());
            };
            let ended = store::end_vacations(ctx.conn, &userid, ctx.now)?;
            let text = match days {
                None if ended == 0 => {
                    return Err(Refusal::new(format!("{userid} is not on vacation")).into())
                }
                None => format!(
                    "{userid}, the server admin ended your vacation: your clocks run again."
                ),
                Some(days) => {
                    let ends_at = ctx.now + Duration::days(days as i64);
                    store::add_vacation(
                        ctx.conn,
                        &userid,
                        Vacation {
                            starts_at: ctx.now,
                            ends_at,
                        },
                    )?;
                    format!(
                        "{userid}, the server admin put you on vacation until {}: you get no reminders and forfeit no games, and that time does not count against you.",
                        ends_at.format("%Y-%m-%d %H:%M UTC")
                    )
                }
            };
            let replies = ctx.notice_to_user(&user, "Vacation", &text)?;
            self.queue(ctx.conn, replies, None, None, ctx.now)?;
            Ok(text)
        })
    }

    /// `admin broadcast`: `text` to every user not signed off. Returns how
    /// many addresses were written to.
    pub(crate) fn admin_broadcast(
        &self,
        conn: &mut rusqlite::Connection,
        subject: &str,
        text: &str,
    ) -> Result<usize, AdminError> {
        self.admin_command(conn, |ctx| {
            let replies = broadcast_replies(ctx, subject, text)?;
            let n = replies
                .iter()
                .map(|r| &r.to)
                .collect::<std::collections::HashSet<_>>()
                .len();
            self.queue(ctx.conn, replies, None, None, ctx.now)?;
            Ok(n)
        })
    }

    /// Create a user from the admin CLI.
    pub fn admin_add_user(
        &self,
        conn: &mut Connection,
        userid: &str,
        password: &str,
        addresses: &[String],
    ) -> Result<(), AdminError> {
        // Checked, then hashed before the transaction: never while the
        // database is locked for writing.
        account::check_password(password).map_err(AdminError::Refused)?;
        let hash = account::hash_password(password)?;
        self.admin_command(conn, |ctx| {
            let password = command::Password::new(password);
            account::create_user(ctx, userid, &password, || Ok(hash), addresses).map(|_| ())
        })
    }

    /// `admin user remove`: sign the user off as `signoff` by mail does
    /// (their tokens end, they leave every open tournament and those they
    /// opened are removed). Returns the userid as stored.
    pub(crate) fn admin_remove_user(
        &self,
        conn: &mut Connection,
        userid: &str,
    ) -> Result<String, AdminError> {
        self.admin_command(conn, |ctx| {
            let userid = userid.to_ascii_lowercase();
            if !store::sign_off(ctx.conn, &userid, ctx.now)? {
                return Err(
                    Refusal::new(format!("there is no active user called {userid}")).into(),
                );
            }
            store::expire_user_reply_tokens(ctx.conn, &userid, ctx.now)?;
            self.credentials.forget(&userid);
            super::tournament::leave_all(ctx, &userid)?;
            Ok(userid)
        })
    }

    /// Set a user's password from the admin CLI.
    pub(crate) fn admin_set_password(
        &self,
        conn: &mut Connection,
        userid: &str,
        password: &str,
    ) -> Result<(), AdminError> {
        // Checked, then hashed before the transaction: never while the
        // database is locked for writing.
        account::check_password(password).map_err(AdminError::Refused)?;
        let hash = account::hash_password(password)?;
        self.admin_command(conn, |ctx| {
            let userid = userid.to_ascii_lowercase();
            if store::user(ctx.conn, &userid)?.is_none() {
                return Err(Refusal::new(format!("there is no user called {userid}")).into());
            }
            store::set_password_hash(ctx.conn, &userid, &hash)?;
            // A new password from the admin ends a lockout too, and the
            // player's reply tokens, as `change password` does.
            store::clear_password_failures(ctx.conn, &userid)?;
            store::expire_user_reply_tokens(ctx.conn, &userid, ctx.now)?;
            self.credentials.forget(&userid);
            Ok(())
        })
    }

    /// Start a board from the admin CLI; the players get their board mails.
    pub(crate) fn admin_challenge(
        &self,
        conn: &mut Connection,
        game: &str,
        players: &[String],
        options: &[String],
        timers: &command::Timers,
    ) -> Result<u32, AdminError> {
        self.admin_command(conn, |ctx| {
            let Some(rules) = rules::game(game) else {
                return Err(Refusal::new(format!("There is no game called {game}.")).into());
            };
            let (number, replies) =
                challenge::start_board(ctx, rules, players, options, timers, None, &[])?;
            self.queue(ctx.conn, replies, None, None, ctx.now)?;
            Ok(number)
        })
    }

    /// The board mail body of a board, as `show` would send it.
    pub(crate) fn admin_show(
        &self,
        conn: &mut Connection,
        game: &str,
        board: u32,
        size: BoardSize,
    ) -> Result<String, AdminError> {
        self.admin_command(conn, |ctx| {
            let Some(rules) = rules::game(game) else {
                return Err(Refusal::new(format!("There is no game called {game}.")).into());
            };
            show::show_body(ctx, rules, board, None, Drawing::from(size))
        })
    }

    /// An admin command in its own transaction ([`Server::admin`]), its
    /// refusal and its failure in one flat error.
    fn admin_command<T>(
        &self,
        conn: &mut Connection,
        f: impl FnOnce(&Ctx<'_>) -> Handled<T>,
    ) -> Result<T, AdminError> {
        self.admin(conn, f)?.map_err(AdminError::Refused)
    }

    /// `f` in one transaction committed when it succeeds, as the admin
    /// (no sender): the admin commands, and the timers' run.
    pub(super) fn admin<T>(
        &self,
        conn: &mut Connection,
        f: impl FnOnce(&Ctx<'_>) -> Handled<T>,
    ) -> Result<Result<T, Refusal>, ServerError> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let ctx = Ctx {
            conn: &tx,
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
        // A board the command (or the timers) ended may move a tournament
        // on, in the same transaction.
        let result = f(&ctx).and_then(|value| {
            super::tournament::advance(&ctx)?;
            Ok(value)
        });
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

fn broadcast_replies(ctx: &Ctx<'_>, subject: &str, text: &str) -> Handled<Vec<Reply>> {
    if text.trim().is_empty() {
        return Err(Refusal::new("the broadcast has no text").into());
    }
    let subject = format!("{}: {}", ctx.server.config.server.name, subject.trim());
    let mut replies = Vec::new();
    for user in store::users(ctx.conn)? {
        replies.extend(ctx.notice_to_user(&user, subject.clone(), text.trim())?);
    }
    Ok(replies)
}

/// The mail command `broadcast <userid> <password>`: the body to every
/// user, from a user named in `[server] admins`.
pub(crate) fn broadcast(ctx: &Ctx<'_>, who: &Credentials) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    if !ctx.server.config.server.is_admin(&user.userid) {
        return Err(Refusal::new(format!(
            "{} is not an admin of this server, so cannot broadcast; write to the admin instead.",
            user.userid
        ))
        .into());
    }
    let text = ctx.comment.trim();
    if text.is_empty() {
        return Err(
            Refusal::new("Your broadcast has no text: write it in the body of the mail.").into(),
        );
    }
    let mut replies = broadcast_replies(ctx, "announcement", text)?;
    let n = replies.len();
    replies.push(ctx.notice(
        ctx.answer_to(&user),
        "Broadcast sent",
        format!(
            "Your broadcast went to {}.",
            super::sentences::counted(n as i64, "user", "users")
        ),
    )?);
    Ok(replies)
}
