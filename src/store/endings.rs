//! Why a board ended, stored as the prose the players read.

use std::fmt;

/// Why a board ended. Its `Display` is the prose the players read in the
/// status line (`won by alice (checkmate)`); the `ending` column stores
/// that prose, as it always did, and `BoardEnding::read` turns it back
/// into the enum, so rows written before this type existed read the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardEnding {
    /// Decided on the board by the rules (checkmate, stalemate, the
    /// automatic draws, the games' own endings).
    Board(rules::Ending),
    Resignation,
    /// A draw proposal accepted.
    Agreement,
    /// A draw proposal left unanswered until the timers would have
    /// forfeited the player to act: it counts as accepted.
    AgreementBySilence {
        days: i64,
    },
    /// The timers ended the board against `absent`. `rated` is false for a
    /// board `absent` never made a ply on.
    Forfeit {
        absent: String,
        limit: ForfeitLimit,
        rated: bool,
    },
    /// Ended by the administrator (`admin board adjudicate`).
    Adjudication,
    /// A tournament board `absent` lost by forfeit, unrated, as they
    /// withdrew from the tournament or were forfeited for silence on
    /// another of its boards.
    LeftTournament {
        absent: String,
    },
    /// A round-robin board annulled, with no result and unrated, as
    /// `absent` left the tournament before half of their games were
    /// finished: the board tells what the crosstable shows. `silent`:
    /// they left by the timers' forfeit for silence on this very board.
    AnnulledInTournament {
        absent: String,
        silent: bool,
    },
    /// Resigned before both players had acted: the board is deleted, so
    /// this ending is only ever told, never stored.
    Withdrawn,
    /// Stored prose none of the above writes (a row edited by hand): kept
    /// and shown as it is.
    Other(String),
}

/// The prose of [`BoardEnding::AnnulledInTournament`] after the name.
const ANNULLED_TAIL: &str =
    " left the tournament before half their games were finished; no result, unrated";
/// The same, when the player was forfeited for silence on the board.
const ANNULLED_SILENT_TAIL: &str = " was forfeited for silence before half their games were \
                                    finished; no result, unrated";

/// The time limit a forfeited player went past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForfeitLimit {
    /// `days` without acting (at least the board's forfeit days).
    Idle { days: i64 },
    /// The board's total time limit of `days` days.
    TotalTime { days: u32 },
}

/// Every ending the rules report, for reading stored prose back.
const RULES_ENDINGS: [rules::Ending; 7] = [
    rules::Ending::Checkmate,
    rules::Ending::Stalemate,
    rules::Ending::Repetition,
    rules::Ending::FiftyMoveRule,
    rules::Ending::InsufficientMaterial,
    rules::Ending::KingsCaptured,
    rules::Ending::OriginalCaptured,
];

impl BoardEnding {
    /// The ending whose prose is `text` (the `ending` column). Ruling:
    /// text that reads as an ending but would not be written back letter
    /// for letter (or reads as none) is [`BoardEnding::Other`], so what a
    /// player is shown never changes.
    pub(crate) fn read(text: &str) -> BoardEnding {
        match Self::parse(text) {
            Some(ending) if ending == text => ending,
            _ => BoardEnding::Other(text.to_string()),
        }
    }

    fn parse(text: &str) -> Option<BoardEnding> {
        let fixed = match text {
            "resignation" => Some(BoardEnding::Resignation),
            "agreement" => Some(BoardEnding::Agreement),
            "adjudication" => Some(BoardEnding::Adjudication),
            "withdrawn" => Some(BoardEnding::Withdrawn),
            _ => RULES_ENDINGS
                .into_iter()
                .find(|e| e.to_string() == text)
                .map(BoardEnding::Board),
        };
        if fixed.is_some() {
            return fixed;
        }
        if let Some(days) = text
            .strip_prefix("agreement by silence: the draw proposal stood unanswered for ")
            .and_then(|t| t.strip_suffix(" days"))
        {
            return Some(BoardEnding::AgreementBySilence {
                days: days.parse().ok()?,
            });
        }
        if let Some(annulled) = text.strip_prefix("annulled: ") {
            for (tail, silent) in [(ANNULLED_TAIL, false), (ANNULLED_SILENT_TAIL, true)] {
                if let Some(absent) = annulled.strip_suffix(tail) {
                    return Some(BoardEnding::AnnulledInTournament {
                        absent: absent.to_string(),
                        silent,
                    });
                }
            }
        }
        let forfeit = text.strip_prefix("forfeit: ")?;
        if let Some(absent) = forfeit.strip_suffix(" left the tournament; unrated") {
            return Some(BoardEnding::LeftTournament {
                absent: absent.to_string(),
            });
        }
        let (forfeit, rated) = match forfeit
            .strip_suffix(" never moved on this board")
            .and_then(|t| t.rsplit_once("; unrated, as "))
        {
            Some((head, _)) => (head, false),
            None => (forfeit, true),
        };
        let (absent, limit) = if let Some(head) = forfeit.strip_suffix(" days of total time") {
            let (absent, days) = head.rsplit_once(" used up the ")?;
            (
                absent,
                ForfeitLimit::TotalTime {
                    days: days.parse().ok()?,
                },
            )
        } else {
            let head = forfeit.strip_suffix(" days")?;
            let (absent, days) = head.rsplit_once(" did not act for ")?;
            (
                absent,
                ForfeitLimit::Idle {
                    days: days.parse().ok()?,
                },
            )
        };
        Some(BoardEnding::Forfeit {
            absent: absent.to_string(),
            limit,
            rated,
        })
    }

    /// The PGN `Termination` tag of a board that ended so.
    pub(crate) fn termination(&self) -> &'static str {
        match self {
            BoardEnding::Forfeit { .. } => "time forfeit",
            BoardEnding::LeftTournament { .. } | BoardEnding::AnnulledInTournament { .. } => {
                "abandoned"
            }
            // Prose of unknown form: the rule used before this type.
            BoardEnding::Other(text) if text.starts_with("forfeit") => "time forfeit",
            BoardEnding::Board(_)
            | BoardEnding::Resignation
            | BoardEnding::Agreement
            | BoardEnding::AgreementBySilence { .. }
            | BoardEnding::Adjudication
            | BoardEnding::Withdrawn
            | BoardEnding::Other(_) => "normal",
        }
    }
}

impl fmt::Display for BoardEnding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardEnding::Board(ending) => write!(f, "{ending}"),
            BoardEnding::Resignation => f.write_str("resignation"),
            BoardEnding::Agreement => f.write_str("agreement"),
            BoardEnding::AgreementBySilence { days } => write!(
                f,
                "agreement by silence: the draw proposal stood unanswered for {days} days"
            ),
            BoardEnding::Forfeit {
                absent,
                limit,
                rated,
            } => {
                match limit {
                    ForfeitLimit::TotalTime { days } => {
                        write!(f, "forfeit: {absent} used up the {days} days of total time")?
                    }
                    ForfeitLimit::Idle { days } => {
                        write!(f, "forfeit: {absent} did not act for {days} days")?
                    }
                }
                if !rated {
                    write!(f, "; unrated, as {absent} never moved on this board")?;
                }
                Ok(())
            }
            BoardEnding::Adjudication => f.write_str("adjudication"),
            BoardEnding::LeftTournament { absent } => {
                write!(f, "forfeit: {absent} left the tournament; unrated")
            }
            BoardEnding::AnnulledInTournament { absent, silent } => {
                let tail = if *silent {
                    ANNULLED_SILENT_TAIL
                } else {
                    ANNULLED_TAIL
                };
                write!(f, "annulled: {absent}{tail}")
            }
            BoardEnding::Withdrawn => f.write_str("withdrawn"),
            BoardEnding::Other(text) => f.write_str(text),
        }
    }
}

/// An ending equals the prose it is shown as.
impl PartialEq<&str> for BoardEnding {
    fn eq(&self, text: &&str) -> bool {
        self.to_string().as_str() == *text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::boards::tests::{new_board, setup};
    use crate::store::*;
    use chrono::Utc;

    /// Every ending is stored as the prose it is shown as and read back as
    /// the same ending: the prose written before the type existed included.
    #[test]
    fn endings_are_stored_as_their_prose_and_read_back() {
        let mut endings: Vec<BoardEnding> =
            RULES_ENDINGS.into_iter().map(BoardEnding::Board).collect();
        endings.extend([
            BoardEnding::Resignation,
            BoardEnding::Agreement,
            BoardEnding::AgreementBySilence { days: 9 },
            BoardEnding::Adjudication,
            BoardEnding::Withdrawn,
            BoardEnding::AnnulledInTournament {
                absent: "bob".into(),
                silent: false,
            },
            BoardEnding::AnnulledInTournament {
                absent: "bob".into(),
                silent: true,
            },
        ]);
        for limit in [
            ForfeitLimit::Idle { days: 21 },
            ForfeitLimit::TotalTime { days: 60 },
        ] {
            for rated in [true, false] {
                endings.push(BoardEnding::Forfeit {
                    absent: "bob".into(),
                    limit,
                    rated,
                });
            }
        }
        let conn = setup();
        for ending in &endings {
            let n = new_board(&conn, "chess");
            finish_board(
                &conn,
                BoardId::new("chess", n),
                Some(rules::Color::Black),
                ending,
                Utc::now(),
            )
            .unwrap();
            let stored: String = conn
                .query_row(
                    "SELECT ending FROM boards WHERE game = 'chess' AND board = ?1",
                    [n],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(stored, ending.to_string());
            let BoardStatus::Finished { ending: read, .. } = board(&conn, BoardId::new("chess", n))
                .unwrap()
                .unwrap()
                .status
            else {
                panic!("board {n} is not finished");
            };
            assert_eq!(&read, ending, "{stored}");
            assert!(!matches!(read, BoardEnding::Other(_)), "{stored}");
        }
        // The prose the server wrote before, word for word.
        for (old, ending) in [
            ("threefold repetition", BoardEnding::Board(rules::Ending::Repetition)),
            ("capture of every king", BoardEnding::Board(rules::Ending::KingsCaptured)),
            (
                "forfeit: bob did not act for 22 days",
                BoardEnding::Forfeit {
                    absent: "bob".into(),
                    limit: ForfeitLimit::Idle { days: 22 },
                    rated: true,
                },
            ),
            (
                "forfeit: bob used up the 30 days of total time; unrated, as bob never moved on this board",
                BoardEnding::Forfeit {
                    absent: "bob".into(),
                    limit: ForfeitLimit::TotalTime { days: 30 },
                    rated: false,
                },
            ),
            (
                "agreement by silence: the draw proposal stood unanswered for 7 days",
                BoardEnding::AgreementBySilence { days: 7 },
            ),
        ] {
            assert_eq!(BoardEnding::read(old), ending);
        }
    }

    /// Prose that is no ending the server writes is kept as it is, and
    /// decides the PGN termination as before (a forfeit by its first word).
    #[test]
    fn unknown_ending_prose_is_kept_and_shown_as_it_is() {
        for text in [
            "",
            "time ran out",
            "forfeit: bob did not act for many days",
            "forfeit: bob did not act for 007 days",
            "forfeit: bob did not act for 5 days; unrated, as carol never moved on this board",
            "Resignation",
        ] {
            let read = BoardEnding::read(text);
            assert_eq!(read, BoardEnding::Other(text.to_string()));
            assert_eq!(read.to_string(), text);
        }
        assert_eq!(
            BoardEnding::read("forfeit by hand").termination(),
            "time forfeit"
        );
        assert_eq!(BoardEnding::read("time ran out").termination(), "normal");
    }

    #[test]
    fn only_a_forfeit_terminates_on_time() {
        let forfeit = BoardEnding::Forfeit {
            absent: "alice".into(),
            limit: ForfeitLimit::Idle { days: 3 },
            rated: false,
        };
        assert_eq!(forfeit.termination(), "time forfeit");
        for normal in [
            BoardEnding::Board(rules::Ending::Checkmate),
            BoardEnding::Resignation,
            BoardEnding::Agreement,
            BoardEnding::AgreementBySilence { days: 3 },
            BoardEnding::Adjudication,
        ] {
            assert_eq!(normal.termination(), "normal", "{normal}");
        }
    }
}
