//! A board ended: its result stored, its pending moves cleared and (unless
//! it is unrated) its players rated.

use super::loaded::Loaded;
use super::{Ctx, Handled};
use crate::store::{self, BoardEnding, BoardStatus};
use game::ratings::{self, Score};

/// End a board and rate it; returns the rating sentences.
pub(crate) fn finish(
    ctx: &Ctx<'_>,
    loaded: &mut Loaded,
    winner: Option<rules::Color>,
    ending: BoardEnding,
) -> Handled<Vec<String>> {
    finish_unrated(ctx, loaded, winner, ending)?;
    let game = loaded.row.game.clone();
    let [a, b] = &loaded.row.players.clone();
    let current = |userid: &str| -> Handled<store::Rating> {
        Ok(
            store::rating(ctx.conn, &game, userid)?.unwrap_or(store::Rating {
                rating: ratings::START_RATING,
                games: 0,
            }),
        )
    };
    let (ra, rb) = (current(a)?, current(b)?);
    let score = match winner {
        Some(rules::Color::White) => Score::Win,
        Some(rules::Color::Black) => Score::Loss,
        None => Score::Draw,
    };
    let (na, nb) = ratings::update(ra.rating, rb.rating, score);
    store::set_rating(
        ctx.conn,
        &game,
        a,
        store::Rating {
            rating: na,
            games: ra.games + 1,
        },
    )?;
    store::set_rating(
        ctx.conn,
        &game,
        b,
        store::Rating {
            rating: nb,
            games: rb.games + 1,
        },
    )?;
    for (userid, rating) in [(a, na), (b, nb)] {
        store::record_rating(ctx.conn, &game, userid, loaded.row.board, ctx.now, rating)?;
    }
    Ok(vec![
        ratings::change_sentence(a, ra.rating, na),
        ratings::change_sentence(b, rb.rating, nb),
    ])
}

/// Finish a board without rating it (see [`finish`]); no rating lines.
pub(crate) fn finish_unrated(
    ctx: &Ctx<'_>,
    loaded: &mut Loaded,
    winner: Option<rules::Color>,
    ending: BoardEnding,
) -> Handled<Vec<String>> {
    let game = loaded.row.game.clone();
    store::finish_board(
        ctx.conn,
        store::BoardId::new(&game, loaded.row.board),
        winner,
        &ending,
        ctx.now,
    )?;
    store::clear_pending_moves(ctx.conn, store::BoardId::new(&game, loaded.row.board))?;
    loaded.row.finished_at = Some(ctx.now);
    loaded.row.status = BoardStatus::Finished {
        winner_seat: winner,
        ending,
    };
    Ok(vec![])
}
