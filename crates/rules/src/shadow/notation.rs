//! Shadow Chess notation (docs/rules.md §4): `<main>/<shadow>`.
//!
//! # Canonical form (stored and echoed)
//! - A plain piece's main move in SAN without check marks (`e4`, `exd5`,
//!   `Nf3`, `Nbd2`, `e8=Q`); a chimera's in coordinates with its class in
//!   parentheses when several of its components allow the same move
//!   (`d4f5(N)`, `d4d5`, `b7b8=Q(P)`).
//! - The shadow move as `from`+`to` (`/d2d3`), with the class letter in
//!   front when the main mover is a chimera (`/Ng1f3`); after a promotion
//!   the removed shadow pawn's square (`/a2`); nothing when no shadow move
//!   exists.
//! - `O-O`, `O-O-O`, `reveal c4`.
//!
//! A reveal decision is written `reveal c4` everywhere a player reads it
//! (move list, board mails, echoes); a PGN record, whose moves are single
//! tokens, writes the space as `_` (`reveal_c4`). Either is read, and so
//! are `reveal-c4` and `revealc4`; where a command takes a list of moves
//! split at spaces (`preview`), `reveal c4` as two words is one move.
//!
//! # Reading (rulings)
//! - The main part is read as the canonical text, as coordinates
//!   (`e2e4`, `e2-e4`, `e7e8q`, `d4f5(N)`), or as SAN, where a piece letter
//!   names the *class* (`Nf5` is any unit moving as a knight to f5, a
//!   chimera included) and no letter names the pawn class.
//! - The shadow part may carry its class letter or not (`/Pd2d3`,
//!   `/d2d3`, `/d2-d3`); when a shadow move must follow and exactly one is
//!   possible, it may be left out; `/-` or nothing when none exists.
//! - `+ # ! ?` at the end are ignored (Shadow Chess has no check).

use super::super::orthodox::Kind;
use super::super::MoveError;
use super::state::{Action, Pending, ShadowPart, State};
use super::units::Sq;

const HINT: &str = "Write a main move and a shadow move of the same class, as e4/d2d3 or Nf3/b1c3 (coordinates work too: g1f3/g1h3); castling as O-O; a reveal decision as reveal c4.";

/// The main part of an action: what one unit does on the main board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Main {
    Move {
        from: Sq,
        to: Sq,
        class: Kind,
        promotion: Option<Kind>,
    },
    Castle {
        kingside: bool,
    },
    Reveal(Sq),
}

fn main_of(a: &Action) -> Main {
    match *a {
        Action::Main {
            from,
            to,
            class,
            promotion,
            ..
        } => Main::Move {
            from,
            to,
            class,
            promotion,
        },
        Action::Castle { kingside } => Main::Castle { kingside },
        Action::Reveal(sq) => Main::Reveal(sq),
    }
}

impl State {
    /// The canonical notation of a legal action; `legal` are all the legal
    /// actions here (for disambiguation).
    pub(crate) fn notation_with(&self, a: &Action, legal: &[Action]) -> String {
        let mut s = self.main_notation(main_of(a), legal);
        if let Action::Main {
            from,
            class,
            shadow,
            ..
        } = *a
        {
            let chimera = self.unit(from).is_some_and(|u| u.is_chimera());
            match shadow {
                ShadowPart::None => {}
                ShadowPart::Move { from, to } => {
                    s.push('/');
                    if chimera {
                        s.push(class.letter());
                    }
                    s.push_str(&format!("{from}{to}"));
                }
                ShadowPart::RemovePawn(sq) => s.push_str(&format!("/{sq}")),
            }
        }
        s
    }

    fn main_notation(&self, main: Main, legal: &[Action]) -> String {
        match main {
            Main::Castle { kingside: true } => "O-O".into(),
            Main::Castle { kingside: false } => "O-O-O".into(),
            Main::Reveal(sq) => format!("reveal {sq}"),
            Main::Move {
                from,
                to,
                class,
                promotion,
            } => {
                let unit = self.unit(from).expect("a unit moves");
                let promo = promotion.map_or(String::new(), |k| format!("={}", k.letter()));
                if unit.is_chimera() {
                    let classes = legal
                        .iter()
                        .filter_map(|a| match main_of(a) {
                            Main::Move {
                                from: f,
                                to: t,
                                class: c,
                                ..
                            } if f == from && t == to => Some(c),
                            _ => None,
                        })
                        .fold(Vec::new(), |mut v, c| {
                            if !v.contains(&c) {
                                v.push(c);
                            }
                            v
                        });
                    let named = if classes.len() > 1 {
                        format!("({})", class.letter())
                    } else {
                        String::new()
                    };
                    return format!("{from}{to}{promo}{named}");
                }
                let capture =
                    self.unit(to).is_some() || (class == Kind::Pawn && from.file() != to.file());
                if class == Kind::Pawn {
                    let x = if capture {
                        format!("{}x", &from.to_string()[..1])
                    } else {
                        String::new()
                    };
                    return format!("{x}{to}{promo}");
                }
                let rivals: Vec<Sq> = legal
                    .iter()
                    .filter_map(|a| match main_of(a) {
                        Main::Move { from: f, to: t, .. }
                            if t == to && f != from && self.unit(f) == Some(unit) =>
                        {
                            Some(f)
                        }
                        _ => None,
                    })
                    .collect();
                let mut s = class.letter().to_string();
                if !rivals.is_empty() {
                    let name = from.to_string();
                    if rivals.iter().all(|r| r.file() != from.file()) {
                        s.push_str(&name[..1]);
                    } else if rivals.iter().all(|r| r.rank() != from.rank()) {
                        s.push_str(&name[1..]);
                    } else {
                        s.push_str(&name);
                    }
                }
                if capture {
                    s.push('x');
                }
                s.push_str(&to.to_string());
                s
            }
        }
    }

    /// Read an action in any accepted form; refusals say what to write.
    pub fn read_action(&self, input: &str) -> Result<Action, MoveError> {
        let trimmed = input.trim();
        let unreadable = || MoveError::Unreadable {
            input: trimmed.to_string(),
            hint: HINT.to_string(),
        };
        let illegal = |reason: String| MoveError::Illegal {
            input: trimmed.to_string(),
            reason,
        };
        let text = trimmed.trim_end_matches(['+', '#', '!', '?', ' ']);
        if text.is_empty() {
            return Err(unreadable());
        }
        let legal = self.actions();
        if let Some(head) = self.pending.first() {
            return self.read_reveal(*head, text, &legal).map_err(illegal);
        }
        // `get`, not an index: a move text may hold any character, and
        // byte 6 need not be a character boundary (found by fuzzing).
        if text
            .get(..6)
            .is_some_and(|w| w.eq_ignore_ascii_case("reveal"))
        {
            return Err(illegal("no reveal is waiting for a decision.".into()));
        }
        let (main_text, shadow_text) = match text.split_once('/') {
            Some((m, s)) => (m.trim(), Some(s.trim())),
            None => (text, None),
        };
        let mains = self.read_main(main_text, &legal).ok_or_else(unreadable)?;
        let main = match mains.as_slice() {
            [] => return Err(illegal(self.explain_main(main_text, &legal))),
            [one] => *one,
            several => {
                let mut candidates: Vec<String> = several
                    .iter()
                    .map(|&m| self.main_notation(m, &legal))
                    .collect();
                candidates.sort();
                return Err(MoveError::Ambiguous {
                    input: trimmed.to_string(),
                    candidates,
                });
            }
        };
        self.read_with_shadow(main, shadow_text, &legal)
            .map_err(illegal)
    }

    /// The decision a pending reveal waits for: `reveal <square>` naming
    /// one of its candidates, or the reason to refuse `text`.
    fn read_reveal(&self, head: Pending, text: &str, legal: &[Action]) -> Result<Action, String> {
        let candidates: Vec<String> = self
            .reveal_candidates(head.owner, head.kind)
            .iter()
            .map(|sq| format!("reveal {sq}"))
            .collect();
        let chosen = reveal_square(text).and_then(|sq| Sq::parse(&sq));
        if let Some(sq) = chosen {
            if legal.contains(&Action::Reveal(sq)) {
                return Ok(Action::Reveal(sq));
            }
        }
        Err(format!(
            "{} must first choose which shadow {} is revealed: write {}.",
            head.owner.name(),
            head.kind.name(),
            or_list(&candidates)
        ))
    }

    /// The one legal action with main part `main` and the shadow part
    /// `shadow_text` names (none written: the only one there is), or the
    /// reason to refuse it, listing the choices.
    fn read_with_shadow(
        &self,
        main: Main,
        shadow_text: Option<&str>,
        legal: &[Action],
    ) -> Result<Action, String> {
        let options: Vec<Action> = legal
            .iter()
            .copied()
            .filter(|a| main_of(a) == main)
            .collect();
        let main_name = self.main_notation(main, legal);
        // Only refusals list the choices.
        let written = || -> String {
            let all: Vec<String> = options
                .iter()
                .map(|a| self.notation_with(a, legal))
                .collect();
            or_list(&all)
        };
        let shadow_of = |a: &Action| match *a {
            Action::Main { shadow, .. } => shadow,
            _ => ShadowPart::None,
        };
        if options.len() == 1 && shadow_of(&options[0]) == ShadowPart::None {
            return match shadow_text {
                None | Some("-") | Some("") => Ok(options[0]),
                Some(_) => Err(format!(
                    "no shadow move follows {main_name}; write {main_name} alone."
                )),
            };
        }
        let Some(shadow_text) = shadow_text.filter(|s| !s.is_empty() && *s != "-") else {
            if options.len() == 1 {
                return Ok(options[0]);
            }
            return Err(format!(
                "{main_name} needs a shadow part too: write {}.",
                written()
            ));
        };
        let wanted = read_shadow(shadow_text)
            .ok_or_else(|| format!("'{shadow_text}' is no shadow move; write {}.", written()))?;
        options
            .iter()
            .find(|a| shadow_matches(a, wanted))
            .copied()
            .ok_or_else(|| {
                format!(
                    "after {main_name} the shadow part must be one of {}.",
                    written()
                )
            })
    }

    /// The distinct main parts `text` may mean; `None` when it is no move.
    fn read_main(&self, text: &str, legal: &[Action]) -> Option<Vec<Main>> {
        let mut mains: Vec<Main> = Vec::new();
        for a in legal {
            let m = main_of(a);
            if !mains.contains(&m) {
                mains.push(m);
            }
        }
        let castle: String = text.chars().filter(|c| *c != '-').collect();
        let os = castle
            .chars()
            .filter(|c| matches!(c, 'O' | 'o' | '0'))
            .count();
        if os == castle.len() && (os == 2 || os == 3) {
            let kingside = os == 2;
            return Some(
                mains
                    .into_iter()
                    .filter(|m| *m == Main::Castle { kingside })
                    .collect(),
            );
        }
        if let Some(&m) = mains
            .iter()
            .find(|&&m| self.main_notation(m, legal) == text)
        {
            return Some(vec![m]);
        }
        let spec = MainSpec::read(text)?;
        Some(
            mains
                .into_iter()
                .filter(|&m| match m {
                    Main::Move {
                        from,
                        to,
                        class,
                        promotion,
                    } => spec.fits(from, to, class, promotion),
                    _ => false,
                })
                .collect(),
        )
    }

    /// Why no legal main move fits `text`.
    fn explain_main(&self, text: &str, legal: &[Action]) -> String {
        if let Some(from) = MainSpec::read(text).and_then(|s| s.origin()) {
            return match self.unit(from) {
                None => format!("there is no piece on {from}."),
                Some(u) if u.color != self.side => format!(
                    "the {} on {from} is {}'s, and it is {}'s move.",
                    u.describe(),
                    u.color.name(),
                    self.side.name()
                ),
                Some(u) => {
                    let mut dests: Vec<String> = Vec::new();
                    for a in legal {
                        if let Main::Move { from: f, to, .. } = main_of(a) {
                            let d = to.to_string();
                            if f == from && !dests.contains(&d) {
                                dests.push(d);
                            }
                        }
                    }
                    if dests.is_empty() {
                        format!("the {} on {from} has no legal move.", u.describe())
                    } else {
                        format!(
                            "the {} on {from} can move to {}.",
                            u.describe(),
                            or_list(&dests)
                        )
                    }
                }
            };
        }
        if text
            .chars()
            .filter(|c| matches!(c, 'O' | 'o' | '0'))
            .count()
            >= 2
        {
            return "castling needs the king and that rook unmoved and alone on their squares, the squares between empty, and no square from the king's to its destination attacked.".into();
        }
        "no piece of yours can make it.".into()
    }
}

/// A shadow part as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ShadowRead {
    Move {
        class: Option<Kind>,
        from: Sq,
        to: Sq,
    },
    /// A promotion's removed shadow pawn.
    Square(Sq),
}

/// Whether action `a` has the shadow part `wanted` names.
fn shadow_matches(a: &Action, wanted: ShadowRead) -> bool {
    let (class, shadow) = match *a {
        Action::Main { class, shadow, .. } => (class, shadow),
        _ => return false,
    };
    match (wanted, shadow) {
        (ShadowRead::Move { class: c, from, to }, ShadowPart::Move { from: f, to: t }) => {
            c.is_none_or(|c| c == class) && from == f && to == t
        }
        (ShadowRead::Square(sq), ShadowPart::RemovePawn(s)) => sq == s,
        _ => false,
    }
}

fn read_shadow(text: &str) -> Option<ShadowRead> {
    let mut chars: Vec<char> = text.chars().filter(|c| !matches!(c, '-' | ' ')).collect();
    let class = match chars.first() {
        Some(c) if c.is_ascii_uppercase() => {
            let k = Kind::from_letter(*c)?;
            chars.remove(0);
            Some(k)
        }
        _ => None,
    };
    let s: String = chars.iter().collect();
    match s.len() {
        2 if class.is_none() => Some(ShadowRead::Square(Sq::parse(&s)?)),
        4 => Some(ShadowRead::Move {
            class,
            from: Sq::parse(s.get(..2)?)?,
            to: Sq::parse(s.get(2..)?)?,
        }),
        _ => None,
    }
}

/// A main move as written, position-free.
#[derive(Clone, Copy, Debug)]
struct MainSpec {
    class: Option<Kind>,
    from_file: Option<i8>,
    from_rank: Option<i8>,
    to: Sq,
    promotion: Option<Kind>,
}

impl MainSpec {
    /// Coordinates (`e2e4`, `e7e8q`, `d4f5(N)`) or SAN (`Nbd2`, `exd5`,
    /// `e8=Q`), capture marks optional.
    fn read(text: &str) -> Option<MainSpec> {
        let mut text = text.to_string();
        let mut class = None;
        if let Some(open) = text.find('(') {
            let inner = text[open..].trim_start_matches('(').trim_end_matches(')');
            let mut letters = inner.chars();
            class = Some(Kind::from_letter(letters.next()?)?);
            if letters.next().is_some() {
                return None;
            }
            text.truncate(open);
        }
        let chars: Vec<char> = text
            .chars()
            .filter(|c| !matches!(c, 'x' | 'X' | ':' | '-' | '=' | ' '))
            .collect();
        let mut end = chars.len();
        let mut promotion = None;
        if end >= 3 && chars[end - 1].is_ascii_alphabetic() && chars[end - 2].is_ascii_digit() {
            let k = Kind::from_letter(chars[end - 1])?;
            if matches!(k, Kind::King | Kind::Pawn) {
                return None;
            }
            promotion = Some(k);
            end -= 1;
        }
        if end < 2 {
            return None;
        }
        let to = Sq::parse(&chars[end - 2..end].iter().collect::<String>())?;
        let prefix = &chars[..end - 2];
        let file = |c: char| ('a'..='h').contains(&c).then(|| c as i8 - 'a' as i8);
        let rank = |c: char| ('1'..='8').contains(&c).then(|| c as i8 - '1' as i8);
        let (letter, rest) = match prefix.first() {
            Some(c) if c.is_ascii_uppercase() => (Some(Kind::from_letter(*c)?), &prefix[1..]),
            _ => (None, prefix),
        };
        let (from_file, from_rank) = match rest {
            [] => (None, None),
            [a] => match (file(*a), rank(*a)) {
                (Some(f), _) => (Some(f), None),
                (None, Some(r)) => (None, Some(r)),
                _ => return None,
            },
            [a, b] => (Some(file(*a)?), Some(rank(*b)?)),
            _ => return None,
        };
        let class = match (class, letter) {
            (Some(c), Some(l)) if c != l => return None,
            (Some(c), _) => Some(c),
            (None, Some(l)) => Some(l),
            // Coordinates name the unit, not the class; a bare file or
            // square is a pawn move.
            (None, None) if from_file.is_some() && from_rank.is_some() => None,
            (None, None) => Some(Kind::Pawn),
        };
        // A pawn named without its file moves along the destination's file.
        let from_file = if class == Some(Kind::Pawn) && from_file.is_none() && letter.is_none() {
            Some(to.file())
        } else {
            from_file
        };
        Some(MainSpec {
            class,
            from_file,
            from_rank,
            to,
            promotion,
        })
    }

    /// The from-square, when the text names one.
    fn origin(&self) -> Option<Sq> {
        Sq::at(self.from_file?, self.from_rank?)
    }

    fn fits(&self, from: Sq, to: Sq, class: Kind, promotion: Option<Kind>) -> bool {
        to == self.to
            && self.class.is_none_or(|c| c == class)
            && self.from_file.is_none_or(|f| f == from.file())
            && self.from_rank.is_none_or(|r| r == from.rank())
            && self.promotion.is_none_or(|p| Some(p) == promotion)
    }
}

/// The square a reveal decision names, as written: `reveal c4` (the
/// canonical form), or in one word as a PGN record or a list of moves
/// has it (`reveal_c4`, `reveal-c4`, `revealc4`); any case. `None` when
/// `text` is no reveal.
fn reveal_square(text: &str) -> Option<String> {
    let rest = text
        .get(..6)
        .filter(|w| w.eq_ignore_ascii_case("reveal"))
        .map(|_| &text[6..])?;
    let square = rest.trim_start_matches([' ', '\t', '_', '-']).trim_end();
    Some(square.to_ascii_lowercase())
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
