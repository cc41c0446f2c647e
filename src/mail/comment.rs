//! The player's comment in a mail body (without quoted text, attribution
//! and signature), and the text of a reply to a board mail.

/// The player's comment in a mail body: the body without the signature
/// (from a line that is exactly `-- ` or `--`, or a phone or Outlook
/// signature line such as `Sent from my iPhone`, `Sent from Outlook for
/// Android` or `Get Outlook for iOS` with no `-- ` above it), without
/// quoted text (lines starting with `>`, possibly indented) and the
/// attribution line(s) just before a quote (`On … wrote:`, `Am … schrieb
/// …:`, `Le … a écrit :`, `El … escribió:`, `Il giorno … ha scritto:`,
/// `Op … schreef …:`, `W dniu … pisze:`, `… написал(а):`, and a Gmail
/// attribution wrapped over two lines), and without an Outlook-style
/// quoted original (`-----Original Message-----`, or a line of underscores
/// followed by `From:`), which cuts the rest of the body.
///
/// An attribution line that no `>` quote follows (phones that quote the
/// original without `>`) ends the comment as a signature does, but only
/// when it carries a date or an address (a digit or `@`): "On Monday she
/// wrote:" in a sentence stays. Runs of blank lines left behind collapse
/// to one; the result is trimmed.
pub(crate) fn extract_comment(body: &str) -> String {
    let lines: Vec<&str> = body.lines().map(|l| l.trim_end_matches('\r')).collect();
    // 1. Cut at the signature, an Outlook original or an attribution of
    //    an unquoted original.
    let mut end = lines.len();
    for (k, line) in lines.iter().enumerate() {
        if *line == "-- "
            || *line == "--"
            || game::command::is_phone_signature(line)
            || is_outlook_original(&lines, k)
            || attribution_of_unquoted_original(&lines, k)
        {
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
            if attribution_at(lines, j - 1) == Some(1) {
                keep[j - 1] = false;
            } else if j >= 2 && attribution_at(lines, j - 2) == Some(2) {
                keep[j - 1] = false;
                keep[j - 2] = false;
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

/// Whether an attribution starts at line `k`: `Some(1)` when it is that
/// line, `Some(2)` when it is wrapped over that line and the next (as
/// Gmail wraps a long address).
fn attribution_at(lines: &[&str], k: usize) -> Option<usize> {
    let first = lines.get(k)?.trim();
    if is_attribution(first, first) {
        return Some(1);
    }
    let second = lines.get(k + 1)?.trim();
    let joined = format!("{first} {second}");
    (!first.is_empty() && is_attribution(first, &joined)).then_some(2)
}

/// `start` is the first line of a possible attribution, `whole` all of it.
fn is_attribution(start: &str, whole: &str) -> bool {
    let s = start.to_lowercase();
    let w = whole.to_lowercase();
    let w = w.trim_end();
    // Russian puts the verb last and no fixed word first.
    if ["написал(а):", "написал:", "написала:"]
        .iter()
        .any(|e| w.ends_with(e))
    {
        return true;
    }
    if !w.ends_with(':') {
        return false;
    }
    // (first words, verb somewhere before the final colon)
    const FORMS: [(&str, &str); 9] = [
        ("on ", "wrote:"),
        ("am ", "schrieb"),
        ("le ", "écrit"),
        ("el ", "escribió"),
        ("il giorno ", "ha scritto"),
        ("il ", "ha scritto"),
        ("op ", "schreef"),
        ("w dniu ", "pisze"),
        ("den ", "skrev"),
    ];
    FORMS
        .iter()
        .any(|(first, verb)| s.starts_with(first) && w.contains(verb))
}

/// An attribution at line `k` after which no `>` quote comes (the next
/// line that is not blank is not quoted): the rest is the original
/// quoted without `>`. Needs a digit or an `@` in the attribution.
fn attribution_of_unquoted_original(lines: &[&str], k: usize) -> bool {
    let Some(n) = attribution_at(lines, k) else {
        return false;
    };
    let text = lines[k..k + n].concat();
    if !text.chars().any(|c| c.is_ascii_digit() || c == '@') {
        return false;
    }
    !lines[k + n..]
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| is_quoted(l))
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

    /// Each attribution form, with a quote after it and with the original
    /// pasted without `>` (as phones do), ends the comment.
    const ATTRIBUTIONS: [&str; 8] = [
        "On Mon, Nov 23, 2026 at 10:00 AM Bob <bob@example.org> wrote:",
        "Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb Bob <bob@example.org>:",
        "Le lun. 23 nov. 2026 à 10:00, Bob <bob@example.org> a écrit :",
        "El lun, 23 nov 2026 a las 10:00, Bob (<bob@example.org>) escribió:",
        "Il giorno lun 23 nov 2026 alle ore 10:00 Bob <bob@example.org> ha scritto:",
        "Op ma 23 nov. 2026 om 10:00 schreef Bob <bob@example.org>:",
        "W dniu 23.11.2026 o 10:00, Bob <bob@example.org> pisze:",
        "23.11.2026, 10:00, Bob <bob@example.org> написал(а):",
    ];

    #[test]
    fn every_attribution_form_ends_the_comment() {
        for a in ATTRIBUTIONS {
            let quoted = format!("Good game!\n\n{a}\n\n> It is your turn.\n");
            assert_eq!(extract_comment(&quoted), "Good game!", "{a}");
            let unquoted = format!("Good game!\n\n{a}\n\nIt is your turn.\nBoard\n");
            assert_eq!(extract_comment(&unquoted), "Good game!", "{a}");
        }
    }

    #[test]
    fn phone_and_outlook_signatures_end_the_comment() {
        for sig in [
            "Sent from my iPhone",
            "Sent from my Galaxy",
            "Sent from Outlook for Android",
            "Get Outlook for iOS",
            "Get Outlook for Android",
        ] {
            let body = format!("Well played.\n\n{sig}\n\nIt is your turn.\n");
            assert_eq!(extract_comment(&body), "Well played.", "{sig}");
        }
        let sentence = "Sent from my iPhone on the train, sorry for the typos.";
        assert_eq!(extract_comment(sentence), sentence);
    }

    #[test]
    fn a_wrote_line_without_date_or_address_and_no_quote_stays() {
        let body = "On Monday she wrote:\nThat she would resign.";
        assert_eq!(extract_comment(body), body);
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
