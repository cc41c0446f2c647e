//! The two boards, the turn actions, and the moves the rules allow: main
//! and shadow targets, attacks, castling, listing and counting actions.
//! What a turn does is in `shadow::turn`. The rulings are in the
//! [module docs](super).

use super::super::orthodox::Kind;
use super::super::{Color, Ending, Outcome};
use super::units::{slot, Counts, Sq, Unit, ORDER};

/// The shadow part of a main move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShadowPart {
    /// No shadow piece of the class can move (or castling).
    None,
    /// One shadow piece of the class moves, as on an empty board.
    Move { from: Sq, to: Sq },
    /// Promotion: this shadow pawn is removed (a shadow piece of the new
    /// kind appears on the promotion square).
    RemovePawn(Sq),
}

/// One turn action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A unit moves by the pattern of its component `class`.
    Main {
        from: Sq,
        to: Sq,
        class: Kind,
        promotion: Option<Kind>,
        shadow: ShadowPart,
    },
    /// Castling: `kingside` or queenside; main board only.
    Castle { kingside: bool },
    /// The pending decision: reveal the shadow piece on this square.
    Reveal(Sq),
}

/// A taken piece waiting for its reveal: whose it was (they choose), its
/// kind, and where it was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pending {
    pub owner: Color,
    pub kind: Kind,
    pub taken_on: Sq,
}

/// The castling rights as bits: White O-O, White O-O-O, Black O-O, Black O-O-O.
pub const CASTLE_LETTERS: [char; 4] = ['K', 'Q', 'k', 'q'];

/// Both boards and everything the next turn needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub(crate) main: [Option<Unit>; 64],
    /// Shadow stacks: `[square][colour][kind slot]` counts.
    pub(crate) shadow: [[Counts; 2]; 64],
    /// The next main mover.
    pub(crate) side: Color,
    pub(crate) castling: u8,
    pub(crate) ep: Option<Sq>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    /// Taken pieces waiting for their reveal, first in first out.
    pub(crate) pending: Vec<Pending>,
}

const KING_STEPS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];
const KNIGHT_LEAPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (-1, 2),
    (-2, 1),
    (1, -2),
    (2, -1),
    (-1, -2),
    (-2, -1),
];
const ROOK_LINES: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_LINES: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// The steps or lines of a non-pawn kind, and whether it slides.
fn pattern(kind: Kind) -> (&'static [(i8, i8)], bool) {
    match kind {
        Kind::King | Kind::Monarch => (&KING_STEPS, false),
        Kind::Queen => (&KING_STEPS, true),
        Kind::Rook => (&ROOK_LINES, true),
        Kind::Bishop => (&BISHOP_LINES, true),
        Kind::Knight => (&KNIGHT_LEAPS, false),
        Kind::Pawn => (&[], false),
    }
}

/// White's forward is up the ranks.
pub(crate) fn forward(color: Color) -> i8 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// The rank pawns start on (their second rank) and the last rank.
pub(crate) fn pawn_ranks(color: Color) -> (i8, i8) {
    match color {
        Color::White => (1, 7),
        Color::Black => (6, 0),
    }
}

/// The castling right bit of a side and wing.
pub(super) fn right_bit(color: Color, kingside: bool) -> u8 {
    1 << (color.index() * 2 + usize::from(!kingside))
}

/// King from/to and rook from/to squares of a castling.
pub(crate) fn castle_squares(color: Color, kingside: bool) -> (Sq, Sq, Sq, Sq) {
    let r = match color {
        Color::White => 0,
        Color::Black => 7,
    };
    let s = |f| Sq::at(f, r).expect("on board");
    if kingside {
        (s(4), s(6), s(7), s(5))
    } else {
        (s(4), s(2), s(0), s(3))
    }
}

impl State {
    pub fn unit(&self, sq: Sq) -> Option<Unit> {
        self.main[sq.index()]
    }

    /// How many shadow pieces of `color` and `kind` stand on `sq`.
    pub fn shadows(&self, sq: Sq, color: Color, kind: Kind) -> u8 {
        self.shadow[sq.index()][color.index()][slot(kind)]
    }

    pub fn side(&self) -> Color {
        self.side
    }

    pub fn pending(&self) -> &[Pending] {
        &self.pending
    }

    /// Who acts next: the chooser of a pending reveal, else the main mover.
    pub fn to_act(&self) -> Color {
        self.pending.first().map_or(self.side, |p| p.owner)
    }

    /// The squares holding shadow pieces of `owner` and `kind`: the reveal
    /// candidates.
    pub fn reveal_candidates(&self, owner: Color, kind: Kind) -> Vec<Sq> {
        Sq::all()
            .filter(|&sq| self.shadows(sq, owner, kind) > 0)
            .collect()
    }

    /// Whether `color` still has a king, on the main board (alone or in a
    /// chimera) or in shadow.
    pub fn has_king(&self, color: Color) -> bool {
        Sq::all().any(|sq| {
            self.unit(sq)
                .is_some_and(|u| u.color == color && u.has(Kind::King))
                || self.shadows(sq, color, Kind::King) > 0
        })
    }

    /// The game's own end: judged once no reveal is pending.
    pub fn kings_outcome(&self) -> Outcome {
        if !self.pending.is_empty() {
            return Outcome::Ongoing;
        }
        match (self.has_king(Color::White), self.has_king(Color::Black)) {
            (true, true) => Outcome::Ongoing,
            (false, false) => Outcome::Drawn {
                ending: Ending::KingsCaptured,
            },
            (true, false) => Outcome::Won {
                winner: Color::White,
                ending: Ending::KingsCaptured,
            },
            (false, true) => Outcome::Won {
                winner: Color::Black,
                ending: Ending::KingsCaptured,
            },
        }
    }

    // ------------------------------------------------------------ movement

    /// Where a unit of `color` on `from` may go by the pattern of `class`
    /// on the main board: `(to, en passant)`. Units block; enemy units are
    /// taken whole; own units are never entered.
    pub(crate) fn main_targets(&self, from: Sq, class: Kind, color: Color) -> Vec<(Sq, bool)> {
        let mut out = Vec::new();
        self.each_main_target(from, class, color, |to, ep| out.push((to, ep)));
        out
    }

    /// [`State::main_targets`] handed to `out` one by one (counting needs
    /// no list).
    fn each_main_target(&self, from: Sq, class: Kind, color: Color, mut out: impl FnMut(Sq, bool)) {
        let free_or_enemy = |sq: Sq| self.unit(sq).is_none_or(|u| u.color != color);
        if class == Kind::Pawn {
            let f = forward(color);
            let (start, _) = pawn_ranks(color);
            if let Some(one) = from.step(0, f) {
                if self.unit(one).is_none() {
                    out(one, false);
                    if from.rank() == start {
                        if let Some(two) = one.step(0, f) {
                            if self.unit(two).is_none() {
                                out(two, false);
                            }
                        }
                    }
                }
            }
            for df in [-1, 1] {
                if let Some(t) = from.step(df, f) {
                    match self.unit(t) {
                        Some(u) if u.color != color => out(t, false),
                        None if self.ep == Some(t) => out(t, true),
                        _ => {}
                    }
                }
            }
            return;
        }
        let (steps, slides) = pattern(class);
        for &(df, dr) in steps {
            let mut at = from;
            while let Some(t) = at.step(df, dr) {
                if free_or_enemy(t) {
                    out(t, false);
                }
                if !slides || self.unit(t).is_some() {
                    break;
                }
                at = t;
            }
        }
    }

    /// Whether any pattern of any unit of `by` attacks `target`.
    pub fn attacked(&self, target: Sq, by: Color) -> bool {
        Sq::all().any(|from| {
            let Some(u) = self.unit(from) else {
                return false;
            };
            u.color == by && u.classes().any(|class| self.hits(from, class, by, target))
        })
    }

    /// Whether a unit of `color` on `from` attacks `target` by `class`.
    fn hits(&self, from: Sq, class: Kind, color: Color, target: Sq) -> bool {
        if class == Kind::Pawn {
            return [-1, 1]
                .into_iter()
                .any(|df| from.step(df, forward(color)) == Some(target));
        }
        let (steps, slides) = pattern(class);
        steps.iter().any(|&(df, dr)| {
            let mut at = from;
            while let Some(t) = at.step(df, dr) {
                if t == target {
                    return true;
                }
                if !slides || self.unit(t).is_some() {
                    return false;
                }
                at = t;
            }
            false
        })
    }

    /// Where a shadow piece of `kind` and `color` on `from` may go, as on
    /// an empty board (pawns: straight forward, two from their second rank,
    /// never onto the last rank).
    pub(crate) fn shadow_targets(from: Sq, kind: Kind, color: Color) -> Vec<Sq> {
        let mut out = Vec::new();
        State::each_shadow_target(from, kind, color, |to| out.push(to));
        out
    }

    /// [`State::shadow_targets`] handed to `out` one by one.
    fn each_shadow_target(from: Sq, kind: Kind, color: Color, mut out: impl FnMut(Sq)) {
        if kind == Kind::Pawn {
            let f = forward(color);
            let (start, last) = pawn_ranks(color);
            for n in 1..=(if from.rank() == start { 2 } else { 1 }) {
                if let Some(t) = from.step(0, f * n).filter(|t| t.rank() != last) {
                    out(t);
                }
            }
            return;
        }
        let (steps, slides) = pattern(kind);
        for &(df, dr) in steps {
            let mut at = from;
            while let Some(t) = at.step(df, dr) {
                out(t);
                if !slides {
                    break;
                }
                at = t;
            }
        }
    }

    /// The shadow parts that may follow a main move of `class` by `color`
    /// (promotion: the shadow pawns that may be removed).
    pub(crate) fn shadow_parts(
        &self,
        class: Kind,
        color: Color,
        promotes: bool,
    ) -> Vec<ShadowPart> {
        let mut out = Vec::new();
        if promotes {
            for sq in self.reveal_candidates(color, Kind::Pawn) {
                out.push(ShadowPart::RemovePawn(sq));
            }
        } else {
            for from in self.reveal_candidates(color, class) {
                for to in State::shadow_targets(from, class, color) {
                    out.push(ShadowPart::Move { from, to });
                }
            }
        }
        if out.is_empty() {
            out.push(ShadowPart::None);
        }
        out
    }

    /// How many shadow parts may follow a main move of `class` by `color`:
    /// the length of [`State::shadow_parts`], counted without listing.
    fn shadow_part_count(&self, class: Kind, color: Color, promotes: bool) -> u64 {
        let mut n = 0;
        for from in Sq::all() {
            if promotes {
                n += u64::from(self.shadows(from, color, Kind::Pawn) > 0);
            } else if self.shadows(from, color, class) > 0 {
                State::each_shadow_target(from, class, color, |_| n += 1);
            }
        }
        n.max(1)
    }

    /// Whether the main mover has any action (no pending decision).
    pub fn has_main_action(&self) -> bool {
        let color = self.side;
        Sq::all().any(|from| {
            self.unit(from).is_some_and(|u| {
                u.color == color
                    && u.classes()
                        .any(|class| !self.main_targets(from, class, color).is_empty())
            })
        })
    }

    /// Whether castling on this wing is legal now.
    pub fn can_castle(&self, kingside: bool) -> bool {
        let color = self.side;
        if self.castling & right_bit(color, kingside) == 0 {
            return false;
        }
        let (k_from, k_to, r_from, _) = castle_squares(color, kingside);
        let pure = |sq: Sq, kind| self.unit(sq) == Some(Unit::piece(color, kind));
        if !pure(k_from, Kind::King) || !pure(r_from, Kind::Rook) {
            return false;
        }
        let (lo, hi) = if r_from.file() < k_from.file() {
            (r_from.file() + 1, k_from.file())
        } else {
            (k_from.file() + 1, r_from.file())
        };
        if (lo..hi).any(|f| {
            self.unit(Sq::at(f, k_from.rank()).expect("on board"))
                .is_some()
        }) {
            return false;
        }
        let step = if kingside { 1 } else { -1 };
        let enemy = color.opponent();
        let mut at = k_from;
        loop {
            if self.attacked(at, enemy) {
                return false;
            }
            if at == k_to {
                return true;
            }
            at = at.step(step, 0).expect("on board");
        }
    }

    /// Every legal action: the reveal choices while one is pending, else
    /// the main moves with their shadow parts, and castling. Empty once a
    /// side has lost its kings.
    pub fn actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        if let Some(head) = self.pending.first() {
            for sq in self.reveal_candidates(head.owner, head.kind) {
                out.push(Action::Reveal(sq));
            }
            return out;
        }
        if self.kings_outcome().is_over() {
            return out;
        }
        let color = self.side;
        let (_, last) = pawn_ranks(color);
        // The shadow parts depend only on the class (and on promoting).
        let mut parts_of: [Option<Vec<ShadowPart>>; 7] = Default::default();
        for from in Sq::all() {
            let Some(unit) = self.unit(from).filter(|u| u.color == color) else {
                continue;
            };
            for class in unit.classes() {
                for (to, _) in self.main_targets(from, class, color) {
                    let promotes = class == Kind::Pawn && to.rank() == last;
                    let key = if promotes { 6 } else { slot(class) };
                    let parts = parts_of[key]
                        .get_or_insert_with(|| self.shadow_parts(class, color, promotes))
                        .clone();
                    let promotions: &[Option<Kind>] = if promotes {
                        &[
                            Some(Kind::Queen),
                            Some(Kind::Rook),
                            Some(Kind::Bishop),
                            Some(Kind::Knight),
                        ]
                    } else {
                        &[None]
                    };
                    for &promotion in promotions {
                        for &shadow in &parts {
                            out.push(Action::Main {
                                from,
                                to,
                                class,
                                promotion,
                                shadow,
                            });
                        }
                    }
                }
            }
        }
        for kingside in [true, false] {
            if self.can_castle(kingside) {
                out.push(Action::Castle { kingside });
            }
        }
        out
    }

    /// How many legal actions there are: [`State::actions`] counted, not
    /// listed (a main move's count is its shadow parts times its
    /// promotions; perft counts its last ply with it).
    pub fn action_count(&self) -> u64 {
        if let Some(head) = self.pending.first() {
            return self.reveal_candidates(head.owner, head.kind).len() as u64;
        }
        if self.kings_outcome().is_over() {
            return 0;
        }
        let color = self.side;
        let (_, last) = pawn_ranks(color);
        let mut parts_of: [Option<u64>; 7] = Default::default();
        let mut n = 0;
        for from in Sq::all() {
            let Some(unit) = self.unit(from).filter(|u| u.color == color) else {
                continue;
            };
            for class in unit.classes() {
                self.each_main_target(from, class, color, |to, _| {
                    let promotes = class == Kind::Pawn && to.rank() == last;
                    let key = if promotes { 6 } else { slot(class) };
                    let parts = *parts_of[key]
                        .get_or_insert_with(|| self.shadow_part_count(class, color, promotes));
                    n += if promotes { 4 * parts } else { parts };
                });
            }
        }
        n + [true, false]
            .into_iter()
            .filter(|&kingside| self.can_castle(kingside))
            .count() as u64
    }

    /// How many legal two-action sequences there are (perft(2)).
    ///
    /// A main move that takes nothing leaves the opponent the same actions
    /// whichever shadow part comes with it: the opponent's actions depend
    /// on the main board, the opponent's own shadows, the castling rights
    /// and the en passant square, and a shadow part moves (or, promoting,
    /// turns) only the mover's shadows, never their last shadow king; with
    /// nothing taken there is no reveal through which the mover's shadows
    /// could matter. So such a move's answers are counted once and
    /// multiplied by its shadow parts; a move that takes (and castling, and
    /// a reveal) is played out part by part. The tests check the count
    /// against playing every action out.
    pub fn pair_count(&self) -> u64 {
        let actions = self.actions();
        let mut n = 0;
        let mut rest = actions.as_slice();
        while let Some(first) = rest.first() {
            let same_main = match *first {
                Action::Main {
                    from,
                    to,
                    class,
                    promotion,
                    ..
                } if !self.takes(to, class) => rest
                    .iter()
                    .take_while(|a| {
                        matches!(a, Action::Main { from: f, to: t, class: c, promotion: p, .. }
                            if (*f, *t, *c, *p) == (from, to, class, promotion))
                    })
                    .count(),
                _ => 1,
            };
            n += same_main as u64 * self.after_action(first).action_count();
            rest = &rest[same_main..];
        }
        n
    }

    /// Whether a main move of `class` to `to` takes a unit (en passant too).
    fn takes(&self, to: Sq, class: Kind) -> bool {
        self.unit(to).is_some() || (class == Kind::Pawn && self.ep == Some(to))
    }

    /// The position after a legal action.
    fn after_action(&self, action: &Action) -> State {
        let mut next = self.clone();
        next.apply(*action, None);
        next
    }

    /// The kinds, in [`ORDER`], of a colour's shadow stack on `sq`.
    pub(crate) fn stack(&self, sq: Sq, color: Color) -> impl Iterator<Item = Kind> + '_ {
        ORDER
            .into_iter()
            .flat_map(move |k| std::iter::repeat_n(k, self.shadows(sq, color, k) as usize))
    }
}
