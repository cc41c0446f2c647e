//! Boards: challenge, move (with the special moves), show, games.

use super::compose::BoardView;
use super::{Ctx, Failure, Outcome, Refusal, Reply, ServerError};
use crate::command::{BoardFilter, BoardRef, BoardSize, Credentials, MoveAction, Password, Timers};
use crate::ratings::{self, Score};
use crate::rules::{self, Game, Outcome as RulesOutcome, Position};
use crate::store::{self, BoardStatus, Ply, Proposal};

/// A board with its plies and the position they lead to.
pub(crate) struct Loaded {
    pub row: store::Board,
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
        }
    }
}

/// The position after the first `upto` plies (all when `None`).
pub(crate) fn replay(
    game: &'static dyn Game,
    row: &store::Board,
    plies: &[Ply],
) -> Result<Box<dyn Position>, ServerError> {
    let corrupt = |reason: String| ServerError::Replay {
        game: row.game.clone(),
        board: row.board,
        reason,
    };
    let mut position = game
        .position(&row.start_position, &row.options)
        .map_err(|e| corrupt(e.to_string()))?;
    for ply in plies {
        position
            .play(&ply.notation)
            .map_err(|e| corrupt(format!("ply {}: {e}", ply.ply)))?;
    }
    Ok(position)
}

/// The seat to act on an active board, read from its stored position (no
/// replay needed).
pub(crate) fn seat_to_act(game: &'static dyn Game, row: &store::Board) -> Outcome<usize> {
    let position = game
        .position(&row.position, &row.options)
        .map_err(|e| ServerError::Replay {
            game: row.game.clone(),
            board: row.board,
            reason: e.to_string(),
        })?;
    Ok(position.to_act().index())
}

/// Whether a board passes a listing filter; for `next`, whether one of
/// `users` (anyone when empty) is to act on it.
pub(crate) fn passes(
    game: &'static dyn Game,
    b: &store::Board,
    filter: BoardFilter,
    users: &[String],
) -> Outcome<bool> {
    Ok(match filter {
        BoardFilter::All => true,
        BoardFilter::Active => b.is_active(),
        BoardFilter::Inactive => !b.is_active(),
        BoardFilter::Next => {
            b.is_active() && {
                let to_act = &b.players[seat_to_act(game, b)?];
                users.is_empty() || users.iter().any(|u| *to_act == u.to_lowercase())
            }
        }
    })
}

/// Refuse a board number that does not exist.
pub(crate) fn require_board(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> Outcome<()> {
    if store::board_exists(ctx.conn, game.name(), number)? {
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

pub(crate) fn load(ctx: &Ctx<'_>, game: &'static dyn Game, number: u32) -> Outcome<Loaded> {
    let Some(row) = store::board(ctx.conn, game.name(), number)? else {
        return Err(no_such_board(game, number).into());
    };
    let plies = store::plies(ctx.conn, game.name(), number)?;
    let position = replay(game, &row, &plies)?;
    Ok(Loaded {
        row,
        plies,
        position,
    })
}

/// The board drawn for the sender of an erroneous command, if it exists.
pub(crate) fn drawing_for_sender(
    ctx: &Ctx<'_>,
    game: &str,
    number: u32,
) -> Outcome<Option<String>> {
    let Some(game) = rules::game(game) else {
        return Ok(None);
    };
    if !store::board_exists(ctx.conn, game.name(), number)? {
        return Ok(None);
    }
    let loaded = load(ctx, game, number)?;
    let size = ctx.sender_size(game.name())?;
    Ok(Some(crate::render::board(&loaded.position.diagram(), size)))
}

/// Start a board: check the players and options, store it, and return its
/// number and the board mails to the players.
pub(crate) fn start_board(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    players: &[String],
    options: &[String],
    timers: &Timers,
) -> Outcome<(u32, Vec<Reply>)> {
    let players: Vec<String> = players.iter().map(|p| p.to_lowercase()).collect();
    if players.len() != 2 {
        return Err(Refusal::new(format!(
            "{} is played by two players; name them both, the first plays White: {} challenge alice bob.",
            game.title(),
            game.name()
        ))
        .into());
    }
    if players[0] == players[1] {
        return Err(Refusal::new(format!(
            "{} cannot play against themselves; name two different players.",
            players[0]
        ))
        .into());
    }
    for userid in &players {
        match store::user(ctx.conn, userid)? {
            None => {
                return Err(Refusal::new(format!(
                    "There is no user called {userid}; every player must sign up first (signup <userid> <password>)."
                ))
                .into())
            }
            Some(u) if u.signed_off_at.is_some() => {
                return Err(Refusal::new(format!(
                    "{userid} has signed off and cannot be challenged."
                ))
                .into())
            }
            Some(_) => {}
        }
    }
    super::settings::check_challenge(ctx, game, &players)?;
    let options: Vec<String> = options.iter().map(|o| o.to_lowercase()).collect();
    rules::check_options(game, &options).map_err(|e| Refusal::new(capitalise(&e.to_string())))?;
    let position = game
        .start(&options)
        .map_err(|e| Refusal::new(capitalise(&e.to_string())))?;
    let defaults = &ctx.server.config.timers;
    let number = store::insert_board(
        ctx.conn,
        &store::NewBoard {
            game: game.name(),
            options: &options,
            start_position: &position.to_text(),
            players: &players,
            nag_days: Some(timers.nag_days.unwrap_or(defaults.nag_days)),
            forfeit_days: Some(timers.forfeit_days.unwrap_or(defaults.forfeit_days)),
            total_days: timers.total_days,
            now: ctx.now,
        },
    )?;
    let loaded = load(ctx, game, number)?;
    let mut view = loaded.view(game, vec![]);
    view.comment = commented(ctx, None, None);
    let replies = view.to_players(ctx)?;
    Ok((number, replies))
}

/// `<game> challenge <user1> <user2> [-opts] [--timers]`
pub(crate) fn challenge(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    players: &[String],
    options: &[String],
    timers: &Timers,
) -> Outcome<Vec<Reply>> {
    let (_, mut replies) = start_board(ctx, game, players, options, timers)?;
    copy_to_sender(ctx, &mut replies);
    Ok(replies)
}

/// A sender who is not among the recipients gets a copy of the first mail.
pub(crate) fn copy_to_sender(ctx: &Ctx<'_>, replies: &mut Vec<Reply>) {
    if let Some(sender) = ctx.sender {
        if !replies.iter().any(|r| r.to == sender) {
            if let Some(first) = replies.first() {
                let mut copy = first.clone();
                copy.to = sender.to_string();
                replies.push(copy);
            }
        }
    }
}

/// The comment of this command with the name of who made it.
/// The comment of this command with the name of who made it; a word equal
/// to the commander's password (any case) is masked, so a password typed
/// into the body is not relayed either.
pub(crate) fn commented(
    ctx: &Ctx<'_>,
    userid: Option<&str>,
    password: Option<&Password>,
) -> Option<(String, String)> {
    let comment = ctx.comment.trim();
    if comment.is_empty() {
        return None;
    }
    let comment = match password.map(Password::expose).filter(|p| !p.is_empty()) {
        Some(secret) => mask_word(comment, secret),
        None => comment.to_string(),
    };
    let who = userid.or(ctx.sender).unwrap_or("the challenger");
    Some((who.to_string(), comment))
}

/// `text` with every whole word equal to `secret` (ignoring case) replaced
/// by `*****`; words are split at white space and trailing punctuation.
fn mask_word(text: &str, secret: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let core = word.trim_end_matches(|c: char| c.is_ascii_punctuation());
        if !core.is_empty() && core.eq_ignore_ascii_case(secret) {
            out.push_str("*****");
            out.push_str(&word[core.len()..]);
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `<game> move <board> <userid> <pw> <action>[#N]` and `<game> resign`.
pub(crate) fn act(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    who: &Credentials,
    action: &MoveAction,
    guard: Option<u32>,
) -> Outcome<Vec<Reply>> {
    let on_board = |r: Refusal| Failure::Refused(r.on(game.name(), Some(number)));
    let mut loaded = load(ctx, game, number).map_err(|f| match f {
        Failure::Refused(r) => on_board(r),
        other => other,
    })?;
    let user = ctx.authenticate(who).map_err(|f| match f {
        Failure::Refused(r) => on_board(r),
        other => other,
    })?;
    let Some(seat) = loaded.row.seat_of(&user.userid) else {
        return Err(on_board(Refusal::new(format!(
            "{} does not play on {} board {number}; check the board number.",
            user.userid,
            game.name()
        ))));
    };
    if let BoardStatus::Finished { .. } = loaded.row.status {
        return Err(on_board(Refusal::new(format!(
            "{} board {number} is over; nothing more can be played on it.",
            game.title()
        ))));
    }
    let next_ply = loaded.plies.len() as u32 + 1;
    if let Some(n) = guard {
        if n != next_ply {
            return Err(on_board(Refusal::new(format!(
                "Your command is guarded as ply {n}, but the next ply on {} board {number} is {next_ply}; look at the board and send it again with #{next_ply} if it still fits.",
                game.name()
            ))));
        }
    }
    let userid = user.userid.clone();
    let mut news = Vec::new();
    let mut notices = Vec::new();
    match action {
        MoveAction::Play(text) => {
            let to_act = loaded.position.to_act().index();
            if to_act != seat {
                return Err(on_board(Refusal::new(format!(
                    "It is {}'s turn on {} board {number}, not yours; wait for their move.",
                    loaded.row.players[to_act],
                    game.name()
                ))));
            }
            let comment = commented(ctx, None, Some(&who.password))
                .map(|(_, c)| c)
                .unwrap_or_default();
            news = apply_move(ctx, game, &mut loaded, seat, text, comment)?
                .map_err(|e| on_board(Refusal::new(capitalise(&e.to_string()))))?;
            notices = super::pending::play_queued(ctx, game, &mut loaded, &mut news)?;
        }
        MoveAction::Resign => {
            if loaded.plies.len() < 2 {
                // Resigned before both players moved: unrated and deleted.
                store::delete_board(ctx.conn, game.name(), number)?;
                loaded.row.status = BoardStatus::Finished {
                    winner_seat: Some(1 - seat),
                    ending: "resignation".into(),
                };
                news.push(format!(
                    "The game was resigned before both players had moved, so it is not rated and {} board {number} is deleted.",
                    game.name()
                ));
            } else {
                news = finish(ctx, &mut loaded, Some(1 - seat), "resignation")?;
            }
        }
        MoveAction::Propose | MoveAction::Undo => {
            let kind = if matches!(action, MoveAction::Propose) {
                Proposal::Draw
            } else {
                Proposal::Undo
            };
            if let Some((pending, by)) = loaded.row.proposal {
                let what = describe(pending);
                return Err(on_board(Refusal::new(format!(
                    "{} already proposed {what} on this board; answer it with accept or reject first.",
                    loaded.row.players[by]
                ))));
            }
            if kind == Proposal::Undo && loaded.plies.is_empty() {
                return Err(on_board(Refusal::new(
                    "No ply has been played yet, so there is nothing to take back.",
                )));
            }
            store::set_proposal(ctx.conn, game.name(), number, Some((kind, seat)))?;
            loaded.row.proposal = Some((kind, seat));
            store::touch(ctx.conn, game.name(), number, ctx.now)?;
        }
        MoveAction::Accept | MoveAction::Reject => {
            let Some((kind, by)) = loaded.row.proposal else {
                return Err(on_board(Refusal::new(
                    "There is no draw or undo proposal on this board to accept or reject.",
                )));
            };
            if by == seat {
                return Err(on_board(Refusal::new(format!(
                    "You made the proposal yourself; the other player must accept or reject {}.",
                    describe(kind)
                ))));
            }
            store::set_proposal(ctx.conn, game.name(), number, None)?;
            loaded.row.proposal = None;
            let accepted = matches!(action, MoveAction::Accept);
            let verb = if accepted { "accepts" } else { "rejects" };
            news.push(format!(
                "{userid} {verb} {}'s proposal of {}.",
                loaded.row.players[by],
                describe(kind)
            ));
            match (accepted, kind) {
                (false, _) => store::touch(ctx.conn, game.name(), number, ctx.now)?,
                (true, Proposal::Draw) => {
                    let mut changes = finish(ctx, &mut loaded, None, "agreement")?;
                    news.append(&mut changes);
                }
                (true, Proposal::Undo) => {
                    store::clear_pending_moves(ctx.conn, game.name(), number)?;
                    store::remove_last_ply(ctx.conn, game.name(), number)?;
                    let taken = loaded.plies.pop();
                    loaded.position = replay(game, &loaded.row, &loaded.plies)?;
                    store::update_position(
                        ctx.conn,
                        game.name(),
                        number,
                        &loaded.position.to_text(),
                        ctx.now,
                    )?;
                    if let Some(taken) = taken {
                        news.push(format!(
                            "Ply {} ({}) is taken back.",
                            taken.ply, taken.notation
                        ));
                    }
                }
            }
        }
        MoveAction::Pass => {
            return Err(on_board(Refusal::new(format!(
                "{} has no passing move; play a move, or resign.",
                game.title()
            ))))
        }
    }
    let mut view = loaded.view(game, news);
    view.comment = commented(ctx, Some(&userid), Some(&who.password));
    let mut replies = view.to_players(ctx)?;
    super::pending::tell_players(ctx, &view, &mut replies, &notices)?;
    copy_to_sender(ctx, &mut replies);
    Ok(replies)
}

/// Judge and apply a board move of the player in `seat` (whose turn it is)
/// and store it: the ply, the position, the end of a pending proposal and,
/// when the move ends the game, the result. Returns the rating sentences of
/// a finished game, or the rules' refusal (nothing changed then).
pub(crate) fn apply_move(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    loaded: &mut Loaded,
    seat: usize,
    text: &str,
    comment: String,
) -> Outcome<Result<Vec<String>, rules::MoveError>> {
    let number = loaded.row.board;
    let played = match loaded.position.play(text) {
        Ok(played) => played,
        Err(e) => return Ok(Err(e)),
    };
    let ply = Ply {
        ply: loaded.plies.len() as u32 + 1,
        seat,
        notation: played.notation,
        events: played.events,
        comment,
        played_at: ctx.now,
    };
    store::append_ply(ctx.conn, game.name(), number, &ply)?;
    loaded.plies.push(ply);
    store::update_position(
        ctx.conn,
        game.name(),
        number,
        &loaded.position.to_text(),
        ctx.now,
    )?;
    if loaded.row.proposal.is_some() {
        store::set_proposal(ctx.conn, game.name(), number, None)?;
        loaded.row.proposal = None;
    }
    Ok(Ok(match loaded.position.outcome() {
        RulesOutcome::Ongoing => vec![],
        RulesOutcome::Won { winner, ending } => {
            finish(ctx, loaded, Some(winner.index()), &ending.to_string())?
        }
        RulesOutcome::Drawn { ending } => finish(ctx, loaded, None, &ending.to_string())?,
    }))
}

fn describe(kind: Proposal) -> &'static str {
    match kind {
        Proposal::Draw => "a draw",
        Proposal::Undo => "taking back the last ply",
    }
}

/// End a board and rate it; returns the rating sentences.
fn finish(
    ctx: &Ctx<'_>,
    loaded: &mut Loaded,
    winner: Option<usize>,
    ending: &str,
) -> Outcome<Vec<String>> {
    let game = loaded.row.game.clone();
    store::finish_board(ctx.conn, &game, loaded.row.board, winner, ending, ctx.now)?;
    store::clear_pending_moves(ctx.conn, &game, loaded.row.board)?;
    loaded.row.status = BoardStatus::Finished {
        winner_seat: winner,
        ending: ending.to_string(),
    };
    let players = loaded.row.players.clone();
    let [a, b] = players.as_slice() else {
        return Ok(vec![]);
    };
    let current = |userid: &str| -> Outcome<store::Rating> {
        Ok(
            store::rating(ctx.conn, &game, userid)?.unwrap_or(store::Rating {
                rating: ratings::START_RATING,
                games: 0,
            }),
        )
    };
    let (ra, rb) = (current(a)?, current(b)?);
    let score = match winner {
        Some(0) => Score::Win,
        Some(_) => Score::Loss,
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
    Ok(vec![
        ratings::change_sentence(a, ra.rating, na),
        ratings::change_sentence(b, rb.rating, nb),
    ])
}

/// The body `show` sends for one board (optionally at ply `at`).
pub(crate) fn show_body(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    at: Option<u32>,
    size: BoardSize,
) -> Outcome<String> {
    Ok(show_mail(ctx, game, number, at, size)?.1)
}

/// The subject (naming who is to act now, as turn mails do) and the body
/// `show` sends for one board, optionally at ply `at`.
pub(crate) fn show_mail(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    number: u32,
    at: Option<u32>,
    size: BoardSize,
) -> Outcome<(String, String)> {
    let mut loaded = load(ctx, game, number)?;
    let subject = loaded.view(game, vec![]).subject();
    if let Some(n) = at {
        if n as usize > loaded.plies.len() {
            return Err(Refusal::new(format!(
                "{} board {number} has {} plies so far; ask for #0 to #{} instead of #{n}.",
                game.title(),
                loaded.plies.len(),
                loaded.plies.len()
            ))
            .on(game.name(), Some(number))
            .into());
        }
        loaded.plies.truncate(n as usize);
        loaded.position = replay(game, &loaded.row, &loaded.plies)?;
    }
    let mut view = loaded.view(game, vec![]);
    view.recent_only = false;
    if let Some(n) = at {
        view.news = vec![format!("The position after ply {n}.")];
    }
    Ok((subject, view.body(ctx, size)?))
}

/// `<game> show <board>[#N]...`: board mails to the sender.
pub(crate) fn show(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    boards: &[BoardRef],
) -> Outcome<Vec<Reply>> {
    let size = ctx.sender_size(game.name())?;
    let mut replies = Vec::new();
    for r in boards {
        let (subject, body) = show_mail(ctx, game, r.board, r.ply, size)?;
        replies.push(Reply {
            to: ctx.sender.unwrap_or_default().to_string(),
            subject,
            body,
        });
    }
    Ok(replies)
}

fn filtered(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    users: &[String],
    filter: BoardFilter,
) -> Outcome<Vec<store::Board>> {
    let mut boards = if users.is_empty() {
        store::boards_of_game(ctx.conn, game.name())?
    } else {
        let mut all = Vec::new();
        for u in users {
            for b in store::boards_of_user(ctx.conn, Some(game.name()), &u.to_lowercase())? {
                if !all.iter().any(|x: &store::Board| x.board == b.board) {
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
) -> Outcome<Vec<Reply>> {
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

/// `<game> games [<userid>...] [filter]`: a table to the sender.
pub(crate) fn games(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    users: &[String],
    filter: BoardFilter,
) -> Outcome<Vec<Reply>> {
    let boards = filtered(ctx, game, users, filter)?;
    let mut lines = Vec::new();
    for b in &boards {
        let state = match &b.status {
            BoardStatus::Active => format!(
                "{} to act, ply {}",
                b.players[seat_to_act(game, b)?],
                store::plies(ctx.conn, game.name(), b.board)?.len() + 1
            ),
            BoardStatus::Finished {
                winner_seat: Some(s),
                ending,
            } => format!("won by {} ({ending})", b.players[*s]),
            BoardStatus::Finished {
                winner_seat: None,
                ending,
            } => format!("tie ({ending})"),
        };
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
        subject: format!("{} games", game.title()),
        body,
    }])
}

/// Reminders and forfeits due now on every active board.
pub(crate) fn run_timers(ctx: &Ctx<'_>) -> Outcome<Vec<Reply>> {
    use crate::timers::{decide, BoardClock, TimerAction};
    let defaults = &ctx.server.config.timers;
    let mut replies = Vec::new();
    for row in store::active_boards(ctx.conn)? {
        let Some(game) = rules::game(&row.game) else {
            continue;
        };
        let Some(userid) = row.players.get(seat_to_act(game, &row)?) else {
            continue;
        };
        // A player on vacation is neither reminded nor forfeited, and the
        // time away does not count against them.
        let away: Vec<_> = store::vacations(ctx.conn, userid, row.last_action_at)?
            .into_iter()
            .map(|v| (v.starts_at, v.ends_at))
            .collect();
        if away.iter().any(|&(s, e)| s <= ctx.now && ctx.now < e) {
            continue;
        }
        let clock = BoardClock {
            last_action_at: row.last_action_at
                + crate::timers::time_on_vacation(&away, row.last_action_at, ctx.now),
            last_nag_at: row.last_nag_at,
            nag_days: row.nag_days.unwrap_or(defaults.nag_days),
            forfeit_days: row.forfeit_days.unwrap_or(defaults.forfeit_days),
        };
        match decide(&clock, ctx.now) {
            TimerAction::Nothing => {}
            TimerAction::Remind => {
                let loaded = load(ctx, game, row.board)?;
                let seat = loaded.position.to_act().index();
                let userid = loaded.row.players[seat].clone();
                let idle = (ctx.now - clock.last_action_at).num_days();
                let news = vec![format!(
                    "Reminder: {userid}, {} board {} has waited {idle} days for you; you forfeit after {} days without acting.",
                    game.title(),
                    row.board,
                    clock.forfeit_days
                )];
                let view = loaded.view(game, news);
                if let Some(user) = store::user(ctx.conn, &userid)? {
                    let size = store::board_size(ctx.conn, &userid, game.name())?;
                    replies.push(Reply {
                        to: user.address().to_string(),
                        subject: view.subject(),
                        body: view.body(ctx, size)?,
                    });
                }
                store::set_last_nag(ctx.conn, game.name(), row.board, ctx.now)?;
            }
            TimerAction::Forfeit => {
                let mut loaded = load(ctx, game, row.board)?;
                let news = match loaded.row.proposal {
                    // An unanswered draw proposal counts as accepted.
                    Some((Proposal::Draw, _)) => {
                        finish(ctx, &mut loaded, None, "agreement by silence")?
                    }
                    _ => {
                        let loser = loaded.position.to_act().index();
                        finish(ctx, &mut loaded, Some(1 - loser), "forfeit")?
                    }
                };
                let view = loaded.view(game, news);
                replies.extend(view.to_players(ctx)?);
            }
        }
    }
    Ok(replies)
}

#[cfg(test)]
mod tests {
    use super::mask_word;

    #[test]
    fn passwords_in_comments_are_masked_as_whole_words() {
        assert_eq!(mask_word("my pw is Hunter2.", "hunter2"), "my pw is *****.");
        assert_eq!(mask_word("hunter22 stays", "hunter2"), "hunter22 stays");
        assert_eq!(mask_word("a\n\nhunter2", "hunter2"), "a\n\n*****");
    }
}
