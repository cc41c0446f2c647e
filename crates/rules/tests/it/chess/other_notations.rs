//! German piece letters, Unicode figurines and a `My move:` phrase, read
//! where the pieces are the orthodox six and nowhere else.

use super::{play_err, play_ok};
use rules::{self, MoveError};

fn start(game: &str) -> Box<dyn rules::Position> {
    rules::game(game).unwrap().start(&[]).unwrap()
}

#[test]
fn german_letters_and_figurines_are_read_in_chess() {
    let mut p = start("chess");
    assert_eq!(play_ok(&mut p, "Sf3"), "Nf3");
    assert_eq!(play_ok(&mut p, "♞c6"), "Nc6");
    assert_eq!(play_ok(&mut p, "My move: e4"), "e4");
    assert_eq!(play_ok(&mut p, "Move: ♟e5"), "e5");
    assert_eq!(play_ok(&mut p, "Lb5"), "Bb5");
    assert_eq!(play_ok(&mut p, "♗c5"), "Bc5");
    assert_eq!(play_ok(&mut p, "♔e2"), "Ke2");
    assert_eq!(play_ok(&mut p, "Dh4"), "Qh4");
    assert_eq!(play_ok(&mut p, "Te1"), "Re1");
}

#[test]
fn a_german_letter_names_its_piece_in_a_refusal() {
    let mut p = start("chess");
    match play_err(&mut p, "Sf6") {
        MoveError::Illegal { input, .. } => assert_eq!(input, "Sf6"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn german_letters_and_figurines_are_read_in_double_chess() {
    let mut p = start("doublechess");
    assert_eq!(play_ok(&mut p, "Sc3"), "Nc3");
    let mut p = start("doublechess");
    assert_eq!(play_ok(&mut p, "♘c3"), "Nc3");
}

#[test]
fn german_letters_are_refused_where_the_pieces_are_not_the_orthodox_six() {
    let mut p = start("zelig");
    assert!(matches!(
        play_err(&mut p, "Sf3"),
        MoveError::Unreadable { .. }
    ));
}

#[test]
fn a_text_with_two_legal_readings_is_refused_naming_both() {
    let mut p = super::pos("4k3/8/8/4p3/3P4/8/8/4Q1K1 w - - 0 1");
    match play_err(&mut p, "Dxe5") {
        MoveError::Ambiguous { candidates, .. } => {
            assert_eq!(candidates, ["dxe5 (as written)", "Qxe5+ (German letters)"],)
        }
        e => panic!("{e:?}"),
    }
}
