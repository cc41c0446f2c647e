//! Legal moves: the full test (copy-make, then the mover's king not
//! attacked and the variant's own test), the quick [`SafetyScreen`] that
//! spares most moves the copy-make, and counting legal moves without
//! listing them (perft's last ply).

use super::super::board::{
    Square, ALL_DIRECTIONS, DIAGONAL, EAST, KNIGHT_STEPS, NORTH, ORTHOGONAL,
};
use super::super::Color;
use super::hooks::Hooks;
use super::pieces::{
    color_bit, is_enemy, Kind, BLACK, EMPTY, KNIGHT, MONARCH, OFF, PAWN, PIECE_MASK, QUEEN,
};
use super::state::{Move, Special, State};

impl<H: Hooks> State<H> {
    /// Whether a pseudo-legal move is legal: the mover's king is not
    /// attacked afterwards, and the variant's own test passes.
    pub(crate) fn is_legal(&self, m: Move) -> bool {
        let mut after = *self;
        after.make(m);
        !after.attacked(after.kings[self.side.index()], after.side)
            && self.variant.hooks.is_legal_after(&after, m)
    }

    /// The quick legality screen for this position (see [`SafetyScreen`]).
    fn safety_screen(&self) -> SafetyScreen {
        let king = self.kings[self.side.index()];
        let mut screen = SafetyScreen {
            king,
            active: H::PLAIN_MAKE,
            check: Check::None,
            pins: [(0, 0, 0); 8],
            pin_count: 0,
        };
        if screen.active {
            if self.attacked(king, self.side.opponent()) {
                screen.check = self.checks(king);
            }
            self.find_pins(&mut screen);
        }
        screen
    }

    /// What checks the king on `king` (which is in check).
    fn checks(&self, king: Square) -> Check {
        let c = &self.cells;
        let enemy = color_bit(self.side.opponent());
        let mask = if H::TAGS { PIECE_MASK | OFF } else { !0 };
        let at = |t: isize| c[t as usize] & mask;
        let k = king.index() as isize;
        let fwd = match self.side {
            Color::White => NORTH,
            Color::Black => -NORTH,
        };
        let mut found = Vec::with_capacity(2);
        for t in [k + fwd + EAST, k + fwd - EAST] {
            if at(t) == PAWN | enemy {
                found.push(Check::Single {
                    checker: t as usize,
                    step: 0,
                });
            }
        }
        for &d in &KNIGHT_STEPS {
            if at(k + d) == KNIGHT | enemy {
                found.push(Check::Single {
                    checker: (k + d) as usize,
                    step: 0,
                });
            }
        }
        for &d in &ALL_DIRECTIONS {
            if at(k + d) | 1 == MONARCH | enemy {
                found.push(Check::Single {
                    checker: (k + d) as usize,
                    step: 0,
                });
            }
            let mut t = k + d;
            while c[t as usize] == EMPTY {
                t += d;
            }
            let x = at(t);
            let slider = if ORTHOGONAL.contains(&d) {
                Kind::Rook as u8
            } else {
                Kind::Bishop as u8
            };
            if x == slider | enemy || x == QUEEN | enemy {
                found.push(Check::Single {
                    checker: t as usize,
                    step: d,
                });
            }
        }
        match found.as_slice() {
            [one] => *one,
            _ => Check::Double,
        }
    }

    /// The pieces of the side to move pinned to their king: along each
    /// line from the king, an own piece with nothing between, then an
    /// enemy slider of that line.
    fn find_pins(&self, screen: &mut SafetyScreen) {
        let c = &self.cells;
        let mine = color_bit(self.side);
        let enemy = color_bit(self.side.opponent());
        let mask = if H::TAGS { PIECE_MASK | OFF } else { !0 };
        let k = screen.king.index() as isize;
        for &d in &ALL_DIRECTIONS {
            let mut t = k + d;
            while c[t as usize] == EMPTY {
                t += d;
            }
            let x = c[t as usize];
            if x & OFF != 0 || x & BLACK != mine {
                continue;
            }
            let own = t;
            t += d;
            while c[t as usize] == EMPTY {
                t += d;
            }
            let x = c[t as usize] & mask;
            let slider = if ORTHOGONAL.contains(&d) {
                Kind::Rook as u8
            } else {
                Kind::Bishop as u8
            };
            if x == slider | enemy || x == QUEEN | enemy {
                screen.pins[screen.pin_count] = (own as usize, d, t as usize);
                screen.pin_count += 1;
            }
        }
    }

    /// Whether a pseudo-legal move is legal, the quick way where the
    /// screen allows: a move the screen covers is illegal only when it
    /// takes a pinned piece off its line.
    #[inline]
    fn passes(&self, screen: &SafetyScreen, m: Move) -> bool {
        if screen.covers(m) {
            screen.keeps_pin_line(m) && screen.answers_check(m)
        } else if screen.active && m.from == screen.king && m.special == Special::None {
            // A plain king step: legal when its square is not attacked
            // with the king gone from where it stood.
            !self.attacked_through(m.to, self.side.opponent(), Some(m.from))
        } else {
            self.is_legal(m)
        }
    }

    /// How many legal moves the side to move has (perft's last ply).
    pub fn legal_move_count(&self) -> usize {
        let screen = self.safety_screen();
        let mut n = if H::PLAIN_EXPAND && screen.active && screen.check == Check::None {
            self.count_screened_moves(&screen)
        } else {
            let mut pseudo = Vec::with_capacity(64);
            self.pseudo_moves(&mut pseudo);
            pseudo.iter().filter(|&&m| self.passes(&screen, m)).count()
        };
        for i in self.legal_castlings(&screen) {
            if H::PLAIN_EXPAND {
                n += 1;
            } else {
                let mut expanded = Vec::new();
                self.variant
                    .hooks
                    .expand(self, self.castle_move(i), &mut expanded);
                n += expanded.len();
            }
        }
        n
    }

    /// The castlings (numbers in the variant's table) legal now; `screen`
    /// tells whether the king is in check where it knows.
    fn legal_castlings<'a>(&'a self, screen: &SafetyScreen) -> impl Iterator<Item = usize> + 'a {
        let in_check = screen.active.then_some(screen.check != Check::None);
        (0..self.variant.castlings.len()).filter(move |&i| {
            self.variant.castlings[i].color == self.side
                && self.castling & (1 << i) != 0
                && self.castle_refusal_knowing(i, in_check).is_none()
        })
    }

    /// The legal moves, castling aside, counted without listing most of
    /// them: where the screen is active (the king not in check, a plain
    /// make) and every pseudo-legal move is one move (a plain expand), a
    /// knight, bishop, rook, queen or pawn that is not pinned may make each
    /// of its pseudo-legal moves, so those are counted as they are found;
    /// a king step counts where its square is not attacked; pinned pieces
    /// are listed and tested, en passant played out.
    fn count_screened_moves(&self, screen: &SafetyScreen) -> usize {
        let mine = color_bit(self.side);
        let c = &self.cells;
        let v = self.variant;
        let promotions = v.hooks.promotion_kinds().len();
        let mut listed = Vec::new();
        let mut n = 0;
        for &from_sq in &v.squares {
            let code = c[from_sq.index()];
            if code == EMPTY || code & BLACK != mine {
                continue;
            }
            let s = from_sq.index() as isize;
            let pinned = screen.pins[..screen.pin_count]
                .iter()
                .any(|p| p.0 == from_sq.index());
            let free = |t: isize| {
                let x = c[t as usize];
                x == EMPTY || is_enemy(x, mine)
            };
            match Kind::from_code(code) {
                Kind::King if from_sq == screen.king => {
                    // A step is legal where it is not attacked with the
                    // king gone from where it stood.
                    let enemy = self.side.opponent();
                    n += ALL_DIRECTIONS
                        .iter()
                        .filter(|&&d| {
                            free(s + d)
                                && !self.attacked_through(
                                    Square::from_index((s + d) as usize),
                                    enemy,
                                    Some(from_sq),
                                )
                        })
                        .count();
                }
                Kind::Knight if !pinned => {
                    n += KNIGHT_STEPS.iter().filter(|&&d| free(s + d)).count();
                }
                kind @ (Kind::Bishop | Kind::Rook | Kind::Queen) if !pinned => {
                    n += self.count_slides(s, kind, mine);
                }
                Kind::Pawn if !pinned => n += self.count_pawn_moves(from_sq, promotions),
                _ => {
                    listed.clear();
                    self.piece_moves(from_sq, code, &mut listed);
                    n += listed.iter().filter(|&&m| self.passes(screen, m)).count();
                }
            }
        }
        n
    }

    /// The moves of the slider of `kind` on cell `s` (not pinned, no
    /// check): to each empty cell of its rays, and onto the first enemy.
    #[inline(always)]
    fn count_slides(&self, s: isize, kind: Kind, mine: u8) -> usize {
        let c = &self.cells;
        let directions: &[isize] = match kind {
            Kind::Bishop => &DIAGONAL,
            Kind::Rook => &ORTHOGONAL,
            _ => &ALL_DIRECTIONS,
        };
        let mut n = 0;
        for &d in directions {
            let mut t = s + d;
            while c[t as usize] == EMPTY {
                n += 1;
                t += d;
            }
            n += usize::from(is_enemy(c[t as usize], mine));
        }
        n
    }

    /// The moves of the pawn on `from_sq` (not pinned, no check), each
    /// move onto the last rank counted once per promotion kind.
    #[inline(always)]
    fn count_pawn_moves(&self, from_sq: Square, promotions: usize) -> usize {
        let c = &self.cells;
        let v = self.variant;
        let mine = color_bit(self.side);
        let s = from_sq.index() as isize;
        let mut n = 0;
        let (fwd, start, last) = match self.side {
            Color::White => (NORTH, 1, v.geometry.ranks() - 1),
            Color::Black => (-NORTH, v.geometry.ranks() - 2, 0),
        };
        let each = if Square::from_index((s + fwd) as usize).rank() == last {
            promotions
        } else {
            1
        };
        let t = s + fwd;
        if c[t as usize] == EMPTY {
            n += each;
            if from_sq.rank() == start && c[(t + fwd) as usize] == EMPTY {
                n += 1;
            }
        }
        for t in [s + fwd + EAST, s + fwd - EAST] {
            let x = c[t as usize];
            if is_enemy(x, mine) {
                n += each;
            } else if x == EMPTY && self.ep.is_some_and(|e| e.index() == t as usize) {
                let m = Move::new(from_sq, Square::from_index(t as usize), Special::EnPassant);
                n += usize::from(self.is_legal(m));
            }
        }
        n
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut pseudo = Vec::with_capacity(64);
        self.pseudo_moves(&mut pseudo);
        let screen = self.safety_screen();
        pseudo.retain(|&m| self.passes(&screen, m));
        let mut out = pseudo;
        for i in self.legal_castlings(&screen) {
            self.variant
                .hooks
                .expand(self, self.castle_move(i), &mut out);
        }
        out
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut pseudo = Vec::with_capacity(64);
        self.pseudo_moves(&mut pseudo);
        let screen = self.safety_screen();
        if pseudo.into_iter().any(|m| self.passes(&screen, m)) {
            return true;
        }
        // Castling is never the only legal move in chess (its first king
        // step is legal too), but a variant's own test may say otherwise.
        (0..self.variant.castlings.len()).any(|i| {
            let c = &self.variant.castlings[i];
            c.color == self.side
                && self.castling & (1 << i) != 0
                && self.castle_refusal(i).is_none()
        })
    }
}

/// A quick legality test that spares most moves the copy-make: when the
/// variant's make is plain chess, a move of a piece other than the king can
/// expose the king only by leaving the line of a pin (what it vacates opens
/// at most the line from the king through its square; what it takes only
/// opens lines from its destination, which it then occupies); in check, it
/// must also take the one checker or step between it and the king. A plain
/// king step is legal where its square is not attacked with the king gone
/// from where it stood. En passant, which empties a second square, and
/// castling always take the full test.
struct SafetyScreen {
    king: Square,
    active: bool,
    /// What checks the king (when active).
    check: Check,
    /// The pinned pieces (when active): their cell, the direction from the
    /// king, and the pinner's cell.
    pins: [(usize, isize, usize); 8],
    pin_count: usize,
}

impl SafetyScreen {
    /// For a move the screen covers: whether it is legal, that is, its
    /// piece is not pinned, or stays on the line between its king and the
    /// pinner (taking the pinner included).
    #[inline]
    fn keeps_pin_line(&self, m: Move) -> bool {
        let from = m.from.index();
        let Some(&(_, d, pinner)) = self.pins[..self.pin_count].iter().find(|p| p.0 == from) else {
            return true;
        };
        let to = m.to.index() as isize;
        let mut u = self.king.index() as isize + d;
        loop {
            if u == to {
                return true;
            }
            if u == pinner as isize {
                return false;
            }
            u += d;
        }
    }

    /// For a move the screen covers: whether it answers the check, if any
    /// (a single checker taken or, from afar, blocked; against a double
    /// check only the king moves).
    #[inline]
    fn answers_check(&self, m: Move) -> bool {
        match self.check {
            Check::None => true,
            Check::Double => false,
            Check::Single { checker, step } => {
                let to = m.to.index() as isize;
                if to == checker as isize {
                    return true;
                }
                if step == 0 {
                    return false;
                }
                let mut u = self.king.index() as isize + step;
                while u != checker as isize {
                    if u == to {
                        return true;
                    }
                    u += step;
                }
                false
            }
        }
    }

    /// Whether the pin test decides the move; otherwise test it fully.
    #[inline]
    fn covers(&self, m: Move) -> bool {
        self.active
            && m.from != self.king
            && m.special != Special::EnPassant
            && !matches!(m.special, Special::Castle(_))
    }
}

/// What checks a king: nothing, one piece (on cell `checker`; `step` is
/// the direction from the king towards a slider, 0 for a contact check),
/// or two pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    None,
    Single { checker: usize, step: isize },
    Double,
}
