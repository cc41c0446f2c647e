//! What the server keeps on disk, driven through the real binary: a
//! database file that is empty or not pbmchess's is refused (only `init`
//! makes a database), `check` runs SQLite's `integrity_check`, `admin
//! backup` writes a whole file or none and scrubs live secrets from the
//! copy, the Maildir outbox writes each mail once, processed mail is
//! pruned by `[retention]`, and `check --probe` proves the inbox path.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::{Install, SERVER_ADDRESS};

mod backup;
mod database;
mod probe;
mod retention;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The database file of an [`Install`], its `-wal` and `-shm` removed.
fn db_path(install: &Install) -> PathBuf {
    let db = install.path("var/db.sqlite");
    for side in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{side}", db.display()));
    }
    db
}

/// `pbmchess serve`, killed if it still runs after a minute (it must
/// refuse at once): its output.
fn serve_briefly(install: &Install) -> Output {
    let mut child = common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .arg("serve")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    child.wait_with_output().unwrap()
}

/// The commands that run on the database, each refused on the file at
/// hand with a sentence naming `pbmchess init`, the file unchanged.
fn assert_every_command_refuses(install: &Install, db: &Path, said: &str) {
    let before = std::fs::read(db).unwrap();
    let mail = install.path("one.eml");
    std::fs::write(
        &mail,
        common::raw_mail("alice@players.test", "help", "", "p1@players.test"),
    )
    .unwrap();
    let outs = [
        ("serve", serve_briefly(install)),
        ("poll", install.run(&["poll"])),
        ("process", install.run(&["process", mail.to_str().unwrap()])),
        ("tick", install.run(&["tick"])),
        ("status", install.run(&["status"])),
        ("admin user list", install.run(&["admin", "user", "list"])),
    ];
    for (command, out) in outs {
        let e = stderr(&out);
        assert!(!out.status.success(), "{command} took it: {e}");
        assert!(
            e.contains("pbmchess init") && e.contains(said),
            "{command}: {e}"
        );
        assert!(!e.contains("panicked"), "{command}: {e}");
    }
    assert_eq!(std::fs::read(db).unwrap(), before, "the file was written");
}

/// The names in the folder `dir`.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
