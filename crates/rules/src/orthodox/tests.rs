//! The hook points, proved with a toy variant that uses every kind of hook:
//! a pawn capture also removes another enemy pawn of the mover's choice
//! (`exd5/h7`), promotion only to rook or knight, a `marks=` field that
//! survives the round trip, and a rule that no side may keep a piece on
//! h1.

use std::sync::LazyLock;

use super::super::board::{Geometry, Square};
use super::super::engine::EngineGame;
use super::super::{Color, Game, MoveError, SetupError};
use super::*;

struct Toy;

#[derive(Clone, Copy, Debug)]
struct ToyHooks;

impl Hooks for ToyHooks {
    const PLAIN_MAKE: bool = false;
    const PLAIN_EXPAND: bool = false;

    fn promotion_kinds(&self) -> &'static [Kind] {
        &[Kind::Rook, Kind::Knight]
    }

    fn expand(&self, state: &State<Self>, m: Move, out: &mut Vec<Move>) {
        let takes_pawn = state.is_capture(m)
            && (m.special == Special::EnPassant
                || state.piece_at(m.to).is_some_and(|p| p.kind == Kind::Pawn));
        let enemy_pawn = Piece::new(state.side_to_move().opponent(), Kind::Pawn);
        let others: Vec<Square> = state
            .pieces()
            .filter(|&(sq, p)| p == enemy_pawn && sq != m.to)
            .map(|(sq, _)| sq)
            .collect();
        if !takes_pawn || others.is_empty() {
            out.push(m);
        } else {
            out.extend(others.into_iter().map(|sq| m.choosing(sq)));
        }
    }

    fn after_make(
        &self,
        state: &mut State<Self>,
        m: Move,
        taken: Option<Capture>,
        events: Option<&mut Vec<String>>,
    ) {
        if let (Some(sq), Some(_)) = (m.choice, taken) {
            state.put(sq, None);
            if let Some(events) = events {
                events.push(format!("also removed: {sq}"));
            }
        }
    }

    fn is_legal_after(&self, after: &State<Self>, _m: Move) -> bool {
        let h1 = after.variant().geometry.parse_square("h1").unwrap();
        after.piece_at(h1).is_none_or(|p| p.kind == Kind::Rook)
    }

    fn explain_refusal(&self, state: &State<Self>, from: Square, to: Square) -> Option<String> {
        let h1 = state.variant().geometry.parse_square("h1").unwrap();
        (to == h1 && state.piece_at(from).is_some_and(|p| p.kind != Kind::Rook))
            .then(|| "only a rook may stand on h1 in this toy.".to_string())
    }

    fn diagram_notes(&self, state: &State<Self>) -> Vec<String> {
        state
            .pieces()
            .filter(|&(sq, _)| state.tag_at(sq) != Tag::NONE)
            .map(|(sq, _)| format!("marked: {sq}"))
            .collect()
    }

    fn write_suffix(&self, _state: &State<Self>, m: Move) -> String {
        m.choice.map_or(String::new(), |sq| format!("/{sq}"))
    }

    fn read_suffix<'a>(
        &self,
        state: &State<Self>,
        text: &'a str,
    ) -> Result<(&'a str, Option<Square>), String> {
        match text.split_once('/') {
            None => Ok((text, None)),
            Some((core, choice)) => match state.variant().geometry.parse_square(choice) {
                Some(sq) => Ok((core, Some(sq))),
                None => Err(format!("'{choice}' after the slash is no square.")),
            },
        }
    }

    fn write_fields(&self, state: &State<Self>) -> Vec<String> {
        let tagged: Vec<String> = state
            .pieces()
            .filter(|&(sq, _)| state.tag_at(sq) != Tag::NONE)
            .map(|(sq, _)| sq.to_string())
            .collect();
        if tagged.is_empty() {
            Vec::new()
        } else {
            vec![format!("marks={}", tagged.join(","))]
        }
    }

    fn read_fields(&self, state: &mut State<Self>, fields: &[&str]) -> Result<(), SetupError> {
        for field in fields {
            let list = field
                .strip_prefix("marks=")
                .ok_or_else(|| SetupError::InvalidText(format!("unknown field {field}")))?;
            for name in list.split(',') {
                let sq = state
                    .variant()
                    .geometry
                    .parse_square(name)
                    .ok_or_else(|| SetupError::InvalidText(format!("no square {name}")))?;
                state.set_tag(sq, Tag::new(1).unwrap());
            }
        }
        Ok(())
    }
}

fn variant() -> &'static Variant<ToyHooks> {
    static VARIANT: LazyLock<Variant<ToyHooks>> = LazyLock::new(|| {
        Variant::new(
            &Toy,
            Geometry::CHESS,
            "4k3/p6p/8/3p4/4P3/8/8/4K3 w - - 0 1",
            Vec::new(),
            true,
            "Write a move as in chess, with /square for the extra pawn.",
            ToyHooks,
        )
    });
    &VARIANT
}

impl EngineGame for Toy {
    type Engine = State<ToyHooks>;
    fn name(&self) -> &'static str {
        "toy"
    }
    fn title(&self) -> &'static str {
        "Toy"
    }
    fn start_position(&self, _options: &[String]) -> Result<State<ToyHooks>, SetupError> {
        Ok(State::start(variant()))
    }
    fn read_position(&self, text: &str, _: &[String]) -> Result<State<ToyHooks>, SetupError> {
        State::from_fen(variant(), text)
    }
}

#[test]
fn one_capture_expands_into_one_action_per_choice_and_reads_back() {
    let p = Toy.start(&[]).unwrap();
    let actions = p.legal_actions();
    assert!(actions.contains(&"exd5/a7".to_string()), "{actions:?}");
    assert!(actions.contains(&"exd5/h7".to_string()), "{actions:?}");
    assert!(!actions.iter().any(|a| a == "exd5"), "{actions:?}");
    // K: 5 steps, pawn: e5 and two capture choices.
    assert_eq!(p.perft(1), 8);
    assert_eq!(p.divide(1).len(), 8);
}

#[test]
fn the_post_make_hook_removes_and_reports() {
    let mut p = Toy.start(&[]).unwrap();
    let played = p.play("exd5/h7").unwrap();
    assert_eq!(played.notation, "exd5/h7");
    assert_eq!(played.events, vec!["also removed: h7".to_string()]);
    assert_eq!(p.to_text(), "4k3/p7/8/3P4/8/8/8/4K3 b - - 0 1");
}

#[test]
fn a_missing_choice_lists_the_choices_and_a_bad_one_is_explained() {
    let mut p = Toy.start(&[]).unwrap();
    match p.play("exd5") {
        Err(MoveError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates, vec!["exd5/a7", "exd5/h7"])
        }
        other => panic!("{other:?}"),
    }
    match p.play("exd5/z9") {
        Err(MoveError::Illegal { reason, .. }) => assert!(reason.contains("z9"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // A square that is no choice of the move: the right ones are listed.
    match p.play("exd5/e1") {
        Err(MoveError::Illegal { reason, .. }) => assert_eq!(
            reason,
            "e1 is not a choice of that move; write exd5/a7 or exd5/h7."
        ),
        other => panic!("{other:?}"),
    }
    match p.play("Kd2/a7") {
        Err(MoveError::Illegal { reason, .. }) => {
            assert_eq!(reason, "a7 is not a choice of that move; write Kd2.")
        }
        other => panic!("{other:?}"),
    }
    // The coordinate form (divide's names) carries the choice too.
    let names: Vec<String> = p.divide(1).into_iter().map(|(n, _)| n).collect();
    assert!(names.contains(&"e4d5/h7".to_string()), "{names:?}");
}

#[test]
fn the_variant_explains_its_own_refusals_and_writes_notes_under_the_board() {
    let mut p = Toy.position("4k3/p7/8/8/8/8/8/6K1 w - - 0 1", &[]).unwrap();
    match p.play("Kh1") {
        Err(MoveError::Illegal { reason, .. }) => {
            assert_eq!(reason, "only a rook may stand on h1 in this toy.")
        }
        other => panic!("{other:?}"),
    }
    assert!(p.diagram().notes.is_empty());
    let p = Toy
        .position("4k3/p6p/8/3p4/4P3/8/8/4K3 w - - 0 1 marks=e4,d5", &[])
        .unwrap();
    assert_eq!(p.diagram().notes, ["marked: e4", "marked: d5"]);
}

#[test]
fn promotion_kinds_and_the_extra_legality_test_come_from_the_hooks() {
    let p = Toy
        .position("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", &[])
        .unwrap();
    let actions = p.legal_actions();
    assert!(actions.contains(&"b8=R+".to_string()), "{actions:?}");
    assert!(actions.contains(&"b8=N".to_string()), "{actions:?}");
    assert!(
        !actions.iter().any(|a| a.starts_with("b8=Q")),
        "{actions:?}"
    );
    // The king may not step onto h1 in this toy, f1/f2/d1/d2/e2 stay.
    let p = Toy.position("4k3/8/8/8/8/8/8/6K1 w - - 0 1", &[]).unwrap();
    assert!(!p.legal_actions().contains(&"Kh1".to_string()));
    assert_eq!(p.perft(1), 4);
}

#[test]
fn extra_position_fields_round_trip_and_unknown_ones_are_refused() {
    let text = "4k3/p6p/8/3p4/4P3/8/8/4K3 w - - 0 1 marks=e4";
    let p = Toy.position(text, &[]).unwrap();
    assert_eq!(p.to_text(), text);
    let mut q = p.clone_box();
    q.play("e5").unwrap();
    assert!(q.to_text().ends_with(" marks=e5"), "{}", q.to_text());
    assert!(matches!(
        Toy.position("4k3/8/8/8/8/8/8/4K3 w - - 0 1 pairs=a1", &[]),
        Err(SetupError::InvalidText(_))
    ));
    let chess = super::super::game("chess").unwrap();
    assert!(matches!(
        chess.position("4k3/8/8/8/8/8/8/4K3 w - - 0 1 marks=e1", &[]),
        Err(SetupError::InvalidText(_))
    ));
    assert_eq!(p.to_act(), Color::White);
}

#[test]
fn castling_rights_go_with_a_rook_a_hook_removes() {
    let v = super::super::chess::variant();
    let mut s = State::from_fen(v, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let a8 = v.geometry.parse_square("a8").unwrap();
    s.put(a8, None);
    assert_eq!(s.fen(), "4k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1");
}
