//! The exit codes an MTA reads from `process` (75 to retry, 78 for a broken
//! config) with no config secret in any message, the MTA recipes in the
//! docs, and `init`'s warning.

use super::*;

#[test]
fn process_exits_75_when_the_config_is_missing_or_unreadable() {
    let install = Install::new();
    let mail = install.path("help.eml");
    std::fs::write(
        &mail,
        raw_mail("a@players.test", "help", "", "h1@players.test"),
    )
    .unwrap();
    // Missing (a mount not up yet), and unreadable (here: a folder, as a
    // permission change cannot be shown to root).
    let folder = install.path("conf.d");
    std::fs::create_dir(&folder).unwrap();
    for config in [install.path("missing.toml"), folder] {
        let out = common::pbmchess()
            .arg("--config")
            .arg(&config)
            .args(["process", mail.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(75), "{}", config.display());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot read the config file"), "{stderr}");
    }
}

#[test]
fn no_config_secret_reaches_the_exit_78_message_or_any_error() {
    let install = Install::new();
    let mail = install.path("help.eml");
    std::fs::write(
        &mail,
        raw_mail("a@players.test", "help", "", "h1@players.test"),
    )
    .unwrap();
    let smtp = |rest: &str| format!("[outbox]\nkind = \"smtp\"\n{rest}");
    let broken = [
        // A typo on the line after the password.
        smtp(&format!(
            "host = \"h\"\nusername = \"u\"\npassword = \"{PLANTED}\"\nport = 58x7\n"
        )),
        // The password's own line broken.
        smtp(&format!(
            "host = \"h\"\nusername = \"u\"\npassword = \"{PLANTED}\ntls = \"none\"\n"
        )),
        // The password where a number belongs.
        smtp(&format!("host = \"h\"\nport = \"{PLANTED}\"\n")),
        // The password given twice.
        smtp(&format!(
            "password = \"{PLANTED}\"\npassword = \"{PLANTED}\"\n"
        )),
    ];
    for text in broken {
        let config = install.path("broken.toml");
        std::fs::write(
            &config,
            format!("[server]\naddress = \"pbm@games.test\"\n{text}"),
        )
        .unwrap();
        let out = common::pbmchess()
            .arg("--config")
            .arg(&config)
            .args(["process", mail.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(78), "{text}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("line "), "{stderr}");
        assert!(
            !stderr.contains(PLANTED),
            "the secret reached the bounce: {stderr}"
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains(PLANTED));
    }
    // A config that parses but whose SMTP url is unusable: the error
    // comes from the mail library, and still without the password.
    let config = install.path("url.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\naddress = \"pbm@games.test\"\n[database]\npath = \"var/db.sqlite\"\n\
             [outbox]\nkind = \"smtp\"\nurl = \"smtp+bogus://user:{PLANTED}@\"\n"
        ),
    )
    .unwrap();
    for args in [
        vec!["process", mail.to_str().unwrap()],
        vec!["poll"],
        vec!["check"],
        vec!["init"],
    ] {
        let out = common::pbmchess()
            .arg("--config")
            .arg(&config)
            .args(&args)
            .env("RUST_LOG", "debug")
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !all.contains(PLANTED),
            "pbmchess {args:?} leaked the secret: {all}"
        );
    }
}

#[test]
fn the_mta_recipes_in_the_docs_keep_mail_on_a_failure() {
    // procmail ignores a pipe's exit status without `w`: a 75 would lose
    // the mail. (procmail is not installed here; the recipe is read.)
    let procmail = DEPLOYMENT_DOC
        .split("```")
        .find(|block| block.contains("| /usr/local/bin/pbmchess") && block.contains(":0"))
        .expect("the procmail recipe");
    let flags = procmail
        .lines()
        .find(|l| l.trim_start().starts_with(":0"))
        .unwrap();
    assert!(
        flags
            .split_whitespace()
            .nth(1)
            .is_some_and(|f| f.contains('w')),
        "the procmail recipe must wait for the exit status: {flags}"
    );
    // ... and with `w` a failing pipe falls through: the fallback must
    // make procmail exit 75 rather than file the mail in the mailbox.
    assert!(procmail.contains("EXITCODE=75"), "{procmail}");
    // The .forward pipe and the master.cf transport run `process`, whose
    // 75 both Postfix's local(8) and pipe(8) read as "defer".
    assert!(DEPLOYMENT_DOC
        .contains("\"|/usr/local/bin/pbmchess --config /etc/pbmchess/pbmchess.toml process\""));
    assert!(DEPLOYMENT_DOC.contains("flags=Rq user=pbmchess argv=/usr/local/bin/pbmchess"));
    // The exit status table says what the binary does.
    assert!(DEPLOYMENT_DOC.contains("| 75 `EX_TEMPFAIL` |"));
    assert!(DEPLOYMENT_DOC.contains("missing or cannot be read"));
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
    let out = common::pbmchess()
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
    let out = common::pbmchess()
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
    let out = common::pbmchess()
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
