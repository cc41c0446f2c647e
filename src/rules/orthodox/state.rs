//! [`State`]: a position without history (placement, side, castling
//! rights, en passant square, clocks), with move generation, attacks and
//! make. Cheap to copy; perft walks it by copy-make.

use std::fmt;

use super::super::board::{
    Square, ALL_DIRECTIONS, CELLS, DIAGONAL, EAST, KNIGHT_STEPS, NORTH, ORTHOGONAL,
};
use super::super::Color;
use super::hooks::{Hooks, Orthodox};
use super::pieces::{
    color_bit, is_enemy, tag_of, with_tag, Kind, Piece, Tag, BLACK, EMPTY, KIND_MASK, KING, KNIGHT,
    MONARCH, OFF, PAWN, PIECE_MASK, QUEEN,
};
use super::variant::Variant;

/// What is special about a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    None,
    /// A pawn's two-square step (sets the en passant square).
    DoubleStep,
    EnPassant,
    Promotion(Kind),
    /// Castling number `n` of the variant's table (from/to are the king's).
    Castle(u8),
}

/// One move. For castling `from`/`to` are the king's squares. `choice` is a
/// square the mover chose beyond from and to (a variant's extra removal or
/// conversion, see [`Hooks::expand`](super::Hooks::expand)); chess never
/// sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub special: Special,
    pub choice: Option<Square>,
}

impl Move {
    /// A move without a choice square.
    pub fn new(from: Square, to: Square, special: Special) -> Move {
        Move {
            from,
            to,
            special,
            choice: None,
        }
    }

    /// The same move with a choice square.
    pub fn choosing(self, square: Square) -> Move {
        Move {
            choice: Some(square),
            ..self
        }
    }
}

/// A piece a move took, where it stood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capture {
    pub square: Square,
    /// The cell code the piece had (decoded on demand, so that a make
    /// whose hooks ignore captures pays nothing for it).
    code: u8,
}

impl Capture {
    /// The piece taken.
    pub fn piece(self) -> Piece {
        Piece::from_code(self.code).expect("a capture holds a piece")
    }

    /// The variant's mark the piece had.
    pub fn tag(self) -> Tag {
        tag_of(self.code)
    }
}

/// Why a castling is not legal now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastleRefusal {
    /// The right is gone (king or that rook has moved, or the rook was taken).
    NoRight,
    PieceBetween(Square),
    InCheck,
    CrossesAttacked(Square),
    LandsAttacked(Square),
    /// The king would be attacked in the final position (e.g. through a
    /// variant's consequence).
    Exposed,
    /// The variant's own test ([`Hooks::is_legal_after`]) refuses it.
    Forbidden,
}

/// A position without history: placement, side, castling rights, en
/// passant square and clocks. `H` are the variant's hooks (chess's by
/// default); each game's state is its own type, so a hook a game does not
/// use costs nothing.
pub struct State<H: Hooks = Orthodox> {
    pub(crate) variant: &'static Variant<H>,
    pub(crate) cells: [u8; CELLS],
    pub(crate) side: Color,
    pub(crate) castling: u16,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) kings: [Square; 2],
}

impl<H: Hooks> Clone for State<H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H: Hooks> Copy for State<H> {}

impl<H: Hooks> fmt::Debug for State<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "State({})", self.fen())
    }
}

impl<H: Hooks> PartialEq for State<H> {
    fn eq(&self, other: &State<H>) -> bool {
        std::ptr::eq(self.variant, other.variant)
            && self.cells == other.cells
            && self.side == other.side
            && self.castling == other.castling
            && self.ep == other.ep
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
    }
}

impl<H: Hooks> State<H> {
    /// The variant's start position.
    pub fn start(variant: &'static Variant<H>) -> State<H> {
        State::from_fen(variant, variant.start_fen).expect("start FEN is valid")
    }

    pub fn variant(&self) -> &'static Variant<H> {
        self.variant
    }

    pub fn side_to_move(&self) -> Color {
        self.side
    }

    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    pub fn en_passant(&self) -> Option<Square> {
        self.ep
    }

    pub fn king(&self, color: Color) -> Square {
        self.kings[color.index()]
    }

    /// Whether castling number `i` of the variant's table is still allowed
    /// by the rights (not whether it is legal now).
    pub fn has_castling_right(&self, i: usize) -> bool {
        self.castling & (1 << i) != 0
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.cells[sq.index()])
    }

    /// The variant's mark on the piece at `sq` ([`Tag::NONE`] when empty).
    pub fn tag_at(&self, sq: Square) -> Tag {
        tag_of(self.cells[sq.index()])
    }

    /// Every piece with its square, a1 first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.variant
            .squares
            .iter()
            .filter_map(|&sq| Some((sq, self.piece_at(sq)?)))
    }

    /// Put a piece (with a tag) on `sq`, or empty it. Emptying or filling a
    /// castling square clears the castling rights that need it. For hooks
    /// and setup: kings are tracked by [`State::put`] too.
    pub fn put(&mut self, sq: Square, piece: Option<(Piece, Tag)>) {
        self.castling &= !self.variant.rights_mask[sq.index()];
        self.cells[sq.index()] = match piece {
            None => EMPTY,
            Some((p, tag)) => {
                if p.kind == Kind::King {
                    self.kings[p.color.index()] = sq;
                }
                with_tag(p.code(), tag)
            }
        };
    }

    /// Change the kind of the piece on `sq`, keeping its owner, its tag and
    /// every castling right (a variant's conversion, such as a zelig's new
    /// power); nothing when the square is empty. Neither the old nor the
    /// new kind may be a king (kings are tracked; use [`State::put`]).
    pub fn set_kind(&mut self, sq: Square, kind: Kind) {
        let code = self.cells[sq.index()];
        if code != EMPTY {
            debug_assert!(kind != Kind::King && code & KIND_MASK != KING);
            self.cells[sq.index()] = (code & !KIND_MASK) | kind as u8;
        }
    }

    /// Set the mark of the piece on `sq` (nothing when the square is empty).
    pub fn set_tag(&mut self, sq: Square, tag: Tag) {
        let code = self.cells[sq.index()];
        if code != EMPTY {
            self.cells[sq.index()] = with_tag(code, tag);
        }
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.attacked(self.kings[self.side.index()], self.side.opponent())
    }

    /// Whether `sq` is attacked by a piece of `by`.
    #[inline]
    pub fn attacked(&self, sq: Square, by: Color) -> bool {
        self.attacked_through(sq, by, None)
    }

    /// Whether `sq` is attacked by a piece of `by` if the square `vacated`
    /// were empty (where a moving king stood: sliders see through it).
    #[inline]
    fn attacked_through(&self, sq: Square, by: Color, vacated: Option<Square>) -> bool {
        let c = &self.cells;
        // A cell no ray reaches when nothing is vacated.
        let vacated = vacated.map_or(usize::MAX, Square::index);
        let s = sq.index() as isize;
        let bit = color_bit(by);
        // Kind and colour; the tag is masked off only where a variant uses tags.
        let mask = if H::TAGS { PIECE_MASK | OFF } else { !0 };
        let at = |t: isize| c[t as usize] & mask;
        let back = match by {
            Color::White => -NORTH,
            Color::Black => NORTH,
        };
        let pawn = PAWN | bit;
        if at(s + back + EAST) == pawn || at(s + back - EAST) == pawn {
            return true;
        }
        let knight = KNIGHT | bit;
        if KNIGHT_STEPS.iter().any(|&d| at(s + d) == knight) {
            return true;
        }
        // King (6) and monarch (7) differ in bit 0 only: setting it finds
        // either with one comparison (chess has no monarch and pays nothing).
        let stepper = MONARCH | bit;
        if ALL_DIRECTIONS.iter().any(|&d| at(s + d) | 1 == stepper) {
            return true;
        }
        let queen = QUEEN | bit;
        slider_attacks(
            c,
            s,
            &ORTHOGONAL,
            Kind::Rook as u8 | bit,
            queen,
            mask,
            vacated,
        ) || slider_attacks(
            c,
            s,
            &DIAGONAL,
            Kind::Bishop as u8 | bit,
            queen,
            mask,
            vacated,
        )
    }

    /// Pseudo-legal moves of the side to move, castling excluded, each
    /// expanded by the variant's [`Hooks::expand`](super::Hooks::expand).
    pub(crate) fn pseudo_moves(&self, out: &mut Vec<Move>) {
        let mine = color_bit(self.side);
        for &from_sq in &self.variant.squares {
            let code = self.cells[from_sq.index()];
            if code == EMPTY || code & BLACK != mine {
                continue;
            }
            self.piece_moves(from_sq, code, out);
        }
    }

    /// The pseudo-legal moves of the piece `code` (of the side to move) on
    /// `from_sq`, castling excluded, each expanded by the variant.
    #[inline]
    fn piece_moves(&self, from_sq: Square, code: u8, out: &mut Vec<Move>) {
        let mine = color_bit(self.side);
        let c = &self.cells;
        let v = self.variant;
        let hooks = &v.hooks;
        let s = from_sq.index() as isize;
        let mut push = |out: &mut Vec<Move>, t: isize, special| {
            hooks.expand(
                self,
                Move::new(from_sq, Square::from_index(t as usize), special),
                out,
            )
        };
        match Kind::from_code(code) {
            Kind::Pawn => {
                let (fwd, start, last) = match self.side {
                    Color::White => (NORTH, 1, v.geometry.ranks() - 1),
                    Color::Black => (-NORTH, v.geometry.ranks() - 2, 0),
                };
                let add = |out: &mut Vec<Move>, t: isize| {
                    if Square::from_index(t as usize).rank() == last {
                        for &k in hooks.promotion_kinds() {
                            push(out, t, Special::Promotion(k));
                        }
                    } else {
                        push(out, t, Special::None);
                    }
                };
                let t = s + fwd;
                if c[t as usize] == EMPTY {
                    add(out, t);
                    if from_sq.rank() == start && c[(t + fwd) as usize] == EMPTY {
                        hooks.expand(
                            self,
                            Move::new(
                                from_sq,
                                Square::from_index((t + fwd) as usize),
                                Special::DoubleStep,
                            ),
                            out,
                        );
                    }
                }
                for t in [s + fwd + EAST, s + fwd - EAST] {
                    let x = c[t as usize];
                    if is_enemy(x, mine) {
                        add(out, t);
                    } else if x == EMPTY && self.ep.is_some_and(|e| e.index() == t as usize) {
                        hooks.expand(
                            self,
                            Move::new(from_sq, Square::from_index(t as usize), Special::EnPassant),
                            out,
                        );
                    }
                }
            }
            Kind::Knight => self.steps(s, &KNIGHT_STEPS, mine, out, &mut push),
            Kind::King | Kind::Monarch => self.steps(s, &ALL_DIRECTIONS, mine, out, &mut push),
            Kind::Bishop => self.slides(s, &DIAGONAL, mine, out, &mut push),
            Kind::Rook => self.slides(s, &ORTHOGONAL, mine, out, &mut push),
            Kind::Queen => self.slides(s, &ALL_DIRECTIONS, mine, out, &mut push),
        }
    }

    /// One step along each offset onto an empty or enemy cell.
    #[inline]
    fn steps(
        &self,
        s: isize,
        offsets: &[isize],
        mine: u8,
        out: &mut Vec<Move>,
        push: &mut impl FnMut(&mut Vec<Move>, isize, Special),
    ) {
        for &d in offsets {
            let x = self.cells[(s + d) as usize];
            if x == EMPTY || is_enemy(x, mine) {
                push(out, s + d, Special::None);
            }
        }
    }

    /// Slides along each direction up to the first occupied cell, which is
    /// taken when it holds an enemy.
    #[inline]
    fn slides(
        &self,
        s: isize,
        directions: &[isize],
        mine: u8,
        out: &mut Vec<Move>,
        push: &mut impl FnMut(&mut Vec<Move>, isize, Special),
    ) {
        for &d in directions {
            let mut t = s + d;
            loop {
                let x = self.cells[t as usize];
                if x == EMPTY {
                    push(out, t, Special::None);
                    t += d;
                    continue;
                }
                if is_enemy(x, mine) {
                    push(out, t, Special::None);
                }
                break;
            }
        }
    }

    /// Why castling number `i` is not legal now, or `None` if it is.
    pub fn castle_refusal(&self, i: usize) -> Option<CastleRefusal> {
        self.castle_refusal_knowing(i, None)
    }

    /// [`State::castle_refusal`], told whether the king is in check when
    /// that is known already.
    fn castle_refusal_knowing(&self, i: usize, in_check: Option<bool>) -> Option<CastleRefusal> {
        let c = &self.variant.castlings[i];
        if c.color != self.side || self.castling & (1 << i) == 0 {
            return Some(CastleRefusal::NoRight);
        }
        if let Some(&sq) = c
            .must_be_empty
            .iter()
            .find(|sq| self.cells[sq.index()] != EMPTY)
        {
            return Some(CastleRefusal::PieceBetween(sq));
        }
        let enemy = self.side.opponent();
        if in_check.unwrap_or_else(|| self.attacked(c.king_from, enemy)) {
            return Some(CastleRefusal::InCheck);
        }
        let n = c.king_path.len();
        for (j, &sq) in c.king_path.iter().enumerate() {
            if self.attacked(sq, enemy) {
                return Some(if j + 1 == n {
                    CastleRefusal::LandsAttacked(sq)
                } else {
                    CastleRefusal::CrossesAttacked(sq)
                });
            }
        }
        if H::PLAIN_MAKE && c.sheltered {
            return None;
        }
        let m = self.castle_move(i);
        let after = self.after(m);
        if after.attacked(after.kings[self.side.index()], after.side) {
            return Some(CastleRefusal::Exposed);
        }
        if !self.variant.hooks.is_legal_after(&after, m) {
            return Some(CastleRefusal::Forbidden);
        }
        None
    }

    /// Castling number `i` as a move.
    pub(crate) fn castle_move(&self, i: usize) -> Move {
        let c = &self.variant.castlings[i];
        Move::new(c.king_from, c.king_to, Special::Castle(i as u8))
    }

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
                    let directions: &[isize] = match kind {
                        Kind::Bishop => &DIAGONAL,
                        Kind::Rook => &ORTHOGONAL,
                        _ => &ALL_DIRECTIONS,
                    };
                    for &d in directions {
                        let mut t = s + d;
                        while c[t as usize] == EMPTY {
                            n += 1;
                            t += d;
                        }
                        n += usize::from(is_enemy(c[t as usize], mine));
                    }
                }
                Kind::Pawn if !pinned => {
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
                            let m = Move::new(
                                from_sq,
                                Square::from_index(t as usize),
                                Special::EnPassant,
                            );
                            n += usize::from(self.is_legal(m));
                        }
                    }
                }
                _ => {
                    listed.clear();
                    self.piece_moves(from_sq, code, &mut listed);
                    n += listed.iter().filter(|&&m| self.passes(screen, m)).count();
                }
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

    /// Apply a legal move (not checked).
    #[inline]
    pub fn make(&mut self, m: Move) {
        self.make_reporting(m, None);
    }

    /// Apply a legal move, appending the variant's sentences about its
    /// automatic consequences to `events` when given.
    #[inline(always)]
    pub fn make_reporting(&mut self, m: Move, events: Option<&mut Vec<String>>) {
        let v = self.variant;
        let from = m.from.index();
        let to = m.to.index();
        let piece = self.cells[from];
        let mut taken = None;
        self.ep = None;
        match m.special {
            Special::Castle(i) => {
                let c = &v.castlings[i as usize];
                let king = self.cells[c.king_from.index()];
                let rook = self.cells[c.rook_from.index()];
                self.castling &=
                    !(v.rights_mask[c.king_from.index()] | v.rights_mask[c.rook_from.index()]);
                self.cells[c.king_from.index()] = EMPTY;
                self.cells[c.rook_from.index()] = EMPTY;
                self.cells[c.king_to.index()] = king;
                self.cells[c.rook_to.index()] = rook;
                self.kings[self.side.index()] = c.king_to;
            }
            special => {
                // Every square this move empties or enters loses the
                // castling rights that need it.
                let mut lost = v.rights_mask[from] | v.rights_mask[to];
                let mut captured_at = to;
                match special {
                    Special::DoubleStep => {
                        self.ep = Some(Square::from_index((from + to) / 2));
                    }
                    Special::EnPassant => {
                        captured_at = match self.side {
                            Color::White => to - NORTH as usize,
                            Color::Black => to + NORTH as usize,
                        };
                        lost |= v.rights_mask[captured_at];
                    }
                    _ => {}
                }
                let captured = self.cells[captured_at];
                if captured != EMPTY {
                    taken = Some(Capture {
                        square: Square::from_index(captured_at),
                        code: captured,
                    });
                }
                self.castling &= !lost;
                self.cells[captured_at] = EMPTY;
                self.cells[from] = EMPTY;
                self.cells[to] = match special {
                    Special::Promotion(k) => {
                        with_tag(k as u8 | color_bit(self.side), tag_of(piece))
                    }
                    _ => piece,
                };
                if piece & KIND_MASK == KING {
                    self.kings[self.side.index()] = m.to;
                }
            }
        }
        self.halfmove = if piece & KIND_MASK == PAWN || taken.is_some() {
            0
        } else {
            self.halfmove + 1
        };
        if self.side == Color::Black {
            self.fullmove += 1;
        }
        self.side = self.side.opponent();
        v.hooks.after_make(self, m, taken, events);
    }

    /// The position after a legal move.
    pub fn after(&self, m: Move) -> State<H> {
        let mut s = *self;
        s.make(m);
        s
    }

    /// Whether a move takes something (en passant included).
    pub fn is_capture(&self, m: Move) -> bool {
        m.special == Special::EnPassant
            || (!matches!(m.special, Special::Castle(_)) && self.cells[m.to.index()] != EMPTY)
    }

    /// The kind of the piece on a square a move starts from.
    pub(crate) fn kind_on(&self, sq: Square) -> Option<Kind> {
        self.piece_at(sq).map(|p| p.kind)
    }

    /// Whether `sq` is empty (off-board cells are never empty).
    pub(crate) fn is_empty(&self, sq: Square) -> bool {
        self.cells[sq.index()] == EMPTY
    }

    /// Coordinate (UCI) form: `e2e4`, `e7e8q`; castling as the king's
    /// move; a variant's choice square after a slash (`e4d5/c7`).
    pub fn uci(&self, m: Move) -> String {
        let mut s = format!("{}{}", m.from, m.to);
        if let Special::Promotion(k) = m.special {
            s.push(self.variant.hooks.letter(k).to_ascii_lowercase());
        }
        if let Some(sq) = m.choice {
            s.push('/');
            s.push_str(&sq.to_string());
        }
        s
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

/// Whether a slider of kind `piece` or `queen` (codes with colour) attacks
/// square `s` along one of `directions` (the first occupied cell on each
/// ray decides, the cell `vacated` counting as empty; `mask` takes the tag
/// off its code).
#[inline]
fn slider_attacks(
    cells: &[u8],
    s: isize,
    directions: &[isize],
    piece: u8,
    queen: u8,
    mask: u8,
    vacated: usize,
) -> bool {
    directions.iter().any(|&d| {
        let mut t = s + d;
        loop {
            match cells[t as usize] {
                EMPTY => t += d,
                _ if t as usize == vacated => t += d,
                x => {
                    let x = x & mask;
                    return x == piece || x == queen;
                }
            }
        }
    })
}
