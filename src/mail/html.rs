//! The HTML part of a board mail: phone mail programs show
//! text/plain in a proportional font, where the columns of a drawing do
//! not line up, so a board mail also carries its text, HTML-escaped, in a
//! monospace `<pre>`.
//!
//! Rulings:
//! - A board mail is a mail whose text carries a drawing: one of its lines
//!   is a frame line of `render::board` (`+---+---+…` large, `+-------+`
//!   small; turn, final, `show`, `preview`, historic boards, a board sent
//!   after a `move` …). Every other mail (notices, errors without a board,
//!   listings, help pages, PGN) stays text/plain alone.
//! - The HTML part shows the very characters of the text part, no Unicode
//!   figurines: many fonts draw the figurines wider than a column, which
//!   would undo the alignment the part is there for, and a reader copying
//!   a move from either part gets the same text.
//! - Nothing fetches anything: no remote images, links, scripts, style
//!   sheets or fonts; one inline style naming the generic `monospace`
//!   family. No `<title>` (mail programs show the Subject).
//! - For a reader who chose `picture`, the board's picture (see
//!   `mail::picture`) stands above the `<pre>`, an `<img>` of the mail's
//!   own inline part (`cid:`), its size given, shrunk to the window's
//!   width where that is narrower ([`html_document_with_picture`]).
//! - A board mail whose two parts together would be larger than `[limits]
//!   max_reply_bytes` goes out as text alone ([`wants_html_part`]).
//! - Control characters other than line ends and tabs are shown as U+FFFD.
//! - Every line of the part stays within 78 columns, as every line of every
//!   mail: a text line that escaping makes longer is cut inside a `<wbr>`
//!   tag (`<wbr` ends one line, `>` starts the next), a break that shows
//!   nothing inside `<pre>`.

/// The widest line of a mail, in characters (RFC 5322's advice).
const WIDTH: usize = 78;

/// Whether a mail with the text `text` goes out with an HTML part (to a
/// recipient who did not ask for text only): it carries a drawing, and
/// its text and HTML together stay within `max_bytes` (`[limits]
/// max_reply_bytes`, which bounds every mail the server sends; escaping
/// may make the HTML several times the text). A board mail too large for
/// both goes out as text alone.
pub(crate) fn wants_html_part(text: &str, max_bytes: usize) -> bool {
    carries_drawing(text) && text.len() + html_document(text).len() <= max_bytes
}

/// Whether a board mail with the text `text` fits within `max_bytes`
/// with its HTML part and a picture of `png_len` bytes (base64 in the
/// mail, its part's headers counted): see [`wants_html_part`].
pub(crate) fn fits_with_picture(text: &str, png_len: usize, max_bytes: usize) -> bool {
    /// What the inline part's headers and the inner boundary lines take.
    const PART_HEADERS: usize = 400;
    let html = html_document_with_picture(text, &"x".repeat(48), 9999, 9999);
    carries_drawing(text)
        && text.len() + html.len() + crate::mail::picture::encoded_len(png_len) + PART_HEADERS
            <= max_bytes
}

/// Whether `text` carries a board drawing (see the module's rulings).
pub(crate) fn carries_drawing(text: &str) -> bool {
    text.lines().any(is_frame_line)
}

/// A line of `+`, `-` and spaces, beginning and ending with `+`, with at
/// least three dashes in a row: the top or bottom of a drawn board.
fn is_frame_line(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 5
        && t.starts_with('+')
        && t.ends_with('+')
        && t.contains("---")
        && t.bytes().all(|b| matches!(b, b'+' | b'-' | b' '))
}

/// The HTML document of the text part `text`: the same lines in a `<pre>`.
pub(crate) fn html_document(text: &str) -> String {
    document(text, None)
}

/// The alternative text of a board's picture.
const PICTURE_ALT: &str = "The board as a picture; the same board is drawn as text below.";

/// [`html_document`] with the picture of the board above the text: the
/// inline part `content_id`, `width` by `height` pixels.
pub(crate) fn html_document_with_picture(
    text: &str,
    content_id: &str,
    width: u32,
    height: u32,
) -> String {
    document(text, Some((content_id, width, height)))
}

fn document(text: &str, picture: Option<(&str, u32, u32)>) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 512);
    out.push_str(
        "<!DOCTYPE html>\n\
         <html>\n\
         <head>\n\
         <meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width\">\n\
         </head>\n\
         <body>\n",
    );
    if let Some((content_id, width, height)) = picture {
        // A Content-ID is ASCII without quotes or brackets (see
        // `picture::content_id`); escaped all the same.
        let mut id = String::new();
        for c in content_id.chars() {
            escaped(c).push_to(&mut id);
        }
        out.push_str(&format!(
            "<p><img src=\"cid:{id}\"\n\
             width=\"{width}\" height=\"{height}\"\n\
             style=\"max-width: 100%; height: auto\"\n\
             alt=\"{PICTURE_ALT}\"></p>\n"
        ));
    }
    out.push_str("<pre style=\"font-family: monospace, monospace\">\n");
    for line in text.lines() {
        push_line(&mut out, line);
    }
    out.push_str("</pre>\n</body>\n</html>\n");
    out
}

/// `c` as it stands in the HTML text.
fn escaped(c: char) -> EscapedChar {
    match c {
        '&' => EscapedChar::Str("&amp;"),
        '<' => EscapedChar::Str("&lt;"),
        '>' => EscapedChar::Str("&gt;"),
        '\t' => EscapedChar::Char('\t'),
        c if c.is_control() => EscapedChar::Char('\u{FFFD}'),
        c => EscapedChar::Char(c),
    }
}

enum EscapedChar {
    Str(&'static str),
    Char(char),
}

impl EscapedChar {
    fn width(&self) -> usize {
        match self {
            EscapedChar::Str(s) => s.len(),
            EscapedChar::Char(_) => 1,
        }
    }

    fn push_to(&self, out: &mut String) {
        match self {
            EscapedChar::Str(s) => out.push_str(s),
            EscapedChar::Char(c) => out.push(*c),
        }
    }
}

/// Appends one text line, escaped, ended by `\n`, cut into lines of at most
/// [`WIDTH`] characters by `<wbr` / `>` where escaping made it longer.
fn push_line(out: &mut String, line: &str) {
    let width: usize = line.chars().map(|c| escaped(c).width()).sum();
    let mut col = 0;
    for c in line.chars() {
        let piece = escaped(c);
        // Room for `<wbr` after the piece: four columns.
        if width > WIDTH && col + piece.width() > WIDTH - 4 {
            out.push_str("<wbr\n>");
            col = 1;
        }
        piece.push_to(out);
        col += piece.width();
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text inside `<pre>` as a browser shows it, for the documents
    /// this module writes: tags dropped, entities decoded, the newline
    /// right after `<pre>` dropped.
    fn shown(doc: &str) -> String {
        let pre = doc
            .split_once("<pre style=\"font-family: monospace, monospace\">\n")
            .unwrap()
            .1;
        let pre = pre.rsplit_once("</pre>").unwrap().0;
        pre.replace("<wbr\n>", "")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    }

    #[test]
    fn board_frames_make_a_board_mail_and_other_lines_do_not() {
        assert!(carries_drawing("x\n    +---+---+---+\n  8 |*R*|"));
        assert!(carries_drawing("   +-----------------+\n"));
        assert!(carries_drawing(
            "  +---+---+    +---+---+\n  +---+---+    +---+---+"
        ));
        assert!(!carries_drawing("It is alice's turn.\n\n1. e4  c5\n"));
        assert!(!carries_drawing("a + b - c +\n+--+\n---\n"));
        assert!(!carries_drawing("+---x---+"));
    }

    #[test]
    fn a_board_mail_gets_its_html_part_only_within_the_size_limit() {
        let board = "    +---+---+\n  8 |*R*|   |\n    +---+---+\n";
        let both = board.len() + html_document(board).len();
        assert!(wants_html_part(board, both));
        assert!(!wants_html_part(board, both - 1));
        assert!(!wants_html_part("It is alice's turn.\n", 1 << 20));
        let markup = format!("{board}{}\n", "<".repeat(2000));
        assert!(html_document(&markup).len() > 4 * markup.len());
        assert!(!wants_html_part(&markup, 3 * markup.len()));
    }

    #[test]
    fn markup_in_the_text_is_escaped_and_shows_as_written() {
        let text = "Comment from bob:\n<script>alert(1)</script> & <img src=x>\n";
        let doc = html_document(text);
        assert!(!doc.contains("<script"), "{doc}");
        assert!(!doc.contains("<img"), "{doc}");
        assert!(doc.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img"));
        assert_eq!(shown(&doc), text);
    }

    #[test]
    fn long_escaped_lines_are_cut_where_nothing_shows() {
        let text = format!("{}\n{}\n", "<&>".repeat(26), "é".repeat(78));
        let doc = html_document(&text);
        for line in doc.lines() {
            assert!(line.chars().count() <= WIDTH, "{line:?}");
        }
        assert_eq!(shown(&doc), text);
        // A line that fits is left whole.
        assert!(doc.contains(&format!("\n{}\n", "é".repeat(78))));
    }

    #[test]
    fn control_characters_show_as_replacement_characters() {
        let doc = html_document("a\u{7}b\tc\n");
        assert!(doc.contains("a\u{FFFD}b\tc\n"), "{doc}");
    }
}
