//! What the server benchmarks share: quick mode, seeded games, users and
//! boards made straight in the store, move mails as files.

#![allow(dead_code)]

use std::path::Path;
use std::time::Instant;

use argon2::password_hash::PasswordHasher;
use pbmchess::store;

/// Whether to run the small version: under `cargo test --all-targets` (no
/// `--bench` argument), or with `PBMCHESS_BENCH_QUICK=1`.
pub fn quick() -> bool {
    !std::env::args().any(|a| a == "--bench")
        || std::env::var_os("PBMCHESS_BENCH_QUICK").is_some_and(|v| v != "0")
}

/// The benches' seeded generator.
pub use fastrand::Rng;

/// The password every bench player has.
pub const PASSWORD: &str = "pw";

/// An argon2id hash of [`PASSWORD`] with the server's parameters (the
/// crate's defaults), made once and given to every bench user.
pub fn password_hash() -> String {
    argon2::Argon2::default()
        .hash_password(PASSWORD.as_bytes())
        .expect("hash")
        .to_string()
}

/// `n` users `p0`, `p1` ... with addresses `p0@bench.test` ...
pub fn add_users(conn: &rusqlite::Connection, n: usize) {
    let hash = password_hash();
    let now = chrono::Utc::now();
    for i in 0..n {
        store::insert_user(
            conn,
            &format!("p{i}"),
            &hash,
            &[format!("p{i}@bench.test")],
            now,
        )
        .expect("user");
    }
}

/// A chess board between two users, at the start; its number.
pub fn add_board(conn: &rusqlite::Connection, white: &str, black: &str) -> u32 {
    store::insert_board(
        conn,
        &store::NewBoard {
            game: "chess",
            options: &[],
            start_position: rules::chess::START_FEN,
            players: &[white.to_string(), black.to_string()],
            nag_days: Some(7),
            forfeit_days: Some(14),
            total_days: None,
            now: chrono::Utc::now(),
        },
    )
    .expect("board")
}

/// A seeded chess game of `plies` plies that does not end before its last
/// ply has been played: the notation of each. Moves that would end the
/// game are avoided; a seed that runs into an end anyway is replaced.
pub fn game(seed: u64, plies: usize) -> Vec<String> {
    let chess = rules::game("chess").expect("chess");
    let mut seed = seed;
    'again: loop {
        let mut rng = Rng::with_seed(seed);
        let mut position = chess.start(&[]).expect("start");
        let mut moves = Vec::new();
        while moves.len() < plies {
            let actions = position.legal_actions();
            let start = rng.usize(..actions.len().max(1));
            let mut chosen = None;
            for k in 0..actions.len() {
                let a = &actions[(start + k) % actions.len()];
                let mut next = position.clone();
                next.play(a).expect("legal");
                if !next.outcome().is_over() {
                    chosen = Some((a.clone(), next));
                    break;
                }
            }
            let Some((a, next)) = chosen else {
                seed += 1_000_003;
                continue 'again;
            };
            moves.push(a);
            position = next;
        }
        return moves;
    }
}

/// A move mail as delivered, with Message-ID `id`.
pub fn move_mail(id: &str, from: &str, subject: &str) -> String {
    format!(
        "From: {from}\r\nTo: pbm@bench.test\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nMy move.\r\n"
    )
}

/// Deliver `raw` into the Maildir `inbox` as its `seq`-th mail (the file
/// name's leading number gives the delivery order).
pub fn deliver(inbox: &Path, seq: usize, raw: &str) {
    let name = format!("{}.M{seq}P1.bench", 1_700_000_000 + seq);
    let tmp = inbox.join("tmp").join(&name);
    std::fs::write(&tmp, raw).expect("write mail");
    std::fs::rename(&tmp, inbox.join("new").join(&name)).expect("deliver mail");
}

/// The disk's durable commit rate at `dir`: one small transaction per
/// commit on a fresh SQLite database in WAL mode with `synchronous=FULL`
/// (as the server's), commits per second over `n` commits.
pub fn durable_commit_rate(dir: &Path, n: usize) -> f64 {
    let path = dir.join("commit-rate.sqlite");
    let _ = std::fs::remove_file(&path);
    let conn = rusqlite::Connection::open(&path).expect("open");
    conn.pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    conn.pragma_update(None, "synchronous", "FULL")
        .expect("full");
    conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        .expect("table");
    let t = Instant::now();
    for i in 0..n {
        conn.execute("INSERT INTO t (v) VALUES (?1)", [format!("row {i}")])
            .expect("insert");
    }
    let rate = n as f64 / t.elapsed().as_secs_f64();
    drop(conn);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(dir.join(format!("commit-rate.sqlite{suffix}")));
    }
    rate
}
