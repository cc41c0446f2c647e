//! `pbmchess admin tournament …` through the real binary:
//! create, list, join, the start when full with every board mailed, show,
//! withdraw, and the refusals.

use crate::common;

use common::Install;

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

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn admin_opens_fills_shows_and_withdraws_from_a_round_robin() {
    let install = Install::new();
    with_users(&install, &["alice", "bob", "carol"]);
    install.take_outbox();
    let said = install.ok(&[
        "admin",
        "tournament",
        "create",
        "spring",
        "chess",
        "--kind",
        "roundrobin",
        "--players",
        "3",
        "--nagtime=5",
        "--forfeittime=20",
    ]);
    assert!(said.contains("chess tournament spring is open"), "{said}");
    let listed = install.ok(&["admin", "tournament", "list"]);
    assert!(listed.contains("spring"), "{listed}");
    assert!(listed.contains("open (0 of 3 joined)"), "{listed}");

    for u in ["alice", "bob"] {
        let said = install.ok(&["admin", "tournament", "join", "spring", u]);
        assert!(said.contains(&format!("{u} has joined")), "{said}");
    }
    assert!(install.take_outbox().is_empty());
    let said = install.ok(&["admin", "tournament", "join", "spring", "carol"]);
    assert!(said.contains("It is full and has started"), "{said}");
    // 3 players: 3 boards, each mailed to both its players at once.
    let sent = install.take_outbox();
    let boards: Vec<_> = sent
        .iter()
        .filter(|m| m.subject.starts_with("New Chess Board"))
        .collect();
    assert_eq!(boards.len(), 6, "{sent:#?}");
    for m in &boards {
        assert!(m.body.contains(", tournament spring, round "), "{}", m.body);
    }

    let shown = install.ok(&["admin", "tournament", "show", "spring"]);
    assert!(shown.contains("Running, its 3 rounds at once."), "{shown}");
    assert!(shown.contains("Boards in play:"), "{shown}");

    let said = install.ok(&["admin", "tournament", "withdraw", "spring", "carol"]);
    assert!(said.contains("carol has withdrawn"), "{said}");
    let sent = install.take_outbox();
    assert!(
        sent.iter()
            .any(|m| m.body.contains("carol left the tournament")),
        "{sent:#?}"
    );
}

#[test]
fn admin_tournament_refusals_say_what_is_wrong() {
    let install = Install::new();
    with_users(&install, &["alice"]);
    for (args, says) in [
        (
            vec!["--kind", "roundrobin", "--players", "40"],
            "round robin tournament has 3 to 12 players",
        ),
        (
            vec!["--kind", "swiss", "--players", "8"],
            "needs its number of rounds",
        ),
        (
            vec!["--kind", "swiss", "--players", "8", "--rounds", "30"],
            "has 1 to 7 rounds",
        ),
    ] {
        let mut all = vec!["admin", "tournament", "create", "spring", "chess"];
        all.extend(args);
        let out = install.run(&all);
        assert_eq!(out.status.code(), Some(1), "{all:?}");
        assert!(stderr(&out).contains(says), "{all:?}: {}", stderr(&out));
    }
    let out = install.run(&["admin", "tournament", "show", "nosuch"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no tournament called nosuch"),
        "{}",
        stderr(&out)
    );
    let out = install.run(&["admin", "tournament", "join", "nosuch", "alice"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn admin_tournament_create_takes_game_options_after_the_flags() {
    let install = Install::new();
    let said = install.ok(&[
        "admin",
        "tournament",
        "create",
        "autumn",
        "doppelganger",
        "--kind",
        "swiss",
        "--players",
        "6",
        "--rounds",
        "3",
        "-lenient",
    ]);
    assert!(said.contains("Swiss, 3 rounds, 6 players"), "{said}");
    let out = install.run(&[
        "admin",
        "tournament",
        "create",
        "winter",
        "doppelganger",
        "--kind",
        "swiss",
        "--players",
        "6",
        "--rounds",
        "3",
        "-nosuchoption",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}
