//! Perft counts and random playouts against the reference generator, and
//! zelig disambiguation checked over random games.

use super::reference::Ref;
use super::*;

// ------------------------------------------------------------ perft

#[test]
fn perft_from_the_start_to_depth_4() {
    // d1: as chess, 16 pawn moves and 4 knight moves (Zelig 2: the two
    // knight moves to a3 and h3 would put a third zelig on the rook
    // files); d2: no first move touches the other army, 20 × 20 (18 × 18).
    // d3 and d4 are checked against the reference generator below.
    for (game, counts) in [
        (&MCHESS, [20, 400, 9250, 212_651]),
        (&ZELIG, [20, 400, 8972, 199_113]),
        (&ZELIG2, [18, 324, 6352, 123_933]),
    ] {
        let p = pos(gname(game), START);
        for (d, &n) in counts.iter().enumerate() {
            assert_eq!(p.perft(d as u32 + 1), n, "{} d{}", gname(game), d + 1);
        }
        assert_eq!(
            reference_perft(&Ref::from_fen(START, game.powers), 4),
            counts[3],
            "{}",
            gname(game)
        );
    }
}

#[test]
#[ignore = "slow: run with --ignored (the reference takes a minute)"]
fn perft_from_the_start_depth_5() {
    for (game, n) in [
        (&MCHESS, 5_431_209),
        (&ZELIG, 4_877_958),
        (&ZELIG2, 2_611_900),
    ] {
        assert_eq!(state(game, START).perft(5), n, "{}", gname(game));
        assert_eq!(reference_perft(&Ref::from_fen(START, game.powers), 5), n);
    }
}

/// The random playouts' checks and choices, and what they counted.
#[derive(Default)]
struct Counts {
    castlings: usize,
    promotions: usize,
    checks: usize,
}

impl Playout for Counts {
    type Hooks = ZeligHooks;
    type Ref = Ref;

    fn check(&mut self, mine: &State<ZeligHooks>, reference: &Ref, here: &str) {
        assert_eq!(
            mine.is_check(),
            reference.in_check(reference.white),
            "{here}"
        );
        // The engine's kept powers are the plain recomputation's.
        let powers = reference.powers();
        for r in 0..8u8 {
            for f in 0..8u8 {
                let p = powers[r as usize][f as usize];
                if p != '.' {
                    let name = Ref::name(f as i32, r as i32);
                    assert_eq!(power(mine, &name), p, "{here}: {name}");
                }
            }
        }
        self.checks += mine.is_check() as usize;
    }

    /// Castle or promote at every other chance, to exercise them.
    fn choose(&mut self, _mine: &State<ZeligHooks>, legal: &[Move], rng: &mut Rng) -> usize {
        let castle = legal
            .iter()
            .position(|m| matches!(m.special, Special::Castle(_)));
        let promote = legal
            .iter()
            .position(|m| matches!(m.special, Special::Promotion(_)));
        match (castle.or(promote), rng.usize(..2)) {
            (Some(i), 0) => i,
            _ => rng.usize(..legal.len()),
        }
    }

    fn played(&mut self, _before: &State<ZeligHooks>, m: Move, _after: &State<ZeligHooks>) {
        match m.special {
            Special::Castle(_) => self.castlings += 1,
            Special::Promotion(_) => self.promotions += 1,
            _ => {}
        }
    }
}

#[test]
fn random_playouts_agree_with_the_reference() {
    let starts = [
        START,
        // Open armies with castling rights and promotions near.
        "z3k2z/1P4P1/8/3zz3/3ZZ3/8/1p4p1/Z3K2Z w KQkq - 0 1",
        // Crowded rook and queen files, for the quota.
        "3zk3/z2z3z/3z4/8/8/3Z4/Z2Z3Z/3ZK3 w - - 0 1",
        // Castling at once.
        "z3k2z/pppppppp/8/8/8/8/PPPPPPPP/Z3K2Z w KQkq - 0 1",
        // Few pawns, many zeligs.
        "zzzzkzzz/p6p/8/8/8/8/P6P/ZZZZKZZZ w KQkq - 0 1",
    ];
    let mut rng = Rng::with_seed(0x2E11_6C0F_FEE5);
    for game in [&MCHESS, &ZELIG, &ZELIG2] {
        let mut counts = Counts::default();
        let label = format!("{} ", gname(game));
        let positions = play_out(&mut counts, &mut rng, &label, 25, 100, |n| {
            let fen = starts[n % starts.len()];
            (state(game, fen), Ref::from_fen(fen, game.powers))
        });
        let Counts {
            castlings,
            promotions,
            checks,
        } = counts;
        let name = gname(game);
        assert!(positions > 1000, "{name}: {positions}");
        assert!(castlings > 5, "{name}: {castlings}");
        assert!(promotions > 5, "{name}: {promotions}");
        assert!(checks > 20, "{name}: {checks}");
    }
}

/// `Zee7` is not written where the destination alone is unique: SAN
/// disambiguates only when another zelig can legally go to the same square
/// too (`Z` names every zelig, so `Ze7` would then be ambiguous and would
/// not read back); with no such rival the destination alone is written.
/// This walks random games of all three games and checks both directions at
/// every position.
#[test]
fn a_zelig_move_is_disambiguated_exactly_when_another_zelig_can_go_there() {
    // The e6 monarch and the c5 bishop both reach e7: both are named.
    let p = pos("mchess", "k7/8/4Z3/2Z5/8/8/8/4K3 w - - 0 1");
    let acts = p.legal_actions();
    assert!(acts.contains(&"Zee7".to_string()), "{acts:?}");
    assert!(acts.contains(&"Zce7".to_string()), "{acts:?}");
    // Alone, the monarch's step is written by its destination.
    let p = pos("mchess", "k7/8/4Z3/8/8/8/8/4K3 w - - 0 1");
    assert!(p.legal_actions().contains(&"Ze7".to_string()));
    let mut rng = Rng::with_seed(0x5eed_2023);
    for game in [&MCHESS, &ZELIG, &ZELIG2] {
        for _ in 0..12 {
            let mut s = State::start(game.variant());
            for _ in 0..80 {
                let legal = s.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let sans: Vec<String> = legal.iter().map(|&m| s.san(m)).collect();
                for (i, m) in legal.iter().enumerate() {
                    if !sans[i].starts_with('Z') {
                        continue;
                    }
                    let rival = legal
                        .iter()
                        .zip(&sans)
                        .any(|(o, san)| o.to == m.to && o.from != m.from && san.starts_with('Z'));
                    let square = m.to.to_string();
                    let core = sans[i].trim_end_matches(['+', '#']).replace('x', "");
                    let plain = core == format!("Z{square}");
                    assert_eq!(plain, !rival, "{} in {}", sans[i], s.fen());
                }
                s = s.after(legal[rng.usize(..legal.len())]);
            }
        }
    }
}
