//! The admin CLI's tournaments (`pbmchess admin tournament ...`).

use super::rounds::start_now;
use super::show::{show_text, state_words};
use super::withdrawal::{cancel, withdraw_by_choice, Leaving};
use super::{describe, join, open};
use crate::server::{Ctx, Handled, Refusal};
use crate::store::{self, Tournament};
use game::command::TournamentPlan;
use rules::{self, Game};

/// The tournament called `name` of `game`, or of whichever game has one
/// of that name when `game` is `None` (refused when several have).
fn named(
    ctx: &Ctx<'_>,
    game: Option<&str>,
    name: &str,
) -> Handled<(&'static dyn Game, Tournament)> {
    let found: Vec<Tournament> = store::tournaments(ctx.conn, game)?
        .into_iter()
        .filter(|t| t.name.eq_ignore_ascii_case(name))
        .collect();
    match &found[..] {
        [t] => {
            let game = rules::game(&t.game)
                .ok_or_else(|| Refusal::new(format!("There is no game called {}.", t.game)))?;
            Ok((game, t.clone()))
        }
        [] => Err(Refusal::new(format!("There is no tournament called {name}.")).into()),
        _ => Err(Refusal::new(format!(
            "Several games have a tournament called {name}; name the game too."
        ))
        .into()),
    }
}

/// The admin CLI's tournaments (`pbmchess admin tournament ...`), each in
/// one transaction with the mails it causes.
impl crate::server::Server<'_> {
    /// `admin tournament create NAME GAME ...`: open it (no entrant).
    pub(crate) fn admin_tournament_create(
        &self,
        conn: &mut rusqlite::Connection,
        game: &str,
        name: &str,
        plan: &TournamentPlan,
    ) -> Result<String, crate::server::AdminError> {
        self.admin(conn, |ctx| {
            let game = rules::game(game)
                .ok_or_else(|| Refusal::new(format!("There is no game called {game}.")))?;
            let t = open(ctx, game, name, None, plan)?;
            Ok(format!(
                "{} tournament {} is open: {}",
                game.name(),
                t.name,
                describe(&t)
            ))
        })?
        .map_err(crate::server::AdminError::Refused)
    }

    /// `admin tournament list [GAME]`: one line a tournament.
    pub(crate) fn admin_tournament_list(
        &self,
        conn: &mut rusqlite::Connection,
        game: Option<&str>,
    ) -> Result<Vec<String>, crate::server::AdminError> {
        self.admin(conn, |ctx| {
            let mut lines = Vec::new();
            for t in store::tournaments(ctx.conn, game)? {
                let joined = store::entrants(ctx.conn, t.id)?.len();
                lines.push(format!(
                    "{:<14} {:<16} {}, {}",
                    t.game,
                    t.name,
                    describe(&t),
                    state_words(&t, joined)
                ));
            }
            Ok(lines)
        })?
        .map_err(crate::server::AdminError::Refused)
    }

    /// `admin tournament show|start|join|withdraw NAME [USERID] [--game
    /// GAME]`: what `tournament show` mails, or what the change did.
    pub fn admin_tournament(
        &self,
        conn: &mut rusqlite::Connection,
        game: Option<&str>,
        name: &str,
        act: AdminTournamentAct<'_>,
    ) -> Result<String, crate::server::AdminError> {
        self.admin(conn, |ctx| {
            let (game, t) = named(ctx, game, name)?;
            match act {
                AdminTournamentAct::Show => show_text(ctx, game, &t),
                AdminTournamentAct::Start => start_now(ctx, game, &t),
                AdminTournamentAct::Join(userid) => {
                    join(ctx, game, &t, &userid.to_ascii_lowercase())
                }
                AdminTournamentAct::Withdraw(userid) => {
                    let userid = userid.to_ascii_lowercase();
                    withdraw_by_choice(ctx, game, &t, &userid, Leaving::Admin)
                }
                AdminTournamentAct::Cancel => cancel(ctx, game, &t),
            }
        })?
        .map_err(crate::server::AdminError::Refused)
    }
}

/// What `admin tournament` does to one tournament.
#[derive(Clone, Copy, Debug)]
pub enum AdminTournamentAct<'a> {
    Show,
    /// Start it before it is full.
    Start,
    /// Enter this user (the computer player, say).
    Join(&'a str),
    /// Withdraw this user.
    Withdraw(&'a str),
    /// Remove it (open) or end it, its boards in play deleted (running).
    Cancel,
}
