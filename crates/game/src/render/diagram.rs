//! Board diagrams, large and small (docs/commands.md §6).

use crate::command::BoardSize;
use rules::{Color, Diagram, Glyph, Grid};

/// Spaces between boards drawn side by side.
const GAP: usize = 4;

/// How one reader wants boards drawn: the size, and from which side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drawing {
    pub size: BoardSize,
    /// Black's side at the bottom (rank 1 on top, the files from right to
    /// left), as a player of Black may prefer (`set ... flip`).
    pub from_black: bool,
}

impl From<BoardSize> for Drawing {
    fn from(size: BoardSize) -> Drawing {
        Drawing {
            size,
            from_black: false,
        }
    }
}

impl Drawing {
    /// The line under every board that says how to read it, and a second
    /// when the board is drawn from Black's side: each within the 78
    /// columns of a mail line.
    pub fn legend(self) -> String {
        let pieces = match self.size {
            BoardSize::Large => {
                "White pieces are :K: or  K , Black pieces *K*; ::: is an empty dark square"
            }
            BoardSize::Small => {
                "Black pieces upper case, White pieces lower case; - is an empty dark square"
            }
        };
        let side = if self.from_black {
            ";\ndrawn from Black's side."
        } else {
            "."
        };
        format!("{pieces}{side}")
    }

    /// The ranks in drawing order, top first.
    fn ranks(self, grid: &Grid) -> Vec<u8> {
        if self.from_black {
            (0..grid.ranks).collect()
        } else {
            (0..grid.ranks).rev().collect()
        }
    }

    /// The files in drawing order, left first.
    fn files(self, grid: &Grid) -> Vec<u8> {
        if self.from_black {
            (0..grid.files).rev().collect()
        } else {
            (0..grid.files).collect()
        }
    }
}

/// The widest line a drawing may hold: that of a mail line (RFC 5322
/// §2.1.1).
const WIDTH: usize = 78;

/// What the side names add after a rank number: `  Black`.
const SIDE: usize = 7;

/// Draw a position's diagram in the reader's chosen size and side
/// (docs/commands.md §6), with the legend line under the boards.
///
/// Rulings (every line within 78 columns):
/// - several boards stand side by side in as few rows as fit 78 columns
///   with the side names, the same number in each row but the last (Shadow
///   Chess's two large boards one above the other, Temporal's four levels
///   two by two), the rows a blank line apart; each row's last board has
///   `Black`/`White` after its top and bottom rank;
/// - a board too wide for the side names after its rank numbers (Double
///   Chess large, 72 columns) has them after its file letters instead,
///   `Black` above the board and `White` below it;
/// - the notes under the boards are wrapped at word boundaries, each
///   continued two columns further in (a hanging indent).
pub fn board(diagram: &Diagram, drawing: impl Into<Drawing>) -> String {
    let drawing = drawing.into();
    let several = diagram.boards.len() > 1;
    let blocks: Vec<Block> = diagram
        .boards
        .iter()
        .map(|grid| {
            let mut block = match drawing.size {
                BoardSize::Large => large(grid, drawing),
                BoardSize::Small => small(grid, drawing),
            };
            if several {
                block.add_label(&grid.label);
            }
            block
        })
        .collect();

    let mut lines = Vec::new();
    for (k, row) in rows(&blocks).into_iter().enumerate() {
        if k > 0 {
            lines.push(String::new());
        }
        lines.extend(row_lines(row, drawing));
    }
    if !blocks.is_empty() {
        lines.push(drawing.legend());
    }

    let stacks = stack_notes(diagram);
    if !stacks.is_empty() {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push("Squares holding several pieces (the first one is drawn):".to_string());
        for stack in stacks {
            lines.extend(hanging(&format!("  {stack}"), WIDTH));
        }
    }
    let notes: Vec<&str> = diagram.notes.iter().flat_map(|n| n.lines()).collect();
    if !notes.is_empty() {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        for note in notes {
            lines.extend(hanging(note, WIDTH));
        }
    }

    let mut out = String::new();
    for line in lines {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The boards split into rows that fit [`WIDTH`] with the side names:
/// the fewest rows, as even as can be (the last row may be shorter).
fn rows(blocks: &[Block]) -> Vec<&[Block]> {
    if blocks.is_empty() {
        return Vec::new();
    }
    let fits = |row: &[Block]| row_width(row) + SIDE <= WIDTH;
    let per_row = (1..=blocks.len())
        .map(|rows| blocks.len().div_ceil(rows))
        .find(|&per| blocks.chunks(per).all(fits))
        .unwrap_or(1);
    blocks.chunks(per_row).collect()
}

/// The width of boards drawn side by side, [`GAP`] apart.
fn row_width(row: &[Block]) -> usize {
    row.iter().map(Block::width).sum::<usize>() + GAP * row.len().saturating_sub(1)
}

/// One row of boards side by side, the side names after the last one's
/// top and bottom rank (or, when that is too wide, after its file letters
/// above and below).
fn row_lines(row: &[Block], drawing: Drawing) -> Vec<String> {
    let mut lines = join_side_by_side(row);
    let (top, bottom) = if drawing.from_black {
        ("  White", "  Black")
    } else {
        ("  Black", "  White")
    };
    let Some(last) = row.last() else {
        return lines;
    };
    let (top_row, bottom_row) = if row_width(row) + SIDE <= WIDTH {
        (last.top_row, last.bottom_row)
    } else {
        (last.top_letters, last.bottom_letters)
    };
    if let Some(line) = top_row.and_then(|i| lines.get_mut(i)) {
        line.push_str(top);
    }
    if let Some(line) = bottom_row.and_then(|i| lines.get_mut(i)) {
        line.push_str(bottom);
    }
    lines
}

/// `line` wrapped at word boundaries within `width`, each continuation
/// two columns further in than the line's own indent; a word too wide
/// for a line stays whole. A line within `width` is kept as it is.
pub(super) fn hanging(line: &str, width: usize) -> Vec<String> {
    if line.chars().count() <= width {
        return vec![line.to_string()];
    }
    let indent = line.len() - line.trim_start_matches(' ').len();
    let more = " ".repeat(indent + 2);
    let mut out = Vec::new();
    let mut current = " ".repeat(indent);
    let mut empty = true;
    for word in line.split_whitespace() {
        let len = current.chars().count();
        if !empty && len + 1 + word.chars().count() > width {
            out.push(std::mem::replace(&mut current, more.clone()));
            empty = true;
        }
        if !empty {
            current.push(' ');
        }
        current.push_str(word);
        empty = false;
    }
    out.push(current);
    out
}

/// One board's lines, and where its top and bottom rank rows are.
struct Block {
    lines: Vec<String>,
    /// Where the frame starts and how wide it is, for centring the label.
    frame_start: usize,
    frame_width: usize,
    top_row: Option<usize>,
    bottom_row: Option<usize>,
    /// The rows of file letters above and below the board.
    top_letters: Option<usize>,
    bottom_letters: Option<usize>,
}

impl Block {
    fn add_label(&mut self, label: &str) {
        let len = label.chars().count();
        let pad = self.frame_start + self.frame_width.saturating_sub(len) / 2;
        self.lines.insert(0, format!("{}{label}", " ".repeat(pad)));
        for row in [
            &mut self.top_row,
            &mut self.bottom_row,
            &mut self.top_letters,
            &mut self.bottom_letters,
        ] {
            *row = row.map(|i| i + 1);
        }
    }

    fn width(&self) -> usize {
        self.lines
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
    }
}

fn join_side_by_side(blocks: &[Block]) -> Vec<String> {
    let height = blocks.iter().map(|b| b.lines.len()).max().unwrap_or(0);
    let widths: Vec<usize> = blocks.iter().map(Block::width).collect();
    (0..height)
        .map(|row| {
            let mut line = String::new();
            for (k, block) in blocks.iter().enumerate() {
                let part = block.lines.get(row).map(String::as_str).unwrap_or("");
                line.push_str(part);
                if k + 1 < blocks.len() {
                    let fill = widths[k] - part.chars().count() + GAP;
                    line.push_str(&" ".repeat(fill));
                }
            }
            line.trim_end().to_string()
        })
        .collect()
}

/// a1 is dark.
pub(super) fn is_dark(file: u8, rank: u8) -> bool {
    (file as u32 + rank as u32).is_multiple_of(2)
}

pub(super) fn file_letter(file: u8) -> char {
    if file < 26 {
        (b'a' + file) as char
    } else {
        '?'
    }
}

/// The glyph drawn on (file, rank): the first one there.
fn top(grid: &Grid, file: u8, rank: u8) -> Option<Glyph> {
    let i = rank as usize * grid.files as usize + file as usize;
    grid.cells.get(i).and_then(|c| c.first()).copied()
}

fn rank_width(grid: &Grid) -> usize {
    grid.ranks.to_string().len()
}

fn large(grid: &Grid, drawing: Drawing) -> Block {
    let w = rank_width(grid);
    let margin = " ".repeat(w + 3);
    let mut letters = margin.clone();
    let mut rule = format!("{margin}+");
    for f in drawing.files(grid) {
        letters.push_str(&format!("  {} ", file_letter(f)));
        rule.push_str("---+");
    }
    let mut lines = vec![letters.clone(), rule.clone()];
    let mut top_row = None;
    let mut bottom_row = None;
    for rank in drawing.ranks(grid) {
        let n = rank as u32 + 1;
        let mut row = format!("  {n:>w$} |");
        for file in drawing.files(grid) {
            let dark = is_dark(file, rank);
            let cell = match top(grid, file, rank) {
                None if dark => ":::".to_string(),
                None => "   ".to_string(),
                Some(g) => match g.color {
                    Color::White if dark => format!(":{}:", g.letter.to_ascii_uppercase()),
                    Color::White => format!(" {} ", g.letter.to_ascii_uppercase()),
                    Color::Black => format!("*{}*", g.letter.to_ascii_uppercase()),
                },
            };
            row.push_str(&cell);
            row.push('|');
        }
        row.push_str(&format!("  {n}"));
        if top_row.is_none() {
            top_row = Some(lines.len());
        }
        bottom_row = Some(lines.len());
        lines.push(row);
        lines.push(rule.clone());
    }
    lines.push(letters);
    Block {
        top_letters: Some(0),
        bottom_letters: Some(lines.len() - 1),
        lines,
        frame_start: w + 3,
        frame_width: 4 * grid.files as usize + 1,
        top_row,
        bottom_row,
    }
}

fn small(grid: &Grid, drawing: Drawing) -> Block {
    let w = rank_width(grid);
    let margin = " ".repeat(w + 2);
    let mut letters = format!("{margin}  ");
    let letter_row: Vec<String> = drawing
        .files(grid)
        .into_iter()
        .map(|f| file_letter(f).to_string())
        .collect();
    letters.push_str(&letter_row.join(" "));
    let frame = format!("{margin}+{}+", "-".repeat(2 * grid.files as usize + 1));
    let mut lines = vec![letters.clone(), frame.clone()];
    let mut top_row = None;
    let mut bottom_row = None;
    for rank in drawing.ranks(grid) {
        let n = rank as u32 + 1;
        let mut row = format!(" {n:>w$} |");
        for file in drawing.files(grid) {
            let c = match top(grid, file, rank) {
                None if is_dark(file, rank) => '-',
                None => ' ',
                // pbmserv's small drawing: Black in capitals, White in
                // lower case (the legend says so).
                Some(g) => match g.color {
                    Color::White => g.letter.to_ascii_lowercase(),
                    Color::Black => g.letter.to_ascii_uppercase(),
                },
            };
            row.push(' ');
            row.push(c);
        }
        row.push_str(&format!(" |  {n}"));
        if top_row.is_none() {
            top_row = Some(lines.len());
        }
        bottom_row = Some(lines.len());
        lines.push(row);
    }
    lines.push(frame);
    lines.push(letters);
    Block {
        top_letters: Some(0),
        bottom_letters: Some(lines.len() - 1),
        lines,
        frame_start: w + 2,
        frame_width: 2 * grid.files as usize + 3,
        top_row,
        bottom_row,
    }
}

/// `Shadow d4: White Rook, Black Knight` for every square holding several
/// glyphs, board by board, in drawing order (top rank first).
fn stack_notes(diagram: &Diagram) -> Vec<String> {
    let several = diagram.boards.len() > 1;
    let mut notes = Vec::new();
    for grid in &diagram.boards {
        for rank in (0..grid.ranks).rev() {
            for file in 0..grid.files {
                let i = rank as usize * grid.files as usize + file as usize;
                let Some(cell) = grid.cells.get(i) else {
                    continue;
                };
                if cell.len() < 2 {
                    continue;
                }
                let pieces: Vec<String> = cell
                    .iter()
                    .map(|g| format!("{} {}", g.color.name(), g.piece_name()))
                    .collect();
                let square = format!("{}{}", file_letter(file), rank as u32 + 1);
                let place = if several && !grid.label.is_empty() {
                    format!("{} {square}", grid.label)
                } else {
                    square
                };
                notes.push(format!("{place}: {}", pieces.join(", ")));
            }
        }
    }
    notes
}
