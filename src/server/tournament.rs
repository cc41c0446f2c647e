//! Tournaments by mail (issue #27): `<game> tournament create|join|leave|
//! start|withdraw|show|pgn` and `<game> tournaments`, the start (seeding,
//! every round robin round or the first Swiss round, the boards), the next
//! Swiss round when a round's last board ends, withdrawals and forfeits
//! for silence, and the final crosstable. The pairing and the scoring are
//! `game::tournament`'s (pure); this module maps the store's rows to its
//! `Record` and back.
//!
//! Rulings:
//! - Who opens one: the userids of `[server] admins` by mail, any player
//!   when `[tournaments] players_may_create` is true, and the admin CLI.
//!   A player who opens one by mail is its first entrant (they may
//!   `leave`); the admin CLI enters no one.
//! - Sizes: a round robin has [`MIN_ROUND_ROBIN`] to
//!   [`MAX_ROUND_ROBIN_PLAYERS`] players (all its boards start at once,
//!   and its crosstable has a column per opponent); a Swiss
//!   [`MIN_SWISS`] to [`MAX_PLAYERS`], and 1 to [`MAX_ROUNDS`] rounds, at
//!   most one fewer than its players (no pair meets twice). The `start`
//!   of a tournament not yet full needs as many entrants.
//! - Bounds: a player has at most [`OPEN_PER_CREATOR`] tournaments not
//!   finished that they opened, the server `[limits] open_tournaments`.
//! - Seeding: rating in the game descending (the start rating for the
//!   unrated), then join order. Entrant `n` of the crosstable is seed `n`.
//! - Only accounts with a confirmed address open or join by mail (issue
//!   #37): a signup nobody confirmed cannot fill the server's tournaments.
//!   The server's `[limits] open_tournaments` bounds what mail opens; the
//!   admin CLI opens beyond it.
//! - Signing off (by mail, or `admin user remove`) leaves every open
//!   tournament at once, and removes the open ones the account opened
//!   (their entrants are told); in a running one it withdraws the player
//!   before the next round is paired (their boards are forfeited by the
//!   timers).
//! - `admin tournament cancel NAME`: an open tournament is removed (its
//!   entrants are told); a running one is finished at once with the note
//!   that the admin cancelled it, its boards in play are deleted (no
//!   result, unrated; finished games keep their results and ratings), and
//!   every entrant gets the final crosstable.
//! - The start and every round: the pairing, its boards and their mails
//!   are made in the transaction of the mail (or timers' pass, or admin
//!   command) that causes them; each pairing is a row keyed by
//!   (tournament, round, white, black), so a round is made exactly once.
//!   Tournament boards skip the players' challenge settings and the
//!   boards-per-day bound: joining is the consent.
//! - A Swiss round is paired when every board of the round before has
//!   ended, in the transaction that ended the last one (a move, a
//!   resignation, a draw, a forfeit of the timers, an adjudication); when
//!   no legal pairing exists, the tournament ends there, saying why.
//! - Withdrawal (`withdraw`, while it runs) and a forfeit for silence on
//!   any tournament board end the player's tournament the same way:
//!   `game::tournament::withdraw` rules (before half their games are
//!   finished every result is annulled; later, the games in play are lost
//!   by forfeit); their boards in play end at once, unrated, and a Swiss
//!   pairs them no more. The board forfeited for silence itself is rated
//!   as the timers rate any board.
//! - `tournament pgn` mails the games (finished ones and those in play)
//!   that fit within `[limits] max_reply_bytes`; a `%` escape line (which
//!   PGN readers skip) at the end says how many did not.

use super::challenge::{check_tournament_options, start_tournament_board};
use super::loaded::{all_plies, finish_unrated, load};
use super::{Ctx, Failure, Handled, Refusal, Reply};
use crate::store::{
    self, BoardEnding, BoardStatus, EntrantRow, Tournament, TournamentGame, TournamentState,
};
use game::command::{Credentials, Timers, TournamentAction, TournamentCommand, TournamentPlan};
use game::tournament::{self as pure, GameResult, Kind};
use rules::{self, Color, Game};

/// Most players of a Swiss tournament.
pub(crate) const MAX_PLAYERS: u32 = 64;
/// Most players of a round robin.
pub(crate) const MAX_ROUND_ROBIN_PLAYERS: u32 = 12;
/// Fewest players a round robin starts with.
pub(crate) const MIN_ROUND_ROBIN: u32 = 3;
/// Fewest players a Swiss starts with.
pub(crate) const MIN_SWISS: u32 = 4;
/// Most rounds of a Swiss.
pub(crate) const MAX_ROUNDS: u32 = 20;
/// Tournaments not finished that one player may have opened.
pub(crate) const OPEN_PER_CREATOR: u32 = 3;
/// Finished tournaments `tournaments` lists (the latest).
const FINISHED_LISTED: usize = 20;

/// The tournament commands of `game`.
pub(crate) fn execute(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    command: &TournamentCommand,
) -> Handled<Vec<Reply>> {
    match command {
        TournamentCommand::Act { name, who, action } => tournament(ctx, game, name, who, action),
        TournamentCommand::Show { name } => show(ctx, game, name),
        TournamentCommand::Pgn { name } => pgn(ctx, game, name),
        TournamentCommand::List => list(ctx, game),
    }
}

/// `<game> tournament <action> <name> <userid> <pw> ...`
pub(super) fn tournament(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    name: &str,
    who: &Credentials,
    action: &TournamentAction,
) -> Handled<Vec<Reply>> {
    let user = ctx.authenticate(who)?;
    let to = ctx.answer_to(&user).to_string();
    let text = match action {
        TournamentAction::Create(Err(sentence)) => {
            return Err(Refusal::new(super::text::capitalise(sentence)).into())
        }
        TournamentAction::Create(Ok(plan)) => {
            super::confirm::needs_confirmed(&user, "open tournaments")?;
            let admin = ctx.server.config.server.is_admin(&user.userid);
            if !admin && !ctx.server.config.tournaments.players_may_create {
                return Err(Refusal::new(format!(
                    "Only the admins of this server open tournaments; ask one of them to open \
                     {name} for you."
                ))
                .into());
            }
            let t = open(ctx, game, name, Some(&user.userid), plan)?;
            let mut text = format!(
                "{} tournament {name} is open: {}. You are its first entrant; it starts when \
                 {} players have joined ({} tournament join {name} USERID PASSWORD), or when \
                 you send {} tournament start {name} USERID PASSWORD.",
                game.title(),
                describe(&t),
                t.size,
                game.name(),
                game.name()
            );
            text.push_str(&enter(ctx, game, &t, &user.userid)?);
            text
        }
        TournamentAction::Join => {
            super::confirm::needs_confirmed(&user, "join tournaments")?;
            let t = find(ctx, game, name)?;
            join(ctx, game, &t, &user.userid)?
        }
        TournamentAction::Leave => leave(ctx, game, name, &user.userid)?,
        TournamentAction::Start => {
            let t = find(ctx, game, name)?;
            let admin = ctx.server.config.server.is_admin(&user.userid);
            if !admin && t.creator.as_deref() != Some(user.userid.as_str()) {
                return Err(Refusal::new(format!(
                    "Only the player who opened tournament {name} (or an admin) may start it; \
                     it starts by itself when full."
                ))
                .into());
            }
            start_now(ctx, game, &t)?
        }
        TournamentAction::Withdraw => {
            let t = find(ctx, game, name)?;
            withdraw_by_choice(ctx, game, &t, &user.userid)?
        }
    };
    Ok(vec![ctx.notice(
        &to,
        format!("{} tournament {name}", game.title()),
        text,
    )?])
}

/// The tournament of `game` called `name`, or the refusal saying there is
/// none.
pub(crate) fn find(ctx: &Ctx<'_>, game: &'static dyn Game, name: &str) -> Handled<Tournament> {
    if !game::command::is_tournament_name(name) {
        return Err(not_a_name());
    }
    store::tournament(ctx.conn, game.name(), name)?.ok_or_else(|| {
        Refusal::new(format!(
            "There is no {} tournament called {name}; send \"{} tournaments\" for the list.",
            game.title(),
            game.name()
        ))
        .into()
    })
}

/// The refusal of a word that is no tournament name (never quoted: it
/// may be anything, a password written in the wrong place too).
fn not_a_name() -> super::Failure {
    Refusal::new(format!(
        "The word after the action should be a tournament's name: 1 to {} letters, digits or \
         '-', a letter or digit first.",
        game::command::MAX_TOURNAMENT_NAME
    ))
    .into()
}

/// `round robin, 6 players` / `Swiss, 5 rounds, 8 players`.
fn describe(t: &Tournament) -> String {
    let kind = match t.kind {
        Kind::RoundRobin { double: true } => "double round robin".to_string(),
        Kind::RoundRobin { double: false } => "round robin".to_string(),
        Kind::Swiss { rounds } => format!("Swiss, {rounds} rounds"),
    };
    format!("{kind}, {} players", t.size)
}

/// Check a plan against the bounds (see the module's rulings).
fn check_plan(plan: &TournamentPlan) -> Handled<u32> {
    let (min, max) = if plan.swiss {
        (MIN_SWISS, MAX_PLAYERS)
    } else {
        (MIN_ROUND_ROBIN, MAX_ROUND_ROBIN_PLAYERS)
    };
    let kind = if plan.swiss {
        "A Swiss"
    } else {
        "A round robin"
    };
    if plan.players < min || plan.players > max {
        return Err(Refusal::new(format!(
            "{kind} tournament has {min} to {max} players on this server; ask for a number in \
             that range."
        ))
        .into());
    }
    if !plan.swiss {
        return Ok(0);
    }
    let most = MAX_ROUNDS.min(plan.players - 1);
    match plan.rounds {
        Some(r) if (1..=most).contains(&r) => Ok(r),
        _ => Err(Refusal::new(format!(
            "A Swiss tournament of {} players has 1 to {most} rounds; ask for a number in that \
             range.",
            plan.players
        ))
        .into()),
    }
}

/// Open a tournament (by mail: `creator` is the player; from the admin
/// CLI: `None`), after the bounds and the name are checked.
pub(super) fn open(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    name: &str,
    creator: Option<&str>,
    plan: &TournamentPlan,
) -> Handled<Tournament> {
    if !game::command::is_tournament_name(name) {
        return Err(not_a_name());
    }
    let rounds = check_plan(plan)?;
    let name = name.to_ascii_lowercase();
    if store::tournament(ctx.conn, game.name(), &name)?.is_some() {
        return Err(Refusal::new(format!(
            "There is a {} tournament called {name} already; choose another name.",
            game.title()
        ))
        .into());
    }
    let cap = ctx.server.config.limits.open_tournaments;
    if ctx.sender.is_some() && store::unfinished_tournaments(ctx.conn, None)? >= cap {
        return Err(Refusal::new(format!(
            "This server holds {cap} tournaments not yet finished, its most; open yours when \
             one has finished."
        ))
        .into());
    }
    if let Some(userid) = creator {
        if store::unfinished_tournaments(ctx.conn, Some(userid))? >= OPEN_PER_CREATOR {
            return Err(Refusal::new(format!(
                "{userid} has opened {OPEN_PER_CREATOR} tournaments not yet finished, the most \
                 one player may; open another when one has finished."
            ))
            .into());
        }
    }
    let options: Vec<String> = plan.options.iter().map(|o| o.to_lowercase()).collect();
    check_tournament_options(game, &options, &plan.timers)?;
    let id = store::insert_tournament(
        ctx.conn,
        &store::NewTournament {
            game: game.name(),
            name: &name,
            kind: if plan.swiss {
                Kind::Swiss { rounds }
            } else {
                Kind::RoundRobin {
                    double: plan.double,
                }
            },
            rounds,
            size: plan.players,
            options: &options,
            nag_days: plan.timers.nag_days,
            forfeit_days: plan.timers.forfeit_days,
            total_days: plan.timers.total_days,
            creator,
            now: ctx.now,
        },
    )?;
    Ok(store::tournament_by_id(ctx.conn, id)?.expect("the tournament just inserted"))
}

/// `join`: enter `userid`, and start the tournament when that fills it.
pub(crate) fn join(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    userid: &str,
) -> Handled<String> {
    if t.state != TournamentState::Open {
        return Err(Refusal::new(format!(
            "Tournament {} has started already; join another (send \"{} tournaments\").",
            t.name,
            game.name()
        ))
        .into());
    }
    let entered = enter(ctx, game, t, userid)?;
    Ok(format!(
        "{userid} has joined {} tournament {}.{entered}",
        game.title(),
        t.name
    ))
}

/// Enter `userid` into open tournament `t`; when that fills it, start it.
/// The words to add to the answer.
fn enter(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament, userid: &str) -> Handled<String> {
    // The computer player (entered by the admin) has an account once it
    // plays; it is made here if need be.
    let computer = &ctx.server.config.computer;
    if computer.enabled && userid.eq_ignore_ascii_case(&computer.userid) {
        store::ensure_computer_user(ctx.conn, &computer.userid.to_ascii_lowercase(), ctx.now)?;
    }
    match store::user(ctx.conn, userid)? {
        Some(u) if u.signed_off_at.is_none() => {}
        _ => {
            return Err(Refusal::new(format!(
                "There is no user called {userid} (or they signed off); players sign up first."
            ))
            .into())
        }
    }
    let joined = entrants_still_here(ctx, t)?;
    if joined.iter().any(|e| e.userid == userid) {
        return Err(Refusal::new(format!("{userid} is in tournament {} already.", t.name)).into());
    }
    if joined.len() as u32 >= t.size {
        return Err(Refusal::new(format!("Tournament {} is full.", t.name)).into());
    }
    store::add_entrant(ctx.conn, t.id, userid)?;
    let count = joined.len() as u32 + 1;
    if count < t.size {
        return Ok(format!(" It has {count} of its {} players.", t.size));
    }
    start(ctx, game, t)?;
    Ok(" It is full and has started: every player is mailed their boards.".to_string())
}

/// The entrants of open tournament `t`, once those who signed off since
/// they joined have left it (ruling: signing off leaves an open
/// tournament, so it fills only with players who can play).
fn entrants_still_here(ctx: &Ctx<'_>, t: &Tournament) -> Handled<Vec<EntrantRow>> {
    let mut here = Vec::new();
    for e in store::entrants(ctx.conn, t.id)? {
        if store::user(ctx.conn, &e.userid)?.is_none_or(|u| u.signed_off_at.is_some()) {
            store::remove_entrant(ctx.conn, t.id, &e.userid)?;
        } else {
            here.push(e);
        }
    }
    Ok(here)
}

/// `leave`, before the start.
fn leave(ctx: &Ctx<'_>, game: &'static dyn Game, name: &str, userid: &str) -> Handled<String> {
    let t = find(ctx, game, name)?;
    if t.state != TournamentState::Open {
        return Err(Refusal::new(format!(
            "Tournament {name} has started, so there is no leaving it; to stop playing send \
             {} tournament withdraw {name} USERID PASSWORD.",
            game.name()
        ))
        .into());
    }
    if !store::remove_entrant(ctx.conn, t.id, userid)? {
        return Err(Refusal::new(format!("{userid} is not in tournament {name}.")).into());
    }
    Ok(format!("{userid} has left tournament {name}."))
}

/// `start` before the tournament is full (the creator or an admin).
pub(crate) fn start_now(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament) -> Handled<String> {
    if t.state != TournamentState::Open {
        return Err(Refusal::new(format!("Tournament {} has started already.", t.name)).into());
    }
    let count = entrants_still_here(ctx, t)?.len() as u32;
    let min = match t.kind {
        Kind::RoundRobin { .. } => MIN_ROUND_ROBIN,
        Kind::Swiss { rounds } => MIN_SWISS.max(rounds + 1),
    };
    if count < min {
        return Err(Refusal::new(format!(
            "Tournament {} has {count} players and needs at least {min} to start.",
            t.name
        ))
        .into());
    }
    start(ctx, game, t)?;
    Ok(format!(
        "{} tournament {} has started with {count} players: every player is mailed their \
         boards.",
        game.title(),
        t.name
    ))
}

/// Seed the entrants, pair (every round of a round robin, the first of a
/// Swiss), make the boards and mail them.
fn start(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament) -> Handled<()> {
    let mut entrants = store::entrants(ctx.conn, t.id)?;
    let mut rated = Vec::new();
    for e in entrants.drain(..) {
        // An entrant who signed off since joining is not seeded.
        if store::user(ctx.conn, &e.userid)?.is_none_or(|u| u.signed_off_at.is_some()) {
            store::remove_entrant(ctx.conn, t.id, &e.userid)?;
            continue;
        }
        let rating = store::rating(ctx.conn, game.name(), &e.userid)?
            .map_or(game::ratings::START_RATING, |r| r.rating);
        rated.push((rating, e));
    }
    rated.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.joined.cmp(&b.1.joined)));
    for (seed, (rating, e)) in rated.iter().enumerate() {
        store::set_seed(ctx.conn, t.id, &e.userid, seed, *rating)?;
    }
    let n = rated.len();
    let min = match t.kind {
        Kind::RoundRobin { .. } => MIN_ROUND_ROBIN,
        Kind::Swiss { rounds } => MIN_SWISS.max(rounds + 1),
    };
    if (n as u32) < min {
        return Err(Refusal::new(format!(
            "Tournament {} has {n} players who have not signed off, and needs {min} to start.",
            t.name
        ))
        .into());
    }
    match t.kind {
        Kind::RoundRobin { double } => {
            let rounds = pure::round_robin(n, double);
            store::start_tournament(ctx.conn, t.id, rounds.len() as u32, ctx.now)?;
            for (i, round) in rounds.iter().enumerate() {
                record_round(ctx, t.id, i as u32 + 1, round)?;
            }
            store::set_tournament_round(ctx.conn, t.id, rounds.len() as u32)?;
        }
        Kind::Swiss { .. } => {
            store::start_tournament(ctx.conn, t.id, t.rounds, ctx.now)?;
            let t = store::tournament_by_id(ctx.conn, t.id)?.expect("a started tournament");
            let table = Table::read(ctx, &t)?;
            match pure::swiss_round(&table.record(), 1) {
                Ok(round) => {
                    record_round(ctx, t.id, 1, &round)?;
                    store::set_tournament_round(ctx.conn, t.id, 1)?;
                }
                Err(e) => {
                    return Err(
                        Refusal::new(format!("Tournament {} cannot start: {e}", t.name)).into(),
                    )
                }
            }
        }
    }
    let t = store::tournament_by_id(ctx.conn, t.id)?.expect("a started tournament");
    make_boards(ctx, game, &t)?;
    let text = format!(
        "{} tournament {} has started: {} players, {} rounds. Your boards come in mails of \
         their own. Send \"{} tournament show {}\" for the crosstable.",
        game.title(),
        t.name,
        n,
        t.rounds,
        game.name(),
        t.name
    );
    mail_entrants(ctx, game, &t, &text)
}

/// Record a round's pairings and bye.
fn record_round(ctx: &Ctx<'_>, id: i64, number: u32, round: &pure::Round) -> Handled<()> {
    for p in &round.pairings {
        store::add_tournament_game(ctx.conn, id, number, p.white, p.black)?;
    }
    if let Some(bye) = round.bye {
        store::add_bye(ctx.conn, id, number, bye)?;
    }
    Ok(())
}

/// Make the board of every pairing that has none yet, and queue its
/// mails.
fn make_boards(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament) -> Handled<()> {
    let entrants = store::entrants(ctx.conn, t.id)?;
    let timers = Timers {
        nag_days: t.nag_days,
        forfeit_days: t.forfeit_days,
        total_days: t.total_days,
    };
    for g in store::tournament_games(ctx.conn, t.id)? {
        if g.board.is_some() {
            continue;
        }
        let players = [
            entrants[g.white].userid.clone(),
            entrants[g.black].userid.clone(),
        ];
        let link = |number| Ok(store::set_tournament_board(ctx.conn, t.id, &g, number)?);
        let replies = start_tournament_board(ctx, game, &players, &t.options, &timers, link)?;
        send(ctx, replies)?;
    }
    Ok(())
}

/// Queue mails the tournament sends of itself (not answers to the
/// sender): each is a mail of its own, a board mail with its reply token.
fn send(ctx: &Ctx<'_>, replies: Vec<Reply>) -> Handled<()> {
    ctx.server.queue(ctx.conn, replies, None, None, ctx.now)?;
    Ok(())
}

/// A notice to every entrant of `t`.
fn mail_entrants(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    text: &str,
) -> Handled<()> {
    let mut replies = Vec::new();
    for e in store::entrants(ctx.conn, t.id)? {
        if let Some(user) = store::user(ctx.conn, &e.userid)? {
            let subject = format!("{} tournament {}", game.title(), t.name);
            replies.extend(ctx.notice_to_user(&user, subject, text)?);
        }
    }
    send(ctx, replies)
}

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

    fn names(&self) -> Vec<&str> {
        self.entrants.iter().map(|e| e.userid.as_str()).collect()
    }

    /// The seed of `userid`.
    fn seed_of(&self, userid: &str) -> Option<usize> {
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

fn score_text(score: GameResult) -> &'static str {
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

/// `withdraw`: the player leaves a running tournament.
pub(crate) fn withdraw_by_choice(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    userid: &str,
) -> Handled<String> {
    if t.state != TournamentState::Running {
        let how = if t.state == TournamentState::Open {
            format!(
                "it has not started: send {} tournament leave {} USERID PASSWORD",
                game.name(),
                t.name
            )
        } else {
            "it has finished".to_string()
        };
        return Err(Refusal::new(format!(
            "There is no withdrawing from tournament {} now, as {how}.",
            t.name
        ))
        .into());
    }
    let table = Table::read(ctx, t)?;
    let Some(seed) = table.seed_of(userid) else {
        return Err(Refusal::new(format!("{userid} is not in tournament {}.", t.name)).into());
    };
    if table.withdrawn.contains(&seed) {
        return Err(Refusal::new(format!(
            "{userid} has withdrawn from tournament {} already.",
            t.name
        ))
        .into());
    }
    withdraw(ctx, game, t, table, seed)?;
    Ok(format!(
        "{userid} has withdrawn from {} tournament {}; their boards in play are lost by \
         forfeit, unrated.",
        game.title(),
        t.name
    ))
}

/// End the tournament of entrant `seed` (withdrawal, or a forfeit for
/// silence): the pure core's ruling on their games, their boards in play
/// ended unrated and mailed.
fn withdraw(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    t: &Tournament,
    table: Table,
    seed: usize,
) -> Handled<()> {
    let userid = table.entrants[seed].userid.clone();
    let finished = table
        .games
        .iter()
        .filter(|g| g.opponent_of(seed).is_some() && g.result.is_some())
        .count() as u32;
    if !store::set_withdrawn(ctx.conn, t.id, &userid, finished)? {
        return Ok(());
    }
    for (i, score) in pure::withdraw(&t.kind, &table.record(), seed) {
        let row = &table.rows[i];
        store::rule_tournament_game(ctx.conn, t.id, row, score_text(score))?;
        let Some(board) = table.boards[i].as_ref().filter(|b| b.is_active()) else {
            continue;
        };
        let mut loaded = load(ctx, game, board.board)?;
        let Some(seat) = loaded.row.seat_of(&userid) else {
            continue;
        };
        let ending = BoardEnding::LeftTournament {
            absent: userid.clone(),
        };
        let news = finish_unrated(ctx, &mut loaded, Some(seat.opponent()), ending)?;
        send(ctx, loaded.view(game, news).to_players(ctx)?)?;
    }
    Ok(())
}

/// `userid` signed off or was removed: they leave every open tournament,
/// and those they opened are removed, their entrants told (see the
/// module's rulings).
pub(crate) fn leave_all(ctx: &Ctx<'_>, userid: &str) -> Handled<()> {
    let open: Vec<Tournament> = store::tournaments(ctx.conn, None)?
        .into_iter()
        .filter(|t| t.state == TournamentState::Open)
        .collect();
    for t in open {
        if t.creator.as_deref() == Some(userid) {
            let Some(game) = rules::game(&t.game) else {
                continue;
            };
            store::remove_entrant(ctx.conn, t.id, userid)?;
            let text = format!(
                "{} tournament {} is cancelled: {userid}, who opened it, has left the server.",
                game.title(),
                t.name
            );
            mail_entrants(ctx, game, &t, &text)?;
            store::delete_tournament(ctx.conn, t.id)?;
        } else {
            store::remove_entrant(ctx.conn, t.id, userid)?;
        }
    }
    Ok(())
}

/// `admin tournament cancel`: an open tournament is removed, a running one
/// finished with its boards in play deleted (see the module's rulings).
fn cancel(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament) -> Handled<String> {
    match t.state {
        TournamentState::Finished => Err(Refusal::new(format!(
            "Tournament {} has finished already; there is nothing to cancel.",
            t.name
        ))
        .into()),
        TournamentState::Open => {
            let text = format!(
                "{} tournament {} is cancelled by the server admin before it started.",
                game.title(),
                t.name
            );
            mail_entrants(ctx, game, t, &text)?;
            store::delete_tournament(ctx.conn, t.id)?;
            Ok(format!("{} tournament {} removed", game.name(), t.name))
        }
        TournamentState::Running => {
            let table = Table::read(ctx, t)?;
            let mut deleted = Vec::new();
            for board in table.boards.iter().flatten().filter(|b| b.is_active()) {
                store::delete_board(ctx.conn, store::BoardId::new(game.name(), board.board))?;
                deleted.push(board.board.to_string());
            }
            let note = if deleted.is_empty() {
                "The server admin cancelled it.".to_string()
            } else {
                format!(
                    "The server admin cancelled it; its boards in play ({}) are deleted, with no result.",
                    deleted.join(", ")
                )
            };
            finish(ctx, game, t, &note)?;
            Ok(format!(
                "{} tournament {} finished; {} boards in play deleted",
                game.name(),
                t.name,
                deleted.len()
            ))
        }
    }
}

/// After a command (or the timers' pass) changed boards: every running
/// tournament with a player forfeited for silence has them withdrawn, and
/// every one whose boards have all ended gets its next Swiss round, or is
/// finished and its final crosstable mailed. In the transaction that
/// ended the boards.
pub(crate) fn advance(ctx: &Ctx<'_>) -> Handled<()> {
    for id in store::tournaments_to_advance(ctx.conn)? {
        let Some(t) = store::tournament_by_id(ctx.conn, id)? else {
            continue;
        };
        let Some(game) = rules::game(&t.game) else {
            continue;
        };
        // A round that cannot be made (a board refused) ends the
        // tournament, saying why, rather than fail every later mail.
        match store::savepoint(ctx.conn, "tournament", || advance_one(ctx, game, t.clone())) {
            Ok(()) => {}
            Err(Failure::Refused(r)) => {
                finish(ctx, game, &t, &format!("It ended early: {}", r.sentence))?
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn advance_one(ctx: &Ctx<'_>, game: &'static dyn Game, t: Tournament) -> Handled<()> {
    // Forfeits for silence (and signing off) end the player's tournament.
    let table = Table::read(ctx, &t)?;
    let mut gone = Vec::new();
    for e in &table.entrants {
        let signed_off =
            store::user(ctx.conn, &e.userid)?.is_none_or(|u| u.signed_off_at.is_some());
        if signed_off && e.withdrawn_after.is_none() {
            gone.extend(e.seed);
        }
    }
    let silent: Vec<usize> = table
        .boards
        .iter()
        .flatten()
        .filter_map(|b| match &b.status {
            BoardStatus::Finished {
                ending: BoardEnding::Forfeit { absent, .. },
                ..
            } => table.seed_of(absent),
            _ => None,
        })
        .filter(|s| !table.withdrawn.contains(s))
        .chain(gone)
        .collect();
    for seed in silent {
        let table = Table::read(ctx, &t)?;
        if !table.withdrawn.contains(&seed) {
            withdraw(ctx, game, &t, table, seed)?;
        }
    }
    let table = Table::read(ctx, &t)?;
    if table.games.iter().any(|g| g.result.is_none()) {
        return Ok(());
    }
    if matches!(t.kind, Kind::Swiss { .. }) && t.round < t.rounds {
        let next = t.round + 1;
        match pure::swiss_round(&table.record(), next) {
            Ok(round) => {
                record_round(ctx, t.id, next, &round)?;
                store::set_tournament_round(ctx.conn, t.id, next)?;
                make_boards(ctx, game, &t)?;
                let text = format!(
                    "Round {next} of {} tournament {} is paired; your board comes in a mail of \
                     its own (or you have the bye).",
                    game.title(),
                    t.name
                );
                return mail_entrants(ctx, game, &t, &text);
            }
            Err(e) => {
                return finish(
                    ctx,
                    game,
                    &t,
                    &format!("It ended after round {}: {e}", t.round),
                )
            }
        }
    }
    finish(ctx, game, &t, "")
}

/// Finish `t` and mail every entrant the final crosstable.
fn finish(ctx: &Ctx<'_>, game: &'static dyn Game, t: &Tournament, note: &str) -> Handled<()> {
    store::finish_tournament(ctx.conn, t.id, note, ctx.now)?;
    let t = store::tournament_by_id(ctx.conn, t.id)?.expect("a finished tournament");
    let table = Table::read(ctx, &t)?;
    let mut text = format!(
        "{} tournament {} has finished. {note}\n\nThe final crosstable:\n\n",
        game.title(),
        t.name
    );
    text.push_str(&pure::crosstable(&t.kind, &table.record(), &table.names()).join("\n"));
    mail_entrants(ctx, game, &t, &text)
}

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
            super::text::capitalise(&state_words(t, table.entrants.len()))
        ),
    ];
    if !t.note.is_empty() {
        lines.push(t.note.clone());
    }
    if t.state == TournamentState::Open {
        let names: Vec<&str> = table.names();
        lines.push(String::new());
        lines.push(if names.is_empty() {
            "No one has joined yet.".to_string()
        } else {
            format!("Joined: {}.", names.join(", "))
        });
        return Ok(lines.join("\n"));
    }
    lines.push(String::new());
    lines.extend(pure::crosstable(&t.kind, &table.record(), &table.names()));
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
fn state_words(t: &Tournament, joined: usize) -> String {
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
        let record = super::record::game_record(ctx, game, &loaded.row, &plies)?;
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
    }])
}

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
impl super::Server<'_> {
    /// `admin tournament create NAME GAME ...`: open it (no entrant).
    pub(crate) fn admin_tournament_create(
        &self,
        conn: &mut rusqlite::Connection,
        game: &str,
        name: &str,
        plan: &TournamentPlan,
    ) -> Result<String, super::AdminError> {
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
        .map_err(super::AdminError::Refused)
    }

    /// `admin tournament list [GAME]`: one line a tournament.
    pub(crate) fn admin_tournament_list(
        &self,
        conn: &mut rusqlite::Connection,
        game: Option<&str>,
    ) -> Result<Vec<String>, super::AdminError> {
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
        .map_err(super::AdminError::Refused)
    }

    /// `admin tournament show|start|join|withdraw NAME [USERID] [--game
    /// GAME]`: what `tournament show` mails, or what the change did.
    pub fn admin_tournament(
        &self,
        conn: &mut rusqlite::Connection,
        game: Option<&str>,
        name: &str,
        act: AdminTournamentAct<'_>,
    ) -> Result<String, super::AdminError> {
        self.admin(conn, |ctx| {
            let (game, t) = named(ctx, game, name)?;
            match act {
                AdminTournamentAct::Show => show_text(ctx, game, &t),
                AdminTournamentAct::Start => start_now(ctx, game, &t),
                AdminTournamentAct::Join(userid) => {
                    join(ctx, game, &t, &userid.to_ascii_lowercase())
                }
                AdminTournamentAct::Withdraw(userid) => {
                    withdraw_by_choice(ctx, game, &t, &userid.to_ascii_lowercase())
                }
                AdminTournamentAct::Cancel => cancel(ctx, game, &t),
            }
        })?
        .map_err(super::AdminError::Refused)
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
