//! The daemon and its storage under attack, driven through the real
//! binary: a backup carries no quarantined mail's password or token; a
//! write-ahead log without its database and a database of a newer
//! pbmchess are refused with a sentence; the documented monitoring check
//! alerts on a daemon that never ran a pass; a silent SMTP relay costs a
//! pass one timeout; a SIGHUP never stops `serve` (a config that cannot
//! be served on is refused) and is not held up by a send that hangs.

use crate::common;

use std::process::Output;

use common::{Install, SERVER_ADDRESS};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn config(extra: &str) -> String {
    format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\nname = \"Test PBM\"\n\
         [database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\
         [outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n{extra}"
    )
}

#[test]
fn a_backup_keeps_no_quarantined_mail_with_its_password() {
    // The fault: a help page that fails when rendered; the mail that
    // meets it carries a player's password in clear.
    let install = Install::with_whole_config(&config(
        "[templates]\ndir = \"overrides\"\n[limits]\nfailures_before_quarantine = 2\n",
    ));
    install.ok(&[
        "admin",
        "user",
        "add",
        "bob",
        "Sesame-77",
        "bob@players.test",
    ]);
    let broken = install.path("overrides/help/general.txt");
    std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
    std::fs::write(&broken, "{{ no_such_function() }}\n").unwrap();
    let mail = install.path("help.eml");
    std::fs::write(
        &mail,
        common::raw_mail(
            "bob@players.test",
            "help",
            "chess move 101 bob Pw-Quarantined-93 e4\n",
            "h1@players.test",
        ),
    )
    .unwrap();
    let file = mail.to_str().unwrap();
    assert_eq!(install.run(&["process", file]).status.code(), Some(75));
    assert_eq!(install.run(&["process", file]).status.code(), Some(0));
    let listed = install.ok(&["admin", "inbox", "list"]);
    assert!(listed.contains("quarantined"), "{listed}");
    let id = listed.split_whitespace().next().unwrap().to_string();
    // The live database keeps the mail to replay it.
    assert!(install
        .ok(&["admin", "inbox", "show", &id])
        .contains("Pw-Quarantined-93"));

    let backup = install.path("backup.sqlite");
    install.ok(&["admin", "backup", backup.to_str().unwrap()]);
    let bytes = std::fs::read(&backup).unwrap();
    assert!(
        !String::from_utf8_lossy(&bytes).contains("Pw-Quarantined-93"),
        "the quarantined mail's password is in the backup"
    );

    // Restored, the quarantine still lists the mail and says where it is.
    std::fs::copy(&backup, install.path("var/db.sqlite")).unwrap();
    for side in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(install.path(&format!("var/db.sqlite{side}")));
    }
    assert!(install
        .ok(&["admin", "inbox", "list"])
        .contains("quarantined"));
    let out = install.run(&["admin", "inbox", "retry", &id]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("quarantine folder"),
        "{}",
        stderr(&out)
    );
}

/// The database of `install` (users bob and carol) moved away with its
/// write-ahead log left behind, as when the database file alone is
/// deleted or moved while the log holds unwritten pages.
fn leave_the_log_without_its_database(install: &Install) -> std::path::PathBuf {
    install.ok(&[
        "admin",
        "user",
        "add",
        "bob",
        "Sesame-77",
        "bob@players.test",
    ]);
    let db = install.path("var/db.sqlite");
    let wal = install.path("var/db.sqlite-wal");
    let kept = install.path("kept-wal");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        conn.execute_batch(
            "CREATE TABLE t(x); INSERT INTO t VALUES (zeroblob(20000));
             UPDATE users SET created_at = created_at || ' '",
        )
        .unwrap();
        std::fs::copy(&wal, &kept).unwrap();
    }
    for side in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(install.path(&format!("var/db.sqlite{side}")));
    }
    std::fs::rename(&kept, &wal).unwrap();
    wal
}

#[test]
fn a_write_ahead_log_without_its_database_is_refused_not_replayed_into_a_new_one() {
    for args in [&["admin", "user", "list"][..], &["poll"], &["init"]] {
        let install = Install::with_whole_config(&config(""));
        let wal = leave_the_log_without_its_database(&install);
        let before = std::fs::read(&wal).unwrap();
        let out = install.run(args);
        assert_ne!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let said = stderr(&out);
        assert!(
            said.contains("db.sqlite-wal") && said.contains("without its database"),
            "{args:?}: {said}"
        );
        assert!(!install.path("var/db.sqlite").exists(), "{args:?}");
        assert_eq!(std::fs::read(&wal).unwrap(), before, "{args:?}");
    }
}

#[test]
fn a_database_of_a_newer_pbmchess_is_refused_with_a_sentence_and_left_alone() {
    let install = Install::with_whole_config(&config(""));
    install.ok(&[
        "admin",
        "user",
        "add",
        "bob",
        "Sesame-77",
        "bob@players.test",
    ]);
    let db = install.path("var/db.sqlite");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let known: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        conn.execute_batch(&format!(
            "CREATE TABLE from_a_newer_release(x); PRAGMA user_version = {};
             PRAGMA wal_checkpoint(TRUNCATE);",
            known + 3
        ))
        .unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    let mail = install.path("one.eml");
    std::fs::write(
        &mail,
        common::raw_mail("bob@players.test", "help", "", "n1@players.test"),
    )
    .unwrap();
    for args in [
        &["admin", "user", "list"][..],
        &["poll"],
        &["init"],
        &["process", mail.to_str().unwrap()],
    ] {
        let out = install.run(args);
        let said = stderr(&out);
        if args[0] == "process" {
            assert_eq!(out.status.code(), Some(75), "{said}");
        } else {
            assert!(!out.status.success(), "{args:?}: {said}");
        }
        assert!(
            said.contains("newer pbmchess") && said.contains("db.sqlite"),
            "{args:?}: {said}"
        );
        assert_eq!(std::fs::read(&db).unwrap(), before, "{args:?}");
    }
}

/// The monitoring check of docs/deployment.md, as written there (the jq
/// program of its `pbmchess status --json | jq -e '…'` line).
fn documented_check() -> String {
    let doc = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/deployment.md"));
    let start = doc.find("pbmchess status --json | jq -e '").unwrap();
    let program = &doc[start..];
    let program = &program[program.find('\'').unwrap() + 1..];
    program[..program.find('\'').unwrap()].to_string()
}

/// Whether the documented check passes on `install`'s status now (true:
/// no alert); `None` when jq is not installed.
fn check_passes(install: &Install) -> Option<bool> {
    use std::io::Write;
    let json = install.ok(&["status", "--json"]);
    let mut jq = std::process::Command::new("jq")
        .arg("-e")
        .arg(documented_check())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .ok()?;
    jq.stdin.take().unwrap().write_all(json.as_bytes()).unwrap();
    Some(jq.wait().unwrap().success())
}

/// Set when the last pass and the last mail were, `ago` seconds back
/// (`None`: never), as `serve` records them.
fn set_ages(install: &Install, pass_ago: Option<i64>, mail_ago: Option<i64>) {
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    for (key, ago) in [("last_pass", pass_ago), ("last_mail", mail_ago)] {
        conn.execute("DELETE FROM service_state WHERE key = ?1", [key])
            .unwrap();
        if let Some(ago) = ago {
            let at = chrono::Utc::now() - chrono::Duration::seconds(ago);
            conn.execute(
                "INSERT INTO service_state (key, value, at) VALUES (?1, '', ?2)",
                rusqlite::params![key, at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)],
            )
            .unwrap();
        }
    }
}

#[test]
fn the_documented_monitoring_check_alerts_on_a_stuck_or_never_started_server_only() {
    let install = Install::with_whole_config(&config(""));
    install.ok(&["init"]);
    let states = [
        // The daemon never ran a pass (it does not start): alert.
        ("never a pass", None, None, false),
        ("never a pass, mail handled by process", None, Some(5), true),
        ("idle an hour: passes go on", Some(5), Some(3600), true),
        ("idle, no mail ever", Some(5), None, true),
        ("busy with one long step", Some(3600), Some(5), true),
        ("stuck", Some(3600), Some(3600), false),
        ("stuck, no mail ever", Some(3600), None, false),
    ];
    for (state, pass_ago, mail_ago, healthy) in states {
        set_ages(&install, pass_ago, mail_ago);
        let Some(passes) = check_passes(&install) else {
            eprintln!("jq is not installed: the check is not run");
            return;
        };
        assert_eq!(passes, healthy, "{state}: {}", documented_check());
    }
}

/// An SMTP relay that accepts connections and never says a word: the
/// number of connections it took.
fn silent_smtp_relay() -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let taken = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = taken.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            held.push(stream);
        }
    });
    (port, taken)
}

#[test]
fn a_silent_smtp_relay_costs_a_poll_one_timeout_not_one_per_reply() {
    use std::sync::atomic::Ordering;
    let (port, taken) = silent_smtp_relay();
    let mut install = Install::with_whole_config(&format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\nname = \"Test PBM\"\n\
         [database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\
         [outbox]\nkind = \"smtp\"\nhost = \"127.0.0.1\"\nport = {port}\ntls = \"none\"\n\
         timeout_seconds = 1\n\
         [accounts]\nconfirm_addresses = false\n"
    ));
    for i in 0..6 {
        install.send(&format!("p{i}@players.example"), "help", "");
    }
    let out = install.run(&["poll"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        taken.load(Ordering::SeqCst),
        1,
        "after the relay hung the pass tried no more mail to it: {}",
        stderr(&out)
    );
    let status = install.ok(&["status", "--json"]);
    assert!(status.contains("\"outbox_waiting\":6"), "{status}");
}

/// A `serve` of the test, logging at `info` into a file; killed if the
/// test fails before it stops.
struct Serving {
    child: std::process::Child,
    log: std::path::PathBuf,
}

impl Serving {
    fn start(install: &Install) -> Serving {
        let log = install.path("serve.log");
        let child = common::pbmchess()
            .arg("--config")
            .arg(&install.config)
            .arg("serve")
            .env("RUST_LOG", "info")
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let serving = Serving { child, log };
        serving.wait_for("serve to start", |log| log.contains("serving"));
        serving
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Wait (30 s at most) until `done` holds of the log; fails the test
    /// when serve ended first or the time ran out.
    fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let log = self.log();
            if done(&log) {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "timed out waiting for {what}: {log}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    fn signal(&self, name: &str) {
        let status = std::process::Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn a_config_read_again_that_cannot_be_served_on_is_refused_and_the_old_one_kept() {
    let base = config("[poll]\ninterval_seconds = 1\n[accounts]\nconfirm_addresses = false\n");
    let mut install = Install::with_whole_config(&base);
    install.ok(&["init"]);
    std::fs::write(install.path("not-a-folder"), "a file\n").unwrap();
    std::fs::write(install.path("empty.sqlite"), "").unwrap();
    let serving = Serving::start(&install);
    // Configs that read well but cannot be served on: an inbox under a
    // file, an outbox under a file, a database file that is empty.
    let unusable = [
        base.replace("path = \"var/inbox\"", "path = \"not-a-folder/inbox\""),
        base.replace("path = \"var/outbox\"", "path = \"not-a-folder/outbox\""),
        base.replace("var/db.sqlite", "empty.sqlite"),
    ];
    for (n, broken) in unusable.iter().enumerate() {
        std::fs::write(&install.config, broken).unwrap();
        serving.signal("HUP");
        serving.wait_for("the reload refused", |log| {
            log.matches("serving on with the one in use").count() > n
        });
        // Still serving, on the config in use: a mail is answered.
        let id = install.send(&format!("p{n}@players.example"), "help", "");
        // Answered and its answer written out (the log says "mail sent"
        // once the outbox took it).
        serving.wait_for("a mail answered after the reload", |log| {
            log.contains(&id) && log.matches("mail sent").count() > n
        });
    }
    assert_eq!(install.take_outbox().len(), unusable.len());
    assert_eq!(
        std::fs::metadata(install.path("empty.sqlite"))
            .unwrap()
            .len(),
        0
    );
    std::fs::write(&install.config, &base).unwrap();
    serving.signal("TERM");
}

/// A sendmail that hangs (a minute) on every mail.
fn hanging_sendmail(install: &Install) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = install.path("hanging-sendmail");
    std::fs::write(&path, "#!/bin/sh\nexec sleep 60\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn a_sighup_takes_effect_within_seconds_while_a_send_hangs() {
    let install = Install::new();
    let program = hanging_sendmail(&install);
    let mut install = install;
    let config = format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\nname = \"Test PBM\"\n\
         [database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\
         [outbox]\nkind = \"sendmail\"\ncommand = \"{}\"\ntimeout_seconds = 40\n\
         [poll]\ninterval_seconds = 1\n[accounts]\nconfirm_addresses = false\n",
        program.display()
    );
    std::fs::write(&install.config, &config).unwrap();
    install.ok(&["init"]);
    let serving = Serving::start(&install);
    install.send("p1@players.example", "help", "");
    serving.wait_for("the reply's send to begin", |log| {
        log.contains("mail processed")
    });
    // The send of the reply hangs (for up to 40 s): a SIGHUP now is
    // taken within seconds all the same.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let asked = std::time::Instant::now();
    serving.signal("HUP");
    serving.wait_for("the config read again", |log| {
        log.contains("config read again")
    });
    assert!(
        asked.elapsed() < std::time::Duration::from_secs(10),
        "the reload waited {:?} for the hanging send: {}",
        asked.elapsed(),
        serving.log()
    );
    // The reply was not sent: it waits in the outbox, not given up.
    assert!(install
        .ok(&["status", "--json"])
        .contains("\"outbox_waiting\":1"));
    serving.signal("TERM");
}
