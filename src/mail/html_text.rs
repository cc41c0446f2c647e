//! Inbound HTML mail as readable plain text: lines, quotes and entities,
//! never longer than the HTML it is read from.

/// Turns an HTML body into readable plain text.
///
/// - `<br>` ends a line; block elements (`p`, `div`, `li`, `tr`, headings,
///   `blockquote`, ...) start and end on their own line. A paragraph gives a
///   single line break, not a blank line: Outlook writes every line as a
///   `<p>` and Gmail as a `<div>`, and the `multiple` command stops at the
///   first blank line.
/// - Text inside `<blockquote>` is prefixed with `> ` per nesting level, so
///   quoted replies in HTML mail are stripped from the comment like plain
///   text quotes. Deeper than `MAX_QUOTE_DEPTH` levels, a line gets that
///   many (it is a quote all the same).
/// - `<head>`, `<style>`, `<script>`, `<title>` and `<template>` are dropped,
///   as are comments; entities are decoded (`&nbsp;` becomes a plain space);
///   runs of white space collapse to one space except inside `<pre>`.
///
/// Never panics, whatever the input; costs one pass over it, and the text
/// is never longer than the HTML it is read from (so never more than the
/// message size limit): where the next line would make it longer, the
/// text ends (a mail of nested quotes and line breaks must not buy
/// gigabytes of `> `).
pub(crate) fn html_to_text(html: &str) -> String {
    let mut out = HtmlText {
        most: html.len(),
        ..HtmlText::default()
    };
    let bytes = html.as_bytes();
    let mut i = 0;
    // Start of pending text not yet emitted.
    let mut text_start = 0;
    while i < bytes.len() && !out.full {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let next = bytes.get(i + 1).copied().unwrap_or(b' ');
        if !(next.is_ascii_alphabetic() || next == b'/' || next == b'!' || next == b'?') {
            // A lone '<' in text, e.g. "a < b".
            i += 1;
            continue;
        }
        out.text(&html[text_start..i]);
        if html[i..].starts_with("<!--") {
            i = match html[i + 4..].find("-->") {
                Some(end) => i + 4 + end + 3,
                None => bytes.len(),
            };
            text_start = i;
            continue;
        }
        let end = tag_end(bytes, i + 1);
        let tag = &html[i + 1..end.min(bytes.len())];
        out.tag(tag);
        i = (end + 1).min(bytes.len());
        text_start = i;
        if let Some(skip) = out.skipping.clone() {
            // Skip raw content of <style>, <script>, ... up to its end tag.
            let close = format!("</{skip}");
            match find_ascii_ci(&html[i..], &close) {
                Some(pos) => {
                    i += pos;
                    text_start = i;
                }
                None => {
                    i = bytes.len();
                    text_start = i;
                }
            }
            out.skipping = None;
        }
    }
    if text_start < bytes.len() && !out.full {
        out.text(&html[text_start..]);
    }
    out.finish()
}

/// The most `> ` a line of HTML-to-text gets for nested `<blockquote>`s.
pub(super) const MAX_QUOTE_DEPTH: usize = 8;

/// Index of the `>` closing the tag whose name starts at `from`, honouring
/// quoted attribute values; `bytes.len()` when unterminated.
fn tag_end(bytes: &[u8], from: usize) -> usize {
    let mut quote: Option<u8> = None;
    for (k, &b) in bytes.iter().enumerate().skip(from) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return k,
            None => {}
        }
    }
    bytes.len()
}

/// Byte position of `needle` (ASCII) in `hay`, ignoring ASCII case.
fn find_ascii_ci(hay: &str, needle: &str) -> Option<usize> {
    let h = hay.as_bytes();
    let n = needle.as_bytes();
    if n.is_empty() || h.len() < n.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&k| h[k..k + n.len()].eq_ignore_ascii_case(n))
}

#[derive(Default)]
struct HtmlText {
    out: String,
    /// Current line being built (without quote prefix).
    line: String,
    quote_depth: usize,
    /// Quote depth of the current line, fixed when its first text arrives.
    line_depth: Option<usize>,
    pre_depth: usize,
    pending_space: bool,
    skipping: Option<String>,
    /// The longest `out` may grow (the HTML's length).
    most: usize,
    /// `out` reached `most`: the rest of the HTML is not read.
    full: bool,
}

impl HtmlText {
    fn text(&mut self, raw: &str) {
        if raw.is_empty() {
            return;
        }
        let decoded = decode_entities(raw);
        if self.pre_depth > 0 {
            let mut first = true;
            for part in decoded.split('\n') {
                if !first {
                    self.break_line(true);
                }
                first = false;
                if !part.is_empty() {
                    self.push_word(part.trim_end_matches('\r'));
                }
            }
            return;
        }
        for ch in decoded.chars() {
            if ch.is_whitespace() {
                self.pending_space = true;
            } else {
                if self.pending_space && !self.line.is_empty() {
                    self.line.push(' ');
                }
                self.pending_space = false;
                if self.line_depth.is_none() {
                    self.line_depth = Some(self.quote_depth);
                }
                self.line.push(ch);
            }
        }
    }

    fn push_word(&mut self, s: &str) {
        if self.line_depth.is_none() {
            self.line_depth = Some(self.quote_depth);
        }
        self.line.push_str(s);
    }

    /// Ends the current line. `hard`: also when it is empty (`<br>`).
    fn break_line(&mut self, hard: bool) {
        self.pending_space = false;
        if self.line.is_empty() && !hard {
            return;
        }
        let depth = self
            .line_depth
            .unwrap_or(self.quote_depth)
            .min(MAX_QUOTE_DEPTH);
        let line = self.line.trim_end();
        if self.full || self.out.len() + 2 * depth + line.len() + 1 > self.most {
            self.full = true;
            self.line.clear();
            self.line_depth = None;
            return;
        }
        for _ in 0..depth {
            self.out.push_str("> ");
        }
        if depth > 0 && self.line.is_empty() {
            // "> " on a blank quoted line: keep just ">".
            self.out.pop();
        }
        self.out.push_str(line);
        self.out.push('\n');
        self.line.clear();
        self.line_depth = None;
    }

    fn tag(&mut self, tag: &str) {
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        match name.as_str() {
            "br" => self.break_line(true),
            "head" | "style" | "script" | "title" | "template"
                if !closing && !tag.trim_end().ends_with('/') =>
            {
                self.skipping = Some(name);
            }
            "blockquote" => {
                self.break_line(false);
                if closing {
                    self.quote_depth = self.quote_depth.saturating_sub(1);
                } else {
                    self.quote_depth += 1;
                }
            }
            "pre" => {
                self.break_line(false);
                if closing {
                    self.pre_depth = self.pre_depth.saturating_sub(1);
                } else {
                    self.pre_depth += 1;
                }
            }
            "li" => {
                self.break_line(false);
                if !closing {
                    self.push_word("- ");
                }
            }
            "p" | "div" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "ul" | "ol" | "dl"
            | "dt" | "dd" | "table" | "hr" | "section" | "article" | "header" | "footer"
            | "address" | "center" | "form" | "body" | "html" => self.break_line(false),
            "td" | "th" if !closing => self.pending_space = true,
            _ => {}
        }
    }

    fn finish(mut self) -> String {
        self.break_line(false);
        let mut out = self.out;
        while out.ends_with('\n') {
            out.pop();
        }
        out
    }
}

/// Decodes HTML character references (`&amp;`, `&#233;`, `&#xE9;`, every
/// named HTML5 entity mail-parser knows). `&nbsp;` becomes a plain space.
/// Unknown or malformed references stay as written.
pub(crate) fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos..];
        // An entity is '&' + up to 32 ASCII alphanumerics / '#' + ';'.
        let body_len = after[1..]
            .bytes()
            .take(33)
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'#')
            .count();
        if body_len > 0 && body_len <= 32 && after.as_bytes().get(1 + body_len) == Some(&b';') {
            let token = &after[..body_len + 2];
            let mut decoded = String::new();
            // The token is ASCII, so mail-parser's helper cannot panic on it.
            mail_parser::decoders::html::add_html_token(&mut decoded, token.as_bytes(), false);
            if decoded == "\u{a0}" {
                decoded = " ".to_string();
            }
            out.push_str(&decoded);
            rest = &after[body_len + 2..];
        } else {
            out.push('&');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::extract_comment;
    use proptest::prelude::*;

    #[test]
    fn html_breaks_and_paragraphs_become_lines() {
        let t = html_to_text(
            "<html><body><p>chess move 101</p><p>alice pw e4</p>Hi<br>there<br/>you</body></html>",
        );
        assert_eq!(t, "chess move 101\nalice pw e4\nHi\nthere\nyou");
    }

    #[test]
    fn html_entities_are_decoded_and_nbsp_is_a_space() {
        let t = html_to_text(
            "<div>Tom &amp; Jerry&nbsp;say &lt;hi&gt; &#233;&#xE9; &bogus; &amp</div>",
        );
        assert_eq!(t, "Tom & Jerry say <hi> éé &bogus; &amp");
    }

    #[test]
    fn html_drops_head_style_script_and_comments() {
        let t = html_to_text(
            "<html><head><title>T</title><style>p{color:red}</style></head><body><!-- c -->\
             <script>alert('<b>')</script><p>Good   move,\n  friend.</p></body></html>",
        );
        assert_eq!(t, "Good move, friend.");
    }

    #[test]
    fn html_blockquote_becomes_quoted_lines() {
        let t = html_to_text(
            "<div>Nice!</div><div class=\"gmail_quote\"><div>On Mon, Alice wrote:</div>\
             <blockquote class=\"gmail_quote\"><div>your move</div><div>e4</div></blockquote></div>",
        );
        assert_eq!(t, "Nice!\nOn Mon, Alice wrote:\n> your move\n> e4");
        assert_eq!(extract_comment(&t), "Nice!");
    }

    #[test]
    fn html_keeps_pre_formatting_and_lone_angle_brackets() {
        let t = html_to_text("<p>a < b</p><pre>  1. e4\n  2. Nf3</pre>");
        assert_eq!(t, "a < b\n  1. e4\n  2. Nf3");
    }

    #[test]
    fn html_attributes_with_angle_brackets_do_not_leak() {
        let t = html_to_text("<a href=\"x>y\" title='1>2'>link</a> text");
        assert_eq!(t, "link text");
    }

    #[test]
    fn nested_quotes_get_at_most_eight_quote_marks() {
        let html = format!(
            "{}deep{}<p>after",
            "<blockquote>".repeat(20),
            "</blockquote>".repeat(20)
        );
        let t = html_to_text(&html);
        assert_eq!(t, format!("{}deep\nafter", "> ".repeat(MAX_QUOTE_DEPTH)));
    }

    #[test]
    fn the_text_is_never_longer_than_its_html() {
        // A quote bomb: 10,900 quotes, 32,700 line breaks.
        let html = format!("{}{}", "<blockquote>".repeat(10_900), "<br>".repeat(32_700));
        let t = html_to_text(&html);
        assert!(t.len() <= html.len(), "{} > {}", t.len(), html.len());
        assert!(t.lines().all(|l| l.len() <= 2 * MAX_QUOTE_DEPTH));
        // Ordinary text is kept whole.
        let html = "<div>e4</div><blockquote>a<br><br>b</blockquote>";
        assert_eq!(html_to_text(html), "e4\n> a\n>\n> b");
    }
    proptest! {
        #[test]
        fn html_to_text_never_panics(s in any::<String>()) {
            let t = html_to_text(&s);
            prop_assert!(t.len() <= s.len());
        }

        #[test]
        fn html_to_text_never_panics_on_tag_soup(s in "[<>/a-z!\\- \"'&;#0-9x\u{e9}\u{1F600}]{0,80}") {
            let _ = html_to_text(&s);
        }

        #[test]
        fn decode_entities_never_panics(s in "[&#;a-zA-Z0-9x\u{e9}]{0,40}") {
            let _ = decode_entities(&s);
        }
    }
}
