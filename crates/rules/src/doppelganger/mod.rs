//! Doppelganger Chess (`doppelganger`): docs/rules.md §2. Orthodox chess on the
//! shared core, except what a capture takes and what a promotion makes; all
//! of it lives in [`DoppelHooks`] here and in [`pairs`] (which pieces are
//! partners, and the `pairs=` position field).
//!
//! A pair is two rooks, knights or bishops of one side carrying the same
//! pair number, the core's [`Tag`](crate::orthodox::Tag). A move that needs a choice (the enemy
//! pawn removed with a captured pawn, the own pawn that becomes a promoted
//! piece's partner) is one turn action per choice:
//! [`Hooks::expand`] turns it into [`Move::choosing`] moves, and
//! [`Hooks::after_make`] removes and converts.
//!
//! # Rulings
//! - **Pair numbers** count per side and kind (1 to 7); a new pair takes
//!   the lowest number free for its side and kind. Numbers are not part of
//!   the position: the `pairs=` field names pairs by their squares.
//! - **Canonical notation** always writes the choice when the move has one
//!   (`exd5/c7` even when c7 is the only other pawn); the slash part may be
//!   left out in input when exactly one legal action fits the rest. A pawn
//!   capture that leaves no other enemy pawn, and a `-lenient` promotion
//!   without partner, are written without a slash.
//! - **`-lenient`** only changes the case docs/rules.md names: a pawn whose side
//!   has no other pawn may promote to a single unpaired R, N or B. With
//!   another pawn on the board the promotion is a pair, as without it.
//! - **Replies** name every automatic change, one sentence each, under the
//!   move: `Also removed: Bc8 (the partner of the bishop taken on f6).`,
//!   `Also removed: the pawn on c7.`, `The pawn on g2 became a rook, the
//!   partner of the new rook on b8.`
//! - **Set-up positions** may hold at most 16 pieces a side (so that seven
//!   pair numbers always suffice); see [`pairs`] for the field's rules.
//! - **Drawings** list the pairs of a side and kind under the board when
//!   the board alone does not tell them: more than two such pieces, or two
//!   that are not partners.
//! - **Insufficient material** is the orthodox rule (K v K, K + one minor v
//!   K), as docs/rules.md §2 says.

pub mod pairs;

use std::sync::LazyLock;

use super::board::{Geometry, Square};
use super::engine::EngineGame;
use super::orthodox::{Capture, Hooks, Kind, Move, Piece, Special, State, Variant};
use super::{Color, SetupError};

/// The start position: the chess start, each side's two rooks, knights and
/// bishops paired (the default reading of the position text).
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Doppelganger Chess (Gary K. Gifford, 2004).
pub struct Doppelganger;

/// Where Doppelganger Chess differs from chess. `lenient` is the challenge
/// option `-lenient`.
#[derive(Clone, Copy, Debug)]
pub struct DoppelHooks {
    pub lenient: bool,
}

/// The Doppelganger variant data, with or without `-lenient`.
pub fn variant(lenient: bool) -> &'static Variant<DoppelHooks> {
    fn make(lenient: bool) -> Variant<DoppelHooks> {
        let g = Geometry::CHESS;
        let castlings = super::chess::castlings();
        Variant::new(
            &Doppelganger,
            g,
            START_FEN,
            castlings,
            true,
            "Write a move as in chess (Nf3, exd5, O-O, e2e4), with the square you choose after a slash: exd5/c7 (the other enemy pawn removed), b8=R/g2 (your pawn that becomes the partner).",
            DoppelHooks { lenient },
        )
    }
    static STRICT: LazyLock<Variant<DoppelHooks>> = LazyLock::new(|| make(false));
    static LENIENT: LazyLock<Variant<DoppelHooks>> = LazyLock::new(|| make(true));
    if lenient {
        &LENIENT
    } else {
        &STRICT
    }
}

/// Whether the options ask for `-lenient` (the only one there is).
fn is_lenient(options: &[String]) -> bool {
    options.iter().any(|o| o == "lenient")
}

impl EngineGame for Doppelganger {
    type Engine = State<DoppelHooks>;
    fn name(&self) -> &'static str {
        "doppelganger"
    }
    fn title(&self) -> &'static str {
        "Doppelganger Chess"
    }
    fn options(&self) -> &'static [&'static str] {
        &["lenient"]
    }
    fn start_position(&self, options: &[String]) -> Result<State<DoppelHooks>, SetupError> {
        Ok(State::start(variant(is_lenient(options))))
    }
    fn read_position(
        &self,
        text: &str,
        options: &[String],
    ) -> Result<State<DoppelHooks>, SetupError> {
        State::from_fen(variant(is_lenient(options)), text)
    }
}

/// The squares of `color`'s pawns other than `except`.
fn pawns_of(state: &State<DoppelHooks>, color: Color, except: Square) -> Vec<Square> {
    let pawn = Piece::new(color, Kind::Pawn);
    state
        .pieces()
        .filter(|&(sq, p)| p == pawn && sq != except)
        .map(|(sq, _)| sq)
        .collect()
}

/// The square of the pawn an en passant capture by the side to move takes.
fn en_passant_victim(state: &State<DoppelHooks>, m: Move) -> Square {
    let g = state.variant().geometry;
    let back = match state.side_to_move() {
        Color::White => -1,
        Color::Black => 1,
    };
    g.step(m.to, 0, back)
        .expect("an en passant square has a pawn behind it")
}

impl Hooks for DoppelHooks {
    const TAGS: bool = true;
    const PLAIN_MAKE: bool = false;
    const PLAIN_EXPAND: bool = false;

    fn promotion_kinds(&self) -> &'static [Kind] {
        &[Kind::Rook, Kind::Knight, Kind::Bishop]
    }

    /// docs/rules.md §2: a promotion makes a pair of R, N or B, never Q.
    fn promotion_rule(&self, asked: Kind) -> String {
        let single = if self.lenient {
            " (under -lenient, a pawn with no other pawn of its side becomes a single rook, knight or bishop)"
        } else {
            ""
        };
        format!(
            "in Doppelganger Chess a pawn promotes to a pair of rooks, knights or bishops, never to a {}: it becomes the piece, and another of your pawns, named after the slash, becomes its partner{single}",
            asked.name()
        )
    }

    /// A pawn capture: one action per other enemy pawn (or the move alone
    /// when there is none). A promotion: one action per other own pawn;
    /// none at all without one, unless `-lenient` (then the move alone).
    fn expand(&self, state: &State<Self>, m: Move, out: &mut Vec<Move>) {
        let side = state.side_to_move();
        let taken_pawn = match m.special {
            Special::EnPassant => Some(en_passant_victim(state, m)),
            Special::None => state
                .piece_at(m.to)
                .filter(|p| p.kind == Kind::Pawn && p.color != side)
                .map(|_| m.to),
            _ => None,
        };
        let choices = match (m.special, taken_pawn) {
            (Special::Promotion(_), _) => {
                let partners = pawns_of(state, side, m.from);
                if partners.is_empty() && !self.lenient {
                    return;
                }
                partners
            }
            (_, Some(victim)) => pawns_of(state, side.opponent(), victim),
            _ => Vec::new(),
        };
        if choices.is_empty() {
            out.push(m);
        } else {
            out.extend(choices.into_iter().map(|sq| m.choosing(sq)));
        }
    }

    fn after_make(
        &self,
        state: &mut State<Self>,
        m: Move,
        taken: Option<Capture>,
        mut events: Option<&mut Vec<String>>,
    ) {
        let mover = state.side_to_move().opponent();
        let mut tell = |sentence: String| {
            if let Some(events) = events.as_deref_mut() {
                events.push(sentence);
            }
        };
        if let Some(taken) = taken {
            let piece = taken.piece();
            match piece.kind {
                Kind::Pawn => {
                    if let Some(sq) = m.choice {
                        state.put(sq, None);
                        tell(format!("Also removed: the pawn on {sq}."));
                    }
                }
                Kind::Rook | Kind::Knight | Kind::Bishop => {
                    if let Some(sq) = pairs::find(state, piece, taken.tag()) {
                        state.put(sq, None);
                        tell(format!(
                            "Also removed: {}{sq} (the partner of the {} taken on {}).",
                            piece.kind.letter(),
                            piece.kind.name(),
                            taken.square
                        ));
                    }
                }
                // Unpaired; Doppelganger has no monarch either.
                Kind::Queen | Kind::King | Kind::Monarch => {}
            }
        }
        if let (Special::Promotion(kind), Some(sq)) = (m.special, m.choice) {
            let tag = pairs::free_tag(state, Piece::new(mover, kind));
            state.set_tag(m.to, tag);
            state.put(sq, Some((Piece::new(mover, kind), tag)));
            let name = kind.name();
            tell(format!(
                "The pawn on {sq} became a {name}, the partner of the new {name} on {}.",
                m.to
            ));
        }
    }

    fn write_suffix(&self, _state: &State<Self>, m: Move) -> String {
        m.choice.map_or(String::new(), |sq| format!("/{sq}"))
    }

    fn read_suffix<'a>(
        &self,
        state: &State<Self>,
        text: &'a str,
    ) -> Result<(&'a str, Option<Square>), String> {
        let Some((core, choice)) = text.split_once('/') else {
            return Ok((text, None));
        };
        let core = core.trim_end_matches(['+', '#', '!', '?', ' ']);
        let name = choice.trim().to_ascii_lowercase();
        match state.variant().geometry.parse_square(&name) {
            Some(sq) => Ok((core, Some(sq))),
            None => Err(format!(
                "'{}' after the slash is not a square; write the square of the pawn you choose, as in exd5/c7 or b8=R/g2.",
                choice.trim()
            )),
        }
    }

    fn explain_refusal(&self, state: &State<Self>, from: Square, to: Square) -> Option<String> {
        let side = state.side_to_move();
        let pawn = state.piece_at(from)?;
        let last = match side {
            Color::White => 7,
            Color::Black => 0,
        };
        let forward = match side {
            Color::White => 1,
            Color::Black => -1,
        };
        let reaches = to.rank() == last
            && i16::from(to.rank()) - i16::from(from.rank()) == forward
            && match to.file().abs_diff(from.file()) {
                0 => state.piece_at(to).is_none(),
                1 => state.piece_at(to).is_some_and(|p| p.color != side),
                _ => false,
            };
        let alone = pawns_of(state, side, from).is_empty();
        (pawn.kind == Kind::Pawn && pawn.color == side && reaches && alone && !self.lenient).then(
            || {
                "a pawn may not reach the last rank while you have no other pawn: a promotion makes a pair, and its second piece is another of your pawns.".to_string()
            },
        )
    }

    fn diagram_notes(&self, state: &State<Self>) -> Vec<String> {
        pairs::notes(state)
    }

    fn write_fields(&self, state: &State<Self>) -> Vec<String> {
        pairs::write_field(state).into_iter().collect()
    }

    fn read_fields(&self, state: &mut State<Self>, fields: &[&str]) -> Result<(), SetupError> {
        pairs::read_field(state, fields)
    }
}
