//! The shadow part of an action, and position text with its refusals.

use super::*;

// ------------------------------------------------------------ notation

#[test]
fn a_missing_or_wrong_shadow_part_is_answered_with_the_choices() {
    let mut p = rules::game("shadowchess").unwrap().start(&[]).unwrap();
    match p.play("Nf3") {
        Err(MoveError::Illegal { reason, .. }) => {
            assert!(reason.contains("Nf3/b1a3"), "{reason}");
            assert!(reason.contains("Nf3/g1h3"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    match p.play("Nf3/b1b3") {
        Err(MoveError::Illegal { reason, .. }) => assert!(reason.contains("Nf3/b1c3"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // Coordinates, class letters and dashes are all read.
    assert_eq!(
        p.clone_box().play("g1f3/Nb1-c3").unwrap().notation,
        "Nf3/b1c3"
    );
    assert_eq!(
        p.clone_box().play("e2e4/Pd2d3").unwrap().notation,
        "e4/d2d3"
    );
    assert_eq!(p.play("e4/d2-d4").unwrap().notation, "e4/d2d4");
}

#[test]
fn a_move_without_a_shadow_move_takes_no_shadow_part() {
    let mut p = pos("7k/3n4/8/8/8/8/8/K2R4 1n6/8/8/8/8/8/8/8 w - - 0 1 -");
    assert!(matches!(
        p.clone_box().play("Rd2/b1c3"),
        Err(MoveError::Illegal { .. })
    ));
    assert_eq!(p.play("Rd2/-").unwrap().notation, "Rd2");
}

#[test]
fn position_text_reads_back_and_bad_text_is_refused() {
    for text in [
        START,
        "1[rn]5k/3R4/8/8/8/8/8/K7 8/8/8/(NPp)7/8/8/8/8 b - - 3 12 -",
        "7k/R7/8/8/8/2n5/8/7K 8/8/5n2/8/8/8/1B4B1/8 w - - 0 1 Bc3",
    ] {
        assert_eq!(pos(text).to_text(), text);
    }
    let game = rules::game("shadowchess").unwrap();
    for bad in [
        "8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1",
        "8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 x - - 0 1 -",
        "[Kn]7/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 -",
        "P7/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 -",
        "8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w K - 0 1 -",
        "8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 Nc3",
        "[8/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 -",
        "9/8/8/8/8/8/8/8 8/8/8/8/8/8/8/8 w - - 0 1 -",
    ] {
        assert!(game.position(bad, &[]).is_err(), "{bad}");
    }
}

/// Found by the `position_text` and `moves` fuzz targets (fuzz/): a rank
/// written as a long run of digits overflowed the file counter (a panic in
/// a build with overflow checks) instead of being refused.
#[test]
fn a_rank_of_too_many_empty_squares_is_refused_not_overflowed() {
    let game = rules::game("shadowchess").unwrap();
    let long = format!(
        "nN{}3hrb/ppppp/9//8/8//PNPRNBQR w KQkq - 0 1",
        "8".repeat(80)
    );
    assert!(game.position(&long, &[]).is_err());
    let artifact: &[u8] = b"knN8888888888888888888888888888888888888888888888888888888888888888888888888888888883hrb/ppppp/9//8/8//PNPRNBQR w KQk\x00\x005'PR w KQkq - 0 1";
    let text = String::from_utf8_lossy(&artifact[1..]);
    for g in rules::registry() {
        let _ = g.position(&text, &[]);
    }
    // A shadow move of four bytes with a two-byte character in it.
    let mut start = rules::game("shadowchess").unwrap().start(&[]).unwrap();
    assert!(start.play("e4/aéb").is_err());
    // The moves target's find: every game, move texts played from the start.
    let data: &[u8] = b"3\0\x05\0\x05e\xff43\nnd3";
    let games = rules::registry();
    let game = games[data[0] as usize % games.len()];
    let mut position = game.start(&[]).unwrap();
    for input in String::from_utf8_lossy(&data[2..]).split('\n') {
        if position.play(input).is_ok() {
            let written = position.to_text();
            let again = game.position(&written, &[]).unwrap();
            assert_eq!(again.to_text(), written);
        }
    }
}
