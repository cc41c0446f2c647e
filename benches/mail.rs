//! Mail throughput: whole move mails through the server (parse, password
//! check, replay, judge, store, render the replies, queue them), on an
//! on-disk SQLite database. `cargo bench --bench mail` prints mails per
//! second; under `cargo test --all-targets` (no `--bench`) a small run
//! checks that every mail was answered.

use std::time::Instant;

use pbmchess::clock::SystemClock;
use pbmchess::config::Config;
use pbmchess::mail::Envelope;
use pbmchess::server::templates::Templates;
use pbmchess::server::{MailOutcome, Server};

/// A short game that ends in mate: both players' moves, in order.
const GAME: &[&str] = &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let boards = if full { 40 } else { 3 };
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::default();
    config.limits.commands_per_hour = u32::MAX;
    // A challenge comes from a confirmed address of one of its players:
    // the bench's accounts are confirmed at signup.
    config.accounts.confirm_addresses = false;
    let templates = Templates::load(None).expect("templates");
    let clock = SystemClock;
    let server = Server::new(&config, &clock, &templates);
    let mut conn = pbmchess::store::open(&dir.path().join("bench.sqlite")).expect("database");

    let mut seq = 0;
    let mut mail = |conn: &mut rusqlite::Connection, from: &str, subject: String| {
        seq += 1;
        let env = Envelope {
            message_id: format!("bench{seq}@x"),
            sender: Some(from.to_string()),
            subject,
            body: String::new(),
            comment: String::new(),
            never_answer: None,
            replied_to: Vec::new(),
            auth_results: Vec::new(),
        };
        let outcome = server.handle_mail(conn, &env, 200).expect("handled");
        assert_eq!(
            outcome,
            MailOutcome::Answered {
                commands: 1,
                refused: 0
            }
        );
    };

    for b in 0..boards {
        // An address of its own per account: an address gets one
        // confirmation mail a day, so a second signup from it is refused.
        mail(&mut conn, &format!("w{b}@x.org"), format!("signup w{b} pw"));
        mail(&mut conn, &format!("b{b}@x.org"), format!("signup b{b} pw"));
        mail(
            &mut conn,
            &format!("w{b}@x.org"),
            format!("chess challenge w{b} b{b}"),
        );
    }
    let t = Instant::now();
    let mut moves = 0;
    for (ply, mv) in GAME.iter().enumerate() {
        for b in 0..boards {
            let user = if ply % 2 == 0 {
                format!("w{b}")
            } else {
                format!("b{b}")
            };
            mail(
                &mut conn,
                &format!("{user}@x.org"),
                format!("chess move {} {user} pw {mv}", 101 + b),
            );
            moves += 1;
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "move mails: {moves} in {s:.2} s = {:.1} mails/s (each with an argon2id password check)",
        moves as f64 / s
    );
}
