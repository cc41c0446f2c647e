//! Game records in the layout of PGN (the Portable Game Notation standard,
//! 1994): a block of tag pairs, a blank line, then the move text with move
//! numbers and the result, wrapped at 78 columns, never between a move
//! number and its move.
//!
//! For chess this is PGN proper, with the `SetUp`/`FEN` tags when the game
//! did not start from the standard position. Every other game uses the same
//! layout with its own move text (its canonical notation, which a PGN
//! reader takes as opaque tokens) and a `Variant` tag naming the game.
//! Plies are numbered as the move list pairs them (a seat acting twice in a
//! row gets `N...` before its second ply; a decision, Shadow Chess's
//! reveal, follows the ply that set it off, as `reveal_c4`, and takes no
//! number), so the text stays well-formed. The move text fed back to
//! `<game> preview new` replays the game (move numbers and the result are
//! skipped there).

use super::MoveRecord;

/// The tags of a record, in PGN's seven-tag-roster order, then the extra
/// ones (`Variant`, `SetUp`, `FEN`, `Termination`, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordTags {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`.
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    pub extra: Vec<(String, String)>,
}

/// A tag pair line, `[Name "value"]`, with `\` and `"` escaped in the
/// value as the standard asks.
///
/// Ruling: the line stays within the mail's 78 columns. A
/// value too long for that (a long server name in `Site`) is cut, and
/// `...` says so; PGN has no way to continue a tag on the next line.
fn tag_line(name: &str, value: &str) -> String {
    let room = WIDTH.saturating_sub(name.len() + 5);
    let escaped: Vec<String> = value
        .chars()
        .map(|c| match c {
            '\\' | '"' => format!("\\{c}"),
            c if c.is_control() => " ".to_string(),
            c => c.to_string(),
        })
        .collect();
    let width = |units: &[String]| units.iter().map(|u| u.chars().count()).sum::<usize>();
    let mut units = &escaped[..];
    let cut = width(units) > room;
    if cut {
        while !units.is_empty() && width(units) + 3 > room {
            units = &units[..units.len() - 1];
        }
    }
    let mut out = format!("[{name} \"{}", units.concat());
    if cut {
        out.push_str("...");
    }
    out.push_str("\"]\n");
    out
}

/// The record of a game: tags, a blank line, the move text ending in the
/// result, each line at most 78 characters (unless one move is longer).
pub fn record(tags: &RecordTags, plies: &[MoveRecord]) -> String {
    let mut out = String::new();
    let roster = [
        ("Event", &tags.event),
        ("Site", &tags.site),
        ("Date", &tags.date),
        ("Round", &tags.round),
        ("White", &tags.white),
        ("Black", &tags.black),
        ("Result", &tags.result),
    ];
    for (name, value) in roster {
        out.push_str(&tag_line(name, value));
    }
    for (name, value) in &tags.extra {
        out.push_str(&tag_line(name, value));
    }
    out.push('\n');

    let mut units = move_text(plies);
    units.push(tags.result.clone());
    let mut line = String::new();
    for unit in units {
        if !line.is_empty() && line.len() + 1 + unit.len() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&unit);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The longest move text line: a mail line's 78 columns (a single move
/// longer than that stands alone on its line).
const WIDTH: usize = 78;

/// A ply as one move text token: its canonical notation with each space
/// as `_` (`reveal c4` is `reveal_c4`), which every reader of moves takes.
fn token(p: &MoveRecord) -> String {
    p.notation.replace(char::is_whitespace, "_")
}

/// The move text without the result, in the units a line is never broken
/// inside: a move number with the ply after it (`12. Nf3`, `12... Nc6`),
/// or a ply alone. Lines are numbered as the move list pairs them
/// ([`super::moves::pairs`]): a decision follows the ply that set it off
/// without a number, and Black's turn after one gets `N...` again.
fn move_text(plies: &[MoveRecord]) -> Vec<String> {
    let mut units = Vec::new();
    for line in super::moves::pairs(plies, 0, false) {
        let n = line.number;
        for (i, p) in line.white.iter().enumerate() {
            units.push(match i {
                0 => format!("{n}. {}", token(p)),
                _ => token(p),
            });
        }
        for (i, p) in line.black.iter().enumerate() {
            let numbered = line.white.is_empty() || line.white.len() > 1;
            units.push(match i {
                0 if numbered => format!("{n}... {}", token(p)),
                _ => token(p),
            });
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags() -> RecordTags {
        RecordTags {
            event: "Chess Board 101".into(),
            site: "PBM \"Test\"".into(),
            date: "2026.11.22".into(),
            round: "-".into(),
            white: "alice".into(),
            black: "bob".into(),
            result: "0-1".into(),
            extra: vec![],
        }
    }

    #[test]
    fn tags_in_roster_order_then_numbered_move_text_and_the_result() {
        let plies: Vec<MoveRecord> = ["f3", "e5", "g4", "Qh4#"]
            .iter()
            .enumerate()
            .map(|(i, m)| MoveRecord::new(i as u32 + 1, *m))
            .collect();
        let text = record(&tags(), &plies);
        assert_eq!(
            text,
            "[Event \"Chess Board 101\"]\n[Site \"PBM \\\"Test\\\"\"]\n[Date \"2026.11.22\"]\n[Round \"-\"]\n[White \"alice\"]\n[Black \"bob\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n"
        );
    }

    #[test]
    fn a_tag_too_long_for_78_columns_is_cut_with_dots_never_inside_an_escape() {
        for len in 60..=90 {
            for fill in ["x", "\"", "\\", "é"] {
                let mut t = tags();
                t.site = fill.repeat(len);
                let text = record(&t, &[]);
                let site = text.lines().nth(1).unwrap();
                assert!(site.chars().count() <= 78, "{site}");
                assert!(
                    site.starts_with("[Site \"") && site.ends_with("\"]"),
                    "{site}"
                );
                let value = &site[7..site.len() - 2];
                let value = value.strip_suffix("...").unwrap_or(value);
                // Every escape whole: backslashes pair up.
                let slashes = value.chars().rev().take_while(|&c| c == '\\').count();
                assert_eq!(slashes % 2, 0, "{site}");
                let escaped: usize = t
                    .site
                    .chars()
                    .map(|c| 1 + usize::from(c == '"' || c == '\\'))
                    .sum();
                let whole = "[Site \"\"]".len() + escaped;
                assert_eq!(site.ends_with("...\"]"), whole > 78, "{site}");
            }
        }
    }

    #[test]
    fn long_games_wrap_before_eighty_columns_and_black_first_gets_dots() {
        let plies: Vec<MoveRecord> = (1..=200).map(|n| MoveRecord::new(n + 1, "Nf3")).collect();
        let text = record(&tags(), &plies);
        assert!(text.lines().all(|l| l.len() < 80), "{text}");
        let moves = text.split("\n\n").nth(1).unwrap();
        assert!(moves.starts_with("1... Nf3 2. Nf3 Nf3 3. Nf3"), "{moves}");
        assert!(moves.trim_end().ends_with(" 0-1"), "{moves}");
    }

    /// A move number is never the last word of a line, whatever the
    /// length of the moves (every cut of a long game is tried), and no
    /// line is longer than 78.
    #[test]
    fn a_move_number_is_never_split_from_its_move_and_lines_fit_78() {
        let moves = ["Nf3", "exd5/c2c3", "O-O-O", "b7b8=Q(P)/Ng1f3", "e4"];
        for n in 1..=120u32 {
            let plies: Vec<MoveRecord> = (1..=n)
                .map(|i| MoveRecord::new(i, moves[(i as usize * 7 + n as usize) % 5]))
                .collect();
            let text = record(&tags(), &plies);
            let movetext = text.split("\n\n").nth(1).unwrap();
            for line in movetext.lines() {
                assert!(line.len() <= 78, "{line}");
                let last = line.rsplit(' ').next().unwrap();
                assert!(!last.ends_with('.'), "{n} plies: {line}");
            }
        }
    }

    /// A decision follows the ply that set it off, without a number, as
    /// one token; Black's turn after it is numbered `N...` again.
    #[test]
    fn a_decision_takes_no_number_and_is_one_token() {
        let by = |seat: usize, ply: u32, notation: &str| MoveRecord {
            seat: rules::Color::from_index(seat).expect("a seat of two"),
            ..MoveRecord::new(ply, notation)
        };
        let plies = vec![
            by(0, 1, "e4/e2e3"),
            by(1, 2, "d5/d7d6"),
            by(0, 3, "exd5/c2c3"),
            by(1, 4, "reveal e7"),
            by(1, 5, "f6/h7h6"),
            by(0, 6, "Qh5/d1d2"),
            by(1, 7, "Qxd5/d8d7"),
            by(0, 8, "reveal c4"),
            by(0, 9, "Nc3/b1c3"),
        ];
        let text = record(&tags(), &plies);
        let movetext = text.split("\n\n").nth(1).unwrap();
        assert_eq!(
            movetext,
            "1. e4/e2e3 d5/d7d6 2. exd5/c2c3 reveal_e7 2... f6/h7h6 3. Qh5/d1d2 Qxd5/d8d7\n\
             reveal_c4 4. Nc3/b1c3 0-1\n"
        );
    }
}
