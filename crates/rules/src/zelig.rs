//! The Zelig family (`mchess`, `zelig`, `zelig2`): docs/rules.md §3. Orthodox
//! chess in which every queen, rook, bishop and knight is a **zelig**
//! (`Z`), whose power follows from where it stands; one implementation
//! whose [`Powers`] rule is the only difference between the three games.
//!
//! # The model
//! A zelig is stored as a plain orthodox piece whose kind is its *current
//! power*: knight, bishop, rook, queen, or [`Kind::Monarch`] (king steps,
//! not royal). So the core's movement, attack and legality code works
//! unchanged, and the letter table writes `Z` for all five kinds. No tag
//! is needed to tell zeligs apart: in these games every piece that is
//! neither pawn nor king is a zelig. The kinds are a pure function of the
//! placement: [`Hooks::after_setup`] sets them all when a position is
//! read, and [`Hooks::after_make`] recomputes them for both sides after
//! every action, before legality is judged, so check and check at a
//! distance are seen with the powers of the resulting position. (It
//! updates only what an action can change: the zelig that landed, and
//! under the quota the a-, d- and h-files of a side that moved or lost a
//! zelig; the random-playout test compares every position with a plain
//! recomputation.)
//!
//! A pawn promotes to one zelig (`e8=Z`, `e8`, `e7e8`, `e7e8z`);
//! [`PLACEHOLDER`] is the kind the letter `Z` reads as until the powers
//! are set. Castling is the FIDE castling with the zelig on the corner,
//! which is always a rook there under every rule set.
//!
//! # Rulings
//! - **Notation**: SAN writes `Z` for every zelig and disambiguates
//!   between zeligs whatever their powers (`Zbc3`), and only when another
//!   zelig can legally go to the same square: then `Zc3` alone would be
//!   ambiguous and would not read back, so `Zee7` beside `Zce7` is right,
//!   while a zelig no other can follow is written by its destination
//!   (tested over random games). The stored notation is
//!   the SAN alone; the power the moved zelig has afterwards when it
//!   differs from the power it moved with (or it was just promoted), and
//!   every other zelig whose power changed, are told as event sentences
//!   (`White's zelig on c3 is a bishop.`), which the move list shows under
//!   the move (a power that did not change is not news). `Q`, `R`, `B`, `N` are no pieces in these games.
//! - **Zelig 2** judges the limits (one zelig on the d-file, two on the a-
//!   and h-files together) for the mover only, on the position after the
//!   action. A position text beyond the limits is accepted; its side then
//!   has only the actions that end within them.
//! - **Insufficient material**: only king against king (a lone zelig can
//!   always reach a rook or queen file).
//! - **Position text**: FEN with `Z`/`z`; powers are never written, since
//!   they follow from the placement.

use std::sync::LazyLock;

use super::board::{Geometry, Square};
use super::engine::EngineGame;
use super::orthodox::{Capture, Hooks, Kind, Move, Piece, Special, State, Variant};
use super::{Color, SetupError};

/// The start position of all three games.
pub const START_FEN: &str = "zzzzkzzz/pppppppp/8/8/8/8/PPPPPPPP/ZZZZKZZZ w KQkq - 0 1";

/// The kind the letter `Z` reads as (in a position text, a move, a
/// promotion) until the powers are set.
pub const PLACEHOLDER: Kind = Kind::Queen;

/// The power each file gives, `a` to `h` (M-Chess, and Zelig's b, c, e, f
/// and g files).
pub const FILE_POWER: [Kind; 8] = [
    Kind::Rook,
    Kind::Knight,
    Kind::Bishop,
    Kind::Queen,
    Kind::Monarch,
    Kind::Bishop,
    Kind::Knight,
    Kind::Rook,
];

/// The quota files, in the order [`quota_power`] takes them.
const QUOTA_FILES: [u8; 3] = [A_FILE, D_FILE, H_FILE];
const A_FILE: u8 = 0;
const D_FILE: u8 = 3;
const H_FILE: u8 = 7;

/// How a rule set gives zeligs their powers: the one difference between
/// the three games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Powers {
    /// M-Chess: the file's power, no limits.
    File,
    /// Zelig: at most one queen and two rooks a side, by the quota
    /// algorithm ([`quota_power`]).
    Quota,
    /// Zelig 2: the file's power, and no action may leave its mover more
    /// than one zelig on the d-file or two on the a- and h-files together.
    Limited,
}

/// Whether a kind is a zelig's (every kind but pawn and king).
pub fn is_zelig(kind: Kind) -> bool {
    !matches!(kind, Kind::Pawn | Kind::King)
}

/// The Zelig quota algorithm (docs/rules.md §3, steps 2–4) for one side: the
/// power of the zelig number `i` (0 the nearest to its owner's back rank)
/// on `file` (`a`, `d` or `h`, as 0, 3, 7), when the side has `counts`
/// zeligs on the a, d and h files. Only those counts matter: the algorithm
/// goes down each file in nearness order.
pub fn quota_power(counts: [usize; 3], file: u8, i: usize) -> Kind {
    let [a, d, h] = counts;
    // Step 2: rook quota 2 from the rook files.
    let (rooks_a, rooks_h) = match (a > 0, h > 0) {
        (true, true) => (1, 1),
        (true, false) => (a.min(2), 0),
        (false, true) => (0, h.min(2)),
        (false, false) => (0, 0),
    };
    // Step 3: the nearest on d is the queen, the next ones rooks while the
    // quota lasts.
    let (queens_d, rooks_d) = if d > 0 {
        (1, (d - 1).min(2 - rooks_a - rooks_h))
    } else {
        (0, 0)
    };
    // Step 4: what remains on a file, in order: bishop, knight, monarchs.
    let rest = |j: usize| match j {
        0 => Kind::Bishop,
        1 => Kind::Knight,
        _ => Kind::Monarch,
    };
    match file {
        A_FILE if i < rooks_a => Kind::Rook,
        A_FILE => rest(i - rooks_a),
        H_FILE if i < rooks_h => Kind::Rook,
        H_FILE => rest(i - rooks_h),
        D_FILE if i < queens_d => Kind::Queen,
        D_FILE if i < queens_d + rooks_d => Kind::Rook,
        D_FILE => rest(i - queens_d - rooks_d),
        _ => FILE_POWER[file as usize],
    }
}

/// The ranks of a side in nearness order (its back rank first).
fn nearness(color: Color) -> [u8; 8] {
    match color {
        Color::White => [0, 1, 2, 3, 4, 5, 6, 7],
        Color::Black => [7, 6, 5, 4, 3, 2, 1, 0],
    }
}

fn square(file: u8, rank: u8) -> Square {
    Geometry::CHESS.square(file, rank).expect("on the board")
}

/// The Zelig family's hooks: the power rule is data.
#[derive(Clone, Copy, Debug)]
pub struct ZeligHooks {
    pub powers: Powers,
}

impl ZeligHooks {
    /// Whether the piece on `sq` is a zelig of `color`.
    fn zelig_of(state: &State<Self>, sq: Square, color: Color) -> bool {
        state
            .piece_at(sq)
            .is_some_and(|p| p.color == color && is_zelig(p.kind))
    }

    /// Set the powers of `color`'s zeligs on the a, d and h files by the
    /// quota algorithm.
    fn set_quota(state: &mut State<Self>, color: Color) {
        let mut files = [[square(0, 0); 8]; 3];
        let mut counts = [0usize; 3];
        for (f, &file) in QUOTA_FILES.iter().enumerate() {
            for rank in nearness(color) {
                let sq = square(file, rank);
                if Self::zelig_of(state, sq, color) {
                    files[f][counts[f]] = sq;
                    counts[f] += 1;
                }
            }
        }
        for (f, &file) in QUOTA_FILES.iter().enumerate() {
            for (i, &sq) in files[f][..counts[f]].iter().enumerate() {
                state.set_kind(sq, quota_power(counts, file, i));
            }
        }
    }

    /// Every zelig's power from scratch.
    fn set_all(&self, state: &mut State<Self>) {
        let zeligs: Vec<Square> = state
            .pieces()
            .filter(|(_, p)| is_zelig(p.kind))
            .map(|(sq, _)| sq)
            .collect();
        for sq in zeligs {
            state.set_kind(sq, FILE_POWER[sq.file() as usize]);
        }
        if self.powers == Powers::Quota {
            Self::set_quota(state, Color::White);
            Self::set_quota(state, Color::Black);
        }
    }

    /// `color`'s zeligs on the d-file and on the a- and h-files together.
    fn file_counts(state: &State<Self>, color: Color) -> (usize, usize) {
        let count = |file: u8| {
            (0..8)
                .filter(|&rank| Self::zelig_of(state, square(file, rank), color))
                .count()
        };
        (count(D_FILE), count(A_FILE) + count(H_FILE))
    }

    /// Every zelig with its owner and power, a1 first.
    fn zeligs(state: &State<Self>) -> Vec<(Square, Piece)> {
        state.pieces().filter(|(_, p)| is_zelig(p.kind)).collect()
    }
}

impl Hooks for ZeligHooks {
    const PLAIN_MAKE: bool = false;

    fn kind_of_letter(&self, c: char) -> Option<Kind> {
        match c.to_ascii_uppercase() {
            'Z' => Some(PLACEHOLDER),
            'K' => Some(Kind::King),
            'P' => Some(Kind::Pawn),
            _ => None,
        }
    }

    fn letter(&self, kind: Kind) -> char {
        match kind {
            Kind::Pawn => 'P',
            Kind::King => 'K',
            _ => 'Z',
        }
    }

    fn kind_name(&self, kind: Kind) -> &'static str {
        if is_zelig(kind) {
            "zelig"
        } else {
            kind.name()
        }
    }

    fn promotion_kinds(&self) -> &'static [Kind] {
        &[PLACEHOLDER]
    }

    fn after_setup(&self, state: &mut State<Self>) {
        self.set_all(state);
    }

    fn after_make(
        &self,
        state: &mut State<Self>,
        m: Move,
        taken: Option<Capture>,
        events: Option<&mut Vec<String>>,
    ) {
        let mover = state.side_to_move().opponent();
        let before = events.as_ref().map(|_| Self::zeligs(state));
        // The zelig that landed somewhere: moved, promoted or castled.
        let landed = match m.special {
            Special::Castle(i) => Some(state.variant().castlings[i as usize].rook_to),
            Special::Promotion(_) => Some(m.to),
            _ => state
                .piece_at(m.to)
                .is_some_and(|p| is_zelig(p.kind))
                .then_some(m.to),
        };
        if let Some(sq) = landed {
            state.set_kind(sq, FILE_POWER[sq.file() as usize]);
        }
        if self.powers == Powers::Quota {
            if landed.is_some() {
                Self::set_quota(state, mover);
            }
            if taken.is_some_and(|t| is_zelig(t.piece().kind)) {
                Self::set_quota(state, mover.opponent());
            }
        }
        if let (Some(events), Some(before)) = (events, before) {
            // The power the landed zelig moved with: `before` is taken
            // after the move, before the powers are set (none for a pawn
            // just promoted).
            let had = before
                .iter()
                .find(|(s, _)| Some(*s) == landed)
                .filter(|_| !matches!(m.special, Special::Promotion(_)))
                .map(|(_, p)| p.kind);
            if let Some((sq, p)) = landed
                .and_then(|sq| Some((sq, state.piece_at(sq)?)))
                .filter(|(_, p)| had != Some(p.kind))
            {
                events.push(format!(
                    "{}'s zelig on {sq} is a {}.",
                    p.color.name(),
                    p.kind.name()
                ));
            }
            for (sq, p) in Self::zeligs(state) {
                let Some(&(_, old)) = before.iter().find(|(s, _)| *s == sq) else {
                    continue;
                };
                if Some(sq) != landed && old.kind != p.kind {
                    events.push(format!(
                        "{}'s zelig on {sq} becomes a {} (it was a {}).",
                        p.color.name(),
                        p.kind.name(),
                        old.kind.name()
                    ));
                }
            }
        }
    }

    fn is_legal_after(&self, after: &State<Self>, _m: Move) -> bool {
        if self.powers != Powers::Limited {
            return true;
        }
        let (d, ah) = Self::file_counts(after, after.side_to_move().opponent());
        d <= 1 && ah <= 2
    }

    fn illegal_reason(&self, after: &State<Self>, _m: Move) -> String {
        let (d, ah) = Self::file_counts(after, after.side_to_move().opponent());
        if d > 1 {
            format!(
                "it would leave you {d} zeligs on the d-file, and Zelig Chess 2 allows one there."
            )
        } else if ah > 2 {
            format!(
                "it would leave you {ah} zeligs on the a- and h-files, and Zelig Chess 2 allows two there."
            )
        } else {
            "the rules of this game forbid it.".into()
        }
    }

    fn is_insufficient_material(&self, state: &State<Self>) -> bool {
        state.pieces().all(|(_, p)| p.kind == Kind::King)
    }

    fn diagram_notes(&self, state: &State<Self>) -> Vec<String> {
        let zeligs = Self::zeligs(state);
        if zeligs.is_empty() {
            return Vec::new();
        }
        let mut lines = vec!["Zelig powers:".to_string()];
        for color in [Color::White, Color::Black] {
            let mut groups = Vec::new();
            for (one, many, kind) in [
                ("queen", "queens", Kind::Queen),
                ("rook", "rooks", Kind::Rook),
                ("bishop", "bishops", Kind::Bishop),
                ("knight", "knights", Kind::Knight),
                ("monarch", "monarchs", Kind::Monarch),
            ] {
                let squares: Vec<String> = zeligs
                    .iter()
                    .filter(|(_, p)| p.color == color && p.kind == kind)
                    .map(|(sq, _)| sq.to_string())
                    .collect();
                if !squares.is_empty() {
                    let word = if squares.len() == 1 { one } else { many };
                    groups.push(format!("{word} {}", squares.join(" ")));
                }
            }
            if groups.is_empty() {
                groups.push("none".into());
            }
            lines.extend(wrap(&format!("  {}:", color.name()), &groups, 76));
        }
        vec![lines.join("\n")]
    }
}

/// `head` followed by `groups` joined with `, `, wrapped before `width`
/// columns (continuation lines indented under the first group).
fn wrap(head: &str, groups: &[String], width: usize) -> Vec<String> {
    let indent = " ".repeat(head.len() + 1);
    let mut lines = Vec::new();
    let mut line = head.to_string();
    for (i, group) in groups.iter().enumerate() {
        let piece = if i + 1 < groups.len() {
            format!("{group},")
        } else {
            group.clone()
        };
        for word in piece.split(' ') {
            if line.len() + 1 + word.len() > width && line.len() > indent.len() {
                lines.push(line);
                line = format!("{indent}{word}");
            } else {
                line.push(' ');
                line.push_str(word);
            }
        }
    }
    lines.push(line);
    lines
}

/// One game of the family: its names and its power rule.
pub struct ZeligGame {
    pub powers: Powers,
    name: &'static str,
    title: &'static str,
}

/// M-Chess: powers by file, no limits.
pub static MCHESS: ZeligGame = ZeligGame {
    powers: Powers::File,
    name: "mchess",
    title: "M-Chess",
};

/// Zelig Chess: powers by the quota algorithm.
pub static ZELIG: ZeligGame = ZeligGame {
    powers: Powers::Quota,
    name: "zelig",
    title: "Zelig Chess",
};

/// Zelig Chess 2: powers by file, limited zeligs on the d, a and h files.
pub static ZELIG2: ZeligGame = ZeligGame {
    powers: Powers::Limited,
    name: "zelig2",
    title: "Zelig Chess 2",
};

impl ZeligGame {
    /// The variant data of this game.
    pub fn variant(&self) -> &'static Variant<ZeligHooks> {
        static VARIANTS: [LazyLock<Variant<ZeligHooks>>; 3] = [
            LazyLock::new(|| build(&MCHESS)),
            LazyLock::new(|| build(&ZELIG)),
            LazyLock::new(|| build(&ZELIG2)),
        ];
        match self.powers {
            Powers::File => &VARIANTS[0],
            Powers::Quota => &VARIANTS[1],
            Powers::Limited => &VARIANTS[2],
        }
    }
}

/// A game's variant: chess geometry and castling, zelig hooks.
fn build(game: &'static ZeligGame) -> Variant<ZeligHooks> {
    let g = Geometry::CHESS;
    // O-O: king e→g, zelig h→f; O-O-O: king e→c, zelig a→d.
    let castlings = super::chess::castlings();
    Variant::new(
        game,
        g,
        START_FEN,
        castlings,
        true,
        "Write a move in algebraic notation with Z for a zelig (Zc3, Zbc3, exd5, e8=Z, O-O) or as from and to squares (b1c3, e7e8).",
        ZeligHooks {
            powers: game.powers,
        },
    )
}

impl EngineGame for ZeligGame {
    type Engine = State<ZeligHooks>;
    fn name(&self) -> &'static str {
        self.name
    }
    fn title(&self) -> &'static str {
        self.title
    }
    fn start_position(&self, _options: &[String]) -> Result<State<ZeligHooks>, SetupError> {
        Ok(State::start(self.variant()))
    }
    fn read_position(
        &self,
        text: &str,
        _options: &[String],
    ) -> Result<State<ZeligHooks>, SetupError> {
        State::from_fen(self.variant(), text)
    }
}
