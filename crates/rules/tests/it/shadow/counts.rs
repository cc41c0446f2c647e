//! The published counts: perft and the start's actions.

use super::*;

// ------------------------------------------------------------ counts

#[test]
fn perft_from_the_start_matches_rules_md() {
    let p = rules::game("shadowchess").unwrap().start(&[]).unwrap();
    assert_eq!(p.to_text(), START);
    assert_eq!(p.perft(1), 280);
    assert_eq!(p.perft(2), 78400);
}

#[test]
fn perft_after_a_capture_with_an_automatic_reveal_matches_rules_md() {
    let p = pos("7k/3n4/8/8/8/8/8/K2R4 1n6/8/8/8/8/8/8/8 w - - 0 1 -");
    assert_eq!(p.perft(1), 15);
    assert_eq!(p.perft(2), 300);
}

#[test]
fn start_actions_pair_each_main_move_with_each_shadow_move_of_its_class() {
    let p = rules::game("shadowchess").unwrap().start(&[]).unwrap();
    let actions = p.legal_actions();
    assert!(actions.contains(&"e4/d2d3".to_string()));
    assert!(actions.contains(&"e4/e2e4".to_string()));
    assert!(actions.contains(&"Nf3/b1d2".to_string()), "stacking on d2");
    assert!(actions.contains(&"Nf3/g1e2".to_string()));
    assert!(!actions.iter().any(|a| a.starts_with("Nf3/e2")));
}

/// perft(2) counts its last two plies together (a main move that takes
/// nothing is counted once for all its shadow parts); it must equal playing
/// out every action and counting the answers, in random games full of
/// captures, reveals, collapses and promotions.
#[test]
fn two_ply_counting_agrees_with_playing_every_action_out() {
    let mut seed: u64 = 0x5AD0_C4E5_5EED_0001;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let mut checked = 0;
    for _game in 0..6 {
        let mut p = rules::game("shadowchess").unwrap().start(&[]).unwrap();
        for _ply in 0..60 {
            let actions = p.legal_actions();
            if actions.is_empty() {
                break;
            }
            let played_out: u64 = actions
                .iter()
                .map(|a| {
                    let mut q = p.clone_box();
                    q.play(a).unwrap();
                    q.perft(1)
                })
                .sum();
            assert_eq!(p.perft(2), played_out, "{}", p.to_text());
            checked += 1;
            // Prefer captures, so the games reach reveals and collapses.
            let captures: Vec<&String> = actions.iter().filter(|a| a.contains('x')).collect();
            let pick = if !captures.is_empty() && next(3) > 0 {
                captures[next(captures.len())].clone()
            } else {
                actions[next(actions.len())].clone()
            };
            p.play(&pick).unwrap();
        }
    }
    assert!(checked > 200, "{checked}");
}
