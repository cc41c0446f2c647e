//! Reading moves, in three steps: text → position-free readings
//! ([`Spec`]s, which only need the variant's letters and board) → the one
//! legal move they mean → or a refusal that explains itself to the player
//! (the piece's legal moves, the castling condition that fails, the check
//! left standing). The rulings are in the [module docs](super).

use super::super::board::{file_char, Square};
use super::super::MoveError;
use super::hooks::Hooks;
use super::pieces::{Kind, Piece};
use super::state::{CastleRefusal, Move, Special, State};
use super::variant::{Castling, Variant};

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

/// Why no legal move fits a reading.
enum Explanation {
    /// The named piece exists; here is why the move is refused.
    Reason(String),
    /// The text names no piece of the mover.
    NoPiece(String),
}

impl<H: Hooks> State<H> {
    /// Read a move in any accepted notation and find the one legal move it
    /// means. Errors are the sentences mailed to the player.
    pub fn parse_move(&self, input: &str) -> Result<Move, MoveError> {
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

    /// A promotion to a chess promotion piece this game does not promote
    /// to (`hxg8=Q/b2` in Doppelganger Chess): the variant's rule and the
    /// legal promotions the rest of the text fits (those with the choice
    /// written, when there are any). `None` when `core` is no such
    /// promotion (a pawn move ending in a letter that names a kind).
    fn refuse_promotion_kind(
        &self,
        core: &str,
        choice: Option<Square>,
        legal: &[Move],
    ) -> Option<String> {
        let hooks = &self.variant.hooks;
        let core = core.trim_end();
        let letter = core.chars().last()?;
        let asked = hooks.kind_of_letter(letter)?;
        // A king (or pawn) is no promotion anywhere: that text stays
        // unreadable, as before; a chess promotion piece this variant
        // does not promote to gets the rule.
        if hooks.promotion_kinds().contains(&asked) || !Kind::PROMOTIONS.contains(&asked) {
            return None;
        }
        let rest = core[..core.len() - letter.len_utf8()].trim_end_matches(['=', ' ']);
        if !rest.ends_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let groups = Spec::read(self.variant, rest)?;
        let fitting: Vec<Move> = legal
            .iter()
            .filter(|m| matches!(m.special, Special::Promotion(_)))
            .filter(|&&m| groups.iter().flatten().any(|spec| self.fits(m, spec)))
            .copied()
            .collect();
        let chosen: Vec<Move> = fitting
            .iter()
            .filter(|m| choice.is_some() && m.choice == choice)
            .copied()
            .collect();
        let shown = if chosen.is_empty() { fitting } else { chosen };
        let mut sans: Vec<String> = shown.iter().map(|&m| self.san_with(m, legal)).collect();
        sans.sort();
        sans.dedup();
        let rule = hooks.promotion_rule(asked);
        Some(if sans.is_empty() {
            format!("{rule}; and no pawn of yours can promote there now.")
        } else {
            format!("{rule}; the legal promotions there are {}.", or_list(&sans))
        })
    }

    /// The move is there, but not with choice `c`: the refusal listing
    /// the moves the reading fits (`None` when it fits none).
    fn refuse_choice(&self, groups: &[Vec<Spec>], c: Square, legal: &[Move]) -> Option<String> {
        let mut fitting: Vec<String> = legal
            .iter()
            .filter(|&&m| groups.iter().flatten().any(|spec| self.fits(m, spec)))
            .map(|&m| self.san_with(m, legal))
            .collect();
        if fitting.is_empty() {
            return None;
        }
        fitting.sort();
        fitting.dedup();
        Some(format!(
            "{c} is not a choice of that move; write {}.",
            or_list(&fitting)
        ))
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

    /// One sentence saying why castling `i` is refused.
    fn castle_reason(&self, i: usize, c: &Castling) -> String {
        let refusal = self.castle_refusal(i).unwrap_or(CastleRefusal::Exposed);
        let n = c.notation;
        let hooks = &self.variant.hooks;
        match refusal {
            CastleRefusal::NoRight => {
                let king = Piece::new(self.side, Kind::King);
                let rook = Piece::new(self.side, self.variant.hooks.castling_partner());
                let any_right = self
                    .variant
                    .castlings
                    .iter()
                    .enumerate()
                    .any(|(j, k)| k.color == self.side && self.has_castling_right(j));
                if self.piece_at(c.king_from) != Some(king) || !any_right {
                    format!("you cannot castle ({n}) any more because your king has moved.")
                } else if self.piece_at(c.rook_from) != Some(rook) {
                    format!(
                        "you cannot castle ({n}) any more because the {} from {} has moved or been taken.",
                        hooks.kind_name(rook.kind),
                        c.rook_from
                    )
                } else {
                    format!(
                        "you cannot castle ({n}) any more because the {} on {} has moved.",
                        hooks.kind_name(rook.kind),
                        c.rook_from
                    )
                }
            }
            CastleRefusal::PieceBetween(_) => {
                let occupied: Vec<String> = c
                    .must_be_empty
                    .iter()
                    .filter(|sq| self.piece_at(**sq).is_some())
                    .map(|sq| sq.to_string())
                    .collect();
                format!(
                    "to castle ({n}) the squares between king and rook must be empty, but {} {} occupied.",
                    and_list(&occupied),
                    if occupied.len() == 1 { "is" } else { "are" }
                )
            }
            CastleRefusal::InCheck => {
                format!("you cannot castle ({n}) while your king is in check.")
            }
            CastleRefusal::CrossesAttacked(sq) => {
                format!("to castle ({n}) the king would cross {sq}, which is attacked.")
            }
            CastleRefusal::LandsAttacked(sq) => {
                format!("to castle ({n}) the king would land on {sq}, which is attacked.")
            }
            CastleRefusal::Exposed => format!("castling ({n}) would leave your king in check."),
            CastleRefusal::Forbidden => {
                let m = self.castle_move(i);
                hooks.illegal_reason(&self.after(m), m)
            }
        }
    }

    /// Whether the piece on `sq` is written with the letter of `kind`.
    fn written_as(&self, sq: Square, kind: Kind) -> bool {
        let hooks = &self.variant.hooks;
        self.kind_on(sq)
            .is_some_and(|k| k == kind || hooks.letter(k) == hooks.letter(kind))
    }

    /// What a refusal calls the piece of `kind` on the board: its name,
    /// and how it moves when the variant's name does not say it
    /// (`zelig (bishop)`).
    fn piece_name(&self, kind: Kind) -> String {
        let name = self.variant.hooks.kind_name(kind);
        if name == kind.name() {
            name.to_string()
        } else {
            format!("{name} ({})", kind.name())
        }
    }

    /// Whether a pseudo-legal move fits one of the readings with choice
    /// `c` (then it is refused for the king's sake, not for the choice).
    fn is_pseudo_choice(&self, groups: &[Vec<Spec>], c: Square) -> bool {
        let mut pseudo = Vec::new();
        self.pseudo_moves(&mut pseudo);
        pseudo
            .iter()
            .any(|&m| m.choice == Some(c) && groups.iter().flatten().any(|spec| self.fits(m, spec)))
    }

    /// Whether a move fits a reading.
    fn fits(&self, m: Move, spec: &Spec) -> bool {
        m.to == spec.to
            && spec.piece.is_none_or(|k| self.written_as(m.from, k))
            && spec.from_file.is_none_or(|f| f == m.from.file())
            && spec.from_rank.is_none_or(|r| r == m.from.rank())
            && spec
                .promo
                .is_none_or(|k| m.special == Special::Promotion(k))
    }

    /// Why no legal move fits `spec`.
    fn explain(&self, spec: &Spec, legal: &[Move]) -> Explanation {
        // The coordinate form names one square.
        if spec.piece.is_none() {
            if let Some(reason) = self.explain_square(spec) {
                return Explanation::Reason(reason);
            }
        }
        let pieces: Vec<Square> = self
            .pieces()
            .filter(|&(sq, p)| {
                p.color == self.side
                    && spec.piece.is_none_or(|k| self.written_as(sq, k))
                    && spec.from_file.is_none_or(|f| f == sq.file())
                    && spec.from_rank.is_none_or(|r| r == sq.rank())
            })
            .map(|(sq, _)| sq)
            .collect();
        if pieces.is_empty() {
            return Explanation::NoPiece(self.explain_no_piece(spec));
        }
        let reason = self
            .explain_by_rule(spec, &pieces, legal)
            .unwrap_or_else(|| self.explain_destinations(&pieces, legal));
        Explanation::Reason(reason)
    }

    /// Why the square a coordinate move starts from cannot move: empty,
    /// or the other side's (`None` when it holds a piece of the mover).
    fn explain_square(&self, spec: &Spec) -> Option<String> {
        let from = self
            .variant
            .geometry
            .square(spec.from_file.unwrap_or(0), spec.from_rank.unwrap_or(0))
            .expect("read from the board");
        match self.piece_at(from) {
            None => Some(format!("there is no piece on {from}.")),
            Some(p) if p.color != self.side => Some(format!(
                "the {} on {from} is {}'s, and it is {}'s move.",
                self.variant.hooks.kind_name(p.kind),
                p.color.name(),
                self.side.name()
            )),
            _ => None,
        }
    }

    /// `you have no knight on the f-file.`: no piece of the mover fits.
    fn explain_no_piece(&self, spec: &Spec) -> String {
        let g = self.variant.geometry;
        let kind = spec.piece.unwrap_or(Kind::Pawn);
        let place = match (spec.from_file, spec.from_rank) {
            (Some(f), Some(r)) => format!(" on {}", g.square(f, r).expect("on board")),
            (Some(f), None) => format!(" on the {}-file", file_char(f)),
            (None, Some(r)) => format!(" on rank {}", r + 1),
            (None, None) => String::new(),
        };
        format!("you have no {}{place}.", self.variant.hooks.kind_name(kind))
    }

    /// The rule a move of one of `pieces` fitting `spec` breaks (castling
    /// asked as a king move, the variant's own rule, check, promotion),
    /// if one does.
    fn explain_by_rule(&self, spec: &Spec, pieces: &[Square], legal: &[Move]) -> Option<String> {
        // Castling asked for as a king move.
        for (i, c) in self.variant.castlings.iter().enumerate() {
            if c.color == self.side
                && c.king_to == spec.to
                && pieces.contains(&c.king_from)
                && self.piece_at(c.king_from) == Some(Piece::new(self.side, Kind::King))
            {
                return Some(self.castle_reason(i, c));
            }
        }
        // The variant's own reason comes before the core's guesses.
        if let Some(reason) = pieces
            .iter()
            .find_map(|&sq| self.variant.hooks.explain_refusal(self, sq, spec.to))
        {
            return Some(reason);
        }
        let mut pseudo = Vec::new();
        self.pseudo_moves(&mut pseudo);
        let fitting: Vec<Move> = pseudo
            .into_iter()
            .filter(|&m| pieces.contains(&m.from) && self.fits(m, spec))
            .collect();
        // The king is safe, but the variant's own rule says no.
        for &m in &fitting {
            let after = self.after(m);
            if !after.attacked(after.king(self.side), after.side)
                && !self.variant.hooks.is_legal_after(&after, m)
            {
                return Some(self.variant.hooks.illegal_reason(&after, m));
            }
        }
        if !fitting.is_empty() {
            return Some(if self.is_check() {
                "your king is in check, and that move does not get it out of check.".into()
            } else {
                "it would leave your king in check.".into()
            });
        }
        if spec.promo.is_some()
            && legal
                .iter()
                .any(|m| pieces.contains(&m.from) && m.to == spec.to)
        {
            return Some("only a pawn that reaches the last rank promotes.".into());
        }
        None
    }

    /// Where each of `pieces` can move instead.
    fn explain_destinations(&self, pieces: &[Square], legal: &[Move]) -> String {
        let mut parts = Vec::new();
        for &sq in pieces {
            let kind = self.kind_on(sq).expect("piece");
            let mut targets: Vec<(u8, u8, String)> = Vec::new();
            for m in legal.iter().filter(|m| m.from == sq) {
                let d = match m.special {
                    Special::Castle(i) => {
                        format!("{} ({})", m.to, self.variant.castlings[i as usize].notation)
                    }
                    _ => m.to.to_string(),
                };
                let t = (m.to.file(), m.to.rank(), d);
                if !targets.contains(&t) {
                    targets.push(t);
                }
            }
            targets.sort();
            let dests: Vec<String> = targets.into_iter().map(|t| t.2).collect();
            let name = self.piece_name(kind);
            parts.push(if dests.is_empty() {
                format!("the {name} on {sq} has no legal move")
            } else {
                format!("the {name} on {sq} can move to {}", or_list(&dests))
            });
        }
        format!("{}.", parts.join("; "))
    }
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
