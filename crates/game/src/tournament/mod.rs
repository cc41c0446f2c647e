//! Tournaments, the pure core: who plays whom with which
//! colour, the standings with their tiebreaks, withdrawals, and the
//! crosstable as mail lines. It imports nothing of ours: the store maps
//! its rows to a [`Record`] and back; the server mails what comes out.
//!
//! - [`round_robin`]: every round at once, by Berger tables
//!   (`berger.rs`).
//! - [`swiss_round`]: one round of a Swiss, the FIDE Dutch system as far
//!   as it applies to mail play; each simplification is written in
//!   `swiss/`.
//! - [`standings`]: points and the tournament's ordered list of FIDE
//!   tiebreaks ([`Tiebreak`], `tiebreak.rs`), `standings.rs`.
//! - [`withdraw`]: what a withdrawal does to the entrant's games (ICCF:
//!   forfeits, or annulment before half the games are finished),
//!   `withdrawal.rs`.
//! - [`crosstable`]: the table as lines of at most 78 columns,
//!   `crosstable/`.
//!
//! Fixed point, so that no float decides a rank: points are counted in
//! half points (`points_x2`: a win or a bye 2, a draw 1);
//! Sonneborn-Berger in quarter points; Buchholz and direct encounter in
//! half points; wins as counts.

mod berger;
mod crosstable;
mod standings;
mod swiss;
mod tiebreak;
mod withdrawal;

pub use berger::round_robin;
pub use crosstable::crosstable;
pub use standings::standings;
pub use swiss::swiss_round;
pub use tiebreak::{parse_tiebreaks, tiebreak_codes, Tiebreak, MAX_TIEBREAKS, TIEBREAKS};
pub use withdrawal::{annuls, withdraw};

/// An entrant's place in the tournament's list (0-based, in seeding order:
/// rating descending, then join order — the caller sorts).
pub type Entrant = usize;

/// The two kinds of tournament.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Everyone plays everyone, once or (`double`) twice with colours
    /// swapped; all boards at once, as ICCF does.
    RoundRobin { double: bool },
    /// `rounds` rounds, each paired when the one before has ended.
    Swiss { rounds: u32 },
}

/// One board of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    pub white: Entrant,
    pub black: Entrant,
}

/// One round: its boards and (Swiss, or an odd round robin) who sits out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    pub pairings: Vec<Pairing>,
    pub bye: Option<Entrant>,
}

/// The result of one game of the tournament, as the crosstable scores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// White lost by forfeit (silence, withdrawal): unrated, counts 0-1.
    WhiteForfeits,
    /// Black lost by forfeit: unrated, counts 1-0.
    BlackForfeits,
    /// The result of a withdrawn player's game struck out: counts for
    /// neither.
    Annulled,
}

impl GameResult {
    /// White's and Black's points, in half points.
    pub fn points_x2(self) -> (u32, u32) {
        match self {
            GameResult::WhiteWins | GameResult::BlackForfeits => (2, 0),
            GameResult::BlackWins | GameResult::WhiteForfeits => (0, 2),
            GameResult::Draw => (1, 1),
            GameResult::Annulled => (0, 0),
        }
    }

    /// Whether the game was played over the board to a result (a forfeit
    /// or an annulled game was not, for the tiebreaks' purposes).
    pub fn played(self) -> bool {
        matches!(
            self,
            GameResult::WhiteWins | GameResult::BlackWins | GameResult::Draw
        )
    }
}

/// One game of the tournament: its round, its two entrants and its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundGame {
    /// 1-based.
    pub round: u32,
    pub white: Entrant,
    pub black: Entrant,
    /// `None` while the game goes on.
    pub result: Option<GameResult>,
}

impl RoundGame {
    /// The entrant's opponent, if the entrant plays in this game.
    pub fn opponent_of(&self, entrant: Entrant) -> Option<Entrant> {
        if self.white == entrant {
            Some(self.black)
        } else if self.black == entrant {
            Some(self.white)
        } else {
            None
        }
    }

    /// The entrant's points from this game, in half points (0 while it
    /// goes on; `None` when the entrant does not play in it).
    pub fn points_x2_of(&self, entrant: Entrant) -> Option<u32> {
        let (white, black) = self.result.map_or((0, 0), GameResult::points_x2);
        if self.white == entrant {
            Some(white)
        } else if self.black == entrant {
            Some(black)
        } else {
            None
        }
    }
}

/// What is known when pairing or scoring: the games so far (finished or
/// not), the byes given (round, entrant), who has withdrawn, ratings for
/// seeding (and the crosstable).
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    pub entrants: usize,
    pub ratings: &'a [i32],
    pub games: &'a [RoundGame],
    pub byes: &'a [(u32, Entrant)],
    pub withdrawn: &'a [Entrant],
}

impl Record<'_> {
    /// The entrant's points so far as a Swiss pairs them, in half points:
    /// games (finished; a forfeit win counts as a win) and byes (a point
    /// each). The standings' own count also knows a round robin (whose
    /// byes score nothing) and annulled results: see [`standings`].
    pub fn points_x2(&self, entrant: Entrant) -> u32 {
        let games: u32 = self
            .games
            .iter()
            .filter_map(|g| g.points_x2_of(entrant))
            .sum();
        let byes = self.byes.iter().filter(|(_, e)| *e == entrant).count() as u32;
        games + 2 * byes
    }

    /// Whether the entrant has withdrawn.
    pub fn has_withdrawn(&self, entrant: Entrant) -> bool {
        self.withdrawn.contains(&entrant)
    }
}

/// Why a Swiss round could not be paired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairingError {
    /// Fewer than two entrants are still playing.
    TooFewPlayers,
    /// Every way to pair the players would have two of them meet again
    /// (or give a bye to someone who has had one).
    NoPairingWithoutRepeat,
    /// The round asked for is not the next one.
    NotTheNextRound { asked: u32, next: u32 },
    /// The search for a pairing ran past its step budget without
    /// deciding (see `swiss/`).
    SearchTooLong,
}

impl std::fmt::Display for PairingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairingError::TooFewPlayers => {
                write!(f, "fewer than two players are left to pair.")
            }
            PairingError::NoPairingWithoutRepeat => write!(
                f,
                "every pairing of the players left would repeat a game \
                 or give someone a second bye."
            ),
            PairingError::NotTheNextRound { asked, next } => write!(
                f,
                "round {asked} cannot be paired: the next round is {next}."
            ),
            PairingError::SearchTooLong => {
                write!(f, "the search for a pairing gave up before finding one.")
            }
        }
    }
}

impl std::error::Error for PairingError {}

/// A standing: the entrant's place, points and tiebreaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    pub entrant: Entrant,
    /// Shared only when points and the whole tiebreak list are equal:
    /// 1, 2, 2, 4.
    pub rank: usize,
    /// Half points: 2 per win (or forfeit win, or bye), 1 per draw.
    pub points_x2: u32,
    /// The tournament's list in order, each with its value in its
    /// [`Tiebreak::scale`]; `None` for a direct encounter that decided
    /// nothing for this player.
    pub tiebreaks: Vec<(Tiebreak, Option<u32>)>,
}
