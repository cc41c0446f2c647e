//! The player's comment in a mail body (without quoted text, attribution
//! and signature), and the text of a reply to a board mail.

/// The player's comment in a mail body: the body without the signature
/// (from a line that is exactly `-- ` or `--`), without quoted text (lines
/// starting with `>`, possibly indented) and the attribution line(s) just
/// before a quote (`On … wrote:`, also in a few other languages, and a
/// Gmail attribution wrapped over two lines), and without an Outlook-style
/// quoted original (`-----Original Message-----`, or a line of underscores
/// followed by `From:`), which cuts the rest of the body. Runs of blank lines
/// left behind collapse to one; the result is trimmed.
pub(crate) fn extract_comment(body: &str) -> String {
    let lines: Vec<&str> = body.lines().map(|l| l.trim_end_matches('\r')).collect();
    // 1. Cut at the signature or an Outlook original.
    let mut end = lines.len();
    for (k, line) in lines.iter().enumerate() {
        if *line == "-- " || *line == "--" || is_outlook_original(&lines, k) {
            end = k;
            break;
        }
    }
    let lines = &lines[..end];
    // 2. Mark quoted lines and attributions right before a quote.
    let mut keep = vec![true; lines.len()];
    for (k, line) in lines.iter().enumerate() {
        if is_quoted(line) {
            keep[k] = false;
            // First line of a quote block: remove the attribution before it.
            if k == 0 || is_quoted(lines[k - 1]) && !lines[k - 1].trim().is_empty() {
                continue;
            }
            let mut j = k;
            while j > 0 && lines[j - 1].trim().is_empty() {
                j -= 1;
            }
            if j == 0 {
                continue;
            }
            let prev = lines[j - 1].trim();
            if is_attribution_end(prev) {
                keep[j - 1] = false;
                if !starts_attribution(prev) && j >= 2 && starts_attribution(lines[j - 2].trim()) {
                    keep[j - 2] = false;
                }
            }
        }
    }
    // 3. Join, collapse blank runs, trim.
    let mut out = String::new();
    let mut blank_run = false;
    for (k, line) in lines.iter().enumerate() {
        if !keep[k] {
            continue;
        }
        let line = line.trim_end();
        if line.is_empty() {
            blank_run = true;
            continue;
        }
        if blank_run && !out.is_empty() {
            out.push('\n');
        }
        blank_run = false;
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

/// What a player wrote above the quote of a reply to a board mail: the
/// action (its first line that is not blank) and the comment (the rest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReplyText {
    pub action: String,
    pub comment: String,
}

/// Reads a reply's body: the text of [`extract_comment`] (no quote, no
/// attribution, no Outlook original, no signature), whose first line is
/// the action and whose remaining lines are the comment. `None` when
/// nothing was written above the quote.
pub(crate) fn reply_text(body: &str) -> Option<ReplyText> {
    let text = extract_comment(body);
    let (action, comment) = text.split_once('\n').unwrap_or((&text, ""));
    let action = action.trim();
    if action.is_empty() {
        return None;
    }
    Some(ReplyText {
        action: action.to_string(),
        comment: comment.trim().to_string(),
    })
}

fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

fn is_attribution_end(line: &str) -> bool {
    let l = line.to_lowercase();
    [
        "wrote:",
        "schrieb:",
        "a écrit :",
        "a écrit:",
        "skrev:",
        "escribió:",
        "scritto:",
        "schreef:",
    ]
    .iter()
    .any(|e| l.ends_with(e))
}

fn starts_attribution(line: &str) -> bool {
    let l = line.to_lowercase();
    ["on ", "am ", "le ", "el ", "den ", "il ", "op "]
        .iter()
        .any(|s| l.starts_with(s))
}

fn is_outlook_original(lines: &[&str], k: usize) -> bool {
    let t = lines[k].trim();
    let lower = t.to_lowercase();
    if lower.starts_with("-----") && lower.contains("original message") {
        return true;
    }
    // Outlook's header block without a rule above it: `From: …` followed
    // by `Sent: …` (or `Date:`; `Von:`/`Gesendet:` in German).
    if ["from:", "von:"].iter().any(|h| lower.starts_with(h)) {
        return lines
            .iter()
            .skip(k + 1)
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim_start().to_lowercase())
            .is_some_and(|l| {
                ["sent:", "date:", "gesendet:"]
                    .iter()
                    .any(|h| l.starts_with(h))
            });
    }
    if t.len() >= 10 && t.chars().all(|c| c == '_') {
        return lines
            .iter()
            .skip(k + 1)
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.trim_start().starts_with("From:"));
    }
    false
}
#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn comment_strips_quote_and_attribution() {
        let body = "Good game!\n\nOn Sun, Nov 22, 2026 at 5:00 AM Bob <bob@example.org> wrote:\n> It is your turn.\n> board...\n";
        assert_eq!(extract_comment(body), "Good game!");
    }

    #[test]
    fn comment_strips_wrapped_gmail_attribution() {
        let body = "Take that.\n\nOn Sun, Nov 22, 2026 at 5:00 AM Bob Example <\nbob@example.org> wrote:\n\n> quoted\n";
        assert_eq!(extract_comment(body), "Take that.");
    }

    #[test]
    fn comment_keeps_interleaved_answers_without_quotes() {
        let body = "> Do you accept?\nYes.\n> And the draw?\nNo.\n";
        assert_eq!(extract_comment(body), "Yes.\nNo.");
    }

    #[test]
    fn comment_keeps_wrote_line_not_followed_by_quote() {
        let body = "Shakespeare wrote:\nTo be or not to be.";
        assert_eq!(extract_comment(body), body);
    }

    #[test]
    fn comment_cuts_signature_with_and_without_trailing_space() {
        assert_eq!(extract_comment("Hi\n-- \nAlice\nhttp://x"), "Hi");
        assert_eq!(extract_comment("Hi\r\n--\r\nAlice"), "Hi");
        // Not a signature separator: text after dashes on the line.
        assert_eq!(extract_comment("Hi\n-- not a sig"), "Hi\n-- not a sig");
    }

    #[test]
    fn comment_cuts_outlook_original_message() {
        let body = "Fine by me.\n\n-----Original Message-----\nFrom: Bob\nSent: today\n\nold text";
        assert_eq!(extract_comment(body), "Fine by me.");
        let body = "Ok\n________________________________\nFrom: Bob\nold";
        assert_eq!(extract_comment(body), "Ok");
    }

    #[test]
    fn comment_cuts_an_outlook_header_block_without_a_rule() {
        let body = "Nf3\r\n\r\nFrom: Test PBM <pbm@games.test>\r\nSent: Monday, November 23, 2026 10:00 AM\r\nTo: alice@a.example\r\n\r\nIt is alice's turn.";
        assert_eq!(extract_comment(body), "Nf3");
        // A line that only starts like a header stays.
        assert_eq!(
            extract_comment("From: my heart\nI resign"),
            "From: my heart\nI resign"
        );
    }

    #[test]
    fn a_reply_is_its_first_line_and_a_comment() {
        let body = "\n  e4  \nA classic.\n\nReally.\n\nOn Mon, 23 Nov 2026 at 10:00, Test PBM <pbm@games.test> wrote:\n\n> It is alice's turn.\n\n-- \nAlice\n";
        assert_eq!(
            reply_text(body),
            Some(ReplyText {
                action: "e4".into(),
                comment: "A classic.\n\nReally.".into()
            })
        );
        assert_eq!(
            reply_text("resign").unwrap(),
            ReplyText {
                action: "resign".into(),
                comment: String::new()
            }
        );
        assert_eq!(reply_text("On x wrote:\n> e4\n-- \nme"), None);
        assert_eq!(reply_text(""), None);
    }

    #[test]
    fn comment_collapses_blank_runs_and_trims() {
        let body = "\n\n  First\n\n\n> q\n\n\nSecond  \n\n";
        assert_eq!(extract_comment(body), "First\n\nSecond");
    }

    #[test]
    fn comment_of_only_quotes_is_empty() {
        assert_eq!(extract_comment("On x wrote:\n> a\n> b"), "");
        assert_eq!(extract_comment(""), "");
    }
    proptest! {
        #[test]
        fn extract_comment_never_panics(s in any::<String>()) {
            let _ = extract_comment(&s);
        }

        #[test]
        fn a_reply_action_is_one_trimmed_line(s in any::<String>()) {
            if let Some(r) = reply_text(&s) {
                prop_assert!(!r.action.is_empty() && !r.action.contains('\n'));
                prop_assert_eq!(r.action.trim(), r.action.as_str());
            }
        }
    }
}
