//! The tiebreaks a tournament may list, after FIDE's Tie-Break
//! Regulations (2024): their codes, names, the default list of each
//! system, and a list as a creator writes it (`BH-C1,BH,DE,WIN`).
//!
//! Defaults (FIDE's recommendations, Tie-Break Regulations 2024):
//! - round robin: direct encounter (DE), wins (WIN), Sonneborn-Berger
//!   (SB);
//! - Swiss: Buchholz Cut-1 (BH-C1), Buchholz (BH), direct encounter
//!   (DE), wins (WIN).
//!
//! How each is counted is in `standings.rs`.

use super::Kind;

/// One tiebreak of FIDE's list (the article of the 2024 regulations in
/// brackets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tiebreak {
    /// `DE` (6): the points scored in the games among the tied players.
    DirectEncounter,
    /// `WIN` (7.1): the rounds won, played or not (forfeit wins and a
    /// Swiss bye count).
    Wins,
    /// `WON` (7.2): the games won over the board.
    GamesWon,
    /// `SB` (9.1): Sonneborn-Berger.
    SonnebornBerger,
    /// `BH` (8.1): Buchholz.
    Buchholz,
    /// `BH-C1` (8.1, 14.1): Buchholz less its least significant term.
    BuchholzCut1,
    /// `BH-M1` (8.1, 14.2): Buchholz less its highest and its least
    /// significant term (Median-Buchholz).
    BuchholzMedian1,
}

/// Every tiebreak, in the order the help lists them.
pub const TIEBREAKS: [Tiebreak; 7] = [
    Tiebreak::DirectEncounter,
    Tiebreak::Wins,
    Tiebreak::GamesWon,
    Tiebreak::SonnebornBerger,
    Tiebreak::Buchholz,
    Tiebreak::BuchholzCut1,
    Tiebreak::BuchholzMedian1,
];

/// The most tiebreaks one list holds.
pub const MAX_TIEBREAKS: usize = 5;

impl Tiebreak {
    /// FIDE's code: the crosstable's column header and the word a
    /// creator writes.
    pub fn code(self) -> &'static str {
        match self {
            Tiebreak::DirectEncounter => "DE",
            Tiebreak::Wins => "WIN",
            Tiebreak::GamesWon => "WON",
            Tiebreak::SonnebornBerger => "SB",
            Tiebreak::Buchholz => "BH",
            Tiebreak::BuchholzCut1 => "BH-C1",
            Tiebreak::BuchholzMedian1 => "BH-M1",
        }
    }

    /// Its name in words.
    pub fn name(self) -> &'static str {
        match self {
            Tiebreak::DirectEncounter => "direct encounter",
            Tiebreak::Wins => "wins",
            Tiebreak::GamesWon => "games won",
            Tiebreak::SonnebornBerger => "Sonneborn-Berger",
            Tiebreak::Buchholz => "Buchholz",
            Tiebreak::BuchholzCut1 => "Buchholz Cut-1",
            Tiebreak::BuchholzMedian1 => "Median-Buchholz",
        }
    }

    /// The fixed point its values are counted in: 4 quarter points, 2
    /// half points, 1 a count.
    pub fn scale(self) -> u32 {
        match self {
            Tiebreak::SonnebornBerger => 4,
            Tiebreak::Wins | Tiebreak::GamesWon => 1,
            _ => 2,
        }
    }

    /// The tiebreak of `code` (any case).
    pub fn from_code(code: &str) -> Option<Tiebreak> {
        TIEBREAKS
            .into_iter()
            .find(|t| t.code().eq_ignore_ascii_case(code))
    }

    /// The default list of a system.
    pub fn defaults(kind: &Kind) -> Vec<Tiebreak> {
        match kind {
            Kind::RoundRobin { .. } => vec![
                Tiebreak::DirectEncounter,
                Tiebreak::Wins,
                Tiebreak::SonnebornBerger,
            ],
            Kind::Swiss { .. } => vec![
                Tiebreak::BuchholzCut1,
                Tiebreak::Buchholz,
                Tiebreak::DirectEncounter,
                Tiebreak::Wins,
            ],
        }
    }
}

/// A list as a creator writes it, codes separated by commas
/// (`BH-C1,BH,DE,WIN`, any case): 1 to [`MAX_TIEBREAKS`] tiebreaks, none
/// twice. The sentence (lower case, no final stop) saying what is wrong
/// otherwise.
pub fn parse_tiebreaks(text: &str) -> Result<Vec<Tiebreak>, String> {
    let mut list = Vec::new();
    for code in text.split(',') {
        let Some(t) = Tiebreak::from_code(code.trim()) else {
            let codes: Vec<&str> = TIEBREAKS.iter().map(|t| t.code()).collect();
            return Err(format!(
                "the tiebreaks are codes separated by commas, each one of {}",
                codes.join(", ")
            ));
        };
        if list.contains(&t) {
            return Err(format!("the tiebreak {} is listed twice", t.code()));
        }
        list.push(t);
    }
    if list.len() > MAX_TIEBREAKS {
        return Err(format!(
            "a tournament lists at most {MAX_TIEBREAKS} tiebreaks"
        ));
    }
    Ok(list)
}

/// A list as stored and shown: codes separated by `sep`.
pub fn tiebreak_codes(list: &[Tiebreak], sep: &str) -> String {
    list.iter().map(|t| t.code()).collect::<Vec<_>>().join(sep)
}
