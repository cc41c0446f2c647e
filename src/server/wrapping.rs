//! Prose wrapped to the 78 columns every mail line keeps within, and a
//! player's words clipped to a line.

pub(crate) const MAIL_WIDTH: usize = 78;

/// `text` wrapped at word boundaries so that no line is wider than `width`
/// characters (counted as `char`s). Rulings (no line of any
/// mail passes 78 columns):
/// - a line already within `width` is kept exactly as it is;
/// - existing line breaks and blank lines are kept: each line is wrapped on
///   its own, never joined with the next;
/// - a wider line keeps its indent, and its continuation lines stand two
///   columns further in (a hanging indent), so that where one sentence,
///   list item or event ends and the next begins stays plain; neither
///   indent is more than half the width;
/// - a word wider than the room on a line (an address, a URL, a quoted
///   move of 120 characters) is broken into pieces that fill the lines;
/// - inside a wrapped line, the spaces between words are kept as they
///   were (a table's columns stay aligned on the part that fits), other
///   white space (a tab) becomes one space; at a break they are dropped.
pub(crate) fn wrap(text: &str, width: usize) -> String {
    let width = width.max(2);
    let mut out = String::with_capacity(text.len() + text.len() / width);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let (line, cr) = match line.strip_suffix('\r') {
            Some(l) => (l, "\r"),
            None => (line, ""),
        };
        if line.chars().count() <= width {
            out.push_str(line);
            out.push_str(cr);
            continue;
        }
        let body = line.trim_start();
        let indent = line[..line.len() - body.len()]
            .chars()
            .count()
            .min(width / 2);
        let hang = (indent + 2).min(width / 2);
        let lines = fill(body, width, indent, hang);
        out.push_str(&lines.join(&format!("{cr}\n")));
        out.push_str(cr);
    }
    out
}

/// The words of `text` set in lines of at most `width` characters, the
/// first line `first` spaces in, the others `rest` spaces in (both below
/// `width`); a word too wide for the room left is broken into pieces.
fn fill(text: &str, width: usize, first: usize, rest: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = " ".repeat(first);
    let mut col = first;
    let mut empty = true;
    for (gap, word) in spaced_words(text) {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let start = if empty { col } else { col + gap.len() };
            if start + word.len() <= width {
                if !empty {
                    line.push_str(gap);
                }
                line.extend(word.iter());
                col = start + word.len();
                empty = false;
                break;
            }
            if !empty && word.len() <= width - rest {
                // The word goes to the next line, whole, as it fits there.
                lines.push(std::mem::replace(&mut line, " ".repeat(rest)));
                col = rest;
                empty = true;
                continue;
            }
            // Too wide for any line: as much as fits here, the rest after.
            let room = if empty {
                width - col
            } else if col + 1 < width {
                line.push(' ');
                width - col - 1
            } else {
                0
            };
            line.extend(word[..room].iter());
            word.drain(..room);
            lines.push(std::mem::replace(&mut line, " ".repeat(rest)));
            col = rest;
            empty = true;
        }
    }
    if !empty || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The words of `text` (which starts with one), each with the spaces
/// before it: the run of spaces as it was, or one space for a run with
/// other white space in it.
fn spaced_words(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(|c: char| !c.is_whitespace())?;
        let gap = &rest[..start];
        let gap = if gap.chars().all(|c| c == ' ') {
            gap
        } else {
            " "
        };
        rest = &rest[start..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        rest = &rest[end..];
        Some((gap, word))
    })
}

/// Each line of `text` cut to `width` characters (counted as `char`s),
/// the last three of a cut line being `...`; a line within `width` is kept
/// as it is. For quotes of a player's words (a refused command, the
/// Subject of a part of a `multiple` answer) too long for a mail line.
pub(crate) fn clip(text: &str, width: usize) -> String {
    text.split('\n')
        .map(|line| {
            if line.chars().count() <= width {
                line.to_string()
            } else {
                let kept: String = line.chars().take(width.saturating_sub(3)).collect();
                format!("{}...", kept.trim_end())
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::{clip, wrap};

    fn widest(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn a_long_sentence_is_wrapped_at_word_boundaries_within_the_width() {
        let sentence = "The address you gave has not been confirmed yet: reply to \
                        the confirmation mail we sent, or send \"confirm\" with \
                        the code it holds, within seven days.";
        let out = wrap(sentence, 78);
        assert!(widest(&out) <= 78, "{out}");
        assert!(out.lines().count() >= 2, "{out}");
        // Nothing lost, nothing added but line breaks.
        assert_eq!(
            out.split_whitespace().collect::<Vec<_>>(),
            sentence.split_whitespace().collect::<Vec<_>>()
        );
        // Each line is as full as it can be: the next word did not fit.
        let lines: Vec<&str> = out.lines().collect();
        for pair in lines.windows(2) {
            let next = pair[1].split_whitespace().next().unwrap();
            assert!(pair[0].chars().count() + 1 + next.chars().count() > 78);
        }
    }

    #[test]
    fn short_lines_breaks_and_blank_lines_are_kept_exactly() {
        let text = "One.\n\nTwo  spaces stay.  \nThree.\n";
        assert_eq!(wrap(text, 78), text);
        assert_eq!(wrap("", 78), "");
        assert_eq!(wrap("a\r\nb", 78), "a\r\nb");
    }

    #[test]
    fn an_indented_line_keeps_its_indent_and_hangs_two_further_in() {
        let event = format!("    {}", "White's rook vanishes. ".repeat(8).trim_end());
        let out = wrap(&format!("Moves:\n{event}\n  short"), 78);
        assert!(widest(&out) <= 78, "{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "Moves:");
        assert!(lines[1].starts_with("    White") && !lines[1].starts_with("     "));
        for line in &lines[2..lines.len() - 1] {
            assert!(
                line.starts_with("      ") && !line.starts_with("       "),
                "{out}"
            );
        }
        assert_eq!(lines[lines.len() - 1], "  short");
        assert_eq!(
            out.split_whitespace().collect::<Vec<_>>(),
            format!("Moves: {event} short")
                .split_whitespace()
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_wrapped_table_line_keeps_its_columns_on_the_part_that_fits() {
        let row = format!(
            "101    2026-11-22  {:<40}  won by {}",
            "alice - bob",
            "x".repeat(30)
        );
        let out = wrap(&row, 78);
        assert!(widest(&out) <= 78, "{out}");
        assert!(
            out.starts_with("101    2026-11-22  alice - bob     "),
            "{out}"
        );
        assert!(out.lines().nth(1).unwrap().starts_with("  "), "{out}");
    }

    #[test]
    fn a_wrapped_sentence_hangs_two_columns_in() {
        let out = wrap(&"word ".repeat(40), 78);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.len() >= 2 && lines[0].starts_with("word"), "{out}");
        for line in &lines[1..] {
            assert!(line.starts_with("  w"), "{out}");
        }
    }

    #[test]
    fn a_word_wider_than_the_width_is_broken_to_fill_the_lines() {
        let url = format!("https://example.test/{}", "x".repeat(100));
        let out = wrap(&format!("See {url} for more."), 78);
        assert!(widest(&out) <= 78, "{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0].chars().count(), 78, "{out}");
        assert!(lines[0].starts_with("See https://"), "{out}");
        assert_eq!(out.replace("\n  ", ""), format!("See {url} for more."));
        let out = wrap(&url, 10);
        assert!(widest(&out) <= 10, "{out}");
        assert_eq!(out.replace("\n  ", ""), url);
    }

    #[test]
    fn a_list_item_continues_under_its_text() {
        let item = format!("- {}", "word ".repeat(30).trim_end());
        let out = wrap(&item, 78);
        assert!(widest(&out) <= 78, "{out}");
        for line in out.lines().skip(1) {
            assert!(line.starts_with("  ") && !line.starts_with("   "), "{out}");
        }
    }

    #[test]
    fn a_clipped_line_is_cut_to_the_width_and_marked() {
        let command = format!("chess move 101 alice ***** {}", "Qh9".repeat(40));
        let out = clip(&command, 76);
        assert_eq!(out.chars().count(), 76, "{out}");
        assert!(out.ends_with("..."), "{out}");
        assert!(command.starts_with(out.trim_end_matches("...")));
        assert_eq!(clip("short\nlines", 76), "short\nlines");
        assert_eq!(clip(&"é".repeat(80), 10), "é".repeat(7) + "...");
    }

    #[test]
    fn width_is_counted_in_characters_not_bytes() {
        let text = "é".repeat(70) + " ok";
        assert_eq!(wrap(&text, 78), text);
        let text = "é".repeat(70) + " too long now";
        assert_eq!(wrap(&text, 78), "é".repeat(70) + " too\n  long now");
    }
}
