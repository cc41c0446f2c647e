//! What any player may look up: the standings, the players, the finished
//! games of a game, the list of boards, and boards shown as a given
//! player sees them (`all show`, `showas`).

use minijinja::context;

use super::loaded::{passes, seat_to_act};
use super::show::show_mail;
use super::{Ctx, Handled, Refusal, Reply};
use crate::store::{self, BoardStatus};
use game::command::Credentials;
use game::ratings;
use game::render::Drawing;
use rules::{self, Game};

/// `<game> standings` (= `ratings`): the rating table of the game, the
/// established players (at least [`ratings::PROVISIONAL_GAMES`] rated
/// games) first, then the provisional ones, each with won, lost and tied.
pub(crate) fn standings(ctx: &Ctx<'_>, game: &'static dyn Game) -> Handled<Vec<Reply>> {
    let table = store::standings(ctx.conn, game.name())?;
    let records = store::records(ctx.conn, game.name())?;
    let title = format!("{} Standings", game.title());
    let head = format!(
        "       {:<20} {:>6} {:>5} {:>4} {:>4} {:>4}",
        "player", "rating", "games", "won", "lost", "tied"
    );
    let mut sections = Vec::new();
    for (established, heading) in [
        (
            true,
            format!(
                "Established ({} or more rated games):",
                ratings::PROVISIONAL_GAMES
            ),
        ),
        (
            false,
            format!(
                "Provisional (fewer than {} rated games):",
                ratings::PROVISIONAL_GAMES
            ),
        ),
    ] {
        let mut lines = vec![heading, head.clone()];
        let rows = table
            .iter()
            .filter(|(_, r)| (r.games >= ratings::PROVISIONAL_GAMES) == established);
        for (i, (userid, r)) in rows.enumerate() {
            let record = records
                .iter()
                .find(|(u, _)| u == userid)
                .map(|(_, rec)| *rec)
                .unwrap_or_default();
            lines.push(format!(
                "  {:>3}. {:<20} {:>6} {:>5} {:>4} {:>4} {:>4}",
                i + 1,
                userid,
                r.rating,
                r.games,
                record.won,
                record.lost,
                record.tied
            ));
        }
        if lines.len() > 2 {
            sections.push(lines.join("\n"));
        }
    }
    let body = if sections.is_empty() {
        format!(
            "{title}\n\nNobody has finished a rated {} game yet.\n",
            game.title()
        )
    } else {
        format!("{title}\n\n{}\n", sections.join("\n\n"))
    };
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: title,
        body,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture: None,
    }])
}

/// `<game> players` (= `users`): every player who has not signed off, with
/// their rating in this game (the start rating for those who have not
/// finished a rated game yet), and never their addresses.
pub(crate) fn players(ctx: &Ctx<'_>, game: &'static dyn Game) -> Handled<Vec<Reply>> {
    let table = store::standings(ctx.conn, game.name())?;
    let mut lines = Vec::new();
    for user in store::users(ctx.conn)? {
        if user.signed_off_at.is_some() {
            continue;
        }
        let rated = table.iter().find(|(u, _)| *u == user.userid);
        let (rating, games) =
            rated.map_or((ratings::START_RATING, 0), |(_, r)| (r.rating, r.games));
        let provisional = if games < ratings::PROVISIONAL_GAMES {
            "  provisional"
        } else {
            ""
        };
        // "1 game", "2 games": the word padded so the columns stay put.
        let word = if games == 1 { "game " } else { "games" };
        let line = format!(
            "{:<20} {rating:>6} {games:>5} {word}{provisional}",
            user.userid
        );
        lines.push(line.trim_end().to_string());
    }
    let title = format!("{} Players", game.title());
    let body = ctx
        .server
        .templates
        .render("games.txt", context! { title => &title, lines => lines })?;
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: title,
        body,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture: None,
    }])
}

/// `<game> history`: the finished boards of the game, with the dates they
/// started and ended.
pub(crate) fn history(ctx: &Ctx<'_>, game: &'static dyn Game) -> Handled<Vec<Reply>> {
    let mut lines = Vec::new();
    let boards = store::boards_of_game(ctx.conn, game.name())?;
    // The players column as wide as its widest entry (not a fixed 30), so
    // that a line of usual userids fits a mail line.
    let pair = boards
        .iter()
        .map(|b| b.players.join(" - ").chars().count())
        .max()
        .unwrap_or(0);
    for b in boards {
        let BoardStatus::Finished {
            winner_seat,
            ending,
        } = &b.status
        else {
            continue;
        };
        let result = match winner_seat {
            Some(s) => format!("won by {} ({ending})", b.players[s.index()]),
            None => format!("tie ({ending})"),
        };
        let ended = b.finished_at.unwrap_or(b.last_action_at);
        lines.push(format!(
            "{:<6} {} to {}  {:<pair$}  {result}",
            b.board,
            b.created_at.format("%Y-%m-%d"),
            ended.format("%Y-%m-%d"),
            b.players.join(" - ")
        ));
    }
    let body = ctx.server.templates.render(
        "games.txt",
        context! { title => format!("Finished {} boards", game.title()), lines => lines },
    )?;
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: format!("{} History", game.title()),
        body,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture: None,
    }])
}

/// `list [game...]`: the active boards of those games (of every game when
/// none is named), one line each.
pub(crate) fn list(ctx: &Ctx<'_>, games: &[String]) -> Handled<Vec<Reply>> {
    let chosen: Vec<&'static dyn Game> = if games.is_empty() {
        rules::registry().to_vec()
    } else {
        let mut v = Vec::new();
        for name in games {
            match rules::game(name) {
                Some(g) => v.push(g),
                None => {
                    return Err(Refusal::new(format!(
                        "This server does not referee {name}; send \"help\" for the games it has."
                    ))
                    .into())
                }
            }
        }
        v
    };
    let mut lines = Vec::new();
    for game in chosen {
        for b in store::boards_of_game(ctx.conn, game.name())? {
            if !b.is_active() {
                continue;
            }
            lines.push(format!(
                "{:<12} {:<6} {:<30} {} to act",
                game.name(),
                b.board,
                b.players.join(" - "),
                b.players[seat_to_act(game, &b)?.index()]
            ));
        }
    }
    let body = ctx.server.templates.render(
        "games.txt",
        context! { title => "Active boards", lines => lines },
    )?;
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: "List of active games".to_string(),
        body,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture: None,
    }])
}

/// The boards of `userid` in `games` under `filter` (or just `numbers`),
/// as board mails to the sender, drawn in `size` (the sender's own size
/// for each game when `None`).
fn user_boards(
    ctx: &Ctx<'_>,
    games: &[&'static dyn Game],
    userid: &str,
    numbers: &[u32],
    filter: game::command::BoardFilter,
    drawing: Option<Drawing>,
) -> Handled<Vec<Reply>> {
    let mut replies = Vec::new();
    for &game in games {
        let drawing = match drawing {
            Some(drawing) => drawing,
            None => ctx.sender_drawing(game.name())?,
        };
        for b in store::boards_of_user(ctx.conn, Some(game.name()), userid)? {
            if !numbers.is_empty() && !numbers.contains(&b.board) {
                continue;
            }
            if numbers.is_empty() && !passes(game, &b, filter, &[userid.to_string()])? {
                continue;
            }
            let (subject, body, picture) = show_mail(ctx, game, b.board, None, drawing)?;
            replies.push(Reply {
                to: ctx.sender.unwrap_or_default().to_string(),
                subject,
                body,
                reply_key: None,
                codes: Vec::new(),
                board: None,
                picture,
            });
        }
    }
    if replies.is_empty() {
        return Err(Refusal::new(format!(
            "{userid} has no boards that match; try \"all show {userid} all\"."
        ))
        .into());
    }
    Ok(replies)
}

/// `all show <userid> [next|active|...]`: that user's boards across all games.
pub(crate) fn all_show(
    ctx: &Ctx<'_>,
    userid: &str,
    filter: game::command::BoardFilter,
) -> Handled<Vec<Reply>> {
    let userid = userid.to_ascii_lowercase();
    if store::user(ctx.conn, &userid)?.is_none() {
        return Err(Refusal::new(format!(
            "There is no user called {userid}; check the spelling."
        ))
        .into());
    }
    user_boards(ctx, rules::registry(), &userid, &[], filter, None)
}

/// `<game> showas <userid> <pw> [<board>...|all|active|inactive|next]`: the
/// boards as that player sees them (in their board size), to the sender.
pub(crate) fn show_as(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    who: &Credentials,
    boards: &[u32],
    filter: game::command::BoardFilter,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let drawing = ctx.drawing_of(&user.userid, game.name())?;
    user_boards(ctx, &[game], &user.userid, boards, filter, Some(drawing))
}
