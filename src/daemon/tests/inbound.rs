//! Passes over inbound mail: groups, failures, quarantine and oversize.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use rusqlite::Connection;

use crate::clock::FixedClock;
use crate::config::Config;
use crate::daemon::inbound::{read_group, read_inbox};
use crate::daemon::{Daemon, Pace, PassReport};
use crate::mail::{self, Inbox};
use crate::server::Server;
use crate::store;

#[test]
fn a_pass_failed_when_mail_was_not_read_not_when_it_was_not_sent() {
    assert!(!PassReport::default().failed());
    let unsent = PassReport {
        send_failures: 3,
        ..PassReport::default()
    };
    assert!(!unsent.failed(), "the outbox keeps what was not sent");
    let down = PassReport {
        inbox_failed: true,
        ..PassReport::default()
    };
    assert!(down.failed());
    let broken = PassReport {
        mails_read: 2,
        mails_failed: 1,
        ..PassReport::default()
    };
    assert!(broken.failed());
}

#[test]
fn a_daemon_opens_the_configured_mail_folders() {
    let dir = tempfile::tempdir().unwrap();
    let config = maildir_config(dir.path());
    let templates = crate::server::templates::Templates::load(None).unwrap();
    let clock = FixedClock(chrono::Utc::now());
    let server = Server::new(&config, &clock, &templates);
    let mut daemon = Daemon::open(server, store::open_in_memory().unwrap()).unwrap();
    assert!(dir.path().join("in/new").is_dir());
    assert!(dir.path().join("out/new").is_dir());
    let report = daemon.pass(&AtomicBool::new(false)).unwrap();
    assert_eq!(report, PassReport::default());
}

#[test]
fn a_failing_mail_in_a_group_is_rolled_back_alone_and_stays_in_the_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let mut inbox = mail::MaildirInbox::open(dir.path().join("in")).unwrap();
    let conn_path = dir.path().join("db.sqlite");
    let mut conn = store::open(&conn_path).unwrap();
    // A board whose stored start cannot be read: loading it is an
    // internal failure (not the player's), which fails the mail.
    store::insert_user(&conn, "a", "h", &["a@x".into()], chrono::Utc::now()).unwrap();
    store::insert_user(&conn, "b", "h", &["b@x".into()], chrono::Utc::now()).unwrap();
    store::insert_board(
        &conn,
        &store::NewBoard {
            game: "chess",
            options: &[],
            start_position: "not a position",
            players: &["a".into(), "b".into()],
            nag_days: None,
            forfeit_days: None,
            total_days: None,
            now: chrono::Utc::now(),
        },
    )
    .unwrap();
    let subjects = ["help", "chess show 101", "help chess", "help commands"];
    for (i, subject) in subjects.iter().enumerate() {
        let raw = format!(
            "From: p{i}@players.test\r\nSubject: {subject}\r\nMessage-ID: <g{i}@players.test>\r\n\r\nhi\r\n"
        );
        std::fs::write(
            dir.path()
                .join(format!("in/new/{}.M{i}P1.test", 1_700_000_000 + i)),
            raw,
        )
        .unwrap();
    }
    let config = Config::default();
    let templates = crate::server::templates::Templates::load(None).unwrap();
    let clock = FixedClock(chrono::Utc::now());
    let server = Server::new(&config, &clock, &templates);
    let mut report = PassReport::default();
    read_inbox(
        &server,
        &mut conn,
        &mut inbox,
        None,
        &Pace::unhurried(&AtomicBool::new(false)),
        &mut report,
    )
    .unwrap();
    assert_eq!((report.mails_read, report.mails_failed), (3, 1));
    // The three others committed, with their replies; the failing one
    // left nothing behind and waits in new/.
    let answered: i64 = conn
        .query_row("SELECT count(*) FROM processed_mail", [], |r| r.get(0))
        .unwrap();
    assert_eq!(answered, 3);
    let failed: i64 = conn
        .query_row(
            "SELECT count(*) FROM processed_mail WHERE message_id = 'g1@players.test'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(failed, 0);
    assert_eq!(store::pending_count(&conn).unwrap(), 3);
    let waiting: Vec<_> = std::fs::read_dir(dir.path().join("in/new"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(waiting, vec!["1700000001.M1P1.test".to_string()]);
}

#[test]
fn mails_a_pass_has_no_time_for_are_left_with_no_attempt_counted() {
    let dir = tempfile::tempdir().unwrap();
    let mut inbox = mail::MaildirInbox::open(dir.path().join("in")).unwrap();
    for i in 0..3 {
        std::fs::write(
            dir.path()
                .join(format!("in/new/{}.M{i}P1.test", 1_700_000_000 + i)),
            help_mail(i),
        )
        .unwrap();
    }
    let mut conn = store::open(&dir.path().join("db.sqlite")).unwrap();
    let config = Config::default();
    let templates = crate::server::templates::Templates::load(None).unwrap();
    let clock = FixedClock(chrono::Utc::now());
    let server = Server::new(&config, &clock, &templates);
    let group = inbox.fetch(10).unwrap();
    let stop = AtomicBool::new(false);
    let over = Pace {
        read_until: Some(Instant::now()),
        ..Pace::unhurried(&stop)
    };
    let mut report = PassReport::default();
    read_group(&server, &mut conn, &mut inbox, &group, &over, &mut report).unwrap();
    assert_eq!(report.mails_read, 0);
    let attempts: i64 = conn
        .query_row("SELECT count(*) FROM inbound_attempts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(attempts, 0, "no attempt left open to count as a crash");
    assert_eq!(files(dir.path(), "in/new").len(), 3, "all left for later");
    let mut report = PassReport::default();
    let pace = Pace::unhurried(&stop);
    read_inbox(&server, &mut conn, &mut inbox, None, &pace, &mut report).unwrap();
    assert_eq!((report.mails_read, report.mails_failed), (3, 0));
}

/// The default configuration with Maildir folders `in` and `out` under
/// `dir`.
fn maildir_config(dir: &std::path::Path) -> Config {
    Config {
        inbox: mail::InboxConfig::Maildir {
            path: dir.join("in"),
        },
        outbox: mail::OutboxConfig::Maildir {
            path: dir.join("out"),
        },
        ..Config::default()
    }
}

/// A daemon pass over `mails` (file name, bytes) delivered into a
/// fresh Maildir inbox; the report, the database and the folder.
fn pass_over(
    mails: &[(&str, Vec<u8>)],
    prepare: impl FnOnce(&std::path::Path),
) -> (PassReport, Connection, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config = maildir_config(dir.path());
    mail::MaildirInbox::open(dir.path().join("in")).unwrap();
    for (name, raw) in mails {
        std::fs::write(dir.path().join("in/new").join(name), raw).unwrap();
    }
    prepare(dir.path());
    let templates = crate::server::templates::Templates::load(None).unwrap();
    let clock = FixedClock(chrono::Utc::now());
    let server = Server::new(&config, &clock, &templates);
    let conn = store::open(&dir.path().join("db.sqlite")).unwrap();
    let mut daemon = Daemon::open(server, conn).unwrap();
    let report = daemon.pass(&AtomicBool::new(false)).unwrap();
    (report, daemon.conn, dir)
}

fn help_mail(i: usize) -> Vec<u8> {
    format!(
        "From: p{i}@players.test\r\nSubject: help\r\nMessage-ID: <h{i}@players.test>\r\n\r\nhi\r\n"
    )
    .into_bytes()
}

fn files(dir: &std::path::Path, sub: &str) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir.join(sub))
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[cfg(unix)]
#[test]
fn an_unreadable_file_is_quarantined_and_the_others_are_answered() {
    use std::os::unix::fs::PermissionsExt;
    let mails = [
        ("1700000001.a", help_mail(1)),
        ("1700000002.b", help_mail(2)),
        ("1700000003.c", help_mail(3)),
    ];
    let (report, conn, dir) = pass_over(&mails, |dir| {
        // A folder where a file should be cannot be read as one
        // (unlike a chmod 000 file, even by root).
        std::fs::remove_file(dir.join("in/new/1700000002.b")).unwrap();
        std::fs::create_dir(dir.join("in/new/1700000002.b.dir")).unwrap();
        let f = dir.join("in/new/1700000002.b");
        std::os::unix::fs::symlink(dir.join("in/new/1700000002.b.dir"), &f).unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).ok();
    });
    assert!(!report.failed(), "{report:?}");
    assert_eq!((report.mails_read, report.mails_quarantined), (2, 1));
    assert_eq!(files(dir.path(), "out/new").len(), 2);
    assert!(files(dir.path(), "in/new")
        .iter()
        .all(|f| f.ends_with(".dir")));
    assert_eq!(
        files(dir.path(), "in/.Quarantine/cur"),
        ["1700000002.b:2,F"]
    );
    let listed = crate::quarantine::list(&conn).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].message_id, "unreadable:1700000002.b");
    assert!(listed[0].quarantined_at.is_some());
}

#[test]
fn an_oversized_file_is_refused_from_its_header_without_being_read() {
    let mut big =
        b"From: big@players.test\r\nSubject: help\r\nMessage-ID: <big@players.test>\r\n\r\n"
            .to_vec();
    // A body that would be a command if it were read.
    big.extend(b"chess show 101\r\n".repeat(100_000));
    let mails = [("1700000001.big", big), ("1700000002.b", help_mail(2))];
    let (report, conn, dir) = pass_over(&mails, |_| {});
    assert!(!report.failed(), "{report:?}");
    assert_eq!(report.mails_read, 2);
    let outcome: String = conn
        .query_row(
            "SELECT outcome FROM processed_mail WHERE message_id = 'big@players.test'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(outcome, "too-large");
    let out = files(dir.path(), "out/new");
    assert_eq!(out.len(), 2);
    let refusal = out
        .iter()
        .map(|f| std::fs::read_to_string(dir.path().join("out/new").join(f)).unwrap())
        .find(|m| m.contains("To: big@players.test"))
        .unwrap();
    assert!(
        refusal.contains("1600073 bytes"),
        "the whole size is named: {refusal}"
    );
    assert!(refusal.len() < 4096);
}

#[cfg(unix)]
#[test]
fn outbox_maildir_files_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let (_, _, dir) = pass_over(&[("1700000001.a", help_mail(1))], |_| {});
    let out = files(dir.path(), "out/new");
    assert_eq!(out.len(), 1);
    let mode = std::fs::metadata(dir.path().join("out/new").join(&out[0]))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}
