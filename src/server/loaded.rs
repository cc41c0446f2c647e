//! A board as the commands work on it: loaded from the store with its plies
//! and the position they lead to (a ply is played in `ply`, a board ended
//! in `ending`).

use std::cell::OnceCell;

use super::compose::{BoardView, Occasion, RECENT_PLIES};
use super::record::every_ply;
use super::{Ctx, Handled, Refusal, Reply, ServerError};
use crate::store::{self, Ply};
use game::command::BoardFilter;
use rules::{self, Game, Position};

/// A board with its recent plies and the position they lead to.
///
/// Loading costs the same at ply 4 as at ply 400: the position is read
/// from the board's position text, and its draw history from the keys
/// stored with the plies since its resume point (the last irreversible
/// action, see migrations 0014 and 0026), which the move rule keeps under
/// 100; no ply is replayed (but those of a board stored without keys, once)
/// and only the recent plies are read. What needs the whole game (a view
/// of an earlier ply, an undo, the full move list of a finished board)
/// reads it then.
pub(crate) struct Loaded {
    pub row: store::BoardRow,
    /// Plies played so far.
    pub played: u32,
    /// The last plies (at least [`RECENT_PLIES`] + 1 of them, or all: the
    /// recent window's first line may begin one ply earlier), ending
    /// with ply `played`.
    pub plies: Vec<Ply>,
    pub position: Box<dyn Position>,
}

impl Loaded {
    pub(crate) fn view<'a>(&'a self, game: &'static dyn Game, news: Vec<String>) -> BoardView<'a> {
        BoardView {
            game,
            row: &self.row,
            plies: &self.plies,
            position: self.position.as_ref(),
            news,
            recent_only: true,
            comment: None,
            occasion: Occasion::Turn,
            whole: OnceCell::new(),
            bodies: Default::default(),
            pictures: Default::default(),
        }
    }
}

/// The position the stored plies lead to from the board's start.
pub(crate) fn replay(
    game: &'static dyn Game,
    row: &store::BoardRow,
    plies: &[Ply],
) -> Result<Box<dyn Position>, ServerError> {
    replay_from(game, row, &row.start_position, plies)
}

/// The position `plies` lead to from the position text `from`.
fn replay_from(
    game: &'static dyn Game,
    row: &store::BoardRow,
    from: &str,
    plies: &[Ply],
) -> Result<Box<dyn Position>, ServerError> {
    replay_seeing(game, row, from, plies, |_, _| {})
}

/// [`replay_from`], showing `seen` the position text `from` leads to
/// (ply 0) and the position after each ply.
fn replay_seeing(
    game: &'static dyn Game,
    row: &store::BoardRow,
    from: &str,
    plies: &[Ply],
    mut seen: impl FnMut(Option<&Ply>, &dyn Position),
) -> Result<Box<dyn Position>, ServerError> {
    let corrupt = |reason: String| ServerError::Replay {
        game: row.game.clone(),
        board: row.board,
        reason,
    };
    let mut position = game
        .position(from, &row.options)
        .map_err(|e| corrupt(e.to_string()))?;
    seen(None, position.as_ref());
    for ply in plies {
        position
            .play(&ply.notation)
            .map_err(|e| corrupt(format!("ply {}: {e}", ply.ply)))?;
        seen(Some(ply), position.as_ref());
    }
    Ok(position)
}

/// Replay the whole game from the start, and store the resume point it
/// leads to (after an undo).
pub(crate) fn replay_all(ctx: &Ctx<'_>, loaded: &mut Loaded) -> Handled<()> {
    let game = rules::game(&loaded.row.game).ok_or_else(|| ServerError::Replay {
        game: loaded.row.game.clone(),
        board: loaded.row.board,
        reason: "no such game".into(),
    })?;
    let plies = store::plies(ctx.conn, store::BoardId::new(game.name(), loaded.row.board))?;
    let mut position = game
        .position(&loaded.row.start_position, &loaded.row.options)
        .map_err(|e| ServerError::Replay {
            game: loaded.row.game.clone(),
            board: loaded.row.board,
            reason: e.to_string(),
        })?;
    let mut resume = (0, None);
    for ply in &plies {
        position
            .play(&ply.notation)
            .map_err(|e| ServerError::Replay {
                game: loaded.row.game.clone(),
                board: loaded.row.board,
                reason: format!("ply {}: {e}", ply.ply),
            })?;
        if position.history_plies() == 0 {
            resume = (ply.ply, Some(position.to_text()));
        }
    }
    store::set_resume_point(
        ctx.conn,
        store::BoardId::new(game.name(), loaded.row.board),
        resume.0,
        resume.1.as_deref(),
    )?;
    loaded.played = plies.len() as u32;
    let skip = plies.len().saturating_sub(RECENT_PLIES + 1);
    loaded.plies = plies[skip..].to_vec();
    loaded.position = position;
    Ok(())
}

/// Every ply of a loaded board (read again when only the recent ones are held).
pub(crate) fn all_plies(ctx: &Ctx<'_>, loaded: &Loaded) -> Handled<Vec<Ply>> {
    Ok(
        every_ply(ctx, &loaded.row.game, loaded.row.board, &loaded.plies)?
            .unwrap_or_else(|| loaded.plies.clone()),
    )
}

/// The seat to act on an active board, read from its stored position (no
/// replay needed).
pub(crate) fn seat_to_act(game: &'static dyn Game, row: &store::BoardRow) -> Handled<rules::Color> {
    let position = game
        .position(&row.position, &row.options)
        .map_err(|e| ServerError::Replay {
            game: row.game.clone(),
            board: row.board,
            reason: e.to_string(),
        })?;
    Ok(position.to_act())
}

/// Whether a board passes a listing filter; for `next`, whether one of
/// `users` (anyone when empty) is to act on it.
pub(crate) fn passes(
    game: &'static dyn Game,
    b: &store::BoardRow,
    filter: BoardFilter,
    users: &[String],
) -> Handled<bool> {
    Ok(match filter {
        BoardFilter::All => true,
        BoardFilter::Active => b.is_active(),
        BoardFilter::Inactive => !b.is_active(),
        BoardFilter::Next => {
            b.is_active() && {
                let to_act = &b.players[seat_to_act(game, b)?.index()];
                users.is_empty() || users.iter().any(|u| *to_act == u.to_ascii_lowercase())
            }
        }
    })
}

/// Refuse a board number that does not exist.
pub(crate) fn require_board(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> Handled<()> {
    if store::board_exists(ctx.conn, store::BoardId::new(game.name(), number))? {
        Ok(())
    } else {
        Err(no_such_board(game, number).into())
    }
}

fn no_such_board(game: &'static dyn Game, number: u32) -> Refusal {
    Refusal::new(format!(
        "There is no {} board {number}; send \"{} games all\" for the list of boards.",
        game.name(),
        game.name()
    ))
}

pub(crate) fn load(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> Handled<Loaded> {
    let Some(row) = store::board(ctx.conn, store::BoardId::new(game.name(), number))? else {
        return Err(no_such_board(game, number).into());
    };
    let played = store::ply_count(ctx.conn, store::BoardId::new(game.name(), number))?;
    let (resume_ply, from) =
        match store::resume_point(ctx.conn, store::BoardId::new(game.name(), number))? {
            (ply, Some(text)) if ply <= played => (ply, Some(text)),
            _ => (0, None),
        };
    let first = played.saturating_sub(RECENT_PLIES as u32 + 1);
    let plies = store::plies_after(ctx.conn, store::BoardId::new(game.name(), number), first)?;
    let position = match resumed(ctx, game, &row, resume_ply, played)? {
        Some(position) => position,
        None => {
            let from = from.as_deref().unwrap_or(&row.start_position);
            let since_resume = if resume_ply >= first {
                plies[((resume_ply - first) as usize).min(plies.len())..].to_vec()
            } else {
                store::plies_after(
                    ctx.conn,
                    store::BoardId::new(game.name(), number),
                    resume_ply,
                )?
            };
            replay_keyed(ctx, game, &row, from, resume_ply, &since_resume)?
        }
    };
    Ok(Loaded {
        row,
        played,
        plies,
        position,
    })
}

/// The position of a board from its stored position text, with the draw
/// history taken from the keys stored with the plies since its resume
/// point (`resume_ply`, the last irreversible one; see migrations 0014
/// and 0026): no ply is replayed. `None` when a key is missing (plies
/// stored before migration 0026) or does not fit (another build's), or
/// the position text cannot be read: the caller replays.
fn resumed(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    row: &store::BoardRow,
    resume_ply: u32,
    played: u32,
) -> Handled<Option<Box<dyn Position>>> {
    let mut keys = Vec::with_capacity((played - resume_ply) as usize + 1);
    if resume_ply == 0 {
        // The history starts at the position the board was created from.
        match game.position(&row.start_position, &row.options) {
            Ok(start) => keys.push(start.position_key()),
            Err(_) => return Ok(None),
        }
    }
    let stored = store::ply_keys(
        ctx.conn,
        store::BoardId::new(game.name(), row.board),
        resume_ply.max(1),
    )?;
    if stored.len() != (played + 1 - resume_ply.max(1)) as usize {
        return Ok(None);
    }
    for key in stored {
        match key {
            Some(key) => keys.push(key),
            None => return Ok(None),
        }
    }
    let Ok(mut position) = game.position(&row.position, &row.options) else {
        return Ok(None);
    };
    Ok(position.resume_history(&keys).then_some(position))
}

/// The position `plies` (those after ply `resume_ply`) lead to from the
/// position text `from`, by replay; the keys of ply `resume_ply` and the
/// plies after it are stored on the way (so that the next load need not
/// replay).
fn replay_keyed(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    row: &store::BoardRow,
    from: &str,
    resume_ply: u32,
    plies: &[Ply],
) -> Handled<Box<dyn Position>> {
    let mut keys = Vec::with_capacity(plies.len() + 1);
    let position = replay_seeing(game, row, from, plies, |ply, position| match ply {
        Some(ply) => keys.push((ply.ply, position.position_key())),
        None if resume_ply > 0 => keys.push((resume_ply, position.position_key())),
        None => {}
    })?;
    store::set_ply_keys(ctx.conn, store::BoardId::new(game.name(), row.board), &keys)?;
    Ok(position)
}
/// The current board mail of each active board of `user`, to `address`
/// alone (an address just confirmed: see `confirm`), each answerable by
/// reply like any board mail to the player.
pub(crate) fn boards_for_address(
    ctx: &Ctx<'_>,
    user: &store::User,
    address: &str,
) -> Handled<Vec<Reply>> {
    let mut replies = Vec::new();
    if user.signed_off_at.is_some() {
        return Ok(replies);
    }
    for row in store::boards_of_user(ctx.conn, None, &user.userid)? {
        let Some(game) = rules::game(&row.game).filter(|_| row.is_active()) else {
            continue;
        };
        let loaded = load(ctx, game, row.board)?;
        let view = loaded.view(game, vec![]);
        let drawing = ctx.drawing_of(&user.userid, game.name())?;
        replies.push(Reply {
            to: address.to_string(),
            subject: view.subject(),
            body: view.body_for(ctx, drawing, &user.userid)?,
            reply_key: view.reply_key(ctx, &user.userid)?,
            codes: Vec::new(),
            board: None,
            picture: None,
        });
    }
    Ok(replies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::config::Config;
    use crate::server::ply::apply_move;
    use crate::server::templates::Templates;
    use crate::server::{guard, Server};
    use chrono::Utc;
    use rusqlite::Connection;
    use std::collections::HashMap;

    fn with_ctx(f: impl FnOnce(&Ctx<'_>)) {
        let conn = crate::store::open_in_memory().unwrap();
        for u in ["alice", "bob"] {
            store::insert_user(&conn, u, "h", &[format!("{u}@x")], Utc::now()).unwrap();
        }
        let config = Config::default();
        let clock = SystemClock;
        let templates = Templates::load(None).unwrap();
        let server = Server::new(&config, &clock, &templates);
        let session = guard::Session::default();
        let ctx = Ctx {
            conn: &conn,
            server: &server,
            now: Utc::now(),
            sender: None,
            comment: "",
            line: "",
            vouched: None,
            session: &session,
            computer_budget: &Default::default(),
            previews: &Default::default(),
        };
        f(&ctx);
    }

    fn new_board(conn: &Connection, game: &'static dyn Game, start: &str) -> u32 {
        store::insert_board(
            conn,
            &store::NewBoard {
                game: game.name(),
                options: &[],
                start_position: start,
                players: &["alice".into(), "bob".into()],
                nag_days: None,
                forfeit_days: None,
                total_days: None,
                now: Utc::now(),
            },
        )
        .unwrap()
    }

    /// A legal action of `position`, chosen by `rng`: seven times in eight one
    /// back to a position seen since the last irreversible action (when
    /// there is one), so that the games repeat themselves.
    fn pick(rng: &mut fastrand::Rng, position: &dyn Position, seen: &HashMap<u64, u32>) -> String {
        let legal = position.legal_actions();
        if rng.usize(..8) != 0 {
            let back: Vec<&String> = legal
                .iter()
                .filter(|a| {
                    let mut next = position.clone_box();
                    next.play(a).unwrap();
                    seen.contains_key(&next.position_key())
                })
                .collect();
            if !back.is_empty() {
                return back[rng.usize(..back.len())].clone();
            }
        }
        legal[rng.usize(..legal.len())].clone()
    }

    fn same(loaded: &dyn Position, replayed: &dyn Position, at: &str) {
        assert_eq!(loaded.to_text(), replayed.to_text(), "{at}");
        assert_eq!(loaded.outcome(), replayed.outcome(), "{at}");
        assert_eq!(loaded.history_plies(), replayed.history_plies(), "{at}");
        assert_eq!(loaded.position_key(), replayed.position_key(), "{at}");
        assert_eq!(loaded.to_act(), replayed.to_act(), "{at}");
        assert_eq!(loaded.legal_actions(), replayed.legal_actions(), "{at}");
    }

    /// Random games of every game, each ply played on a board loaded
    /// afresh (from its position text and stored keys, no replay), agree
    /// at every ply with one position that played them all: position,
    /// outcome (repetition draws included), history and legal actions.
    #[test]
    fn a_board_loaded_from_its_keys_is_the_replayed_board() {
        let mut repetitions = 0;
        for &game in rules::registry() {
            for seed in 1..=3u64 {
                with_ctx(|ctx| {
                    // Seeded, so the games repeat.
                    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15 ^ (seed * 7919));
                    let mut reference = game.start(&[]).unwrap();
                    let number = new_board(ctx.conn, game, &reference.to_text());
                    let mut seen = HashMap::from([(reference.position_key(), 1)]);
                    for ply in 1..=120u32 {
                        let mut loaded = load(ctx, game, number).unwrap();
                        let at = format!("{} seed {seed} before ply {ply}", game.name());
                        assert!(
                            resumed(ctx, game, &loaded.row, resume(ctx, game, number), ply - 1)
                                .unwrap()
                                .is_some(),
                            "{at}: loaded without replaying"
                        );
                        same(loaded.position.as_ref(), reference.as_ref(), &at);
                        if reference.outcome().is_over() {
                            if reference.outcome()
                                == (rules::Outcome::Drawn {
                                    ending: rules::Ending::Repetition,
                                })
                            {
                                repetitions += 1;
                            }
                            break;
                        }
                        let action = pick(&mut rng, reference.as_ref(), &seen);
                        let seat = reference.to_act();
                        let played = reference.play(&action).unwrap();
                        if reference.history_plies() == 0 {
                            seen.clear();
                        }
                        *seen.entry(reference.position_key()).or_insert(0) += 1;
                        apply_move(
                            ctx,
                            game,
                            &mut loaded,
                            seat,
                            &played.notation,
                            String::new(),
                            false,
                        )
                        .unwrap()
                        .unwrap();
                        same(loaded.position.as_ref(), reference.as_ref(), &at);
                    }
                });
            }
        }
        assert!(
            repetitions >= 5,
            "only {repetitions} games ended by repetition"
        );
    }

    fn resume(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> u32 {
        store::resume_point(ctx.conn, store::BoardId::new(game.name(), number))
            .unwrap()
            .0
    }

    /// Plies stored without keys (before migration 0026), or with keys
    /// that do not fit (another build's hash), are replayed, and their
    /// keys written for the next load.
    #[test]
    fn plies_without_fitting_keys_are_replayed_and_keyed() {
        let chess = rules::game("chess").unwrap();
        for spoil in [
            "UPDATE plies SET position_key = NULL",
            "UPDATE plies SET position_key = NULL WHERE ply % 3 = 0",
            "UPDATE plies SET position_key = position_key + 1",
        ] {
            with_ctx(|ctx| {
                let mut reference = chess.start(&[]).unwrap();
                let number = new_board(ctx.conn, chess, &reference.to_text());
                let moves = ["e4", "e5", "Nf3", "Nc6", "Ng1", "Nb8", "Nf3", "Nc6", "Ng1"];
                for (i, m) in moves.iter().enumerate() {
                    let mut loaded = load(ctx, chess, number).unwrap();
                    reference.play(m).unwrap();
                    let seat = rules::Color::from_index(i % 2).unwrap();
                    apply_move(ctx, chess, &mut loaded, seat, m, String::new(), false)
                        .unwrap()
                        .unwrap();
                }
                ctx.conn.execute_batch(spoil).unwrap();
                let row = store::board(ctx.conn, store::BoardId::new("chess", number))
                    .unwrap()
                    .unwrap();
                assert!(
                    resumed(ctx, chess, &row, 2, 9).unwrap().is_none(),
                    "{spoil}"
                );
                let mut loaded = load(ctx, chess, number).unwrap();
                same(loaded.position.as_ref(), reference.as_ref(), spoil);
                assert!(
                    resumed(ctx, chess, &row, 2, 9).unwrap().is_some(),
                    "{spoil}"
                );
                // The third occurrence of the position after e5 draws.
                apply_move(
                    ctx,
                    chess,
                    &mut loaded,
                    rules::Color::Black,
                    "Nb8",
                    String::new(),
                    false,
                )
                .unwrap()
                .unwrap();
                reference.play("Nb8").unwrap();
                same(loaded.position.as_ref(), reference.as_ref(), spoil);
                assert_eq!(
                    loaded.position.outcome(),
                    rules::Outcome::Drawn {
                        ending: rules::Ending::Repetition
                    }
                );
                let again = load(ctx, chess, number).unwrap();
                same(again.position.as_ref(), reference.as_ref(), spoil);
            });
        }
    }
}
