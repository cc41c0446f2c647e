//! A move's cost, flat: `cargo bench --bench flatness`.
//!
//! Whole move mails through the server (parse, password check from the
//! cache, load, judge, store, render, queue the replies) on an on-disk
//! database with durable commits (WAL, `synchronous=FULL`), timed one by
//! one; the median per mail is compared
//! - for a move at ply 4 and at ply 200 (target: ratio at most 1.5), and
//! - with 100 boards in the database and with 100,000 (same target).
//!
//! Quick mode (`PBMCHESS_BENCH_QUICK=1`, or without `--bench`): fewer
//! boards, and 10,000 in place of 100,000.

mod support;

use std::time::Instant;

use pbmchess::clock::SystemClock;
use pbmchess::config::Config;
use pbmchess::mail::Envelope;
use pbmchess::server::templates::Templates;
use pbmchess::server::{MailOutcome, Server};
use rusqlite::Connection;
use support::{add_board, add_users, game, quick, PASSWORD};

struct Bench<'a> {
    server: Server<'a>,
    conn: Connection,
    seq: u64,
}

impl Bench<'_> {
    /// One move mail on `board` (from 101) by `player`; its time in seconds.
    fn mail(&mut self, board: u32, player: usize, mv: &str) -> f64 {
        self.seq += 1;
        let env = Envelope {
            message_id: format!("f{}@bench.test", self.seq),
            sender: Some(format!("p{player}@bench.test")),
            subject: format!("chess move {board} p{player} {PASSWORD} {mv}"),
            body: String::new(),
            comment: String::new(),
            never_answer: None,
            replied_to: Vec::new(),
            auth_results: Vec::new(),
        };
        let t = Instant::now();
        let outcome = self
            .server
            .handle_mail(&mut self.conn, &env, 300)
            .expect("mail");
        let s = t.elapsed().as_secs_f64();
        assert_eq!(
            outcome,
            MailOutcome::Answered {
                commands: 1,
                refused: 0
            },
            "board {board}: {mv}"
        );
        s
    }

    fn durable(&self, on: bool) {
        self.conn
            .pragma_update(None, "synchronous", if on { "FULL" } else { "OFF" })
            .expect("pragma");
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

#[allow(clippy::needless_range_loop)] // plies index every game at once
fn main() {
    let (boards, filler) = if quick() { (6, 10_000) } else { (30, 100_000) };
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::default();
    config.limits.commands_per_hour = u32::MAX;
    let templates = Templates::load(None).expect("templates");
    let clock = SystemClock;
    let mut b = Bench {
        server: Server::new(&config, &clock, &templates),
        conn: pbmchess::store::open(&dir.path().join("flat.sqlite")).expect("db"),
        seq: 0,
    };
    // Two sets of boards between their own players: short games and long ones.
    add_users(&b.conn, 4 * boards);
    let short: Vec<u32> = (0..boards)
        .map(|i| add_board(&b.conn, &format!("p{}", 2 * i), &format!("p{}", 2 * i + 1)))
        .collect();
    let long: Vec<u32> = (boards..2 * boards)
        .map(|i| add_board(&b.conn, &format!("p{}", 2 * i), &format!("p{}", 2 * i + 1)))
        .collect();
    let games: Vec<Vec<String>> = (0..2 * boards).map(|i| game(i as u64 + 7, 210)).collect();
    let seat_player = |i: usize, ply: usize| 2 * i + ply % 2;

    // Set up without waiting for the disk: the long games to ply 199,
    // the short ones to ply 3.
    b.durable(false);
    for ply in 0..199 {
        for (k, &board) in long.iter().enumerate() {
            let i = boards + k;
            b.mail(board, seat_player(i, ply), &games[i][ply]);
        }
    }
    for ply in 0..3 {
        for (i, &board) in short.iter().enumerate() {
            b.mail(board, seat_player(i, ply), &games[i][ply]);
        }
    }
    b.durable(true);

    // Ply 4 against ply 200.
    let at4: Vec<f64> = short
        .iter()
        .enumerate()
        .map(|(i, &board)| b.mail(board, seat_player(i, 3), &games[i][3]))
        .collect();
    let at200: Vec<f64> = long
        .iter()
        .enumerate()
        .map(|(k, &board)| {
            let i = boards + k;
            b.mail(board, seat_player(i, 199), &games[i][199])
        })
        .collect();
    let (m4, m200) = (median(at4), median(at200));
    println!(
        "move at ply 4: {:.2} ms, at ply 200: {:.2} ms (median of {boards} mails each)",
        m4 * 1e3,
        m200 * 1e3
    );
    println!("ratio ply 200 / ply 4 = {:.2} (target <= 1.5)", m200 / m4);
    // The same without waiting for the disk (the server's own work): the
    // next ply of each board, ply 5 against ply 201.
    b.durable(false);
    let cpu5: Vec<f64> = short
        .iter()
        .enumerate()
        .map(|(i, &board)| b.mail(board, seat_player(i, 4), &games[i][4]))
        .collect();
    let cpu201: Vec<f64> = long
        .iter()
        .enumerate()
        .map(|(k, &board)| {
            let i = boards + k;
            b.mail(board, seat_player(i, 200), &games[i][200])
        })
        .collect();
    b.durable(true);
    let (c5, c201) = (median(cpu5), median(cpu201));
    println!(
        "  without waiting for the disk: ply 5 {:.2} ms, ply 201 {:.2} ms, ratio {:.2}",
        c5 * 1e3,
        c201 * 1e3,
        c201 / c5
    );

    // Few boards against many: the short games' next plies, before and
    // after the database fills up with other boards and their plies.
    let total = |conn: &Connection| -> i64 {
        conn.query_row("SELECT count(*) FROM boards", [], |r| r.get(0))
            .expect("count")
    };
    add_filler(&b, 100 - total(&b.conn) as usize);
    let few_boards = total(&b.conn);
    let before: Vec<f64> = short
        .iter()
        .enumerate()
        .map(|(i, &board)| b.mail(board, seat_player(i, 5), &games[i][5]))
        .collect();
    let t = Instant::now();
    add_filler(&b, filler);
    let many_boards = total(&b.conn);
    println!(
        "({filler} boards with {} plies each added in {:.1} s)",
        OPENING.len(),
        t.elapsed().as_secs_f64()
    );
    let after: Vec<f64> = short
        .iter()
        .enumerate()
        .map(|(i, &board)| b.mail(board, seat_player(i, 6), &games[i][6]))
        .collect();
    let (mb, ma) = (median(before), median(after));
    println!(
        "move with {few_boards} boards: {:.2} ms, with {many_boards} boards: {:.2} ms (median of {boards} mails each)",
        mb * 1e3,
        ma * 1e3
    );
    println!(
        "ratio {many_boards} boards / {few_boards} boards = {:.2} (target <= 1.5)",
        ma / mb
    );
}

/// The plies each filler board has.
const OPENING: [&str; 6] = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"];

/// `n` more boards with a few plies each, between the bench's players, in
/// one transaction; then the WAL is written back into the database, so
/// that the timed mails do not pay for it.
fn add_filler(b: &Bench<'_>, n: usize) {
    let players: i64 = b
        .conn
        .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
        .expect("users");
    let players = players as usize;
    b.durable(false);
    b.conn.execute_batch("BEGIN").expect("begin");
    for k in 0..n {
        let number = add_board(
            &b.conn,
            &format!("p{}", k % players),
            &format!("p{}", (k + 1) % players),
        );
        for (i, mv) in OPENING.iter().enumerate() {
            pbmchess::store::append_ply(
                &b.conn,
                pbmchess::store::BoardId::new("chess", number),
                &pbmchess::store::Ply {
                    ply: i as u32 + 1,
                    seat: rules::Color::from_index(i % 2).unwrap(),
                    notation: mv.to_string(),
                    events: vec![],
                    comment: String::new(),
                    auto: false,
                    conditional: false,
                    played_at: chrono::Utc::now(),
                },
                None,
            )
            .expect("ply");
        }
    }
    b.conn.execute_batch("COMMIT").expect("commit");
    b.conn
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .expect("checkpoint");
    b.durable(true);
}
