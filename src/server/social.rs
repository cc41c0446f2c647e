//! Talking and watching: chat, messages between players, subscribe and
//! unsubscribe.

use super::loaded::{load, require_board};
use super::sentences::{and_list, counted};
use super::{confirm, Ctx, Handled, Refusal, Reply};
use crate::store::{self};
use game::command::Credentials;
use rules::{self, Game};

/// Mails one player's `message`s and `chat`s make to one reader in a
/// clock hour (see [`may_write_to`]).
pub(crate) const WRITES_PER_READER_PER_HOUR: u32 = 5;

/// Ruling: a player's messages and chats reach one reader at
/// most [`WRITES_PER_READER_PER_HOUR`] times a clock hour, so no one
/// buries another in mail (a message names up to `[limits]
/// max_list_items` readers, and any player may chat on a board they
/// observe). Past it the reader is left out and the author told; counts
/// one mail to `reader` when it may go.
fn may_write_to(ctx: &Ctx<'_>, author: &str, reader: &str) -> Handled<bool> {
    let key = format!("writes:{author}>{reader}");
    let scope = store::CountScope::Server;
    if store::commands_this_hour(ctx.conn, scope, &key, ctx.now)? >= WRITES_PER_READER_PER_HOUR {
        return Ok(false);
    }
    store::count_command(ctx.conn, scope, &key, ctx.now)?;
    Ok(true)
}

/// What the author is told of the readers [`may_write_to`] left out.
fn over_sentence(over: &[String]) -> Option<String> {
    if over.is_empty() {
        return None;
    }
    let who = and_list(over);
    Some(format!(
        "It did not go to {who}: one player's messages and chats reach a reader at most {WRITES_PER_READER_PER_HOUR} times an hour on this server; write again next hour."
    ))
}

/// `<game> chat <board> <userid> <pw>`: the body goes to the players and
/// observers of the board (the sender included, as a receipt).
pub(crate) fn chat(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
) -> Handled<Vec<Reply>> {
    let loaded = load(ctx, game, number)?;
    let user = ctx.authenticate(who)?;
    let observers = store::observers(ctx.conn, store::BoardId::new(game.name(), number))?;
    if loaded.row.seat_of(&user.userid).is_none() && !observers.contains(&user.userid) {
        return Err(Refusal::new(format!(
            "Only the players and observers of {} board {number} can chat there; subscribe to it first.",
            game.name()
        ))
        .on(game.name(), Some(number))
        .into());
    }
    confirm::needs_confirmed(&user, "chat")?;
    let text = super::sentences::own_text(ctx, &who.password);
    if text.is_empty() {
        return Err(Refusal::new(
            "Your chat mail has no text: write the message in the body of the mail.",
        )
        .on(game.name(), Some(number))
        .into());
    }
    let mut readers = loaded.row.players.to_vec();
    readers.extend(
        observers
            .into_iter()
            .filter(|o| !loaded.row.players.contains(o)),
    );
    let subject = format!(
        "{} Board {number} chat from {} **",
        game.title(),
        user.userid
    );
    let said = format!(
        "{} says on {} board {number}:\n\n{text}",
        user.userid,
        game.name()
    );
    let mut replies = Vec::new();
    let mut held = Vec::new();
    let mut over = Vec::new();
    for userid in readers.iter().filter(|r| **r != user.userid) {
        let Some(reader) = store::user(ctx.conn, userid)? else {
            continue;
        };
        let unread = reader.signed_off_at.is_none()
            && reader.confirmed_addresses().next().is_none()
            && !super::computer::is_computer(ctx, userid);
        if unread {
            store::hold_back(ctx.conn, userid, &user.userid, ctx.now)?;
            held.push(userid.clone());
            continue;
        }
        if !may_write_to(ctx, &user.userid, userid)? {
            over.push(userid.clone());
            continue;
        }
        replies.extend(ctx.notice_to_user(&reader, subject.clone(), &said)?);
    }
    // The sender's own copy, with who did not get it (as a
    // `message`, a chat is never mailed to an unconfirmed address and the
    // reader hears of it later; the sender hears now).
    let mut own = said;
    if let Some(sentence) = held_sentence(&held, &user.userid) {
        own.push_str(&format!("\n\n{sentence}"));
    }
    if let Some(sentence) = over_sentence(&over) {
        own.push_str(&format!("\n\n{sentence}"));
    }
    replies.extend(ctx.notice_to_user(&user, subject, own)?);
    Ok(replies)
}

/// `<game> subscribe <board>...|all <userid> <pw>`: observe boards.
/// Ruling: a board has at most `[limits] observers_per_board`
/// observers. A board named that is full refuses the command; `subscribe
/// all` observes every active board that is not full and names the others.
pub(crate) fn subscribe(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    boards: &[u32],
    all: bool,
    who: &Credentials,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    confirm::needs_confirmed(&user, "observe boards")?;
    let numbers: Vec<u32> = if all {
        store::boards_of_game(ctx.conn, game.name())?
            .into_iter()
            .filter(|b| b.is_active())
            .map(|b| b.board)
            .collect()
    } else {
        boards.to_vec()
    };
    let most = ctx.server.config.limits.observers_per_board;
    let mut added = Vec::new();
    let mut full = Vec::new();
    for n in numbers {
        require_board(ctx, game, n)?;
        let observers = store::observers(ctx.conn, store::BoardId::new(game.name(), n))?;
        if observers.contains(&user.userid) {
            continue;
        }
        if observers.len() >= most {
            if !all {
                return Err(Refusal::new(format!(
                    "{} board {n} has {}, the most this server allows a board; nobody else can observe it until one of them unsubscribes.",
                    game.title(),
                    counted(most as i64, "observer", "observers")
                ))
                .on(game.name(), Some(n))
                .into());
            }
            full.push(n.to_string());
            continue;
        }
        if store::add_observer(ctx.conn, store::BoardId::new(game.name(), n), &user.userid)? {
            added.push(n.to_string());
        }
    }
    let mut text = if added.is_empty() {
        format!(
            "You, {}, observe no new {} boards: you observed those already, or there are none.",
            user.userid,
            game.title()
        )
    } else {
        format!(
            "{} now observes {} board{} {}: a copy of every board mail goes to {}.",
            user.userid,
            game.title(),
            if added.len() == 1 { "" } else { "s" },
            added.join(", "),
            user.confirmed_addresses()
                .cloned()
                .collect::<Vec<_>>()
                .join(" and ")
        )
    };
    if !full.is_empty() {
        text.push_str(&format!(
            " Not observed, as they have {} already, the most this server allows a board: {} board{} {}.",
            counted(most as i64, "observer", "observers"),
            game.title(),
            if full.len() == 1 { "" } else { "s" },
            full.join(", ")
        ));
    }
    Ok(vec![ctx.notice(
        ctx.answer_to(&user),
        format!("{} subscriptions", game.title()),
        text,
    )?])
}

/// `<game> unsubscribe <board>...|all <userid> <pw>`.
pub(crate) fn unsubscribe(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    boards: &[u32],
    all: bool,
    who: &Credentials,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let mut removed = 0;
    if all {
        removed += store::remove_observer(ctx.conn, game.name(), None, &user.userid)?;
    } else {
        for &n in boards {
            removed += store::remove_observer(ctx.conn, game.name(), Some(n), &user.userid)?;
        }
    }
    let text = format!(
        "{} observes {removed} {} board{} fewer now.",
        user.userid,
        game.title(),
        if removed == 1 { "" } else { "s" }
    );
    Ok(vec![ctx.notice(
        ctx.answer_to(&user),
        format!("{} subscriptions", game.title()),
        text,
    )?])
}
/// `message <userid> <pw> <to-userid>...`: the body goes to those players;
/// their addresses stay hidden (each gets a mail of their own).
///
/// Ruling (within the double opt-in of addresses): a recipient
/// with no confirmed address gets nothing, and the message is not kept.
/// The sender's answer names who did not get it and why. The recipient is
/// told that a message from the sender was held back (who, and how many;
/// never the text) with the next mail its address receives anyway: a
/// confirmation mail (`change address`), or the answer to `confirm
/// address` (see [`held_back_note`]); if neither comes, never. No mail
/// goes to an unconfirmed address for this alone.
pub(crate) fn message_users(
    ctx: &Ctx<'_>,
    who: &Credentials,
    to: &[String],
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    confirm::needs_confirmed(&user, "send messages")?;
    let text = super::sentences::own_text(ctx, &who.password);
    if text.is_empty() {
        return Err(
            Refusal::new("Your message has no text: write it in the body of the mail.").into(),
        );
    }
    let mut replies = Vec::new();
    let mut names = Vec::new();
    let mut held = Vec::new();
    let mut over = Vec::new();
    for userid in to {
        let userid = userid.to_ascii_lowercase();
        let Some(reader) = store::user(ctx.conn, &userid)? else {
            return Err(Refusal::new(format!(
                "There is no user called {userid}; check the spelling."
            ))
            .into());
        };
        if reader.signed_off_at.is_some() {
            return Err(Refusal::new(format!(
                "{userid} has signed off and gets no more mail; leave them out of the message."
            ))
            .into());
        }
        if names.contains(&userid) || held.contains(&userid) || over.contains(&userid) {
            continue;
        }
        if reader.confirmed_addresses().next().is_none() {
            store::hold_back(ctx.conn, &userid, &user.userid, ctx.now)?;
            held.push(userid);
            continue;
        }
        if !may_write_to(ctx, &user.userid, &userid)? {
            over.push(userid);
            continue;
        }
        replies.extend(ctx.notice_to_user(
            &reader,
            format!("Message from {} **", user.userid),
            format!(
                "{} writes (reply with: message <your userid> <your password> {}):\n\n{text}",
                user.userid, user.userid
            ),
        )?);
        names.push(userid);
    }
    let mut answer = if names.is_empty() {
        "Your message went to nobody.".to_string()
    } else {
        format!("Your message went to {}.", and_list(&names))
    };
    for sentence in [held_sentence(&held, &user.userid), over_sentence(&over)]
        .into_iter()
        .flatten()
    {
        answer.push(' ');
        answer.push_str(&sentence);
    }
    replies.push(ctx.notice(ctx.answer_to(&user), "Message sent".to_string(), answer)?);
    Ok(replies)
}

/// What the author of a message or chat is told about the readers it did
/// not go to (no confirmed address); `None` when it went to everyone.
fn held_sentence(held: &[String], author: &str) -> Option<String> {
    let (who, has) = match held {
        [] => return None,
        [one] => (one.clone(), "has"),
        _ => (and_list(held), "have"),
    };
    Some(format!(
        "It did not go to {who}: {who} {has} no confirmed mail address yet, and this server mails nothing a player wrote to an address that has not confirmed it wants the server's mail. The text is not kept; {who} will be told that a message from {author} was held back, with the next mail the server sends them anyway. Send it again once they have confirmed their address."
    ))
}

/// The sentence that tells `userid` about the messages held back from it
/// while it had no confirmed address (see [`message_users`]), for the next
/// mail its address gets anyway; `None` when there were none. Told once:
/// the record is forgotten here, in the transaction of the mail that
/// carries the sentence.
pub(crate) fn held_back_note(ctx: &Ctx<'_>, userid: &str) -> Handled<Option<String>> {
    let held = store::take_held_back(ctx.conn, userid)?;
    if held.is_empty() {
        return Ok(None);
    }
    let total: i64 = held.iter().map(|(_, n)| n).sum();
    let authors: Vec<String> = held
        .iter()
        .map(|(a, n)| {
            if *n == 1 {
                a.clone()
            } else {
                format!("{a} ({n})")
            }
        })
        .collect();
    let (noun, verb) = if total == 1 {
        ("message", "was")
    } else {
        ("messages", "were")
    };
    Ok(Some(format!(
        "While {userid} had no confirmed address, {total} {noun} to {userid} from {} {verb} held back: the server mails nothing a player wrote to an address before it is confirmed, and it did not keep the text. Ask them to send it again once the address is confirmed.",
        and_list(&authors)
    )))
}
