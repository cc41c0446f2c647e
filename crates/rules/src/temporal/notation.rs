//! Notation: writing actions (`K@Bb2`, `N@Cb2`, `Ab1-Cc3`, `Ab1xCc3`,
//! `V4:Ab1`, `C3:Ab1-Cc3`) and reading them back, with refusals that say
//! what is possible instead.
//!
//! # Rulings (reading)
//! - Spaces are ignored, and so are trailing `+ # ! ?`.
//! - Letters are read in either case: a cell is level, file, rank in
//!   that order (`bc3` is `Bc3`), a piece letter is one of `K Q R B N U`,
//!   and `V`/`C` followed by a digit start a warp.
//! - The mark between two cells may be `-`, `x`, `:` or nothing; it is not
//!   checked against the capture (the canonical form has `x` exactly when
//!   the move or the duplicate captures).
//! - A move may name its piece first (`NAb1-Cc3`); the letter must then
//!   fit the piece there.

use super::super::cube::Cell;
use super::super::orthodox::read::{and_list, or_list};
use super::super::MoveError;
use super::field::{adjacent, cell, index, Phase, State, CELLS, CUBE};
use super::moves::Action;
use super::pieces::Kind;
use super::turn::Illegal;
use super::warps::{self, WarpKind, MAX_COUNTERS};

/// What a text asks for, before it is judged against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spec {
    Drop {
        kind: Kind,
        cell: Cell,
    },
    Move {
        kind: Option<Kind>,
        from: Cell,
        to: Cell,
    },
    Vanish {
        counters: u32,
        cell: Cell,
    },
    Clone {
        counters: u32,
        from: Cell,
        to: Cell,
    },
}

const HINT_PLAY: &str = "Write a drop like N@Cb2, a move like Ab1-Cc3 (Ab1xCc3 for a capture), \
     a vanish like V4:Ab1 or a clone like C3:Ab1-Cc3, with 1 to 6 counters; a cell is a level \
     A-D, a file a-d and a rank 1-4.";
const HINT_PLACE: &str = "The game opens with the kings: place yours like K@Bb2 (a level A-D, \
     a file a-d and a rank 1-4).";

impl State {
    /// The canonical notation of a possible action.
    pub fn notation(&self, action: &Action) -> String {
        let mark = if self.captures(action) { 'x' } else { '-' };
        match *action {
            Action::Place(c) => format!("K@{c}"),
            Action::Drop(kind, c) => format!("{}@{c}", kind.letter()),
            Action::Move { from, to } => format!("{from}{mark}{to}"),
            Action::Vanish { cell, counters } => format!("V{counters}:{cell}"),
            Action::Clone { from, to, counters } => format!("C{counters}:{from}{mark}{to}"),
        }
    }

    /// The one legal action `input` means, or a refusal saying why not and
    /// what is possible.
    pub fn read(&self, input: &str) -> Result<Action, MoveError> {
        if let Phase::Won(_) = self.phase {
            return Err(MoveError::GameOver);
        }
        let Some(spec) = parse(input) else {
            let hint = if self.phase == Phase::Place {
                HINT_PLACE
            } else {
                HINT_PLAY
            };
            return Err(MoveError::Unreadable {
                input: input.trim().to_string(),
                hint: hint.to_string(),
            });
        };
        let legal = self.legal_actions();
        if let Some(action) = self.action_of(&spec).filter(|a| legal.contains(a)) {
            return Ok(action);
        }
        Err(MoveError::Illegal {
            input: input.trim().to_string(),
            reason: self.explain(&spec, &legal),
        })
    }

    /// The action a spec names here, if it names one at all.
    fn action_of(&self, spec: &Spec) -> Option<Action> {
        let counters = |n: u32| {
            u8::try_from(n)
                .ok()
                .filter(|n| (1..=MAX_COUNTERS).contains(n))
        };
        match *spec {
            Spec::Drop {
                kind: Kind::King,
                cell,
            } if self.phase == Phase::Place => Some(Action::Place(cell)),
            Spec::Drop { kind, cell } => Some(Action::Drop(kind, cell)),
            Spec::Move { kind, from, to } => {
                let piece = self.at(from)?;
                kind.is_none_or(|k| k == piece.kind)
                    .then_some(Action::Move { from, to })
            }
            Spec::Vanish { counters: n, cell } => Some(Action::Vanish {
                cell,
                counters: counters(n)?,
            }),
            Spec::Clone {
                counters: n,
                from,
                to,
            } => Some(Action::Clone {
                from,
                to,
                counters: counters(n)?,
            }),
        }
    }

    /// Why no legal action fits `spec` (one sentence, ending in `.`).
    fn explain(&self, spec: &Spec, legal: &[Action]) -> String {
        let me = self.side;
        if self.phase == Phase::Place {
            return self.explain_placement(spec);
        }
        match *spec {
            Spec::Drop { kind, cell: c } => {
                let reserve = self.reserve(me);
                if kind == Kind::King {
                    return format!(
                        "the kings are placed only at the start, and yours is on the field; you can drop {}.",
                        reserve.described()
                    );
                }
                if reserve.count(kind) == 0 {
                    return if reserve.is_empty() {
                        "your reserve is empty; move a piece or warp one instead.".into()
                    } else {
                        format!(
                            "you have no {} in reserve; you can drop {}.",
                            kind.name(),
                            reserve.described()
                        )
                    };
                }
                if let Some(p) = self.at(c) {
                    return format!(
                        "{c} holds {}; a drop goes to a vacant cell (one holding only vanished pieces counts as vacant).",
                        p.described()
                    );
                }
                self.why_illegal(&Action::Drop(kind, c))
            }
            Spec::Move { kind, from, to } => {
                if let Some(problem) = self.piece_problem(from, kind) {
                    return problem;
                }
                self.explain_reach(from, to, Action::Move { from, to }, legal)
            }
            Spec::Vanish { counters, cell: c } => {
                if let Some(problem) = self.warp_problem(counters, &format!("V4:{c}")) {
                    return problem;
                }
                if let Some(problem) = self.piece_problem(c, None) {
                    return problem;
                }
                self.why_illegal(&Action::Vanish {
                    cell: c,
                    counters: counters as u8,
                })
            }
            Spec::Clone { counters, from, to } => {
                if let Some(problem) = self.warp_problem(counters, &format!("C3:{from}-{to}")) {
                    return problem;
                }
                if let Some(problem) = self.piece_problem(from, None) {
                    return problem;
                }
                let action = Action::Clone {
                    from,
                    to,
                    counters: counters as u8,
                };
                self.explain_reach(from, to, action, legal)
            }
        }
    }

    fn explain_placement(&self, spec: &Spec) -> String {
        let other = (0..CELLS as u8)
            .find(|&i| self.board[i as usize].is_some_and(|p| p.kind == Kind::King));
        let where_ = match other {
            Some(k) => format!(
                "on any vacant cell not next to {}'s king on {}",
                self.side.opponent().name(),
                cell(k)
            ),
            None => "on any cell".to_string(),
        };
        match *spec {
            Spec::Drop {
                kind: Kind::King,
                cell: c,
            } => {
                if let Some(p) = self.at(c) {
                    format!("{c} holds {}; place your king {where_}.", p.described())
                } else if let Some(k) = other.filter(|&k| adjacent(k, index(c))) {
                    format!(
                        "{c} is next to {}'s king on {}, and the second king may not be placed next to the first; place yours {where_}.",
                        self.side.opponent().name(),
                        cell(k)
                    )
                } else {
                    format!("place your king {where_}.")
                }
            }
            _ => format!(
                "the game opens with the kings, and nothing else can be done until both are placed; place yours {where_}, like K@Bb2."
            ),
        }
    }

    /// What is wrong with acting with the piece on `from`, if anything.
    fn piece_problem(&self, from: Cell, kind: Option<Kind>) -> Option<String> {
        let me = self.side;
        match self.at(from) {
            Some(p) if p.color == me => kind.filter(|&k| k != p.kind).map(|k| {
                format!(
                    "the piece on {from} is your {}, not a {}.",
                    p.kind.name(),
                    k.name()
                )
            }),
            Some(p) => Some(format!(
                "{from} holds {}, not a piece of yours; yours stand on {}.",
                p.described(),
                self.own_cells()
            )),
            None => match self.warp_piece(me) {
                Some((w, piece))
                    if matches!(w.kind, WarpKind::Vanished(_)) && w.cell == index(from) =>
                {
                    Some(warps::vanished_piece(w, piece))
                }
                _ => Some(format!(
                    "there is no piece on {from}; yours stand on {}.",
                    self.own_cells()
                )),
            },
        }
    }

    /// A warp's counters out of range, or a warp already running.
    fn warp_problem(&self, counters: u32, example: &str) -> Option<String> {
        if !(1..=MAX_COUNTERS as u32).contains(&counters) {
            return Some(format!(
                "a warp carries 1 to 6 counters (V1 to V6, C1 to C6), like {example}."
            ));
        }
        self.warp_piece(self.side)
            .map(|(w, piece)| warps::running(w, piece))
    }

    /// The piece on `from` is the mover's: why it cannot (or its duplicate
    /// cannot) go to `to`.
    fn explain_reach(&self, from: Cell, to: Cell, action: Action, legal: &[Action]) -> String {
        let f = index(from);
        let Some(piece) = self.board[f as usize] else {
            return format!("there is no piece on {from}.");
        };
        let mut targets = Vec::new();
        self.targets(f, piece.kind, self.side, &mut targets);
        if targets.contains(&index(to)) {
            return self.why_illegal(&action);
        }
        let (who, reach) = match action {
            Action::Clone { .. } => ("a duplicate of your", "the duplicate"),
            _ => ("your", "it"),
        };
        let mut dests: Vec<Cell> = legal
            .iter()
            .filter_map(|a| match *a {
                Action::Move { from: f2, to } if f2 == from => Some(to),
                _ => None,
            })
            .collect();
        dests.sort();
        let can = if dests.is_empty() {
            format!("{reach} has no legal move")
        } else {
            let names: Vec<String> = dests.iter().map(Cell::to_string).collect();
            format!("{reach} can move to {}", or_list(&names))
        };
        format!(
            "{who} {} on {from} cannot reach {to}; {can}.",
            piece.kind.name()
        )
    }

    /// Why a possible action fails its turn's legality or drop test.
    fn why_illegal(&self, action: &Action) -> String {
        let (_, verdict) = self.resolve(action, None);
        let enemy = self.side.opponent();
        match verdict {
            Ok(()) => "it is not possible now.".into(),
            Err(Illegal::KingAttacked { king, by: Some(by) }) => {
                let attacker = self.resolve(action, None).0.board[by as usize];
                let what = attacker.map_or_else(|| "an enemy piece".into(), |p| p.described());
                format!(
                    "after it your king on {} would be attacked by {what} on {}.",
                    cell(king),
                    cell(by)
                )
            }
            Err(Illegal::KingAttacked { king, by: None }) => {
                let kind = match self.warp(enemy).map(|w| w.kind) {
                    Some(WarpKind::Vanished(k)) => k.name(),
                    _ => "piece",
                };
                format!(
                    "after it your king on {} would stand where {}'s vanished {kind} reappears at the end of {}'s next turn, which counts as attacked.",
                    cell(king),
                    enemy.name(),
                    enemy.name()
                )
            }
            Err(Illegal::ReappearsOnKing { cell: c }) => {
                let kind = match self.warp(self.side).map(|w| w.kind) {
                    Some(WarpKind::Vanished(k)) => k.name(),
                    _ => "piece",
                };
                format!(
                    "your vanished {kind} reappears on {} at the end of this turn, and your king would stand there.",
                    cell(c)
                )
            }
            Err(Illegal::DropChecks {
                kind,
                cell: c,
                king,
            }) => format!(
                "a {} on {} would attack {}'s king on {}, and a dropped piece may not give check.",
                kind.name(),
                cell(c),
                enemy.name(),
                cell(king)
            ),
        }
    }

    /// `K Aa1, R Ad1` for the mover's active pieces.
    fn own_cells(&self) -> String {
        let mine: Vec<String> = self
            .pieces()
            .filter(|(_, p)| p.color == self.side)
            .map(|(c, p)| format!("{} {c}", p.kind.letter()))
            .collect();
        if mine.is_empty() {
            "no cell".into()
        } else {
            and_list(&mine)
        }
    }
}

/// A cell in either case: level, file, rank.
fn parse_cell(text: &str) -> Option<Cell> {
    let b = text.as_bytes();
    if b.len() != 3 {
        return None;
    }
    let level = b[0].to_ascii_uppercase().checked_sub(b'A')?;
    let file = b[1].to_ascii_lowercase().checked_sub(b'a')?;
    let rank = b[2].checked_sub(b'1')?;
    if b[0].is_ascii_alphabetic() && b[1].is_ascii_alphabetic() && b[2].is_ascii_digit() {
        CUBE.cell(level, file, rank)
    } else {
        None
    }
}

/// Two cells with an optional mark between: `Ab1-Cc3`, `Ab1xCc3`, `Ab1Cc3`.
fn parse_cells(text: &str) -> Option<(Cell, Cell)> {
    let from = parse_cell(text.get(..3)?)?;
    let rest = &text[3..];
    let to = match rest.len() {
        3 => rest,
        4 if matches!(rest.as_bytes()[0], b'-' | b'x' | b'X' | b':') => &rest[1..],
        _ => return None,
    };
    Some((from, parse_cell(to)?))
}

/// Read the text into a spec, or `None` when it is no action's notation.
fn parse(input: &str) -> Option<Spec> {
    let squeezed: String = input.chars().filter(|c| !c.is_whitespace()).collect();
    let text = squeezed.trim_end_matches(['+', '#', '!', '?']);
    if !text.is_ascii() || text.is_empty() {
        return None;
    }
    let b = text.as_bytes();
    // Warps: V or C, then the counters.
    if b.len() > 1 && matches!(b[0].to_ascii_uppercase(), b'V' | b'C') && b[1].is_ascii_digit() {
        let digits = text[1..].bytes().take_while(u8::is_ascii_digit).count();
        let counters = text[1..1 + digits].parse::<u32>().unwrap_or(u32::MAX);
        let rest = &text[1 + digits..];
        let rest = rest.strip_prefix(':').unwrap_or(rest);
        return if b[0].eq_ignore_ascii_case(&b'V') {
            Some(Spec::Vanish {
                counters,
                cell: parse_cell(rest)?,
            })
        } else {
            let (from, to) = parse_cells(rest)?;
            Some(Spec::Clone { counters, from, to })
        };
    }
    if let Some((piece, at)) = text.split_once('@') {
        let mut letters = piece.chars();
        let kind = Kind::from_letter(letters.next()?)?;
        if letters.next().is_some() {
            return None;
        }
        return Some(Spec::Drop {
            kind,
            cell: parse_cell(at)?,
        });
    }
    if let Some((from, to)) = parse_cells(text) {
        return Some(Spec::Move {
            kind: None,
            from,
            to,
        });
    }
    let kind = Kind::from_letter(b[0] as char)?;
    let (from, to) = parse_cells(&text[1..])?;
    Some(Spec::Move {
        kind: Some(kind),
        from,
        to,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsing_accepts_the_written_forms_and_refuses_the_rest() {
        let c = |t: &str| CUBE.parse_cell(t).unwrap();
        assert_eq!(
            parse("N@Cb2"),
            Some(Spec::Drop {
                kind: Kind::Knight,
                cell: c("Cb2")
            })
        );
        assert_eq!(parse("k @ bb2"), parse("K@Bb2"));
        for text in ["Ab1-Cc3", "Ab1xCc3", "ab1cc3", "Ab1:Cc3", "Ab1-Cc3+"] {
            assert_eq!(
                parse(text),
                Some(Spec::Move {
                    kind: None,
                    from: c("Ab1"),
                    to: c("Cc3")
                }),
                "{text}"
            );
        }
        assert_eq!(
            parse("NAb1-Cc3"),
            Some(Spec::Move {
                kind: Some(Kind::Knight),
                from: c("Ab1"),
                to: c("Cc3")
            })
        );
        assert_eq!(
            parse("V4:Ab1"),
            Some(Spec::Vanish {
                counters: 4,
                cell: c("Ab1")
            })
        );
        assert_eq!(parse("v4ab1"), parse("V4:Ab1"));
        assert_eq!(
            parse("C3:Ab1xCc3"),
            Some(Spec::Clone {
                counters: 3,
                from: c("Ab1"),
                to: c("Cc3")
            })
        );
        assert_eq!(
            parse("V99999999999:Ab1"),
            Some(Spec::Vanish {
                counters: u32::MAX,
                cell: c("Ab1")
            })
        );
        for bad in [
            "",
            "e4",
            "Ab1",
            "Ab1-",
            "Ae1-Cc3",
            "X@Ab1",
            "NN@Ab1",
            "V:Ab1",
            "C3:Ab1",
            "Ab1-Cc3-Dd4",
            "Ab1–Cc3",
            "@",
            "V4:",
            "Q@",
            "é@Ab1",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn cells_in_either_case() {
        assert_eq!(parse_cell("bc3"), CUBE.parse_cell("Bc3"));
        assert_eq!(parse_cell("BC3"), CUBE.parse_cell("Bc3"));
        for bad in ["Ec3", "Be3", "Bc5", "Bc0", "B3c", "1bc"] {
            assert_eq!(parse_cell(bad), None, "{bad}");
        }
    }
}
