//! `pbmchess admin …` through the real binary against a temp database,
//! and the quarantine of mail that fails inside the server.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::process::Output;

use common::{only_one, Install, SERVER_ADDRESS};

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A config with Maildir inbox and outbox and `extra` sections (no
/// `[server]`, `[database]`, `[inbox]` or `[outbox]` in them).
fn config(server_extra: &str, extra: &str) -> String {
    format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\nname = \"Test PBM\"\n{server_extra}\n\
         [database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\
         [outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n{extra}"
    )
}

fn with_users(install: &Install, users: &[&str]) {
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
}

fn files_in(install: &Install, rel: &str) -> usize {
    std::fs::read_dir(install.path(rel))
        .map(|rd| rd.count())
        .unwrap_or(0)
}

#[test]
fn a_mail_failing_every_time_is_quarantined_after_n_passes_and_replayed_once_fixed() {
    // The fault: a template override that fails when rendered (the help
    // page), as a broken deployment would. Other mail is unaffected.
    let mut install = Install::with_whole_config(&config(
        "",
        "[templates]\ndir = \"overrides\"\n[limits]\nfailures_before_quarantine = 3\n",
    ));
    let broken = install.path("overrides/help/general.txt");
    std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
    std::fs::write(&broken, "{{ no_such_function() }}\n").unwrap();

    install.send("carol@players.test", "help", "");
    install.send("alice@players.test", "signup alice secret", "");
    for pass in 1..=3 {
        let out = install.run(&["poll"]);
        assert_eq!(code(&out), Some(2), "pass {pass}: a mail failed");
        if pass < 3 {
            assert_eq!(files_in(&install, "var/inbox/new"), 1, "pass {pass}");
            let listed = install.ok(&["admin", "inbox", "list"]);
            assert!(listed.contains(&format!("tries {pass}")), "{listed}");
            assert!(listed.contains("failing since"), "{listed}");
        }
    }
    // The signup went through on the first pass; the help mail is now
    // out of the inbox, in the quarantine folder.
    let sent = install.take_outbox();
    assert_eq!(sent.len(), 1, "{sent:#?}");
    only_one(&sent, "alice@players.test");
    assert_eq!(files_in(&install, "var/inbox/new"), 0);
    assert_eq!(files_in(&install, "var/inbox/.Quarantine/cur"), 1);
    install.poll(); // the next pass has nothing to fail on

    let listed = install.ok(&["admin", "inbox", "list"]);
    assert!(listed.contains("quarantined"), "{listed}");
    assert!(listed.contains("carol@players.test  help"), "{listed}");
    assert!(
        listed.contains("no_such_function"),
        "the error is recorded: {listed}"
    );
    let id = listed.split_whitespace().next().unwrap().to_string();
    let raw = install.ok(&["admin", "inbox", "show", &id]);
    assert!(raw.contains("Subject: help"), "{raw}");

    // A replay while the fault is still there fails and keeps the mail.
    let out = install.run(&["admin", "inbox", "retry", &id]);
    assert_eq!(code(&out), Some(2));
    assert!(stderr(&out).contains("still fails"), "{}", stderr(&out));
    assert!(install.ok(&["admin", "inbox", "list"]).contains("tries 4"));

    // Fixed: the replay answers the mail once and empties the quarantine.
    std::fs::remove_file(&broken).unwrap();
    let said = install.ok(&["admin", "inbox", "retry", &id]);
    assert!(said.contains("processed"), "{said}");
    let sent = install.take_outbox();
    let help = only_one(&sent, "carol@players.test");
    assert!(help.body.contains("help"), "{}", help.body);
    assert_eq!(install.ok(&["admin", "inbox", "list"]), "");
    let out = install.run(&["admin", "inbox", "retry", &id]);
    assert_eq!(code(&out), Some(1), "nothing left to replay");
}

#[test]
fn process_quarantines_after_n_deliveries_and_exits_0_then() {
    let install = Install::with_whole_config(&config(
        "",
        "[templates]\ndir = \"overrides\"\n[limits]\nfailures_before_quarantine = 2\n",
    ));
    let broken = install.path("overrides/help/general.txt");
    std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
    std::fs::write(&broken, "{{ no_such_function() }}\n").unwrap();
    let mail = install.path("help.eml");
    std::fs::write(
        &mail,
        common::raw_mail("carol@players.test", "help", "", "h1@players.test"),
    )
    .unwrap();
    let file = mail.to_str().unwrap();
    assert_eq!(code(&install.run(&["process", file])), Some(75));
    assert_eq!(code(&install.run(&["process", file])), Some(0));
    assert!(install
        .ok(&["admin", "inbox", "list"])
        .contains("quarantined"));
}

/// A sendmail stand-in that exits with the status written in `status`.
fn sendmail_stub(install: &Install, status: u8) -> String {
    let script = install.path("sendmail");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat >/dev/null\nexit $(cat {})\n",
            install.path("status").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(install.path("status"), status.to_string()).unwrap();
    script.display().to_string()
}

#[test]
fn admin_outbox_lists_retries_and_drops_unsent_mail() {
    let mut install = Install::with_whole_config(&config("", "").replace(
        "[outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n",
        "[outbox]\nkind = \"sendmail\"\ncommand = \"./sendmail\"\n",
    ));
    let script = sendmail_stub(&install, 67); // EX_NOUSER: given up at once
    assert_eq!(script, install.path("sendmail").display().to_string());
    install.send("a@players.test", "help", "");
    install.poll();
    let listed = install.ok(&["admin", "outbox", "list"]);
    assert!(listed.contains("failed"), "{listed}");
    assert!(listed.contains("a@players.test"), "{listed}");
    assert!(
        listed.contains("last error:") && listed.contains("67"),
        "{listed}"
    );
    let id = listed.split_whitespace().next().unwrap().to_string();

    // Fixed (the address exists after all): retried and sent by the next pass.
    std::fs::write(install.path("status"), "0").unwrap();
    assert!(install
        .ok(&["admin", "outbox", "retry", &id])
        .contains("due now"));
    install.poll();
    assert_eq!(install.ok(&["admin", "outbox", "list"]), "");
    assert_eq!(
        code(&install.run(&["admin", "outbox", "retry", &id])),
        Some(1)
    );

    // A mail that keeps failing temporarily can be dropped.
    std::fs::write(install.path("status"), "75").unwrap();
    install.send("b@players.test", "help", "");
    install.poll();
    let listed = install.ok(&["admin", "outbox", "list"]);
    assert!(
        listed.contains("due ") && listed.contains("b@players.test"),
        "{listed}"
    );
    let id = listed.split_whitespace().next().unwrap().to_string();
    install.ok(&["admin", "outbox", "drop", &id]);
    assert_eq!(install.ok(&["admin", "outbox", "list"]), "");
    assert_eq!(
        code(&install.run(&["admin", "outbox", "drop", &id])),
        Some(1)
    );
}

#[test]
fn admin_board_list_adjudicate_and_delete() {
    let install = Install::new();
    with_users(&install, &["alice", "bob", "carol"]);
    assert_eq!(
        install
            .ok(&["admin", "challenge", "chess", "alice", "bob"])
            .trim(),
        "101"
    );
    assert_eq!(
        install
            .ok(&["admin", "challenge", "chess", "alice", "carol"])
            .trim(),
        "102"
    );
    install.poll();
    install.take_outbox();
    let listed = install.ok(&["admin", "board", "list"]);
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(
        listed.contains("alice-bob") && listed.contains("active"),
        "{listed}"
    );

    // Adjudicated: rated like any result, the final board to both players.
    let out = install.run(&["admin", "board", "adjudicate", "chess", "101", "dave"]);
    assert_eq!(code(&out), Some(1));
    assert!(stderr(&out).contains("alice, bob"), "{}", stderr(&out));
    install.ok(&["admin", "board", "adjudicate", "chess", "101", "alice"]);
    let sent = install.take_outbox();
    for player in ["alice", "bob"] {
        let mail = only_one(&sent, &format!("{player}@players.test"));
        assert_eq!(mail.subject, "Chess Board 101 finished");
        assert!(
            mail.body.contains("Game won by alice (adjudication)."),
            "{}",
            mail.body
        );
        assert!(
            mail.body
                .contains("alice's rating went up from 1600 to 1616"),
            "{}",
            mail.body
        );
    }
    let out = install.run(&["admin", "board", "adjudicate", "chess", "101", "draw"]);
    assert_eq!(code(&out), Some(1), "finished already");
    assert!(install.ok(&["admin", "board", "list"]).lines().count() == 1);

    // Deleted: gone, and its players are told.
    install.ok(&["admin", "board", "delete", "chess", "102"]);
    let sent = install.take_outbox();
    for player in ["alice", "carol"] {
        let mail = only_one(&sent, &format!("{player}@players.test"));
        assert!(
            mail.body.contains("deleted Chess board 102"),
            "{}",
            mail.body
        );
    }
    let all = install.ok(&["admin", "board", "list", "chess", "--all"]);
    assert_eq!(all.lines().count(), 1, "{all}");
    assert!(all.contains("won by alice (adjudication)"), "{all}");
    assert_eq!(
        code(&install.run(&["admin", "board", "delete", "chess", "102"])),
        Some(1)
    );
}

#[test]
fn admin_broadcast_from_the_cli_and_by_mail_from_an_admin_user() {
    let mut install = Install::with_whole_config(&config("admins = [\"richard\"]", ""));
    with_users(&install, &["richard", "alice", "bob"]);
    install.ok(&["admin", "user", "remove", "bob"]);
    let text = install.path("notice.txt");
    std::fs::write(&text, "The server moves on Sunday.\n").unwrap();
    let said = install.ok(&[
        "admin",
        "broadcast",
        "--subject",
        "maintenance",
        text.to_str().unwrap(),
    ]);
    assert!(said.contains("2 users"), "{said}");
    let sent = install.take_outbox();
    assert_eq!(sent.len(), 2, "signed-off bob gets nothing: {sent:#?}");
    let mail = only_one(&sent, "alice@players.test");
    assert_eq!(mail.subject, "Test PBM: maintenance");
    assert!(mail.body.contains("The server moves on Sunday."));

    install.send(
        "richard@players.test",
        "broadcast richard pw",
        "Tournament next week!",
    );
    install.send("alice@players.test", "broadcast alice pw", "Buy my book!");
    install.poll();
    let sent = install.take_outbox();
    let to_alice: Vec<_> = common::to(&sent, "alice@players.test");
    assert_eq!(to_alice.len(), 2, "{sent:#?}");
    assert!(to_alice
        .iter()
        .any(|m| m.body.contains("Tournament next week!")));
    let refusal = to_alice.iter().find(|m| m.subject == "Error").unwrap();
    assert!(
        refusal.body.contains("alice is not an admin"),
        "{}",
        refusal.body
    );
    assert!(
        refusal.body.contains("broadcast alice *****"),
        "{}",
        refusal.body
    );
    // Only alice's own error mail quotes her text back; nobody else gets it.
    assert!(!sent
        .iter()
        .any(|m| m.to != "alice@players.test" && m.body.contains("Buy my book!")));
    let richard = only_one(&sent, "richard@players.test");
    assert!(richard.body.contains("went to 2 users"), "{}", richard.body);
}

#[test]
fn admin_user_vacation_goes_beyond_the_allowance_and_holds_the_forfeit() {
    let install = Install::new();
    with_users(&install, &["alice", "bob"]);
    install.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    install.poll();
    install.take_outbox();
    let said = install.ok(&["admin", "user", "vacation", "alice", "40"]);
    assert!(said.contains("until"), "{said}");
    let sent = install.take_outbox();
    assert!(only_one(&sent, "alice@players.test")
        .body
        .contains("the server admin put you on vacation"));

    // 25 days on, past the 21 forfeit days: alice is away, nothing happens.
    let later = (chrono::Utc::now() + chrono::Duration::days(25)).to_rfc3339();
    install.ok(&["tick", "--now", &later]);
    assert!(install.ok(&["admin", "board", "list"]).contains("active"));

    // Back early: the same day 25 forfeits her.
    install.ok(&["admin", "user", "vacation", "alice", "off"]);
    install.ok(&["tick", "--now", &later]);
    assert_eq!(install.ok(&["admin", "board", "list"]), "", "forfeited");
    let out = install.run(&["admin", "user", "vacation", "alice", "off"]);
    assert_eq!(code(&out), Some(1));
    assert!(stderr(&out).contains("not on vacation"));
    assert_eq!(
        code(&install.run(&["admin", "user", "vacation", "alice", "soon"])),
        Some(1)
    );
    assert_eq!(
        code(&install.run(&["admin", "user", "vacation", "zed", "3"])),
        Some(1)
    );
}

#[test]
fn admin_stats_show_users_boards_mail_and_queues() {
    let mut install = Install::new();
    with_users(&install, &["alice", "bob"]);
    install.ok(&["admin", "user", "remove", "bob"]);
    install.ok(&["admin", "user", "add", "carol", "pw", "carol@players.test"]);
    install.ok(&["admin", "challenge", "chess", "alice", "carol"]);
    install.ok(&["admin", "challenge", "doublechess", "alice", "carol"]);
    install.ok(&["admin", "board", "adjudicate", "doublechess", "101", "draw"]);
    install.send("alice@players.test", "help", "");
    install.send("alice@players.test", "chess games", "");
    install.poll();
    let stats = install.ok(&["admin", "stats"]);
    assert!(stats.contains("users: 2 active, 1 signed off"), "{stats}");
    assert!(
        stats
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["chess", "1", "active", "0", "finished"]),
        "{stats}"
    );
    assert!(
        stats
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == ["doublechess", "0", "active", "1", "finished"]),
        "{stats}"
    );
    assert!(
        stats.contains("queues: outbox 0 waiting, 0 given up; inbox 0 failing, 0 quarantined"),
        "{stats}"
    );
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let day: Vec<_> = stats
        .lines()
        .find(|l| l.trim_start().starts_with(&today))
        .expect("a line for today")
        .split_whitespace()
        .collect();
    // Two mails in; out: 2 challenge mails x2 boards, 2 final boards, 2 answers.
    assert_eq!(day, [today.as_str(), "2", "8"], "{stats}");
}

#[test]
fn admin_backup_copies_the_committed_database_while_another_writer_holds_it() {
    let install = Install::new();
    with_users(&install, &["alice"]);
    let writer = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    writer
        .execute_batch(
            "BEGIN IMMEDIATE;
             INSERT INTO users (userid, password_hash, created_at)
             VALUES ('uncommitted', 'h', '2026-01-01T00:00:00Z');",
        )
        .unwrap();
    let backup = install.path("backup.sqlite");
    let said = install.ok(&["admin", "backup", backup.to_str().unwrap()]);
    assert!(said.contains("copied"), "{said}");
    writer.execute_batch("COMMIT").unwrap();
    let copy = rusqlite::Connection::open(&backup).unwrap();
    let users: Vec<String> = copy
        .prepare("SELECT userid FROM users ORDER BY userid")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(users, ["alice"]);
    let out = install.run(&["admin", "backup", backup.to_str().unwrap()]);
    assert_eq!(code(&out), Some(1), "never overwrites");
    assert!(stderr(&out).contains("exists already"));
}
