//! Saying it once: one inbound mail sends each reader of a board one board
//! mail, however many times its commands changed the board.
//!
//! Rulings:
//! - The board mails one inbound mail makes for one board and one address
//!   (a `multiple` of moves, a move and the conditional moves answering
//!   it, a move that ends the game) become one: the last of them, the
//!   board after the last change, at its place among the mail's answers.
//!   Several boards in one mail: each board its own mail.
//! - That mail lists every ply the mail played on the board (by ply
//!   number, as `show <board>#N` and undo name them), and the lines under
//!   the status the earlier mails had (what happened) that the last one
//!   has not.
//! - Each refusal of a command on that board is said in the sender's board
//!   mail of it (the command as quoted and the sentence) instead of an
//!   error mail of its own with the board drawn again. Refusals go to the
//!   sender alone, as ever: the opponent and observers are told what was
//!   played, never what was refused. A refused command on a board the mail
//!   sends no board mail of keeps its error mail.
//! - Nothing else is merged: a `show` of the board, a preview, a relayed
//!   chat keep their own mails (the sender's are joined into one answer
//!   as before; see `outbox`).

use rusqlite::Connection;

use super::wrapping::{wrap, MAIL_WIDTH};
use super::{BoardMail, Ctx, Reply, ServerError};
use crate::store;
use game::command::{Command, GameCommand};

/// A mail of a group (its index among the replies) and what it says of
/// the board.
type Member = (usize, BoardMail);

/// A board a mail's commands acted on, and its plies before the first of
/// them ran.
pub(super) struct Before {
    game: String,
    board: u32,
    plies: u32,
}

/// Note the board `command` acts on (once per board: the count before the
/// mail's first change of it).
pub(super) fn note_board(
    ctx: &Ctx<'_>,
    command: &Command,
    noted: &mut Vec<Before>,
) -> Result<(), ServerError> {
    let Command::Game {
        game,
        command: GameCommand::OnBoard { board, .. },
    } = command
    else {
        return Ok(());
    };
    if noted.iter().any(|b| &b.game == game && b.board == *board) {
        return Ok(());
    }
    let plies = store::ply_count(ctx.conn, store::BoardId::new(game, *board))?;
    noted.push(Before {
        game: game.clone(),
        board: *board,
        plies,
    });
    Ok(())
}

/// The replies of one inbound mail with each reader's board mails of one
/// board said once (see the rulings above), in order.
pub(super) fn say_once(
    ctx: &Ctx<'_>,
    replies: Vec<Reply>,
    before: &[Before],
) -> Result<Vec<Reply>, ServerError> {
    let mut replies: Vec<Option<Reply>> = replies.into_iter().map(Some).collect();
    let mut done: Vec<(String, String, u32)> = Vec::new();
    for i in 0..replies.len() {
        let Some(key) = replies[i].as_ref().and_then(|r| {
            let b = r.board.as_ref()?;
            Some((r.to.clone(), b.game.clone(), b.board))
        }) else {
            continue;
        };
        if done.contains(&key) {
            continue;
        }
        done.push(key.clone());
        // The group: each mail of this board to this address, with what
        // it says of the board.
        let same: Vec<Member> = (i..replies.len())
            .filter_map(|j| {
                let r = replies[j].as_ref()?;
                let b = r.board.as_ref()?;
                (r.to == key.0 && b.game == key.1 && b.board == key.2).then(|| (j, b.clone()))
            })
            .collect();
        let (mails, refusals): (Vec<&Member>, Vec<&Member>) =
            same.iter().partition(|(_, b)| b.refused.is_none());
        let Some((last, last_mail)) = mails.last().map(|(j, b)| (*j, b)) else {
            continue;
        };
        if same.len() < 2 {
            continue;
        }
        let mut lines: Vec<String> = Vec::new();
        for (_, earlier) in &mails[..mails.len() - 1] {
            for line in &earlier.news {
                if !last_mail.news.contains(line) && !lines.contains(line) {
                    lines.push(line.clone());
                }
            }
        }
        if mails.len() > 1 {
            let from = before
                .iter()
                .find(|b| b.game == key.1 && b.board == key.2)
                .map(|b| b.plies);
            if let Some(line) = plies_played(ctx.conn, &key.1, key.2, from)? {
                lines.push(line);
            }
        }
        for (_, refusal) in &refusals {
            if let Some(refused) = &refusal.refused {
                lines.push(format!("Refused: {refused}"));
            }
        }
        for (j, _) in &same {
            if *j != last {
                replies[*j] = None;
            }
        }
        if let Some(mail) = replies[last].as_mut() {
            mail.body = with_lines(&mail.body, &lines);
        }
    }
    Ok(replies.into_iter().flatten().collect())
}

/// The replies that stay mails of their own when said once: all but the
/// board mails a later board mail of the same board to the same address
/// replaces (what the merged mail adds, a line per ply or refusal, is
/// left out of this count).
pub(super) fn still_said(replies: &[Reply]) -> impl Iterator<Item = &Reply> {
    replies.iter().enumerate().filter_map(move |(i, r)| {
        let replaced = r.board.as_ref().is_some_and(|b| {
            b.refused.is_none()
                && replies[i + 1..].iter().any(|later| {
                    later.to == r.to
                        && later.board.as_ref().is_some_and(|l| {
                            l.refused.is_none() && l.game == b.game && l.board == b.board
                        })
                })
        });
        (!replaced).then_some(r)
    })
}

/// `Plies this mail played: 9 Nf3, 10 Nc6.`: the plies of the board after
/// ply `from` (none when the board was not noted, or none is left).
fn plies_played(
    conn: &Connection,
    game: &str,
    board: u32,
    from: Option<u32>,
) -> Result<Option<String>, ServerError> {
    let Some(from) = from else {
        return Ok(None);
    };
    let plies = store::plies_after(conn, store::BoardId::new(game, board), from)?;
    if plies.is_empty() {
        return Ok(None);
    }
    let named: Vec<String> = plies
        .iter()
        .map(|p| format!("{} {}", p.ply, p.notation))
        .collect();
    let what = if plies.len() == 1 {
        "The ply"
    } else {
        "The plies"
    };
    Ok(Some(format!(
        "{what} this mail played, by ply number: {}.",
        named.join(", ")
    )))
}

/// A board mail's body with `lines` said after its first paragraph (the
/// status and what happened), each wrapped to the mail's width.
fn with_lines(body: &str, lines: &[String]) -> String {
    if lines.is_empty() {
        return body.to_string();
    }
    let said: Vec<String> = lines.iter().map(|l| wrap(l, MAIL_WIDTH)).collect();
    let said = said.join("\n");
    match body.find("\n\n") {
        Some(at) => format!("{}\n{said}{}", &body[..at], &body[at..]),
        None => format!("{}\n{said}\n", body.trim_end()),
    }
}
