//! Temporal Chess as an [`Engine`]: the server's face, the end of the
//! game, the draws and the diagram (the four levels side by side, the
//! reserves and running warps listed under them).

use super::super::engine::Engine;
use super::super::key::{self, StableKey};
use super::super::{Color, Diagram, Ending, Game, Glyph, Grid, MoveError, Outcome};
use super::field::{Phase, State};
use super::moves::Action;
use super::pieces::Kind;
use super::warps::{self, WarpKind};

/// A piece's worth ([`value`](super::super::value)); a king counts 0, its
/// loss being mate.
fn piece_value(kind: Kind) -> i32 {
    super::super::value::of_letter(kind.letter())
}

/// The canonical state the key hashes (version 1 of
/// [`key`]), 88 bytes: each cell in index order (0
/// empty, else 1 + 6 × colour index + kind index); each player's warp
/// (kind: 0 none, 1 original, 2 + kind index of a vanished piece; cell;
/// counters); each player's reserve counts in [`Kind::ALL`] order; the
/// side's index; the phase (0 placing, 1 play, 2 + winner's index) and a
/// zero byte. The clock is not part of it (the repetition key has it 0).
impl StableKey for State {
    fn stable_key(&self) -> u64 {
        let mut bytes = [0u8; 88];
        for (out, cell) in bytes.iter_mut().zip(&self.board) {
            *out = cell.map_or(0, |p| 1 + 6 * p.color.index() as u8 + p.kind.index() as u8);
        }
        for (i, warp) in self.warps.iter().enumerate() {
            let at = 64 + 3 * i;
            if let Some(w) = warp {
                bytes[at] = match w.kind {
                    WarpKind::Original => 1,
                    WarpKind::Vanished(kind) => 2 + kind.index() as u8,
                };
                bytes[at + 1] = w.cell;
                bytes[at + 2] = w.counters;
            }
        }
        for (i, reserve) in self.reserves.iter().enumerate() {
            for kind in Kind::ALL {
                bytes[70 + 6 * i + kind.index()] = reserve.count(kind);
            }
        }
        bytes[82] = self.side.index() as u8;
        bytes[83] = match self.phase {
            Phase::Place => 0,
            Phase::Play => 1,
            Phase::Won(color) => 2 + color.index() as u8,
        };
        key::key_of_bytes(&bytes)
    }
}

impl Engine for State {
    type Action = Action;
    /// The whole state but the clock: pieces, warps and counters,
    /// reserves, side and phase.
    type Key = State;

    fn game(&self) -> &'static dyn Game {
        &super::Temporal
    }

    fn to_act(&self) -> Color {
        self.side
    }

    fn actions(&self) -> Vec<Action> {
        self.legal_actions()
    }

    fn play_unchecked(&mut self, action: &Action) {
        *self = self.resolve(action, None).0;
    }

    fn after(&self, action: &Action) -> State {
        self.resolve(action, None).0
    }

    fn events(&self, action: &Action) -> Vec<String> {
        let mut events = Vec::new();
        let _ = self.resolve(action, Some(&mut events));
        events.iter().map(warps::Event::sentence).collect()
    }

    fn notation(&self, action: &Action) -> String {
        State::notation(self, action)
    }

    fn read(&self, input: &str) -> Result<Action, MoveError> {
        State::read(self, input)
    }

    /// A paradox win, or, with no legal action, checkmate (the royal king,
    /// or a vanished king's reappearance cell, attacked) or stalemate.
    fn end(&self) -> Outcome {
        match self.phase {
            Phase::Won(winner) => Outcome::Won {
                winner,
                ending: Ending::OriginalCaptured,
            },
            Phase::Place => Outcome::Ongoing,
            Phase::Play if !self.legal_actions().is_empty() => Outcome::Ongoing,
            Phase::Play if self.threatened(self.side) => Outcome::Won {
                winner: self.side.opponent(),
                ending: Ending::Checkmate,
            },
            Phase::Play => Outcome::Drawn {
                ending: Ending::Stalemate,
            },
        }
    }

    /// K v K with empty reserves and no warps.
    fn is_insufficient_material(&self) -> bool {
        self.phase == Phase::Play
            && self.warps.iter().all(Option::is_none)
            && self.reserves.iter().all(|r| r.is_empty())
            && self.pieces().all(|(_, p)| p.kind == Kind::King)
    }

    fn repetition_key(&self) -> State {
        State { clock: 0, ..*self }
    }

    fn move_clock(&self) -> u32 {
        self.clock
    }

    fn to_text(&self) -> String {
        State::to_text(self)
    }

    /// Active pieces at their values, reserve pieces at nine tenths (they
    /// can be dropped where needed, but do nothing yet); a vanished piece
    /// at half (it is out of play for a while); a countered original is a
    /// liability worth a rook (its capture loses); a royal king in check
    /// costs a little.
    fn evaluate(&self) -> i32 {
        let mut score = [0i32; 2];
        for (_, p) in self.pieces() {
            score[p.color.index()] += piece_value(p.kind);
        }
        for color in [Color::White, Color::Black] {
            let me = color.index();
            for (kind, n) in self.reserve(color).held() {
                score[me] += piece_value(kind) * n as i32 * 9 / 10;
            }
            if let Some((w, p)) = self.warp_piece(color) {
                score[me] += match w.kind {
                    WarpKind::Vanished(_) => piece_value(p.kind) / 2,
                    WarpKind::Original => -500,
                };
            }
            if self.in_check(color) {
                score[me] -= 50;
            }
        }
        let me = self.side().index();
        score[me] - score[1 - me]
    }

    fn capture_value(&self, action: &Action) -> Option<i32> {
        match *action {
            Action::Move { to, .. } | Action::Clone { to, .. } => self
                .at(to)
                .filter(|p| p.color != self.side())
                .map(|p| piece_value(p.kind)),
            _ => None,
        }
    }

    fn diagram(&self) -> Diagram {
        let mut boards: Vec<Grid> = (0..4u8)
            .map(|level| Grid::empty(format!("Level {}", (b'A' + level) as char), 4, 4))
            .collect();
        for (cell, piece) in self.pieces() {
            boards[cell.level() as usize].put(
                cell.file(),
                cell.rank(),
                Glyph {
                    color: piece.color,
                    letter: piece.kind.letter(),
                },
            );
        }
        let mut notes = Vec::new();
        if self.phase == Phase::Place {
            notes.push(
                "The kings are placed first, White's and then Black's, which may not stand next to White's."
                    .to_string(),
            );
        }
        for color in [Color::White, Color::Black] {
            notes.push(format!(
                "{}'s reserve: {}.",
                color.name(),
                self.reserve(color).described()
            ));
        }
        let running: Vec<String> = [Color::White, Color::Black]
            .into_iter()
            .filter_map(|c| self.warp_piece(c))
            .map(|(w, p)| warps::note(w, p))
            .collect();
        if running.is_empty() {
            notes.push("No warps are running.".into());
        } else {
            notes.extend(running);
        }
        Diagram { boards, notes }
    }
}
