//! Game records in the layout of PGN (the Portable Game Notation standard,
//! 1994): a block of tag pairs, a blank line, then the move text with move
//! numbers and the result, wrapped before 80 columns.
//!
//! For chess this is PGN proper, with the `SetUp`/`FEN` tags when the game
//! did not start from the standard position. Every other game uses the same
//! layout with its own move text (its canonical notation, which a PGN
//! reader takes as opaque tokens) and a `Variant` tag naming the game.
//! Plies are numbered as the move list pairs them (a seat acting twice in a
//! row gets `N...` before its second ply), so the text stays well-formed.

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

/// A tag value with `\` and `"` escaped, as the standard asks.
fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The record of a game: tags, a blank line, the move text ending in the
/// result, each line at most 78 characters (the width of a mail line,
/// issue #23).
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
        out.push_str(&format!("[{name} {}]\n", quoted(value)));
    }
    for (name, value) in &tags.extra {
        out.push_str(&format!("[{name} {}]\n", quoted(value)));
    }
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    let mut number = 0;
    let mut last_seat: Option<usize> = None;
    for p in plies {
        let token = p.notation.replace(char::is_whitespace, "_");
        match (p.seat, last_seat) {
            (0, _) => {
                number += 1;
                tokens.push(format!("{number}."));
            }
            (_, Some(0)) => {}
            _ => {
                // Black acts first, or again: `N...` before the ply.
                if last_seat.is_none() || last_seat == Some(p.seat) {
                    number += 1;
                }
                tokens.push(format!("{number}..."));
            }
        }
        tokens.push(token);
        last_seat = Some(p.seat);
    }
    tokens.push(tags.result.clone());

    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 78 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push('\n');
    out
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
    fn long_games_wrap_before_eighty_columns_and_black_first_gets_dots() {
        let plies: Vec<MoveRecord> = (1..=200).map(|n| MoveRecord::new(n + 1, "Nf3")).collect();
        let text = record(&tags(), &plies);
        assert!(text.lines().all(|l| l.len() < 80), "{text}");
        let moves = text.split("\n\n").nth(1).unwrap();
        assert!(moves.starts_with("1... Nf3 2. Nf3 Nf3 3. Nf3"), "{moves}");
        assert!(moves.trim_end().ends_with(" 0-1"), "{moves}");
    }
}
