//! Position text (docs/rules.md §4):
//! `<main> <shadow> <side> <castling> <ep> <halfmove> <fullmove> <pending>`.
//! Main ranks as FEN with chimeras bracketed (`[RN]`), shadow ranks with
//! stacks parenthesised (`(NPp)`), White before Black and each in K Q R B
//! N P order when written (any order read).

use super::super::orthodox::Kind;
use super::super::{Color, SetupError};
use super::state::{forward, pawn_ranks, Pending, State, CASTLE_LETTERS};
use super::units::{slot, Sq, Unit};

fn invalid(msg: impl Into<String>) -> SetupError {
    SetupError::InvalidText(msg.into())
}

fn illegal(msg: impl Into<String>) -> SetupError {
    SetupError::Illegal(msg.into())
}

/// One square's contents as read: the pieces with their colours.
type Group = Vec<(Color, Kind)>;

/// Read one board's ranks (8 → 1) into a group per square. `open`/`close`
/// delimit a multi-piece group.
fn read_board(text: &str, open: char, close: char, which: &str) -> Result<Vec<Group>, SetupError> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != 8 {
        return Err(invalid(format!(
            "the {which} board has {} ranks; it needs 8",
            rows.len()
        )));
    }
    let mut squares = vec![Group::new(); 64];
    for (i, row) in rows.iter().enumerate() {
        let rank = 7 - i as i8;
        let mut file: i8 = 0;
        let mut chars = row.chars();
        while let Some(c) = chars.next() {
            let group: Group = if let Some(d) = c.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(invalid(format!(
                        "rank {} of the {which} board has a run of {d}",
                        rank + 1
                    )));
                }
                // Runs are added up to at most 8 files (a long row of
                // digits must not overflow the counter).
                file += d as i8;
                if file > 8 {
                    return Err(invalid(format!(
                        "rank {} of the {which} board describes more than 8 squares",
                        rank + 1
                    )));
                }
                continue;
            } else if c == open {
                let mut group = Group::new();
                loop {
                    match chars.next() {
                        Some(x) if x == close => break,
                        Some(x) => group.push(piece(x, rank, which)?),
                        None => {
                            return Err(invalid(format!(
                                "rank {} of the {which} board opens '{open}' without '{close}'",
                                rank + 1
                            )))
                        }
                    }
                }
                if group.is_empty() {
                    return Err(invalid(format!(
                        "rank {} of the {which} board has an empty group",
                        rank + 1
                    )));
                }
                group
            } else {
                vec![piece(c, rank, which)?]
            };
            let sq = Sq::at(file, rank).ok_or_else(|| {
                invalid(format!(
                    "rank {} of the {which} board describes more than 8 squares",
                    rank + 1
                ))
            })?;
            squares[sq.index()] = group;
            file += 1;
        }
        if file != 8 {
            return Err(invalid(format!(
                "rank {} of the {which} board describes {file} squares; it needs 8",
                rank + 1
            )));
        }
    }
    Ok(squares)
}

fn piece(c: char, rank: i8, which: &str) -> Result<(Color, Kind), SetupError> {
    let kind = Kind::from_letter(c).ok_or_else(|| {
        invalid(format!(
            "'{c}' on rank {} of the {which} board is no piece letter",
            rank + 1
        ))
    })?;
    Ok((Color::of_case(c), kind))
}

/// Write one board: `cell` gives each square's text (empty for none).
fn write_board(cell: impl Fn(Sq) -> String) -> String {
    let mut out = String::new();
    for rank in (0..8).rev() {
        let mut run = 0;
        for file in 0..8 {
            let text = cell(Sq::at(file, rank).expect("on board"));
            if text.is_empty() {
                run += 1;
                continue;
            }
            if run > 0 {
                out.push_str(&run.to_string());
                run = 0;
            }
            out.push_str(&text);
        }
        if run > 0 {
            out.push_str(&run.to_string());
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out
}

impl State {
    /// Read and validate a position text.
    pub fn from_text(text: &str) -> Result<State, SetupError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 8 {
            return Err(invalid(format!(
                "the position has {} fields; it needs 8 (main board, shadow board, side, castling, en passant, halfmove clock, move number, pending reveals)",
                fields.len()
            )));
        }
        let mut state = State {
            main: [None; 64],
            shadow: [[[0; 6]; 2]; 64],
            side: Color::White,
            castling: 0,
            ep: None,
            halfmove: 0,
            fullmove: 1,
            pending: Vec::new(),
        };
        state.read_main_board(fields[0])?;
        state.read_shadow_board(fields[1])?;
        state.check_pawn_ranks()?;
        state.side = match fields[2] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(invalid(format!(
                    "the side to move is '{other}'; write w or b"
                )))
            }
        };
        state.read_castling(fields[3])?;
        state.read_ep(fields[4])?;
        state.read_clocks(fields[5], fields[6])?;
        state.read_pending(fields[7])?;
        Ok(state)
    }

    /// The main board's field: one unit (of one colour) a square.
    fn read_main_board(&mut self, field: &str) -> Result<(), SetupError> {
        for (i, group) in read_board(field, '[', ']', "main")?.into_iter().enumerate() {
            let Some(&(color, _)) = group.first() else {
                continue;
            };
            if group.iter().any(|&(c, _)| c != color) {
                return Err(illegal(format!(
                    "the chimera on {} mixes colours; a main-board square holds one colour",
                    Sq::all().nth(i).expect("square")
                )));
            }
            let mut unit = Unit {
                color,
                parts: [0; 6],
            };
            for (_, kind) in group {
                unit.parts[slot(kind)] += 1;
            }
            self.main[i] = Some(unit);
        }
        Ok(())
    }

    /// The shadow board's field: any shadows of either colour a square.
    fn read_shadow_board(&mut self, field: &str) -> Result<(), SetupError> {
        for (i, group) in read_board(field, '(', ')', "shadow")?
            .into_iter()
            .enumerate()
        {
            for (color, kind) in group {
                self.shadow[i][color.index()][slot(kind)] += 1;
            }
        }
        Ok(())
    }

    /// No lone pawn on a back rank, no pawn shadow on its last rank.
    fn check_pawn_ranks(&self) -> Result<(), SetupError> {
        for sq in Sq::all() {
            let (_, white_last) = pawn_ranks(Color::White);
            let (_, black_last) = pawn_ranks(Color::Black);
            let back = sq.rank() == white_last || sq.rank() == black_last;
            // A chimera may carry its pawn anywhere; a lone pawn never
            // stands on a back rank (it would have promoted, or never left
            // its second rank backwards).
            let pawn_main = self.unit(sq) == Some(Unit::piece(Color::White, Kind::Pawn))
                || self.unit(sq) == Some(Unit::piece(Color::Black, Kind::Pawn));
            let pawn_shadow = [Color::White, Color::Black]
                .into_iter()
                .any(|c| self.shadows(sq, c, Kind::Pawn) > 0 && sq.rank() == pawn_ranks(c).1);
            if (back && pawn_main) || pawn_shadow {
                return Err(illegal(format!("a pawn stands on {sq}, on a last rank")));
            }
        }
        Ok(())
    }

    /// The castling field, each right backed by a lone king and rook.
    fn read_castling(&mut self, field: &str) -> Result<(), SetupError> {
        if field != "-" {
            for c in field.chars() {
                let bit = CASTLE_LETTERS.iter().position(|&l| l == c).ok_or_else(|| {
                    invalid(format!("'{c}' is not a castling right; write KQkq or -"))
                })?;
                self.castling |= 1 << bit;
            }
        }
        for (bit, letter) in CASTLE_LETTERS.iter().enumerate() {
            if self.castling & (1 << bit) == 0 {
                continue;
            }
            let color = if bit < 2 { Color::White } else { Color::Black };
            let (k, _, r, _) = super::state::castle_squares(color, bit % 2 == 0);
            if self.unit(k) != Some(Unit::piece(color, Kind::King))
                || self.unit(r) != Some(Unit::piece(color, Kind::Rook))
            {
                return Err(illegal(format!(
                    "castling right {letter} needs a lone king on {k} and a lone rook on {r}"
                )));
            }
        }
        Ok(())
    }

    /// The en passant field (the side to move already read).
    fn read_ep(&mut self, field: &str) -> Result<(), SetupError> {
        if field == "-" {
            return Ok(());
        }
        let sq = Sq::parse(field)
            .ok_or_else(|| invalid(format!("'{field}' is not an en passant square")))?;
        let mover = self.side.opponent();
        let ok = sq.rank() == pawn_ranks(mover).0 + forward(mover)
            && self.unit(sq).is_none()
            && sq
                .step(0, forward(mover))
                .and_then(|p| self.unit(p))
                .is_some_and(|u| u.color == mover && u.has(Kind::Pawn));
        if !ok {
            return Err(illegal(format!(
                "the en passant square {sq} does not follow a pawn's double step"
            )));
        }
        self.ep = Some(sq);
        Ok(())
    }

    /// The halfmove clock and move number fields.
    fn read_clocks(&mut self, halfmove: &str, fullmove: &str) -> Result<(), SetupError> {
        self.halfmove = halfmove
            .parse()
            .map_err(|_| invalid(format!("the halfmove clock '{halfmove}' is not a number")))?;
        self.fullmove = fullmove.parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
            invalid(format!(
                "the move number '{fullmove}' is not a number from 1"
            ))
        })?;
        Ok(())
    }

    /// The pending reveals field; the first must have a choice to make.
    fn read_pending(&mut self, field: &str) -> Result<(), SetupError> {
        if field == "-" {
            return Ok(());
        }
        for entry in field.split(',') {
            let mut chars = entry.chars();
            let (owner, kind) = chars
                .next()
                .and_then(|c| Some((Color::of_case(c), Kind::from_letter(c)?)))
                .ok_or_else(|| {
                    invalid(format!("'{entry}' is no pending reveal; write e.g. nd7"))
                })?;
            let taken_on = Sq::parse(chars.as_str()).ok_or_else(|| {
                invalid(format!("'{entry}' is no pending reveal; write e.g. nd7"))
            })?;
            self.pending.push(Pending {
                owner,
                kind,
                taken_on,
            });
        }
        let head = self.pending[0];
        if self.reveal_candidates(head.owner, head.kind).len() < 2 {
            return Err(illegal(format!(
                "the first pending reveal ({}{}) has no choice to make; only a reveal with two or more candidate squares waits",
                head.owner.cased(head.kind.letter()),
                head.taken_on
            )));
        }
        Ok(())
    }

    /// The main board's text.
    pub(crate) fn main_text(&self) -> String {
        write_board(|sq| self.unit(sq).map_or(String::new(), |u| u.text()))
    }

    /// The shadow board's text.
    pub(crate) fn shadow_text(&self) -> String {
        write_board(|sq| {
            let letters: String = [Color::White, Color::Black]
                .into_iter()
                .flat_map(|c| self.stack(sq, c).map(move |k| c.cased(k.letter())))
                .collect();
            if letters.chars().count() > 1 {
                format!("({letters})")
            } else {
                letters
            }
        })
    }

    pub(crate) fn castling_text(&self) -> String {
        let s: String = CASTLE_LETTERS
            .iter()
            .enumerate()
            .filter(|(bit, _)| self.castling & (1 << bit) != 0)
            .map(|(_, &c)| c)
            .collect();
        if s.is_empty() {
            "-".into()
        } else {
            s
        }
    }

    /// The pending queue's text, with or without the squares.
    pub(crate) fn pending_text(&self, squares: bool) -> String {
        if self.pending.is_empty() {
            return "-".into();
        }
        let entries: Vec<String> = self
            .pending
            .iter()
            .map(|p| {
                let letter = p.owner.cased(p.kind.letter());
                if squares {
                    format!("{letter}{}", p.taken_on)
                } else {
                    letter.to_string()
                }
            })
            .collect();
        entries.join(",")
    }

    /// The position text.
    pub fn to_text(&self) -> String {
        format!(
            "{} {} {} {} {} {} {} {}",
            self.main_text(),
            self.shadow_text(),
            self.side.fen_letter(),
            self.castling_text(),
            self.ep.map_or("-".into(), |s| s.to_string()),
            self.halfmove,
            self.fullmove,
            self.pending_text(true)
        )
    }

    /// What the repetition rule compares: both boards, side, castling, en
    /// passant and the pending queue as (owner, kind).
    pub fn repetition_key(&self) -> String {
        format!(
            "{} {} {} {} {} {}",
            self.main_text(),
            self.shadow_text(),
            self.side.fen_letter(),
            self.castling_text(),
            self.ep.map_or("-".into(), |s| s.to_string()),
            self.pending_text(false)
        )
    }
}
