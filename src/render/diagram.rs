//! Board diagrams, large and small (docs/commands.md §6).

use crate::command::BoardSize;
use crate::rules::{Color, Diagram, Glyph, Grid};

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
                "White pieces upper case, Black pieces lower case; - is an empty dark square"
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

/// Draw a position's diagram in the reader's chosen size and side
/// (docs/commands.md §6), with the legend line under the boards.
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

    let mut lines = join_side_by_side(&blocks);
    let (top, bottom) = if drawing.from_black {
        ("  White", "  Black")
    } else {
        ("  Black", "  White")
    };
    if let Some(last) = blocks.last() {
        if let Some(line) = last.top_row.and_then(|i| lines.get_mut(i)) {
            line.push_str(top);
        }
        if let Some(line) = last.bottom_row.and_then(|i| lines.get_mut(i)) {
            line.push_str(bottom);
        }
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
        lines.extend(stacks.into_iter().map(|s| format!("  {s}")));
    }
    let notes: Vec<&str> = diagram.notes.iter().flat_map(|n| n.lines()).collect();
    if !notes.is_empty() {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(notes.into_iter().map(str::to_string));
    }

    let mut out = String::new();
    for line in lines {
        out.push_str(line.trim_end());
        out.push('\n');
    }
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
}

impl Block {
    fn add_label(&mut self, label: &str) {
        let len = label.chars().count();
        let pad = self.frame_start + self.frame_width.saturating_sub(len) / 2;
        self.lines.insert(0, format!("{}{label}", " ".repeat(pad)));
        self.top_row = self.top_row.map(|i| i + 1);
        self.bottom_row = self.bottom_row.map(|i| i + 1);
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
fn is_dark(file: u8, rank: u8) -> bool {
    (file as u32 + rank as u32).is_multiple_of(2)
}

fn file_letter(file: u8) -> char {
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
                Some(g) => match g.color {
                    Color::White => g.letter.to_ascii_uppercase(),
                    Color::Black => g.letter.to_ascii_lowercase(),
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
