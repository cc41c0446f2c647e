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

#[test]
fn an_empty_database_file_is_refused_and_only_init_makes_a_database_of_it() {
    let install = Install::new();
    install.ok(&["admin", "user", "add", "alice", "pw", "alice@players.test"]);
    let db = db_path(&install);
    // A restore or a copy cut off by a full disk: the file is there, empty.
    std::fs::write(&db, b"").unwrap();
    assert_every_command_refuses(&install, &db, "is empty");
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);
    // `check` says so too.
    let out = install.run(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).contains("pbmchess init"), "{}", stdout(&out));

    // init makes the database there; then the server runs on it.
    install.ok(&["init"]);
    install.ok(&["poll"]);
    assert_eq!(install.ok(&["admin", "user", "list"]).trim(), "");
}

#[test]
fn a_file_that_is_not_a_pbmchess_database_is_refused_even_by_init() {
    let install = Install::new();
    let db = db_path(&install);
    std::fs::remove_file(&db).unwrap();
    // Another application's SQLite database.
    {
        let other = rusqlite::Connection::open(&db).unwrap();
        other
            .execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
            .unwrap();
    }
    assert_every_command_refuses(&install, &db, "not a pbmchess database");
    let out = install.run(&["init"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("other tables: notes"),
        "{}",
        stderr(&out)
    );
    let other = rusqlite::Connection::open(&db).unwrap();
    let tables: i64 = other
        .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tables, 1, "init wrote into another application's database");
    drop(other);

    // Not SQLite at all.
    let _ = std::fs::remove_file(format!("{}-journal", db.display()));
    std::fs::write(&db, "a text file, not a database\n".repeat(200)).unwrap();
    assert_every_command_refuses(&install, &db, "not an SQLite database");
    assert!(!install.run(&["init"]).status.success());
}

#[test]
fn a_missing_database_is_created_on_first_use() {
    let install = Install::new();
    let db = db_path(&install);
    std::fs::remove_file(&db).unwrap();
    install.ok(&["poll"]);
    install.ok(&["admin", "user", "add", "alice", "pw", "alice@players.test"]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let id: i64 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        id, 0x5042_4D43,
        "\"PBMC\": the database says it is pbmchess's"
    );
}

/// Flip the bytes of `needle` in the page `page` (1-based) of the
/// database file at `db`.
fn damage_page(db: &Path, page: i64, page_size: i64, needle: &[u8]) {
    let mut bytes = std::fs::read(db).unwrap();
    let start = usize::try_from((page - 1) * page_size).unwrap();
    let end = start + usize::try_from(page_size).unwrap();
    let at = bytes[start..end]
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the value is on its page")
        + start;
    // Same length, sorted the same: the page stays well-formed.
    bytes[at + needle.len() - 1] = b'~';
    std::fs::write(db, bytes).unwrap();
}

#[test]
fn check_runs_integrity_check_and_fails_on_a_damaged_index() {
    let install = Install::new();
    install.ok(&["admin", "user", "add", "alice", "pw", "alice@players.test"]);
    let out = install.run(&["check"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("integrity_check ok"),
        "{}",
        stdout(&out)
    );

    let db = db_path(&install);
    let (root, page_size) = {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .unwrap();
        let root: i64 = conn
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'user_addresses_by_address'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let size: i64 = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        let quick: String = conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(quick, "ok");
        (root, size)
    };
    db_path(&install);
    // The index's entry no longer matches its row: quick_check does not
    // compare them.
    damage_page(&db, root, page_size, b"alice@players.test");
    let quick: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(quick, "ok", "the damage is one quick_check passes");

    let out = install.run(&["check"]);
    let said = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    let line = said
        .lines()
        .find(|l| l.contains("database:"))
        .expect("a database line");
    assert!(
        line.starts_with("FAILED")
            && line.contains("integrity_check says")
            && line.contains("user_addresses_by_address"),
        "{line}"
    );
}

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

/// The names in the folder `dir`.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
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

/// A Maildir outbox on a disk that fills up: the `fail_send`th send of
/// the first pass fails, and so does its first flush (the batch written is
/// not made durable, so not recorded as sent).
struct FillingMaildir {
    inner: pbmchess::mail::MaildirOutbox,
    sends: usize,
    fail_send: usize,
    flushes: usize,
}

impl pbmchess::mail::Sender for FillingMaildir {
    fn send(&mut self, msg: &lettre::Message) -> Result<(), pbmchess::mail::SendError> {
        self.sends += 1;
        if self.sends == self.fail_send {
            return Err(pbmchess::mail::SendError::Temporary(
                "No space left on device (os error 28)".into(),
            ));
        }
        self.inner.send(msg)
    }

    fn flush(&mut self) -> Result<(), pbmchess::mail::SendError> {
        self.flushes += 1;
        if self.flushes == 1 {
            return Err(pbmchess::mail::SendError::Temporary(
                "cannot sync the outbox Maildir: No space left on device".into(),
            ));
        }
        self.inner.flush()
    }

    fn durable_at_send(&self) -> bool {
        self.inner.durable_at_send()
    }

    fn end_pass(&mut self) {
        self.inner.end_pass();
    }
}

#[test]
fn a_maildir_batch_cut_off_by_a_full_disk_is_not_written_twice() {
    use pbmchess::clock::FixedClock;
    let dir = tempfile::tempdir().unwrap();
    let conn = pbmchess::store::open(&dir.path().join("db.sqlite")).unwrap();
    let config = pbmchess::config::Config::default();
    let t0: chrono::DateTime<chrono::Utc> = "2026-11-22T10:00:00Z".parse().unwrap();
    for i in 0..40 {
        let mail = pbmchess::mail::Outgoing {
            to: format!("p{i}@players.test"),
            subject: format!("reply {i}"),
            body: "text".into(),
            in_reply_to: None,
        };
        pbmchess::store::enqueue(&conn, &mail, t0).unwrap();
    }
    let out = dir.path().join("out");
    let mut sender = FillingMaildir {
        inner: pbmchess::mail::MaildirOutbox::open(&out).unwrap(),
        sends: 0,
        fail_send: 30,
        flushes: 0,
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut report = pbmchess::daemon::PassReport::default();
    // Passes until every mail is recorded sent, an hour apart (past every
    // claim and retry delay). A pass sends for 2 s of real time at most,
    // so a slow machine needs more of them: the count is not the point.
    let mut hour = 0;
    while pbmchess::store::pending_count(&conn).unwrap() > 0 {
        assert!(hour < 200, "the outbox was never drained");
        let clock = FixedClock(t0 + chrono::Duration::hours(hour));
        pbmchess::daemon::drain_outbox(&config, &clock, &conn, &mut sender, &stop, &mut report)
            .unwrap();
        hour += 1;
    }
    assert!(
        sender.sends > 40,
        "mail was written again: {}",
        sender.sends
    );
    let mut ids: Vec<String> = std::fs::read_dir(out.join("new"))
        .unwrap()
        .map(|e| {
            let raw = std::fs::read_to_string(e.unwrap().path()).unwrap();
            common::parse_sent(&raw).header("Message-ID").unwrap()
        })
        .collect();
    assert_eq!(ids.len(), 40, "each outbox row is one file");
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 40);
}

/// Set the modification time (a Maildir file's delivery time) of `file`
/// to `days` days ago.
fn delivered_days_ago(file: &Path, days: u64) {
    let at = std::time::SystemTime::now() - Duration::from_secs(days * 24 * 3600);
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(at)
        .unwrap();
}

#[test]
fn processed_maildir_mail_goes_after_inbox_mail_days_not_the_message_id_days() {
    let mut install = Install::new();
    install.send("alice@players.test", "signup alice Sesame-A1", "");
    install.send("bob@players.test", "signup bob Sesame-B2", "");
    install.poll();
    assert_eq!(install.take_outbox().len(), 2);
    let cur = install.path("var/inbox/cur");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&cur)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2);
    // The default keeps a processed mail (it holds a password) a week,
    // while its Message-ID is remembered 90 days.
    delivered_days_ago(&files[0], 8);
    delivered_days_ago(&files[1], 6);
    install.ok(&["tick"]);
    assert_eq!(
        names_in(&cur),
        [files[1].file_name().unwrap().to_string_lossy()]
    );
    // Its Message-ID is still known: the same mail again is not applied.
    let raw = std::fs::read_to_string(&files[1]).unwrap();
    install.deliver_raw(&raw);
    install.poll();
    assert!(install.take_outbox().is_empty(), "answered once");

    // Configured: two days.
    let mut install = Install::with_config("[retention]\ninbox_mail_days = 2\n");
    install.send("carol@players.test", "signup carol Sesame-C3", "");
    install.poll();
    let cur = install.path("var/inbox/cur");
    let file = std::fs::read_dir(&cur)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    delivered_days_ago(&file, 3);
    install.poll();
    assert!(names_in(&cur).is_empty());
}

/// A mail to append to an IMAP mailbox.
fn appended_mail(n: u32) -> Vec<u8> {
    format!(
        "From: alice@test.local\r\nTo: pbm@test.local\r\nSubject: signup alice Sesame-{n}\r\n\
         Message-ID: <old{n}@test.local>\r\n\r\n\r\n"
    )
    .into_bytes()
}

#[test]
fn imap_processed_mail_older_than_inbox_mail_days_is_expunged() {
    use common::servers::Servers;
    use pbmchess::mail::{ImapConfig, ImapInbox, ImapTls, Secret};
    let Some(servers) =
        Servers::start("imap_processed_mail_older_than_inbox_mail_days_is_expunged")
    else {
        return;
    };
    let config = |processed: Option<&str>| ImapConfig {
        host: "127.0.0.1".into(),
        port: Some(servers.imap_port),
        tls: ImapTls::Plain,
        username: "pbm".into(),
        password: Some(Secret::new("pbm-secret".to_string())),
        password_file: None,
        mailbox: "INBOX".into(),
        processed_mailbox: processed.map(str::to_string),
        quarantine_mailbox: "Quarantine".into(),
        tls_ca_file: None,
        idle: false,
        timeout_seconds: 10,
    };
    let now = chrono::Utc::now();
    let ago = |days: i64| (now - chrono::Duration::days(days)).fixed_offset();
    let mut raw = servers.session("pbm");
    raw.create("Done").unwrap();
    for (n, days) in [(1, 30), (2, 8), (3, 1)] {
        raw.append("Done", &appended_mail(n))
            .flag(imap::types::Flag::Seen)
            .internal_date(ago(days))
            .finish()
            .unwrap();
    }
    // In INBOX: old and seen (processed), old and unseen (not yet), young.
    for (n, days, seen) in [(4, 30, true), (5, 30, false), (6, 1, true)] {
        let mail = appended_mail(n);
        let mut append = raw.append("INBOX", &mail);
        if seen {
            append.flag(imap::types::Flag::Seen);
        }
        append.internal_date(ago(days)).finish().unwrap();
    }
    raw.logout().unwrap();

    let before = now - chrono::Duration::days(7);
    let mut inbox = ImapInbox::new(&config(Some("Done"))).unwrap();
    assert_eq!(inbox.prune_processed(before, 100).unwrap(), 2);
    assert_eq!(servers.count("pbm", "Done"), 1);
    assert_eq!(
        servers.count("pbm", "INBOX"),
        3,
        "INBOX is not the processed mailbox"
    );
    // The inbox is selected again: its unseen mail is still fetched.
    use pbmchess::mail::Inbox;
    assert_eq!(inbox.fetch(10).unwrap().len(), 1);

    let mut inbox = ImapInbox::new(&config(None)).unwrap();
    assert_eq!(inbox.prune_processed(before, 100).unwrap(), 1);
    assert_eq!(
        servers.count("pbm", "INBOX"),
        2,
        "the unseen and the young stay"
    );
}

/// The `probe:` line of `check` output.
fn probe_line(said: &str) -> String {
    said.lines()
        .find(|l| l.contains(" probe: "))
        .unwrap_or_else(|| panic!("no probe line in {said}"))
        .to_string()
}

#[test]
fn check_probe_sees_its_mail_reach_the_inbox_and_files_it_away_unanswered() {
    // The outbox Maildir is the inbox: what is sent lands in inbox/new.
    let install = Install::with_whole_config(&format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\n[database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\
         [outbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n"
    ));
    let out = install.run(&["check", "--probe", "--probe-seconds", "30"]);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}{}", stderr(&out));
    let line = probe_line(&said);
    assert!(
        line.starts_with("ok") && line.contains("reached the inbox"),
        "{line}"
    );
    assert!(names_in(&install.path("var/inbox/new")).is_empty());
    let filed = names_in(&install.path("var/inbox/cur"));
    assert_eq!(filed.len(), 1, "{filed:?}");
    assert!(filed[0].ends_with(":2,FS"), "{filed:?}");
    // Nothing answers it, nothing counts it.
    install.ok(&["poll"]);
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    let (outbox, processed): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM outbox), (SELECT count(*) FROM processed_mail)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((outbox, processed), (0, 0));
}

#[test]
fn check_probe_says_where_to_look_when_its_mail_goes_elsewhere() {
    // The outbox Maildir is taken by nobody: like an MTA that delivers the
    // server's mail to /var/mail instead of the inbox.
    let mut install = Install::new();
    let out = install.run(&["check", "--probe", "--probe-seconds", "1"]);
    let said = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    let line = probe_line(&said);
    assert!(line.starts_with("FAILED"), "{line}");
    for part in [
        "did not reach the inbox",
        "var/outbox",
        "var/inbox",
        "mailbox_command",
        "pbmchess probe ",
    ] {
        assert!(line.contains(part), "{part}: {line}");
    }
    // The probe, delivered late, is ignored by the daemon: never answered.
    let probes = names_in(&install.path("var/outbox/new"));
    assert_eq!(probes.len(), 1);
    let file = install.path("var/outbox/new").join(&probes[0]);
    let raw = std::fs::read_to_string(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    assert!(raw.contains("Auto-Submitted: auto-generated"), "{raw}");
    install.deliver_raw(&raw);
    install.poll();
    assert!(install.take_outbox().is_empty());
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    let outcome: String = conn
        .query_row("SELECT outcome FROM processed_mail", [], |r| r.get(0))
        .unwrap();
    assert_eq!(outcome, "ignored");
}

#[test]
fn check_probe_goes_through_a_sendmail_outbox_too() {
    let tmp = tempfile::tempdir().unwrap();
    let inbox = tmp.path().join("inbox");
    let script = tmp.path().join("sendmail");
    // A local MTA that delivers to the inbox Maildir (`-bv`: verify only).
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n[ \"$1\" = -bv ] && exit 0\nf=probe.$$\n\
             cat > {in}/tmp/$f && mv {in}/tmp/$f {in}/new/$f\n",
            in = inbox.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let install = Install::with_whole_config(&format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\n[database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"maildir\"\npath = \"{}\"\n\
         [outbox]\nkind = \"sendmail\"\ncommand = \"{}\"\n",
        inbox.display(),
        script.display()
    ));
    let out = install.run(&["check", "--probe", "--probe-seconds", "30"]);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}{}", stderr(&out));
    assert!(probe_line(&said).contains("reached the inbox"), "{said}");
    assert!(names_in(&inbox.join("new")).is_empty());
}
