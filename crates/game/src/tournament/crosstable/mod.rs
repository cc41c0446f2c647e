//! The crosstable as mail lines, each at most [`WIDTH`] columns.
//!
//! Rows are in standing order: `No` (the row's number, which the other
//! rows' cells refer to), `Rk` (the rank, shared by exact ties), the
//! player, the rating, then one column per opponent (round robin, headed
//! by the opponent's row number) or per round (Swiss), then the points
//! and the tiebreaks. A legend follows.
//!
//! Cells: round robin `1` win, `=` draw, `0` loss, `+` forfeit win, `-`
//! forfeit loss, `.` going on or to come, `x` annulled, `*` the player's
//! own; a double round robin shows both games (`1=`). Swiss: colour,
//! opponent's row number and result (`W12+`: White against row 12, won;
//! `=` draw, `-` loss, `>` forfeit win, `<` forfeit loss, `.` going on,
//! `x` annulled), `bye` for a bye, blank for a round not played.
//! Points and tiebreaks are decimals (`2.5`; Sonneborn-Berger to the
//! quarter, `8.25`; wins a count; `-` a direct encounter that decided
//! nothing). A header line names the tiebreaks in the order they decide;
//! a legend after the table names each.
//!
//! Fitting (ruling): names take what the line leaves, at most 32
//! columns; a longer name is cut and ends in `~`. When the columns leave
//! a name fewer than 10 (a long Swiss: 40 players and 9 rounds do not
//! fit), the table is printed in two blocks: first the standings (row,
//! rank, player, rating, points, tiebreaks), then the rounds (row, player
//! cut shorter if need be, the cells), the rounds themselves split into
//! further blocks if even that is too wide.

use super::Tiebreak;
use super::{standings, tiebreak_codes, Entrant, GameResult, Kind, Record, RoundGame, Standing};

/// The widest line a crosstable has.
pub const WIDTH: usize = 78;
/// The widest a name is shown.
const NAME_MAX: usize = 32;
/// The narrowest name worth one block.
const NAME_MIN: usize = 10;

/// The crosstable as mail lines, each at most 78 columns: a header
/// naming the tiebreaks in order, then rank, name, rating, one column
/// per opponent (round robin) or per round (Swiss: "W12+" style: colour,
/// opponent row, result), score, the tiebreaks of `list`.
pub fn crosstable(
    kind: &Kind,
    record: &Record<'_>,
    names: &[&str],
    list: &[Tiebreak],
) -> Vec<String> {
    let table = standings(kind, record, list);
    let mut row_of = vec![0; record.entrants];
    for (i, s) in table.iter().enumerate() {
        row_of[s.entrant] = i + 1;
    }
    let cells = match kind {
        Kind::RoundRobin { double } => round_robin_cells(record, &table, *double),
        Kind::Swiss { rounds } => swiss_cells(record, &table, &row_of, *rounds),
    };
    let grid = Grid::new(record, &table, names, cells, list);
    let mut lines = vec![tiebreak_header(list), String::new()];
    lines.extend(grid.lay_out());
    lines.push(String::new());
    lines.extend(legend(kind).iter().map(|l| l.to_string()));
    lines.extend(tiebreak_legend(list));
    lines
}

/// The header line: the tiebreaks in the order they decide.
fn tiebreak_header(list: &[Tiebreak]) -> String {
    if list.is_empty() {
        return "Ties: no tiebreaks; tied players share a rank.".to_string();
    }
    format!(
        "Ties are broken by, in order: {}.",
        tiebreak_codes(list, ", ")
    )
}

/// The names of the tiebreaks listed, in the list's order, a few to a
/// line.
fn tiebreak_legend(list: &[Tiebreak]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for t in list {
        let item = format!("{}: {};", t.code(), t.name());
        if !line.is_empty() && line.chars().count() + 1 + item.chars().count() > WIDTH {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&item);
    }
    if list.contains(&Tiebreak::DirectEncounter) {
        let item = "- where DE decided nothing.";
        if line.chars().count() + 1 + item.len() > WIDTH {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(item);
    }
    if let Some(l) = line.strip_suffix(';') {
        line = format!("{l}.");
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The columns of cells: a header and one cell per row.
struct Cells {
    headers: Vec<String>,
    /// `rows[row][column]`.
    rows: Vec<Vec<String>>,
}

fn round_robin_cells(record: &Record<'_>, table: &[Standing], double: bool) -> Cells {
    let per_cell = if double { 2 } else { 1 };
    let rows = table
        .iter()
        .map(|me| {
            table
                .iter()
                .map(|them| {
                    if them.entrant == me.entrant {
                        return "*".repeat(per_cell);
                    }
                    let mut games: Vec<&RoundGame> = record
                        .games
                        .iter()
                        .filter(|g| g.opponent_of(me.entrant) == Some(them.entrant))
                        .collect();
                    games.sort_by_key(|g| g.round);
                    let mut cell: String = games
                        .iter()
                        .take(per_cell)
                        .map(|g| round_robin_mark(g, me.entrant))
                        .collect();
                    while cell.len() < per_cell {
                        cell.push('.');
                    }
                    cell
                })
                .collect()
        })
        .collect();
    Cells {
        headers: (1..=table.len()).map(|n| n.to_string()).collect(),
        rows,
    }
}

/// What one game was for one of its players, as a cell shows it.
enum ForMe {
    InPlay,
    Draw,
    Annulled,
    Won,
    Lost,
    WonByForfeit,
    LostByForfeit,
}

fn for_me(game: &RoundGame, me: Entrant) -> ForMe {
    let white = game.white == me;
    match game.result {
        None => ForMe::InPlay,
        Some(GameResult::Draw) => ForMe::Draw,
        Some(GameResult::Annulled) => ForMe::Annulled,
        Some(GameResult::WhiteWins) if white => ForMe::Won,
        Some(GameResult::BlackWins) if !white => ForMe::Won,
        Some(GameResult::WhiteWins | GameResult::BlackWins) => ForMe::Lost,
        Some(GameResult::BlackForfeits) if white => ForMe::WonByForfeit,
        Some(GameResult::WhiteForfeits) if !white => ForMe::WonByForfeit,
        Some(GameResult::WhiteForfeits | GameResult::BlackForfeits) => ForMe::LostByForfeit,
    }
}

/// One game's mark for `me` in a round robin cell.
fn round_robin_mark(game: &RoundGame, me: Entrant) -> char {
    match for_me(game, me) {
        ForMe::InPlay => '.',
        ForMe::Draw => '=',
        ForMe::Annulled => 'x',
        ForMe::Won => '1',
        ForMe::Lost => '0',
        ForMe::WonByForfeit => '+',
        ForMe::LostByForfeit => '-',
    }
}

fn swiss_cells(record: &Record<'_>, table: &[Standing], row_of: &[usize], rounds: u32) -> Cells {
    let last = record
        .games
        .iter()
        .map(|g| g.round)
        .chain(record.byes.iter().map(|b| b.0))
        .max()
        .unwrap_or(0);
    let rounds = rounds.max(last);
    let rows = table
        .iter()
        .map(|me| {
            (1..=rounds)
                .map(|round| {
                    let game = record
                        .games
                        .iter()
                        .find(|g| g.round == round && g.opponent_of(me.entrant).is_some());
                    match game {
                        Some(g) => swiss_mark(g, me.entrant, row_of),
                        None if record.byes.contains(&(round, me.entrant)) => "bye".into(),
                        None => String::new(),
                    }
                })
                .collect()
        })
        .collect();
    Cells {
        headers: (1..=rounds).map(|r| r.to_string()).collect(),
        rows,
    }
}

/// One game's cell for `me` in a Swiss: `W12+`.
fn swiss_mark(game: &RoundGame, me: Entrant, row_of: &[usize]) -> String {
    let white = game.white == me;
    // An entrant beyond the list (a record the caller got wrong) shows
    // as row 0 rather than panicking.
    let opponent = game
        .opponent_of(me)
        .and_then(|o| row_of.get(o))
        .copied()
        .unwrap_or(0);
    let result = match for_me(game, me) {
        ForMe::InPlay => '.',
        ForMe::Draw => '=',
        ForMe::Annulled => 'x',
        ForMe::Won => '+',
        ForMe::Lost => '-',
        ForMe::WonByForfeit => '>',
        ForMe::LostByForfeit => '<',
    };
    format!("{}{opponent}{result}", if white { 'W' } else { 'B' })
}

fn legend(kind: &Kind) -> &'static [&'static str] {
    match kind {
        Kind::RoundRobin { .. } => &[
            "1 win, = draw, 0 loss, + - won or lost by forfeit, . to play,",
            "x annulled.",
        ],
        Kind::Swiss { .. } => &[
            "W12+: White against row 12, won (= draw, - loss, > < won or lost",
            "by forfeit, . going on, x annulled).",
        ],
    }
}

/// A number of half (`scale` 2) or quarter (`scale` 4) points as a
/// decimal: `2.5`, `8.25`.
fn decimal(value: u32, scale: u32) -> String {
    let whole = value / scale;
    match (value % scale, scale) {
        (0, _) => format!("{whole}.0"),
        (1, 2) | (2, 4) => format!("{whole}.5"),
        (1, 4) => format!("{whole}.25"),
        _ => format!("{whole}.75"),
    }
}

/// Every column's text, ready to lay out.
struct Grid {
    /// No, Rk, player, rating: per row.
    left: Vec<[String; 4]>,
    cells: Cells,
    /// Points and tiebreaks: headers and per row.
    right_headers: Vec<String>,
    right: Vec<Vec<String>>,
}

impl Grid {
    fn new(
        record: &Record<'_>,
        table: &[Standing],
        names: &[&str],
        cells: Cells,
        list: &[Tiebreak],
    ) -> Grid {
        let left = table
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let name = names.get(s.entrant).copied().unwrap_or("?");
                let rating = record
                    .ratings
                    .get(s.entrant)
                    .map_or(String::new(), |r| r.to_string());
                [
                    (i + 1).to_string(),
                    s.rank.to_string(),
                    name.to_string(),
                    rating,
                ]
            })
            .collect();
        let mut right_headers = vec!["Pts".to_string()];
        right_headers.extend(list.iter().map(|t| t.code().to_string()));
        let right = table
            .iter()
            .map(|s| {
                let mut row = vec![decimal(s.points_x2, 2)];
                row.extend(s.tiebreaks.iter().map(|&(t, v)| match (v, t.scale()) {
                    (None, _) => "-".to_string(),
                    (Some(v), 1) => v.to_string(),
                    (Some(v), scale) => decimal(v, scale),
                }));
                row
            })
            .collect();
        Grid {
            left,
            cells,
            right_headers,
            right,
        }
    }
}

/// A column's text is put to the left or the right of its width.
#[derive(Clone, Copy)]
enum Align {
    Left,
    Right,
}

/// A column: its header, its cells by row, how wide and how aligned.
struct Column {
    header: String,
    cells: Vec<String>,
    width: usize,
    align: Align,
}

impl Column {
    fn new(header: &str, cells: Vec<String>, align: Align) -> Column {
        let width = cells
            .iter()
            .map(|c| c.chars().count())
            .chain([header.chars().count()])
            .max()
            .unwrap_or(0);
        Column {
            header: header.to_string(),
            cells,
            width,
            align,
        }
    }

    /// The column's text in `row` (None: the header), fitted.
    fn text(&self, row: Option<usize>) -> String {
        let text = row.map_or(self.header.as_str(), |r| self.cells[r].as_str());
        let text = cut(text, self.width);
        match self.align {
            Align::Left => format!("{text:<w$}", w = self.width),
            Align::Right => format!("{text:>w$}", w = self.width),
        }
    }
}

/// `text` in at most `width` characters: a longer one is cut and ends in
/// `~`; control characters become `?`.
fn cut(text: &str, width: usize) -> String {
    let clean: Vec<char> = text
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if clean.len() <= width {
        return clean.into_iter().collect();
    }
    let mut out: String = clean[..width.saturating_sub(1)].iter().collect();
    if width > 0 {
        out.push('~');
    }
    out
}

/// The header and every row of `columns`, a space between columns (two
/// before the `gap`-th), trailing spaces dropped.
fn block(columns: &[&Column], gap: Option<usize>) -> Vec<String> {
    let rows = columns.first().map_or(0, |c| c.cells.len());
    std::iter::once(None)
        .chain((0..rows).map(Some))
        .map(|row| {
            let mut line = String::new();
            for (i, column) in columns.iter().enumerate() {
                if i > 0 {
                    line.push(' ');
                }
                if Some(i) == gap {
                    line.push(' ');
                }
                line.push_str(&column.text(row));
            }
            line.trim_end().to_string()
        })
        .collect()
}

/// The width of `columns` laid out by [`block`], with a gap.
fn width_of(columns: &[&Column]) -> usize {
    columns.iter().map(|c| c.width + 1).sum::<usize>()
}

impl Grid {
    /// The table in one block when a name keeps [`NAME_MIN`] columns,
    /// else in two (standings, then rounds).
    fn lay_out(self) -> Vec<String> {
        let column = |i: usize, header: &str, align| {
            Column::new(
                header,
                self.left.iter().map(|r| r[i].clone()).collect(),
                align,
            )
        };
        let no = column(0, "No", Align::Right);
        let rank = column(1, "Rk", Align::Right);
        let mut name = column(2, "Player", Align::Left);
        let rating = column(3, "Rtng", Align::Right);
        let cells: Vec<Column> = (0..self.cells.headers.len())
            .map(|j| {
                let col = self.cells.rows.iter().map(|r| r[j].clone()).collect();
                Column::new(&self.cells.headers[j], col, Align::Left)
            })
            .collect();
        let right: Vec<Column> = (0..self.right_headers.len())
            .map(|k| {
                Column::new(
                    &self.right_headers[k],
                    self.right.iter().map(|r| r[k].clone()).collect(),
                    Align::Right,
                )
            })
            .collect();
        let wanted = name.width.min(NAME_MAX);
        let fixed = width_of(&[&no, &rank, &rating])
            + width_of(&cells.iter().collect::<Vec<_>>())
            + width_of(&right.iter().collect::<Vec<_>>())
            + 1;
        let room = WIDTH.saturating_sub(fixed);
        if room >= wanted.min(NAME_MIN) {
            name.width = wanted.min(room);
            let mut columns = vec![&no, &rank, &name, &rating];
            columns.extend(cells.iter());
            let gap = columns.len();
            columns.extend(right.iter());
            return block(&columns, Some(gap));
        }
        let fixed =
            width_of(&[&no, &rank, &rating]) + width_of(&right.iter().collect::<Vec<_>>()) + 1;
        name.width = wanted.min(WIDTH.saturating_sub(fixed));
        let mut columns = vec![&no, &rank, &name, &rating];
        let gap = columns.len();
        columns.extend(right.iter());
        let mut lines = block(&columns, Some(gap));
        lines.extend(round_blocks(&no, name, &cells));
        lines
    }
}

/// The rounds' cells in as many blocks as it takes, each with the row's
/// number and name.
fn round_blocks(no: &Column, mut name: Column, cells: &[Column]) -> Vec<String> {
    let wanted = name.width;
    let mut lines = Vec::new();
    let mut start = 0;
    while start < cells.len() {
        let mut end = start + 1;
        let taken =
            |end: usize| width_of(&[no]) + width_of(&cells[start..end].iter().collect::<Vec<_>>());
        while end < cells.len() && WIDTH.saturating_sub(taken(end + 1)) >= wanted.min(NAME_MIN) {
            end += 1;
        }
        name.width = wanted.min(WIDTH.saturating_sub(taken(end)));
        let mut columns = vec![no, &name];
        columns.extend(cells[start..end].iter());
        lines.push(String::new());
        lines.extend(block(&columns, None));
        start = end;
    }
    lines
}

#[cfg(test)]
mod tests;
