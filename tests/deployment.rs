//! The deployment as written: the systemd unit, the deployment config,
//! the exit codes an MTA reads from `process`, `init`'s warnings, and the
//! log formats.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{raw_mail, Install, SERVER_ADDRESS};

const UNIT: &str = include_str!("../contrib/pbmchess.service");

#[test]
fn the_systemd_unit_passes_systemd_analyze_verify() {
    let verify = Command::new("systemd-analyze").arg("--version").output();
    if !verify.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: systemd-analyze is not installed, the unit file was not verified");
        return;
    }
    // The unit as installed, but with the binary where this build put it
    // (verify checks that ExecStart= is executable).
    let dir = tempfile::tempdir().unwrap();
    let unit = dir.path().join("pbmchess.service");
    let binary = env!("CARGO_BIN_EXE_pbmchess");
    std::fs::write(&unit, UNIT.replace("/usr/local/bin/pbmchess", binary)).unwrap();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&unit)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "systemd-analyze verify failed: {stderr}"
    );
    assert!(
        !stderr.contains("pbmchess.service"),
        "systemd-analyze warns about the unit: {stderr}"
    );
}

#[test]
fn the_unit_keeps_its_state_and_config_where_the_deployment_config_says() {
    for line in [
        "User=pbmchess",
        "StateDirectory=pbmchess",
        "ConfigurationDirectory=pbmchess",
        "ProtectSystem=strict",
        "Environment=PBMCHESS_CONFIG=/etc/pbmchess/pbmchess.toml",
        "ExecStart=/usr/local/bin/pbmchess serve",
    ] {
        assert!(UNIT.lines().any(|l| l == line), "the unit lacks {line}");
    }
    let text = include_str!("../contrib/pbmchess.toml");
    let config = pbmchess::config::Config::parse(text).unwrap();
    let state = Path::new("/var/lib/pbmchess");
    assert!(config.database.path.starts_with(state));
    match &config.inbox {
        pbmchess::mail::InboxConfig::Maildir { path } => assert!(path.starts_with(state)),
        other => panic!("the deployment config reads a Maildir, not {other:?}"),
    }
    assert_ne!(config.server.address, pbmchess::config::EXAMPLE_ADDRESS);
}

fn process_file(install: &Install, file: &Path) -> std::process::Output {
    install.run(&["process", file.to_str().unwrap()])
}

#[test]
fn process_exits_75_while_the_database_is_locked_then_answers_the_retry() {
    let install = Install::with_whole_config(&format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\n[database]\npath = \"var/db.sqlite\"\n\
         busy_timeout_seconds = 0\n[inbox]\npath = \"var/inbox\"\n"
    ));
    let mail = install.path("help.eml");
    std::fs::write(
        &mail,
        raw_mail("a@players.test", "help", "", "h1@players.test"),
    )
    .unwrap();

    // Another process holds the write lock (as a long transaction would).
    let holder = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    holder
        .execute_batch("BEGIN IMMEDIATE; DELETE FROM outbox;")
        .unwrap();
    let out = process_file(&install, &mail);
    assert_eq!(
        out.status.code(),
        Some(75),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(install.take_outbox().is_empty(), "nothing answered");

    // The MTA delivers again once the lock is gone: answered once.
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);
    // Waiting for a lock is no fault of the mail: nothing counted.
    assert_eq!(install.ok(&["admin", "inbox", "list"]), "");
    let out = process_file(&install, &mail);
    assert_eq!(out.status.code(), Some(0));
    let sent = install.take_outbox();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].to, "a@players.test");
}

#[test]
fn process_exits_78_on_a_broken_config_and_touches_nothing() {
    let install = Install::new();
    let mail = install.path("help.eml");
    std::fs::write(
        &mail,
        raw_mail("a@players.test", "help", "", "h1@players.test"),
    )
    .unwrap();
    let broken = install.path("broken.toml");
    std::fs::write(
        &broken,
        "[server]\naddress = \"x@y\"\n[inbox]\nkind = \"pop3\"\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pbmchess"))
        .arg("--config")
        .arg(&broken)
        .args(["process", mail.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(78));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("broken.toml") && stderr.contains("line"),
        "{stderr}"
    );
    // The same broken config makes other commands exit 2, as documented.
    let out = Command::new(env!("CARGO_BIN_EXE_pbmchess"))
        .arg("--config")
        .arg(&broken)
        .arg("poll")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn init_warns_while_the_address_is_the_examples() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pbmchess.toml");
    std::fs::write(&config, "[database]\npath = \"var/db.sqlite\"\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pbmchess"))
        .arg("--config")
        .arg(&config)
        .arg("init")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: [server] address is still the example's pbmchess@localhost"),
        "{stderr}"
    );
    let install = Install::new();
    let out = install.run(&["init"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
}

/// Run `poll` on one delivered mail with these log settings; its stderr.
fn poll_log(install: &mut Install, rust_log: &str, args: &[&str]) -> String {
    install.send("a@players.test", "help", "");
    let out = Command::new(env!("CARGO_BIN_EXE_pbmchess"))
        .arg("--config")
        .arg(&install.config)
        .args(args)
        .arg("poll")
        .env("RUST_LOG", rust_log)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn logs_have_no_colour_codes_off_a_terminal_and_rust_log_filters_them() {
    let mut install = Install::new();
    let log = poll_log(&mut install, "info", &[]);
    assert!(log.contains("mail processed"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "escape codes in a log file: {log:?}"
    );
    let log = poll_log(&mut install, "warn", &[]);
    assert!(!log.contains("mail processed"), "{log}");
}

#[test]
fn logs_are_json_lines_on_request_by_flag_or_config() {
    let mut install = Install::new();
    let log = poll_log(&mut install, "info", &["--log-format", "json"]);
    let lines: Vec<&str> = log.lines().collect();
    assert!(!lines.is_empty());
    for line in &lines {
        assert!(
            line.starts_with('{') && line.ends_with('}') && line.contains("\"level\":"),
            "not a JSON line: {line}"
        );
    }
    assert!(log.contains("\"message\":\"mail processed\""), "{log}");

    let mut install = Install::with_config("[log]\nformat = \"json\"\n");
    let log = poll_log(&mut install, "info", &[]);
    assert!(log.lines().all(|l| l.starts_with('{')), "{log}");
}
