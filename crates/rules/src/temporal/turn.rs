//! One turn applied with all its automatic consequences, in docs/rules.md §5's
//! order: (1) the action; (2) a counter off the warp the mover's turn began
//! with; (3) at zero, the warp ends (the original removed, or the vanished
//! piece back, capturing what stands there); (4) the legality test (the
//! mover's royal king not attacked); (5) the drop test (a dropped piece
//! does not attack the enemy royal king). A capture of an enemy original
//! wins when the turn is otherwise legal.
//!
//! # Rulings
//! - A drop is judged against the enemy royal king only while that king is
//!   active: a vanished king cannot be in check, so a drop may attack the
//!   cell where it will reappear.
//! - A dropped piece captured in step 3 by the mover's own reappearing
//!   piece no longer attacks anything: such a drop passes the drop test.
//! - The move clock counts plies since the last capture or drop; a
//!   placement is a drop, a reappearance that captures is a capture, and an
//!   original's expiry is not a capture.
//! - A reappearance onto the mover's own king makes the action illegal
//!   (with one warp a side, that king is always the royal one).

use super::super::Color;
use super::field::{index, Phase, State};
use super::moves::Action;
use super::pieces::{Kind, Piece};
use super::warps::{Event, Warp, WarpKind};

/// Why a turn is illegal after all its consequences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// The mover's royal king on `king` is attacked: by the piece on `by`,
    /// or (`None`) by an enemy vanished piece about to reappear there.
    KingAttacked { king: u8, by: Option<u8> },
    /// The mover's vanished piece would reappear on the own royal king.
    ReappearsOnKing { cell: u8 },
    /// The dropped piece would attack the enemy royal king on `king`.
    DropChecks { kind: Kind, cell: u8, king: u8 },
}

fn emit(events: &mut Option<&mut Vec<Event>>, event: Event) {
    if let Some(out) = events.as_deref_mut() {
        out.push(event);
    }
}

/// A turn being resolved: the position so far and what the later steps
/// need to know about the earlier ones.
struct Turn<'e> {
    s: State,
    me: Color,
    them: Color,
    /// Whether anything was captured (the clock restarts).
    captured: bool,
    /// An enemy original captured, and where (a win if the turn is legal).
    paradox: Option<(Piece, u8)>,
    /// The piece dropped, and where, while it still stands there.
    dropped: Option<(Kind, u8)>,
    events: Option<&'e mut Vec<Event>>,
}

impl Turn<'_> {
    fn emit(&mut self, event: Event) {
        emit(&mut self.events, event);
    }

    /// What stands on `at` is captured (by a move or a clone).
    fn capture(&mut self, at: u8) {
        if let Some(victim) = self.s.board[at as usize] {
            self.captured = true;
            if victim.color == self.them && self.s.original(self.them) == Some(at) {
                self.s.warps[self.them.index()] = None;
                self.paradox = Some((victim, at));
            }
        }
    }

    /// Step (1), the action itself (not a placement).
    fn act(&mut self, action: &Action) {
        let me = self.me;
        match *action {
            // Resolved before the other steps, by `resolve` itself.
            Action::Place(_) => {}
            Action::Drop(kind, c) => {
                let at = index(c);
                self.s.board[at as usize] = Some(Piece::new(me, kind));
                self.s.reserves[me.index()].take(kind);
                self.dropped = Some((kind, at));
            }
            Action::Move { from, to } => {
                let (f, t) = (index(from), index(to));
                let piece = self.s.board[f as usize].take();
                self.capture(t);
                self.s.board[t as usize] = piece;
                if let Some(w) = self.s.warps[me.index()].as_mut() {
                    if w.kind == WarpKind::Original && w.cell == f {
                        w.cell = t;
                    }
                }
            }
            Action::Vanish { cell, counters } => self.vanish(index(cell), counters),
            Action::Clone { from, to, counters } => {
                let (f, t) = (index(from), index(to));
                let piece = self.s.board[f as usize];
                self.capture(t);
                self.s.board[t as usize] = piece;
                self.s.warps[me.index()] = Some(Warp {
                    kind: WarpKind::Original,
                    cell: f,
                    counters,
                });
                if let Some(piece) = piece {
                    self.emit(Event::Cloned {
                        piece,
                        from: f,
                        to: t,
                        counters,
                    });
                }
            }
        }
        if let Some((original, at)) = self.paradox {
            self.emit(Event::Paradox { original, cell: at });
        }
    }

    /// The piece on `at` vanishes into the future with `counters`.
    fn vanish(&mut self, at: u8, counters: u8) {
        if let Some(piece) = self.s.board[at as usize].take() {
            self.s.warps[self.me.index()] = Some(Warp {
                kind: WarpKind::Vanished(piece.kind),
                cell: at,
                counters,
            });
            self.emit(Event::Vanished {
                piece,
                cell: at,
                counters,
            });
        }
    }

    /// Steps (2) and (3): a counter off the mover's warp; at zero it ends.
    fn tick_warp(&mut self) -> Result<(), Illegal> {
        let me = self.me;
        let Some(mut w) = self.s.warps[me.index()] else {
            return Ok(());
        };
        w.counters = w.counters.saturating_sub(1);
        if w.counters > 0 {
            self.s.warps[me.index()] = Some(w);
            if let Some((_, piece)) = self.s.warp_piece(me) {
                self.emit(Event::CounterOff { piece, warp: w });
            }
            return Ok(());
        }
        self.s.warps[me.index()] = None;
        match w.kind {
            WarpKind::Original => {
                if let Some(piece) = self.s.board[w.cell as usize].take() {
                    self.emit(Event::Expired {
                        piece,
                        cell: w.cell,
                    });
                }
                Ok(())
            }
            WarpKind::Vanished(kind) => self.reappear(kind, w.cell),
        }
    }

    /// The mover's vanished piece of `kind` comes back on `cell`,
    /// capturing what stands there.
    fn reappear(&mut self, kind: Kind, cell: u8) -> Result<(), Illegal> {
        let (me, them) = (self.me, self.them);
        let at = cell as usize;
        let victim = self.s.board[at];
        let verdict = if victim == Some(Piece::new(me, Kind::King)) {
            Err(Illegal::ReappearsOnKing { cell })
        } else {
            Ok(())
        };
        let mut lost_original = None;
        if let Some(v) = victim {
            self.captured = true;
            if v.color == them && self.s.original(them) == Some(cell) {
                self.s.warps[them.index()] = None;
                lost_original = Some(v);
                self.paradox = Some((v, cell));
            }
        }
        if self.dropped.is_some_and(|(_, c)| c == cell) {
            self.dropped = None;
        }
        let piece = Piece::new(me, kind);
        self.s.board[at] = Some(piece);
        self.emit(Event::Reappeared {
            piece,
            cell,
            captured: victim,
        });
        if let Some(original) = lost_original {
            self.emit(Event::Paradox { original, cell });
        }
        verdict
    }

    /// Step (5): the dropped piece, if still there, does not attack the
    /// enemy royal king.
    fn drop_test(&self) -> Result<(), Illegal> {
        if let Some((kind, at)) = self.dropped {
            if let super::field::Royal::Active(king) = self.s.royal(self.them) {
                if self.s.attacks(at, kind, king) {
                    return Err(Illegal::DropChecks {
                        kind,
                        cell: at,
                        king,
                    });
                }
            }
        }
        Ok(())
    }
}

impl State {
    /// The position after `action` (which must be possible: a piece of the
    /// mover where it moves from, and so on) and whether the turn is legal.
    /// With `events`, the automatic consequences are told there.
    pub(super) fn resolve(
        &self,
        action: &Action,
        events: Option<&mut Vec<Event>>,
    ) -> (State, Result<(), Illegal>) {
        let me = self.side;
        let mut s = *self;
        s.side = me.opponent();
        if let Action::Place(c) = *action {
            s.board[index(c) as usize] = Some(Piece::new(me, Kind::King));
            s.reserves[me.index()].take(Kind::King);
            if me == Color::Black {
                s.phase = Phase::Play;
            }
            s.clock = 0;
            return (s, Ok(()));
        }
        let began_with_warp = s.warps[me.index()].is_some();
        let mut turn = Turn {
            s,
            me,
            them: me.opponent(),
            captured: false,
            paradox: None,
            dropped: None,
            events,
        };
        // (1) The action.
        turn.act(action);
        // (2) A counter off the warp the turn began with; (3) at zero it ends.
        let mut verdict = if began_with_warp {
            turn.tick_warp()
        } else {
            Ok(())
        };
        // (4) The mover's royal king; (5) the drop.
        if verdict.is_ok() {
            verdict = turn.s.royal_safe(me);
        }
        if verdict.is_ok() {
            verdict = turn.drop_test();
        }
        let mut s = turn.s;
        if turn.paradox.is_some() && verdict.is_ok() {
            s.phase = Phase::Won(me);
        }
        s.clock = if turn.captured || matches!(action, Action::Drop(..)) {
            0
        } else {
            s.clock.saturating_add(1)
        };
        (s, verdict)
    }

    /// The legality test: `color`'s royal king, if active, is not attacked.
    pub(super) fn royal_safe(&self, color: Color) -> Result<(), Illegal> {
        match self.royal(color) {
            super::field::Royal::Active(king) => {
                if self.ripe_enemy_warp(king, color) {
                    Err(Illegal::KingAttacked { king, by: None })
                } else if let Some(by) = self.attacker(king, color.opponent()) {
                    Err(Illegal::KingAttacked { king, by: Some(by) })
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }
}
