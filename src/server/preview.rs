//! `preview`: a hypothetical position, nothing stored.
//!
//! Rulings (where docs/commands.md is silent):
//!
//! - `preview` needs no password and may look at any board, finished ones
//!   included (from an earlier ply with `#N`). Its answer goes to the
//!   sender only, with the subject `<Game> Board <n> preview`, the played
//!   plies up to the starting point (the recent ones), the previewed plies,
//!   the board after them and who would act then (or how the game would
//!   end). A move that cannot be played is refused naming its place in the
//!   list, the ply it would be and the rules' reason.
//! - `preview new [-options] [<move>...]` plays the moves from the game's
//!   start position (default options unless given); no board is needed.
//!   Its subject is `<Game> preview`, the sides are named White and Black,
//!   and without moves it shows the start position.
//! - A board replayed to an earlier ply (`preview 604#4150`) is kept for
//!   the rest of the mail ([`Previews`]), so that a `multiple` of previews
//!   from one ply replays the game once, not once per line. Any command
//!   that may change a board forgets them.

use super::compose::{numbered_move_list, RECENT_PLIES};
use super::loaded::{all_plies, load, replay, Loaded};
use super::sentences::capitalise;
use super::{Ctx, Failure, Handled, Refusal, Reply};
use crate::store;
use game::command::PreviewFrom;
use game::render::{self, Drawing, MoveRecord};
use rules::{self, Color, Game, Played, Position};

/// How many boards replayed to an earlier ply one mail keeps.
const KEPT_PREVIEWS: usize = 4;

/// Boards replayed to an earlier ply for `preview`, kept while one mail's
/// commands only read (the server forgets them at each new mail and
/// before any command that may change a board).
#[derive(Default)]
pub(crate) struct Previews {
    kept: std::cell::RefCell<Vec<Replayed>>,
}

/// A board as it stood after ply `ply`: its recent plies up to it and
/// the position.
struct Replayed {
    game: String,
    board: u32,
    ply: u32,
    plies: Vec<store::Ply>,
    position: Box<dyn Position>,
}

impl std::fmt::Debug for Previews {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Previews")
    }
}

impl Previews {
    /// Forget every replayed board.
    pub(crate) fn forget(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::cell::RefMut<'_, Vec<Replayed>> {
        self.kept.borrow_mut()
    }

    fn find(
        &self,
        game: &str,
        board: u32,
        ply: u32,
    ) -> Option<(Vec<store::Ply>, Box<dyn Position>)> {
        self.lock()
            .iter()
            .find(|r| r.game == game && r.board == board && r.ply == ply)
            .map(|r| (r.plies.clone(), r.position.clone_box()))
    }

    fn keep(
        &self,
        game: &str,
        board: u32,
        ply: u32,
        plies: &[store::Ply],
        position: &dyn Position,
    ) {
        let mut kept = self.lock();
        if kept.len() == KEPT_PREVIEWS {
            kept.remove(0);
        }
        kept.push(Replayed {
            game: game.to_string(),
            board,
            ply,
            plies: plies.to_vec(),
            position: position.clone_box(),
        });
    }
}

/// `<game> preview <board>[#N] <move>...`: the position after these moves,
/// to the sender; nothing is stored and no password is needed.
pub(crate) fn preview(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    from: &PreviewFrom,
    moves: &[String],
) -> Handled<Vec<Reply>> {
    let at = match from {
        PreviewFrom::Board(at) => *at,
        PreviewFrom::Start { options } => return preview_new(ctx, game, options, moves),
    };
    let number = at.board;
    let mut loaded = load(ctx, game, number).map_err(|f| f.on_board(game.name(), Some(number)))?;
    if let Some(n) = at.ply {
        if n > loaded.played {
            return Err(Refusal::new(format!(
                "{} board {number} has {} plies so far; preview from #0 to #{} instead of #{n}.",
                game.title(),
                loaded.played,
                loaded.played
            ))
            .on(game.name(), Some(number))
            .into());
        }
        let previews = &ctx.previews;
        match previews.find(game.name(), number, n) {
            Some((plies, position)) => {
                loaded.plies = plies;
                loaded.position = position;
            }
            None => {
                let mut plies = all_plies(ctx, &loaded)?;
                plies.truncate(n as usize);
                loaded.position = replay(game, &loaded.row, &plies)?;
                // Only the recent plies are shown, as a load holds them.
                plies.drain(..plies.len().saturating_sub(RECENT_PLIES + 1));
                previews.keep(game.name(), number, n, &plies, loaded.position.as_ref());
                loaded.plies = plies;
            }
        }
        loaded.played = n;
    }
    let mut position = loaded.position.clone_box();
    let previewed = match play_preview(position.as_mut(), loaded.played as usize, moves) {
        Ok(previewed) => previewed,
        Err(sentence) => {
            let refusal = Refusal::new(sentence).on(game.name(), Some(number));
            let moved = position.to_text() != loaded.position.to_text();
            return Err(if moved || at.ply.is_some() {
                refused_there(ctx, game, refusal, position.as_ref())?
            } else {
                refusal
            }
            .into());
        }
    };
    let from = match at.ply {
        Some(n) => format!("the position after ply {n}"),
        None => "the position as it stands".to_string(),
    };
    let intro = format!(
        "Preview of {} board {number} from {from}; nothing is played or stored.",
        game.title()
    );
    let drawing = ctx.sender_drawing(game.name())?;
    let body = hypothetical_body(
        ctx,
        Some(&loaded),
        &previewed,
        position.as_ref(),
        drawing,
        intro,
    )?;
    let players = &loaded.row.players;
    let caption = vec![
        format!(
            "{} {number} preview: {} v {}",
            game.title(),
            players[0],
            players[1]
        ),
        format!("{number} preview: {} v {}", players[0], players[1]),
        format!("{} {number} preview", game.title()),
        format!("{number} preview"),
    ];
    let picture = previewed_picture(
        ctx,
        loaded.position.as_ref(),
        &previewed,
        position.as_ref(),
        caption,
        drawing,
    )?;
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: preview_subject(game, number),
        body,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture,
    }])
}

/// `<game> preview new [-options] [<move>...]`: the moves played from the
/// game's start position under those options; no board is needed, and
/// the sides are named White and Black. Subject `<Game> preview`.
fn preview_new(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    options: &[String],
    moves: &[String],
) -> Handled<Vec<Reply>> {
    let refuse = |sentence: String| Failure::Refused(Refusal::new(sentence).on(game.name(), None));
    let mut position = game
        .start(options)
        .map_err(|e| refuse(capitalise(&e.to_string())))?;
    let previewed = match play_preview(position.as_mut(), 0, moves) {
        Ok(previewed) => previewed,
        Err(sentence) => {
            let refusal = Refusal::new(sentence).on(game.name(), None);
            return Err(refused_there(ctx, game, refusal, position.as_ref())?.into());
        }
    };
    let with = if options.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = options.iter().map(|o| format!("-{o}")).collect();
        format!(" with {}", list.join(" "))
    };
    let intro = format!(
        "Preview of a new {} board{with} from the start position; nothing is played or stored.",
        game.title()
    );
    let drawing = ctx.sender_drawing(game.name())?;
    let body = hypothetical_body(ctx, None, &previewed, position.as_ref(), drawing, intro)?;
    let start = game
        .start(options)
        .map_err(|e| refuse(capitalise(&e.to_string())))?;
    let caption = vec![
        format!("{} preview: White v Black", game.title()),
        "Preview".to_string(),
    ];
    let picture = previewed_picture(
        ctx,
        start.as_ref(),
        &previewed,
        position.as_ref(),
        caption,
        drawing,
    )?;
    Ok(vec![Reply {
        to: ctx.sender.unwrap_or_default().to_string(),
        subject: format!("{} preview", game.title()),
        body,
        reply_key: None,
        codes: Vec::new(),
        board: None,
        picture,
    }])
}

/// A preview refused on a move past its first (or from a ply of the
/// past, or of a new board): the board drawn under the sentence is the
/// one the moves reached, where the move fails, as the sender draws it
/// (as a refused conditional line is shown, see `conditional`).
fn refused_there(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    refusal: Refusal,
    there: &dyn Position,
) -> Handled<Refusal> {
    let drawing = ctx.sender_drawing(game.name())?;
    let mut refusal = refusal;
    refusal
        .sentence
        .push_str(" The board below is the position where it fails.");
    Ok(refusal.drawn(render::board(&there.diagram(), drawing)))
}

/// The picture of a preview for a sender who chose it (see
/// [`Ctx::sender_picture`]), the last previewed ply marked.
fn previewed_picture(
    ctx: &Ctx<'_>,
    start: &dyn Position,
    previewed: &[(u32, Color, Played)],
    position: &dyn Position,
    caption: Vec<String>,
    drawing: Drawing,
) -> Handled<Option<crate::mail::picture::Png>> {
    if !ctx.sender_picture()? {
        return Ok(None);
    }
    let notations: Vec<&str> = previewed
        .iter()
        .map(|(_, _, p)| p.notation.as_str())
        .collect();
    Ok(super::picture::preview_picture(
        start,
        &notations,
        position,
        caption,
        drawing.from_black,
    ))
}

/// Play the moves of a preview on `position`, after `played` plies; a move
/// that cannot be played is refused naming its place in the list, the ply
/// it would be and the rules' reason. The words are read as
/// [`play_move_words`] reads them.
fn play_preview(
    position: &mut dyn Position,
    played: usize,
    moves: &[String],
) -> Result<Vec<(u32, Color, Played)>, String> {
    play_move_words(position, played, moves)
}

/// Play a list of moves as `preview` reads it: a
/// game record's move text may be given as it stands, so move numbers
/// (`12.`, `12...`, or glued to a move that does not read with it,
/// `12.Nf3`) and a last word that is a result (`1-0`, `0-1`, `1/2-1/2`,
/// `*`) are skipped; a word that cannot be played alone is played together
/// with the next one when the two are one move (`reveal c4`, split at
/// the space). `played` plies come before the first; the plies played
/// with their numbers and seats, or the sentence that refuses a move,
/// naming its place among the moves, the ply it would be and the rules'
/// reason.
pub fn play_move_words(
    position: &mut dyn Position,
    played: usize,
    moves: &[String],
) -> Result<Vec<(u32, Color, Played)>, String> {
    let mut previewed: Vec<(u32, Color, Played)> = Vec::new();
    let mut i = 0;
    while i < moves.len() {
        let word = moves[i].trim();
        i += 1;
        let last = i == moves.len();
        if is_move_number(word) || (last && is_result(word)) {
            continue;
        }
        let ply = (played + previewed.len()) as u32 + 1;
        let seat = position.to_act();
        let refused = match position.play(word) {
            Ok(p) => {
                previewed.push((ply, seat, p));
                continue;
            }
            Err(e) => e,
        };
        let unnumbered = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let unnumbered = match unnumbered.strip_prefix('.') {
            Some(rest) if unnumbered.len() < word.len() => rest.trim_start_matches('.'),
            _ => "",
        };
        if !unnumbered.is_empty() {
            if let Ok(p) = position.play(unnumbered) {
                previewed.push((ply, seat, p));
                continue;
            }
        }
        if let Some(next) = moves.get(i) {
            if let Ok(p) = position.play(&format!("{word} {}", next.trim())) {
                previewed.push((ply, seat, p));
                i += 1;
                continue;
            }
        }
        return Err(format!(
            "Move {} of your preview ({word}, which would be ply {ply}) cannot be played: {refused}",
            previewed.len() + 1
        ));
    }
    Ok(previewed)
}

/// A move number of a game record: digits then one or three dots.
fn is_move_number(word: &str) -> bool {
    let dots = word.trim_start_matches(|c: char| c.is_ascii_digit());
    dots.len() < word.len() && (dots == "." || dots == "...")
}

/// A game record's result.
fn is_result(word: &str) -> bool {
    matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*")
}

pub(super) fn preview_subject(game: &'static dyn Game, number: u32) -> String {
    format!("{} Board {number} preview", game.title())
}

/// A preview: `intro`, the recent played plies, the previewed plies, the
/// board after them, and who would act then (or how the game would end).
pub(super) fn hypothetical_body(
    ctx: &Ctx<'_>,
    board: Option<&Loaded>,
    previewed: &[(u32, Color, Played)],
    position: &dyn Position,
    drawing: Drawing,
    intro: String,
) -> Handled<String> {
    // One list: the played plies (the board's recent ones, numbered as in
    // its whole list), then the previewed ones marked as such.
    let more = previewed
        .iter()
        .map(|(ply, seat, p)| MoveRecord {
            ply: *ply,
            seat: *seat,
            notation: p.notation.clone(),
            mark: "(preview)",
            events: p.events.clone(),
        })
        .collect();
    let (game, number, plies) = board.map_or(("", 0, &[][..]), |b| {
        (b.row.game.as_str(), b.row.board, b.plies.as_slice())
    });
    let list = numbered_move_list(
        ctx,
        game,
        number,
        plies,
        more,
        RECENT_PLIES + previewed.len(),
    )?;
    let players = board.map(|b| b.row.players.as_slice());
    // The players by name on a board, by colour on a new one.
    let name = |seat: Color| match players {
        Some(players) => players[seat.index()].clone(),
        None => seat.name().to_string(),
    };
    let then = match position.outcome() {
        rules::Outcome::Ongoing => format!(
            "After the previewed plies it would be {}'s turn.",
            name(position.to_act())
        ),
        rules::Outcome::Won { winner, ending } => format!(
            "The previewed plies would end the game: won by {} ({ending}).",
            name(winner)
        ),
        rules::Outcome::Drawn { ending } => {
            format!("The previewed plies would end the game: a tie ({ending}).")
        }
    };
    let mut text = intro;
    if !list.is_empty() {
        text.push_str("\n\n");
        text.push_str(list.trim_end());
    }
    text.push_str("\n\n");
    text.push_str(render::board(&position.diagram(), drawing).trim_end());
    text.push_str("\n\n");
    text.push_str(&then);
    Ok(ctx.server.notice_body(&text)?)
}
