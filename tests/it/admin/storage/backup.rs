//! `admin backup`: a whole file or none on a full disk, never through a
//! symlink, and no live token or code in the copy.

use super::*;

/// Run the binary with `args`, writes of any file limited to `bytes`
/// (RLIMIT_FSIZE: a full disk, without root), files made with umask 0.
fn run_on_a_small_disk(install: &Install, args: &[&str], bytes: u64) -> Output {
    let mut cmd = common::pbmchess();
    cmd.arg("--config")
        .arg(&install.config)
        .args(args)
        .env("RUST_LOG", "warn");
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::umask(0);
            // Past the limit a write fails with EFBIG instead of raising
            // SIGXFSZ (an ignored signal stays ignored across exec).
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().unwrap()
}

#[test]
fn a_backup_on_a_full_disk_leaves_no_file_named_like_it() {
    let install = Install::new();
    install.ok(&["admin", "user", "add", "alice", "pw", "alice@players.test"]);
    let db = db_path(&install);
    let size = std::fs::metadata(&db).unwrap().len();
    assert!(size > 128 * 1024, "the database is {size} bytes");
    let folder = install.path("backups");
    std::fs::create_dir(&folder).unwrap();
    let backup = folder.join("monday.sqlite");
    // The database's own -shm (32 KiB) fits; the copy does not.
    let out = run_on_a_small_disk(
        &install,
        &["admin", "backup", backup.to_str().unwrap()],
        64 * 1024,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!stderr(&out).contains("copied"), "{}", stderr(&out));
    assert!(
        names_in(&folder).is_empty(),
        "left behind: {:?}",
        names_in(&folder)
    );

    // With room, the backup is whole and the owner's only, whatever the umask.
    let out = run_on_a_small_disk(
        &install,
        &["admin", "backup", backup.to_str().unwrap()],
        1 << 40,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(names_in(&folder), ["monday.sqlite"]);
    let mode = std::fs::metadata(&backup).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    let copy = rusqlite::Connection::open(&backup).unwrap();
    let users: i64 = copy
        .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(users, 1);
    let ok: String = copy
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
}

#[test]
fn a_backup_never_writes_through_a_symlink() {
    let install = Install::new();
    let folder = install.path("backups");
    std::fs::create_dir(&folder).unwrap();
    let elsewhere = install.path("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    // Dangling: it names a file that does not exist yet.
    let dangling = folder.join("dangling.sqlite");
    std::os::unix::fs::symlink(elsewhere.join("made.sqlite"), &dangling).unwrap();
    let out = install.run(&["admin", "backup", dangling.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("exists already"), "{}", stderr(&out));
    assert!(
        names_in(&elsewhere).is_empty(),
        "{:?}",
        names_in(&elsewhere)
    );
    // To an existing file: refused, the file as it was.
    let target = elsewhere.join("keep.txt");
    std::fs::write(&target, "keep").unwrap();
    let link = folder.join("link.sqlite");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = install.run(&["admin", "backup", link.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    assert_eq!(names_in(&folder), ["dangling.sqlite", "link.sqlite"]);
}

/// An outbox that takes nothing: a sendmail program that always fails
/// temporarily, so mail waits in the outbox with its secrets.
fn failing_sendmail(dir: &Path) -> Install {
    let script = dir.join("sendmail");
    std::fs::write(&script, "#!/bin/sh\ncat >/dev/null\nexit 75\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    Install::with_whole_config(&format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\n[database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\
         [outbox]\nkind = \"sendmail\"\ncommand = \"{}\"\n",
        script.display()
    ))
}

/// The words the outbox keeps in clear until the mail is sent (reply
/// tokens, confirmation codes) in the database at `db`.
fn live_secrets(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let rows: Vec<String> = conn
        .prepare("SELECT secrets FROM outbox WHERE secrets IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows.iter()
        .flat_map(|s| s.split_whitespace().map(String::from))
        .collect()
}

#[test]
fn a_backup_taken_while_mail_waits_carries_no_live_token_or_code() {
    let tmp = tempfile::tempdir().unwrap();
    let mut install = failing_sendmail(tmp.path());
    install.ok(&["admin", "user", "add", "bob", "pw", "bob@players.test"]);
    install.ok(&["admin", "user", "add", "carol", "pw", "carol@players.test"]);
    install.ok(&["admin", "challenge", "chess", "bob", "carol"]);
    install.send("alice@players.test", "signup alice Sesame-A1", "");
    install.ok(&["poll"]);
    let db = install.path("var/db.sqlite");
    let secrets = live_secrets(&db);
    assert!(
        secrets.iter().any(|s| s.len() == 40) && secrets.iter().any(|s| s.len() < 12),
        "a token and a code wait: {secrets:?}"
    );

    let backup = install.path("backup.sqlite");
    install.ok(&["admin", "backup", backup.to_str().unwrap()]);
    let bytes = std::fs::read(&backup).unwrap();
    let text = String::from_utf8_lossy(&bytes).to_lowercase();
    for secret in &secrets {
        assert!(
            !text.contains(&secret.to_lowercase()),
            "{secret} in the backup"
        );
    }
    let copy = rusqlite::Connection::open(&backup).unwrap();
    let (waiting, codes): (i64, i64) = copy
        .query_row(
            "SELECT (SELECT count(*) FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL),
                    (SELECT count(*) FROM user_addresses WHERE code_hash IS NOT NULL)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (waiting, codes),
        (0, 0),
        "a restored copy sends none of them"
    );
    // The live database is unchanged: its mail still goes out as it was.
    assert_eq!(live_secrets(&db), secrets);
}
