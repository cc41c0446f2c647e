//! The Maildir outbox writes each mail once on a full disk, and processed
//! mail is pruned by `[retention]`.

use super::*;

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
