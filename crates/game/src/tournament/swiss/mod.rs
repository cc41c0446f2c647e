//! One Swiss round: the FIDE Dutch system (Handbook C.04.3) as far as it
//! applies to mail play, simplified where written below.
//!
//! What is kept:
//! - Players are ranked by score, then by seed (the entrant's place, which
//!   the caller sorted by rating). GameResult groups are paired from the top.
//! - Within a score group, the top half meets the bottom half in order
//!   (1 v 5, 2 v 6, ... in a group of eight); when that fails, the bottom
//!   half is permuted in the Dutch order of transpositions (the first
//!   player takes the first bottom-half player still possible), then the
//!   halves exchange players. A group of odd size floats its last player
//!   down, and a downfloater meets the highest player of the group below
//!   that it may meet.
//! - Absolute: no two players meet twice; two players who must both have
//!   the same colour (a colour difference beyond one, or the same colour in
//!   the last two games) do not meet.
//! - Quality: as few floaters as the score groups' sizes force, given up
//!   only when no pairing keeps it; colour preferences steer the order in
//!   which partners are tried (one whose preference differs before one who
//!   wants the same colour, each in the order above), so a pairing that
//!   grants them is found first where the order allows.
//! - Colours: both preferences when they differ; else the stronger one
//!   (absolute, then strong: a colour difference of one, then mild:
//!   alternate); equal ones go back to the last round in which the two had
//!   different colours and alternate from it; else the higher-ranked
//!   player's preference. When neither has played, the higher-ranked
//!   player has White on odd boards and Black on even ones (the initial
//!   colour is White).
//! - The bye (a point, unrated) goes to the lowest-ranked player who has
//!   not had one and whose bye lets the others be paired. Withdrawn
//!   players are not paired.
//!
//! Simplifications (rulings):
//! - GameResult groups are not split into the Dutch "MDP" sub-brackets; the
//!   search order above stands in for the transposition and exchange
//!   tables, and floats are not balanced over rounds (no up/downfloat
//!   record is kept). The number of ungranted colour preferences is not
//!   minimised over the whole round: the first pairing found in the
//!   colour-steered order is taken.
//! - When no pairing keeps the absolute colour rule, the round is paired
//!   without it (a third game of one colour, or a difference of three, is
//!   better than ending the tournament); FIDE would allow this only to the
//!   top scorers of the last round.
//! - Every game of the record counts for colours, whatever its result
//!   (a board once started was played with its colours); a forfeit win
//!   does not bar a bye, only a bye does.
//! - Unfinished games count no points: pair a round when the one before
//!   has ended.
//!
//! The search is exact: it finds a pairing without repeats (and without a
//! second bye) whenever one exists. It is a depth-first search over the
//! players still to pair, the highest first, remembering every set of
//! players found impossible, so no set is tried twice; a step budget
//! ([`STEP_BUDGET`] sets of players per bye candidate) bounds a pathological
//! case, and a search that runs out says so rather than claiming no
//! pairing exists. With 64 players or fewer and as many rounds as a Swiss
//! has, the first branch nearly always succeeds.

use std::collections::HashSet;

use super::{Entrant, Pairing, PairingError, Record, Round};

/// The most sets of players the last, loosest search (no colour rule)
/// may try per bye candidate before it gives up; the stricter levels
/// before it get a tenth each (they only decide quality: a level that
/// gives up passes to the next).
pub const STEP_BUDGET: u64 = 200_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Colour {
    White,
    Black,
}

impl Colour {
    fn other(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }
}

/// How much a player wants a colour, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    Mild,
    Strong,
    Absolute,
}

/// One player to pair, as the pairing sees them.
#[derive(Debug, Clone)]
struct Player {
    entrant: Entrant,
    points_x2: u32,
    /// The colours of their games, round by round.
    colours: Vec<Colour>,
    had_bye: bool,
}

impl Player {
    fn preference(&self) -> Option<(Colour, Strength)> {
        let whites = self.colours.iter().filter(|c| **c == Colour::White).count() as i64;
        let difference = 2 * whites - self.colours.len() as i64;
        let last = *self.colours.last()?;
        let last_two_alike =
            self.colours.len() >= 2 && self.colours[self.colours.len() - 2] == last;
        if !(-1..=1).contains(&difference) || last_two_alike {
            let colour = match difference {
                d if d > 1 => Colour::Black,
                d if d < -1 => Colour::White,
                _ => last.other(),
            };
            Some((colour, Strength::Absolute))
        } else if difference != 0 {
            let colour = if difference > 0 {
                Colour::Black
            } else {
                Colour::White
            };
            Some((colour, Strength::Strong))
        } else {
            Some((last.other(), Strength::Mild))
        }
    }
}

/// How much the search may give up, strictest first.
#[derive(Debug, Clone, Copy)]
struct Level {
    /// Only the last player of an odd score group floats down.
    few_floats: bool,
    /// Two players who must both have the same colour do not meet.
    absolute_colours: bool,
    /// The most sets of players the search tries at this level.
    budget: u64,
}

const LEVELS: [Level; 3] = [
    Level {
        few_floats: true,
        absolute_colours: true,
        budget: STEP_BUDGET / 10,
    },
    Level {
        few_floats: false,
        absolute_colours: true,
        budget: STEP_BUDGET / 10,
    },
    Level {
        few_floats: false,
        absolute_colours: false,
        budget: STEP_BUDGET,
    },
];

/// Swiss round `round` (1-based). Err when no legal pairing exists (say
/// why; the caller ends the tournament early and says so).
pub fn swiss_round(record: &Record<'_>, round: u32) -> Result<Round, PairingError> {
    let next = next_round(record);
    if round != next {
        return Err(PairingError::NotTheNextRound { asked: round, next });
    }
    let players = ranked_players(record);
    if players.len() < 2 {
        return Err(PairingError::TooFewPlayers);
    }
    let met = meetings(record);
    let byes: Vec<Option<usize>> = if players.len().is_multiple_of(2) {
        vec![None]
    } else {
        // Lowest-ranked first: players are ranked best first.
        (0..players.len())
            .rev()
            .filter(|i| !players[*i].had_bye)
            .map(Some)
            .collect()
    };
    let mut exhausted = false;
    for bye in byes {
        let rest: Vec<usize> = (0..players.len()).filter(|i| Some(*i) != bye).collect();
        for level in LEVELS {
            let mut search = Search::new(&players, &met, level);
            if let Some(pairs) = search.pair(&rest) {
                return Ok(boards(&players, pairs, bye));
            }
            // Only the loosest level's giving up leaves the question open.
            exhausted |= level.budget == STEP_BUDGET && search.steps > level.budget;
        }
    }
    Err(if exhausted {
        PairingError::SearchTooLong
    } else {
        PairingError::NoPairingWithoutRepeat
    })
}

/// The round after the last one with a game or a bye.
fn next_round(record: &Record<'_>) -> u32 {
    let games = record.games.iter().map(|g| g.round);
    let byes = record.byes.iter().map(|(r, _)| *r);
    games.chain(byes).max().unwrap_or(0) + 1
}

/// The players still in, best first: score, then seed.
fn ranked_players(record: &Record<'_>) -> Vec<Player> {
    let mut games: Vec<_> = record.games.iter().collect();
    games.sort_by_key(|g| g.round);
    let mut players: Vec<Player> = (0..record.entrants)
        .filter(|e| !record.has_withdrawn(*e))
        .map(|entrant| Player {
            entrant,
            points_x2: record.points_x2(entrant),
            colours: games
                .iter()
                .filter_map(|g| {
                    (g.white == entrant)
                        .then_some(Colour::White)
                        .or((g.black == entrant).then_some(Colour::Black))
                })
                .collect(),
            had_bye: record.byes.iter().any(|(_, e)| *e == entrant),
        })
        .collect();
    players.sort_by(|a, b| {
        b.points_x2
            .cmp(&a.points_x2)
            .then(a.entrant.cmp(&b.entrant))
    });
    players
}

/// Who has met whom, by entrant.
fn meetings(record: &Record<'_>) -> HashSet<(Entrant, Entrant)> {
    record
        .games
        .iter()
        .flat_map(|g| [(g.white, g.black), (g.black, g.white)])
        .collect()
}

/// One depth-first search for a pairing at one quality level.
struct Search<'a> {
    players: &'a [Player],
    /// Whether two players (by rank) may meet at this level.
    allowed: Vec<Vec<bool>>,
    /// `allowed` again, each row a bit set (for the quick check that no
    /// one left is stranded).
    partners: Vec<Bits>,
    /// Whether two players (by rank) want the same colour.
    clash: Vec<Vec<bool>>,
    level: Level,
    /// The sets of players found impossible to pair.
    impossible: HashSet<Bits>,
    steps: u64,
}

impl<'a> Search<'a> {
    fn new(players: &'a [Player], met: &HashSet<(Entrant, Entrant)>, level: Level) -> Self {
        let prefs: Vec<_> = players.iter().map(Player::preference).collect();
        let table = |f: &dyn Fn(usize, usize) -> bool| -> Vec<Vec<bool>> {
            (0..players.len())
                .map(|a| (0..players.len()).map(|b| f(a, b)).collect())
                .collect()
        };
        let allowed = table(&|a, b| {
            a != b
                && !met.contains(&(players[a].entrant, players[b].entrant))
                && !(level.absolute_colours && must_clash(prefs[a], prefs[b]))
        });
        let clash = table(&|a, b| wants_same(prefs[a], prefs[b]));
        let partners = allowed
            .iter()
            .map(|row| bits((0..players.len()).filter(|b| row[*b]), players.len()))
            .collect();
        Search {
            players,
            allowed,
            partners,
            clash,
            level,
            impossible: HashSet::new(),
            steps: 0,
        }
    }

    /// A pairing of `remaining` (ranks, best first), as (higher, lower)
    /// rank pairs; None when there is none at this level (or the budget
    /// ran out).
    fn pair(&mut self, remaining: &[usize]) -> Option<Vec<(usize, usize)>> {
        let Some(&first) = remaining.first() else {
            return Some(Vec::new());
        };
        let left = bits(remaining.iter().copied(), self.players.len());
        if self.steps > self.level.budget || self.impossible.contains(&left) {
            return None;
        }
        self.steps += 1;
        let stranded = remaining.iter().any(|a| {
            let partners = &self.partners[*a];
            !partners.iter().zip(&left).any(|(p, l)| p & l != 0)
        });
        if !stranded {
            for partner in self.candidates(remaining) {
                let rest: Vec<usize> = remaining
                    .iter()
                    .copied()
                    .filter(|r| *r != first && *r != partner)
                    .collect();
                if let Some(mut pairs) = self.pair(&rest) {
                    pairs.push((first, partner));
                    return Some(pairs);
                }
            }
        }
        self.impossible.insert(left);
        None
    }

    /// The first player's possible partners in the Dutch order: the
    /// bottom half of their score group, then the top half from its
    /// bottom, then (a float) the players below their group.
    fn candidates(&self, remaining: &[usize]) -> Vec<usize> {
        let first = remaining[0];
        let score = self.players[first].points_x2;
        let group: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|r| self.players[*r].points_x2 == score)
            .collect();
        let half = group.len() / 2;
        let mut order: Vec<usize> = group[half.max(1)..].to_vec();
        order.extend(group[1..half.max(1)].iter().rev());
        if group.len() == 1 || !self.level.few_floats {
            order.extend(
                remaining
                    .iter()
                    .filter(|r| self.players[**r].points_x2 < score),
            );
        }
        order.retain(|b| self.allowed[first][*b]);
        order.sort_by_key(|b| self.clash[first][*b]);
        order
    }
}

/// A set of players (by rank), one bit each.
type Bits = Vec<u64>;

fn bits(members: impl Iterator<Item = usize>, players: usize) -> Bits {
    let mut set = vec![0u64; players.div_ceil(64)];
    for m in members {
        set[m / 64] |= 1 << (m % 64);
    }
    set
}

type Preference = Option<(Colour, Strength)>;

/// Whether two players want the same colour.
fn wants_same(a: Preference, b: Preference) -> bool {
    matches!((a, b), (Some((ca, _)), Some((cb, _))) if ca == cb)
}

/// Whether two players must both have the same colour.
fn must_clash(a: Preference, b: Preference) -> bool {
    wants_same(a, b)
        && a.is_some_and(|(_, s)| s == Strength::Absolute)
        && b.is_some_and(|(_, s)| s == Strength::Absolute)
}

/// The round's boards, best first, with colours given.
fn boards(players: &[Player], mut pairs: Vec<(usize, usize)>, bye: Option<usize>) -> Round {
    // Board order: the pair's higher score, then its higher rank.
    pairs.sort_by(|a, b| {
        let top = |p: &(usize, usize)| players[p.0].points_x2.max(players[p.1].points_x2);
        top(b).cmp(&top(a)).then(a.0.cmp(&b.0))
    });
    let pairings = pairs
        .iter()
        .enumerate()
        .map(|(board, (high, low))| {
            let (h, l) = (&players[*high], &players[*low]);
            if colour_of_higher(h, l, board % 2 == 0) == Colour::White {
                Pairing {
                    white: h.entrant,
                    black: l.entrant,
                }
            } else {
                Pairing {
                    white: l.entrant,
                    black: h.entrant,
                }
            }
        })
        .collect();
    Round {
        pairings,
        bye: bye.map(|b| players[b].entrant),
    }
}

/// The colour of the higher-ranked player `h` against `l` (Dutch colour
/// allocation); `odd_board` says whether the board is 1, 3, 5...
fn colour_of_higher(h: &Player, l: &Player, odd_board: bool) -> Colour {
    match (h.preference(), l.preference()) {
        (None, None) => {
            if odd_board {
                Colour::White
            } else {
                Colour::Black
            }
        }
        (Some((c, _)), None) => c,
        (None, Some((c, _))) => c.other(),
        (Some((ch, sh)), Some((cl, sl))) => {
            if ch != cl || sh > sl {
                ch
            } else if sl > sh {
                cl.other()
            } else {
                // Back to the last round in which they had different
                // colours; alternate from it.
                let differing = h
                    .colours
                    .iter()
                    .rev()
                    .zip(l.colours.iter().rev())
                    .find(|(a, b)| a != b);
                match differing {
                    Some((had, _)) => had.other(),
                    None => ch,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
