//! Playing by reply: a player answers a board mail with just
//! the move, as on GitHub or Discourse, and never retypes board number,
//! userid and password.
//!
//! Identity is the From address only (`Reply-To` is anyone's). A token is
//! only ever mailed to an address of its own player: a copy of a board
//! mail to whoever sent the command carries none (see
//! `Server::queue_grouped`).
//!
//! Sending: every board mail to a player of an active board (a turn, a new
//! board, a reminder, `show` of the board now, the answers to their `if`
//! and `queue`)
//! carries the Message-ID
//! `<t.TOKEN@domain>`: TOKEN is 160 random bits from the OS in hex, the
//! domain is that of `[server] address`. The server keeps only a SHA-256 of
//! the token, with the board, the player and the plies played when the mail
//! went out (`store::ReplyToken`). The mail's last lines say how to answer
//! (only the player to act is invited to play, see [`how_to_answer`]).
//! A player who set `noreply` for the game, observers, historic views and
//! mails joined with others (a `multiple` answer) get an ordinary
//! Message-ID and no such line.
//!
//! Reading ([`read`]), before the Subject is read as a command:
//!
//! 1. A Subject that is a command (or `multiple`) is read as always: the
//!    pbmserv language stays complete, also in a reply.
//! 2. Otherwise the first id of `In-Reply-To`, then of `References` from
//!    the newest, that has a token's shape for our domain names the mail
//!    answered. Tokens are taken from those headers only, never from the
//!    Subject or the body, and are never logged.
//! 3. Refused, each with one sentence and nothing changed: a token the
//!    server never issued (forged, or of a deleted board); a game that has
//!    ended (its tokens expire with it); a token its player ended (`set
//!    ... noreply`, `change password`, `change address` and `signoff` end
//!    every token the player holds, on every board); a sender that is not one of the
//!    token's player's addresses on file (a forwarded mail, the opponent's
//!    board mail); nothing written above the quote; a mail that looks like
//!    a reply to a board mail (`Re: Chess Board 101 bob`) but names no
//!    token, its sentence saying why as the headers show it ([`no_token`]:
//!    no In-Reply-To, a mail of ours that takes no replies, or a mail not
//!    ours).
//!
//!    With `[security] authserv_id` set, a reply from the player's
//!    address whose From the receiving MTA did not authenticate (module
//!    `crate::mail::auth`) runs nothing and is not answered; the player's
//!    addresses on file get one notice a day saying so, without the text
//!    of the mail (it may be anyone's).
//! 4. The first line above the quote (`crate::mail::reply_text`) is the
//!    action (`command::parse_reply`), the rest the comment; the command is
//!    the same `move`/`queue`/`show` value the Subject parser builds, run
//!    through the same server path, with the token and the sender's address
//!    standing in for the password ([`super::Ctx::vouched`]). A first line
//!    that is a whole command (with its password) is run as that command.
//! 5. The implicit `#N` guard: a reply to a mail that showed another ply
//!    than the board's is refused with the board now, unless the first
//!    line carries its own `#N`. `show` needs no guard. The refusal
//!    suggests `#N` only where it would work, else `queue` (see
//!    [`Stale::sentence`]).
//! 6. Once the sender is known to be the token's player, an error mail
//!    about the reply (stale, not a move, refused by the rules) shows the
//!    board as it is and carries a token itself: the player may answer the
//!    error mail by reply, as mail programs invite. So does an error mail
//!    about a Subject command on a board, to a player of it who gave the
//!    right password ([`error_key`]); a reply to any other error mail
//!    gets one short notice a day (`Server::error_reply_answer`).
//!
//! Duplicates and forwards: a mail seen before (same Message-ID) is not
//! applied again (as every mail). A token is not single-use: replies to
//! the newest board mail may `propose` and then move; a second copy of a
//! reply sent under a new Message-ID finds the board a ply further and is
//! refused as stale. A forward to someone else fails the sender check.

use sha2::{Digest, Sha256};

use super::{Refusal, Server, ServerError};
use crate::mail::Envelope;
use crate::store;
use game::command::{self, BoardAct, Command, GameCommand, ParseError, Parsed, Request};

/// What a board mail to a player is keyed to: a reply to it is `userid`'s
/// command on board `board` of `game`, sent when `ply` plies were played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReplyKey {
    pub game: String,
    pub board: u32,
    pub userid: String,
    pub ply: u32,
    /// Whether `userid` is the one to act on the board when the mail goes
    /// out: only then does it invite them to play (see [`how_to_answer`]).
    pub to_move: bool,
    /// Whether a proposal of the other player's waits for `userid`'s
    /// answer (accept or reject) when the mail goes out.
    pub proposal_to_answer: bool,
}

/// A mail read as a reply to a board mail.
pub(crate) struct ByReply {
    /// The one command (or its refusal).
    command: Result<Parsed, ParseError>,
    /// What the player wrote under the first line.
    pub comment: String,
    /// The player the token and the sender's address vouch for, when the
    /// command is the token's (not a whole command line with a password).
    pub vouched: Option<String>,
    /// When the sender is the token's player on an active board: the key
    /// an error mail about it is sent with, so that a refused reply can be
    /// answered by replying to the error mail (it shows the board now).
    pub answerable: Option<ReplyKey>,
    /// The reply comes from an address of the token's player (this
    /// userid), but `[security] authserv_id` is set and the receiving MTA
    /// did not authenticate its From: nothing is run, and the player is
    /// told (at most once a day), without the text of the mail.
    pub unauthenticated: Option<String>,
    /// The reply as the log names it: `reply <game> <board>` of the board
    /// it answers (the command's game, verb and boards when its first line
    /// is a whole command; `reply` when no board is known).
    pub log_subject: String,
}

impl ByReply {
    /// The request to run, as the Subject parser would give it.
    pub(super) fn request(&self) -> Request {
        Request {
            multiple: false,
            body_after_command: None,
            commands: vec![self.command.clone()],
        }
    }

    fn refused(refusal: Refusal, quote: &str, comment: &str) -> ByReply {
        let log_subject = reply_log_subject(refusal.game.as_deref(), refusal.board);
        ByReply {
            log_subject,
            command: Err(ParseError {
                message: refusal.sentence,
                masked: quote.to_string(),
                game: refusal.game,
                board: refusal.board,
            }),
            comment: comment.to_string(),
            vouched: None,
            answerable: None,
            unauthenticated: None,
        }
    }

    fn answerable(mut self, key: &Option<ReplyKey>) -> ByReply {
        self.answerable = key.clone();
        self
    }
}

/// `reply <game> <board>`, as far as they are known.
fn reply_log_subject(game: Option<&str>, board: Option<u32>) -> String {
    let mut words = vec!["reply".to_string()];
    words.extend(game.map(str::to_string));
    words.extend(board.map(|b| b.to_string()));
    words.join(" ")
}

/// The domain of the server's address, where its Message-IDs live.
fn domain(server: &Server<'_>) -> String {
    let address = server.config.server.address.trim();
    let address = address.trim_end_matches('>');
    address
        .rsplit_once('@')
        .map_or(address, |(_, d)| d)
        .to_ascii_lowercase()
}

fn hash(token: &str) -> String {
    crate::hex::encode(&Sha256::digest(token.as_bytes()))
}

/// A new token for a board mail: stored (hashed) with `key`; returns the
/// Message-ID (without brackets) the mail is to be sent with.
pub(crate) fn issue(
    conn: &rusqlite::Connection,
    server: &Server<'_>,
    key: &ReplyKey,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<String, ServerError> {
    let mut bytes = [0u8; 20];
    getrandom::fill(&mut bytes)
        .map_err(|e| ServerError::Hash(format!("no randomness from the OS: {e}")))?;
    let token = crate::hex::encode(&bytes);
    store::insert_reply_token(
        conn,
        &hash(&token),
        &store::ReplyToken {
            game: key.game.clone(),
            board: key.board,
            userid: key.userid.clone(),
            ply: key.ply,
            expired: false,
        },
        now,
    )?;
    Ok(format!("t.{token}@{}", domain(server)))
}

/// The token in a Message-ID that [`issue`] made (`t.TOKEN@domain`).
pub(crate) fn token_of(message_id: &str) -> Option<&str> {
    let (local, _) = message_id.rsplit_once('@')?;
    local.strip_prefix("t.").filter(|t| !t.is_empty())
}

/// Whether `address` is on file for `userid`: a board mail to it may
/// carry `userid`'s token (no mail carries anyone else's).
pub(crate) fn owns_address(
    conn: &rusqlite::Connection,
    userid: &str,
    address: &str,
) -> Result<bool, ServerError> {
    Ok(store::user(conn, userid)?
        .is_some_and(|u| u.addresses.iter().any(|a| a.eq_ignore_ascii_case(address))))
}

/// The lines under a board mail that carries a token, wrapped to the 78
/// columns of a mail line.
///
/// Ruling: only the player to act is invited to play. The other player's
/// mail says what a reply can do while the opponent is to act: answer
/// the opponent's proposal when one waits for them, queue a move, or hold
/// conditional moves (a reply takes them all); the opponent's name is in
/// the status line above. Observers and copies carry no token, so no such
/// lines.
pub(crate) fn how_to_answer(key: &ReplyKey) -> String {
    let text = if key.to_move {
        format!(
            "To play, reply with your move on the first line (help reply), or use the Subject command: {} move {} {} <password> <move>",
            key.game, key.board, key.userid
        )
    } else if key.proposal_to_answer {
        format!(
            "Not your turn, but a proposal waits for your answer: reply with accept or reject on the first line (help reply), or use the Subject command: {} move {} {} <password> accept",
            key.game, key.board, key.userid
        )
    } else {
        format!(
            "Not your turn: to answer in advance, reply with queue <move> or if <moves> on the first line (help reply), or use the Subject command: {} queue {} {} <password> <move>",
            key.game, key.board, key.userid
        )
    };
    super::wrapping::wrap(&text, super::wrapping::MAIL_WIDTH)
}

/// The token an id of `In-Reply-To`/`References` carries, if it has a
/// token's shape for our domain.
fn token_in<'a>(id: &'a str, domain: &str) -> Option<&'a str> {
    let (local, d) = id.rsplit_once('@')?;
    let token = local.strip_prefix("t.")?;
    (d.eq_ignore_ascii_case(domain) && !token.is_empty()).then_some(token)
}

/// The game and board a Subject like `Re: Chess Board 101 bob` (a board
/// mail's, answered) names.
fn board_mail_subject(subject: &str) -> Option<(&'static dyn rules::Game, u32)> {
    let words: Vec<&str> = subject.split_whitespace().collect();
    let at = words.iter().position(|w| w.eq_ignore_ascii_case("board"))?;
    let number: u32 = words.get(at + 1)?.parse().ok()?;
    let before: Vec<&str> = words[..at]
        .iter()
        .copied()
        .filter(|w| {
            !w.ends_with(':') && !w.eq_ignore_ascii_case("new") && !w.eq_ignore_ascii_case("re")
        })
        .collect();
    let title = before.join(" ");
    let game = rules::registry()
        .iter()
        .copied()
        .find(|g| g.title().eq_ignore_ascii_case(&title))?;
    Some((game, number))
}

/// Why a mail with a board mail's Subject names no token, as its
/// `In-Reply-To`/`References` (`replied_to`) and the board show it.
///
/// Ruling: the sentence says what is true of the mail. No such header:
/// the mail program left it out. A Message-ID of ours: the board is over;
/// or the sender, a player of the board, set `noreply` for the game; or
/// that mail takes no replies (only a board mail to a player of a board in
/// play does, and the answers to their `if` and `queue`; not an
/// observer's or a sender's copy, a historic view, a chat, a record, a
/// preview or an error about a Subject command). Only other ids: the mail
/// answered is not one of ours.
fn no_token(
    conn: &rusqlite::Connection,
    replied_to: &[String],
    domain: &str,
    sender: &str,
    game: &dyn rules::Game,
    board: u32,
) -> Result<String, ServerError> {
    let how = subject_command(game.name(), board);
    let ours = replied_to.iter().any(|id| {
        id.rsplit_once('@').is_some_and(|(local, d)| {
            d.eq_ignore_ascii_case(domain) && local.starts_with("pbmchess.")
        })
    });
    if replied_to.is_empty() {
        return Ok(format!(
            "Your mail has a board mail's Subject but no In-Reply-To header naming the mail it answers (your mail program left it out), so it is not read as a move; use the Subject command instead: {how}."
        ));
    }
    if !ours {
        return Ok(format!(
            "Your mail answers a mail this server did not send, so it is not read as a move; reply to your newest board mail, or use the Subject command: {how}."
        ));
    }
    let row = store::board(conn, store::BoardId::new(game.name(), board))?;
    let Some(row) = row.filter(|r| r.is_active()) else {
        return Ok(format!(
            "{} board {board} is over (or no longer exists), so its mails take no more replies.",
            game.title()
        ));
    };
    let userids = store::userids_with_address(conn, sender)?;
    if let Some(player) = row.players.iter().find(|p| userids.contains(p)) {
        if store::no_reply(conn, player, game.name())? {
            return Ok(format!(
                "You set noreply for {}, so your board mails take no replies; switch them back on with {} set {player} <password> reply, or use the Subject command: {how}.",
                game.name(),
                game.name()
            ));
        }
    }
    Ok(format!(
        "The mail you answered takes no replies, so yours is not read as a move: only the board mails to a player of a board in play do (not a copy to an observer or to a sender, a historic view, a chat, a record, a preview or an error mail). Reply to your newest board mail, or use the Subject command: {how}."
    ))
}

fn subject_command(game: &str, board: u32) -> String {
    format!("{game} move {board} <userid> <password> <move>")
}

/// Read a mail as a reply to a board mail, if it is one (module doc);
/// `as_subject` is the mail read as the Subject parser reads it.
pub(crate) fn read(
    conn: &rusqlite::Connection,
    server: &Server<'_>,
    mail: &Envelope,
    sender: &str,
    as_subject: &Request,
) -> Result<Option<ByReply>, ServerError> {
    if as_subject.multiple
        || !as_subject.commands.is_empty() && as_subject.commands.iter().all(Result::is_ok)
    {
        return Ok(None);
    }
    let text = crate::mail::reply_text(&mail.body);
    let (quote, comment) = match &text {
        Some(t) => (t.action.as_str(), t.comment.as_str()),
        None => ("(nothing above the quoted mail)", ""),
    };
    let answered = board_mail_subject(&mail.subject);
    let domain = domain(server);
    let Some(token) = mail.replied_to.iter().find_map(|id| token_in(id, &domain)) else {
        return answered
            .map(|(game, board)| -> Result<ByReply, ServerError> {
                Ok(ByReply::refused(
                    Refusal::new(no_token(
                        conn,
                        &mail.replied_to,
                        &domain,
                        sender,
                        game,
                        board,
                    )?)
                    .on(game.name(), Some(board)),
                    quote,
                    comment,
                ))
            })
            .transpose();
    };
    let how = match answered {
        Some((game, board)) => subject_command(game.name(), board),
        None => "<game> move <board> <userid> <password> <move>".to_string(),
    };
    let Some(key) = store::reply_token(conn, &hash(token))? else {
        return Ok(Some(ByReply::refused(
            Refusal::new(format!(
                "Your mail answers a mail this server did not send, or one of a board that no longer exists, so it is not read as a move; reply to the newest board mail, or use the Subject command: {how}."
            )),
            quote,
            comment,
        )));
    };
    let Some(game) = rules::game(&key.game) else {
        return Ok(None);
    };
    let row = match refuse_token(conn, game, &key, sender)? {
        Ok(row) => row,
        Err(refusal) => return Ok(Some(ByReply::refused(refusal, quote, comment))),
    };
    // A whole command on the first line is run as that command, with its
    // own password and board.
    if let Some((parsed, line)) = text
        .as_ref()
        .and_then(|t| Some((command::parse_line(&t.action).ok()?, &t.action)))
    {
        return Ok(Some(ByReply {
            log_subject: format!("reply {}", command::log_line(line)),
            command: Ok(parsed),
            comment: text.map(|t| t.comment).unwrap_or_default(),
            vouched: None,
            answerable: None,
            unauthenticated: None,
        }));
    }
    read_by_player(conn, server, mail, game, key, &row, text)
}

/// The board a token names, or the refusal of a reply with it: the board
/// is over, its player ended the token, or the sender is not one of the
/// player's addresses.
fn refuse_token(
    conn: &rusqlite::Connection,
    game: &'static dyn rules::Game,
    key: &store::ReplyToken,
    sender: &str,
) -> Result<Result<store::BoardRow, Refusal>, ServerError> {
    let on_board = |sentence: String| Refusal::new(sentence).on(game.name(), Some(key.board));
    let how = subject_command(game.name(), key.board);
    let row = match store::board(conn, store::BoardId::new(game.name(), key.board))? {
        Some(row) if row.is_active() => row,
        _ => {
            return Ok(Err(on_board(format!(
                "{} board {} is over, so its board mails take no more replies.",
                game.title(),
                key.board
            ))))
        }
    };
    if key.expired {
        // Ended by its player: `set ... noreply`, a new password or
        // address, or signoff.
        return Ok(Err(on_board(format!(
            "This board mail no longer takes replies: its player has since\n\
             switched replies off, or changed password or address.\n\
             Use the Subject command: {how}."
        ))));
    }
    let addresses = store::user(conn, &key.userid)?
        .map(|u| u.addresses)
        .unwrap_or_default();
    if !addresses.iter().any(|a| a.eq_ignore_ascii_case(sender)) {
        return Ok(Err(on_board(format!(
            "Your reply comes from {sender}, which is not an address of the player this board mail was sent to, so it is not read as a move; reply from that address, or use the Subject command: {how}."
        ))));
    }
    Ok(Ok(row))
}

/// A reply from an address of the token's player, its first line no whole
/// command: with its From authenticated, the player's action, as
/// [`ByReply::vouched`] for; stale unless it carries its own `#N`.
fn read_by_player(
    conn: &rusqlite::Connection,
    server: &Server<'_>,
    mail: &Envelope,
    game: &'static dyn rules::Game,
    key: store::ReplyToken,
    row: &store::BoardRow,
    text: Option<crate::mail::ReplyText>,
) -> Result<Option<ByReply>, ServerError> {
    let on_board = |sentence: String| Refusal::new(sentence).on(game.name(), Some(key.board));
    // From is forgeable: where the MTA is asked (`[security] authserv_id`),
    // a reply without a password needs its From authenticated. Nothing of
    // the mail is quoted back: the player's addresses are told, once a day.
    if !mail.authenticated(server.config.security.authserv_id.as_deref()) {
        return Ok(Some(ByReply {
            unauthenticated: Some(key.userid.clone()),
            ..ByReply::refused(on_board(String::new()), "", "")
        }));
    }
    // The sender is the player: an error mail from here on shows the
    // board as it is and may itself be answered by reply.
    let now = store::ply_count(conn, store::BoardId::new(game.name(), key.board))?;
    let answerable = answerable_key(conn, game, key.board, &key.userid, row, now)?;
    let Some(text) = text else {
        return Ok(Some(ByReply::refused(
            on_board(
                "Your reply has nothing above the quoted board mail; write your move (or resign, propose, accept, reject, undo, show, or queue and a move) on its first line.".to_string(),
            ),
            "(nothing above the quoted mail)",
            "",
        ).answerable(&answerable)));
    };
    let parsed = match command::parse_reply(game.name(), key.board, &key.userid, &text.action) {
        Ok(parsed) => parsed,
        Err(e) => {
            return Ok(Some(ByReply {
                log_subject: reply_log_subject(Some(game.name()), Some(key.board)),
                command: Err(e),
                comment: text.comment,
                vouched: None,
                answerable,
                unauthenticated: None,
            }))
        }
    };
    let is_show = any_ply_will_do(&parsed.command);
    if !is_show && !command::has_guard(&text.action) && now != key.ply {
        let stale = Stale {
            game,
            key: &key,
            row,
            now,
            answerable: answerable.is_some(),
        };
        return Ok(Some(
            ByReply::refused(
                on_board(stale.sentence(&parsed.command)?),
                &text.action,
                &text.comment,
            )
            .answerable(&answerable),
        ));
    }
    Ok(Some(ByReply {
        log_subject: reply_log_subject(Some(game.name()), Some(key.board)),
        command: Ok(parsed),
        comment: text.comment,
        vouched: Some(key.userid),
        answerable,
        unauthenticated: None,
    }))
}

/// Whether a reply's command is right whatever ply its mail showed:
/// showing the board, listing or cancelling conditional moves.
fn any_ply_will_do(command: &Command) -> bool {
    matches!(
        command,
        Command::Game {
            command: GameCommand::Show { .. }
                | GameCommand::OnBoard {
                    act: BoardAct::If(command::Conditional::List | command::Conditional::Cancel(_)),
                    ..
                },
            ..
        }
    )
}

/// The key an error mail to `userid`, a player of board `board`, is sent
/// with (it then takes a reply itself), at the board's `ply` now; none
/// once the player set `noreply`.
fn answerable_key(
    conn: &rusqlite::Connection,
    game: &'static dyn rules::Game,
    board: u32,
    userid: &str,
    row: &store::BoardRow,
    ply: u32,
) -> Result<Option<ReplyKey>, ServerError> {
    let to_move = game
        .position(&row.position, &row.options)
        .is_ok_and(|p| row.players[p.to_act().index()] == userid);
    let proposal_to_answer = row
        .proposal
        .is_some_and(|(_, by)| row.players[by.index()] != userid);
    Ok(
        (!store::no_reply(conn, userid, game.name())?).then(|| ReplyKey {
            game: game.name().to_string(),
            board,
            userid: userid.to_string(),
            ply,
            to_move,
            proposal_to_answer,
        }),
    )
}

/// The key an error mail about a Subject command on `board` of `game` is
/// sent with, when the command proved the password of `userid` and
/// `userid` is a player of that board in play: the error then carries
/// `userid`'s token, so that answering it by reply (`Nf3` on the first
/// line) plays as a reply to the board mail would. None for anyone else
/// (a wrong password, a stranger, an observer, no such board, a board
/// over, `noreply`): such an error takes no reply (see
/// `Server::finish_answers`). The token only goes to an address of
/// `userid` on file (`Server::queue_mail`), whatever the mail's From.
pub(crate) fn error_key(
    conn: &rusqlite::Connection,
    game: &str,
    board: u32,
    userid: &str,
) -> Result<Option<ReplyKey>, ServerError> {
    let Some(game) = rules::game(game) else {
        return Ok(None);
    };
    let id = store::BoardId::new(game.name(), board);
    let Some(row) = store::board(conn, id)?.filter(|r| r.is_active()) else {
        return Ok(None);
    };
    if row.seat_of(userid).is_none() {
        return Ok(None);
    }
    let ply = store::ply_count(conn, id)?;
    answerable_key(conn, game, board, userid, &row, ply)
}

/// A reply to a mail that showed another ply than the board's (the
/// implicit `#N` guard).
struct Stale<'a> {
    game: &'static dyn rules::Game,
    key: &'a store::ReplyToken,
    row: &'a store::BoardRow,
    /// The plies on the board now.
    now: u32,
    /// The error mail takes a reply itself.
    answerable: bool,
}

impl Stale<'_> {
    /// Why the reply is not played, and what to send instead.
    ///
    /// Ruling: `#N` is suggested only when it would work: a
    /// move (or a queued move) when it is the player's turn, and the
    /// actions that need no turn (resign, propose, undo, accept, reject).
    /// A move when it is the opponent's turn would be refused again with
    /// `#N` ("not your turn"), so `queue` is suggested instead, as the
    /// exact reply to the error mail (which carries a token of the board
    /// now), or the Subject command when it takes no reply.
    fn sentence(&self, command: &Command) -> Result<String, ServerError> {
        let (game, board, now) = (self.game, self.key.board, self.now);
        let shown = format!(
            "This mail showed ply {}; {} board {board} is at ply {now} now",
            self.key.ply,
            game.title()
        );
        let to_act = match super::loaded::seat_to_act(game, self.row) {
            Ok(seat) => Some(seat),
            Err(super::Failure::Internal(e)) => return Err(e),
            Err(super::Failure::Refused(_)) => None,
        };
        let played = match command {
            Command::Game {
                command:
                    GameCommand::OnBoard {
                        act:
                            BoardAct::Move(command::MoveAction::Play(text))
                            | BoardAct::Queue(command::MoveAction::Play(text)),
                        ..
                    },
                ..
            } => Some(text.as_str()),
            _ => None,
        };
        let opponent = to_act
            .filter(|&seat| self.row.seat_of(&self.key.userid) != Some(seat))
            .and_then(|seat| self.row.players.get(seat.index()));
        match (played, opponent) {
            (Some(text), Some(opponent)) if self.answerable => Ok(format!(
                "{shown} and it is {opponent}'s turn, so your reply is not played. To have {text} played when your turn comes, reply to this mail with: queue {text}"
            )),
            (Some(text), Some(opponent)) => Ok(format!(
                "{shown} and it is {opponent}'s turn, so your reply is not played. To have {text} played when your turn comes, send: {} queue {board} {} <password> {text}",
                game.name(),
                self.key.userid
            )),
            _ => Ok(format!(
                "{shown}, so your reply is not played: reply to the newest board mail (or put #{} after the move to play it anyway).",
                now + 1
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_read_only_from_our_domain_and_shape() {
        assert_eq!(token_in("t.abc@games.test", "games.test"), Some("abc"));
        assert_eq!(token_in("t.abc@Games.Test", "games.test"), Some("abc"));
        assert_eq!(token_in("t.abc@evil.test", "games.test"), None);
        assert_eq!(token_in("pbmchess.1.ff@games.test", "games.test"), None);
        assert_eq!(token_in("t.@games.test", "games.test"), None);
    }

    #[test]
    fn board_mail_subjects_name_their_game_and_board() {
        let read = |s: &str| board_mail_subject(s).map(|(g, b)| (g.name(), b));
        assert_eq!(read("Re: Chess Board 101 bob"), Some(("chess", 101)));
        assert_eq!(read("RE: New Chess Board 102 alice"), Some(("chess", 102)));
        assert_eq!(
            read("Re: Nag: Chess Board 105 dave **"),
            Some(("chess", 105))
        );
        assert_eq!(read("chess move 101 alice pw e4"), None);
        assert_eq!(read("Re: the board 7 of us"), None);
    }
}
