//! Which pieces are partners: finding a partner, numbering a new pair, the
//! `pairs=` position field and the pair notes under a drawn board.
//!
//! # Rulings (the `pairs=` field, docs/rules.md §2)
//! - `pairs=a1h1,c3f6` lists each pair by its two squares; both squares
//!   hold rooks, knights or bishops of one side and kind, and no square is
//!   named twice. With the field, every piece it does not name is unpaired;
//!   `pairs=-` says that no piece is paired.
//! - Without the field, two pieces of one side and kind are a pair and a
//!   single one is unpaired; three or more of a side and kind need the field
//!   (the text is refused without it).
//! - The field is written only when the default reading would be wrong
//!   (three or more of a kind, or two that are not partners), with every
//!   pair in it: each pair's squares a1 first, the pairs in the order of
//!   their first squares. So a position reached in play writes one text,
//!   and that text reads back to the same position.
//! - A set-up position holds at most 16 pieces a side.

use super::super::board::Square;
use super::super::orthodox::{Kind, Piece, State, Tag};
use super::super::{Color, SetupError};
use super::DoppelHooks;

/// The kinds that come in pairs.
const PAIRED: [Kind; 3] = [Kind::Rook, Kind::Knight, Kind::Bishop];

/// The square of the piece like `piece` carrying pair number `tag`
/// (`None` for an unpaired piece, or one whose partner is gone).
pub fn find(state: &State<DoppelHooks>, piece: Piece, tag: Tag) -> Option<Square> {
    if tag == Tag::NONE {
        return None;
    }
    state
        .pieces()
        .find(|&(sq, p)| p == piece && state.tag_at(sq) == tag)
        .map(|(sq, _)| sq)
}

/// The lowest pair number no piece like `piece` carries. With at most 16
/// pieces a side (checked when a position is read; play never adds one)
/// a side has at most six pairs of a kind when it promotes, so one is
/// always free; should none be, the new piece stays unpaired rather than
/// joining a pair.
pub fn free_tag(state: &State<DoppelHooks>, piece: Piece) -> Tag {
    let used: Vec<Tag> = state
        .pieces()
        .filter(|&(_, p)| p == piece)
        .map(|(sq, _)| state.tag_at(sq))
        .collect();
    (1..=Tag::MAX)
        .filter_map(Tag::new)
        .find(|t| !used.contains(t))
        .unwrap_or(Tag::NONE)
}

/// Every pair, each as its two squares (a1 first), ordered by the first.
pub fn all(state: &State<DoppelHooks>) -> Vec<(Square, Square)> {
    let mut out = Vec::new();
    for (sq, p) in state.pieces() {
        let tag = state.tag_at(sq);
        if tag == Tag::NONE || !PAIRED.contains(&p.kind) {
            continue;
        }
        let partner = state
            .pieces()
            .find(|&(o, q)| o > sq && q == p && state.tag_at(o) == tag);
        if let Some((o, _)) = partner {
            out.push((sq, o));
        }
    }
    out
}

/// The squares of `color`'s pieces of `kind`, a1 first.
fn squares_of(state: &State<DoppelHooks>, color: Color, kind: Kind) -> Vec<Square> {
    let piece = Piece::new(color, kind);
    state
        .pieces()
        .filter(|&(_, p)| p == piece)
        .map(|(sq, _)| sq)
        .collect()
}

/// Whether the pieces of one side and kind on `squares` are paired the way
/// the position text reads them without a `pairs=` field.
fn as_by_default(state: &State<DoppelHooks>, squares: &[Square]) -> bool {
    match squares {
        [] | [_] => true,
        [a, b] => state.tag_at(*a) != Tag::NONE && state.tag_at(*a) == state.tag_at(*b),
        _ => false,
    }
}

/// The `pairs=` field, when the default reading would be wrong.
pub fn write_field(state: &State<DoppelHooks>) -> Option<String> {
    let default = [Color::White, Color::Black].into_iter().all(|color| {
        PAIRED
            .iter()
            .all(|&kind| as_by_default(state, &squares_of(state, color, kind)))
    });
    if default {
        return None;
    }
    let pairs: Vec<String> = all(state)
        .into_iter()
        .map(|(a, b)| format!("{a}{b}"))
        .collect();
    Some(if pairs.is_empty() {
        "pairs=-".to_string()
    } else {
        format!("pairs={}", pairs.join(","))
    })
}

/// Pair the pieces of a position just read: by the `pairs=` field when
/// there is one, by the default reading otherwise.
pub fn read_field(state: &mut State<DoppelHooks>, fields: &[&str]) -> Result<(), SetupError> {
    for color in [Color::White, Color::Black] {
        let count = state.pieces().filter(|(_, p)| p.color == color).count();
        if count > 16 {
            return Err(SetupError::Illegal(format!(
                "{} has {count} pieces; a side has at most 16",
                color.name()
            )));
        }
    }
    let list = match fields {
        [] => return pair_by_default(state),
        [field] => field.strip_prefix("pairs=").ok_or_else(|| {
            SetupError::InvalidText(format!(
                "'{field}' is no field of a Doppelganger position; the only one is pairs=, as in pairs=a1h1,b1g1"
            ))
        })?,
        [_, second, ..] => {
            return Err(SetupError::InvalidText(format!(
                "'{second}' is one field too many; a Doppelganger position has one pairs= field at most"
            )))
        }
    };
    if list == "-" {
        return Ok(());
    }
    let g = state.variant().geometry;
    let mut named: Vec<Square> = Vec::new();
    for entry in list.split(',') {
        let bad = || {
            SetupError::InvalidText(format!(
                "'{entry}' in pairs= is not two squares; write each pair as its two squares, as in pairs=a1h1,c1f1"
            ))
        };
        let split = entry
            .char_indices()
            .skip(1)
            .find(|(_, c)| c.is_ascii_alphabetic())
            .map(|(i, _)| i)
            .ok_or_else(bad)?;
        let a = g.parse_square(&entry[..split]).ok_or_else(bad)?;
        let b = g.parse_square(&entry[split..]).ok_or_else(bad)?;
        for sq in [a, b] {
            if named.contains(&sq) {
                return Err(SetupError::Illegal(format!(
                    "pairs= names {sq} twice; a piece belongs to one pair at most"
                )));
            }
            named.push(sq);
        }
        let piece = match (state.piece_at(a), state.piece_at(b)) {
            (Some(p), Some(q)) if p == q && PAIRED.contains(&p.kind) => p,
            _ => {
                return Err(SetupError::Illegal(format!(
                    "the pair {a}{b} is not two rooks, knights or bishops of one side and kind"
                )))
            }
        };
        let tag = free_tag(state, piece);
        if tag == Tag::NONE {
            return Err(SetupError::Illegal(format!(
                "{} has more than {} pairs of {}s",
                piece.color.name(),
                Tag::MAX,
                piece.kind.name()
            )));
        }
        state.set_tag(a, tag);
        state.set_tag(b, tag);
    }
    Ok(())
}

/// The default reading: two of a side and kind are a pair, one is
/// unpaired, three or more need the field.
fn pair_by_default(state: &mut State<DoppelHooks>) -> Result<(), SetupError> {
    for color in [Color::White, Color::Black] {
        for kind in PAIRED {
            match squares_of(state, color, kind)[..] {
                [] | [_] => {}
                [a, b] => {
                    let tag = Tag::new(1).expect("1 is a tag");
                    state.set_tag(a, tag);
                    state.set_tag(b, tag);
                }
                ref many => {
                    return Err(SetupError::InvalidText(format!(
                        "{} has {} {}s, so the position needs a pairs= field saying which are partners (as in pairs=a1h1)",
                        color.name(),
                        many.len(),
                        kind.name()
                    )))
                }
            }
        }
    }
    Ok(())
}

/// The lines under a drawn board: for each side and kind whose pairs the
/// board does not show by itself (more than two pieces, or two that are
/// not partners), a line per pair and per unpaired piece.
pub fn notes(state: &State<DoppelHooks>) -> Vec<String> {
    let pairs = all(state);
    let mut lines = Vec::new();
    for color in [Color::White, Color::Black] {
        for kind in PAIRED {
            let squares = squares_of(state, color, kind);
            if squares.len() < 2 || as_by_default(state, &squares) {
                continue;
            }
            for &sq in &squares {
                match pairs.iter().find(|(a, b)| *a == sq || *b == sq) {
                    Some(&(a, b)) if a == sq => {
                        lines.push(format!("  {} {}s {a} and {b}", color.name(), kind.name()))
                    }
                    Some(_) => {}
                    None => lines.push(format!(
                        "  {} {} {sq} (no partner)",
                        color.name(),
                        kind.name()
                    )),
                }
            }
        }
    }
    if !lines.is_empty() {
        lines.insert(0, "Pairs:".to_string());
    }
    lines
}
