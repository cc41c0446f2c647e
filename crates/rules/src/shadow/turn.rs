//! What a turn does: the main move, the shadow move, and the reveals
//! (with collapses and chimeras) it sets off. The rulings are in the
//! [module docs](super).

use super::super::orthodox::Kind;
use super::super::Color;
use super::state::{castle_squares, forward, right_bit, Action, Pending, ShadowPart, State};
use super::units::{slot, Sq, Unit};

impl State {
    /// Apply a legal action with all its automatic consequences, telling
    /// what happened in `events` when given.
    pub fn apply(&mut self, action: Action, mut events: Option<&mut Vec<String>>) {
        match action {
            Action::Main {
                from,
                to,
                class,
                promotion,
                shadow,
            } => self.main_move(from, to, class, promotion, shadow, events.as_deref_mut()),
            Action::Castle { kingside } => {
                let color = self.side;
                let (k_from, k_to, r_from, r_to) = castle_squares(color, kingside);
                self.main[k_to.index()] = self.main[k_from.index()].take();
                self.main[r_to.index()] = self.main[r_from.index()].take();
                self.castling &= !(right_bit(color, true) | right_bit(color, false));
                self.ep = None;
                self.halfmove += 1;
                self.end_main_move();
            }
            Action::Reveal(sq) => {
                let head = self.pending.remove(0);
                self.reveal(head, sq, events.as_deref_mut());
            }
        }
        self.resolve(events);
    }

    fn main_move(
        &mut self,
        from: Sq,
        to: Sq,
        class: Kind,
        promotion: Option<Kind>,
        shadow: ShadowPart,
        mut events: Option<&mut Vec<String>>,
    ) {
        let color = self.side;
        let mut unit = self.main[from.index()].take().expect("a unit moves");
        let mut reset = class == Kind::Pawn;
        let taken_on = if class == Kind::Pawn && self.ep == Some(to) && self.unit(to).is_none() {
            to.step(0, -forward(color))
                .expect("behind the en passant square")
        } else {
            to
        };
        if let Some(taken) = self.main[taken_on.index()].take() {
            reset = true;
            self.touch(taken_on);
            if let Some(e) = events.as_deref_mut() {
                e.push(format!(
                    "{}'s {} on {taken_on} is taken.",
                    taken.color.name(),
                    taken.describe()
                ));
            }
            self.queue(taken, taken_on);
        }
        if let Some(kind) = promotion {
            unit.parts[slot(Kind::Pawn)] -= 1;
            unit.parts[slot(kind)] += 1;
        }
        self.touch(from);
        self.touch(to);
        self.main[to.index()] = Some(unit);
        self.ep = (class == Kind::Pawn && (to.rank() - from.rank()).abs() == 2)
            .then(|| from.step(0, forward(color)).expect("between"));
        match shadow {
            ShadowPart::None => {}
            ShadowPart::Move { from, to } => {
                self.shadow[from.index()][color.index()][slot(class)] -= 1;
                self.shadow[to.index()][color.index()][slot(class)] += 1;
            }
            ShadowPart::RemovePawn(sq) => {
                let kind = promotion.expect("a promotion");
                self.shadow[sq.index()][color.index()][slot(Kind::Pawn)] -= 1;
                self.shadow[to.index()][color.index()][slot(kind)] += 1;
                if let Some(e) = events {
                    e.push(format!(
                        "{}'s shadow pawn on {sq} becomes a shadow {} on {to}.",
                        color.name(),
                        kind.name()
                    ));
                }
            }
        }
        self.halfmove = if reset { 0 } else { self.halfmove + 1 };
        self.end_main_move();
    }

    fn end_main_move(&mut self) {
        if self.side == Color::Black {
            self.fullmove += 1;
        }
        self.side = self.side.opponent();
    }

    /// The unit on `sq` moved away, was taken (collapse included), was
    /// replaced or changed (joined a chimera): the castling rights that
    /// need a pure, unmoved piece there are gone.
    ///
    /// Rights follow the unit, not the square (docs/rules.md §4, Castling): the
    /// callers call this only when the unit standing there is no longer the
    /// one that stood there. An enemy piece revealed onto the square that
    /// dies in the collapse (a white piece on h8, a black one on h1) leaves
    /// the unit there as it was, unmoved and pure, so the rights stay; see
    /// [`State::reveal`]. (On a1, a8, e1 and e8 a collapse always takes the
    /// home side's unit, so there the rights go.)
    fn touch(&mut self, sq: Sq) {
        for color in [Color::White, Color::Black] {
            for kingside in [true, false] {
                let (k, _, r, _) = castle_squares(color, kingside);
                if sq == k || sq == r {
                    self.castling &= !right_bit(color, kingside);
                }
            }
        }
    }

    /// Queue every component of a taken unit for its reveal, K Q R B N P.
    fn queue(&mut self, taken: Unit, taken_on: Sq) {
        for kind in taken.components() {
            self.pending.push(Pending {
                owner: taken.color,
                kind,
                taken_on,
            });
        }
    }

    /// Resolve the queue's head while it needs no choice: no candidate,
    /// nothing happens; one square, it is revealed; two or more, a
    /// decision waits.
    fn resolve(&mut self, mut events: Option<&mut Vec<String>>) {
        while let Some(&head) = self.pending.first() {
            let candidates = self.reveal_candidates(head.owner, head.kind);
            match candidates.as_slice() {
                [] => {
                    self.pending.remove(0);
                    if let Some(e) = events.as_deref_mut() {
                        e.push(format!(
                            "{} has no shadow {} left to reveal.",
                            head.owner.name(),
                            head.kind.name()
                        ));
                    }
                }
                [sq] => {
                    let sq = *sq;
                    self.pending.remove(0);
                    self.reveal(head, sq, events.as_deref_mut());
                }
                several => {
                    if let Some(e) = events.as_deref_mut() {
                        let names: Vec<String> = several.iter().map(|s| s.to_string()).collect();
                        e.push(format!(
                            "{} must choose which shadow {} is revealed: {}.",
                            head.owner.name(),
                            head.kind.name(),
                            names.join(", ")
                        ));
                    }
                    return;
                }
            }
        }
    }

    /// The shadow piece of `head` on `sq` lands on the main board there:
    /// on an empty square it is a piece, on its own colour it fuses into a
    /// chimera, on the other colour the square's colour decides who is
    /// taken (dark: White, light: Black).
    fn reveal(&mut self, head: Pending, sq: Sq, mut events: Option<&mut Vec<String>>) {
        let owner = head.owner;
        self.shadow[sq.index()][owner.index()][slot(head.kind)] -= 1;
        let mut say = |text: String| {
            if let Some(e) = events.as_deref_mut() {
                e.push(text);
            }
        };
        say(format!(
            "{}'s shadow {} on {sq} is revealed.",
            owner.name(),
            head.kind.name()
        ));
        match self.main[sq.index()] {
            None => {
                // A new unit: no right needs it, but none may outlive it.
                self.touch(sq);
                self.main[sq.index()] = Some(Unit::piece(owner, head.kind));
            }
            Some(mut unit) if unit.color == owner => {
                // The unit joins a chimera: its rights are gone.
                self.touch(sq);
                unit.parts[slot(head.kind)] += 1;
                self.main[sq.index()] = Some(unit);
                say(format!(
                    "It fuses with the {} there into a chimera.",
                    Unit {
                        parts: {
                            let mut p = unit.parts;
                            p[slot(head.kind)] -= 1;
                            p
                        },
                        ..unit
                    }
                    .describe()
                ));
            }
            Some(unit) => {
                self.halfmove = 0;
                let loser = if sq.is_dark() {
                    Color::White
                } else {
                    Color::Black
                };
                let shade = if sq.is_dark() { "dark" } else { "light" };
                if loser == owner {
                    // Only the revealed piece dies: the unit on the square
                    // stays as it was, and so do its castling rights.
                    say(format!(
                        "It collapses with {}'s {} on the {shade} square {sq}: the revealed {} is taken.",
                        unit.color.name(),
                        unit.describe(),
                        head.kind.name()
                    ));
                    self.queue(Unit::piece(owner, head.kind), sq);
                } else {
                    self.touch(sq);
                    say(format!(
                        "It collapses with {}'s {} on the {shade} square {sq}, which is taken.",
                        unit.color.name(),
                        unit.describe()
                    ));
                    self.main[sq.index()] = Some(Unit::piece(owner, head.kind));
                    self.queue(unit, sq);
                }
            }
        }
    }
}
