//! FEN in two steps, as shakmaty does it: [`Setup::parse`] reads the text
//! into a plain record (refusing only what is not FEN), then
//! [`State::from_setup`] validates the record into a playable position
//! (refusing what no game can reach). Each step has its own typed error;
//! both become a [`SetupError`] whose sentence is mailed as is.
//!
//! Fields after FEN's six that are `key=value` belong to the variant
//! ([`Hooks::read_fields`]); chess has none.

use super::super::board::Square;
use super::super::{Color, SetupError};
use super::hooks::Hooks;
use super::pieces::{Kind, Piece, Tag};
use super::state::State;
use super::variant::Variant;

/// A FEN read but not yet validated: what the text says, nothing more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Every piece with its square, in the order the text lists them.
    pub placement: Vec<(Square, Piece)>,
    pub side: Color,
    /// Indexes into the variant's castling table.
    pub castling: Vec<usize>,
    pub en_passant: Option<Square>,
    pub halfmove: u32,
    pub fullmove: u32,
    /// The variant's `key=value` fields after the six.
    pub extra: Vec<String>,
}

/// Why a text is not FEN for this game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("FEN has {0} fields; it needs 6 (placement, side, castling, en passant, halfmove clock, move number)")]
    FieldCount(usize),
    #[error("the placement has {found} ranks; it needs {needed}")]
    RankCount { found: usize, needed: u8 },
    #[error("rank {rank} has an empty run of 0")]
    ZeroRun { rank: u8 },
    #[error("'{letter}' on rank {rank} is no piece letter")]
    NotAPiece { letter: char, rank: u8 },
    #[error("rank {rank} describes {found} squares; it needs {needed}")]
    RankWidth { rank: u8, found: u32, needed: u8 },
    #[error("the side to move is '{0}'; write w or b")]
    Side(String),
    #[error("'{0}' is not a castling right in this game")]
    CastlingLetter(char),
    #[error("'{0}' is not an en passant square")]
    EnPassantSquare(String),
    #[error("the halfmove clock '{0}' is not a number")]
    Halfmove(String),
    #[error("the move number '{0}' is not a number from 1")]
    Fullmove(String),
}

/// Why a well-formed FEN is no playable position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("{} has {count} kings; each side needs exactly one", .color.name())]
    KingCount { color: Color, count: usize },
    #[error("a pawn stands on {0}, on a back rank")]
    PawnOnBackRank(Square),
    #[error("castling right {letter} needs the {} king on {king} and a {partner} on {rook}", .color.name().to_lowercase())]
    CastlingPieces {
        letter: char,
        color: Color,
        king: Square,
        partner: &'static str,
        rook: Square,
    },
    #[error("the en passant square {0} does not follow a pawn's double step")]
    EnPassant(Square),
    #[error("{} is in check but it is {}'s move", .side.opponent().name(), .side.name())]
    OpponentInCheck { side: Color },
}

impl From<FenError> for SetupError {
    fn from(e: FenError) -> SetupError {
        SetupError::InvalidText(e.to_string())
    }
}

impl From<PositionError> for SetupError {
    fn from(e: PositionError) -> SetupError {
        SetupError::Illegal(e.to_string())
    }
}

impl Setup {
    /// Read FEN for `variant`. The two counters may be left out (0 1).
    pub fn parse<H: Hooks>(variant: &Variant<H>, text: &str) -> Result<Setup, FenError> {
        let g = variant.geometry;
        let mut fields: Vec<&str> = text.split_whitespace().collect();
        let first_extra = fields
            .iter()
            .rposition(|f| !f.contains('='))
            .map_or(0, |i| i + 1);
        let extra: Vec<String> = fields
            .split_off(first_extra)
            .into_iter()
            .map(String::from)
            .collect();
        if fields.len() != 6 && fields.len() != 4 {
            return Err(FenError::FieldCount(fields.len()));
        }
        let placement = parse_placement(variant, fields[0])?;
        let side = match fields[1] {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            other => return Err(FenError::Side(other.to_string())),
        };
        let mut castling = Vec::new();
        if fields[2] != "-" {
            for c in fields[2].chars() {
                let i = variant
                    .castlings
                    .iter()
                    .position(|k| k.fen_letter() == c)
                    .ok_or(FenError::CastlingLetter(c))?;
                castling.push(i);
            }
        }
        let en_passant = match fields[3] {
            "-" => None,
            text => Some(
                g.parse_square(text)
                    .ok_or_else(|| FenError::EnPassantSquare(text.to_string()))?,
            ),
        };
        let (mut halfmove, mut fullmove) = (0, 1);
        if fields.len() == 6 {
            halfmove = fields[4]
                .parse()
                .map_err(|_| FenError::Halfmove(fields[4].to_string()))?;
            fullmove = fields[5]
                .parse()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| FenError::Fullmove(fields[5].to_string()))?;
        }
        Ok(Setup {
            placement,
            side,
            castling,
            en_passant,
            halfmove,
            fullmove,
            extra,
        })
    }
}

/// The placement field: every piece with its square, rank by rank from
/// the top as the text lists them.
fn parse_placement<H: Hooks>(
    variant: &Variant<H>,
    field: &str,
) -> Result<Vec<(Square, Piece)>, FenError> {
    let g = variant.geometry;
    let rows: Vec<&str> = field.split('/').collect();
    if rows.len() != g.ranks() as usize {
        return Err(FenError::RankCount {
            found: rows.len(),
            needed: g.ranks(),
        });
    }
    let mut placement = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let rank = g.ranks() - 1 - i as u8;
        let mut file: u32 = 0;
        let mut run: u32 = 0;
        let chars: Vec<char> = row.chars().collect();
        for (j, &c) in chars.iter().enumerate() {
            if let Some(d) = c.to_digit(10) {
                run = run.saturating_mul(10).saturating_add(d).min(1000);
                if run == 0 {
                    return Err(FenError::ZeroRun { rank: rank + 1 });
                }
                if j + 1 == chars.len() || !chars[j + 1].is_ascii_digit() {
                    file = file.saturating_add(run);
                    run = 0;
                }
                continue;
            }
            let kind = variant.hooks.kind_of_letter(c).ok_or(FenError::NotAPiece {
                letter: c,
                rank: rank + 1,
            })?;
            if let Some(sq) = u8::try_from(file).ok().and_then(|f| g.square(f, rank)) {
                placement.push((sq, Piece::new(Color::of_case(c), kind)));
            }
            // Beyond the board: counted, refused below.
            file += 1;
        }
        if file != g.files() as u32 {
            return Err(FenError::RankWidth {
                rank: rank + 1,
                found: file,
                needed: g.files(),
            });
        }
    }
    Ok(placement)
}

impl<H: Hooks> State<H> {
    /// Read and validate a FEN (with the variant's extra fields).
    pub fn from_fen(variant: &'static Variant<H>, text: &str) -> Result<State<H>, SetupError> {
        let setup = Setup::parse(variant, text)?;
        let mut state = State::from_setup(variant, &setup)?;
        let extra: Vec<&str> = setup.extra.iter().map(String::as_str).collect();
        variant.hooks.read_fields(&mut state, &extra)?;
        Ok(state)
    }

    /// Validate a setup into a playable position: one king a side, no pawn
    /// on a back rank, castling rights backed by king and partner on their
    /// squares, an en passant square right behind a pawn that just
    /// double-stepped, and the side not to move not in check. The
    /// variant's [`Hooks::after_setup`] runs once the pieces are placed,
    /// before those tests.
    pub fn from_setup(
        variant: &'static Variant<H>,
        setup: &Setup,
    ) -> Result<State<H>, PositionError> {
        let g = variant.geometry;
        let mut kings: [Vec<Square>; 2] = [Vec::new(), Vec::new()];
        for &(sq, piece) in &setup.placement {
            if piece.kind == Kind::Pawn && (sq.rank() == 0 || sq.rank() == g.ranks() - 1) {
                return Err(PositionError::PawnOnBackRank(sq));
            }
            if piece.kind == Kind::King {
                kings[piece.color.index()].push(sq);
            }
        }
        for color in [Color::White, Color::Black] {
            let count = kings[color.index()].len();
            if count != 1 {
                return Err(PositionError::KingCount { color, count });
            }
        }
        let mut state = State {
            variant,
            cells: variant.empty_cells,
            side: setup.side,
            castling: 0,
            ep: None,
            halfmove: setup.halfmove,
            fullmove: setup.fullmove,
            kings: [kings[0][0], kings[1][0]],
        };
        for &(sq, piece) in &setup.placement {
            state.put(sq, Some((piece, Tag::NONE)));
        }
        variant.hooks.after_setup(&mut state);
        let partner = variant.hooks.castling_partner();
        for &i in &setup.castling {
            let c = &variant.castlings[i];
            if state.piece_at(c.king_from) != Some(Piece::new(c.color, Kind::King))
                || state.piece_at(c.rook_from) != Some(Piece::new(c.color, partner))
            {
                return Err(PositionError::CastlingPieces {
                    letter: c.fen_letter(),
                    color: c.color,
                    king: c.king_from,
                    partner: variant.hooks.kind_name(partner),
                    rook: c.rook_from,
                });
            }
            state.castling |= 1 << i;
        }
        if let Some(sq) = setup.en_passant {
            let side = setup.side;
            let (rank, pawn_dir) = match side {
                Color::White => (g.ranks() - 3, -1i8),
                Color::Black => (2, 1i8),
            };
            let pawn = g.step(sq, 0, pawn_dir);
            let origin = g.step(sq, 0, -pawn_dir);
            let ok = sq.rank() == rank
                && state.is_empty(sq)
                && origin.is_some_and(|o| state.is_empty(o))
                && pawn.is_some_and(|p| {
                    state.piece_at(p) == Some(Piece::new(side.opponent(), Kind::Pawn))
                });
            if !ok {
                return Err(PositionError::EnPassant(sq));
            }
            state.ep = Some(sq);
        }
        if state.attacked(state.king(setup.side.opponent()), setup.side) {
            return Err(PositionError::OpponentInCheck { side: setup.side });
        }
        Ok(state)
    }

    /// FEN of this position (en passant square after every double step),
    /// with the variant's extra fields.
    pub fn fen(&self) -> String {
        let mut s = format!(
            "{} {} {} {} {} {}",
            self.placement(),
            self.side.fen_letter(),
            self.castling_text(),
            self.ep.map_or("-".to_string(), |sq| sq.to_string()),
            self.halfmove,
            self.fullmove
        );
        for field in self.variant.hooks.write_fields(self) {
            s.push(' ');
            s.push_str(&field);
        }
        s
    }

    /// FEN's first field.
    pub(crate) fn placement(&self) -> String {
        let g = self.variant.geometry;
        let hooks = &self.variant.hooks;
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
                        s.push(p.color.cased(hooks.letter(p.kind)));
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

    /// FEN's castling field (`KQkq`, `-`).
    pub(crate) fn castling_text(&self) -> String {
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
}
