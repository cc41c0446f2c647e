//! Words: reply markers and the length cap, tokens, masking.

use super::*;

/// The text that replaces a password word.
pub(super) const MASK: &str = "*****";

/// Drop reply markers in front and `**` words at the end; trim.
pub(super) fn strip_line(line: &str) -> &str {
    let mut s = line.trim();
    while let Some(rest) = strip_marker(s) {
        s = rest.trim_start();
    }
    loop {
        let t = s.trim_end();
        match t.strip_suffix("**") {
            Some(head) if head.is_empty() || head.ends_with(char::is_whitespace) => {
                s = head.trim_end();
            }
            _ => return t,
        }
    }
}

/// The part of a command line that is read: at most [`MAX_LINE_BYTES`],
/// cut before the word that runs over them (a first word that long is cut
/// at the bound, on a character boundary).
pub(super) fn cap_line(line: &str) -> &str {
    if line.len() <= MAX_LINE_BYTES {
        return line;
    }
    let mut end = MAX_LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    if line[end..].starts_with(char::is_whitespace) {
        return &line[..end];
    }
    match line[..end].rfind(char::is_whitespace) {
        Some(space) => &line[..space],
        None => &line[..end],
    }
}

/// `Re:`, `fwd:`, `AW:`, `Re[2]:` ... at the start of `s`: the text after it.
pub(super) fn strip_marker(s: &str) -> Option<&str> {
    let word_end = s
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(s.len());
    let word = &s[..word_end];
    if !["re", "fwd", "fw", "aw", "sv"]
        .iter()
        .any(|m| m.eq_ignore_ascii_case(word))
    {
        return None;
    }
    let mut rest = &s[word_end..];
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(inner) = rest.strip_prefix(open) {
            let digits = inner.find(|c: char| !c.is_ascii_digit())?;
            rest = inner[digits..].strip_prefix(close)?;
            break;
        }
    }
    rest.strip_prefix(':')
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Tok<'a> {
    pub(super) text: &'a str,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) fn tokenize(line: &str) -> Vec<Tok<'_>> {
    let mut toks = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                toks.push(Tok {
                    text: &line[s..i],
                    start: s,
                    end: i,
                });
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        toks.push(Tok {
            text: &line[s..],
            start: s,
            end: line.len(),
        });
    }
    toks
}

/// `line` with the words at `idxs`, and every word equal to one of them
/// (ignoring case), replaced by `*****`.
pub(super) fn mask(line: &str, toks: &[Tok<'_>], idxs: &[usize]) -> String {
    let secrets: Vec<&str> = idxs
        .iter()
        .filter_map(|&i| toks.get(i))
        .map(|t| t.text)
        .collect();
    let mut out = String::with_capacity(line.len());
    let mut at = 0;
    for t in toks {
        if secrets.iter().any(|s| s.eq_ignore_ascii_case(t.text)) {
            out.push_str(&line[at..t.start]);
            out.push_str(MASK);
            at = t.end;
        }
    }
    out.push_str(&line[at..]);
    out
}

pub(super) fn is_digits(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

pub(super) fn looks_numeric(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_digit())
}

pub(super) fn filter_word(word: &str) -> Option<BoardFilter> {
    match word.to_ascii_lowercase().as_str() {
        "all" => Some(BoardFilter::All),
        "active" => Some(BoardFilter::Active),
        "inactive" => Some(BoardFilter::Inactive),
        "next" => Some(BoardFilter::Next),
        _ => None,
    }
}

/// Split a final `#N` ply guard off a move text.
pub(super) fn split_guard(text: &str) -> (&str, Option<&str>) {
    if let Some(idx) = text.rfind('#') {
        let tail = &text[idx + 1..];
        if is_digits(tail) {
            return (text[..idx].trim_end(), Some(tail));
        }
    }
    (text, None)
}

/// `a, b and c`.
pub(super) fn list_words(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
