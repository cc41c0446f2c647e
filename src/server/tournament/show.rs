//! What the tournaments say of themselves: `tournament show`,
//! `tournaments` and `tournament pgn`.

use super::table::Table;
use super::{describe, find, FINISHED_LISTED};
use crate::server::loaded::{all_plies, load};
use crate::server::{Ctx, Handled, Reply};
use crate::store::{self, Tournament, TournamentState};
use game::tournament::{self as pure, Kind};
use rules::{self, Game};

/// `<game> tournament show <name>`: the state, the crosstable and the
/// boards in play, to the sender. Bounded: a round robin has at most 12
/// players (66 boards in play at most, twice that double), a Swiss 64
/// (32 boards).
pub(crate) fn show(ctx: &Ctx<'_>, game: &'static dyn Game, name: &str) -> Handled<Vec<Reply>> {
    let t = find(ctx, game, name)?;
    let text = show_text(ctx, game, &t)?;
    Ok(vec![ctx.notice(
        ctx.sender.unwrap_or_default(),
        format!("{} tournament {}", game.title(), t.name),
        text,
    )?])
}

/// The text of `tournament show` (and the admin's).
pub(crate) fn show_text(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament) -> Handled<String> {
    let table = Table::read(ctx, t)?;
    let mut lines = vec![
        format!("{} tournament {}: {}.", game.title(), t.name, describe(t)),
        format!(
            "{}.",
            crate::server::sentences::capitalise(&state_words(t, table.entrants.len()))
        ),
    ];
    if !t.note.is_empty() {
        lines.push(t.note.clone());
    }
    if t.state == TournamentState::Open {
        let names: Vec<&str> = table.names();
        lines.push(format!(
            "Ties are broken by, in order: {}.",
            game::tournament::tiebreak_codes(&t.tiebreaks, ", ")
        ));
        lines.push(String::new());
        lines.push(if names.is_empty() {
            "No one has joined yet.".to_string()
        } else {
            format!("Joined: {}.", names.join(", "))
        });
        return Ok(lines.join("\n"));
    }
    lines.push(String::new());
    lines.extend(pure::crosstable(
        &t.kind,
        &table.record(),
        &table.names(),
        &t.tiebreaks,
    ));
    let in_play: Vec<String> = table
        .rows
        .iter()
        .zip(&table.boards)
        .filter_map(|(g, b)| b.as_ref().filter(|b| b.is_active()).map(|b| (g, b)))
        .map(|(g, b)| {
            format!(
                "Round {:<2} board {:<6} {} - {}",
                g.round, b.board, b.players[0], b.players[1]
            )
        })
        .collect();
    if !in_play.is_empty() {
        lines.push(String::new());
        lines.push("Boards in play:".to_string());
        lines.extend(in_play);
    }
    Ok(lines.join("\n"))
}

/// `open (3 of 6 joined)`, `running, round 2 of 5`, `finished`.
pub(in crate::server) fn state_words(t: &Tournament, joined: usize) -> String {
    match t.state {
        TournamentState::Open => format!("open ({joined} of {} joined)", t.size),
        TournamentState::Running if matches!(t.kind, Kind::RoundRobin { .. }) => {
            format!("running, its {} rounds at once", t.rounds)
        }
        TournamentState::Running => format!("running, round {} of {}", t.round, t.rounds),
        TournamentState::Finished => "finished".to_string(),
    }
}

/// `<game> tournaments`: the open and running tournaments and the latest
/// finished ones, to the sender.
pub(crate) fn list(ctx: &Ctx<'_>, game: &'static dyn Game) -> Handled<Vec<Reply>> {
    let all = store::tournaments(ctx.conn, Some(game.name()))?;
    let mut lines = Vec::new();
    let mut finished = 0;
    for t in &all {
        if t.state == TournamentState::Finished {
            finished += 1;
            if finished > FINISHED_LISTED {
                continue;
            }
        }
        let joined = store::entrants(ctx.conn, t.id)?.len();
        lines.push(format!(
            "{:<16} {}, {}",
            t.name,
            describe(t),
            state_words(t, joined)
        ));
    }
    let text = if lines.is_empty() {
        format!("There are no {} tournaments.", game.title())
    } else {
        format!("{} tournaments:\n\n{}", game.title(), lines.join("\n"))
    };
    Ok(vec![ctx.notice(
        ctx.sender.unwrap_or_default(),
        format!("{} tournaments", game.title()),
        text,
    )?])
}

/// `<game> tournament pgn <name>`: every game made so far (finished and in
/// play), in round order, as one PGN file, to the sender; the games that
/// do not fit within `[limits] max_reply_bytes` are counted in a final
/// `%` escape line.
pub(crate) fn pgn(ctx: &Ctx<'_>, game: &'static dyn Game, name: &str) -> Handled<Vec<Reply>> {
    let t = find(ctx, game, name)?;
    let table = Table::read(ctx, &t)?;
    // Room for the subject and a line saying what was left out.
    let room = ctx.server.config.limits.max_reply_bytes.saturating_sub(512);
    let mut body = String::new();
    let mut left_out = 0;
    for board in table.boards.iter().flatten() {
        if body.len() >= room {
            left_out += 1;
            continue;
        }
        let loaded = load(ctx, game, board.board)?;
        let plies = all_plies(ctx, &loaded)?;
        let record = crate::server::record::game_record(ctx, game, &loaded.row, &plies)?;
        if body.len() + record.len() + 1 > room {
            left_out += 1;
            continue;
        }
        body.push_str(record.trim_end());
        body.push_str("\n\n");
    }
    if body.is_empty() && left_out == 0 {
        body = format!("% Tournament {} has no games yet.\n", t.name);
    }
    if left_out > 0 {
        body.push_str(&format!(
            "% {left_out} more games did not fit in this mail; ask for them one by one with\n\
             % {} pgn BOARD.\n",
            game.name()
        ));
    }
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: format!("{} tournament {} games", game.title(), t.name),
        body,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture: None,
    }])
}
