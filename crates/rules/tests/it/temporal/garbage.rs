//! No input panics: proptest soup of notation pieces and position text.

use super::*;
use proptest::prelude::*;

/// Text built from the pieces of the notations, so that near-misses
/// are common.
fn soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("K"),
            Just("Q"),
            Just("R"),
            Just("N"),
            Just("U"),
            Just("@"),
            Just("-"),
            Just("x"),
            Just(":"),
            Just("V"),
            Just("C"),
            Just("("),
            Just(")"),
            Just(","),
            Just("Aa1"),
            Just("Bb2"),
            Just("Dd4"),
            Just("Ee5"),
            Just("0"),
            Just("7"),
            Just("99999999999"),
            Just(" "),
            Just("="),
            Just("phase"),
            Just("play"),
            Just("place"),
            Just("side"),
            Just("w"),
            Just("white"),
            Just("black"),
            Just("wres"),
            Just("bres"),
            Just("clock"),
            Just("é"),
        ],
        0..24,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_judged_without_panicking(move_text in soup(), position_text in soup()) {
        for text in [
            START,
            "phase=play side=w white=K@Aa1,N@Ab1(V1),R@Ac1 black=Q@Cc3,K@Dd4 wres=B1 bres=N1 clock=5",
            "phase=play side=b white=K@Bb2(C1),K@Bb3,U@Cc2 black=N@Bb4(V1),R@Db2,K@Dd4 wres=Q1 bres=R1 clock=0",
        ] {
            let mut p = pos(text);
            if let Ok(played) = p.play(&move_text) {
                prop_assert!(!played.notation.is_empty());
            }
        }
        let mut text = START.to_string();
        text.push(' ');
        text.push_str(&position_text);
        let _ = game().position(&position_text, &[]);
        let _ = game().position(&text, &[]);
    }
}
