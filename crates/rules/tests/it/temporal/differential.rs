//! The engine against the reference: random playouts and crafted positions
//! must give the same actions, successors and ends.

use super::*;

// ------------------------------------------------------------ differential

/// The engine's legal actions with the position text after each, as the
/// reference's successors are.
fn engine_successors(s: &State) -> BTreeMap<String, String> {
    s.actions()
        .iter()
        .map(|a| (s.notation(a), s.after(a).to_text()))
        .collect()
}

fn compare(text: &str) {
    let s = Temporal.read_position(text, &[]).expect("engine reads it");
    let r = reference::Ref::parse(text);
    assert_eq!(r.text(), text, "reference text round trip");
    let mine = engine_successors(&s);
    let theirs: BTreeMap<String, String> = r
        .successors()
        .into_iter()
        .map(|(n, next)| (n, next.text()))
        .collect();
    if mine != theirs {
        let only_engine: Vec<_> = mine.keys().filter(|k| !theirs.contains_key(*k)).collect();
        let only_ref: Vec<_> = theirs.keys().filter(|k| !mine.contains_key(*k)).collect();
        let differ: Vec<_> = mine
            .iter()
            .filter(|(k, v)| theirs.get(*k).is_some_and(|t| t != *v))
            .map(|(k, v)| format!("{k}: engine {v} / reference {}", theirs[k]))
            .collect();
        panic!("{text}\nonly engine: {only_engine:?}\nonly reference: {only_ref:?}\ndiffer: {differ:#?}");
    }
    // The end agrees too.
    let end = s.end();
    let expected = match (theirs.is_empty(), r.phase) {
        (_, "won-w") => Some(Color::White),
        (_, "won-b") => Some(Color::Black),
        (true, _) if r.threatened() => Some(if r.white { Color::Black } else { Color::White }),
        _ => None,
    };
    match end {
        Outcome::Won { winner, .. } => assert_eq!(Some(winner), expected, "{text}"),
        Outcome::Drawn { .. } => assert!(theirs.is_empty() && expected.is_none(), "{text}"),
        Outcome::Ongoing => assert!(!theirs.is_empty() && expected.is_none(), "{text}"),
    }
}

#[test]
fn random_playouts_agree_with_the_reference() {
    let seeds = [
        START,
        "phase=play side=w white=K@Aa1,R@Ad1 black=N@Dd1,K@Dd4 wres=- bres=U1 clock=0",
        "phase=play side=w white=K@Aa1,N@Ab1(V1),R@Ac1 black=Q@Cc3,K@Dd4 wres=B1 bres=N1 clock=5",
        "phase=play side=b white=K@Bb2(C1),K@Bb3,U@Cc2 black=N@Bb4(V1),R@Db2,K@Dd4 wres=Q1 bres=R1 clock=0",
        "phase=play side=w white=K@Aa1(V1) black=R@Ad1,B@Ca3,K@Dd4 wres=N1U1 bres=Q1 clock=0",
        "phase=play side=b white=K@Bb2,R@Cc3(C2),R@Cc4 black=Q@Aa4,K@Dd4(V2) wres=- bres=N2 clock=0",
    ];
    let mut rng = Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    let mut positions = 0;
    for seed in seeds {
        for _game in 0..6 {
            let mut s = Temporal.read_position(seed, &[]).unwrap();
            for _ply in 0..40 {
                let text = s.to_text();
                compare(&text);
                positions += 1;
                let actions = s.actions();
                if actions.is_empty() {
                    break;
                }
                // Prefer warps and captures now and then: they are rarer.
                let pick = actions[rng.usize(..actions.len())];
                s = s.after(&pick);
            }
        }
    }
    assert!(positions > 200, "{positions}");
}

#[test]
fn crafted_positions_agree_with_the_reference() {
    for text in [
        "phase=play side=w white=K@Aa1 black=R@Ad1,K@Dd4 wres=N1 bres=- clock=7",
        "phase=play side=w white=K@Aa1,N@Ab1(V1),R@Ac1 black=K@Dd4 wres=- bres=- clock=5",
        "phase=play side=w white=K@Ab1,N@Ab1(V1) black=K@Dd4 wres=Q1 bres=- clock=0",
        "phase=play side=w white=K@Aa4,N@Ab1(V1) black=R@Ab1(C2),R@Cc3,K@Dd4 wres=- bres=- clock=0",
        "phase=play side=w white=K@Bb2 black=N@Bb3(V1),K@Dd4 wres=- bres=R1 clock=0",
        "phase=play side=w white=K@Bb3 black=N@Bb3(V1),K@Dd4 wres=U1 bres=R1 clock=0",
        "phase=play side=b white=K@Bb2(C2),K@Bb3 black=R@Db2,K@Dd4 wres=- bres=R1 clock=1",
        "phase=play side=w white=K@Bb2(C1),K@Bb3 black=R@Db2,K@Dd4 wres=U2 bres=R1 clock=1",
        "phase=play side=w white=K@Aa1(V1) black=R@Ad1,R@Ca1,K@Dd4 wres=N1 bres=- clock=0",
        "phase=play side=w white=K@Aa1,N@Dd1(V3) black=Q@Bb2,R@Db2,K@Dd4 wres=- bres=- clock=0",
        "phase=play side=w white=K@Aa1,N@Dd1(V3) black=Q@Ab3,R@Bc1,K@Dd4 wres=- bres=- clock=0",
        "phase=play side=w white=K@Aa1,R@Ab1 black=R@Ad1,K@Dd4 wres=- bres=- clock=0",
        "phase=play side=w white=K@Aa1,Q@Ad4 black=R@Ab4,R@Ca1,K@Dc1,R@Dd4(C3) wres=- bres=- clock=0",
        "phase=play side=w white=K@Cc3,U@Dd4(V1) black=K@Aa1,N@Bb2 wres=R1B1 bres=- clock=0",
        "phase=play side=w white=K@Aa1,N@Bc3(V1) black=U@Bc3,K@Dd4 wres=R1 bres=- clock=0",
        "phase=play side=w white=K@Aa1,R@Cc1(C1),R@Cd1 black=B@Ca3,K@Dd4 wres=N1 bres=- clock=0",
        "phase=place side=b white=K@Bb2 black=- wres=Q1R2B2N2U8 bres=K1Q1R2B2N2U8 clock=0",
    ] {
        compare(text);
    }
}
