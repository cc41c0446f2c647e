//! The field: 64 cells of active pieces, each player's warp, the reserves,
//! side, phase and clock, in one small `Copy` value (the engine is cloned
//! at every perft node), with the Raumschach geometry as tables and the
//! attack tests the legality rules need.
//!
//! Cells are indexed as [`Cube::index`] numbers them (`Aa1` = 0, `Aa2` =
//! 1, … `Dd4` = 63), which is also the order position texts list them in.

use std::sync::LazyLock;

use super::super::cube::{self, Cell, Cube};
use super::super::Color;
use super::pieces::{Kind, Piece, Reserve};
use super::warps::{Warp, WarpKind};

/// The 4×4×4 field.
pub const CUBE: Cube = Cube::TEMPORAL;
/// Number of cells.
pub const CELLS: usize = 64;

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The kings are being placed (White, then Black).
    Place,
    Play,
    /// Won by capturing an enemy original (a paradox).
    Won(Color),
}

/// A Temporal Chess position without history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// The active piece on each cell, by cell index.
    pub(super) board: [Option<Piece>; CELLS],
    /// Each player's warp (a vanished piece or a countered original),
    /// by [`Color::index`].
    pub(super) warps: [Option<Warp>; 2],
    pub(super) reserves: [Reserve; 2],
    pub(super) side: Color,
    pub(super) phase: Phase,
    /// Plies since the last capture or drop.
    pub(super) clock: u32,
}

/// Where a side's royal king is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Royal {
    Active(u8),
    /// Vanished on this cell: it cannot be in check.
    Vanished(u8),
    /// Not placed yet.
    Missing,
}

impl State {
    /// The start: an empty field, full reserves, White to place its king.
    pub fn start() -> State {
        State {
            board: [None; CELLS],
            warps: [None; 2],
            reserves: [Reserve::FULL; 2],
            side: Color::White,
            phase: Phase::Place,
            clock: 0,
        }
    }

    pub fn side(&self) -> Color {
        self.side
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn clock(&self) -> u32 {
        self.clock
    }

    pub fn reserve(&self, color: Color) -> Reserve {
        self.reserves[color.index()]
    }

    pub fn warp(&self, color: Color) -> Option<Warp> {
        self.warps[color.index()]
    }

    /// The active piece on a cell.
    pub fn at(&self, cell: Cell) -> Option<Piece> {
        self.board[index(cell) as usize]
    }

    /// The active pieces with their cells, in cell order.
    pub fn pieces(&self) -> impl Iterator<Item = (Cell, Piece)> + '_ {
        (0..CELLS as u8).filter_map(|i| self.board[i as usize].map(|p| (cell(i), p)))
    }

    /// The piece a warp stands for: the vanished piece, or the original
    /// on its cell.
    pub fn warp_piece(&self, color: Color) -> Option<(Warp, Piece)> {
        let w = self.warp(color)?;
        let kind = match w.kind {
            WarpKind::Vanished(kind) => kind,
            WarpKind::Original => self.board[w.cell as usize]?.kind,
        };
        Some((w, Piece::new(color, kind)))
    }

    /// The cell of `color`'s countered original, if it has one.
    pub(super) fn original(&self, color: Color) -> Option<u8> {
        match self.warps[color.index()] {
            Some(Warp {
                kind: WarpKind::Original,
                cell,
                ..
            }) => Some(cell),
            _ => None,
        }
    }

    /// Where `color`'s royal king is: the vanished king, or the active king
    /// that is not a countered original (with a cloned king, the duplicate).
    pub fn royal(&self, color: Color) -> Royal {
        if let Some(w) = self.warps[color.index()] {
            if w.kind == WarpKind::Vanished(Kind::King) {
                return Royal::Vanished(w.cell);
            }
        }
        let original = self.original(color);
        let king = Some(Piece::new(color, Kind::King));
        (0..CELLS as u8)
            .find(|&i| self.board[i as usize] == king && Some(i) != original)
            .map_or(Royal::Missing, Royal::Active)
    }

    /// Whether `color`'s enemy has a vanished piece on `cell` that
    /// reappears at the end of the enemy's next turn (exactly 1 counter).
    pub(super) fn ripe_enemy_warp(&self, cell: u8, color: Color) -> bool {
        matches!(
            self.warps[color.opponent().index()],
            Some(Warp { kind: WarpKind::Vanished(_), cell: c, counters: 1 }) if c == cell
        )
    }

    /// Whether a royal king of `color` on `cell` would be attacked: an
    /// enemy active piece attacks it, or an enemy vanished piece with 1
    /// counter left stands there.
    pub(super) fn dangerous(&self, cell: u8, color: Color) -> bool {
        self.ripe_enemy_warp(cell, color) || self.attacker(cell, color.opponent()).is_some()
    }

    /// Whether `color`'s active royal king is attacked (a vanished king
    /// cannot be in check).
    pub fn in_check(&self, color: Color) -> bool {
        match self.royal(color) {
            Royal::Active(i) => self.dangerous(i, color),
            _ => false,
        }
    }

    /// For mate: whether the royal king is attacked, or for a vanished
    /// king, whether its reappearance cell is.
    pub fn threatened(&self, color: Color) -> bool {
        match self.royal(color) {
            Royal::Active(i) | Royal::Vanished(i) => self.dangerous(i, color),
            Royal::Missing => false,
        }
    }

    /// The cell of some active piece of `by` that attacks `target`.
    pub(super) fn attacker(&self, target: u8, by: Color) -> Option<u8> {
        let g = geometry();
        let t = target as usize;
        for dir in 0..26 {
            let ray = &g.rays[t][dir][..g.ray_len[t][dir] as usize];
            for (step, &c) in ray.iter().enumerate() {
                if let Some(p) = self.board[c as usize] {
                    if p.color == by && (slides(p.kind, dir) || (p.kind == Kind::King && step == 0))
                    {
                        return Some(c);
                    }
                    break;
                }
            }
        }
        let knight = Some(Piece::new(by, Kind::Knight));
        g.leaps[t][..g.leap_len[t] as usize]
            .iter()
            .copied()
            .find(|&c| self.board[c as usize] == knight)
    }

    /// Whether a piece of `kind` on `from` attacks `to` (active pieces
    /// between block).
    pub(super) fn attacks(&self, from: u8, kind: Kind, to: u8) -> bool {
        let g = geometry();
        let (f, t) = (from as usize, to as usize);
        if kind == Kind::Knight {
            return g.leap_mask[f] & (1 << t) != 0;
        }
        let line = g.line[f][t];
        if line == NO_LINE {
            return false;
        }
        let (dir, dist) = ((line / 4) as usize, line % 4);
        if kind == Kind::King {
            return dist == 1;
        }
        slides(kind, dir)
            && g.rays[f][dir][..dist as usize - 1]
                .iter()
                .all(|&c| self.board[c as usize].is_none())
    }

    /// The cells a piece of `kind` on `from`, owned by `color`, can move
    /// to: empty cells and enemy pieces, active pieces blocking.
    pub(super) fn targets(&self, from: u8, kind: Kind, color: Color, out: &mut Vec<u8>) {
        let g = geometry();
        let f = from as usize;
        let mut take = |c: u8| match self.board[c as usize] {
            Some(p) if p.color == color => false,
            Some(_) => {
                out.push(c);
                false
            }
            None => {
                out.push(c);
                true
            }
        };
        match kind {
            Kind::Knight => {
                for &c in &g.leaps[f][..g.leap_len[f] as usize] {
                    take(c);
                }
            }
            Kind::King => {
                for dir in 0..26 {
                    if g.ray_len[f][dir] > 0 {
                        take(g.rays[f][dir][0]);
                    }
                }
            }
            _ => {
                for dir in 0..26 {
                    if !slides(kind, dir) {
                        continue;
                    }
                    for &c in &g.rays[f][dir][..g.ray_len[f][dir] as usize] {
                        if !take(c) {
                            break;
                        }
                    }
                }
            }
        }
    }

    /// The vacant cells (no active piece) from which a piece of `kind`
    /// would attack `target`, as a bit mask over cell indices.
    pub(super) fn attack_mask(&self, target: u8, kind: Kind) -> u64 {
        let g = geometry();
        let t = target as usize;
        let mut mask = 0u64;
        match kind {
            Kind::Knight => {
                for &c in &g.leaps[t][..g.leap_len[t] as usize] {
                    if self.board[c as usize].is_none() {
                        mask |= 1 << c;
                    }
                }
            }
            _ => {
                for dir in 0..26 {
                    let king = kind == Kind::King;
                    if !king && !slides(kind, dir) {
                        continue;
                    }
                    for &c in &g.rays[t][dir][..g.ray_len[t][dir] as usize] {
                        if self.board[c as usize].is_some() {
                            break;
                        }
                        mask |= 1 << c;
                        if king {
                            break;
                        }
                    }
                }
            }
        }
        mask
    }
}

/// The cell with this index (0..64).
pub fn cell(index: u8) -> Cell {
    geometry().cells[index as usize & 63]
}

/// A cell's index.
pub fn index(cell: Cell) -> u8 {
    CUBE.index(cell) as u8
}

/// Whether two cells touch.
pub fn adjacent(a: u8, b: u8) -> bool {
    CUBE.adjacent(cell(a), cell(b))
}

/// Whether `kind` slides along direction `dir` (rook 0–5, bishop 6–17,
/// unicorn 18–25, as [`cube::all_directions`] orders them).
fn slides(kind: Kind, dir: usize) -> bool {
    match kind {
        Kind::Queen => true,
        Kind::Rook => dir < 6,
        Kind::Bishop => (6..18).contains(&dir),
        Kind::Unicorn => dir >= 18,
        Kind::King | Kind::Knight => false,
    }
}

const NO_LINE: u8 = u8::MAX;

/// The Raumschach lines as lookup tables.
struct Geometry {
    cells: [Cell; CELLS],
    /// Cells along each of the 26 directions from each cell, nearest first.
    rays: [[[u8; 3]; 26]; CELLS],
    ray_len: [[u8; 26]; CELLS],
    leaps: [[u8; 24]; CELLS],
    leap_len: [u8; CELLS],
    leap_mask: [u64; CELLS],
    /// `line[from][to]`: direction × 4 + distance, or [`NO_LINE`].
    line: [[u8; CELLS]; CELLS],
}

fn geometry() -> &'static Geometry {
    static GEOMETRY: LazyLock<Box<Geometry>> = LazyLock::new(|| {
        let first = CUBE.from_index(0).expect("a cell");
        let mut g = Box::new(Geometry {
            cells: [first; CELLS],
            rays: [[[0; 3]; 26]; CELLS],
            ray_len: [[0; 26]; CELLS],
            leaps: [[0; 24]; CELLS],
            leap_len: [0; CELLS],
            leap_mask: [0; CELLS],
            line: [[NO_LINE; CELLS]; CELLS],
        });
        let directions: Vec<cube::Offset> = cube::all_directions().collect();
        for c in CUBE.cells() {
            let i = CUBE.index(c);
            g.cells[i] = c;
            for (dir, &d) in directions.iter().enumerate() {
                for (k, to) in CUBE.ray(c, d).enumerate() {
                    let t = CUBE.index(to);
                    g.rays[i][dir][k] = t as u8;
                    g.ray_len[i][dir] = k as u8 + 1;
                    g.line[i][t] = (dir * 4 + k + 1) as u8;
                }
            }
            for d in cube::knight_leaps() {
                if let Some(to) = CUBE.step(c, d) {
                    let t = CUBE.index(to);
                    g.leaps[i][g.leap_len[i] as usize] = t as u8;
                    g.leap_len[i] += 1;
                    g.leap_mask[i] |= 1 << t;
                }
            }
        }
        g
    });
    &GEOMETRY
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lone(kind: Kind) -> usize {
        let mut out = Vec::new();
        for i in 0..CELLS as u8 {
            let mut s = State::start();
            s.board[i as usize] = Some(Piece::new(Color::White, kind));
            s.targets(i, kind, Color::White, &mut out);
        }
        out.len()
    }

    #[test]
    fn lone_piece_sums_match_rules_md() {
        assert_eq!(lone(Kind::Rook), 576);
        assert_eq!(lone(Kind::Bishop), 672);
        assert_eq!(lone(Kind::Unicorn), 288);
        assert_eq!(lone(Kind::Queen), 1536);
        assert_eq!(lone(Kind::King), 936);
        assert_eq!(lone(Kind::Knight), 576);
    }

    #[test]
    fn attacks_agree_with_targets_and_masks() {
        // A few blockers, then every kind from every cell.
        let mut s = State::start();
        for (i, k) in [(21u8, Kind::Rook), (42, Kind::Knight), (5, Kind::Bishop)] {
            s.board[i as usize] = Some(Piece::new(Color::Black, k));
        }
        for kind in Kind::ALL {
            for from in 0..CELLS as u8 {
                if s.board[from as usize].is_some() {
                    continue;
                }
                let mut out = Vec::new();
                s.targets(from, kind, Color::White, &mut out);
                for to in 0..CELLS as u8 {
                    assert_eq!(
                        s.attacks(from, kind, to),
                        out.contains(&to),
                        "{kind:?} {} {}",
                        cell(from),
                        cell(to)
                    );
                    if s.board[to as usize].is_some() {
                        continue;
                    }
                    // Symmetry: `from` is in the mask around `to`.
                    let mask = s.attack_mask(to, kind);
                    assert_eq!(mask & (1 << from) != 0, out.contains(&to));
                }
            }
        }
    }
}
