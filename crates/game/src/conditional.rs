//! Conditional moves: a player's tree of lines "if they play
//! this, I answer that". Pure: no I/O, and nothing of the crate is
//! imported; the server replays each line on the board to check it and
//! hands this module the plies in the game's canonical notation (as the
//! move list records them), so "Ng1f3" and "Nf3" are one ply here.
//!
//! Rulings:
//!
//! - Every line of a tree starts at the same point of the game: its first
//!   ply is the next ply of the board. Each ply knows whether it is the
//!   owner's (`mine`) or the opponent's; the server finds out by replaying
//!   the line, so a Shadow reveal decision stands where the rules put it.
//! - Lines that share a beginning share it: a line that begins another
//!   line is already held; a line that continues one replaces it. Two lines
//!   that leave a common beginning with different plies of the owner are a
//!   clash (two answers to one position), refused naming both; with
//!   different plies of the opponent they are two branches.
//! - The bounds (plies per line, lines per tree) are the caller's: the
//!   server passes those of `crate::limits`.
//! - After a ply is played, only the lines that begin with it are kept,
//!   without it; when no line began with it the tree is cleared. A line
//!   played to its end is dropped (nothing more was promised).
//! - A decision the rules ask for (a Shadow reveal) that a line leaves
//!   out is an open step ([`Step::any_decision`]): whatever is decided
//!   there follows the line, and the tree never decides it, whoever's it
//!   is; its owner's next ply waits for it, as a queued move does. A
//!   decision the line names is a ply like any other: the opponent's is
//!   matched, the owner's is played.
//! - A line that names the opponent's decision (`reveal d5`) and one that
//!   leaves the same decision open are two branches, and the named one
//!   wins: when that decision is made, only the lines that name it are
//!   followed; any other decision follows the open one (an "otherwise").
//!   [`Tree::overlap`] finds such a pair, so the player can be told. The
//!   owner's own decision named in one line and left open in another is
//!   a clash (the tree would both play it and wait for it).
//! - Cancelling a beginning drops every whole line that begins with it
//!   (their shared plies too, unless another line still holds them).

use std::fmt;

/// One ply of a line: its canonical notation, and whether the tree's owner
/// plays it (else the opponent does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub notation: String,
    pub mine: bool,
}

/// The notation of an open step: any decision.
pub const ANY_DECISION: &str = "(decision)";

impl Step {
    pub fn new(notation: impl Into<String>, mine: bool) -> Step {
        Step {
            notation: notation.into(),
            mine,
        }
    }

    /// A decision the line leaves open: whatever is decided follows it.
    pub fn any_decision(mine: bool) -> Step {
        Step::new(ANY_DECISION, mine)
    }

    pub fn is_open(&self) -> bool {
        self.notation == ANY_DECISION
    }
}

/// One line: plies in the order they would be played.
pub type Line = Vec<Step>;

/// A player's conditional moves on one board: lines from the board's next
/// ply on, none of them the beginning of another.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    lines: Vec<Line>,
}

/// What adding a line did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// A new line (a new branch, or the tree's first line).
    New,
    /// It continues lines held before, which it replaces.
    Extended,
    /// The tree held it already (it begins a held line): nothing changed.
    Held,
}

/// Why a line cannot be added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// No ply at all.
    Empty,
    /// More plies than a line may have.
    TooLong { plies: usize, max: usize },
    /// The tree would hold more lines than a tree may.
    TooMany { max: usize },
    /// After `after` (possibly nothing), the tree already plays `held`
    /// where the new line plays `new`.
    Clash {
        after: Vec<String>,
        held: String,
        new: String,
    },
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Empty => write!(f, "The line has no move; write the moves after the password."),
            Refused::TooLong { plies, max } => write!(
                f,
                "The line has {plies} plies, more than the {max} a line may have; send a shorter line."
            ),
            Refused::TooMany { max } => write!(
                f,
                "You hold {max} conditional lines on this board already, the most a player may; cancel some first."
            ),
            Refused::Clash { after, held, new } if held == ANY_DECISION || new == ANY_DECISION => {
                let named = if held == ANY_DECISION { new } else { held };
                let (at, cancel) = if after.is_empty() {
                    ("Now".to_string(), "one of them".to_string())
                } else {
                    let after = after.join(" ");
                    (format!("After {after}"), after)
                };
                write!(
                    f,
                    "{at} one of your lines leaves your own decision open (you send it yourself) and another names it ({named}); a tree cannot do both: write both alike, or cancel {cancel} first."
                )
            }
            Refused::Clash { after, held, new } if after.is_empty() => write!(
                f,
                "Your conditional moves already start with your move {held}, not {new}; cancel {held} first."
            ),
            Refused::Clash { after, held, new } => {
                let after = after.join(" ");
                write!(
                    f,
                    "After {after} you already answer {held}, not {new}; cancel {after} {held} first."
                )
            }
        }
    }
}

/// What the tree makes of a ply just played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Advance {
    /// Lines began with it: the tree keeps what follows it (maybe nothing).
    Expected,
    /// No line began with it: the tree is cleared.
    Unexpected,
}

impl Tree {
    /// A tree of stored lines (as [`Tree::lines`] gave them).
    pub fn from_lines(lines: Vec<Line>) -> Tree {
        let mut tree = Tree::default();
        for line in lines.into_iter().filter(|l| !l.is_empty()) {
            // Stored trees were built by `add`; this only keeps them so.
            let _ = tree.add(line, usize::MAX, usize::MAX);
        }
        tree
    }

    pub fn lines(&self) -> &[Line] {
        &self.lines
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Add a line of at most `max_plies` plies, keeping the tree to at
    /// most `max_lines` lines (see the module's rulings).
    pub fn add(
        &mut self,
        line: Line,
        max_plies: usize,
        max_lines: usize,
    ) -> Result<Added, Refused> {
        if line.is_empty() {
            return Err(Refused::Empty);
        }
        if line.len() > max_plies {
            return Err(Refused::TooLong {
                plies: line.len(),
                max: max_plies,
            });
        }
        let mut continued = Vec::new();
        for (i, held) in self.lines.iter().enumerate() {
            let k = common_beginning(held, &line);
            if k == line.len() {
                return Ok(Added::Held);
            }
            if k == held.len() {
                continued.push(i);
            } else if line[k].mine {
                return Err(Refused::Clash {
                    after: line[..k].iter().map(|s| s.notation.clone()).collect(),
                    held: held[k].notation.clone(),
                    new: line[k].notation.clone(),
                });
            }
        }
        if continued.is_empty() && self.lines.len() >= max_lines {
            return Err(Refused::TooMany { max: max_lines });
        }
        let added = if continued.is_empty() {
            Added::New
        } else {
            Added::Extended
        };
        for i in continued.into_iter().rev() {
            self.lines.remove(i);
        }
        self.lines.push(line);
        Ok(added)
    }

    /// Drop the lines that begin with `beginning` (every line when it is
    /// empty); returns how many were dropped.
    pub fn cancel(&mut self, beginning: &[String]) -> usize {
        let before = self.lines.len();
        self.lines.retain(|l| {
            !(l.len() >= beginning.len() && l.iter().zip(beginning).all(|(s, b)| &s.notation == b))
        });
        // Whole lines go: cancelling `e5 Nf3 Nc6` of the one line
        // `e5 Nf3 Nc6 Bb5` leaves no `e5 Nf3` behind.
        before - self.lines.len()
    }

    /// The ply `played` was played (a decision the rules asked for when
    /// `decision`): keep what follows it in the lines that began with it
    /// (or with an open decision), or clear the tree.
    pub fn advance(&mut self, played: &str, decision: bool) -> Advance {
        let before = self.lines.len();
        // A decision some line names is followed by those lines alone;
        // the lines that left it open follow any other (module rulings).
        let named = self.lines.iter().any(|l| l[0].notation == played);
        self.lines
            .retain(|l| l[0].notation == played || (decision && !named && l[0].is_open()));
        if self.lines.is_empty() && before > 0 {
            return Advance::Unexpected;
        }
        for line in &mut self.lines {
            line.remove(0);
        }
        self.lines.retain(|l| !l.is_empty());
        Advance::Expected
    }

    /// Where `line` and a held line part at a decision of the opponent's
    /// that one names and the other leaves open: the plies before it and
    /// the decision named (the named one wins there, see the module's
    /// rulings).
    pub fn overlap(&self, line: &[Step]) -> Option<(Vec<String>, String)> {
        self.lines.iter().find_map(|held| {
            let k = common_beginning(held, line);
            let (h, l) = (held.get(k)?, line.get(k)?);
            (!l.mine && h.is_open() != l.is_open()).then(|| {
                let named = if h.is_open() { l } else { h };
                let after = line[..k].iter().map(|s| s.notation.clone()).collect();
                (after, named.notation.clone())
            })
        })
    }

    /// The owner's ply the tree plays next, when the next ply is theirs.
    /// (Lines never disagree on it: that is a clash.)
    pub fn answer(&self) -> Option<&str> {
        self.lines
            .first()
            .map(|l| &l[0])
            .filter(|s| s.mine && !s.is_open())
            .map(|s| s.notation.as_str())
    }

    /// The tree as indented lines of at most `width` columns: plies shared
    /// by every line below them on one line, the branches under it two
    /// columns further in, a line too long wrapped under itself.
    pub fn draw(&self, indent: usize, width: usize) -> Vec<String> {
        self.draw_with(indent, width, &|line, k, _| line[k].notation.clone())
    }

    /// [`Tree::draw`] with each ply written by `word(line, k, row_start)`:
    /// ply `k` of `line` (the whole line from the tree's start, so a move
    /// number can be worked out), `row_start` when it begins a drawn row.
    pub fn draw_with(
        &self,
        indent: usize,
        width: usize,
        word: &dyn Fn(&[Step], usize, bool) -> String,
    ) -> Vec<String> {
        let lines: Vec<&[Step]> = self.lines.iter().map(|l| l.as_slice()).collect();
        let mut out = Vec::new();
        draw_branches(&lines, 0, indent, width, word, &mut out);
        out
    }
}

/// How many first plies two lines share.
fn common_beginning(a: &[Step], b: &[Step]) -> usize {
    a.iter()
        .zip(b)
        .take_while(|(x, y)| x.notation == y.notation)
        .count()
}

/// Draw lines that go alike up to ply `at`: each group of lines with the
/// same ply there as one drawn line (as far as they all go alike), then
/// its branches under it.
fn draw_branches(
    lines: &[&[Step]],
    at: usize,
    indent: usize,
    width: usize,
    word: &dyn Fn(&[Step], usize, bool) -> String,
    out: &mut Vec<String>,
) {
    let mut firsts: Vec<&str> = Vec::new();
    for l in lines {
        if !firsts.contains(&l[at].notation.as_str()) {
            firsts.push(&l[at].notation);
        }
    }
    for first in firsts {
        let group: Vec<&[Step]> = lines
            .iter()
            .copied()
            .filter(|l| l[at].notation == first)
            .collect();
        let mut shared = at + 1;
        while group.iter().all(|l| l.len() > shared)
            && group
                .iter()
                .all(|l| l[shared].notation == group[0][shared].notation)
        {
            shared += 1;
        }
        let words: Vec<String> = (at..shared).map(|k| word(group[0], k, k == at)).collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        wrap_words(&words, indent, width, out);
        let rest: Vec<&[Step]> = group.iter().copied().filter(|l| l.len() > shared).collect();
        if !rest.is_empty() {
            draw_branches(&rest, shared, indent + 2, width, word, out);
        }
    }
}

/// Plies on lines of at most `width` columns, from column `indent`; a
/// continuation two columns further in.
fn wrap_words(words: &[&str], indent: usize, width: usize, out: &mut Vec<String>) {
    let mut line = " ".repeat(indent);
    let mut empty = true;
    for word in words {
        if !empty && line.len() + 1 + word.len() > width {
            out.push(std::mem::take(&mut line));
            line = " ".repeat(indent + 2);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push(line);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line entered on the opponent's turn: their plies first, then
    /// alternating.
    fn line(plies: &str) -> Line {
        plies
            .split_whitespace()
            .enumerate()
            .map(|(i, p)| Step::new(p, i % 2 == 1))
            .collect()
    }

    fn tree(lines: &[&str]) -> Tree {
        let mut t = Tree::default();
        for l in lines {
            t.add(line(l), 20, 50).unwrap();
        }
        t
    }

    fn texts(t: &Tree) -> Vec<String> {
        t.lines()
            .iter()
            .map(|l| {
                l.iter()
                    .map(|s| s.notation.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn adding_lines_merges_shared_beginnings() {
        let mut t = Tree::default();
        assert_eq!(t.add(line("e5 Nf3"), 20, 50), Ok(Added::New));
        assert_eq!(t.add(line("e5 Nf3 Nc6 Bb5"), 20, 50), Ok(Added::Extended));
        assert_eq!(t.add(line("e5 Nf3 d6 d4"), 20, 50), Ok(Added::New));
        assert_eq!(t.add(line("e5 Nf3 Nc6"), 20, 50), Ok(Added::Held));
        assert_eq!(t.add(line("c5 Nf3"), 20, 50), Ok(Added::New));
        assert_eq!(texts(&t), ["e5 Nf3 Nc6 Bb5", "e5 Nf3 d6 d4", "c5 Nf3"]);
    }

    #[test]
    fn two_answers_to_one_move_clash_and_the_clash_is_named() {
        let mut t = tree(&["e5 Nf3 Nc6 Bb5"]);
        let e = t.add(line("e5 Nc3"), 20, 50).unwrap_err();
        assert_eq!(
            e.to_string(),
            "After e5 you already answer Nf3, not Nc3; cancel e5 Nf3 first."
        );
        let e = t.add(line("e5 Nf3 Nc6 Bc4"), 20, 50).unwrap_err();
        assert!(e
            .to_string()
            .contains("After e5 Nf3 Nc6 you already answer Bb5"));
        assert_eq!(texts(&t), ["e5 Nf3 Nc6 Bb5"], "a clash changes nothing");
        // On the owner's turn the first ply is theirs.
        let mut own = Tree::default();
        own.add(vec![Step::new("d4", true)], 20, 50).unwrap();
        let e = own.add(vec![Step::new("e4", true)], 20, 50).unwrap_err();
        assert!(e.to_string().contains("already start with your move d4"));
    }

    #[test]
    fn cancel_drops_all_or_one_branch() {
        let mut t = tree(&["e5 Nf3 Nc6 Bb5", "e5 Nf3 d6 d4", "c5 Nf3"]);
        assert_eq!(t.cancel(&["e5".into(), "Nf3".into(), "d6".into()]), 1);
        assert_eq!(texts(&t), ["e5 Nf3 Nc6 Bb5", "c5 Nf3"]);
        assert_eq!(t.cancel(&["e6".into()]), 0);
        assert_eq!(t.cancel(&[]), 2);
        assert!(t.is_empty());
    }

    #[test]
    fn bounds_on_plies_and_lines_are_refused() {
        let mut t = Tree::default();
        let long: Vec<String> = (0..21).map(|i| format!("m{i}")).collect();
        let e = t.add(line(&long.join(" ")), 20, 50).unwrap_err();
        assert_eq!(e, Refused::TooLong { plies: 21, max: 20 });
        assert!(t.add(line(&long[..20].join(" ")), 20, 50).is_ok());
        let mut t = Tree::default();
        for i in 0..50 {
            t.add(line(&format!("o{i} a")), 20, 50).unwrap();
        }
        assert_eq!(
            t.add(line("o50 a"), 20, 50),
            Err(Refused::TooMany { max: 50 })
        );
        // Continuing a held line adds no line.
        assert_eq!(t.add(line("o3 a b"), 20, 50), Ok(Added::Extended));
        assert_eq!(t.lines().len(), 50);
    }

    #[test]
    fn advance_keeps_the_branch_played_or_clears_the_tree() {
        let mut t = tree(&["e5 Nf3 Nc6 Bb5", "e5 Nf3 d6 d4", "c5 Nf3"]);
        assert_eq!(t.answer(), None, "the opponent is to play");
        assert_eq!(t.advance("e5", false), Advance::Expected);
        assert_eq!(t.answer(), Some("Nf3"));
        assert_eq!(t.advance("Nf3", false), Advance::Expected);
        assert_eq!(texts(&t), ["Nc6 Bb5", "d6 d4"]);
        assert_eq!(t.advance("Nc6", false), Advance::Expected);
        assert_eq!(t.advance("Bb5", false), Advance::Expected);
        assert!(t.is_empty(), "a line played to its end is dropped");
        let mut t = tree(&["e5 Nf3"]);
        assert_eq!(t.advance("Nc6", false), Advance::Unexpected);
        assert!(t.is_empty());
    }

    #[test]
    fn an_open_decision_is_never_played_and_follows_any_decision() {
        let mut t = Tree::default();
        let line = vec![
            Step::new("exd5", false),
            Step::any_decision(true),
            Step::new("Nf6", true),
        ];
        t.add(line, 20, 50).unwrap();
        assert_eq!(t.advance("exd5", false), Advance::Expected);
        assert_eq!(t.answer(), None, "the owner decides by mail");
        assert_eq!(t.advance("reveal d6", true), Advance::Expected);
        assert_eq!(t.answer(), Some("Nf6"));
        // An open step is no answer to a turn.
        let mut t = Tree::default();
        t.add(
            vec![Step::any_decision(false), Step::new("a6", true)],
            20,
            50,
        )
        .unwrap();
        assert_eq!(t.advance("a3", false), Advance::Unexpected);
    }

    #[test]
    fn a_named_decision_wins_over_one_left_open() {
        let open = vec![
            Step::new("exd5", true),
            Step::any_decision(false),
            Step::new("Nf3", true),
        ];
        let named = vec![
            Step::new("exd5", true),
            Step::new("reveal d6", false),
            Step::new("Nc3", true),
        ];
        let mut t = Tree::default();
        t.add(open.clone(), 20, 50).unwrap();
        assert_eq!(
            t.overlap(&named),
            Some((vec!["exd5".into()], "reveal d6".into()))
        );
        assert_eq!(t.add(named.clone(), 20, 50), Ok(Added::New));
        let mut other = t.clone();
        // The named decision: its line alone.
        assert_eq!(t.advance("exd5", false), Advance::Expected);
        assert_eq!(t.advance("reveal d6", true), Advance::Expected);
        assert_eq!(t.answer(), Some("Nc3"));
        assert_eq!(t.lines().len(), 1);
        // Any other: the open line.
        other.advance("exd5", false);
        assert_eq!(other.advance("reveal e7", true), Advance::Expected);
        assert_eq!(other.answer(), Some("Nf3"));
        // The owner's own decision named and left open: a clash.
        let mut own = Tree::default();
        own.add(
            vec![
                Step::new("exd5", false),
                Step::any_decision(true),
                Step::new("Nf6", true),
            ],
            20,
            50,
        )
        .unwrap();
        let e = own
            .add(
                vec![Step::new("exd5", false), Step::new("reveal d6", true)],
                20,
                50,
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "After exd5 one of your lines leaves your own decision open (you send it yourself) and another names it (reveal d6); a tree cannot do both: write both alike, or cancel exd5 first."
        );
        let mut first = Tree::default();
        first
            .add(
                vec![Step::any_decision(true), Step::new("Nf6", true)],
                20,
                50,
            )
            .unwrap();
        let e = first
            .add(vec![Step::new("reveal d6", true)], 20, 50)
            .unwrap_err();
        assert!(e.to_string().starts_with("Now one of your lines"), "{e}");
        assert!(e.to_string().ends_with("cancel one of them first."), "{e}");
    }

    #[test]
    fn drawing_indents_branches_within_the_width() {
        let t = tree(&["e5 Nf3 Nc6 Bb5", "e5 Nf3 d6 d4", "c5 Nf3"]);
        assert_eq!(
            t.draw(2, 78),
            ["  e5 Nf3", "    Nc6 Bb5", "    d6 d4", "  c5 Nf3"]
        );
        let long: Vec<String> = (0..20).map(|i| format!("reveal_x{i}")).collect();
        let t = tree(&[&long.join(" ")]);
        let drawn = t.draw(2, 30);
        assert!(drawn.len() > 1);
        assert!(drawn.iter().all(|l| l.len() <= 30), "{drawn:?}");
    }
}
