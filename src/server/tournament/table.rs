//! A tournament's rows read for the pure core (`game::tournament`), and a
//! board's result as the crosstable scores it.

use crate::server::{Ctx, Handled};
use crate::store::{self, BoardEnding, BoardStatus, EntrantRow, Tournament, TournamentGame};
use game::tournament::{self as pure, GameResult};
use rules::{self, Color};

/// A tournament's rows, read for the pure core.
pub(crate) struct Table {
    pub entrants: Vec<EntrantRow>,
    pub ratings: Vec<i32>,
    pub rows: Vec<TournamentGame>,
    pub games: Vec<pure::RoundGame>,
    /// Each game's board row (`None`: not made, or deleted).
    pub boards: Vec<Option<store::BoardRow>>,
    pub byes: Vec<(u32, usize)>,
    pub withdrawn: Vec<usize>,
}

impl Table {
    pub(crate) fn read(ctx: &Ctx<'_>, t: &Tournament) -> Handled<Table> {
        let entrants = store::entrants(ctx.conn, t.id)?;
        let ratings = entrants
            .iter()
            .map(|e| e.rating.unwrap_or(0) as i32)
            .collect();
        let withdrawn = entrants
            .iter()
            .filter(|e| e.withdrawn_after.is_some())
            .filter_map(|e| e.seed)
            .collect();
        let rows = store::tournament_games(ctx.conn, t.id)?;
        let mut games = Vec::new();
        let mut boards = Vec::new();
        for g in &rows {
            let board = match g.board {
                Some(n) => store::board(ctx.conn, store::BoardId::new(&t.game, n))?,
                None => None,
            };
            let score = match (&g.ruled, g.board, &board) {
                (Some(ruled), _, _) => read_score(ruled),
                (None, None, _) => None,
                (None, Some(_), None) => Some(GameResult::Annulled),
                (None, Some(_), Some(row)) => board_score(row),
            };
            games.push(pure::RoundGame {
                round: g.round,
                white: g.white,
                black: g.black,
                result: score,
            });
            boards.push(board);
        }
        Ok(Table {
            entrants,
            ratings,
            rows,
            games,
            boards,
            byes: store::byes(ctx.conn, t.id)?,
            withdrawn,
        })
    }

    pub(crate) fn record(&self) -> pure::Record<'_> {
        pure::Record {
            entrants: self.entrants.len(),
            ratings: &self.ratings,
            games: &self.games,
            byes: &self.byes,
            withdrawn: &self.withdrawn,
        }
    }

    pub(super) fn names(&self) -> Vec<&str> {
        self.entrants.iter().map(|e| e.userid.as_str()).collect()
    }

    /// The seed of `userid`.
    pub(super) fn seed_of(&self, userid: &str) -> Option<usize> {
        self.entrants
            .iter()
            .find(|e| e.userid == userid)
            .and_then(|e| e.seed)
    }
}

/// How a finished board scores: a forfeit (the timers', or a withdrawal's)
/// as one, else by its winner. `None` while it is played.
fn board_score(row: &store::BoardRow) -> Option<GameResult> {
    let BoardStatus::Finished {
        winner_seat,
        ending,
    } = &row.status
    else {
        return None;
    };
    if matches!(ending, BoardEnding::AnnulledInTournament { .. }) {
        return Some(GameResult::Annulled);
    }
    let forfeited = match ending {
        BoardEnding::Forfeit { absent, .. } | BoardEnding::LeftTournament { absent } => {
            row.seat_of(absent)
        }
        _ => None,
    };
    Some(match (forfeited, winner_seat) {
        (Some(Color::White), _) => GameResult::WhiteForfeits,
        (Some(Color::Black), _) => GameResult::BlackForfeits,
        (None, Some(Color::White)) => GameResult::WhiteWins,
        (None, Some(Color::Black)) => GameResult::BlackWins,
        (None, None) => GameResult::Draw,
    })
}

pub(super) fn score_text(score: GameResult) -> &'static str {
    match score {
        GameResult::WhiteWins => "white",
        GameResult::BlackWins => "black",
        GameResult::Draw => "draw",
        GameResult::WhiteForfeits => "white-forfeits",
        GameResult::BlackForfeits => "black-forfeits",
        GameResult::Annulled => "annulled",
    }
}

fn read_score(text: &str) -> Option<GameResult> {
    Some(match text {
        "white" => GameResult::WhiteWins,
        "black" => GameResult::BlackWins,
        "draw" => GameResult::Draw,
        "white-forfeits" => GameResult::WhiteForfeits,
        "black-forfeits" => GameResult::BlackForfeits,
        "annulled" => GameResult::Annulled,
        _ => return None,
    })
}
