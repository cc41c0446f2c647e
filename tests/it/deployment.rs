//! The deployment as written: the systemd unit, the deployment config,
//! the exit codes an MTA reads from `process`, `init`'s warnings, and the
//! log formats.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{raw_mail, Install, SERVER_ADDRESS};

const UNIT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/contrib/pbmchess.service"
));
const SENDMAIL_DROP_IN: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/contrib/pbmchess-sendmail.conf"
));
const DEPLOYMENT_DOC: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/deployment.md"));

/// A secret planted in configs: it must appear in no output.
const PLANTED: &str = "Pl4nted-S3cret-77ab";

/// The `[Service]` settings of a unit and its drop-ins, in order: a later
/// boolean wins, `ReadWritePaths=` add up.
fn service_settings(files: &[&str]) -> Vec<(String, String)> {
    let mut settings = Vec::new();
    for file in files {
        let mut in_service = false;
        for line in file.lines().map(str::trim) {
            if line.starts_with('[') {
                in_service = line == "[Service]";
            } else if in_service && !line.starts_with('#') {
                if let Some((k, v)) = line.split_once('=') {
                    settings.push((k.trim().to_string(), v.trim().to_string()));
                }
            }
        }
    }
    settings
}

fn last<'a>(settings: &'a [(String, String)], key: &str) -> Option<&'a str> {
    settings
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn yes(value: Option<&str>) -> bool {
    matches!(value, Some("true" | "yes" | "1" | "on" | "strict"))
}

/// Whether the service runs with the no_new_privs flag: NoNewPrivileges=
/// itself, or any setting that systemd.exec(5) says implies it for a
/// service with User= (list of systemd 252).
fn no_new_privileges(settings: &[(String, String)]) -> bool {
    const IMPLYING: [&str; 15] = [
        "DynamicUser",
        "LockPersonality",
        "MemoryDenyWriteExecute",
        "PrivateDevices",
        "ProtectClock",
        "ProtectHostname",
        "ProtectKernelLogs",
        "ProtectKernelModules",
        "ProtectKernelTunables",
        "RestrictNamespaces",
        "RestrictRealtime",
        "RestrictSUIDSGID",
        "SystemCallArchitectures",
        "SystemCallFilter",
        "SystemCallLog",
    ];
    yes(last(settings, "NoNewPrivileges"))
        || IMPLYING.iter().any(|k| yes(last(settings, k)))
        || last(settings, "RestrictAddressFamilies").is_some_and(|v| !v.is_empty())
}

#[test]
fn the_shipped_unit_is_hardened_and_the_sendmail_drop_in_lets_postdrop_write_its_queue() {
    let unit = service_settings(&[UNIT]);
    assert!(
        no_new_privileges(&unit),
        "the unit for smtp/maildir keeps no_new_privs"
    );
    assert_eq!(last(&unit, "ProtectSystem"), Some("strict"));
    let with = service_settings(&[UNIT, SENDMAIL_DROP_IN]);
    assert!(
        !no_new_privileges(&with),
        "with the drop-in a setting still implies NoNewPrivileges: {with:?}"
    );
    let writable: Vec<&str> = with
        .iter()
        .filter(|(k, _)| k == "ReadWritePaths")
        .flat_map(|(_, v)| v.split_whitespace())
        .collect();
    for path in ["-/var/spool/postfix/maildrop", "-/var/spool/exim4"] {
        assert!(
            writable.contains(&path),
            "{path} is not writable: {writable:?}"
        );
    }
    // The rest of the hardening stays.
    for key in [
        "ProtectSystem",
        "ProtectHome",
        "PrivateTmp",
        "ProtectControlGroups",
    ] {
        assert!(yes(last(&with, key)), "{key} was dropped");
    }
    // And the docs tell the admin to install it for the sendmail outbox.
    assert!(DEPLOYMENT_DOC.contains("pbmchess.service.d/sendmail.conf"));
    // check runs before serve, and its failure does not stop the start.
    assert!(UNIT
        .lines()
        .any(|l| l == "ExecStartPre=-/usr/local/bin/pbmchess check"));
}

#[test]
fn the_unit_with_the_sendmail_drop_in_passes_systemd_analyze_verify() {
    let verify = Command::new("systemd-analyze").arg("--version").output();
    if !verify.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: systemd-analyze is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let unit = dir.path().join("pbmchess.service");
    let binary = env!("CARGO_BIN_EXE_pbmchess");
    // The drop-in's [Service] lines appended to the unit's [Service].
    let drop_in: String = SENDMAIL_DROP_IN
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('['))
        .map(|l| format!("{l}\n"))
        .collect();
    let merged = UNIT
        .replace("/usr/local/bin/pbmchess", binary)
        .replace("\n[Install]", &format!("\n{drop_in}\n[Install]"));
    std::fs::write(&unit, merged).unwrap();
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
    assert!(!stderr.contains("pbmchess.service"), "{stderr}");
}

/// A fresh folder of mode 0755 that the user nobody reaches (whatever the
/// modes of the checkout's folders: a clone in a `mktemp -d` folder sits
/// under one of mode 0700), on a file system mounted without nosuid: in the
/// temp folder, else in the target folder; `None` when neither is.
#[cfg(unix)]
fn folder_for_nobody() -> Option<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    let parents = [
        std::env::temp_dir(),
        std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
    ];
    parents.iter().find_map(|parent| {
        let dir = tempfile::tempdir_in(parent).ok()?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).ok()?;
        let reached = Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "test",
                "-x",
            ])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        let nosuid = Command::new("findmnt")
            .args(["-no", "OPTIONS", "-T"])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("nosuid"));
        (reached && !nosuid).then_some(dir)
    })
}

/// The privilege boundary Postfix's postdrop crosses, for real: a setgid
/// program (a copy of touch(1), setgid to a "postdrop" group) writes a
/// queue folder of mode 0730 owned by that group, run as an unprivileged
/// user with or without the no_new_privs flag that the unit's settings
/// give. The shipped unit alone cannot write the queue; with the sendmail
/// drop-in it can. Needs root and setpriv(1); skipped otherwise.
#[cfg(unix)]
#[test]
fn a_setgid_postdrop_stand_in_writes_its_queue_only_under_the_drop_in() {
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0
        || !Command::new("setpriv")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: needs root and setpriv");
        return;
    }
    let Some(base) = folder_for_nobody() else {
        eprintln!("skipped: no folder that nobody reaches on a file system without nosuid");
        return;
    };
    let dir = base.path();
    const POSTDROP_GID: u32 = 4242;
    let queue = dir.join("maildrop");
    std::fs::create_dir(&queue).unwrap();
    std::os::unix::fs::chown(&queue, Some(0), Some(POSTDROP_GID)).unwrap();
    std::fs::set_permissions(&queue, std::fs::Permissions::from_mode(0o730)).unwrap();
    let postdrop = dir.join("postdrop");
    std::fs::copy("/usr/bin/touch", &postdrop).unwrap();
    std::os::unix::fs::chown(&postdrop, Some(0), Some(POSTDROP_GID)).unwrap();
    std::fs::set_permissions(&postdrop, std::fs::Permissions::from_mode(0o2755)).unwrap();
    for (name, files, writes) in [
        ("the shipped unit", vec![UNIT], false),
        (
            "the unit with the sendmail drop-in",
            vec![UNIT, SENDMAIL_DROP_IN],
            true,
        ),
    ] {
        let nnp = no_new_privileges(&service_settings(&files));
        let file = queue.join(name.replace(' ', "-"));
        let mut cmd = Command::new("setpriv");
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        if nnp {
            cmd.arg("--no-new-privs");
        }
        let out = cmd.arg(&postdrop).arg(&file).output().unwrap();
        assert_eq!(
            out.status.success() && file.exists(),
            writes,
            "{name}: postdrop {} its queue: {}",
            if writes { "cannot write" } else { "writes" },
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

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
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contrib/pbmchess.toml"
    ));
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

/// Run `poll` on one delivered mail with these log settings; its stderr.
fn poll_log(install: &mut Install, rust_log: &str, args: &[&str]) -> String {
    install.send("a@players.test", "help", "");
    let out = common::pbmchess()
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
    // Plain values a log system can index, not Rust debug strings.
    assert!(log.contains("\"outcome\":\"answered\""), "{log}");
    assert!(log.contains("\"commands\":1"), "{log}");
    assert!(log.contains("\"mails_read\":1"), "{log}");
    assert!(
        !log.contains("Answered {") && !log.contains("PassReport"),
        "{log}"
    );

    let mut install = Install::with_config("[log]\nformat = \"json\"\n");
    let log = poll_log(&mut install, "info", &[]);
    assert!(log.lines().all(|l| l.starts_with('{')), "{log}");
}
