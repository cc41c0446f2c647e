//! Perft throughput: `cargo bench --bench perft` (release). A plain main
//! that times and prints; no harness. Every case checks its count against
//! the published one.
//!
//! Orthodox chess is timed side by side with cozy-chess (a bitboard move
//! generator, dev-dependency) on the same positions in the same process,
//! and the ratio printed. Every game's perft(4) from the start is timed
//! (the counts are this implementation's, checked against the games'
//! reference generators in their test suites).
//!
//! Times are the CPU time of the measuring thread (the machine is shared,
//! and wall time would count the others' work too).
//!
//! Under `cargo test --all-targets` (no `--bench` argument), or with
//! `PBMCHESS_BENCH_QUICK=1`, only the quick cases run (Shadow and Temporal
//! Chess at depth 3).

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// The CPU time this thread has used, in seconds.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `t` is.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// Time our perft; returns the seconds.
fn time(game: &str, label: &str, fen: Option<&str>, depth: u32, expected: u64) -> f64 {
    let g = rules::game(game).expect("game");
    let p = match fen {
        Some(fen) => g.position(fen, &[]).expect("position"),
        None => g.start(&[]).expect("start"),
    };
    let t = cpu_seconds();
    let n = p.perft(depth);
    let s = cpu_seconds() - t;
    assert_eq!(n, expected, "{game} {label} perft({depth})");
    println!(
        "{game:12} {label:10} perft({depth}) = {n:>11}  {s:7.3} s  {:6.1} M leaves/s",
        n as f64 / s / 1e6
    );
    s
}

/// cozy-chess's perft, with bulk counting at the last ply as ours does.
fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut n = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            n += moves.len() as u64;
            false
        });
        return n;
    }
    board.generate_moves(|moves| {
        for m in moves {
            let mut next = board.clone();
            next.play_unchecked(m);
            n += cozy_perft(&next, depth - 1);
        }
        false
    });
    n
}

/// Ours against cozy-chess on one chess position; prints the ratio.
fn versus_cozy(label: &str, fen: &str, depth: u32, expected: u64) {
    let board = cozy_chess::Board::from_fen(fen, false).expect("cozy fen");
    let t = cpu_seconds();
    let n = cozy_perft(&board, depth);
    let theirs = cpu_seconds() - t;
    assert_eq!(n, expected, "cozy-chess {label} perft({depth})");
    println!(
        "{:12} {label:10} perft({depth}) = {n:>11}  {theirs:7.3} s  {:6.1} M leaves/s",
        "cozy-chess",
        n as f64 / theirs / 1e6
    );
    let ours = time("chess", label, Some(fen), depth, expected);
    println!(
        "chess {label}: ours / cozy-chess = {:.2} (target <= 3)",
        ours / theirs
    );
}

/// The queue check (`rules::answers`) in Shadow Chess after some plies of
/// a seeded random game, where a position has hundreds to thousands of
/// actions: a queued move legal after the opponent's first answer, and one
/// legal after none (every answer tried).
fn queue_check() {
    let game = rules::game("shadowchess").expect("game");
    let mut p = game.start(&[]).expect("start");
    let mut seed: u64 = 7;
    let mut plies = 0;
    while plies < 24 || p.is_decision() {
        let actions = p.legal_actions();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let pick = actions[(seed >> 33) as usize % actions.len()].clone();
        p.play(&pick).expect("legal");
        plies += 1;
    }
    let opponent_actions = p.legal_actions().len();
    let queuer = p.to_act().opponent();
    // A move of the queuer's after the first answer that leads to their turn.
    let legal = p
        .legal_actions()
        .into_iter()
        .find_map(|answer| {
            let mut after = p.clone_box();
            after.play(&answer).expect("legal");
            (after.to_act() == queuer && !after.is_decision())
                .then(|| after.legal_actions().pop())
                .flatten()
        })
        .expect("an answer leads to the queuer's turn");
    for (label, text) in [("legal", legal.as_str()), ("refused", "Ke1e1/-")] {
        let t = cpu_seconds();
        let result = rules::answers::legal_after_some_answer(p.as_ref(), queuer, text);
        let s = cpu_seconds() - t;
        assert_eq!(result.is_ok(), label == "legal", "{label}: {result:?}");
        println!(
            "shadowchess  queue check, {label:7} ({opponent_actions} answers)  {:7.3} ms",
            s * 1e3
        );
    }
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench")
        || std::env::var_os("PBMCHESS_BENCH_QUICK").is_some();
    if quick {
        versus_cozy("start", rules::chess::START_FEN, 5, 4_865_609);
        versus_cozy("kiwipete", KIWIPETE, 4, 4_085_603);
    } else {
        versus_cozy("start", rules::chess::START_FEN, 6, 119_060_324);
        versus_cozy("kiwipete", KIWIPETE, 5, 193_690_690);
    }
    queue_check();
    // Every game's perft(4) from the start (target: well under 10 s each).
    time("doublechess", "start", None, 4, 3_050_767);
    time("doppelganger", "start", None, 4, 209_736);
    time("zelig", "start", None, 4, 199_113);
    time("mchess", "start", None, 4, 212_651);
    time("zelig2", "start", None, 4, 123_933);
    if quick {
        time("shadowchess", "start", None, 3, 24_155_904);
        time("temporal", "start", None, 3, 1_061_984);
    } else {
        time("temporal", "start", None, 4, 347_495_864);
        time("shadowchess", "start", None, 4, 7_398_104_320);
        time("doppelganger", "start", None, 5, 5_655_848);
        time("zelig", "start", None, 5, 4_877_958);
        time("mchess", "start", None, 5, 5_431_209);
    }
}
