//! One turn applied with all its automatic consequences, in rules.md §5's
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

impl State {
    /// The position after `action` (which must be possible: a piece of the
    /// mover where it moves from, and so on) and whether the turn is legal.
    /// With `events`, the automatic consequences are told there.
    pub(super) fn resolve(
        &self,
        action: &Action,
        mut events: Option<&mut Vec<Event>>,
    ) -> (State, Result<(), Illegal>) {
        let me = self.side;
        let them = me.opponent();
        let mut s = *self;
        s.side = them;
        let began_with_warp = s.warps[me.index()].is_some();
        let mut captured = false;
        let mut paradox: Option<(Piece, u8)> = None;
        let mut dropped: Option<(Kind, u8)> = None;

        // (1) The action.
        let mut capture = |s: &mut State, at: u8, captured: &mut bool| {
            if let Some(victim) = s.board[at as usize] {
                *captured = true;
                if victim.color == them && s.original(them) == Some(at) {
                    s.warps[them.index()] = None;
                    paradox = Some((victim, at));
                }
            }
        };
        match *action {
            Action::Place(c) => {
                let at = index(c);
                s.board[at as usize] = Some(Piece::new(me, Kind::King));
                s.reserves[me.index()].take(Kind::King);
                if me == Color::Black {
                    s.phase = Phase::Play;
                }
                s.clock = 0;
                return (s, Ok(()));
            }
            Action::Drop(kind, c) => {
                let at = index(c);
                s.board[at as usize] = Some(Piece::new(me, kind));
                s.reserves[me.index()].take(kind);
                dropped = Some((kind, at));
            }
            Action::Move { from, to } => {
                let (f, t) = (index(from), index(to));
                let piece = s.board[f as usize].take();
                capture(&mut s, t, &mut captured);
                s.board[t as usize] = piece;
                if let Some(w) = s.warps[me.index()].as_mut() {
                    if w.kind == WarpKind::Original && w.cell == f {
                        w.cell = t;
                    }
                }
            }
            Action::Vanish { cell, counters } => {
                let at = index(cell);
                if let Some(piece) = s.board[at as usize].take() {
                    s.warps[me.index()] = Some(Warp {
                        kind: WarpKind::Vanished(piece.kind),
                        cell: at,
                        counters,
                    });
                    emit(
                        &mut events,
                        Event::Vanished {
                            piece,
                            cell: at,
                            counters,
                        },
                    );
                }
            }
            Action::Clone { from, to, counters } => {
                let (f, t) = (index(from), index(to));
                let piece = s.board[f as usize];
                capture(&mut s, t, &mut captured);
                s.board[t as usize] = piece;
                s.warps[me.index()] = Some(Warp {
                    kind: WarpKind::Original,
                    cell: f,
                    counters,
                });
                if let Some(piece) = piece {
                    emit(
                        &mut events,
                        Event::Cloned {
                            piece,
                            from: f,
                            to: t,
                            counters,
                        },
                    );
                }
            }
        }
        if let Some((original, at)) = paradox {
            emit(&mut events, Event::Paradox { original, cell: at });
        }

        // (2) A counter off the warp the turn began with; (3) at zero it ends.
        let mut verdict = Ok(());
        if began_with_warp {
            if let Some(mut w) = s.warps[me.index()] {
                w.counters = w.counters.saturating_sub(1);
                let at = w.cell as usize;
                if w.counters > 0 {
                    s.warps[me.index()] = Some(w);
                    if let Some((_, piece)) = s.warp_piece(me) {
                        emit(&mut events, Event::CounterOff { piece, warp: w });
                    }
                } else {
                    s.warps[me.index()] = None;
                    match w.kind {
                        WarpKind::Original => {
                            if let Some(piece) = s.board[at].take() {
                                emit(
                                    &mut events,
                                    Event::Expired {
                                        piece,
                                        cell: w.cell,
                                    },
                                );
                            }
                        }
                        WarpKind::Vanished(kind) => {
                            let victim = s.board[at];
                            if victim == Some(Piece::new(me, Kind::King)) {
                                verdict = Err(Illegal::ReappearsOnKing { cell: w.cell });
                            }
                            let mut lost_original = None;
                            if let Some(v) = victim {
                                captured = true;
                                if v.color == them && s.original(them) == Some(w.cell) {
                                    s.warps[them.index()] = None;
                                    lost_original = Some(v);
                                    paradox = Some((v, w.cell));
                                }
                            }
                            if dropped.is_some_and(|(_, c)| c == w.cell) {
                                dropped = None;
                            }
                            let piece = Piece::new(me, kind);
                            s.board[at] = Some(piece);
                            emit(
                                &mut events,
                                Event::Reappeared {
                                    piece,
                                    cell: w.cell,
                                    captured: victim,
                                },
                            );
                            if let Some(original) = lost_original {
                                emit(
                                    &mut events,
                                    Event::Paradox {
                                        original,
                                        cell: w.cell,
                                    },
                                );
                            }
                        }
                    }
                }
            }
        }

        // (4) The mover's royal king; (5) the drop.
        if verdict.is_ok() {
            verdict = s.royal_safe(me);
        }
        if verdict.is_ok() {
            if let Some((kind, at)) = dropped {
                if let super::field::Royal::Active(king) = s.royal(them) {
                    if s.attacks(at, kind, king) {
                        verdict = Err(Illegal::DropChecks {
                            kind,
                            cell: at,
                            king,
                        });
                    }
                }
            }
        }

        if paradox.is_some() && verdict.is_ok() {
            s.phase = Phase::Won(me);
        }
        s.clock = if captured || matches!(action, Action::Drop(..)) {
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
