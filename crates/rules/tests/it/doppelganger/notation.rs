//! The notations of a paired capture and their choices.

use super::*;

// ------------------------------------------------------------ notation

#[test]
fn the_notations_of_the_issue_each_play() {
    // (position, input, canonical notation, text after)
    let cases = [
        (
            "4k3/2p4p/8/3p4/4P3/8/8/4K3 w - - 0 1",
            "exd5/c7",
            "exd5/c7",
            "4k3/7p/8/3P4/8/8/8/4K3 b - - 0 1",
        ),
        (
            "3qk3/8/8/3P4/8/8/P6P/4K3 b - - 0 1",
            "Qxd5/a2",
            "Qxd5/a2",
            "4k3/8/8/3q4/8/8/7P/4K3 w - - 0 2",
        ),
        (
            "4k3/p6p/8/2pP4/8/8/8/4K3 w - c6 0 1",
            "dxc6/a7",
            "dxc6/a7",
            "4k3/7p/2P5/8/8/8/8/4K3 b - - 0 1",
        ),
        (
            "4k3/1P6/8/8/8/8/P5P1/4K3 w - - 0 1",
            "b8=R/g2",
            "b8=R/g2+",
            "1R2k3/8/8/8/8/8/P5R1/4K3 b - - 0 1",
        ),
        (
            "4kb2/4P3/8/8/8/8/PP6/4K3 w - - 0 1",
            "exf8=N/b2",
            "exf8=N/b2",
            "4kN2/8/8/8/8/8/PN6/4K3 b - - 0 1",
        ),
        // The bracket form of the promotion piece, before the choice.
        (
            "4k3/1P6/8/8/8/8/P5P1/4K3 w - - 0 1",
            "b8(R)/g2",
            "b8=R/g2+",
            "1R2k3/8/8/8/8/8/P5R1/4K3 b - - 0 1",
        ),
    ];
    for (text, input, notation, after) in cases {
        let mut p = pos(text);
        assert_eq!(play(&mut p, input).0, notation, "{text}");
        assert_eq!(p.to_text(), after, "{input}");
        // Coordinates with the slash work too.
        let mut q = pos(text);
        let uci_like = pos(text).divide(1);
        assert!(uci_like.iter().any(|(name, _)| name.contains('/')));
        let (name, _) = uci_like
            .iter()
            .find(|(name, _)| {
                let mut r = pos(text);
                r.play(name).map(|x| x.notation).ok().as_deref() == Some(notation)
            })
            .unwrap_or_else(|| panic!("no coordinate form for {notation}: {uci_like:?}"));
        play(&mut q, name);
        assert_eq!(q.to_text(), after, "{name}");
    }
}

#[test]
fn a_missing_choice_is_answered_with_the_list_of_choices() {
    let p = pos("4k3/2p4p/8/3p4/4P3/8/8/4K3 w - - 0 1");
    match refusal(&*p, "exd5") {
        MoveError::Ambiguous { candidates, .. } => {
            assert_eq!(candidates, ["exd5/c7", "exd5/h7"])
        }
        other => panic!("{other}"),
    }
    let text = refusal(&*p, "exd5").to_string();
    assert!(text.contains("exd5/c7 or exd5/h7"), "{text}");
    // A promotion without its partner lists every pawn that can be it.
    let p = pos("4k3/1P6/8/8/8/8/P5P1/4K3 w - - 0 1");
    match refusal(&*p, "b8=N") {
        MoveError::Ambiguous { candidates, .. } => {
            assert_eq!(candidates, ["b8=N/a2", "b8=N/g2"])
        }
        other => panic!("{other}"),
    }
}

#[test]
fn the_slash_may_be_left_out_when_only_one_choice_is_legal() {
    // c7 is the only other pawn.
    let mut p = pos("4k3/2p5/8/3p4/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(play(&mut p, "exd5").0, "exd5/c7");
    // g2 is the only other pawn.
    let mut p = pos("4k3/1P6/8/8/8/8/6P1/4K3 w - - 0 1");
    assert_eq!(play(&mut p, "b7b8n").0, "b8=N/g2");
    // Taking the last pawn: nothing to choose, nothing written.
    let mut p = pos("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
    let (notation, events) = play(&mut p, "exd5");
    assert_eq!(notation, "exd5");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(p.to_text(), "4k3/8/8/3P4/8/8/8/4K3 b - - 0 1");
}

#[test]
fn a_wrong_choice_is_explained() {
    let p = pos("4k3/2p4p/8/3p4/4P3/8/8/4K3 w - - 0 1");
    let e = refusal(&*p, "exd5/e4").to_string();
    assert!(
        e.contains("e4 is not a choice") && e.contains("exd5/c7 or exd5/h7"),
        "{e}"
    );
    let e = refusal(&*p, "exd5/z9").to_string();
    assert!(e.contains("'z9' after the slash is not a square"), "{e}");
    // A move without a choice takes none.
    let e = refusal(&*p, "Kd2/c7").to_string();
    assert!(e.contains("write Kd2"), "{e}");
    // Upper case and check marks around the slash are read.
    let mut q = p.clone();
    assert_eq!(play(&mut q, "exd5+/C7").0, "exd5/c7");
}
