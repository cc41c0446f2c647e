//! Reading moves, in three steps: text → position-free readings
//! ([`Spec`]s, which only need the variant's letters and board) → the one
//! legal move they mean → or a refusal that explains itself to the player
//! (the piece's legal moves, the castling condition that fails, the check
//! left standing). The rulings are in the [module docs](super).

use super::super::board::Square;
use super::super::MoveError;
use super::hooks::Hooks;
use super::pieces::Kind;
use super::refusal::Explanation;
use super::state::{Move, Special, State};
use super::variant::Variant;

/// One reading of move text, independent of any position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// `None` for the coordinate form (whatever stands on the from-square);
    /// otherwise the kind the piece letter names, which stands for every
    /// kind with that letter ([`Hooks::letter`]).
    pub piece: Option<Kind>,
    pub from_file: Option<u8>,
    pub from_rank: Option<u8>,
    pub to: Square,
    pub promo: Option<Kind>,
}

impl Spec {
    /// Read non-castling move text (noise and suffix already removed) into
    /// groups of readings, in order of precedence: the first group with a
    /// legal fit wins. `None` when the text is no move.
    pub fn read<H: Hooks>(v: &Variant<H>, text: &str) -> Option<Vec<Vec<Spec>>> {
        let g = v.geometry;
        let chars: Vec<char> = text
            .chars()
            .filter(|c| !matches!(c, 'x' | 'X' | ':' | '-' | '=') && !c.is_whitespace())
            .collect();
        let n = chars.len();
        if n < 2 {
            return None;
        }
        let mut end = n;
        let mut promo = None;
        if n >= 3 && chars[n - 1].is_ascii_alphabetic() && chars[n - 2].is_ascii_digit() {
            let k = v.hooks.kind_of_letter(chars[n - 1])?;
            if !v.hooks.promotion_kinds().contains(&k) {
                return None;
            }
            promo = Some(k);
            end -= 1;
        }
        let to_file = v.file_letter(chars[end - 2])?;
        let to_rank = g.rank_of(chars[end - 1])?;
        let to = g.square(to_file, to_rank)?;
        let prefix = &chars[..end - 2];
        let spec = |piece, from_file: Option<u8>, from_rank| Spec {
            piece,
            // A pawn named without its file moves along the destination's file.
            from_file: if piece == Some(Kind::Pawn) && from_file.is_none() {
                Some(to_file)
            } else {
                from_file
            },
            from_rank,
            to,
            promo,
        };
        if prefix.is_empty() {
            return Some(vec![vec![spec(Some(Kind::Pawn), None, None)]]);
        }
        let c0 = prefix[0];
        // Reading 1: c0 is a piece letter, then optional file and rank.
        let piece_reading = v.piece_letter(c0).and_then(|kind| {
            let rest = &prefix[1..];
            let (file, rank) = match rest {
                [] => (None, None),
                [a] => match (v.file_letter(*a), g.rank_of(*a)) {
                    (Some(f), _) => (Some(f), None),
                    (None, Some(r)) => (None, Some(r)),
                    _ => return None,
                },
                [a, b] => (Some(v.file_letter(*a)?), Some(g.rank_of(*b)?)),
                _ => return None,
            };
            Some(spec(Some(kind), file, rank))
        });
        // Reading 2: c0 is a file: a pawn's file, or a from-square.
        let file_reading = v.file_letter(c0).and_then(|file| match &prefix[1..] {
            [] => Some(spec(Some(Kind::Pawn), Some(file), None)),
            [r] => Some(spec(None, Some(file), Some(g.rank_of(*r)?))),
            _ => None,
        });
        match (piece_reading, file_reading) {
            (None, None) => None,
            (Some(p), None) => Some(vec![vec![p]]),
            (None, Some(f)) => Some(vec![vec![f]]),
            (Some(p), Some(f)) => {
                if c0.is_ascii_uppercase() {
                    Some(vec![vec![p], vec![f]])
                } else if f.piece.is_none() {
                    // `b1c3`: the coordinate form first.
                    Some(vec![vec![f], vec![p]])
                } else {
                    Some(vec![vec![p, f]])
                }
            }
        }
    }
}

impl<H: Hooks> State<H> {
    /// Read a move in any accepted notation and find the one legal move it
    /// means. Errors are the sentences mailed to the player.
    ///
    /// Where the game's pieces are the orthodox six (no letter but K Q R B
    /// N P names a piece), a move may also be written with German letters
    /// (`S` knight, `L` bishop, `T` rook, `D` queen, `K` king) or Unicode
    /// figurines of either colour (`♘f3`, `♝xb5`), and after a phrase
    /// `My move:` or `Move:`. A text that reads as two different legal
    /// moves, as written and in the other notation, is refused naming both;
    /// when only one of its readings is legal (`Dh4`: a d-pawn as written,
    /// the queen in German) that one is played.
    pub fn parse_move(&self, input: &str) -> Result<Move, MoveError> {
        let orthodox = self.has_orthodox_six();
        let written = if orthodox {
            strip_move_phrase(input)
        } else {
            input
        };
        let first = self.parse_move_as(written);
        let Some(other) = orthodox.then(|| other_notation(written)).flatten() else {
            return first;
        };
        let second = self.parse_move_as(&other);
        match (first, second) {
            (Ok(a), Ok(b)) if a != b => {
                let legal = self.legal_moves();
                Err(MoveError::Ambiguous {
                    input: written.trim().to_string(),
                    candidates: vec![
                        format!("{} (as written)", self.san_with(a, &legal)),
                        format!("{} (German letters)", self.san_with(b, &legal)),
                    ],
                })
            }
            // `Dh4` read as written is a pawn on the d-file: the legal
            // reading wins.
            (Ok(a), _) | (Err(_), Ok(a)) => Ok(a),
            (Err(MoveError::Unreadable { .. }), Err(MoveError::Illegal { reason, .. })) => {
                Err(MoveError::Illegal {
                    input: written.trim().to_string(),
                    reason,
                })
            }
            (Err(e), _) => Err(e),
        }
    }

    /// Whether the six orthodox letters are this game's only piece letters.
    fn has_orthodox_six(&self) -> bool {
        ('A'..='Z').all(|c| {
            let k = self.variant.hooks.kind_of_letter(c);
            match c {
                'K' | 'Q' | 'R' | 'B' | 'N' | 'P' => {
                    k.is_some_and(|k| self.variant.hooks.letter(k) == c)
                }
                _ => k.is_none(),
            }
        })
    }

    /// [`State::parse_move`] for the text as it is.
    fn parse_move_as(&self, input: &str) -> Result<Move, MoveError> {
        let legal = self.legal_moves();
        let unreadable = || MoveError::Unreadable {
            input: input.trim().to_string(),
            hint: self.variant.hint.to_string(),
        };
        let illegal = |reason: String| MoveError::Illegal {
            input: input.trim().to_string(),
            reason,
        };
        let text = promotion_as_equals(&strip_noise(input));
        if text.is_empty() {
            return Err(unreadable());
        }
        // Canonical SAN always means exactly what it says (`bxc4` is the
        // pawn even where `Bxc4` is legal too).
        if let Some(&m) = legal.iter().find(|&&m| self.san_plain(m, &legal) == text) {
            return Ok(m);
        }
        let (core, choice) = self
            .variant
            .hooks
            .read_suffix(self, &text)
            .map_err(illegal)?;
        if let Some(n) = castling_length(core) {
            let m = self
                .parse_castling(input.trim(), n, &legal)
                .ok_or_else(unreadable)??;
            return match choice {
                Some(c) if m.choice != Some(c) => Err(illegal(format!(
                    "{c} is not a choice of that move; write {}.",
                    self.san_with(m, &legal)
                ))),
                _ => Ok(m),
            };
        }
        let Some(groups) = Spec::read(self.variant, core) else {
            return Err(match self.refuse_promotion_kind(core, choice, &legal) {
                Some(reason) => illegal(reason),
                None => unreadable(),
            });
        };
        if let Some(m) = self.find_in_groups(input, &groups, choice, &legal)? {
            return Ok(m);
        }
        if let Some(c) = choice.filter(|&c| !self.is_pseudo_choice(&groups, c)) {
            if let Some(reason) = self.refuse_choice(&groups, c, &legal) {
                return Err(illegal(reason));
            }
        }
        let mut first_missing = None;
        for spec in groups.iter().flatten() {
            match self.explain(spec, &legal) {
                Explanation::Reason(r) => return Err(illegal(r)),
                Explanation::NoPiece(r) => {
                    first_missing.get_or_insert(r);
                }
            }
        }
        Err(illegal(
            first_missing.unwrap_or_else(|| "no piece can make it.".into()),
        ))
    }

    /// The legal move the first reading group with any fitting move means
    /// (with `choice`, if one was written): `None` when no group has one,
    /// an ambiguity when a group has several.
    fn find_in_groups(
        &self,
        input: &str,
        groups: &[Vec<Spec>],
        choice: Option<Square>,
        legal: &[Move],
    ) -> Result<Option<Move>, MoveError> {
        for group in groups {
            let mut found: Vec<Move> = Vec::new();
            for spec in group {
                for &m in legal {
                    if self.fits(m, spec)
                        && choice.is_none_or(|c| m.choice == Some(c))
                        && !found.contains(&m)
                    {
                        found.push(m);
                    }
                }
            }
            match found.len() {
                0 => continue,
                1 => return Ok(Some(found[0])),
                _ => {
                    let mut candidates: Vec<String> =
                        found.iter().map(|&m| self.san_with(m, legal)).collect();
                    candidates.sort();
                    return Err(MoveError::Ambiguous {
                        input: input.trim().to_string(),
                        candidates,
                    });
                }
            }
        }
        Ok(None)
    }

    fn parse_castling(
        &self,
        input: &str,
        os: usize,
        legal: &[Move],
    ) -> Option<Result<Move, MoveError>> {
        let (i, c) = self
            .variant
            .castlings
            .iter()
            .enumerate()
            .find(|(_, c)| c.color == self.side && c.notation.matches('O').count() == os)?;
        if let Some(&m) = legal.iter().find(|m| m.special == Special::Castle(i as u8)) {
            return Some(Ok(m));
        }
        Some(Err(MoveError::Illegal {
            input: input.to_string(),
            reason: self.castle_reason(i, c),
        }))
    }

    /// Whether a move fits a reading.
    pub(super) fn fits(&self, m: Move, spec: &Spec) -> bool {
        m.to == spec.to
            && spec.piece.is_none_or(|k| self.written_as(m.from, k))
            && spec.from_file.is_none_or(|f| f == m.from.file())
            && spec.from_rank.is_none_or(|r| r == m.from.rank())
            && spec
                .promo
                .is_none_or(|k| m.special == Special::Promotion(k))
    }
}

/// The text after a leading `My move:` or `Move:` (any case), else all.
fn strip_move_phrase(input: &str) -> &str {
    let t = input.trim_start();
    for phrase in ["my move:", "move:"] {
        if t.len() >= phrase.len()
            && t.is_char_boundary(phrase.len())
            && t[..phrase.len()].eq_ignore_ascii_case(phrase)
        {
            return t[phrase.len()..].trim_start();
        }
    }
    input
}

/// The move text with figurines and German piece letters written as the
/// English letters; `None` when there is neither. A pawn figurine is
/// dropped (`♙e4` is `e4`). Only upper-case German letters are read: a
/// lower-case letter is a file.
fn other_notation(text: &str) -> Option<String> {
    let out: String = text
        .chars()
        .filter_map(|c| match c {
            '♔' | '♚' => Some('K'),
            '♕' | '♛' | 'D' => Some('Q'),
            '♖' | '♜' | 'T' => Some('R'),
            '♗' | '♝' | 'L' => Some('B'),
            '♘' | '♞' | 'S' => Some('N'),
            '♙' | '♟' => None,
            c => Some(c),
        })
        .collect();
    (out != text).then_some(out)
}

/// Trim, drop a leading move number (`12.`, `12...`) and trailing
/// `+ # ! ?` and `e.p.` noise.
fn strip_noise(input: &str) -> String {
    let mut s = input.trim().to_string();
    let digits = s.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && s[digits..].starts_with('.') {
        s = s[digits..].trim_start_matches('.').trim_start().to_string();
    }
    loop {
        let before = s.len();
        s = s.trim_end_matches(['+', '#', '!', '?', ' ']).to_string();
        for suffix in ["e.p.", "ep", "e.p"] {
            if s.len() > suffix.len()
                && s.to_ascii_lowercase().ends_with(suffix)
                && s[..s.len() - suffix.len()]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_ascii_digit() || c == ' ')
            {
                s.truncate(s.len() - suffix.len());
            }
        }
        if s.len() == before {
            return s.trim().to_string();
        }
    }
}

/// The promotion forms `cxb8(Q)` and `cxb8/Q` written as `cxb8=Q`: a
/// single letter in brackets, or after a slash, right after a rank digit.
/// (A slash followed by a square, Doppelganger's choice of pawn, is left
/// alone: a square is never a single letter.)
fn promotion_as_equals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let after_digit = i > 0 && chars[i - 1].is_ascii_digit();
        let letter = |k: usize| chars.get(k).is_some_and(|c| c.is_ascii_alphabetic());
        let ends = |k: usize| chars.get(k).is_none_or(|c| !c.is_ascii_alphanumeric());
        if after_digit && chars[i] == '(' && letter(i + 1) && chars.get(i + 2) == Some(&')') {
            out.push('=');
            out.push(chars[i + 1]);
            i += 3;
        } else if after_digit && chars[i] == '/' && letter(i + 1) && ends(i + 2) {
            out.push('=');
            out.push(chars[i + 1]);
            i += 2;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// `O-O`, `0-0-0`, `o-o`, `OO`: the number of O's, if the text is castling.
fn castling_length(text: &str) -> Option<usize> {
    let os = text
        .chars()
        .filter(|c| matches!(c, 'O' | 'o' | '0'))
        .count();
    let only = text.chars().all(|c| matches!(c, 'O' | 'o' | '0' | '-'));
    (only && os >= 2).then_some(os)
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn or_list(items: &[String]) -> String {
    joined(items, "or")
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list(items: &[String]) -> String {
    joined(items, "and")
}

fn joined(items: &[String], word: &str) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}
