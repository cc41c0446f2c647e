//! Every game's position-text reader: any text, for any game. A position
//! it accepts writes a text that reads back to the same text, and its
//! legal actions can be listed and drawn.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let games = rules::registry();
    let game = games[pick as usize % games.len()];
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    if let Ok(position) = game.position(text, &[]) {
        let written = position.to_text();
        let again = game
            .position(&written, &[])
            .unwrap_or_else(|e| panic!("{written:?} does not read back: {e}"));
        assert_eq!(again.to_text(), written);
        let _ = position.legal_actions();
        let _ = position.diagram();
        let _ = position.outcome();
    }
});
