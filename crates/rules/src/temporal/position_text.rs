//! Position text (docs/rules.md §5): one line of `key=value` fields,
//!
//! ```text
//! phase=play side=w white=K@Aa1,R@Ab1(C1),R@Bb1 black=R@Ad1,U@Cc3(V2),K@Dd4 wres=N1 bres=U1 clock=0
//! ```
//!
//! read into a plain [`Setup`] and validated into a [`State`].
//!
//! # Rulings
//! - All seven fields are required, each once, in any order; they are
//!   written in the order above. Piece letters may be given in either
//!   case; cells as `Bc3`.
//! - A reserve holds at most the starting set (K1 Q1 R2 B2 N2 U8); the
//!   field may hold more (duplicates come from an unlimited supply).
//! - While the kings are placed (`phase=place`) the field holds only the
//!   kings placed so far, there are no warps, and the side to act still
//!   has its king in reserve (White acts first, so with `side=b` White's
//!   king is on the field).
//! - Once in play, no king is in reserve, and each side has exactly one
//!   royal king: an active king that is no original, or a vanished king;
//!   a countered original king comes only with its duplicate.
//! - The side that is not to act may not have its royal king attacked (its
//!   last turn would have been illegal); this includes standing on a cell
//!   where the side to act has a vanished piece with 1 counter left.

use super::super::cube::Cell;
use super::super::{Color, SetupError};
use super::field::{cell, index, Phase, Royal, State, CELLS};
use super::pieces::{Kind, Piece, Reserve};
use super::warps::{Warp, WarpKind, MAX_COUNTERS};

/// A warp mark after a piece: `(V2)` or `(C1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Vanished(u8),
    Original(u8),
}

/// One listed piece: `U@Cc3(V2)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    pub cell: Cell,
    pub mark: Option<Mark>,
}

/// A position text read but not validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub phase: Phase,
    pub side: Color,
    /// By [`Color::index`].
    pub pieces: [Vec<Entry>; 2],
    pub reserves: [Reserve; 2],
    pub clock: u32,
}

const KEYS: [&str; 7] = ["phase", "side", "white", "black", "wres", "bres", "clock"];

fn invalid(message: impl Into<String>) -> SetupError {
    SetupError::InvalidText(message.into())
}

fn illegal(message: impl Into<String>) -> SetupError {
    SetupError::Illegal(message.into())
}

impl Setup {
    /// Read the fields.
    pub fn parse(text: &str) -> Result<Setup, SetupError> {
        let mut values: [Option<&str>; 7] = [None; 7];
        for field in text.split_whitespace() {
            let Some((key, value)) = field.split_once('=') else {
                return Err(invalid(format!(
                    "'{field}' is not a key=value field; the fields are {}.",
                    KEYS.join(", ")
                )));
            };
            let Some(k) = KEYS.iter().position(|&k| k == key) else {
                return Err(invalid(format!(
                    "there is no field '{key}'; the fields are {}.",
                    KEYS.join(", ")
                )));
            };
            if values[k].replace(value).is_some() {
                return Err(invalid(format!("the field {key} is given twice.")));
            }
        }
        let missing: Vec<&str> = KEYS
            .iter()
            .zip(values)
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| *k)
            .collect();
        if !missing.is_empty() {
            return Err(invalid(format!(
                "the field{} {} {} missing.",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", "),
                if missing.len() == 1 { "is" } else { "are" }
            )));
        }
        let v = |k: usize| values[k].unwrap_or_default();
        let phase = match v(0) {
            "place" => Phase::Place,
            "play" => Phase::Play,
            "won-w" => Phase::Won(Color::White),
            "won-b" => Phase::Won(Color::Black),
            other => {
                return Err(invalid(format!(
                    "phase is place, play, won-w or won-b, not '{other}'."
                )))
            }
        };
        let side = match v(1) {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(invalid(format!("side is w or b, not '{other}'."))),
        };
        let pieces = [parse_pieces("white", v(2))?, parse_pieces("black", v(3))?];
        let reserves = [parse_reserve("wres", v(4))?, parse_reserve("bres", v(5))?];
        let clock = v(6)
            .parse::<u32>()
            .map_err(|_| invalid(format!("clock is a number of plies, not '{}'.", v(6))))?;
        Ok(Setup {
            phase,
            side,
            pieces,
            reserves,
            clock,
        })
    }
}

fn parse_pieces(key: &str, value: &str) -> Result<Vec<Entry>, SetupError> {
    if value == "-" {
        return Ok(Vec::new());
    }
    value
        .split(',')
        .map(|item| {
            parse_entry(item).ok_or_else(|| {
                invalid(format!(
                    "'{item}' in {key} is not a piece; write TYPE@CELL like N@Cb2 (TYPE one of K Q R B N U), with (V2) after a vanished piece or (C1) after an original."
                ))
            })
        })
        .collect()
}

fn parse_entry(item: &str) -> Option<Entry> {
    let (body, mark) = match item.split_once('(') {
        Some((body, rest)) => {
            let inner = rest.strip_suffix(')')?;
            let mut chars = inner.chars();
            let letter = chars.next()?;
            let n: u8 = chars.as_str().parse().ok()?;
            let mark = match letter {
                'V' => Mark::Vanished(n),
                'C' => Mark::Original(n),
                _ => return None,
            };
            (body, Some(mark))
        }
        None => (item, None),
    };
    let (letter, at) = body.split_once('@')?;
    let mut letters = letter.chars();
    let kind = Kind::from_letter(letters.next()?)?;
    if letters.next().is_some() {
        return None;
    }
    Some(Entry {
        kind,
        cell: super::field::CUBE.parse_cell(at)?,
        mark,
    })
}

fn parse_reserve(key: &str, value: &str) -> Result<Reserve, SetupError> {
    let mut reserve = Reserve::default();
    if value == "-" {
        return Ok(reserve);
    }
    let bad = || {
        invalid(format!(
            "{key} '{value}' is not a reserve; write counts in the order K Q R B N U with zeros left out, like Q1R2B2N2U8, or -."
        ))
    };
    let mut rest = value;
    let mut last: Option<Kind> = None;
    while !rest.is_empty() {
        let mut chars = rest.chars();
        let kind = chars.next().and_then(Kind::from_letter).ok_or_else(bad)?;
        if last.is_some_and(|l| l >= kind) {
            return Err(bad());
        }
        let tail = chars.as_str();
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let n: u8 = tail[..digits].parse().map_err(|_| bad())?;
        if n == 0 {
            return Err(bad());
        }
        reserve = reserve.with(kind, n).ok_or_else(|| {
            illegal(format!(
                "{key} holds {}; a reserve holds at most {}.",
                kind.counted(n),
                kind.counted(Reserve::FULL.count(kind))
            ))
        })?;
        last = Some(kind);
        rest = &tail[digits..];
    }
    Ok(reserve)
}

impl State {
    /// A validated position from a setup.
    pub fn from_setup(setup: &Setup) -> Result<State, SetupError> {
        let mut s = State {
            board: [None; CELLS],
            warps: [None; 2],
            reserves: setup.reserves,
            side: setup.side,
            phase: setup.phase,
            clock: setup.clock,
        };
        for color in [Color::White, Color::Black] {
            for e in &setup.pieces[color.index()] {
                let at = index(e.cell);
                let mut place = |kind: WarpKind, n: u8| -> Result<(), SetupError> {
                    if !(1..=MAX_COUNTERS).contains(&n) {
                        return Err(illegal(format!(
                            "{} on {} carries {n} counters; a warp carries 1 to 6.",
                            Piece::new(color, e.kind).described(),
                            e.cell
                        )));
                    }
                    if s.warps[color.index()].is_some() {
                        return Err(illegal(format!(
                            "{} has two warps; a player has at most one.",
                            color.name()
                        )));
                    }
                    s.warps[color.index()] = Some(Warp {
                        kind,
                        cell: at,
                        counters: n,
                    });
                    Ok(())
                };
                match e.mark {
                    Some(Mark::Vanished(n)) => {
                        place(WarpKind::Vanished(e.kind), n)?;
                        continue;
                    }
                    Some(Mark::Original(n)) => place(WarpKind::Original, n)?,
                    None => {}
                }
                if let Some(p) = s.board[at as usize] {
                    return Err(illegal(format!(
                        "{} holds two active pieces ({} and {}).",
                        e.cell,
                        p.described(),
                        Piece::new(color, e.kind).described()
                    )));
                }
                s.board[at as usize] = Some(Piece::new(color, e.kind));
            }
        }
        s.validate()?;
        Ok(s)
    }

    fn validate(&self) -> Result<(), SetupError> {
        let kings = |color: Color| -> Vec<u8> {
            (0..CELLS as u8)
                .filter(|&i| self.board[i as usize] == Some(Piece::new(color, Kind::King)))
                .collect()
        };
        if self.phase == Phase::Place {
            let others = self.pieces().any(|(_, p)| p.kind != Kind::King);
            if others || self.warps.iter().any(Option::is_some) {
                return Err(illegal(
                    "while the kings are placed, the field holds only kings and there are no warps.",
                ));
            }
            let (w, b) = (kings(Color::White).len(), kings(Color::Black).len());
            let placed = match self.side {
                Color::White => (w, b) == (0, 0),
                Color::Black => (w, b) == (1, 0),
            };
            let held = |c: Color| self.reserves[c.index()].count(Kind::King) == 1;
            let reserves = match self.side {
                Color::White => held(Color::White) && held(Color::Black),
                Color::Black => !held(Color::White) && held(Color::Black),
            };
            if !placed || !reserves {
                return Err(illegal(
                    "while the kings are placed, White places first: with side=w neither king is on the field, with side=b only White's is, and a king not placed is in its reserve.",
                ));
            }
            return Ok(());
        }
        for color in [Color::White, Color::Black] {
            if self.reserves[color.index()].count(Kind::King) > 0 {
                return Err(illegal(format!(
                    "{} has a king in reserve, but the kings are placed before play.",
                    color.name()
                )));
            }
            let royal = kings(color)
                .into_iter()
                .filter(|&k| self.original(color) != Some(k))
                .count()
                + usize::from(matches!(self.royal(color), Royal::Vanished(_)));
            if royal != 1 {
                return Err(illegal(format!(
                    "{} has {royal} royal kings; each side has exactly one (an active king that is no original, or a vanished king).",
                    color.name()
                )));
            }
            if let Some(c) = self.original(color) {
                if self.board[c as usize].is_none_or(|p| p.color != color) {
                    return Err(illegal(format!(
                        "{}'s original on {} is missing.",
                        color.name(),
                        cell(c)
                    )));
                }
            }
        }
        let waiting = self.side.opponent();
        if let Royal::Active(k) = self.royal(waiting) {
            if self.dangerous(k, waiting) {
                return Err(illegal(format!(
                    "{}'s king on {} is attacked, but it is {}'s turn.",
                    waiting.name(),
                    cell(k),
                    self.side.name()
                )));
            }
        }
        Ok(())
    }

    /// The position text.
    pub fn to_text(&self) -> String {
        let phase = match self.phase {
            Phase::Place => "place",
            Phase::Play => "play",
            Phase::Won(Color::White) => "won-w",
            Phase::Won(Color::Black) => "won-b",
        };
        format!(
            "phase={phase} side={} white={} black={} wres={} bres={} clock={}",
            self.side.fen_letter(),
            self.pieces_text(Color::White),
            self.pieces_text(Color::Black),
            self.reserves[0],
            self.reserves[1],
            self.clock
        )
    }

    /// `K@Aa1,R@Ab1(C1)`: by cell, active before vanished, or `-`.
    fn pieces_text(&self, color: Color) -> String {
        let warp = self.warps[color.index()];
        let mut items = Vec::new();
        for i in 0..CELLS as u8 {
            if let Some(p) = self.board[i as usize].filter(|p| p.color == color) {
                let mark = match warp {
                    Some(w) if w.kind == WarpKind::Original && w.cell == i => {
                        format!("(C{})", w.counters)
                    }
                    _ => String::new(),
                };
                items.push(format!("{}@{}{mark}", p.kind.letter(), cell(i)));
            }
            if let Some(Warp {
                kind: WarpKind::Vanished(kind),
                counters,
                ..
            }) = warp.filter(|w| w.cell == i)
            {
                items.push(format!("{}@{}(V{counters})", kind.letter(), cell(i)));
            }
        }
        if items.is_empty() {
            "-".into()
        } else {
            items.join(",")
        }
    }
}
