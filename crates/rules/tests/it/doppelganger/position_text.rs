//! The pairs field of position text, and drawings that list the pairs.

use super::*;

// ------------------------------------------------------------ position text

#[test]
fn the_pairs_field_reads_writes_and_round_trips() {
    // Three knights need the field; it lists every pair.
    let text = "4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1 pairs=b1g1";
    assert_eq!(pos(text).to_text(), text);
    // Any order in, one order out.
    assert_eq!(
        pos("4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1 pairs=g1c1").to_text(),
        "4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1 pairs=c1g1"
    );
    // A field that says what the default says is dropped.
    assert_eq!(
        pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 pairs=a1h1,a8h8").to_text(),
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    );
    // Two rooks the field does not pair are written as such.
    let text = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 pairs=a8h8";
    assert_eq!(pos(text).to_text(), text);
    // The repetition key tells pairings apart: same placement, other pairs.
    assert_ne!(
        pos("r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6a8,f6h8").to_text(),
        pos("r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6h8,f6a8").to_text()
    );
}

#[test]
fn bad_position_texts_are_refused_with_a_reason() {
    let refused = |text: &str, words: &str| match game().position(text, &[]) {
        Err(e) => assert!(e.to_string().contains(words), "{text}: {e}"),
        Ok(p) => panic!("{text} accepted as {}", p.to_text()),
    };
    refused(
        "4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1",
        "White has 3 knights, so the position needs a pairs= field",
    );
    refused(
        "4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1 pairs=b1",
        "'b1' in pairs=",
    );
    refused("4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1 pairs=b1z9", "'b1z9'");
    refused(
        "4k3/8/8/8/8/8/8/1NB1K3 w - - 0 1 pairs=b1c1",
        "not two rooks, knights or bishops of one side and kind",
    );
    refused(
        "4k3/8/8/8/8/8/8/1NQ1KQ2 w - - 0 1 pairs=c1f1",
        "not two rooks",
    );
    refused(
        "4k3/8/8/8/8/8/8/1NN1KN2 w - - 0 1 pairs=b1c1,c1f1",
        "names c1 twice",
    );
    refused("4k3/8/8/8/8/8/8/4K3 w - - 0 1 marks=e1", "'marks=e1'");
    refused(
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 pairs=- pairs=-",
        "one field too many",
    );
    refused("NNNNNNNN/NNNNNNNN/8/8/8/8/8/k3K3 w - - 0 1", "at most 16");
}

// ------------------------------------------------------------ drawings

#[test]
fn drawings_list_the_pairs_where_the_board_does_not_show_them() {
    let p = pos("r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6a8,f6h8");
    assert_eq!(
        p.diagram().notes,
        [
            "Pairs:",
            "  Black rooks c6 and a8",
            "  Black rooks f6 and h8"
        ]
    );
    // That every drawing ends with these notes is render's test.
    // Two of a kind and paired: the board says it all.
    assert!(pos(START).diagram().notes.is_empty());
    let p = pos("4k3/8/8/8/8/8/8/1NN1K1N1 w - - 0 1 pairs=b1g1");
    assert_eq!(
        p.diagram().notes,
        [
            "Pairs:",
            "  White knights b1 and g1",
            "  White knight c1 (no partner)"
        ]
    );
}
