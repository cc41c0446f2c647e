//! What one mail may cost, through the real binary: a mail
//! that kills the server is counted before it can run again and
//! quarantined, so the mails behind it are answered; ignored mail counts
//! against its sender; the computer's thinking for one mail is bounded and
//! the boards beyond it are played by the timers; previews replay once.
//! (The CPU and memory each hostile mail costs are measured in
//! `benches/hostile.rs`, not here.)

use crate::common;

use std::process::Output;

use common::{only_one, raw_mail, Install};

/// The text whose presence in a mail makes a debug build abort (the test
/// hook of `daemon::take_mail`), as if the mail had killed the process.
const KILLER: &str = "KILLS-THE-SERVER";

/// Run the binary with the abort hook armed.
fn run_armed(install: &Install, args: &[&str]) -> Output {
    common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .args(args)
        .env("RUST_LOG", "error")
        .env("PBMCHESS_TEST_ABORT_ON", KILLER)
        .output()
        .expect("the binary runs")
}

/// Files in a folder of the inbox Maildir.
fn files(install: &Install, folder: &str) -> usize {
    std::fs::read_dir(install.path(&format!("var/inbox/{folder}")))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn a_mail_that_kills_the_server_is_quarantined_after_three_deaths_and_the_mail_behind_it_is_answered(
) {
    let mut install = Install::new();
    install.send(
        "mallory@evil.test",
        "help",
        &format!("{KILLER} (say, a quote bomb under a memory limit)"),
    );
    install.send("bob@players.test", "help chess", "");
    // Pass 1 runs both as a group and dies on the first: which mail did
    // it is not known, so nothing is counted. Passes 2 to 4 run it alone
    // (the mail behind it waits) and count a death each.
    for pass in 1..=4 {
        let out = run_armed(&install, &["poll"]);
        assert!(!out.status.success(), "pass {pass} dies on the mail");
        assert_eq!(files(&install, "new"), 2, "pass {pass}");
        assert!(install.take_outbox().is_empty(), "pass {pass}");
    }
    // Pass 5 finds it counted three times (failures_before_quarantine):
    // quarantined without running, and the mail behind it is answered.
    let out = run_armed(&install, &["poll"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent = install.take_outbox();
    assert_eq!(sent.len(), 1, "{sent:#?}");
    let help = only_one(&sent, "bob@players.test");
    assert!(help.body.to_lowercase().contains("chess"), "{}", help.body);
    let listed = install.ok(&["admin", "inbox", "list"]);
    assert!(listed.contains("mallory@evil.test"), "{listed}");
    assert!(listed.contains("stopped"), "{listed}");
    assert_eq!(files(&install, "new"), 0);
    assert_eq!(files(&install, ".Quarantine/cur"), 1);
    // The next pass has nothing left to do.
    let out = run_armed(&install, &["poll"]);
    assert!(out.status.success());
}

#[test]
fn a_mail_that_kills_process_is_counted_per_delivery_and_quarantined_on_the_fourth() {
    let install = Install::new();
    let file = install.path("killer.eml");
    std::fs::write(
        &file,
        raw_mail("mallory@evil.test", "help", KILLER, "killer@evil.test"),
    )
    .unwrap();
    let file = file.to_str().unwrap();
    for delivery in 1..=3 {
        let out = run_armed(&install, &["process", file]);
        assert!(!out.status.success(), "delivery {delivery} dies");
    }
    // Three deaths counted: the MTA's fourth delivery is taken into
    // quarantine (exit 0, so the MTA stops retrying) and not run.
    let out = run_armed(&install, &["process", file]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(install.take_outbox().is_empty());
    let listed = install.ok(&["admin", "inbox", "list"]);
    assert!(listed.contains("quarantined"), "{listed}");
    assert!(listed.contains("tries 3"), "{listed}");
    assert!(listed.contains("mallory@evil.test"), "{listed}");
}

#[test]
fn a_mail_that_ran_to_the_end_leaves_no_attempt_behind() {
    // A mail that does not kill the server is never counted, however
    // often such mails come: a hundred in one pass, then one by `process`.
    let mut install = Install::with_config("\n[limits]\ncommands_per_hour = 1000\n");
    for i in 0..100 {
        install.send(&format!("u{i}@players.test"), "help", "");
    }
    install.poll();
    assert_eq!(install.take_outbox().len(), 100);
    let file = install.path("one.eml");
    std::fs::write(&file, raw_mail("v@players.test", "help", "", "one@p")).unwrap();
    for _ in 0..4 {
        install.ok(&["process", file.to_str().unwrap()]);
    }
    assert_eq!(install.take_outbox().len(), 1);
    let listed = install.ok(&["admin", "inbox", "list"]);
    assert!(!listed.contains("stopped"), "{listed}");
    let db = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    let open: i64 = db
        .query_row("SELECT count(*) FROM inbound_attempts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(open, 0);
}

#[test]
fn ignored_mail_counts_against_its_senders_hourly_limit_without_a_reply() {
    let mut install = Install::with_config("\n[limits]\ncommands_per_hour = 2\n");
    for i in 0..2 {
        let raw = raw_mail("eve@evil.test", "help", "", &format!("bulk{i}@evil.test")).replacen(
            "MIME-Version",
            "Precedence: bulk\r\nMIME-Version",
            1,
        );
        install.deliver_raw(&raw);
    }
    install.poll();
    assert!(
        install.take_outbox().is_empty(),
        "ignored mail is not answered"
    );
    // Her two ignored mails spent her hour: a command now is over it.
    install.send("eve@evil.test", "help chess", "");
    install.poll();
    let sent = install.take_outbox();
    let refusal = only_one(&sent, "eve@evil.test");
    assert!(
        refusal.body.contains("more than 2 commands within an hour"),
        "{}",
        refusal.body
    );
}

/// Level 5 thinks its whole move time; a mail may think a little more
/// than one move: exactly one computer move fits in each mail or pass.
fn computer_install() -> Install {
    Install::with_config("\n[computer]\nmove_seconds = 0.3\nseconds_per_mail = 0.5\n")
}

fn computer_moves(mails: &[common::SentMail]) -> usize {
    mails
        .iter()
        .filter(|m| m.body.contains("computer plays "))
        .count()
}

#[test]
fn the_computer_thinks_within_one_mails_budget_and_the_timers_play_the_rest() {
    let install = computer_install();
    install.ok(&["admin", "user", "add", "alice", "apw", "alice@players.test"]);
    // By `process`, which runs no timers (a pass of `poll` would run them
    // right after the mail).
    let body = "chess challenge computer alice -level=5\n".repeat(3);
    let file = install.path("challenges.eml");
    let raw = raw_mail("alice@players.test", "multiple", &body, "c@players.test");
    std::fs::write(&file, raw).unwrap();
    install.ok(&["process", file.to_str().unwrap()]);
    let sent = install.take_outbox();
    let answer = only_one(&sent, "alice@players.test");
    assert_eq!(computer_moves(&sent), 1, "{}", answer.body);
    assert_eq!(
        answer
            .body
            .matches("computer moves shortly, in a mail of its own.")
            .count(),
        2,
        "{}",
        answer.body
    );
    assert!(answer.raw.lines().all(|l| l.len() <= 78), "{}", answer.raw);
    // Each pass of the timers has a budget of its own: one board a pass.
    for pass in 1..=2 {
        install.ok(&["tick"]);
        let sent = install.take_outbox();
        assert_eq!(sent.len(), 1, "pass {pass}: {sent:#?}");
        assert_eq!(computer_moves(&sent), 1, "pass {pass}");
        assert!(
            sent[0].subject.contains("Chess Board"),
            "{}",
            sent[0].subject
        );
    }
    // All three boards have their move: no timers mail about them now.
    install.ok(&["tick"]);
    assert!(install.take_outbox().is_empty());
}

#[test]
fn boards_against_the_computer_count_towards_the_humans_boards_per_day() {
    let mut install = Install::with_config(
        "\n[limits]\nboards_per_player_per_day = 2\n[computer]\nmove_seconds = 0.01\n",
    );
    install.ok(&["admin", "user", "add", "alice", "apw", "alice@players.test"]);
    let body = "chess challenge alice computer -level=1\n".repeat(3);
    install.send("alice@players.test", "multiple", &body);
    install.poll();
    let sent = install.take_outbox();
    let answer = only_one(&sent, "alice@players.test");
    assert!(
        answer
            .body
            .contains("alice has been put on 2 new boards in the last 24 hours"),
        "{}",
        answer.body
    );
}

#[test]
fn previews_from_one_earlier_ply_agree_and_see_a_board_changed_between_them() {
    let mut install = Install::new();
    install.ok(&["admin", "user", "add", "alice", "apw", "alice@players.test"]);
    install.ok(&["admin", "user", "add", "bob", "bpw", "bob@players.test"]);
    install.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    let moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"];
    let mut body = String::new();
    for (i, mv) in moves.iter().enumerate() {
        let who = if i % 2 == 0 { "alice apw" } else { "bob bpw" };
        body.push_str(&format!("chess move 101 {who} {mv}\n"));
    }
    install.send("alice@players.test", "multiple", &body);
    install.poll();
    install.take_outbox();
    // One preview alone, then the same among others from the same ply.
    install.send("carol@players.test", "chess preview 101#5 Nf6", "");
    install.poll();
    let single = install.take_outbox().remove(0).body;
    let single = single.trim_end();
    assert!(single.contains("Bb5"), "{single}");
    let many = "chess preview 101#5 zz\nchess preview 101#5 d6\nchess preview 101#5 Nf6\n";
    install.send("carol@players.test", "multiple", many);
    install.poll();
    let combined: String = install
        .take_outbox()
        .iter()
        .map(|m| m.body.clone())
        .collect();
    assert!(combined.contains("zz"), "{combined}");
    // The third preview, from the replay the first one kept, reads the
    // same as the one alone.
    assert!(combined.contains(single), "{combined}\n---\n{single}");
    // Two plies taken back and another fifth ply played between two
    // previews from ply 5 in one mail: the second sees the new ply 5.
    // (Two different previews: the same reading command twice in one mail
    // is answered once.)
    let changed = "chess preview 101#5 d6\n\
                   chess move 101 bob bpw undo\nchess move 101 alice apw accept\n\
                   chess move 101 alice apw undo\nchess move 101 bob bpw accept\n\
                   chess move 101 alice apw Bc4\n\
                   chess preview 101#5 Nf6\n";
    install.send("alice@players.test", "multiple", changed);
    install.poll();
    let sent = install.take_outbox();
    let answer = only_one(&sent, "alice@players.test");
    let previews: Vec<&str> = answer.body.split("Preview of").skip(1).collect();
    assert_eq!(previews.len(), 2, "{}", answer.body);
    assert!(previews[0].contains("Bb5"), "{}", previews[0]);
    assert!(previews[1].contains("Bc4"), "{}", previews[1]);
    assert!(!previews[1].contains("Bb5"), "{}", previews[1]);
}

#[test]
fn fifty_computer_challenges_sent_twice_from_one_address_are_charged_both_times() {
    let install = Install::with_config("\n[computer]\nmove_seconds = 0.05\n");
    install.ok(&["admin", "user", "add", "alice", "apw", "alice@players.test"]);
    let body = "chess challenge computer alice -level=5\n".repeat(50);
    let count = || -> i64 {
        let db = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
        db.query_row(
            "SELECT coalesce(sum(count), 0) FROM command_counts
             WHERE scope = 'address' AND key = 'alice@players.test'",
            [],
            |r| r.get(0),
        )
        .unwrap()
    };
    let mut counts = Vec::new();
    for i in 0..2 {
        let file = install.path(&format!("challenges{i}.eml"));
        let raw = raw_mail("alice@players.test", "multiple", &body, &format!("c{i}@p"));
        std::fs::write(&file, raw).unwrap();
        install.ok(&["process", file.to_str().unwrap()]);
        counts.push(count());
    }
    // Each line counts: fifty for the first mail; the second runs ten
    // more (the hour's 60) and is counted on past them.
    assert_eq!(counts[0], 50, "{counts:?}");
    assert!(counts[1] >= 100, "{counts:?}");
}
