//! Every game's move reader: a game, a position reached by legal moves the
//! input picks (the start, or a midgame), then move texts the input
//! gives, each played if the rules take it. Nothing may panic, and a
//! position after an accepted move reads back from its own text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let games = rules::registry();
    let game = games[pick as usize % games.len()];
    let Ok(mut position) = game.start(&[]) else {
        return;
    };
    let Some((&walk, rest)) = rest.split_first() else {
        return;
    };
    // Up to 31 legal plies chosen by the input: a midgame.
    let mut choice = rest.iter().copied();
    for _ in 0..(walk % 32) {
        if position.is_decision() {
            break;
        }
        let legal = position.legal_actions();
        if legal.is_empty() {
            break;
        }
        let i = choice.next().unwrap_or(0) as usize % legal.len();
        position
            .play(&legal[i])
            .unwrap_or_else(|e| panic!("a listed action {} is refused: {e}", legal[i]));
    }
    let rest: Vec<u8> = choice.collect();
    let text = String::from_utf8_lossy(&rest);
    for input in text.split('\n').take(8) {
        if position.is_decision() {
            break;
        }
        if position.play(input).is_ok() {
            let written = position.to_text();
            let again = game
                .position(&written, &[])
                .unwrap_or_else(|e| panic!("{written:?} does not read back: {e}"));
            assert_eq!(again.to_text(), written);
        }
    }
});
