//! Where an orthodox-family variant differs from chess: [`Hooks`], a trait
//! whose default methods are the FIDE rules. A variant's data
//! ([`Variant::hooks`](super::Variant)) names its hooks; chess and Double
//! Chess use [`Orthodox`], the defaults.
//!
//! The core calls them at fixed points: the letter table when reading and
//! writing FEN and moves (a piece written with a letter is any piece whose
//! kind has that letter, so several kinds may share one);
//! [`Hooks::after_setup`] once a position text's pieces are placed;
//! [`Hooks::promotion_kinds`] and
//! [`Hooks::castling_partner`] in move generation; [`Hooks::expand`] on every
//! pseudo-legal move (a move may stand for several turn actions that differ
//! by their [`Move::choice`](super::Move)); [`Hooks::after_make`] after the
//! standard make; [`Hooks::is_legal_after`] on the resulting position, after
//! the mover's king was found safe, and [`Hooks::illegal_reason`] to tell
//! the player why it said no; [`Hooks::is_insufficient_material`] for
//! the automatic draw; the notation suffix after the SAN, the extra
//! position-text fields after FEN's six, [`Hooks::kind_name`] in refusals;
//! [`Hooks::explain_refusal`] when move text fits no legal move;
//! [`Hooks::diagram_notes`] under the drawn board.

use super::super::board::Square;
use super::super::SetupError;
use super::pieces::Kind;
use super::state::{Capture, State};
use super::Move;

/// A variant's rules where they differ from chess. Every method has the
/// FIDE behaviour as its default.
pub trait Hooks: Sized + Send + Sync + 'static {
    /// Whether pieces carry [`Tag`](super::Tag)s: when false (chess), attack
    /// tests read cell codes whole, which is faster.
    const TAGS: bool = false;

    /// Whether a move's consequences are plain chess: [`Hooks::after_make`]
    /// and [`Hooks::is_legal_after`] are the defaults. Legality then skips
    /// the copy-make for moves that cannot expose the king. **A variant
    /// that overrides either hook must set this to false.**
    const PLAIN_MAKE: bool = true;

    /// Whether [`Hooks::expand`] is the default (one move per pseudo-legal
    /// move): perft's last ply then counts most moves without listing them.
    /// A variant that overrides `expand` sets it to `false`.
    const PLAIN_EXPAND: bool = true;

    /// The piece kind a letter names, either case (the piece-letter table).
    fn kind_of_letter(&self, c: char) -> Option<Kind> {
        Kind::from_letter(c)
    }

    /// The upper-case letter of a kind (the piece-letter table). Kinds may
    /// share a letter; a move written with it names any of them.
    fn letter(&self, kind: Kind) -> char {
        kind.letter()
    }

    /// The name players read for a kind in refusals (`knight`; a Zelig
    /// game says `zelig` for every kind its zeligs move as).
    fn kind_name(&self, kind: Kind) -> &'static str {
        kind.name()
    }

    /// Set what the variant derives from the placement (Zelig powers) in a
    /// position just read from text: its pieces are placed, castling
    /// rights, en passant square and the check test are not yet judged.
    fn after_setup(&self, state: &mut State<Self>) {
        let _ = state;
    }

    /// What a pawn may promote to, in generation order.
    fn promotion_kinds(&self) -> &'static [Kind] {
        &Kind::PROMOTIONS
    }

    /// The rule a promotion to `asked` (a kind that is not among
    /// [`Hooks::promotion_kinds`]) breaks, as the start of a refusal
    /// (`a pawn promotes to a rook, knight or bishop, never to a queen`).
    fn promotion_rule(&self, asked: Kind) -> String {
        let names: Vec<String> = self
            .promotion_kinds()
            .iter()
            .map(|&k| self.kind_name(k).to_string())
            .collect();
        let mut names = names;
        names.dedup();
        format!(
            "a pawn promotes to a {}, never to a {}",
            super::read::or_list(&names),
            self.kind_name(asked)
        )
    }

    /// The kind that castles with the king.
    fn castling_partner(&self) -> Kind {
        Kind::Rook
    }

    /// The turn actions one pseudo-legal move stands for (e.g. one per
    /// choice square); the default is the move itself. Each is judged
    /// legal or not on its own.
    fn expand(&self, state: &State<Self>, m: Move, out: &mut Vec<Move>) {
        let _ = state;
        out.push(m);
    }

    /// Consequences of a move after the standard make (pieces removed or
    /// converted, powers recomputed). `state` is the position after the
    /// move (the side to move already switched); `taken` what the move
    /// captured. When `events` is given, append one plain sentence per
    /// automatic consequence (perft passes `None`). Overriding it requires
    /// [`Hooks::PLAIN_MAKE`] = false.
    fn after_make(
        &self,
        state: &mut State<Self>,
        m: Move,
        taken: Option<Capture>,
        events: Option<&mut Vec<String>>,
    ) {
        let _ = (state, m, taken, events);
    }

    /// An extra legality test on the position after `m` (the mover's king
    /// is already known to be safe). Overriding it requires
    /// [`Hooks::PLAIN_MAKE`] = false.
    fn is_legal_after(&self, after: &State<Self>, m: Move) -> bool {
        let _ = (after, m);
        true
    }

    /// Why [`Hooks::is_legal_after`] refuses `m` (it does, on `after`): the
    /// reason told to the player, a sentence without its subject, as in
    /// `it would leave two zeligs on the d-file.`
    fn illegal_reason(&self, after: &State<Self>, m: Move) -> String {
        let _ = (after, m);
        "the rules of this game forbid it.".into()
    }

    /// Whether neither side can ever mate: K v K or K + one knight or
    /// bishop v K (docs/rules.md §0).
    fn is_insufficient_material(&self, state: &State<Self>) -> bool {
        let mut others = state.pieces().filter(|(_, p)| p.kind != Kind::King);
        match (others.next(), others.next()) {
            (None, _) => true,
            (Some((_, p)), None) => matches!(p.kind, Kind::Knight | Kind::Bishop),
            _ => false,
        }
    }

    /// Text written after a move's SAN (before `+`/`#`), e.g. `/c7`.
    fn write_suffix(&self, state: &State<Self>, m: Move) -> String {
        let _ = (state, m);
        String::new()
    }

    /// Split the notation suffix off move text (check marks already
    /// removed): the text without it, and the choice square it names.
    /// `Err` carries the sentence telling the player what is wrong.
    fn read_suffix<'a>(
        &self,
        state: &State<Self>,
        text: &'a str,
    ) -> Result<(&'a str, Option<Square>), String> {
        let _ = state;
        Ok((text, None))
    }

    /// Why a piece of the side to move on `from` cannot go to `to`, when
    /// the variant forbids what chess allows there (e.g. a promotion
    /// without a partner, a square its own test rules out); asked, before
    /// the core's own explanations, when move text fits no legal move.
    /// `None` lets the core explain (a king left in check, the piece's
    /// legal moves).
    fn explain_refusal(&self, state: &State<Self>, from: Square, to: Square) -> Option<String> {
        let _ = (state, from, to);
        None
    }

    /// Lines written under the drawn board, one each (which pieces are
    /// pairs, every zelig's power).
    fn diagram_notes(&self, state: &State<Self>) -> Vec<String> {
        let _ = state;
        Vec::new()
    }

    /// Position-text fields written after FEN's six (e.g. `pairs=…`).
    fn write_fields(&self, state: &State<Self>) -> Vec<String> {
        let _ = state;
        Vec::new()
    }

    /// Read the fields after FEN's six into a validated position (which
    /// holds the placement already); also called with no fields, so a
    /// variant can set defaults. Chess has none.
    fn read_fields(&self, state: &mut State<Self>, fields: &[&str]) -> Result<(), SetupError> {
        let _ = state;
        match fields.first() {
            None => Ok(()),
            Some(f) => Err(SetupError::InvalidText(format!(
                "'{f}' after the move number is not part of a FEN"
            ))),
        }
    }
}

/// The FIDE rules: every hook at its default.
#[derive(Clone, Copy, Debug, Default)]
pub struct Orthodox;

impl Hooks for Orthodox {}
