//! Why a move is refused: the sentence that explains it to the player
//! (the piece's legal moves, the castling condition that fails, the check
//! left standing), for [`State::parse_move`].

use super::super::board::{file_char, Square};
use super::hooks::Hooks;
use super::pieces::{Kind, Piece};
use super::read::{and_list, or_list, Spec};
use super::state::{CastleRefusal, Move, Special, State};
use super::variant::Castling;

/// Why no legal move fits a reading.
pub(super) enum Explanation {
    /// The named piece exists; here is why the move is refused.
    Reason(String),
    /// The text names no piece of the mover.
    NoPiece(String),
}

impl<H: Hooks> State<H> {
    /// A promotion to a chess promotion piece this game does not promote
    /// to (`hxg8=Q/b2` in Doppelganger Chess): the variant's rule and the
    /// legal promotions the rest of the text fits (those with the choice
    /// written, when there are any). `None` when `core` is no such
    /// promotion (a pawn move ending in a letter that names a kind).
    pub(super) fn refuse_promotion_kind(
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
    pub(super) fn refuse_choice(
        &self,
        groups: &[Vec<Spec>],
        c: Square,
        legal: &[Move],
    ) -> Option<String> {
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

    /// One sentence saying why castling `i` is refused.
    pub(super) fn castle_reason(&self, i: usize, c: &Castling) -> String {
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
    pub(super) fn written_as(&self, sq: Square, kind: Kind) -> bool {
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
    pub(super) fn is_pseudo_choice(&self, groups: &[Vec<Spec>], c: Square) -> bool {
        let mut pseudo = Vec::new();
        self.pseudo_moves(&mut pseudo);
        pseudo
            .iter()
            .any(|&m| m.choice == Some(c) && groups.iter().flatten().any(|spec| self.fits(m, spec)))
    }

    /// Why no legal move fits `spec`.
    pub(super) fn explain(&self, spec: &Spec, legal: &[Move]) -> Explanation {
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
