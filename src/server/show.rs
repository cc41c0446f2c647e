//! Reading boards: `show` (by board, by player), `games`, `pgn` (the
//! game record), and the board drawn under an erroneous command.

use super::compose::Occasion;
use super::loaded::{all_plies, load, passes, replay, seat_to_act};
use super::{Ctx, Handled, Refusal, Reply};
use crate::store::{self, BoardStatus};
use game::command::{BoardFilter, BoardRef};
use game::render::Drawing;
use rules::{self, Game};

/// The board drawn for the sender of an erroneous command, if it exists.
pub(crate) fn drawing_for_sender(
    ctx: &Ctx<'_>,
    game: &str,
    number: u32,
) -> Handled<Option<String>> {
    let Some(game) = rules::game(game) else {
        return Ok(None);
    };
    if !store::board_exists(ctx.conn, store::BoardId::new(game.name(), number))? {
        return Ok(None);
    }
    let loaded = load(ctx, game, number)?;
    let drawing = ctx.sender_drawing(game.name())?;
    Ok(Some(game::render::board(
        &loaded.position.diagram(),
        drawing,
    )))
}

/// The body `show` sends for one board (optionally at ply `at`).
pub(crate) fn show_body(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    at: Option<u32>,
    drawing: Drawing,
) -> Handled<String> {
    Ok(show_mail(ctx, game, number, at, drawing)?.1)
}

/// The subject, the body and the picture `show` sends for one board: as
/// it is now, or (with `at`) a historic view of the position after ply
/// `at`, which says so in its subject, body and picture. The picture only
/// for a sender who chose it (see [`Ctx::sender_picture`]).
pub(crate) fn show_mail(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    at: Option<u32>,
    drawing: Drawing,
) -> Handled<ShownBoard> {
    let mut loaded = load(ctx, game, number)?;
    let of = loaded.played as usize;
    if let Some(n) = at {
        if n as usize > of {
            return Err(Refusal::new(format!(
                "{} board {number} has {of} plies so far; ask for #0 to #{of} instead of #{n}.",
                game.title(),
            ))
            .on(game.name(), Some(number))
            .into());
        }
        // A view of the past: the whole game from the start.
        loaded.plies = all_plies(ctx, &loaded)?;
        loaded.plies.truncate(n as usize);
        loaded.played = n;
        loaded.position = replay(game, &loaded.row, &loaded.plies)?;
    }
    let mut view = loaded.view(game, vec![]);
    view.recent_only = false;
    if let Some(ply) = at {
        view.occasion = Occasion::Historic { ply, of };
    }
    let picture = if ctx.sender_picture()? {
        view.picture(ctx, drawing.from_black)?
    } else {
        None
    };
    Ok((view.subject(), view.body(ctx, drawing)?, picture))
}

/// A board as `show` mails it: its subject, body and picture.
pub(crate) type ShownBoard = (String, String, Option<crate::mail::picture::Png>);

/// `<game> show <board>[#N]...`: board mails to the sender.
pub(crate) fn show(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    boards: &[BoardRef],
) -> Handled<Vec<Reply>> {
    let drawing = ctx.sender_drawing(game.name())?;
    let mut replies = Vec::new();
    for r in boards {
        let (subject, body, picture) = show_mail(ctx, game, r.board, r.ply, drawing)?;
        let reply_key = match r.ply {
            None => sender_reply_key(ctx, game, r.board)?,
            Some(_) => None,
        };
        replies.push(Reply {
            to: ctx.sender.unwrap_or_default().to_string(),
            subject,
            body,
            reply_key,
            codes: Vec::new(),
            board: None,
            picture,
        });
    }
    Ok(replies)
}

/// The board as it stands shown to one of its players may be answered by
/// reply, like their board mails.
fn sender_reply_key(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
) -> Handled<Option<super::ReplyKey>> {
    let Some(sender) = ctx.sender else {
        return Ok(None);
    };
    let userids = store::userids_with_address(ctx.conn, sender)?;
    let loaded = load(ctx, game, number)?;
    let Some(userid) = loaded.row.players.iter().find(|p| userids.contains(p)) else {
        return Ok(None);
    };
    loaded.view(game, vec![]).reply_key(ctx, userid)
}

fn filtered(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    users: &[String],
    filter: BoardFilter,
) -> Handled<Vec<store::BoardRow>> {
    let mut boards = if users.is_empty() {
        store::boards_of_game(ctx.conn, game.name())?
    } else {
        let mut all = Vec::new();
        for u in users {
            for b in store::boards_of_user(ctx.conn, Some(game.name()), &u.to_ascii_lowercase())? {
                if !all.iter().any(|x: &store::BoardRow| x.board == b.board) {
                    all.push(b);
                }
            }
        }
        all.sort_by_key(|b| b.board);
        all
    };
    let mut keep = Vec::new();
    for b in boards.drain(..) {
        if passes(game, &b, filter, users)? {
            keep.push(b);
        }
    }
    Ok(keep)
}

/// `<game> show <userid>... [filter]`: board mails of those users' boards.
pub(crate) fn show_users(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    users: &[String],
    filter: BoardFilter,
) -> Handled<Vec<Reply>> {
    let boards = filtered(ctx, game, users, filter)?;
    if boards.is_empty() {
        return Err(Refusal::new(format!(
            "No {} boards of {} match; try \"{} games all\".",
            game.name(),
            users.join(", "),
            game.name()
        ))
        .into());
    }
    let refs: Vec<BoardRef> = boards
        .iter()
        .map(|b| BoardRef {
            board: b.board,
            ply: None,
        })
        .collect();
    show(ctx, game, &refs)
}

/// A board's state in a list of boards: `bob to act, ply 12`, `won by
/// alice (checkmate)`, `tie (stalemate)` (the `games` table and the web's
/// lists).
pub(crate) fn board_state(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    b: &store::BoardRow,
) -> Handled<String> {
    Ok(match &b.status {
        BoardStatus::Active => format!(
            "{} to act, ply {}",
            b.players[seat_to_act(game, b)?.index()],
            store::ply_count(ctx.conn, store::BoardId::new(game.name(), b.board))? + 1
        ),
        BoardStatus::Finished {
            winner_seat: Some(s),
            ending,
        } => format!("won by {} ({ending})", b.players[s.index()]),
        BoardStatus::Finished {
            winner_seat: None,
            ending,
        } => format!("tie ({ending})"),
    })
}

/// `<game> games [<userid>...] [filter]`: a table to the sender.
pub(crate) fn games(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    users: &[String],
    filter: BoardFilter,
) -> Handled<Vec<Reply>> {
    let boards = filtered(ctx, game, users, filter)?;
    let mut lines = Vec::new();
    for b in &boards {
        let state = board_state(ctx, game, b)?;
        lines.push(format!(
            "{:<6} {:<30} {state}",
            b.board,
            b.players.join(" - ")
        ));
    }
    let which = match filter {
        BoardFilter::All => "All",
        BoardFilter::Active => "Active",
        BoardFilter::Inactive => "Finished",
        BoardFilter::Next => "Waiting",
    };
    let title = if users.is_empty() {
        format!("{which} {} boards", game.title())
    } else {
        format!("{which} {} boards of {}", game.title(), users.join(", "))
    };
    let body = ctx.server.templates.render(
        "games.txt",
        minijinja::context! { title => title, lines => lines },
    )?;
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: format!("List of {} games", game.title()),
        body,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture: None,
    }])
}

/// `<game> pgn <board>`: the game record, to the sender.
pub(crate) fn record(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> Handled<Vec<Reply>> {
    let loaded = load(ctx, game, number)?;
    // The record alone, so that a program can read the mail as a PGN file.
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: format!("{} Board {number} record", game.title()),
        body: super::record::game_record(ctx, game, &loaded.row, &all_plies(ctx, &loaded)?)?,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture: None,
    }])
}
