//! The binary apart from the machine it runs on: `--no-system-config`
//! (`PBMCHESS_NO_SYSTEM_CONFIG=1`, which every test sets through
//! [`common::pbmchess`]) keeps a config at `/etc/pbmchess/pbmchess.toml`
//! out, and the commands that handle mail log which config and database
//! they used.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{raw_mail, Install};

/// Runs the binary with `args` from `cwd` in a mount namespace of its own
/// whose `/etc` is the real one with `etc` laid over it (a read-only
/// overlay that this run alone sees), so that `etc/pbmchess/pbmchess.toml`
/// is at the system config's real path. The environment is
/// [`common::pbmchess`]'s less `unset`, with the log at `info`. `None` when
/// this machine cannot make the namespace (no unshare(1), user namespaces
/// or overlayfs refused).
fn with_system_config(etc: &Path, cwd: &Path, unset: &[&str], args: &[&str]) -> Option<Output> {
    let probe = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(r#"mount -t overlay overlay -o "lowerdir=$1:/etc" /etc && test -f /etc/pbmchess/pbmchess.toml"#)
        .arg("sh")
        .arg(etc)
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return None;
    }
    let binary = common::pbmchess();
    let mut command = Command::new("unshare");
    command
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(r#"mount -t overlay overlay -o "lowerdir=$1:/etc" /etc && shift && exec "$@""#)
        .arg("sh")
        .arg(etc)
        .arg(binary.get_program())
        .args(args)
        .current_dir(cwd)
        .env("RUST_LOG", "info");
    for (name, value) in binary.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    for name in unset {
        command.env_remove(name);
    }
    Some(command.output().unwrap())
}

#[test]
fn no_system_config_ignores_a_config_at_the_system_path() {
    let base = tempfile::tempdir().unwrap();
    let system_var = base.path().join("system-var");
    let etc = base.path().join("etc");
    std::fs::create_dir_all(etc.join("pbmchess")).unwrap();
    let var = system_var.display();
    std::fs::write(
        etc.join("pbmchess/pbmchess.toml"),
        format!(
            "[database]\npath = \"{var}/db.sqlite\"\n\
             [inbox]\nkind = \"maildir\"\npath = \"{var}/inbox\"\n\
             [outbox]\nkind = \"maildir\"\npath = \"{var}/outbox\"\n"
        ),
    )
    .unwrap();
    for (how, unset, args) in [
        ("PBMCHESS_NO_SYSTEM_CONFIG=1", vec![], vec!["poll"]),
        (
            "--no-system-config",
            vec!["PBMCHESS_NO_SYSTEM_CONFIG"],
            vec!["--no-system-config", "poll"],
        ),
    ] {
        let cwd = tempfile::tempdir().unwrap();
        let Some(out) = with_system_config(&etc, cwd.path(), &unset, &args) else {
            common::servers::skip(
                "no_system_config_ignores_a_config_at_the_system_path",
                "cannot lay a config over /etc (unshare --user --mount, overlayfs)",
            );
            return;
        };
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{how}: {log}");
        assert!(
            log.contains("config none (built-in defaults"),
            "{how}: {log}"
        );
        assert!(cwd.path().join("var/pbmchess.sqlite").exists(), "{how}");
        assert!(!system_var.exists(), "{how}: the system config was used");
    }
    // Without the switch the same run reads the config laid at the system
    // path: what the switch kept out was there to be read.
    let cwd = tempfile::tempdir().unwrap();
    let out = with_system_config(&etc, cwd.path(), &["PBMCHESS_NO_SYSTEM_CONFIG"], &["poll"])
        .expect("the namespace was made above");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("config /etc/pbmchess/pbmchess.toml, database"),
        "{log}"
    );
    assert!(system_var.join("db.sqlite").exists());
    assert!(!cwd.path().join("var").exists());
}

#[test]
fn process_logs_which_config_and_database_it_used() {
    let s = Install::new();
    let mut child = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("process")
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(raw_mail("a@players.test", "help", "", "in-use@t").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let in_use = format!(
        "config {}, database {}",
        s.config.display(),
        s.path("var/db.sqlite").display()
    );
    assert!(log.contains(&in_use), "no {in_use:?} in {log}");
    assert_eq!(s.take_outbox().len(), 1, "the mail was answered");
}
