//! The binary's CLI: init, process (file and stdin), tick, serve with
//! SIGTERM, the admin commands, perft and the built-in defaults.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{raw_mail, Install};

#[test]
fn init_creates_the_database_and_mail_folders() {
    let s = Install::new();
    assert!(s.path("var/db.sqlite").exists());
    for sub in ["new", "cur", "tmp"] {
        assert!(s.path(&format!("var/inbox/{sub}")).is_dir(), "inbox {sub}");
        assert!(
            s.path(&format!("var/outbox/{sub}")).is_dir(),
            "outbox {sub}"
        );
    }
    // A second init is harmless.
    s.ok(&["init"]);
}

#[test]
fn built_in_defaults_work_without_a_config() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        common::pbmchess()
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    assert!(run(&["poll"]).status.success());
    assert!(dir.path().join("var/pbmchess.sqlite").exists());
    assert!(dir.path().join("var/inbox/new").is_dir());
    assert!(dir.path().join("var/outbox").is_dir());
}

#[test]
fn process_reads_a_file_or_stdin_and_sends_at_once() {
    let s = Install::new();
    let file = s.path("one.eml");
    std::fs::write(
        &file,
        raw_mail("a@players.test", "signup alice pw1", "", "p1@t"),
    )
    .unwrap();
    s.ok(&["process", file.to_str().unwrap()]);
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 1);
    assert!(mails[0].subject.contains("Welcome"));

    let mut child = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("process")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(raw_mail("a@players.test", "help chess", "", "p2@t").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].subject, "Help for Chess");
    // The log names the outcome but never the password.
    s.ok(&["process", file.to_str().unwrap()]);
    assert!(
        s.take_outbox().is_empty(),
        "the same mail again is a duplicate"
    );
}

#[test]
fn admin_users_and_challenge() {
    let s = Install::new();
    s.ok(&["admin", "user", "add", "alice", "pw", "a@x.test"]);
    s.ok(&["admin", "user", "add", "bob", "pw", "b@x.test", "b2@x.test"]);
    let out = s.run(&["admin", "user", "add", "alice", "pw", "a@x.test"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("taken"));
    let list = s.ok(&["admin", "user", "list"]);
    assert!(list.contains("alice"), "{list}");
    assert!(list.contains("b@x.test, b2@x.test"), "{list}");
    s.ok(&["admin", "user", "passwd", "alice", "newpw"]);

    assert_eq!(
        s.ok(&["admin", "challenge", "chess", "alice", "bob"])
            .trim(),
        "101"
    );
    assert_eq!(
        s.ok(&[
            "admin",
            "challenge",
            "chess",
            "bob",
            "alice",
            "--forfeittime=3"
        ])
        .trim(),
        "102"
    );
    let out = s.run(&["admin", "challenge", "chess", "alice", "nobody"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nobody"));
    let out = s.run(&["admin", "challenge", "chess", "alice", "bob", "-weird"]);
    assert_eq!(out.status.code(), Some(1));

    let small = s.ok(&["admin", "show", "chess", "102", "--size", "small"]);
    assert!(small.starts_with("It is bob's turn."), "{small}");
    assert!(small.contains("| r n b q k b n r |"), "{small}");
    let out = s.run(&["admin", "show", "chess", "999"]);
    assert_eq!(out.status.code(), Some(1));

    s.ok(&["admin", "user", "remove", "bob"]);
    assert!(s.ok(&["admin", "user", "list"]).contains("signed off"));
    let out = s.run(&["admin", "challenge", "chess", "alice", "bob"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn tick_with_a_moved_clock_reminds_and_forfeits() {
    let mut s = Install::new();
    s.ok(&["admin", "user", "add", "alice", "pw", "a@x.test"]);
    s.ok(&["admin", "user", "add", "bob", "pw", "b@x.test"]);
    s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    s.send("a@x.test", "chess move 101 alice pw e4", "");
    s.send("b@x.test", "chess move 101 bob pw e5", "");
    s.poll();
    s.take_outbox();
    let later = (chrono::Utc::now() + chrono::Duration::days(8)).to_rfc3339();
    assert!(s.ok(&["tick", "--now", &later]).contains("1 timer mails"));
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "a@x.test");
    assert!(mails[0].body.contains("Reminder"));
    assert!(
        mails[0].subject.starts_with("Nag: Chess Board 101 "),
        "{}",
        mails[0].subject
    );
    let much_later = (chrono::Utc::now() + chrono::Duration::days(30)).to_rfc3339();
    s.ok(&["tick", "--now", &much_later]);
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 2);
    assert!(
        mails[0]
            .body
            .starts_with("Game won by bob (forfeit: alice did not act for 30 days)."),
        "{}",
        mails[0].body
    );
    let out = s.run(&["tick", "--now", "tomorrow"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("RFC 3339"));
}

#[test]
fn serve_answers_mail_and_stops_cleanly_on_sigterm() {
    let mut s = Install::with_config("\n[poll]\ninterval_seconds = 1\n");
    let mut child = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    s.send("a@players.test", "help", "");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut got = Vec::new();
    while got.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        got = s.take_outbox();
    }
    assert_eq!(got.len(), 1, "serve answered the mail");
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(exit.success(), "{exit}");
}

#[test]
fn perft_counts_without_a_config() {
    let run = |args: &[&str]| common::pbmchess().args(args).output().unwrap();
    let out = run(&["perft", "chess", "3"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "8902");
    let out = run(&[
        "perft",
        "chess",
        "2",
        "--position",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2039");
    let out = run(&["perft", "chess", "1", "--position", "not a fen"]);
    assert_eq!(out.status.code(), Some(1));
    let out = run(&["perft", "nochess", "1"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn perft_divide_prints_each_first_move_and_the_total() {
    let out = common::pbmchess()
        .args(["perft", "chess", "3", "--divide"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 21, "{text}");
    assert!(lines.contains(&"e2e4: 600"), "{text}");
    assert!(lines.contains(&"g1f3: 440"), "{text}");
    let sum: u64 = lines[..20]
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 8902);
    assert_eq!(lines[20], "total: 8902");
    let out = common::pbmchess()
        .args(["perft", "doublechess", "0", "--divide"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn admin_output_into_a_closed_pipe_exits_quietly() {
    let s = Install::new();
    for i in 0..50 {
        s.ok(&[
            "admin",
            "user",
            "add",
            &format!("user{i}"),
            "pw",
            &format!("u{i}@x.test"),
        ]);
    }
    // The reader is gone before the command writes (`... | head -0`).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .args(["admin", "user", "list"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn admin_challenge_sends_the_board_mails_at_once() {
    let s = Install::new();
    s.ok(&["admin", "user", "add", "alice", "pw", "a@x.test"]);
    s.ok(&["admin", "user", "add", "bob", "pw", "b@x.test"]);
    s.take_outbox();
    s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    // No pass ran: the mails went out with the command, as `process` does.
    let mails = s.take_outbox();
    assert!(common::to(&mails, "a@x.test").len() == 1, "{mails:#?}");
    assert!(common::to(&mails, "b@x.test").len() == 1, "{mails:#?}");
    // Nobody's mail caused them: RFC 3834's auto-generated.
    for m in &mails {
        assert_eq!(
            m.header("Auto-Submitted").as_deref(),
            Some("auto-generated")
        );
    }
    // An answer to a mail is auto-replied.
    let mut s = s;
    s.send("a@x.test", "help", "");
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 1);
    assert_eq!(
        mails[0].header("Auto-Submitted").as_deref(),
        Some("auto-replied")
    );
}
