//! What the chess-like games share: pieces, movement, attacks, castling
//! described as data, en passant, promotion, check, mate and the automatic
//! draws, FEN, SAN and the tolerant move reader.
//!
//! A game is a [`Variant`]: a [`Geometry`], a start FEN, a table of
//! [`Castling`]s and its notation rules. [`Board`] is the state perft walks
//! (copy-make, no history); [`OrthoPosition`] adds the repetition history and
//! implements the server's [`Position`] face for any variant.
//!
//! # Rulings
//! - **En passant in FEN**: written after every double step (the PGN/FEN
//!   standard), whether or not a capture is possible. When read, it must
//!   follow a double step (an enemy pawn in front of it, the square and the
//!   pawn's start square empty), otherwise the setup is refused.
//! - **Repetition** compares placement, side to move, castling rights and
//!   the en passant square *only when an en passant capture is actually
//!   legal* (FIDE 9.2.3). Three occurrences draw automatically. History
//!   starts at the position a game was created from (start or FEN) and is
//!   cleared by every capture or pawn move (nothing before can recur).
//! - **50-move rule**: 100 plies without capture or pawn move draw, unless
//!   the move that reaches 100 mates (mate and stalemate are judged first).
//! - **Insufficient material**: exactly K v K and K + one knight or bishop v
//!   K. Other dead positions (e.g. K+B v K+B with same-coloured bishops) are
//!   *not* drawn automatically: rules.md lists only these two.
//! - **Move reading** (rules.md §0): SAN, coordinates, `x`/`:`/`-`/`=`
//!   separators, `+ # ! ?` and `e.p.` noise and a leading move number
//!   (`12.`, `12...`) are all accepted; a capture mark is not
//!   required and not checked. A pawn move without a promotion piece that
//!   reaches the last rank is ambiguous (the reply lists the four choices):
//!   the server never promotes by default. `Kg1` (king to its castling
//!   square) is castling, as is the coordinate form `e1g1`.
//!   Text that is exactly the canonical SAN of a legal move (check suffix
//!   aside) always means that move.
//!   With case tolerance (chess): `K Q R N` in either case are pieces, other
//!   letters of `a`–`h` in either case are files; an upper-case `B` is a
//!   bishop first and a b-file only if no bishop move fits; a lower-case `b`
//!   is tried both ways and accepted only when exactly one legal move fits
//!   (except `b1…` followed by a square, read first as the coordinate form).
//!   Without case tolerance (Double Chess, where `b`, `k`, `n` and `p` are
//!   files): upper-case letters are pieces only, lower-case letters that
//!   are files are files only; `q`/`r`, which are not files there, are read
//!   as queen/rook.

use std::fmt;

use super::board::{
    Geometry, Square, ALL_DIRECTIONS, CELLS, DIAGONAL, EAST, KNIGHT_STEPS, NORTH, ORTHOGONAL,
};
use super::perft::{self, Node};
use super::{
    Color, Diagram, Ending, Game, Glyph, Grid, MoveError, Outcome, Played, Position, SetupError,
};

// ---------------------------------------------------------------- pieces

/// A kind of orthodox piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Pawn = 1,
    Knight = 2,
    Bishop = 3,
    Rook = 4,
    Queen = 5,
    King = 6,
}

impl Kind {
    /// Promotion choices, in the order moves are generated.
    pub const PROMOTIONS: [Kind; 4] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight];

    /// Upper-case letter (`P N B R Q K`).
    pub fn letter(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
            Kind::Queen => 'Q',
            Kind::King => 'K',
        }
    }

    /// English name, lower case.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Pawn => "pawn",
            Kind::Knight => "knight",
            Kind::Bishop => "bishop",
            Kind::Rook => "rook",
            Kind::Queen => "queen",
            Kind::King => "king",
        }
    }

    /// The kind named by a letter, either case.
    pub fn from_letter(c: char) -> Option<Kind> {
        Some(match c.to_ascii_uppercase() {
            'P' => Kind::Pawn,
            'N' => Kind::Knight,
            'B' => Kind::Bishop,
            'R' => Kind::Rook,
            'Q' => Kind::Queen,
            'K' => Kind::King,
            _ => return None,
        })
    }

    fn from_code(code: u8) -> Kind {
        match code & KIND_MASK {
            1 => Kind::Pawn,
            2 => Kind::Knight,
            3 => Kind::Bishop,
            4 => Kind::Rook,
            5 => Kind::Queen,
            _ => Kind::King,
        }
    }
}

/// A piece: owner and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
}

impl Piece {
    pub fn new(color: Color, kind: Kind) -> Piece {
        Piece { color, kind }
    }

    /// FEN letter: upper case White, lower case Black.
    pub fn fen_char(self) -> char {
        match self.color {
            Color::White => self.kind.letter(),
            Color::Black => self.kind.letter().to_ascii_lowercase(),
        }
    }

    /// The piece a FEN letter names.
    pub fn from_fen_char(c: char) -> Option<Piece> {
        let kind = Kind::from_letter(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, kind })
    }

    fn code(self) -> u8 {
        self.kind as u8 | color_bit(self.color)
    }

    fn from_code(code: u8) -> Option<Piece> {
        if code == EMPTY || code == OFF {
            return None;
        }
        let color = if code & BLACK != 0 {
            Color::Black
        } else {
            Color::White
        };
        Some(Piece {
            color,
            kind: Kind::from_code(code),
        })
    }
}

// Cell codes of the mailbox.
const EMPTY: u8 = 0;
const OFF: u8 = 0x80;
const BLACK: u8 = 8;
const KIND_MASK: u8 = 7;
const PAWN: u8 = Kind::Pawn as u8;
const KNIGHT: u8 = Kind::Knight as u8;
const BISHOP: u8 = Kind::Bishop as u8;
const ROOK: u8 = Kind::Rook as u8;
const QUEEN: u8 = Kind::Queen as u8;
const KING: u8 = Kind::King as u8;

fn color_bit(c: Color) -> u8 {
    match c {
        Color::White => 0,
        Color::Black => BLACK,
    }
}

/// Whether a cell holds a piece of the colour other than `mine` (a colour bit).
#[inline]
fn is_enemy(code: u8, mine: u8) -> bool {
    code != EMPTY && code & OFF == 0 && code & BLACK != mine
}

// ---------------------------------------------------------------- castling and variants

/// One way to castle, as data: the king's and the rook's moves, the squares
/// that must be empty and the squares the king must not cross or land on
/// while attacked (the king must not be in check either).
#[derive(Clone, Debug)]
pub struct Castling {
    pub color: Color,
    /// Canonical notation (`O-O`, `O-O-O`, …).
    pub notation: &'static str,
    /// The letter in FEN's castling field for White (Black uses lower case).
    pub fen_char: char,
    pub king_from: Square,
    pub king_to: Square,
    pub rook_from: Square,
    pub rook_to: Square,
    /// Squares that must be empty (king and rook squares themselves excluded).
    pub must_be_empty: Vec<Square>,
    /// Squares from the king's start (exclusive) to its destination
    /// (inclusive) that must not be attacked.
    pub king_path: Vec<Square>,
}

impl Castling {
    /// A castling on `color`'s back rank, squares given as files from 0.
    #[allow(clippy::too_many_arguments)]
    pub fn on_back_rank(
        geometry: Geometry,
        color: Color,
        notation: &'static str,
        fen_char: char,
        king: (u8, u8),
        rook: (u8, u8),
        empty: &[u8],
    ) -> Castling {
        let rank = match color {
            Color::White => 0,
            Color::Black => geometry.ranks() - 1,
        };
        let sq = |f: u8| {
            geometry
                .square(f, rank)
                .expect("castling square on the board")
        };
        let king_path = if king.1 > king.0 {
            (king.0 + 1..=king.1).map(sq).collect()
        } else {
            (king.1..king.0).rev().map(sq).collect()
        };
        Castling {
            color,
            notation,
            fen_char,
            king_from: sq(king.0),
            king_to: sq(king.1),
            rook_from: sq(rook.0),
            rook_to: sq(rook.1),
            must_be_empty: empty.iter().map(|&f| sq(f)).collect(),
            king_path,
        }
    }

    fn fen_letter(&self) -> char {
        match self.color {
            Color::White => self.fen_char.to_ascii_uppercase(),
            Color::Black => self.fen_char.to_ascii_lowercase(),
        }
    }
}

/// Everything that makes one orthodox-family game: geometry, start, castling
/// table and notation rules.
pub struct Variant {
    pub game: &'static dyn Game,
    pub geometry: Geometry,
    pub start_fen: &'static str,
    /// Castlings; a position's rights are a bit set over this table. FEN
    /// writes them in this order.
    pub castlings: Vec<Castling>,
    /// Whether move input may write files and pieces in either case (chess).
    pub case_tolerant: bool,
    /// The sentence that tells a player which move forms are read.
    pub hint: &'static str,
    empty_cells: [u8; CELLS],
    /// Castling rights lost when a move starts or ends on a cell.
    rights_mask: [u16; CELLS],
    squares: Vec<Square>,
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.game.name())
    }
}

impl Variant {
    pub fn new(
        game: &'static dyn Game,
        geometry: Geometry,
        start_fen: &'static str,
        castlings: Vec<Castling>,
        case_tolerant: bool,
        hint: &'static str,
    ) -> Variant {
        assert!(castlings.len() <= 16);
        let mut empty_cells = [OFF; CELLS];
        let squares: Vec<Square> = geometry.squares().collect();
        for sq in &squares {
            empty_cells[sq.index()] = EMPTY;
        }
        let mut rights_mask = [0u16; CELLS];
        for (i, c) in castlings.iter().enumerate() {
            rights_mask[c.king_from.index()] |= 1 << i;
            rights_mask[c.rook_from.index()] |= 1 << i;
        }
        Variant {
            game,
            geometry,
            start_fen,
            castlings,
            case_tolerant,
            hint,
            empty_cells,
            rights_mask,
            squares,
        }
    }

    /// Whether `c` in move input names a file (per the case rules).
    fn file_letter(&self, c: char) -> Option<u8> {
        if self.case_tolerant {
            self.geometry.file_of(c.to_ascii_lowercase())
        } else {
            self.geometry.file_of(c)
        }
    }

    /// Whether `c` in move input names a piece (per the case rules).
    fn piece_letter(&self, c: char) -> Option<Kind> {
        if self.case_tolerant || c.is_ascii_uppercase() {
            Kind::from_letter(c)
        } else if self.geometry.file_of(c).is_none() {
            // Lower case and not a file here: no conflict, read as a piece.
            Kind::from_letter(c)
        } else {
            None
        }
    }
}

// ---------------------------------------------------------------- moves

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

/// One move. For castling `from`/`to` are the king's squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub special: Special,
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
    /// Any other reason the final position leaves the king attacked.
    Exposed,
}

// ---------------------------------------------------------------- board

/// A position without history: placement, side, castling rights, en passant
/// square and clocks. Cheap to copy; perft walks it by copy-make.
#[derive(Clone)]
pub struct Board {
    variant: &'static Variant,
    cells: [u8; CELLS],
    side: Color,
    castling: u16,
    ep: Option<Square>,
    halfmove: u32,
    fullmove: u32,
    kings: [Square; 2],
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({})", self.fen())
    }
}

impl PartialEq for Board {
    fn eq(&self, other: &Board) -> bool {
        std::ptr::eq(self.variant, other.variant)
            && self.cells == other.cells
            && self.side == other.side
            && self.castling == other.castling
            && self.ep == other.ep
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
    }
}

fn invalid(msg: impl Into<String>) -> SetupError {
    SetupError::InvalidText(msg.into())
}

fn illegal(msg: impl Into<String>) -> SetupError {
    SetupError::Illegal(msg.into())
}

impl Board {
    /// The variant's start position.
    pub fn start(variant: &'static Variant) -> Board {
        Board::from_fen(variant, variant.start_fen).expect("start FEN is valid")
    }

    /// Read and validate a FEN. The two counters may be left out (0 1).
    pub fn from_fen(variant: &'static Variant, text: &str) -> Result<Board, SetupError> {
        let g = variant.geometry;
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 6 && fields.len() != 4 {
            return Err(invalid(format!(
                "FEN has {} fields; it needs 6 (placement, side, castling, en passant, halfmove clock, move number)",
                fields.len()
            )));
        }
        let mut cells = variant.empty_cells;
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != g.ranks() as usize {
            return Err(invalid(format!(
                "the placement has {} ranks; it needs {}",
                rows.len(),
                g.ranks()
            )));
        }
        let mut kings: [Vec<Square>; 2] = [Vec::new(), Vec::new()];
        for (i, row) in rows.iter().enumerate() {
            let rank = g.ranks() - 1 - i as u8;
            let mut file: u32 = 0;
            let mut run: u32 = 0;
            let chars: Vec<char> = row.chars().collect();
            for (j, &c) in chars.iter().enumerate() {
                if let Some(d) = c.to_digit(10) {
                    run = run.saturating_mul(10).saturating_add(d).min(1000);
                    if run == 0 {
                        return Err(invalid(format!("rank {} has an empty run of 0", rank + 1)));
                    }
                    if j + 1 == chars.len() || !chars[j + 1].is_ascii_digit() {
                        file = file.saturating_add(run);
                        run = 0;
                    }
                    continue;
                }
                let piece = Piece::from_fen_char(c).ok_or_else(|| {
                    invalid(format!("'{c}' on rank {} is no piece letter", rank + 1))
                })?;
                if file >= g.files() as u32 {
                    // Too many squares: counted, refused below.
                    file += 1;
                    continue;
                }
                let sq = g.square(file as u8, rank).expect("checked on board");
                if piece.kind == Kind::Pawn && (rank == 0 || rank == g.ranks() - 1) {
                    return Err(illegal(format!("a pawn stands on {sq}, on a back rank")));
                }
                if piece.kind == Kind::King {
                    kings[piece.color.index()].push(sq);
                }
                cells[sq.index()] = piece.code();
                file += 1;
            }
            if file != g.files() as u32 {
                return Err(invalid(format!(
                    "rank {} describes {} squares; it needs {}",
                    rank + 1,
                    file,
                    g.files()
                )));
            }
        }
        for color in [Color::White, Color::Black] {
            let n = kings[color.index()].len();
            if n != 1 {
                return Err(illegal(format!(
                    "{} has {} kings; each side needs exactly one",
                    color.name(),
                    n
                )));
            }
        }
        let side = match fields[1] {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            other => {
                return Err(invalid(format!(
                    "the side to move is '{other}'; write w or b"
                )))
            }
        };
        let mut castling = 0u16;
        if fields[2] != "-" {
            for c in fields[2].chars() {
                let i = variant
                    .castlings
                    .iter()
                    .position(|k| k.fen_letter() == c)
                    .ok_or_else(|| {
                        invalid(format!("'{c}' is not a castling right in this game"))
                    })?;
                castling |= 1 << i;
            }
        }
        let mut board = Board {
            variant,
            cells,
            side,
            castling,
            ep: None,
            halfmove: 0,
            fullmove: 1,
            kings: [kings[0][0], kings[1][0]],
        };
        for (i, c) in variant.castlings.iter().enumerate() {
            if castling & (1 << i) == 0 {
                continue;
            }
            let king = Piece::new(c.color, Kind::King);
            let rook = Piece::new(c.color, Kind::Rook);
            if board.piece_at(c.king_from) != Some(king)
                || board.piece_at(c.rook_from) != Some(rook)
            {
                return Err(illegal(format!(
                    "castling right {} needs the {} king on {} and a rook on {}",
                    c.fen_letter(),
                    c.color.name().to_lowercase(),
                    c.king_from,
                    c.rook_from
                )));
            }
        }
        if fields[3] != "-" {
            let sq = g
                .parse_square(fields[3])
                .ok_or_else(|| invalid(format!("'{}' is not an en passant square", fields[3])))?;
            let (rank, pawn_dir) = match side {
                Color::White => (g.ranks() - 3, -1i8),
                Color::Black => (2, 1i8),
            };
            let pawn = g.step(sq, 0, pawn_dir);
            let origin = g.step(sq, 0, -pawn_dir);
            let ok = sq.rank() == rank
                && board.piece_at(sq).is_none()
                && origin.is_some_and(|o| board.piece_at(o).is_none())
                && pawn.is_some_and(|p| {
                    board.piece_at(p) == Some(Piece::new(side.opponent(), Kind::Pawn))
                });
            if !ok {
                return Err(illegal(format!(
                    "the en passant square {sq} does not follow a pawn's double step"
                )));
            }
            board.ep = Some(sq);
        }
        if fields.len() == 6 {
            board.halfmove = fields[4].parse().map_err(|_| {
                invalid(format!(
                    "the halfmove clock '{}' is not a number",
                    fields[4]
                ))
            })?;
            board.fullmove = fields[5].parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
                invalid(format!(
                    "the move number '{}' is not a number from 1",
                    fields[5]
                ))
            })?;
        }
        if board.attacked(board.kings[side.opponent().index()], side) {
            return Err(illegal(format!(
                "{} is in check but it is {}'s move",
                side.opponent().name(),
                side.name()
            )));
        }
        Ok(board)
    }

    /// FEN of this position (en passant square after every double step).
    pub fn fen(&self) -> String {
        let mut s = self.placement();
        s.push(' ');
        s.push(match self.side {
            Color::White => 'w',
            Color::Black => 'b',
        });
        s.push(' ');
        s.push_str(&self.castling_text());
        s.push(' ');
        match self.ep {
            Some(sq) => s.push_str(&sq.to_string()),
            None => s.push('-'),
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }

    fn placement(&self) -> String {
        let g = self.variant.geometry;
        let mut s = String::new();
        for rank in (0..g.ranks()).rev() {
            let mut run = 0;
            for file in 0..g.files() {
                let sq = g.square(file, rank).expect("on board");
                match self.piece_at(sq) {
                    None => run += 1,
                    Some(p) => {
                        if run > 0 {
                            s.push_str(&run.to_string());
                            run = 0;
                        }
                        s.push(p.fen_char());
                    }
                }
            }
            if run > 0 {
                s.push_str(&run.to_string());
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }

    fn castling_text(&self) -> String {
        let s: String = self
            .variant
            .castlings
            .iter()
            .enumerate()
            .filter(|(i, _)| self.castling & (1 << i) != 0)
            .map(|(_, c)| c.fen_letter())
            .collect();
        if s.is_empty() {
            "-".into()
        } else {
            s
        }
    }

    /// The repetition key: placement, side, castling rights, and the en
    /// passant square only if an en passant capture is legal.
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
        format!(
            "{} {} {} {}",
            self.placement(),
            if self.side == Color::White { 'w' } else { 'b' },
            self.castling_text(),
            ep
        )
    }

    pub fn variant(&self) -> &'static Variant {
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

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.attacked(self.kings[self.side.index()], self.side.opponent())
    }

    /// Whether `sq` is attacked by a piece of `by`.
    pub fn attacked(&self, sq: Square, by: Color) -> bool {
        let c = &self.cells;
        let s = sq.index() as isize;
        let bit = color_bit(by);
        let back = match by {
            Color::White => -NORTH,
            Color::Black => NORTH,
        };
        let pawn = PAWN | bit;
        if c[(s + back + EAST) as usize] == pawn || c[(s + back - EAST) as usize] == pawn {
            return true;
        }
        let knight = KNIGHT | bit;
        if KNIGHT_STEPS.iter().any(|&d| c[(s + d) as usize] == knight) {
            return true;
        }
        let king = KING | bit;
        if ALL_DIRECTIONS.iter().any(|&d| c[(s + d) as usize] == king) {
            return true;
        }
        let queen = QUEEN | bit;
        slider_attacks(c, s, &ORTHOGONAL, ROOK | bit, queen)
            || slider_attacks(c, s, &DIAGONAL, BISHOP | bit, queen)
    }

    /// Pseudo-legal moves of the side to move, castling excluded.
    fn pseudo_moves(&self, out: &mut Vec<Move>) {
        let mine = color_bit(self.side);
        let c = &self.cells;
        let g = self.variant.geometry;
        for &from_sq in &self.variant.squares {
            let code = c[from_sq.index()];
            if code == EMPTY || code & BLACK != mine {
                continue;
            }
            let s = from_sq.index() as isize;
            let push = |out: &mut Vec<Move>, t: isize, special| {
                out.push(Move {
                    from: from_sq,
                    to: Square::from_index(t as usize),
                    special,
                })
            };
            match code & KIND_MASK {
                PAWN => {
                    let (fwd, start, last) = match self.side {
                        Color::White => (NORTH, 1, g.ranks() - 1),
                        Color::Black => (-NORTH, g.ranks() - 2, 0),
                    };
                    let promotes = |t: isize| Square::from_index(t as usize).rank() == last;
                    let add = |out: &mut Vec<Move>, t: isize| {
                        if promotes(t) {
                            for k in Kind::PROMOTIONS {
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
                            push(out, t + fwd, Special::DoubleStep);
                        }
                    }
                    for t in [s + fwd + EAST, s + fwd - EAST] {
                        let x = c[t as usize];
                        if is_enemy(x, mine) {
                            add(out, t);
                        } else if x == EMPTY && self.ep.is_some_and(|e| e.index() == t as usize) {
                            push(out, t, Special::EnPassant);
                        }
                    }
                }
                KNIGHT => {
                    for d in KNIGHT_STEPS {
                        let x = c[(s + d) as usize];
                        if x == EMPTY || is_enemy(x, mine) {
                            push(out, s + d, Special::None);
                        }
                    }
                }
                KING => {
                    for d in ALL_DIRECTIONS {
                        let x = c[(s + d) as usize];
                        if x == EMPTY || is_enemy(x, mine) {
                            push(out, s + d, Special::None);
                        }
                    }
                }
                kind => {
                    let dirs: &[isize] = match kind {
                        BISHOP => &DIAGONAL,
                        ROOK => &ORTHOGONAL,
                        _ => &ALL_DIRECTIONS,
                    };
                    for &d in dirs {
                        let mut t = s + d;
                        loop {
                            let x = c[t as usize];
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
            }
        }
    }

    /// Why castling number `i` is not legal now, or `None` if it is.
    pub fn castle_refusal(&self, i: usize) -> Option<CastleRefusal> {
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
        if self.attacked(c.king_from, enemy) {
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
        let m = Move {
            from: c.king_from,
            to: c.king_to,
            special: Special::Castle(i as u8),
        };
        if !self.is_safe_after(m) {
            return Some(CastleRefusal::Exposed);
        }
        None
    }

    fn is_safe_after(&self, m: Move) -> bool {
        let mut b = self.clone();
        b.make(m);
        !b.attacked(b.kings[self.side.index()], b.side)
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut pseudo = Vec::with_capacity(64);
        self.pseudo_moves(&mut pseudo);
        let mut out: Vec<Move> = pseudo
            .into_iter()
            .filter(|&m| self.is_safe_after(m))
            .collect();
        for (i, c) in self.variant.castlings.iter().enumerate() {
            if c.color == self.side
                && self.castling & (1 << i) != 0
                && self.castle_refusal(i).is_none()
            {
                out.push(Move {
                    from: c.king_from,
                    to: c.king_to,
                    special: Special::Castle(i as u8),
                });
            }
        }
        out
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut pseudo = Vec::with_capacity(64);
        self.pseudo_moves(&mut pseudo);
        // Castling is never the only legal move: its first king step is legal too.
        pseudo.into_iter().any(|m| self.is_safe_after(m))
    }

    /// Apply a legal move (not checked).
    pub fn make(&mut self, m: Move) {
        let v = self.variant;
        let from = m.from.index();
        let to = m.to.index();
        let piece = self.cells[from];
        let captured = self.cells[to];
        self.castling &= !(v.rights_mask[from] | v.rights_mask[to]);
        self.ep = None;
        self.halfmove = if piece & KIND_MASK == PAWN || captured != EMPTY {
            0
        } else {
            self.halfmove + 1
        };
        match m.special {
            Special::Castle(i) => {
                let c = &v.castlings[i as usize];
                let king = self.cells[c.king_from.index()];
                let rook = self.cells[c.rook_from.index()];
                self.cells[c.king_from.index()] = EMPTY;
                self.cells[c.rook_from.index()] = EMPTY;
                self.cells[c.king_to.index()] = king;
                self.cells[c.rook_to.index()] = rook;
                self.kings[self.side.index()] = c.king_to;
            }
            special => {
                self.cells[to] = piece;
                self.cells[from] = EMPTY;
                match special {
                    Special::DoubleStep => {
                        self.ep = Some(Square::from_index((from + to) / 2));
                    }
                    Special::EnPassant => {
                        let behind = if self.side == Color::White {
                            to - NORTH as usize
                        } else {
                            to + NORTH as usize
                        };
                        self.cells[behind] = EMPTY;
                    }
                    Special::Promotion(k) => {
                        self.cells[to] = k as u8 | color_bit(self.side);
                    }
                    _ => {}
                }
                if piece & KIND_MASK == KING {
                    self.kings[self.side.index()] = m.to;
                }
            }
        }
        if self.side == Color::Black {
            self.fullmove += 1;
        }
        self.side = self.side.opponent();
    }

    /// The position after a legal move.
    pub fn after(&self, m: Move) -> Board {
        let mut b = self.clone();
        b.make(m);
        b
    }

    /// Whether a move takes something (en passant included).
    pub fn is_capture(&self, m: Move) -> bool {
        m.special == Special::EnPassant
            || (!matches!(m.special, Special::Castle(_)) && self.cells[m.to.index()] != EMPTY)
    }

    /// Coordinate (UCI) form: `e2e4`, `e7e8q`; castling as the king's move.
    pub fn uci(&self, m: Move) -> String {
        let mut s = format!("{}{}", m.from, m.to);
        if let Special::Promotion(k) = m.special {
            s.push(k.letter().to_ascii_lowercase());
        }
        s
    }

    /// Canonical SAN with `+`/`#`.
    pub fn san(&self, m: Move) -> String {
        let legal = self.legal_moves();
        self.san_with(m, &legal)
    }

    fn san_with(&self, m: Move, legal: &[Move]) -> String {
        let mut s = self.san_plain(m, legal);
        let b = self.after(m);
        if b.is_check() {
            s.push(if b.has_legal_move() { '+' } else { '#' });
        }
        s
    }

    /// SAN without the check suffix. `legal` are the legal moves here
    /// (for disambiguation).
    fn san_plain(&self, m: Move, legal: &[Move]) -> String {
        if let Special::Castle(i) = m.special {
            return self.variant.castlings[i as usize].notation.to_string();
        }
        let kind = Kind::from_code(self.cells[m.from.index()]);
        let capture = self.is_capture(m);
        let mut s = String::new();
        if kind == Kind::Pawn {
            if capture {
                s.push(m.from.file_char());
                s.push('x');
            }
            s.push_str(&m.to.to_string());
            if let Special::Promotion(k) = m.special {
                s.push('=');
                s.push(k.letter());
            }
            return s;
        }
        s.push(kind.letter());
        let rivals: Vec<Square> = legal
            .iter()
            .filter(|o| {
                o.to == m.to
                    && o.from != m.from
                    && !matches!(o.special, Special::Castle(_))
                    && Kind::from_code(self.cells[o.from.index()]) == kind
            })
            .map(|o| o.from)
            .collect();
        if !rivals.is_empty() {
            if rivals.iter().all(|r| r.file() != m.from.file()) {
                s.push(m.from.file_char());
            } else if rivals.iter().all(|r| r.rank() != m.from.rank()) {
                s.push_str(&(m.from.rank() + 1).to_string());
            } else {
                s.push_str(&m.from.to_string());
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&m.to.to_string());
        s
    }

    /// SAN of every legal move, sorted.
    pub fn legal_sans(&self) -> Vec<String> {
        let legal = self.legal_moves();
        let mut out: Vec<String> = legal.iter().map(|&m| self.san_with(m, &legal)).collect();
        out.sort();
        out
    }

    /// Whether neither side can ever mate: K v K or K + one minor v K.
    pub fn insufficient_material(&self) -> bool {
        let mut others = self
            .variant
            .squares
            .iter()
            .filter_map(|&sq| self.piece_at(sq))
            .filter(|p| p.kind != Kind::King);
        match (others.next(), others.next()) {
            (None, _) => true,
            (Some(p), None) => matches!(p.kind, Kind::Knight | Kind::Bishop),
            _ => false,
        }
    }

    /// Perft from here (draw rules ignored).
    pub fn perft(&self, depth: u32) -> u64 {
        perft::perft(self, depth)
    }

    /// Perft split by first move, in coordinate form.
    pub fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        perft::divide(self, depth)
    }

    // ------------------------------------------------------------ reading moves

    /// Read a move in any accepted notation and find the one legal move it
    /// means. Errors are the sentences mailed to the player.
    pub fn parse_move(&self, input: &str) -> Result<Move, MoveError> {
        let legal = self.legal_moves();
        let unreadable = || MoveError::Unreadable {
            input: input.trim().to_string(),
            hint: self.variant.hint.to_string(),
        };
        let text = strip_noise(input);
        if text.is_empty() {
            return Err(unreadable());
        }
        // Canonical SAN always means exactly what it says (`bxc4` is the
        // pawn even where `Bxc4` is legal too).
        if let Some(&m) = legal.iter().find(|&&m| self.san_plain(m, &legal) == text) {
            return Ok(m);
        }
        if let Some(n) = castling_length(&text) {
            return self
                .parse_castling(input.trim(), n, &legal)
                .ok_or_else(unreadable)?;
        }
        let groups = self.read_specs(&text).ok_or_else(unreadable)?;
        for group in &groups {
            let mut found: Vec<Move> = Vec::new();
            for spec in group {
                for &m in &legal {
                    if self.fits(m, spec) && !found.contains(&m) {
                        found.push(m);
                    }
                }
            }
            match found.len() {
                0 => continue,
                1 => return Ok(found[0]),
                _ => {
                    let mut candidates: Vec<String> =
                        found.iter().map(|&m| self.san_with(m, &legal)).collect();
                    candidates.sort();
                    return Err(MoveError::Ambiguous {
                        input: input.trim().to_string(),
                        candidates,
                    });
                }
            }
        }
        let illegal = |reason: String| MoveError::Illegal {
            input: input.trim().to_string(),
            reason,
        };
        let mut first_missing = None;
        for spec in groups.iter().flatten() {
            match self.explain(spec, &legal) {
                Explanation::Reason(r) => return Err(illegal(r)),
                Explanation::NoPiece(r) => {
                    first_missing.get_or_insert(r);
                }
            }
        }
        Err(illegal(
            first_missing.unwrap_or_else(|| "no piece can make it.".into()),
        ))
    }

    fn parse_castling(
        &self,
        input: &str,
        os: usize,
        legal: &[Move],
    ) -> Option<Result<Move, MoveError>> {
        let (i, c) = self
            .variant
            .castlings
            .iter()
            .enumerate()
            .find(|(_, c)| c.color == self.side && c.notation.matches('O').count() == os)?;
        if let Some(&m) = legal.iter().find(|m| m.special == Special::Castle(i as u8)) {
            return Some(Ok(m));
        }
        Some(Err(MoveError::Illegal {
            input: input.to_string(),
            reason: self.castle_reason(i, c),
        }))
    }

    /// One sentence saying why castling `i` is refused.
    fn castle_reason(&self, i: usize, c: &Castling) -> String {
        let refusal = self.castle_refusal(i).unwrap_or(CastleRefusal::Exposed);
        let n = c.notation;
        match refusal {
            CastleRefusal::NoRight => {
                let king = Piece::new(self.side, Kind::King);
                let rook = Piece::new(self.side, Kind::Rook);
                let any_right = self
                    .variant
                    .castlings
                    .iter()
                    .enumerate()
                    .any(|(j, k)| k.color == self.side && self.castling & (1 << j) != 0);
                if self.piece_at(c.king_from) != Some(king) || !any_right {
                    format!("you cannot castle ({n}) any more because your king has moved.")
                } else if self.piece_at(c.rook_from) != Some(rook) {
                    format!(
                        "you cannot castle ({n}) any more because the rook from {} has moved or been taken.",
                        c.rook_from
                    )
                } else {
                    format!(
                        "you cannot castle ({n}) any more because the rook on {} has moved.",
                        c.rook_from
                    )
                }
            }
            CastleRefusal::PieceBetween(_) => {
                let occupied: Vec<String> = c
                    .must_be_empty
                    .iter()
                    .filter(|sq| self.piece_at(**sq).is_some())
                    .map(|sq| sq.to_string())
                    .collect();
                format!(
                    "to castle ({n}) the squares between king and rook must be empty, but {} {} occupied.",
                    and_list(&occupied),
                    if occupied.len() == 1 { "is" } else { "are" }
                )
            }
            CastleRefusal::InCheck => {
                format!("you cannot castle ({n}) while your king is in check.")
            }
            CastleRefusal::CrossesAttacked(sq) => {
                format!("to castle ({n}) the king would cross {sq}, which is attacked.")
            }
            CastleRefusal::LandsAttacked(sq) => {
                format!("to castle ({n}) the king would land on {sq}, which is attacked.")
            }
            CastleRefusal::Exposed => format!("castling ({n}) would leave your king in check."),
        }
    }

    /// Read non-castling move text (noise already stripped) into groups of
    /// readings, in order of precedence. `None` when unreadable.
    fn read_specs(&self, text: &str) -> Option<Vec<Vec<Spec>>> {
        let v = self.variant;
        let g = v.geometry;
        let chars: Vec<char> = text
            .chars()
            .filter(|c| !matches!(c, 'x' | 'X' | ':' | '-' | '=') && !c.is_whitespace())
            .collect();
        let n = chars.len();
        if n < 2 {
            return None;
        }
        let mut end = n;
        let mut promo = None;
        if n >= 3 && chars[n - 1].is_ascii_alphabetic() && chars[n - 2].is_ascii_digit() {
            let k = Kind::from_letter(chars[n - 1])?;
            if !Kind::PROMOTIONS.contains(&k) {
                return None;
            }
            promo = Some(k);
            end -= 1;
        }
        let to_file = v.file_letter(chars[end - 2])?;
        let to_rank = g.rank_of(chars[end - 1])?;
        let to = g.square(to_file, to_rank)?;
        let prefix = &chars[..end - 2];
        let spec = |piece, from_file: Option<u8>, from_rank| Spec {
            piece,
            // A pawn named without its file moves along the destination's file.
            from_file: if piece == Some(Kind::Pawn) && from_file.is_none() {
                Some(to_file)
            } else {
                from_file
            },
            from_rank,
            to,
            promo,
        };
        if prefix.is_empty() {
            return Some(vec![vec![spec(Some(Kind::Pawn), None, None)]]);
        }
        let c0 = prefix[0];
        // Reading 1: c0 is a piece letter, then optional file and rank.
        let piece_reading = v.piece_letter(c0).and_then(|kind| {
            let rest = &prefix[1..];
            let (file, rank) = match rest {
                [] => (None, None),
                [a] => match (v.file_letter(*a), g.rank_of(*a)) {
                    (Some(f), _) => (Some(f), None),
                    (None, Some(r)) => (None, Some(r)),
                    _ => return None,
                },
                [a, b] => (Some(v.file_letter(*a)?), Some(g.rank_of(*b)?)),
                _ => return None,
            };
            Some(spec(Some(kind), file, rank))
        });
        // Reading 2: c0 is a file: a pawn's file, or a from-square.
        let file_reading = v.file_letter(c0).and_then(|file| match &prefix[1..] {
            [] => Some(spec(Some(Kind::Pawn), Some(file), None)),
            [r] => Some(spec(None, Some(file), Some(g.rank_of(*r)?))),
            _ => None,
        });
        match (piece_reading, file_reading) {
            (None, None) => None,
            (Some(p), None) => Some(vec![vec![p]]),
            (None, Some(f)) => Some(vec![vec![f]]),
            (Some(p), Some(f)) => {
                if c0.is_ascii_uppercase() {
                    Some(vec![vec![p], vec![f]])
                } else if f.piece.is_none() {
                    // `b1c3`: the coordinate form first.
                    Some(vec![vec![f], vec![p]])
                } else {
                    Some(vec![vec![p, f]])
                }
            }
        }
    }

    fn fits(&self, m: Move, spec: &Spec) -> bool {
        if m.to != spec.to {
            return false;
        }
        if let Some(k) = spec.piece {
            if Kind::from_code(self.cells[m.from.index()]) != k {
                return false;
            }
        }
        if spec.from_file.is_some_and(|f| f != m.from.file())
            || spec.from_rank.is_some_and(|r| r != m.from.rank())
        {
            return false;
        }
        match spec.promo {
            Some(k) => m.special == Special::Promotion(k),
            None => true,
        }
    }

    /// Why no legal move fits `spec`.
    fn explain(&self, spec: &Spec, legal: &[Move]) -> Explanation {
        let g = self.variant.geometry;
        let mine = color_bit(self.side);
        // The coordinate form names one square.
        if spec.piece.is_none() {
            let from = g
                .square(spec.from_file.unwrap_or(0), spec.from_rank.unwrap_or(0))
                .expect("read from the board");
            match self.piece_at(from) {
                None => return Explanation::Reason(format!("there is no piece on {from}.")),
                Some(p) if p.color != self.side => {
                    return Explanation::Reason(format!(
                        "the {} on {from} is {}'s, and it is {}'s move.",
                        p.kind.name(),
                        p.color.name(),
                        self.side.name()
                    ))
                }
                _ => {}
            }
        }
        let pieces: Vec<Square> = self
            .variant
            .squares
            .iter()
            .copied()
            .filter(|&sq| {
                let code = self.cells[sq.index()];
                code != EMPTY
                    && code & BLACK == mine
                    && spec.piece.is_none_or(|k| Kind::from_code(code) == k)
                    && spec.from_file.is_none_or(|f| f == sq.file())
                    && spec.from_rank.is_none_or(|r| r == sq.rank())
            })
            .collect();
        if pieces.is_empty() {
            let kind = spec.piece.unwrap_or(Kind::Pawn);
            let place = match (spec.from_file, spec.from_rank) {
                (Some(f), Some(r)) => format!(" on {}", g.square(f, r).expect("on board")),
                (Some(f), None) => format!(" on the {}-file", super::board::file_char(f)),
                (None, Some(r)) => format!(" on rank {}", r + 1),
                (None, None) => String::new(),
            };
            return Explanation::NoPiece(format!("you have no {}{place}.", kind.name()));
        }
        // Castling asked for as a king move.
        for (i, c) in self.variant.castlings.iter().enumerate() {
            if c.color == self.side
                && c.king_to == spec.to
                && pieces.contains(&c.king_from)
                && self.piece_at(c.king_from) == Some(Piece::new(self.side, Kind::King))
            {
                return Explanation::Reason(self.castle_reason(i, c));
            }
        }
        let mut pseudo = Vec::new();
        self.pseudo_moves(&mut pseudo);
        if pseudo
            .iter()
            .any(|&m| pieces.contains(&m.from) && self.fits(m, spec))
        {
            return Explanation::Reason(if self.is_check() {
                "your king is in check, and that move does not get it out of check.".into()
            } else {
                "it would leave your king in check.".into()
            });
        }
        if spec.promo.is_some()
            && legal
                .iter()
                .any(|m| pieces.contains(&m.from) && m.to == spec.to)
        {
            return Explanation::Reason("only a pawn that reaches the last rank promotes.".into());
        }
        let mut parts = Vec::new();
        for &sq in &pieces {
            let kind = self.piece_at(sq).expect("piece").kind;
            let mut targets: Vec<(u8, u8, String)> = Vec::new();
            for m in legal.iter().filter(|m| m.from == sq) {
                let d = match m.special {
                    Special::Castle(i) => {
                        format!("{} ({})", m.to, self.variant.castlings[i as usize].notation)
                    }
                    _ => m.to.to_string(),
                };
                let t = (m.to.file(), m.to.rank(), d);
                if !targets.contains(&t) {
                    targets.push(t);
                }
            }
            targets.sort();
            let dests: Vec<String> = targets.into_iter().map(|t| t.2).collect();
            parts.push(if dests.is_empty() {
                format!("the {} on {sq} has no legal move", kind.name())
            } else {
                format!(
                    "the {} on {sq} can move to {}",
                    kind.name(),
                    or_list(&dests)
                )
            });
        }
        Explanation::Reason(format!("{}.", parts.join("; ")))
    }
}

impl Node for Board {
    type Action = Move;
    fn actions(&self) -> Vec<Move> {
        self.legal_moves()
    }
    fn after(&self, action: &Move) -> Board {
        Board::after(self, *action)
    }
    fn action_name(&self, action: &Move) -> String {
        self.uci(*action)
    }
}

/// One reading of move text.
#[derive(Clone, Debug)]
struct Spec {
    /// `None` for the coordinate form (whatever stands on the from-square).
    piece: Option<Kind>,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: Square,
    promo: Option<Kind>,
}

enum Explanation {
    /// The named piece exists; here is why the move is refused.
    Reason(String),
    /// The text names no piece of the mover.
    NoPiece(String),
}

/// Trim, drop a leading move number (`12.`, `12...`) and trailing
/// `+ # ! ?` and `e.p.` noise.
fn strip_noise(input: &str) -> String {
    let mut s = input.trim().to_string();
    let digits = s.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && s[digits..].starts_with('.') {
        s = s[digits..].trim_start_matches('.').trim_start().to_string();
    }
    loop {
        let before = s.len();
        s = s.trim_end_matches(['+', '#', '!', '?', ' ']).to_string();
        for suffix in ["e.p.", "ep", "e.p"] {
            if s.len() > suffix.len()
                && s.to_ascii_lowercase().ends_with(suffix)
                && s[..s.len() - suffix.len()]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_ascii_digit() || c == ' ')
            {
                s.truncate(s.len() - suffix.len());
            }
        }
        if s.len() == before {
            return s.trim().to_string();
        }
    }
}

/// `O-O`, `0-0-0`, `o-o`, `OO`: the number of O's, if the text is castling.
fn castling_length(text: &str) -> Option<usize> {
    let os = text
        .chars()
        .filter(|c| matches!(c, 'O' | 'o' | '0'))
        .count();
    let only = text.chars().all(|c| matches!(c, 'O' | 'o' | '0' | '-'));
    (only && os >= 2).then_some(os)
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    joined(items, "or")
}

fn and_list(items: &[String]) -> String {
    joined(items, "and")
}

fn joined(items: &[String], word: &str) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}

// ---------------------------------------------------------------- the server's face

/// A position of any orthodox-family variant, with the history the
/// repetition rule needs. Implements [`Position`].
#[derive(Clone, Debug)]
pub struct OrthoPosition {
    board: Board,
    /// Repetition keys since the last capture or pawn move, current last.
    history: Vec<String>,
}

impl OrthoPosition {
    pub fn new(board: Board) -> OrthoPosition {
        let key = board.repetition_key();
        OrthoPosition {
            board,
            history: vec![key],
        }
    }

    pub fn start(variant: &'static Variant) -> OrthoPosition {
        OrthoPosition::new(Board::start(variant))
    }

    pub fn from_fen(variant: &'static Variant, text: &str) -> Result<OrthoPosition, SetupError> {
        Ok(OrthoPosition::new(Board::from_fen(variant, text)?))
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// How often the current position has occurred (this one included).
    pub fn repetitions(&self) -> usize {
        let now = self.history.last().expect("history holds the current key");
        self.history.iter().filter(|k| *k == now).count()
    }

    /// Apply a legal move, keeping the history.
    pub fn make(&mut self, m: Move) {
        self.board.make(m);
        if self.board.halfmove == 0 {
            self.history.clear();
        }
        self.history.push(self.board.repetition_key());
    }
}

impl Position for OrthoPosition {
    fn game(&self) -> &'static dyn Game {
        self.board.variant.game
    }

    fn to_text(&self) -> String {
        self.board.fen()
    }

    fn to_act(&self) -> Color {
        self.board.side
    }

    fn outcome(&self) -> Outcome {
        let b = &self.board;
        if !b.has_legal_move() {
            return if b.is_check() {
                Outcome::Won {
                    winner: b.side.opponent(),
                    ending: Ending::Checkmate,
                }
            } else {
                Outcome::Drawn {
                    ending: Ending::Stalemate,
                }
            };
        }
        let ending = if b.halfmove >= 100 {
            Ending::FiftyMoveRule
        } else if self.repetitions() >= 3 {
            Ending::Repetition
        } else if b.insufficient_material() {
            Ending::InsufficientMaterial
        } else {
            return Outcome::Ongoing;
        };
        Outcome::Drawn { ending }
    }

    fn play(&mut self, input: &str) -> Result<Played, MoveError> {
        if self.outcome().is_over() {
            return Err(MoveError::GameOver);
        }
        let m = self.board.parse_move(input)?;
        let notation = self.board.san(m);
        self.make(m);
        Ok(Played {
            notation,
            events: Vec::new(),
        })
    }

    /// Empty once the game is over, draws included (as `play` refuses).
    fn legal_actions(&self) -> Vec<String> {
        if self.outcome().is_over() {
            return Vec::new();
        }
        self.board.legal_sans()
    }

    fn perft(&self, depth: u32) -> u64 {
        self.board.perft(depth)
    }

    fn diagram(&self) -> Diagram {
        let g = self.board.variant.geometry;
        let mut grid = Grid::empty("", g.files(), g.ranks());
        for sq in g.squares() {
            if let Some(p) = self.board.piece_at(sq) {
                grid.put(
                    sq.file(),
                    sq.rank(),
                    Glyph {
                        color: p.color,
                        letter: p.kind.letter(),
                    },
                );
            }
        }
        Diagram {
            boards: vec![grid],
            notes: Vec::new(),
        }
    }

    fn clone_box(&self) -> Box<dyn Position> {
        Box::new(self.clone())
    }
}

/// Whether a slider of kind `piece` or `queen` attacks square `s` along
/// one of `directions` (the first occupied cell on each ray decides).
#[inline]
fn slider_attacks(cells: &[u8], s: isize, directions: &[isize], piece: u8, queen: u8) -> bool {
    directions.iter().any(|&d| {
        let mut t = s + d;
        loop {
            match cells[t as usize] {
                EMPTY => t += d,
                x => return x == piece || x == queen,
            }
        }
    })
}
