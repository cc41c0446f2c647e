//! The words the server hides when it quotes or relays what a player
//! wrote: a password, or a word guessed to be one.

use std::collections::HashSet;

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
        each_word(text, |word, out| {
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
        })
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

/// `text` with each word (what lies between white space) written by
/// `word` into the result and the white space around it kept as it is:
/// the one walk over words of the masking here and of the web's hiding of
/// addresses.
pub(crate) fn each_word(text: &str, mut word: impl FnMut(&str, &mut String)) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        word(&rest[..end], &mut out);
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{mask_word, Hidden, LOOKUPS};

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
        // A 120k-word Subject and a 120 KB body: one set
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
