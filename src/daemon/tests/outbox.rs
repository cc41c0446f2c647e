//! Sending the outbox: batches, retries, the send lock and the transports.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rusqlite::Connection;

use crate::clock::{Clock, FixedClock};
use crate::config::Config;
use crate::daemon::outbox::{
    claim_batch, close_batch, drain_outbox, send_outbox_now, SendResult, DOWN_AFTER_FAILURES,
};
use crate::daemon::PassReport;
use crate::limits::SEND_LEASE;
use crate::mail::{self, Outgoing, SendError, Sender};
use crate::store;

/// A transport that fails temporarily for some recipients (or all).
struct Flaky {
    failing: Vec<&'static str>,
    all_down: bool,
    attempts: Vec<String>,
}

impl Sender for Flaky {
    fn send(&mut self, msg: &lettre::Message) -> Result<(), SendError> {
        let to = msg.envelope().to()[0].to_string();
        self.attempts.push(to.clone());
        if self.all_down || self.failing.contains(&to.as_str()) {
            Err(SendError::Temporary("451 try later".into()))
        } else {
            Ok(())
        }
    }
}

/// One drain of the outbox at `clock`; what it did.
fn drain(
    config: &Config,
    clock: &dyn Clock,
    conn: &Connection,
    sender: &mut dyn Sender,
) -> PassReport {
    let mut report = PassReport::default();
    drain_outbox(
        config,
        clock,
        conn,
        sender,
        &AtomicBool::new(false),
        &mut report,
    )
    .unwrap();
    report
}

fn queued(conn: &Connection, now: chrono::DateTime<chrono::Utc>, to: &[&str]) {
    for t in to {
        store::enqueue(
            conn,
            &Outgoing {
                to: t.to_string(),
                subject: "s".into(),
                body: "b".into(),
                in_reply_to: None,
            },
            now,
        )
        .unwrap();
    }
}

/// lettre's stub transport as our `Sender`: it records what it is given
/// and answers as it was built to (ok, or an error taken as temporary).
struct Stub(lettre::transport::stub::StubTransport);

impl Sender for Stub {
    fn send(&mut self, msg: &lettre::Message) -> Result<(), SendError> {
        use lettre::Transport;
        self.0
            .send(msg)
            .map_err(|e| SendError::Temporary(e.to_string()))
    }
}

fn due_at(conn: &Connection, id: i64) -> String {
    conn.query_row(
        "SELECT next_attempt_at FROM outbox WHERE id = ?1",
        [id],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn drained_mail_carries_the_header_rules_and_keeps_its_message_id() {
    let conn = store::open_in_memory().unwrap();
    let clock = FixedClock(chrono::Utc::now());
    let id = store::enqueue(
        &conn,
        &Outgoing {
            to: "bob@x.test".into(),
            subject: "Chess Board 101 bob".into(),
            body: "It is bob's turn.\n".into(),
            in_reply_to: Some("cmd1@players.test".into()),
        },
        clock.0,
    )
    .unwrap();
    let mut config = Config::default();
    config.server.address = "pbm@games.test".into();
    config.server.name = "PBM".into();
    let mut stub = Stub(lettre::transport::stub::StubTransport::new_ok());
    let report = drain(&config, &clock, &conn, &mut stub);
    assert_eq!(report.sent, 1);
    let sent = stub.0.messages();
    assert_eq!(sent.len(), 1);
    let (envelope, raw) = &sent[0];
    assert_eq!(envelope.to()[0].to_string(), "bob@x.test");
    assert_eq!(
        envelope.from().map(|a| a.to_string()).as_deref(),
        Some("pbm@games.test")
    );
    for header in [
        "From: PBM <pbm@games.test>",
        "To: bob@x.test",
        "Subject: Chess Board 101 bob",
        "In-Reply-To: <cmd1@players.test>",
        "References: <cmd1@players.test>",
        "Auto-Submitted: auto-replied",
        "Content-Type: text/plain; charset=utf-8",
        "Date: ",
    ] {
        assert!(raw.contains(header), "{header} in {raw}");
    }
    let message_id = |raw: &str| {
        raw.lines()
            .find(|l| l.starts_with("Message-ID: "))
            .map(str::to_string)
            .unwrap()
    };
    // A crash after the transport took it but before it was marked
    // sent: once the pass's claim runs out, it is sent again, the same mail.
    conn.execute("UPDATE outbox SET sent_at = NULL WHERE id = ?1", [id])
        .unwrap();
    drain(&config, &clock, &conn, &mut stub);
    assert_eq!(
        stub.0.messages().len(),
        1,
        "claimed: not sent again at once"
    );
    let later = FixedClock(clock.0 + chrono::Duration::from_std(SEND_LEASE).unwrap());
    drain(&config, &later, &conn, &mut stub);
    let again = stub.0.messages();
    assert_eq!(message_id(&again[1].1), message_id(raw));
    assert_eq!(again[1].1, *raw);
}

#[test]
fn failed_sends_follow_the_retry_schedule() {
    let conn = store::open_in_memory().unwrap();
    let start = chrono::Utc::now();
    queued(&conn, start, &["a@x"]);
    let config = Config::default();
    let mut stub = Stub(lettre::transport::stub::StubTransport::new_error());
    let mut now = start;
    // 1, 2, 4, 8 minutes after each failure, as the policy says.
    for minutes in [1, 2, 4, 8] {
        let clock = FixedClock(now);
        let report = drain(&config, &clock, &conn, &mut stub);
        assert_eq!(report.send_failures, 1);
        let next = now + chrono::Duration::minutes(minutes);
        assert_eq!(due_at(&conn, 1), crate::store::time_text(next));
        // Not due before then: nothing is tried.
        let early = FixedClock(next - chrono::Duration::seconds(1));
        let report = drain(&config, &early, &conn, &mut stub);
        assert_eq!(report.send_failures, 0);
        now = next;
    }
    assert_eq!(stub.0.messages().len(), 4);
    // After three days of failures the mail is given up.
    let late = FixedClock(start + chrono::Duration::days(4));
    conn.execute(
        "UPDATE outbox SET next_attempt_at = ?1",
        [crate::store::time_text(late.0)],
    )
    .unwrap();
    let report = drain(&config, &late, &conn, &mut stub);
    assert_eq!(report.send_failures, 1);
    assert_eq!(store::pending_count(&conn).unwrap(), 0);
}

#[test]
fn one_recipients_4xx_does_not_hold_up_the_others() {
    let conn = store::open_in_memory().unwrap();
    let clock = FixedClock(chrono::Utc::now());
    queued(&conn, clock.0, &["a@x", "slow@x", "b@x", "c@x"]);
    let mut sender = Flaky {
        failing: vec!["slow@x"],
        all_down: false,
        attempts: vec![],
    };
    let report = drain(&Config::default(), &clock, &conn, &mut sender);
    assert_eq!(report.sent, 3);
    assert_eq!(report.send_failures, 1);
    assert_eq!(store::pending_count(&conn).unwrap(), 1);
}

#[test]
fn sending_now_drains_the_outbox_or_leaves_it_for_later() {
    let dir = tempfile::tempdir().unwrap();
    let conn = store::open_in_memory().unwrap();
    let clock = FixedClock(chrono::Utc::now());
    queued(&conn, clock.0, &["a@x", "b@x"]);
    // A transport that cannot be opened (SMTP without a host): nothing
    // is lost, and it is no error.
    let mut config = Config {
        outbox: mail::OutboxConfig::Smtp(mail::SmtpConfig {
            url: None,
            host: None,
            port: None,
            tls: mail::SmtpTls::None,
            username: None,
            password: None,
            password_file: None,
            tls_ca_file: None,
            timeout_seconds: 1,
            hello_name: None,
        }),
        ..Config::default()
    };
    send_outbox_now(&config, &clock, &conn).unwrap();
    assert_eq!(store::pending_count(&conn).unwrap(), 2);
    config.outbox = mail::OutboxConfig::Maildir {
        path: dir.path().join("out"),
    };
    send_outbox_now(&config, &clock, &conn).unwrap();
    assert_eq!(store::pending_count(&conn).unwrap(), 0);
    let sent = std::fs::read_dir(dir.path().join("out/new")).unwrap();
    assert_eq!(sent.count(), 2);
}

#[test]
fn a_transport_that_is_down_is_not_tried_for_every_mail() {
    let conn = store::open_in_memory().unwrap();
    let clock = FixedClock(chrono::Utc::now());
    queued(&conn, clock.0, &["a@x", "b@x", "c@x", "d@x", "e@x"]);
    let mut sender = Flaky {
        failing: vec![],
        all_down: true,
        attempts: vec![],
    };
    let report = drain(&Config::default(), &clock, &conn, &mut sender);
    assert_eq!(sender.attempts.len(), DOWN_AFTER_FAILURES as usize);
    assert_eq!(report.sent, 0);
    assert_eq!(store::pending_count(&conn).unwrap(), 5, "nothing lost");
}

/// A transport that checks, at each send, what the database (through
/// a connection of its own) says of the mails sent before.
struct Watching {
    db: std::path::PathBuf,
    sent_before_each: Vec<i64>,
    stop_at: Option<usize>,
    calls: usize,
}

impl Sender for Watching {
    fn send(&mut self, _msg: &lettre::Message) -> Result<(), SendError> {
        let conn = Connection::open(&self.db).unwrap();
        let sent: i64 = conn
            .query_row(
                "SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        self.sent_before_each.push(sent);
        Ok(())
    }

    fn send_or_stop(&mut self, msg: &lettre::Message, stop: &AtomicBool) -> Result<(), SendError> {
        self.calls += 1;
        if self.stop_at == Some(self.calls) {
            stop.store(true, Ordering::SeqCst);
            return Err(SendError::Temporary("stopped".into()));
        }
        self.send(msg)
    }
}

fn file_db(dir: &std::path::Path) -> (Connection, std::path::PathBuf) {
    let path = dir.join("db.sqlite");
    (store::open(&path).unwrap(), path)
}

#[test]
fn each_mail_is_recorded_sent_before_the_next_goes_out() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, db) = file_db(dir.path());
    let clock = FixedClock(chrono::Utc::now());
    queued(&conn, clock.0, &["a@x", "b@x", "c@x"]);
    let mut sender = Watching {
        db,
        sent_before_each: vec![],
        stop_at: None,
        calls: 0,
    };
    let report = drain(&Config::default(), &clock, &conn, &mut sender);
    assert_eq!(report.sent, 3);
    // A crash during the third send would send only it again.
    assert_eq!(sender.sent_before_each, vec![0, 1, 2]);
    let sync: i64 = conn
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sync, 2, "FULL again after the pass");
}

#[test]
fn claims_left_by_a_dead_sender_are_sent_at_once_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, _) = file_db(dir.path());
    let clock = FixedClock(chrono::Utc::now());
    queued(&conn, clock.0, &["a@x", "b@x"]);
    // A sender claimed both for ten minutes and died (its lock went
    // with it).
    for id in [1, 2] {
        let until = clock.0 + chrono::Duration::minutes(10);
        assert!(store::claim(&conn, id, clock.0, until).unwrap());
    }
    let mut stub = Stub(lettre::transport::stub::StubTransport::new_ok());
    let report = drain(&Config::default(), &clock, &conn, &mut stub);
    assert_eq!(report.sent, 2);
    assert_eq!(store::pending_count(&conn).unwrap(), 0);
}

#[test]
fn nothing_is_sent_while_another_process_holds_the_send_lock() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, db) = file_db(dir.path());
    let clock = FixedClock(chrono::Utc::now());
    queued(&conn, clock.0, &["a@x", "b@x"]);
    // Another open file description of the lock: as another process.
    let other = Connection::open(&db).unwrap();
    let held = match store::SendLock::try_take(&other) {
        store::SendLockState::Taken(lock) => lock,
        state => panic!("{state:?}"),
    };
    let lock_file = format!("{}.send-lock", db.display());
    assert!(std::path::Path::new(&lock_file).exists());
    let mut stub = Stub(lettre::transport::stub::StubTransport::new_ok());
    let report = drain(&Config::default(), &clock, &conn, &mut stub);
    assert_eq!(report.sent, 0);
    let claimed: i64 = conn
        .query_row("SELECT count(*) FROM outbox WHERE claimed = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(claimed, 0, "not even claimed");
    drop(held);
    let report = drain(&Config::default(), &clock, &conn, &mut stub);
    assert_eq!(report.sent, 2);
}

/// Another process (a cron `poll`, `process`) writes while a claim
/// or a record runs: it waits for the write lock up front, and never
/// fails as a deferred transaction that read before the other's
/// commit and then writes does ("database is locked").
#[test]
fn the_outbox_steps_wait_for_a_writer_and_do_not_fail_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, db) = file_db(dir.path());
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    let clock = FixedClock(chrono::Utc::now());
    queued(&conn, clock.0, &["a@x", "b@x"]);
    let writer = |db: std::path::PathBuf| {
        let other = Connection::open(db).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        store::record_pass(&other, clock.0, None).unwrap();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            other.execute_batch("COMMIT").unwrap();
        })
    };
    let lease = clock.0 + chrono::Duration::minutes(10);
    let busy = writer(db.clone());
    let claimed = claim_batch(&conn, clock.0, lease).unwrap();
    busy.join().unwrap();
    assert_eq!(claimed.len(), 2);
    let busy = writer(db);
    let results = [(1, SendResult::Accepted), (2, SendResult::Accepted)];
    close_batch(&conn, &[], &results, clock.0, &clock).unwrap();
    busy.join().unwrap();
    assert_eq!(store::pending_count(&conn).unwrap(), 0);
}

#[test]
fn a_send_abandoned_for_a_stop_is_not_counted_as_an_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let (conn, db) = file_db(dir.path());
    let clock = FixedClock(chrono::Utc::now());
    queued(&conn, clock.0, &["a@x", "b@x", "c@x"]);
    let mut sender = Watching {
        db,
        sent_before_each: vec![],
        stop_at: Some(2),
        calls: 0,
    };
    let stop = AtomicBool::new(false);
    let mut report = PassReport::default();
    drain_outbox(
        &Config::default(),
        &clock,
        &conn,
        &mut sender,
        &stop,
        &mut report,
    )
    .unwrap();
    assert_eq!((report.sent, report.send_failures), (1, 0));
    // The two left are due at once, untried, unclaimed.
    let due = store::due_mail(&conn, clock.0).unwrap();
    assert_eq!(due.iter().map(|m| m.id).collect::<Vec<_>>(), vec![2, 3]);
    assert!(due.iter().all(|m| m.attempts == 0));
}

#[test]
fn a_board_mail_with_its_picture_is_resent_byte_for_byte() {
    let conn = store::open_in_memory().unwrap();
    let start = chrono::Utc::now();
    let diagram = rules::game("chess").unwrap().start(&[]).unwrap().diagram();
    let svg = game::render::svg::svg(&diagram, &Default::default());
    let png = mail::picture::png(&svg).unwrap();
    let body = game::render::board(&diagram, game::render::Drawing::default());
    let id = store::next_outbox_id(&conn).unwrap();
    let new = store::NewOutboxMail {
        mail: Outgoing {
            to: "a@x".into(),
            subject: "Chess Board 101 a".into(),
            body,
            in_reply_to: None,
        },
        html: true,
        picture: Some(png.clone()),
        message_id: None,
        secrets: Vec::new(),
    };
    store::queue_mail(&conn, id, &new, start).unwrap();
    let config = Config::default();
    let mut stub = Stub(lettre::transport::stub::StubTransport::new_error());
    drain(&config, &FixedClock(start), &conn, &mut stub);
    let mut ok = Stub(lettre::transport::stub::StubTransport::new_ok());
    let later = FixedClock(start + chrono::Duration::minutes(2));
    drain(&config, &later, &conn, &mut ok);
    let (first, second) = (stub.0.messages(), ok.0.messages());
    assert_eq!((first.len(), second.len()), (1, 1));
    assert_eq!(first[0].1, second[0].1, "the retry is the same mail");
    assert!(first[0].1.contains(&mail::picture::content_id(&png)));
    assert!(first[0].1.contains("Content-Type: image/png"));
}
