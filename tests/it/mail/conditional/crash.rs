//! A tree answer is applied exactly once across kills of the mail pass.

use super::*;

#[test]
fn a_tree_answer_is_applied_once_across_a_kill_in_its_mails_pass() {
    const KILLER: &str = "KILLS-THE-SERVER";
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    private_to(&cond(&mut s, "chess", "alice", &RUY_LOPEZ.join(" ")), ALICE);
    // Bob's e5 and a mail that kills the server behind it, read in one
    // group: the first pass dies with e5 and its answer uncommitted.
    s.send(BOB, "chess move 101 bob bpw e5", "");
    s.send("mallory@evil.test", "help", KILLER);
    let armed = |s: &Install| {
        common::pbmchess()
            .arg("--config")
            .arg(&s.config)
            .arg("poll")
            .env("RUST_LOG", "error")
            .env("PBMCHESS_TEST_ABORT_ON", KILLER)
            .output()
            .expect("the binary runs")
    };
    let mut died = 0;
    for _ in 0..6 {
        if !armed(&s).status.success() {
            died += 1;
        }
    }
    assert!(died >= 1, "the killer mail killed the server");
    assert_eq!(plies(&s, "chess"), 3, "e5 and Nf3 (Cond), once each");
    let record = shown(&s, "chess");
    assert_eq!(record.matches("(Cond)").count(), 1, "{record}");
    let mails: Vec<SentMail> = s.take_outbox();
    let to_bob: Vec<_> = to(&mails, BOB);
    assert!(!to_bob.is_empty());
    for m in &to_bob {
        assert!(m.body.contains("Nf3 (Cond)"), "{}", m.body);
    }
    // The tree went on from where it was: Nc6 is answered by Bb5.
    let mails = play(&mut s, "chess", "bob", "Nc6");
    assert!(one(&mails, BOB).body.contains("Bb5 (Cond)"));
    assert_eq!(plies(&s, "chess"), 5);
    assert_eq!(shown(&s, "chess").matches("(Cond)").count(), 2);
}

/// Twelve boards (each pair of four players twice), each with White's
/// `e4` and White's tree of the Ruy Lopez mailed in but not yet read;
/// the board numbers with their Black players.
fn boards_with_trees(s: &mut Install) -> Vec<(u32, &'static str)> {
    let users = ["ann", "ben", "cat", "dan"];
    for u in users {
        s.ok(&[
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
    for (w, b) in pairs.iter().chain(pairs.iter()) {
        let out = s.ok(&["admin", "challenge", "chess", users[*w], users[*b]]);
        let number: u32 = out
            .split(|c: char| !c.is_ascii_digit())
            .find_map(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("a board number in {out:?}"));
        let white = users[*w];
        let from = format!("{white}@players.test");
        s.send(&from, &format!("chess move {number} {white} pw e4"), "");
        let line = RUY_LOPEZ.join(" ");
        s.send(&from, &format!("chess if {number} {white} pw {line}"), "");
        boards.push((number, users[*b]));
    }
    boards
}

/// Black's five moves on every board mailed in, interleaved, each
/// board's in order, with a `show` now and then; their Message-IDs.
fn blacks_backlog(s: &mut Install, boards: &[(u32, &str)], rng: &mut fastrand::Rng) -> Vec<String> {
    let mut next = vec![0usize; boards.len()];
    let mut inbound = Vec::new();
    while next.iter().any(|&n| n < 5) {
        let i = rng.usize(..boards.len());
        let (number, black) = boards[i];
        if next[i] < 5 && rng.u64(..4) != 0 {
            let mv = RUY_LOPEZ[2 * next[i]];
            next[i] += 1;
            let from = format!("{black}@players.test");
            inbound.push(s.send(&from, &format!("chess move {number} {black} pw {mv}"), ""));
        } else {
            let subject = format!("chess show {number}");
            inbound.push(s.send("watcher@players.test", &subject, ""));
        }
    }
    inbound
}

/// How many mails the server has recorded as processed.
fn processed(s: &Install) -> usize {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let n: i64 = conn
        .query_row("SELECT count(*) FROM processed_mail", [], |r| r.get(0))
        .unwrap();
    n as usize
}

/// `serve` started and killed with SIGKILL at seeded moments, soon after
/// each start, while mail of the `total` is left; then run until every
/// mail is processed. Returns how many kills came with work left undone.
fn work_with_kills(s: &Install, rng: &mut fastrand::Rng, total: usize) -> usize {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let serve = || {
        common::pbmchess()
            .arg("--config")
            .arg(&s.config)
            .arg("serve")
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut interrupted = 0;
    for _ in 0..30 {
        if processed(s) >= total {
            break;
        }
        let mut child = serve();
        // Soon after the start: on an idle machine the whole backlog takes
        // well under a second, and a kill after it proves nothing.
        std::thread::sleep(Duration::from_millis(5 + rng.u64(..120)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        if processed(s) < total {
            interrupted += 1;
        }
    }
    let mut child = serve();
    let deadline = Instant::now() + Duration::from_secs(120);
    while processed(s) < total {
        assert!(Instant::now() < deadline, "the backlog was not worked off");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_millis(500));
    child.kill().unwrap();
    child.wait().unwrap();
    interrupted
}

/// As `mail::crash` does for moves: trees entered and the
/// opponents' moves they answer, on twelve boards, worked by `serve`
/// killed with SIGKILL at seeded random moments and restarted: every
/// board ends with each answer played exactly once, and the database is
/// whole.
#[test]
fn tree_answers_survive_sigkill_applied_exactly_once() {
    // Seeded, so the kills repeat.
    let mut rng = fastrand::Rng::with_seed(0xc0d1_7105_a11e);
    // The kills are the test's, not the mails': the quarantine limit is
    // above their number, so that a slow machine (where a mail dies in
    // every one of the 30 runs) quarantines nothing.
    let mut s = Install::with_config(
        "\n[poll]\ninterval_seconds = 1\n[limits]\ncommands_per_hour = 100000\nfailures_before_quarantine = 1000\n[retry]\nlease_seconds = 1\n",
    );
    let boards = boards_with_trees(&mut s);
    let inbound = blacks_backlog(&mut s, &boards, &mut rng);
    let total = inbound.len() + 2 * boards.len();
    let interrupted = work_with_kills(&s, &mut rng, total);
    assert!(interrupted > 0, "the server was killed with work left");

    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let mut expected = vec!["e4".to_string()];
    expected.extend(RUY_LOPEZ.iter().map(|m| m.to_string()));
    for (number, _) in &boards {
        let moves: Vec<String> = conn
            .prepare("SELECT notation FROM plies WHERE game = 'chess' AND board = ?1 ORDER BY ply")
            .unwrap()
            .query_map([number], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(moves, expected, "board {number}");
        let record = s.ok(&["admin", "show", "chess", &number.to_string()]);
        let marks = record.matches("(Cond)").count();
        assert_eq!(marks, 5, "board {number}: {record}");
    }
    assert_eq!(processed(&s), total);
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}
