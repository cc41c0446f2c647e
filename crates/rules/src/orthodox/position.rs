//! The orthodox family as an [`Engine`]: a [`State`] is the engine; the
//! draw history comes from [`Tracked`](super::super::engine::Tracked).

use super::super::engine::Engine;
use super::super::{Color, Diagram, Ending, Game, Glyph, Grid, MoveError, Outcome};
use super::hooks::Hooks;
use super::state::{Move, Special, State};

impl<H: Hooks> State<H> {
    /// The repetition key: placement, side, castling rights, the en passant
    /// square only if an en passant capture is legal, and the variant's
    /// extra fields.
    pub fn repetition_key(&self) -> String {
        let ep = match self.ep {
            Some(sq)
                if self
                    .legal_moves()
                    .iter()
                    .any(|m| m.special == Special::EnPassant) =>
            {
                sq.to_string()
            }
            _ => "-".into(),
        };
        let mut key = format!(
            "{} {} {} {}",
            self.placement(),
            self.side.fen_letter(),
            self.castling_text(),
            ep
        );
        for field in self.variant.hooks.write_fields(self) {
            key.push(' ');
            key.push_str(&field);
        }
        key
    }

    /// Perft from here (draw rules ignored).
    pub fn perft(&self, depth: u32) -> u64 {
        super::super::perft::perft(self, depth)
    }

    /// Perft split by first move, in coordinate form.
    pub fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        super::super::perft::divide(self, depth)
    }
}

impl<H: Hooks> Engine for State<H> {
    type Action = Move;
    type Key = String;

    fn game(&self) -> &'static dyn Game {
        self.variant.game
    }

    fn to_act(&self) -> Color {
        self.side
    }

    fn actions(&self) -> Vec<Move> {
        self.legal_moves()
    }

    fn has_action(&self) -> bool {
        self.has_legal_move()
    }

    fn action_count(&self) -> u64 {
        self.legal_move_count() as u64
    }

    fn play_unchecked(&mut self, m: &Move) {
        self.make(*m);
    }

    fn after(&self, m: &Move) -> State<H> {
        State::after(self, *m)
    }

    fn events(&self, m: &Move) -> Vec<String> {
        let mut events = Vec::new();
        let mut after = *self;
        after.make_reporting(*m, Some(&mut events));
        events
    }

    fn notation(&self, m: &Move) -> String {
        self.san(*m)
    }

    fn notations(&self, moves: &[Move]) -> Vec<String> {
        moves.iter().map(|&m| self.san_with(m, moves)).collect()
    }

    fn action_name(&self, m: &Move) -> String {
        self.uci(*m)
    }

    fn read(&self, input: &str) -> Result<Move, MoveError> {
        self.parse_move(input)
    }

    fn end(&self) -> Outcome {
        if self.has_legal_move() {
            Outcome::Ongoing
        } else if self.is_check() {
            Outcome::Won {
                winner: self.side.opponent(),
                ending: Ending::Checkmate,
            }
        } else {
            Outcome::Drawn {
                ending: Ending::Stalemate,
            }
        }
    }

    fn is_insufficient_material(&self) -> bool {
        self.variant.hooks.is_insufficient_material(self)
    }

    fn repetition_key(&self) -> String {
        State::repetition_key(self)
    }

    fn move_clock(&self) -> u32 {
        self.halfmove
    }

    fn to_text(&self) -> String {
        self.fen()
    }

    fn evaluate(&self) -> i32 {
        State::evaluate(self)
    }

    fn capture_value(&self, m: &Move) -> Option<i32> {
        State::capture_value(self, *m)
    }

    fn diagram(&self) -> Diagram {
        let g = self.variant.geometry;
        let hooks = &self.variant.hooks;
        let mut grid = Grid::empty("", g.files(), g.ranks());
        for (sq, p) in self.pieces() {
            grid.put(
                sq.file(),
                sq.rank(),
                Glyph {
                    color: p.color,
                    letter: hooks.letter(p.kind),
                },
            );
        }
        Diagram {
            boards: vec![grid],
            notes: hooks.diagram_notes(self),
        }
    }
}
