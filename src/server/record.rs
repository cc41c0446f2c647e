//! A board's record: its plies as the move list shows them, every ply of a
//! board, and the game record in PGN's layout. Below `compose` (board
//! mails show the record); imports only `store`, `render` and `rules`.

use super::{Ctx, Handled};
use crate::store::{self, BoardEnding, BoardStatus, Ply};
use game::render::{MoveRecord, AUTO, COND};
use rules::{self, Game};

/// A stored ply as the move list shows it.
pub(crate) fn record(p: &Ply) -> MoveRecord {
    MoveRecord {
        ply: p.ply,
        seat: p.seat,
        notation: p.notation.clone(),
        mark: if p.conditional {
            COND
        } else if p.auto {
            AUTO
        } else {
            ""
        },
        events: p.events.clone(),
    }
}

/// Every ply of a board, given the plies held for it (a loaded board
/// holds only its recent ones, ending with the last): those when they
/// begin at ply 1, else all of them read from the store.
pub(crate) fn every_ply(
    ctx: &Ctx<'_>,
    game: &str,
    board: u32,
    held: &[Ply],
) -> Handled<Option<Vec<Ply>>> {
    match held.first() {
        Some(first) if first.ply > 1 => Ok(Some(store::plies(
            ctx.conn,
            store::BoardId::new(game, board),
        )?)),
        _ => Ok(None),
    }
}

/// The game record of a board in PGN's layout (see [`game::render::record`]):
/// PGN proper for chess; the same tags and layout with its own move text for
/// every other game (a `Variant` tag names it). A board that did not start
/// from the game's usual position carries `SetUp` and `FEN` tags with its
/// start position text.
pub(crate) fn game_record(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    row: &store::BoardRow,
    plies: &[store::Ply],
) -> Handled<String> {
    let server = &ctx.server.config.server;
    let site = format!("{} <{}>", server.name, server.address);
    game_record_at(ctx, game, row, plies, &site)
}

/// [`game_record`] with `site` for its `Site` tag (the web's names no
/// address).
pub(crate) fn game_record_at(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    row: &store::BoardRow,
    plies: &[store::Ply],
    site: &str,
) -> Handled<String> {
    let result = match &row.status {
        // An annulled board has no result, as a game in play.
        BoardStatus::Active
        | BoardStatus::Finished {
            ending: BoardEnding::AnnulledInTournament { .. },
            ..
        } => "*",
        BoardStatus::Finished {
            winner_seat: Some(rules::Color::White),
            ..
        } => "1-0",
        BoardStatus::Finished {
            winner_seat: Some(_),
            ..
        } => "0-1",
        BoardStatus::Finished {
            winner_seat: None, ..
        } => "1/2-1/2",
    };
    let mut extra = Vec::new();
    if game.name() != "chess" {
        extra.push(("Variant".to_string(), game.title().to_string()));
    }
    let usual = game.start(&row.options).map(|p| p.to_text()).ok();
    if usual.as_deref() != Some(row.start_position.as_str()) {
        extra.push(("SetUp".to_string(), "1".to_string()));
        extra.push(("FEN".to_string(), row.start_position.clone()));
    }
    if let BoardStatus::Finished { ending, .. } = &row.status {
        extra.push(("Termination".to_string(), ending.termination().to_string()));
    }
    // A tournament's board: one Event for the whole tournament, the round
    // and the board's place in it (`Round "2.3"`), the tournament's start
    // (`EventDate`) and the players' ratings when the game began (none
    // for a board made before they were stored). A casual board is an
    // event of its own.
    let (event, round) = match store::tournament_of_board(ctx.conn, game.name(), row.board)? {
        Some(t) => {
            let mut tags = Vec::new();
            if let Some(start) = t.started_at {
                tags.push((
                    "EventDate".to_string(),
                    start.format("%Y.%m.%d").to_string(),
                ));
            }
            if let Some([white, black]) = t.ratings {
                tags.push(("WhiteElo".to_string(), white.to_string()));
                tags.push(("BlackElo".to_string(), black.to_string()));
            }
            extra.splice(0..0, tags);
            (
                format!("{} tournament {}", game.title(), t.name),
                format!("{}.{}", t.round, t.board_in_round),
            )
        }
        None => (
            format!("{} Board {}", game.title(), row.board),
            "-".to_string(),
        ),
    };
    let tags = game::render::RecordTags {
        event,
        site: site.to_string(),
        date: row.created_at.format("%Y.%m.%d").to_string(),
        round,
        white: row.players.first().cloned().unwrap_or_default(),
        black: row.players.get(1).cloned().unwrap_or_default(),
        result: result.to_string(),
        extra,
    };
    let records: Vec<_> = plies.iter().map(record).collect();
    Ok(game::render::record(&tags, &records))
}
