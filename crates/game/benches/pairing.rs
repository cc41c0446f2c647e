//! What pairing a Swiss round costs: `cargo bench --bench pairing`.
//!
//! Swisses of 21 to 64 players (every third size, four result streams
//! each) are paired and played for 20 rounds, the most a Swiss has; the
//! bench prints the slowest round and asserts that none takes more than
//! a second (the pairing runs inside the transaction of the mail that
//! ended the round before).

use std::time::{Duration, Instant};

use game::tournament::{swiss_round, GameResult, Record, RoundGame};

const ROUND_LIMIT: Duration = Duration::from_secs(1);

fn main() {
    let mut slowest = (Duration::ZERO, 0, 0);
    let mut rounds = 0;
    for players in (21..=64).step_by(3) {
        for stream in 0..4u64 {
            let time = play(players, stream * 1000 + players as u64, &mut rounds);
            if time.0 > slowest.0 {
                slowest = (time.0, players, time.1);
            }
        }
    }
    let (time, players, round) = slowest;
    println!("{rounds} rounds paired; the slowest: {time:?} ({players} players, round {round})");
    assert!(time < ROUND_LIMIT, "a round took {time:?}");
}

/// Plays one Swiss of 20 rounds; returns its slowest round's time and
/// number.
fn play(players: usize, seed: u64, rounds: &mut u32) -> (Duration, u32) {
    let ratings: Vec<i32> = (0..players as i32).map(|i| 2400 - 10 * i).collect();
    let mut games: Vec<RoundGame> = Vec::new();
    let mut byes = Vec::new();
    let mut state = seed;
    let mut slowest = (Duration::ZERO, 0);
    for round in 1..=20 {
        let record = Record {
            entrants: players,
            ratings: &ratings,
            games: &games,
            byes: &byes,
            withdrawn: &[],
        };
        let start = Instant::now();
        let paired = swiss_round(&record, round).expect("a pairing");
        slowest = slowest.max((start.elapsed(), round));
        *rounds += 1;
        for p in paired.pairings {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let score = [
                GameResult::WhiteWins,
                GameResult::Draw,
                GameResult::BlackWins,
            ][(state >> 33) as usize % 3];
            games.push(RoundGame {
                round,
                white: p.white,
                black: p.black,
                result: Some(score),
            });
        }
        byes.extend(paired.bye.map(|b| (round, b)));
    }
    slowest
}
