//! Three-dimensional geometry: a cube of levels × files × ranks (4×4×4 for
//! Temporal Chess), its cells named level, file, rank (`Bc3`: level B, file
//! c, rank 3) and the Raumschach directions.
//!
//! A [`Cell`] is only made by a [`Cube`] that checked it, so a cell handed
//! out for a cube is inside it.

use std::fmt;

/// A step in three dimensions: (levels, files, ranks).
pub type Offset = (i8, i8, i8);

/// The 6 rook directions: along one axis.
pub const ROOK_DIRECTIONS: [Offset; 6] = [
    (1, 0, 0),
    (-1, 0, 0),
    (0, 1, 0),
    (0, -1, 0),
    (0, 0, 1),
    (0, 0, -1),
];

/// The 12 bishop directions: diagonals across two axes.
pub const BISHOP_DIRECTIONS: [Offset; 12] = [
    (1, 1, 0),
    (1, -1, 0),
    (-1, 1, 0),
    (-1, -1, 0),
    (1, 0, 1),
    (1, 0, -1),
    (-1, 0, 1),
    (-1, 0, -1),
    (0, 1, 1),
    (0, 1, -1),
    (0, -1, 1),
    (0, -1, -1),
];

/// The 8 unicorn directions: diagonals across all three axes.
pub const UNICORN_DIRECTIONS: [Offset; 8] = [
    (1, 1, 1),
    (1, 1, -1),
    (1, -1, 1),
    (1, -1, -1),
    (-1, 1, 1),
    (-1, 1, -1),
    (-1, -1, 1),
    (-1, -1, -1),
];

/// All 26 directions (queen lines, king steps): rook, bishop, unicorn.
pub fn all_directions() -> impl Iterator<Item = Offset> {
    ROOK_DIRECTIONS
        .into_iter()
        .chain(BISHOP_DIRECTIONS)
        .chain(UNICORN_DIRECTIONS)
}

/// The 24 knight leaps: 2 along one axis and 1 along another, any signs.
pub fn knight_leaps() -> impl Iterator<Item = Offset> {
    let mut out = Vec::with_capacity(24);
    for two in 0..3 {
        for one in 0..3 {
            if one == two {
                continue;
            }
            for s2 in [2i8, -2] {
                for s1 in [1i8, -1] {
                    let mut d = [0i8; 3];
                    d[two] = s2;
                    d[one] = s1;
                    out.push((d[0], d[1], d[2]));
                }
            }
        }
    }
    out.into_iter()
}

/// One cell of a cube, e.g. `Bc3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    level: u8,
    file: u8,
    rank: u8,
}

impl Cell {
    /// Level counted from 0 (`A` = 0, the bottom).
    pub fn level(self) -> u8 {
        self.level
    }

    /// File counted from 0 (`a` = 0).
    pub fn file(self) -> u8 {
        self.file
    }

    /// Rank counted from 0 (rank `1` = 0).
    pub fn rank(self) -> u8 {
        self.rank
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}{}",
            (b'A' + self.level) as char,
            (b'a' + self.file) as char,
            self.rank + 1
        )
    }
}

/// The shape of a cube: `size` levels, files and ranks (at most 9, so that
/// a rank is one digit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cube {
    size: u8,
}

impl Cube {
    /// Temporal Chess's 4×4×4 field.
    pub const TEMPORAL: Cube = Cube::new(4);

    /// A cube; panics (at compile time for constants) beyond 9.
    pub const fn new(size: u8) -> Cube {
        assert!(size >= 1 && size <= 9);
        Cube { size }
    }

    pub fn size(self) -> u8 {
        self.size
    }

    /// Number of cells.
    pub fn len(self) -> usize {
        (self.size as usize).pow(3)
    }

    /// Never: a cube has at least one cell.
    pub fn is_empty(self) -> bool {
        false
    }

    /// The cell at (level, file, rank), each from 0, if inside.
    pub fn cell(self, level: u8, file: u8, rank: u8) -> Option<Cell> {
        (level < self.size && file < self.size && rank < self.size).then_some(Cell {
            level,
            file,
            rank,
        })
    }

    /// A dense index from 0 to `len() - 1`, in [`Cube::cells`] order.
    pub fn index(self, cell: Cell) -> usize {
        let n = self.size as usize;
        (cell.level as usize * n + cell.file as usize) * n + cell.rank as usize
    }

    /// The cell at a dense index.
    pub fn from_index(self, index: usize) -> Option<Cell> {
        let n = self.size as usize;
        (index < self.len()).then(|| Cell {
            level: (index / (n * n)) as u8,
            file: (index / n % n) as u8,
            rank: (index % n) as u8,
        })
    }

    /// Every cell, sorted as position texts list them: `Aa1 < Aa2 < … < Dd4`
    /// (level, then file, then rank).
    pub fn cells(self) -> impl Iterator<Item = Cell> {
        (0..self.len()).filter_map(move |i| self.from_index(i))
    }

    /// The cell one `offset` away, if inside.
    pub fn step(self, cell: Cell, offset: Offset) -> Option<Cell> {
        let add = |a: u8, d: i8| u8::try_from(a as i16 + d as i16).ok();
        self.cell(
            add(cell.level, offset.0)?,
            add(cell.file, offset.1)?,
            add(cell.rank, offset.2)?,
        )
    }

    /// The cells along `direction` from `cell` (exclusive) to the edge.
    pub fn ray(self, cell: Cell, direction: Offset) -> impl Iterator<Item = Cell> {
        std::iter::successors(self.step(cell, direction), move |&c| {
            self.step(c, direction)
        })
    }

    /// Whether two cells touch (one king step apart).
    pub fn adjacent(self, a: Cell, b: Cell) -> bool {
        a != b
            && a.level.abs_diff(b.level) <= 1
            && a.file.abs_diff(b.file) <= 1
            && a.rank.abs_diff(b.rank) <= 1
    }

    /// A cell name such as `Bc3` (upper-case level, lower-case file, one
    /// digit).
    pub fn parse_cell(self, text: &str) -> Option<Cell> {
        let b = text.as_bytes();
        if b.len() != 3 || !b[0].is_ascii_uppercase() || !b[1].is_ascii_lowercase() {
            return None;
        }
        let rank = (b[2] as char).to_digit(10)? as u8;
        self.cell(b[0] - b'A', b[1] - b'a', rank.checked_sub(1)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slides(cube: Cube, dirs: &[Offset]) -> usize {
        cube.cells()
            .map(|c| dirs.iter().map(|&d| cube.ray(c, d).count()).sum::<usize>())
            .sum()
    }

    fn steps(cube: Cube, dirs: &[Offset]) -> usize {
        cube.cells()
            .map(|c| dirs.iter().filter(|&&d| cube.step(c, d).is_some()).count())
            .sum()
    }

    #[test]
    fn lone_piece_moves_over_the_field_match_rules_md() {
        let cube = Cube::TEMPORAL;
        let all: Vec<Offset> = all_directions().collect();
        let leaps: Vec<Offset> = knight_leaps().collect();
        assert_eq!(all.len(), 26);
        assert_eq!(leaps.len(), 24);
        assert_eq!(slides(cube, &ROOK_DIRECTIONS), 576);
        assert_eq!(slides(cube, &BISHOP_DIRECTIONS), 672);
        assert_eq!(slides(cube, &UNICORN_DIRECTIONS), 288);
        assert_eq!(slides(cube, &all), 1536);
        assert_eq!(steps(cube, &all), 936);
        assert_eq!(steps(cube, &leaps), 576);
    }

    #[test]
    fn cells_round_trip_and_sort_as_position_texts_list_them() {
        let cube = Cube::TEMPORAL;
        let cells: Vec<Cell> = cube.cells().collect();
        assert_eq!(cells.len(), 64);
        assert_eq!(cells[0].to_string(), "Aa1");
        assert_eq!(cells[1].to_string(), "Aa2");
        assert_eq!(cells[63].to_string(), "Dd4");
        let mut sorted = cells.clone();
        sorted.sort();
        assert_eq!(sorted, cells);
        for (i, &c) in cells.iter().enumerate() {
            assert_eq!(cube.index(c), i);
            assert_eq!(cube.parse_cell(&c.to_string()), Some(c));
        }
        for bad in ["Ea1", "Ae1", "Aa5", "Aa0", "aa1", "AA1", "Aa", "Aa12", ""] {
            assert_eq!(cube.parse_cell(bad), None, "{bad}");
        }
    }

    #[test]
    fn adjacency_is_the_26_neighbourhood() {
        let cube = Cube::TEMPORAL;
        let b = cube.parse_cell("Bb2").unwrap();
        assert_eq!(cube.cells().filter(|&c| cube.adjacent(b, c)).count(), 26);
        let corner = cube.parse_cell("Aa1").unwrap();
        assert_eq!(
            cube.cells().filter(|&c| cube.adjacent(corner, c)).count(),
            7
        );
        assert!(!cube.adjacent(b, b));
    }
}
