//! Zelig 2's limits on the quota.

use super::*;

// ------------------------------------------------------------ Zelig 2

#[test]
fn zelig2_limits_from_the_start() {
    let p = pos("zelig2", START);
    assert_eq!(p.perft(1), 18);
    let acts = p.legal_actions();
    for refused in ["Za3", "Zh3"] {
        assert!(!acts.contains(&refused.to_string()), "{acts:?}");
        let e = refusal("zelig2", START, refused);
        assert!(
            e.contains("3 zeligs on the a- and h-files, and Zelig Chess 2 allows two"),
            "{e}"
        );
    }
    assert!(acts.contains(&"Zc3".to_string()) && acts.contains(&"Zf3".to_string()));
    // The same moves are fine in M-Chess.
    assert!(pos("mchess", START)
        .legal_actions()
        .contains(&"Za3".to_string()));
}

#[test]
fn zelig2_refuses_a_promotion_beyond_the_limit() {
    let fen = "4k3/P7/8/8/8/8/8/Z3K2Z w - - 0 1";
    for fen in [fen.to_string(), mirror(fen)] {
        let last = if fen.contains(" w ") { "a8" } else { "a1" };
        let p = pos("zelig2", &fen);
        assert!(
            !p.legal_actions().iter().any(|a| a.starts_with(last)),
            "{:?}",
            p.legal_actions()
        );
        let e = refusal("zelig2", &fen, &format!("{last}=Z"));
        assert!(e.contains("3 zeligs on the a- and h-files"), "{e}");
        // M-Chess and Zelig allow it.
        for game in ["mchess", "zelig"] {
            let mut p = pos(game, &fen);
            play_ok(&mut p, last);
        }
    }
    // Nor may a zelig join another on the d-file; leaving it is fine.
    let fen = "4k3/8/8/8/8/8/8/2ZZK3 w - - 0 1";
    let e = refusal("zelig2", fen, "c1d2");
    assert!(e.contains("2 zeligs on the d-file"), "{e}");
    // A set-up position beyond the limit must come back within it.
    let p = pos("zelig2", "4k3/8/8/8/8/8/3Z4/3ZK3 w - - 0 1");
    let acts = p.legal_actions();
    assert!(
        !acts.is_empty() && acts.iter().all(|a| a.starts_with('Z')),
        "{acts:?}"
    );
    assert!(!acts.contains(&"Zd3".to_string()), "{acts:?}");
}
