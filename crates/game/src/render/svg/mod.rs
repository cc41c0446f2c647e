//! Boards as SVG pictures (docs/commands.md §6). Pure: a position's
//! [`Diagram`] in, SVG text out.
//!
//! The picture is the same fact as the text board drawn from the same
//! diagram: the same boards in the same order, the same glyphs on the same
//! squares, the same notes under them. Rulings:
//! - one square is 32 user units, and the SVG's `width` and `height` are
//!   those units in pixels, so the picture is 32 pixels a square as sent;
//! - every board of a diagram stands in one row, left to right, 16 units
//!   apart (Shadow's main and shadow board side by side, Temporal's four
//!   levels A to D), each with its label above it when there are several;
//!   file letters under each board, rank numbers left of it; a1 is dark;
//! - drawn from the reader's side: from Black's, rank 1 is on top and the
//!   files run from right to left, as the text board does;
//! - a square holding several glyphs (a Shadow stack, a chimera) shows the
//!   first one full size, as the text board draws it, and the others small
//!   in the square's top corner, in order;
//! - each piece is a group whose `<title>` reads `White knight on f3`
//!   (`White knight on Shadow f3` when the diagram has several boards), and
//!   the picture carries a `<desc>` (the caller's text: the position in
//!   the game's own notation), so a screen reader reads the board;
//! - the pieces are this module's own vector shapes (`pieces`): no font
//!   or image is fetched; text uses the reader's generic `sans-serif`;
//! - the output depends on nothing but its arguments: a resend is byte
//!   for byte the same.

mod pieces;

use super::diagram::{file_letter, hanging, is_dark};
use rules::{Diagram, Glyph, Grid};
use std::fmt::Write as _;

/// One square's side in user units (pixels as sent).
pub const SQUARE: u32 = 32;
/// Space left of each board for the rank numbers.
const RANK_MARGIN: u32 = 20;
/// Space between boards.
const GAP: u32 = 16;
/// The outer margin.
const MARGIN: u32 = 8;
/// Height of the caption line.
const CAPTION: u32 = 24;
/// Height of a board's label line.
const LABEL: u32 = 18;
/// Height of the file letters under a board.
const LETTERS: u32 = 18;
/// Height of one note line.
const NOTE_LINE: u32 = 16;

const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";

/// What a mark on a square says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// A square of the last move (where it came from, where it went).
    LastMove,
    /// A king in check.
    Check,
}

/// A marked square: on which board of the diagram (its index), where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub board: usize,
    pub file: u8,
    pub rank: u8,
    pub kind: MarkKind,
}

/// What the picture shows besides the diagram.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Picture {
    /// The line above the boards (board number, players, whose turn);
    /// none when empty.
    pub caption: String,
    /// The picture's `<desc>`: the position in the game's own notation.
    pub description: String,
    /// Black's side at the bottom (`set ... flip`).
    pub from_black: bool,
    pub marks: Vec<Mark>,
}

/// The last move's marks: every square whose contents differ between the
/// diagram before a ply and the one after it, on every board (a move's
/// from and to squares; castling's four; an en passant capture's three; a
/// drop's one; a Shadow turn's squares on both boards). Ruling: this is
/// what the picture marks as the last move in every game, so the mark
/// never claims more than the two diagrams show. Boards of different
/// shapes (none in any game) are compared where both have squares.
pub fn changed_squares(before: &Diagram, after: &Diagram) -> Vec<Mark> {
    let mut marks = Vec::new();
    for (board, (old, new)) in before.boards.iter().zip(&after.boards).enumerate() {
        for rank in 0..old.ranks.min(new.ranks) {
            for file in 0..old.files.min(new.files) {
                if old.at(file, rank) != new.at(file, rank) {
                    marks.push(Mark {
                        board,
                        file,
                        rank,
                        kind: MarkKind::LastMove,
                    });
                }
            }
        }
    }
    marks
}

/// The ranks in drawing order, top first.
fn ranks(grid: &Grid, from_black: bool) -> Vec<u8> {
    if from_black {
        (0..grid.ranks).collect()
    } else {
        (0..grid.ranks).rev().collect()
    }
}

/// The files in drawing order, left first.
fn files(grid: &Grid, from_black: bool) -> Vec<u8> {
    if from_black {
        (0..grid.files).rev().collect()
    } else {
        (0..grid.files).collect()
    }
}

/// Text safe inside an XML element or a double-quoted attribute.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The square's name on a board: `f3`, or `Shadow f3` when the diagram
/// has several boards (as the text board's list of stacks names it).
fn place(grid: &Grid, several: bool, file: u8, rank: u8) -> String {
    let square = format!("{}{}", file_letter(file), rank as u32 + 1);
    if several && !grid.label.is_empty() {
        format!("{} {square}", grid.label)
    } else {
        square
    }
}

/// A piece's title: `White knight on f3`.
pub fn title(glyph: Glyph, place: &str) -> String {
    format!(
        "{} {} on {place}",
        glyph.color.name(),
        glyph.piece_name().to_lowercase()
    )
}

/// The width of a diagram's picture in pixels (user units).
pub fn width(diagram: &Diagram) -> u32 {
    let boards_width: u32 = diagram
        .boards
        .iter()
        .map(|g| RANK_MARGIN + g.files as u32 * SQUARE)
        .sum::<u32>()
        + GAP * diagram.boards.len().saturating_sub(1) as u32;
    (2 * MARGIN + boards_width).max(240)
}

/// The longest caption, in characters, that fits the width of a
/// diagram's picture (the caption's bold 14-pixel sans-serif averages
/// under 7 pixels a character: `Chess 101: alice v bob, alice to play`
/// is 251 pixels wide in DejaVu Sans Bold).
pub fn caption_room(diagram: &Diagram) -> usize {
    (width(diagram) - 2 * MARGIN) as usize / 7
}

/// Draw a diagram as an SVG picture (see the module's rulings).
pub fn svg(diagram: &Diagram, picture: &Picture) -> String {
    let several = diagram.boards.len() > 1;
    let width = width(diagram);
    let columns = ((width - 2 * MARGIN) / 7).max(20) as usize;

    let caption_h = if picture.caption.is_empty() {
        0
    } else {
        CAPTION
    };
    let label_h = if several { LABEL } else { 0 };
    let board_top = MARGIN + caption_h + label_h;
    let tallest = diagram.boards.iter().map(|g| g.ranks as u32).max();
    let boards_bottom = board_top + tallest.map_or(0, |r| r * SQUARE + LETTERS);

    let notes: Vec<String> = diagram
        .notes
        .iter()
        .flat_map(|n| n.lines())
        .flat_map(|line| hanging(line, columns))
        .collect();
    let notes_top = boards_bottom + if notes.is_empty() { 0 } else { 8 };
    let height = notes_top + NOTE_LINE * notes.len() as u32 + MARGIN;

    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" role=\"img\" \
         font-family=\"sans-serif\">"
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&picture.caption));
    let _ = writeln!(out, "<desc>{}</desc>", escape(&picture.description));

    // The shapes of the pieces drawn, once each.
    let mut used: Vec<Glyph> = Vec::new();
    for grid in &diagram.boards {
        for cell in &grid.cells {
            for g in cell {
                if !used.contains(g) {
                    used.push(*g);
                }
            }
        }
    }
    used.sort_by_key(|g| (g.color.index(), g.letter));
    out.push_str("<defs>\n");
    for g in &used {
        let _ = writeln!(
            out,
            "<g id=\"{}\">{}</g>",
            pieces::id(*g),
            pieces::shape(*g)
        );
    }
    out.push_str("</defs>\n");
    let _ = writeln!(
        out,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>"
    );

    if !picture.caption.is_empty() {
        let _ = writeln!(
            out,
            "<text x=\"{MARGIN}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>",
            MARGIN + 15,
            escape(&picture.caption)
        );
    }

    let mut x0 = MARGIN;
    for (index, grid) in diagram.boards.iter().enumerate() {
        let left = x0 + RANK_MARGIN;
        draw_board(&mut out, grid, index, several, left, board_top, picture);
        x0 = left + grid.files as u32 * SQUARE + GAP;
    }

    for (k, line) in notes.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\">{}</text>",
            MARGIN + 7 * indent as u32,
            notes_top + NOTE_LINE * k as u32 + 12,
            escape(line.trim_start())
        );
    }
    out.push_str("</svg>\n");
    out
}

fn draw_board(
    out: &mut String,
    grid: &Grid,
    index: usize,
    several: bool,
    left: u32,
    top: u32,
    picture: &Picture,
) {
    let from_black = picture.from_black;
    let w = grid.files as u32 * SQUARE;
    let h = grid.ranks as u32 * SQUARE;
    if several {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"13\" text-anchor=\"middle\">{}</text>",
            left + w / 2,
            top - 5,
            escape(&grid.label)
        );
    }
    let _ = writeln!(out, "<g aria-label=\"{}\">", escape(&grid.label));
    for (row, rank) in ranks(grid, from_black).into_iter().enumerate() {
        let y = top + row as u32 * SQUARE;
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
            left - RANK_MARGIN / 2,
            y + SQUARE / 2 + 4,
            rank as u32 + 1
        );
        for (col, file) in files(grid, from_black).into_iter().enumerate() {
            let x = left + col as u32 * SQUARE;
            let fill = if is_dark(file, rank) { DARK } else { LIGHT };
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{SQUARE}\" height=\"{SQUARE}\" fill=\"{fill}\"/>"
            );
            for mark in picture
                .marks
                .iter()
                .filter(|m| m.board == index && m.file == file && m.rank == rank)
            {
                out.push_str(&mark_shape(mark.kind, x, y));
            }
        }
    }
    for (col, file) in files(grid, from_black).into_iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
            left + col as u32 * SQUARE + SQUARE / 2,
            top + h + 13,
            file_letter(file)
        );
    }
    let _ = writeln!(
        out,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{w}\" height=\"{h}\" fill=\"none\" stroke=\"#404040\"/>"
    );
    for (row, rank) in ranks(grid, from_black).into_iter().enumerate() {
        let y = top + row as u32 * SQUARE;
        for (col, file) in files(grid, from_black).into_iter().enumerate() {
            let x = left + col as u32 * SQUARE;
            let at = place(grid, several, file, rank);
            for (k, glyph) in grid.at(file, rank).iter().enumerate() {
                let transform = if k == 0 {
                    format!("translate({x} {y})")
                } else {
                    // The others small along the square's top edge, from
                    // the right.
                    let step = SQUARE * 3 / 8;
                    let sx = (x + SQUARE) as i64 - (step * k as u32) as i64;
                    format!("translate({sx} {y}) scale(0.375)")
                };
                let _ = writeln!(
                    out,
                    "<g transform=\"{transform}\"><title>{}</title><use href=\"#{}\"/></g>",
                    escape(&title(*glyph, &at)),
                    pieces::id(*glyph)
                );
            }
        }
    }
    out.push_str("</g>\n");
}

fn mark_shape(kind: MarkKind, x: u32, y: u32) -> String {
    match kind {
        MarkKind::LastMove => format!(
            "<rect x=\"{x}\" y=\"{y}\" width=\"{SQUARE}\" height=\"{SQUARE}\" \
             fill=\"#e8e030\" fill-opacity=\"0.5\"/>\n"
        ),
        MarkKind::Check => format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"14\" fill=\"#e02020\" fill-opacity=\"0.7\"/>\n",
            x + SQUARE / 2,
            y + SQUARE / 2
        ),
    }
}

#[cfg(test)]
mod tests;
