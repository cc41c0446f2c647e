//! Small text helpers the commands share: a capital first letter for the
//! rules' sentences, and the player's comment with their password masked.

use super::Ctx;
use crate::command::Password;
use crate::rules::MoveError;

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

/// `text` with every word of the command `line` that its quote `masked`
/// hides (a password, or a word guessed to be one) masked as well, so a
/// comment quoted back in an error mail never shows what the quote hides.
pub(crate) fn masked_like(text: &str, line: &str, masked: &str) -> String {
    let shown: Vec<String> = masked.split_whitespace().map(str::to_lowercase).collect();
    let mut out = text.to_string();
    for word in line.split_whitespace() {
        let lower = word.to_lowercase();
        let decoration = matches!(
            lower.as_str(),
            "re:" | "fwd:" | "fw:" | "aw:" | "sv:" | "**"
        );
        if !decoration && !shown.contains(&lower) {
            out = mask_word(&out, word);
        }
    }
    out
}

/// `text` with every whole word equal to `secret` (ignoring case) replaced
/// by `*****`; words are split at white space and trailing punctuation.
pub(crate) fn mask_word(text: &str, secret: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let core = word.trim_end_matches(|c: char| c.is_ascii_punctuation());
        if !core.is_empty() && core.eq_ignore_ascii_case(secret) {
            out.push_str("*****");
            out.push_str(&word[core.len()..]);
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::mask_word;

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
}
