//! Small text helpers the commands share: a capital first letter for the
//! rules' sentences, the player's comment with their password masked, and
//! prose wrapped to the 78 columns every mail line keeps within.

use std::collections::HashSet;

use super::Ctx;
use game::command::Password;
use rules::MoveError;

/// `s` with its first letter in upper case (the rules' errors start in
/// lower case; a refusal is a sentence).
pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A refused move as one sentence for the player. A sentence that starts
/// with the move as the player sent it (`b4 is not a legal move: ...`)
/// keeps it as sent: a capital would turn the pawn move `b4` into the
/// bishop move `B4`. Others start with a capital.
pub(crate) fn move_refusal(e: &MoveError) -> String {
    match e {
        MoveError::Illegal { .. } => e.to_string(),
        _ => capitalise(&e.to_string()),
    }
}

/// `n` with the word for one or for many (`1 game`, `2 games`, `0 games`).
pub(crate) fn counted(n: impl Into<i64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The refusal of a move sent when it is `to_act`'s turn, not the
/// sender's: the `queue` command that would have it played when their turn
/// comes, in full but for the password (never echoed). The move is quoted
/// as sent: the password was checked before this refusal, so the move
/// text is the player's move, not a misplaced secret.
pub(crate) fn out_of_turn(
    game: &dyn rules::Game,
    number: u32,
    to_act: &str,
    userid: &str,
    text: &str,
) -> String {
    format!(
        "It is {to_act}'s turn on {} board {number}, not yours. To have your move played when your turn comes (if it is legal then), queue it:\n  {} queue {number} {userid} <password> {}",
        game.name(),
        game.name(),
        text.trim()
    )
}

/// What a trailing check mark claims: `#` (or `++`) mate, `+` check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    Check,
    Mate,
}

/// The check mark at the end of move text, before any `!`/`?`; in a move
/// with a choice after a slash (Doppelganger's `b8=R+/g2`) the mark may
/// also stand before the slash.
fn mark_of(text: &str) -> Option<Mark> {
    let text = text.trim().trim_end_matches(['!', '?', ' ']);
    let ends = |t: &str| {
        let t = t.trim_end_matches(['!', '?', ' ']);
        if t.ends_with('#') || t.ends_with("++") {
            Some(Mark::Mate)
        } else if t.ends_with('+') {
            Some(Mark::Check)
        } else {
            None
        }
    };
    ends(text).or_else(|| text.split_once('/').and_then(|(before, _)| ends(before)))
}

/// Ruling (issue #23 §5): the check mark a player writes is not trusted.
/// When `input` ends in `+` or `#` (`++` counts as `#`) and the move as
/// played is stored as `stored` with another mark or none, the move is
/// played and stored as the rules write it, and this one sentence (for
/// the board mail) says so. A missing mark is no mistake: nothing is said.
/// Only games whose notation marks check and mate are judged (see
/// `Game::marks_checks`).
pub(crate) fn check_mark_note(player: &str, input: &str, stored: &str) -> Option<String> {
    let claimed = mark_of(input)?;
    let real = mark_of(stored);
    if real == Some(claimed) {
        return None;
    }
    let what = match real {
        Some(Mark::Mate) => "checkmate",
        Some(Mark::Check) => "check, not checkmate",
        None => "not check",
    };
    Some(format!(
        "{player} wrote {}, but that move is {what}: it is recorded as {stored}.",
        input.trim()
    ))
}

/// The sentence a board mail to an address not yet confirmed carries in
/// place of the comments it leaves out (`authors` wrote them; `None` when
/// there are none): nothing a player wrote goes to such an address (issue
/// #31), and the player is told so and how to confirm (issue #23 §5).
pub(crate) fn held_back_comments(authors: &[String]) -> Option<String> {
    let (comments, are) = match authors.len() {
        0 => return None,
        1 => ("A comment", "is"),
        _ => ("Comments", "are"),
    };
    let mut names = authors.to_vec();
    names.sort();
    names.dedup();
    Some(format!(
        "{comments} from {} {are} held back from this mail: this address is not confirmed, and the server sends nothing a player wrote to an address before it is confirmed. To confirm it, reply to its confirmation mail keeping the Subject (for a new code: change address <userid> <password> <address>).",
        and_list(&names)
    ))
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The comment of this command with the name of who made it; a word equal
/// to the commander's password (any case) is masked, so a password typed
/// into the body is not relayed either.
pub(crate) fn commented(
    ctx: &Ctx<'_>,
    userid: Option<&str>,
    password: Option<&Password>,
) -> Option<(String, String)> {
    let comment = ctx.comment.trim();
    if comment.is_empty() {
        return None;
    }
    let comment = match password.map(Password::expose).filter(|p| !p.is_empty()) {
        Some(secret) => mask_word(comment, secret),
        None => comment.to_string(),
    };
    // Never the sender's address: addresses are not shown to other players.
    let who = userid.unwrap_or("the challenger");
    Some((who.to_string(), comment))
}

/// The body the sender wrote (a chat line, a message) as it is relayed to
/// others: a word equal to the password the command gave (any case) is
/// masked. It depends only on what the sender wrote, never on what the
/// account's password is.
pub(crate) fn own_text(ctx: &Ctx<'_>, password: &Password) -> String {
    let text = ctx.comment.trim();
    match password.expose() {
        "" => text.to_string(),
        secret => mask_word(text, secret),
    }
}

/// The key a word is compared by when masking: lower-cased, without the
/// punctuation, quotes and brackets around it (`'Hunter2'`, `(hunter2)`,
/// `"hunter2".` all give `hunter2`); a word of punctuation only is its own
/// key. Passwords are compared ignoring case, so masks are too.
pub(crate) fn word_key(word: &str) -> String {
    let core = word.trim_matches(|c: char| !c.is_alphanumeric());
    if core.is_empty() {
        word.to_lowercase()
    } else {
        core.to_lowercase()
    }
}

/// The widest line a mail the server sends may hold (RFC 5322 §2.1.1).
pub(crate) const MAIL_WIDTH: usize = 78;

/// `text` wrapped at word boundaries so that no line is wider than `width`
/// characters (counted as `char`s). Rulings (issue #23: no line of any
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
thread_local! {
    /// Set lookups made by [`Hidden::mask`] (a test proves it is one per word).
    static LOOKUPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Words to hide, by their [`word_key`]: a set, so masking a text is one
/// pass over it whatever the number of words to hide.
#[derive(Clone, Debug, Default)]
pub(crate) struct Hidden {
    keys: HashSet<String>,
    /// The hidden words as they were given (lower-cased).
    whole: HashSet<String>,
}

impl Hidden {
    /// Hide `word` (any case, however punctuated) from now on.
    pub(super) fn insert(&mut self, word: &str) {
        let word = word.trim();
        if !word.is_empty() {
            self.keys.insert(word_key(word));
            self.whole.insert(word.to_lowercase());
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn hides(&self, word: &str) -> bool {
        #[cfg(test)]
        LOOKUPS.with(|n| n.set(n.get() + 1));
        self.keys.contains(&word_key(word))
    }

    /// `text` with every hidden word replaced by `*****`, in one pass: a
    /// word is what lies between white space; the punctuation around a
    /// hidden word stays (`'*****'.`), unless the word is hidden as it
    /// stands (a password that ends in `!` is masked whole).
    pub(super) fn mask(&self, text: &str) -> String {
        if self.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while !rest.is_empty() {
            let start = rest
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len());
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let word = &rest[..end];
            rest = &rest[end..];
            if word.is_empty() || !self.hides(word) {
                out.push_str(word);
            } else if self.whole.contains(&word.to_lowercase()) {
                out.push_str("*****");
            } else {
                let core = word.trim_matches(|c: char| !c.is_alphanumeric());
                let at = word.len()
                    - word
                        .trim_start_matches(|c: char| !c.is_alphanumeric())
                        .len();
                if core.is_empty() {
                    out.push_str("*****");
                } else {
                    out.push_str(&word[..at]);
                    out.push_str("*****");
                    out.push_str(&word[at + core.len()..]);
                }
            }
        }
        out
    }
}

/// `text` with every word of the command `line` that its quote `masked`
/// hides (a password, or a word guessed to be one) masked as well, so a
/// comment quoted back in an error mail never shows what the quote hides.
/// One pass over `line` and one over `text` (a set of the words to hide).
pub(crate) fn masked_like(text: &str, line: &str, masked: &str) -> String {
    let shown: HashSet<String> = masked.split_whitespace().map(word_key).collect();
    let mut hidden = Hidden::default();
    for word in line.split_whitespace() {
        let lower = word.to_lowercase();
        let decoration = matches!(
            lower.as_str(),
            "re:" | "fwd:" | "fw:" | "aw:" | "sv:" | "**"
        );
        if !decoration && !shown.contains(&word_key(word)) {
            hidden.insert(word);
        }
    }
    hidden.mask(text)
}

/// `text` with every whole word equal to `secret` (ignoring case, and the
/// punctuation, quotes and brackets around it) replaced by `*****`.
pub(crate) fn mask_word(text: &str, secret: &str) -> String {
    let mut hidden = Hidden::default();
    hidden.insert(secret);
    hidden.mask(text)
}

#[cfg(test)]
mod tests {
    use super::{clip, mask_word, wrap, Hidden, LOOKUPS};

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

    #[test]
    fn a_quoted_comment_hides_what_the_quoted_command_hides() {
        assert_eq!(
            super::masked_like(
                "my password is Hunter2, and e4 wins",
                "Re: chess move 101 alice hunter2 e4",
                "chess move 101 alice ***** e4"
            ),
            "my password is *****, and e4 wins"
        );
        assert_eq!(super::masked_like("no secrets", "", ""), "no secrets");
    }

    #[test]
    fn a_check_mark_that_does_not_match_the_stored_move_is_named() {
        use super::check_mark_note;
        assert_eq!(
            check_mark_note("alice", " Zxf7# ", "Zxf7+").as_deref(),
            Some("alice wrote Zxf7#, but that move is check, not checkmate: it is recorded as Zxf7+.")
        );
        assert!(check_mark_note("bob", "e5+!?", "e5")
            .unwrap()
            .contains("is not check"));
        assert!(check_mark_note("bob", "Qf7++", "Qf7+")
            .unwrap()
            .contains("check, not checkmate"));
        assert!(check_mark_note("bob", "Qf7+", "Qf7#")
            .unwrap()
            .contains("that move is checkmate"));
        // Before a Doppelganger choice, or after it.
        assert!(check_mark_note("bob", "b8=R+/g2", "b8=R/g2").is_some());
        assert!(check_mark_note("bob", "b8=R+/g2", "b8=R/g2+").is_none());
        assert!(check_mark_note("bob", "b8=R/g2#", "b8=R/g2#").is_none());
        // No mark, or the right one: nothing to say.
        assert!(check_mark_note("bob", "Qf7", "Qf7#").is_none());
        assert!(check_mark_note("bob", "Qf7#!", "Qf7#").is_none());
        assert!(check_mark_note("bob", "exd5/c7", "exd5/c7").is_none());
    }

    #[test]
    fn passwords_in_comments_are_masked_as_whole_words() {
        assert_eq!(mask_word("my pw is Hunter2.", "hunter2"), "my pw is *****.");
        assert_eq!(mask_word("hunter22 stays", "hunter2"), "hunter22 stays");
        assert_eq!(mask_word("a\n\nhunter2", "hunter2"), "a\n\n*****");
    }

    #[test]
    fn a_password_in_quotes_or_brackets_is_masked_however_punctuated() {
        for (text, masked) in [
            ("'hunter2'", "'*****'"),
            ("(hunter2)", "(*****)"),
            ("\"HUNTER2\".", "\"*****\"."),
            ("[hunter2]!", "[*****]!"),
            ("\u{201c}hunter2\u{201d}", "\u{201c}*****\u{201d}"),
            (
                "'Hunter2' is not a move I can read",
                "'*****' is not a move I can read",
            ),
        ] {
            assert_eq!(mask_word(text, "hunter2"), masked, "{text}");
        }
        // A password with punctuation of its own is masked whole.
        assert_eq!(mask_word("it is pa$$!", "pa$$!"), "it is *****");
        assert_eq!(mask_word("'pa$$!'", "pa$$!"), "'*****$$!'");
        assert!(!mask_word("'pa$$!'", "pa$$!").contains("pa"));
        // Text without the word is kept exactly, white space and all.
        let text = "  a\tb\r\n\nc  ";
        assert_eq!(mask_word(text, "hunter2"), text);
    }

    #[test]
    fn masking_looks_each_word_up_once_whatever_is_hidden() {
        // The 120k-word Subject and 120 KB body of issue #32: one set
        // lookup per word of the text, none per hidden word.
        let line = format!("xyzzy{}", " a".repeat(120_000));
        let body = "lorem ipsum ".repeat(10_000);
        LOOKUPS.with(|n| n.set(0));
        let out = super::masked_like(&body, &line, "xyzzy");
        assert_eq!(out, body);
        assert_eq!(LOOKUPS.with(|n| n.get()), 20_000);
        let mut hidden = Hidden::default();
        for i in 0..10_000 {
            hidden.insert(&format!("w{i}"));
        }
        LOOKUPS.with(|n| n.set(0));
        assert_eq!(hidden.mask("w1 x w9999."), "***** x *****.");
        assert_eq!(LOOKUPS.with(|n| n.get()), 3);
    }
}
