//! Move text pasted from a PGN export (lichess, ChessBase, SCID) read as
//! its main line.

/// The main line of pasted PGN move text, or `None` when the text shows no
/// sign of PGN (no `{comment}`, no `(variation)` after a space, no `$n`
/// NAG, no result token), so that plain move lists keep their reading.
///
/// Skipped: `{…}` comments (with any `[%clk …]` inside), `;` comments to
/// the end of the line, `(…)` variations, nested or not (a variation is
/// never played), `$n` NAGs, move numbers (`12.`, `12...`, also glued to
/// the move). A result token (`1-0`, `0-1`, `1/2-1/2`, `½-½`, `*`) ends
/// the line. `!`/`?` suffixes are left to the move reader, which drops them.
pub(super) fn main_line(text: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let is_pgn = text.contains('{')
        || words
            .iter()
            .any(|w| w.starts_with('(') || is_nag(w) || is_result(w));
    if !is_pgn {
        return None;
    }
    let mut clean = String::with_capacity(text.len());
    let mut depth = 0u32;
    let mut chars = text.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
                clean.push(' ');
            }
            ';' if depth == 0 => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                clean.push(' ');
            }
            // `cxb8(Q)`: a promotion, not a variation.
            '(' if !prev.is_ascii_digit() => depth += 1,
            ')' if depth > 0 => {
                depth -= 1;
                clean.push(' ');
            }
            c if depth > 0 => {
                let _ = c;
            }
            c => clean.push(c),
        }
        prev = c;
    }
    let mut moves = Vec::new();
    for word in clean.split_whitespace() {
        if is_result(word) {
            break;
        }
        if is_nag(word) {
            continue;
        }
        let digits = word.chars().take_while(|c| c.is_ascii_digit()).count();
        let rest = if digits > 0 && word[digits..].starts_with('.') {
            word[digits..].trim_start_matches('.')
        } else {
            word
        };
        if !rest.is_empty() {
            moves.push(rest.to_string());
        }
    }
    Some(moves)
}

fn is_nag(word: &str) -> bool {
    word.len() > 1 && word.starts_with('$') && word[1..].chars().all(|c| c.is_ascii_digit())
}

fn is_result(word: &str) -> bool {
    matches!(word, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*")
}

#[cfg(test)]
mod tests {
    use super::main_line;

    #[test]
    fn a_lichess_export_is_read_as_its_main_line() {
        let text = "1. e4 { [%clk 0:10:00] } 1... e5 { [%clk 0:09:58] } 2. Nf3 $1 \
                    (2. Bc4 Nf6 (2... Bc5) 3. d3) 2... Nc6!? 3. Bb5 { The Spanish. } \
                    ; a rest-of-line comment\n3... a6 1-0 4. Ba4";
        assert_eq!(
            main_line(text).unwrap(),
            ["e4", "e5", "Nf3", "Nc6!?", "Bb5", "a6"]
        );
    }

    #[test]
    fn plain_move_lists_and_promotions_are_not_pgn() {
        assert_eq!(main_line("e4 e5 Nf3"), None);
        assert_eq!(main_line("1.e4 e5 2.Nf3"), None);
        assert_eq!(main_line("cxb8(Q) Kxb8"), None);
        assert_eq!(main_line("e4 e5 *").unwrap(), ["e4", "e5"]);
        assert_eq!(
            main_line("e4 cxb8(Q) $2 1/2-1/2").unwrap(),
            ["e4", "cxb8(Q)"]
        );
    }
}

#[cfg(test)]
mod body_tests {
    use crate::command::{parse_mail, Command, GameCommand};

    fn preview_moves(subject: &str, body: &str) -> Vec<String> {
        let r = parse_mail(subject, body);
        match &r.commands[0] {
            Ok(p) => match &p.command {
                Command::Game {
                    command: GameCommand::Preview { moves, .. },
                    ..
                } => moves.clone(),
                c => panic!("{c:?}"),
            },
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_preview_subject_without_moves_reads_them_from_the_body() {
        let body = "1. e4 {[%clk 0:10:00]} e5\n2. Nf3 ; best by test\n(2. f4) Nc6 *\n-- \nAnn\n";
        assert_eq!(
            preview_moves("chess preview new", body),
            ["e4", "e5", "Nf3", "Nc6"]
        );
        assert_eq!(
            preview_moves("chess preview 101", "d4 d5\nc4\n"),
            ["d4", "d5", "c4"]
        );
        let r = parse_mail("chess preview new", "e4 e5");
        assert_eq!(r.commands[0].as_ref().unwrap().masked, "chess preview new");
        // Moves in the Subject: the body is not read.
        assert_eq!(preview_moves("chess preview new e4", "d4"), ["e4"]);
    }

    #[test]
    fn a_phone_signature_is_no_body_and_ends_the_moves() {
        // `preview new` from a phone: the start position, no refusal.
        for sig in ["Sent from my iPhone", "Get Outlook for Android"] {
            let body = format!("\n{sig}\n");
            assert!(
                preview_moves("chess preview new", &body).is_empty(),
                "{sig}"
            );
        }
        // The moves above a phone signature are read, the signature not.
        assert_eq!(
            preview_moves("chess preview new", "e4 e5 Nf3\nSent from my Galaxy 23\n"),
            ["e4", "e5", "Nf3"]
        );
        // A board's preview with only a signature below is the Subject's
        // own refusal (a board and moves are needed), not a read of talk.
        let r = parse_mail("chess preview 101", "Sent from my iPhone");
        let e = r.commands[0].as_ref().unwrap_err();
        assert!(
            e.message
                .contains("needs a board number and one or more moves"),
            "{e}"
        );
    }

    #[test]
    fn talk_around_the_moves_is_not_read_and_a_body_of_talk_is_refused() {
        assert_eq!(
            preview_moves(
                "chess preview new",
                "Here is the game:\n1. e4 e5 2. Nf3\n\nBest, Ann"
            ),
            ["1.", "e4", "e5", "2.", "Nf3"]
        );
        assert_eq!(
            preview_moves("chess preview 101", "d4 d5 O-O! what do you think?"),
            ["d4", "d5", "O-O!"]
        );
        for subject in [
            "chess preview new",
            "chess preview 101",
            "Re: chess preview new -lenient",
        ] {
            let r = parse_mail(subject, "what do you think?\n\nSent from my iPhone");
            let e = r.commands[0].as_ref().unwrap_err();
            assert!(
                e.message.starts_with("Your Subject has no moves after"),
                "{e}"
            );
            assert!(e.message.contains("(\"what\" is no move)"), "{e}");
            assert!(e.message.ends_with('.') && !e.message.contains(". "), "{e}");
            assert_eq!(e.game.as_deref(), Some("chess"), "{subject}");
        }
    }

    #[test]
    fn a_body_of_more_moves_than_a_multiple_holds_words_is_refused() {
        let many = "Nf3 Nf6 Ng1 Ng8 ".repeat(251);
        let r = parse_mail("chess preview new", &many);
        let e = r.commands[0].as_ref().unwrap_err();
        assert!(
            e.message.starts_with("The body holds 1004 words of moves"),
            "{e}"
        );
        let fits = "Nf3 Nf6 Ng1 Ng8 ".repeat(250);
        assert_eq!(preview_moves("chess preview new", &fits).len(), 1000);
    }
}
