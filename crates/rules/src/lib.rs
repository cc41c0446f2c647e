//! The referee. Pure: no I/O, no clock, no database.
//!
//! The server sees every game through two object-safe faces:
//! [`Game`] (one per variant, found by name in the [`registry`]) makes
//! positions, and [`Position`] judges and applies turn actions, reports the
//! outcome, writes position text and hands a [`Diagram`] to `render`.
//!
//! A game does not implement those faces by hand: it writes an
//! [`Engine`](engine::Engine) (its rules, a position without history) and
//! an [`EngineGame`](engine::EngineGame) (its names and how to make
//! engines); [`engine`] turns them into `Position` and `Game`, with the
//! draw [`history`] and [`perft`](mod@perft) written once. The chess-like games share
//! the [`orthodox`] core and differ by data and hooks; geometry is in
//! [`board`] (2D) and [`cube`] (3D).
//!
//! Resignation, draw offers and timers are not rules matters: the server
//! handles them. The rules core only knows what happens on the board,
//! including the automatic draws (stalemate, repetition, 50 moves, dead
//! positions).

pub mod answers;
pub mod board;
pub mod chess;
pub mod cube;
pub mod doppelganger;
pub mod doublechess;
pub mod engine;
pub mod history;
pub mod key;
pub mod orthodox;
pub mod perft;
pub mod shadow;
pub mod temporal;
pub mod tree;
pub mod value;
pub mod zelig;

use std::fmt;

/// A player's seat. White moves first (the first user of a challenge).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White,
    Black,
}

impl Color {
    /// The other seat.
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Seat index: White 0, Black 1 (the order of a challenge's users).
    pub fn index(self) -> usize {
        match self {
            Color::White => 0,
            Color::Black => 1,
        }
    }

    pub fn from_index(i: usize) -> Option<Color> {
        match i {
            0 => Some(Color::White),
            1 => Some(Color::Black),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }

    /// The side's letter in position texts: `w` or `b`.
    pub fn fen_letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// A piece letter in this side's case: upper case White, lower case Black.
    pub fn cased(self, letter: char) -> char {
        match self {
            Color::White => letter.to_ascii_uppercase(),
            Color::Black => letter.to_ascii_lowercase(),
        }
    }

    /// The side a piece letter's case names.
    pub fn of_case(letter: char) -> Color {
        if letter.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        }
    }
}

/// Why a game ended on the board (the server adds resignation, forfeit and
/// agreement on its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Checkmate,
    Stalemate,
    Repetition,
    FiftyMoveRule,
    InsufficientMaterial,
    /// Shadow Chess: the loser has no king left on either board.
    KingsCaptured,
    /// Temporal Chess: an enemy original was captured.
    OriginalCaptured,
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ending::Checkmate => "checkmate",
            Ending::Stalemate => "stalemate",
            Ending::Repetition => "threefold repetition",
            Ending::FiftyMoveRule => "the 50-move rule",
            Ending::InsufficientMaterial => "insufficient material",
            Ending::KingsCaptured => "capture of every king",
            Ending::OriginalCaptured => "capture of an original",
        })
    }
}

/// Where a position stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The game goes on; `Position::to_act` says who acts next.
    Ongoing,
    Won {
        winner: Color,
        ending: Ending,
    },
    Drawn {
        ending: Ending,
    },
}

impl Outcome {
    pub fn is_over(self) -> bool {
        !matches!(self, Outcome::Ongoing)
    }
}

/// What one applied turn action looked like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The canonical notation stored and echoed (`Nf3`, `exd5`, `e8=Q+`, `O-O#`).
    pub notation: String,
    /// Automatic consequences told to the players, one plain sentence each
    /// (removed pairs, reveals, warps). Empty for orthodox chess.
    pub events: Vec<String>,
}

/// Why a turn action was refused. `Display` gives one plain sentence that
/// says what is wrong and how to fix it; it is mailed to the player as is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is no move in this game's notation.
    #[error("'{input}' is not a move I can read. {hint}")]
    Unreadable { input: String, hint: String },
    /// The text names a move, but no legal one. `reason` says why and lists
    /// what is possible (e.g. the legal moves of that piece).
    #[error("{input} is not a legal move: {reason}")]
    Illegal { input: String, reason: String },
    /// More than one legal move fits the text.
    #[error("'{input}' could mean {}; write one of those instead.", .candidates.join(" or "))]
    Ambiguous {
        input: String,
        candidates: Vec<String>,
    },
    /// The game is over: nothing can be played.
    #[error("the game is over, so no move can be played.")]
    GameOver,
}

/// Why a position text or a set of game options was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("the position text is not valid: {0}")]
    InvalidText(String),
    #[error("the position is not playable: {0}")]
    Illegal(String),
    #[error("{game} has no option -{option}; it accepts {accepted}.")]
    UnknownOption {
        game: &'static str,
        option: String,
        accepted: String,
    },
}

/// One piece as drawn on a board: owner and letter (upper case, one of
/// [`PIECE_NAMES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Glyph {
    pub color: Color,
    pub letter: char,
}

/// Every piece letter the games use, with the name players read: the
/// orthodox six, the Zelig family's zelig and Temporal Chess's unicorn.
pub const PIECE_NAMES: &[(char, &str)] = &[
    ('K', "King"),
    ('Q', "Queen"),
    ('R', "Rook"),
    ('B', "Bishop"),
    ('N', "Knight"),
    ('P', "Pawn"),
    ('Z', "Zelig"),
    ('U', "Unicorn"),
];

impl Glyph {
    /// The piece's name (`Knight`), or its letter when no game uses it.
    pub fn piece_name(self) -> String {
        let letter = self.letter.to_ascii_uppercase();
        PIECE_NAMES
            .iter()
            .find(|(l, _)| *l == letter)
            .map_or_else(|| letter.to_string(), |(_, name)| name.to_string())
    }
}

/// One drawn board: `files` × `ranks` cells, each holding zero or more glyphs
/// (several for Shadow stacks and chimeras).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Shown above the board when a diagram has several (`Main`, `Shadow`, `Level A`).
    pub label: String,
    pub files: u8,
    pub ranks: u8,
    /// Rank-major from the first rank: `cells[rank * files + file]`, a1 first.
    pub cells: Vec<Vec<Glyph>>,
}

impl Grid {
    pub fn empty(label: impl Into<String>, files: u8, ranks: u8) -> Grid {
        Grid {
            label: label.into(),
            files,
            ranks,
            cells: vec![Vec::new(); files as usize * ranks as usize],
        }
    }

    /// The glyphs on (file, rank), both counted from 0.
    pub fn at(&self, file: u8, rank: u8) -> &[Glyph] {
        &self.cells[rank as usize * self.files as usize + file as usize]
    }

    pub fn put(&mut self, file: u8, rank: u8, glyph: Glyph) {
        self.cells[rank as usize * self.files as usize + file as usize].push(glyph);
    }
}

/// What `render` needs to draw a position: the boards side by side and the
/// notes listed under them (zelig powers, pairs, reserves, warps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagram {
    pub boards: Vec<Grid>,
    pub notes: Vec<String>,
}

/// A position of one game: everything needed to judge the next turn action,
/// including the history that draw rules look at.
pub trait Position: Send + Sync + fmt::Debug {
    /// The game this position belongs to.
    fn game(&self) -> &'static dyn Game;
    /// Position text (FEN for the chess-like games) that
    /// [`Game::position`] reads back.
    fn to_text(&self) -> String;
    /// Who acts next (for a pending decision, the player who must decide).
    fn to_act(&self) -> Color;
    /// Whether the next action is a decision the rules ask of
    /// [`Position::to_act`] (a Shadow reveal) rather than a turn.
    fn is_decision(&self) -> bool;
    /// Where the game stands, automatic draws included.
    fn outcome(&self) -> Outcome;
    /// How many actions back the draw history reaches: those since the
    /// last irreversible one (the move clock back at 0), or since the
    /// position the history started from. At 0 the position text alone
    /// carries everything the rules need to go on, so a game can be
    /// resumed from it ([`Game::position`]) with the actions after it.
    fn history_plies(&self) -> u32;
    /// The 64-bit key the repetition rule compares (see the ruling at
    /// [`engine::Tracked`]); the server stores it with each ply.
    fn position_key(&self) -> u64;
    /// Take the draw history from the keys of its positions instead of a
    /// replay: `keys` are the [`Position::position_key`]s of the positions
    /// since the last irreversible action (or since the position the game
    /// was created from), the one after it first and this one last, none
    /// after the first following an irreversible action. The repetitions,
    /// the move clock (this position's) and [`Position::history_plies`]
    /// come out as replaying those actions would give them. False (and
    /// nothing changed) when the last key is not this position's: keys
    /// from another build or another position, to be replayed instead.
    fn resume_history(&mut self, keys: &[u64]) -> bool;
    /// Judge `input` (any accepted notation) and, if legal, apply it.
    /// On error the position is unchanged.
    fn play(&mut self, input: &str) -> Result<Played, MoveError>;
    /// The canonical notation of every legal turn action, sorted.
    fn legal_actions(&self) -> Vec<String>;
    /// Number of legal action sequences of length `depth` (see docs/rules.md).
    fn perft(&self, depth: u32) -> u64;
    /// Perft split by first action: `(action name, count)`, sorted by name.
    fn divide(&self, depth: u32) -> Vec<(String, u64)>;
    /// The boards and notes to draw.
    fn diagram(&self) -> Diagram;
    /// Whether `f` holds for the position after some legal action (tried
    /// in the engine's order, stopping at the first that does); false once
    /// the game is over. No notation is written or read, so this is the
    /// cheap way to look one action ahead.
    fn any_successor(&self, f: &mut dyn FnMut(&dyn Position) -> bool) -> bool;
    fn clone_box(&self) -> Box<dyn Position>;
    /// The game tree from here, for a search program (the computer
    /// player): see [`tree`].
    fn tree(&self) -> Box<dyn tree::SearchTree>;
}

impl Clone for Box<dyn Position> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// One variant: its names, its options, and how to make its positions.
pub trait Game: Send + Sync {
    /// The command name (`chess`, `doublechess`).
    fn name(&self) -> &'static str;
    /// The name written in subjects and help (`Chess`, `Double Chess`).
    fn title(&self) -> &'static str;
    /// The `-options` a challenge may give, without the dash.
    fn options(&self) -> &'static [&'static str] {
        &[]
    }
    /// The starting position under these options (each already lower-case,
    /// without its dash).
    fn start(&self, options: &[String]) -> Result<Box<dyn Position>, SetupError>;
    /// A position read from its text, under these options.
    fn position(&self, text: &str, options: &[String]) -> Result<Box<dyn Position>, SetupError>;
    /// Whether the canonical notation ends a checking move in `+` and a
    /// mating one in `#` (then a player's wrong mark is corrected aloud;
    /// games without check marks ignore them).
    fn marks_checks(&self) -> bool {
        true
    }
}

/// Refuse options a game does not know.
pub fn check_options(game: &dyn Game, options: &[String]) -> Result<(), SetupError> {
    for option in options {
        if !game.options().contains(&option.as_str()) {
            let accepted = if game.options().is_empty() {
                "none".to_string()
            } else {
                game.options()
                    .iter()
                    .map(|o| format!("-{o}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(SetupError::UnknownOption {
                game: game.name(),
                option: option.clone(),
                accepted,
            });
        }
    }
    Ok(())
}

/// Every game this server referees, in the order help lists them.
pub fn registry() -> &'static [&'static dyn Game] {
    static GAMES: &[&dyn Game] = &[
        &chess::Chess,
        &doublechess::DoubleChess,
        &doppelganger::Doppelganger,
        &shadow::ShadowChess,
        &zelig::MCHESS,
        &zelig::ZELIG,
        &zelig::ZELIG2,
        &temporal::Temporal,
    ];
    GAMES
}

/// The game called `name` (case-insensitive).
pub fn game(name: &str) -> Option<&'static dyn Game> {
    registry()
        .iter()
        .copied()
        .find(|g| g.name().eq_ignore_ascii_case(name))
}

/// The position `pbmchess perft` counts from: `position` text, or the
/// start, under `options`.
pub fn perft_position(
    game: &'static dyn Game,
    position: Option<&str>,
    options: &[String],
) -> Result<Box<dyn Position>, SetupError> {
    match position {
        Some(text) => game.position(text, options),
        None => game.start(options),
    }
}

/// Perft of `game` (no options) from its start, or from `position` text:
/// what `pbmchess perft GAME DEPTH [--position TEXT]` prints.
pub fn perft(
    game: &'static dyn Game,
    depth: u32,
    position: Option<&str>,
) -> Result<u64, SetupError> {
    Ok(perft_position(game, position, &[])?.perft(depth))
}
