//! A backlog worked by `pbmchess serve` (Maildir in, Maildir out) that is
//! killed with SIGKILL at seeded random moments and restarted: every mail
//! ends applied once (each board has exactly the plies its mails ask for),
//! answered at least once (a reply to every inbound Message-ID; the same
//! reply sent twice only with the same Message-ID), and the database
//! passes `PRAGMA integrity_check`.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::Install;

/// `plies` legal moves of a chess game chosen by `rng`, none ending it.
fn random_game(rng: &mut fastrand::Rng, plies: usize) -> Vec<String> {
    let chess = rules::game("chess").unwrap();
    let mut position = chess.start(&[]).unwrap();
    let mut moves = Vec::new();
    'plies: while moves.len() < plies {
        let mut legal = position.legal_actions();
        while !legal.is_empty() {
            let pick = legal.remove(rng.usize(..legal.len()));
            let mut next = position.clone_box();
            next.play(&pick).unwrap();
            if !next.outcome().is_over() && !next.legal_actions().is_empty() {
                position = next;
                moves.push(pick);
                continue 'plies;
            }
        }
        break;
    }
    moves
}

#[test]
fn a_backlog_survives_sigkill_with_every_mail_applied_once_and_answered() {
    // Seeded, so the kills and games repeat.
    let mut rng = fastrand::Rng::with_seed(0x5eed_cafe_f00d);
    // A mail the server dies on, running alone, counts a failure (a
    // poison mail is quarantined after `failures_before_quarantine`
    // deaths); the kills here are the test's, not the mails', and may hit
    // the same mail three times in a row (after a death the
    // mails of the group run one by one, the first of them right at each
    // start), so the limit is above the number of kills.
    let mut install = Install::with_config(
        "\n[poll]\ninterval_seconds = 1\n[limits]\ncommands_per_hour = 100000\nfailures_before_quarantine = 1000\n[retry]\nlease_seconds = 1\n",
    );
    let users = ["ann", "ben", "cat", "dan"];
    for u in users {
        install.ok(&[
            "admin",
            "user",
            "add",
            u,
            "pw",
            &format!("{u}@players.test"),
        ]);
    }
    let pairs = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)];
    let mut boards = Vec::new();
    for (w, b) in pairs {
        let out = install.ok(&["admin", "challenge", "chess", users[w], users[b]]);
        let number: u32 = out
            .split(|c: char| !c.is_ascii_digit())
            .find_map(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("a board number in {out:?}"));
        boards.push((number, [users[w], users[b]], random_game(&mut rng, 45)));
    }
    install.poll();
    install.take_outbox();
    // The backlog: the boards' moves interleaved, each board's in order,
    // with a `show` now and then; 300 mails.
    let mut inbound = Vec::new();
    let mut next_ply = vec![0usize; boards.len()];
    while inbound.len() < 300 {
        let i = rng.usize(..boards.len());
        let (number, players, moves) = &boards[i];
        let id = if next_ply[i] < moves.len() && rng.u64(..10) != 0 {
            let player = players[next_ply[i] % 2];
            let mv = &moves[next_ply[i]];
            next_ply[i] += 1;
            install.send(
                &format!("{player}@players.test"),
                &format!("chess move {number} {player} pw {mv}"),
                "",
            )
        } else {
            install.send("watcher@players.test", &format!("chess show {number}"), "")
        };
        inbound.push(id);
    }
    // Work it, killing the server at random moments.
    let serve = || {
        common::pbmchess()
            .arg("--config")
            .arg(&install.config)
            .arg("serve")
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    for _ in 0..8 {
        let mut child = serve();
        std::thread::sleep(Duration::from_millis(100 + rng.u64(..700)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
    }
    let mut child = serve();
    let answered = |install: &Install| -> BTreeMap<String, Vec<(String, String)>> {
        let mut by_cause: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for raw in install.all_outbox_raw() {
            let mail = common::parse_sent(&raw);
            let cause = mail.header("In-Reply-To").unwrap_or_default();
            let cause = cause.trim_matches(|c| c == '<' || c == '>').to_string();
            let id = mail.header("Message-ID").unwrap_or_default();
            by_cause.entry(cause).or_default().push((mail.to, id));
        }
        by_cause
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let done = std::fs::read_dir(install.path("var/inbox/new"))
            .unwrap()
            .count()
            == 0
            && {
                let by_cause = answered(&install);
                inbound.iter().all(|id| by_cause.contains_key(id))
            };
        if done {
            break;
        }
        if Instant::now() > deadline {
            let by_cause = answered(&install);
            let missing: Vec<_> = inbound
                .iter()
                .filter(|id| !by_cause.contains_key(*id))
                .collect();
            panic!("the backlog was not worked off; unanswered: {missing:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    // Let the pass in hand finish its sending, then stop.
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();

    let by_cause = answered(&install);
    for id in &inbound {
        let replies = &by_cause[id];
        // The same reply sent twice keeps its Message-ID: per recipient,
        // one Message-ID.
        let mut ids: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (to, message_id) in replies {
            ids.entry(to).or_default().insert(message_id);
        }
        for (to, set) in ids {
            assert_eq!(set.len(), 1, "{id}: two different replies to {to}: {set:?}");
        }
    }
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    for (i, (number, _, _)) in boards.iter().enumerate() {
        let plies: i64 = conn
            .query_row(
                "SELECT count(*) FROM plies WHERE game = 'chess' AND board = ?1",
                [number],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(plies as usize, next_ply[i], "board {number}");
    }
    let processed: i64 = conn
        .query_row("SELECT count(*) FROM processed_mail", [], |r| r.get(0))
        .unwrap();
    assert_eq!(processed as usize, inbound.len());
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}
