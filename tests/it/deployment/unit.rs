//! The shipped systemd unit: its hardening, the sendmail drop-in,
//! `systemd-analyze verify`, and where it keeps state and config.

use super::*;

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
