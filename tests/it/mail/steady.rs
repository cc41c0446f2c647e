//! Under steady mail the daemon keeps its time: a `serve` pass
//! ends within seconds however much mail flows in, so a SIGHUP, the
//! timers and `status` keep their time and a `poll` beside it reads what
//! it found and exits; a hanging relay costs a pass one timeout and does
//! not hold incoming mail; replies already committed go out before more
//! is read; only what committed is logged as processed. The real binary,
//! a Maildir inbox, a stream of mail written by a thread of the test.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{raw_mail, Install};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";

fn wait_for(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// The binary on the install's config, logging at `info` into `log`.
fn command(install: &Install, args: &[&str], log: &Path) -> Command {
    let mut c = common::pbmchess();
    c.arg("--config")
        .arg(&install.config)
        .args(args)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap());
    c
}

/// A process of the test, killed if the test fails before it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// `serve`, started and serving.
fn serve(install: &Install, log: &Path) -> Running {
    let child = Running(command(install, &["serve"], log).spawn().unwrap());
    wait_for(30, "serve to start", || read(log).contains("serving"));
    child
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn stop(mut child: Running) {
    signal(&child.0, "TERM");
    wait_for(20, "serve to stop", || {
        child.0.try_wait().unwrap().is_some()
    });
}

/// A thread that delivers `help` mails from rotating addresses into the
/// Maildir inbox at `rate` a second at least, and more whenever fewer
/// than `waiting` are in `new/`: the inbox is never found empty.
struct Stream {
    running: Arc<AtomicBool>,
    delivered: Arc<AtomicUsize>,
    started: Instant,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Stream {
    fn start(inbox: PathBuf, rate: usize, waiting: usize) -> Stream {
        let running = Arc::new(AtomicBool::new(true));
        let delivered = Arc::new(AtomicUsize::new(0));
        let started = Instant::now();
        let (run, count) = (running.clone(), delivered.clone());
        let thread = std::thread::spawn(move || {
            let mut n = 0usize;
            while run.load(Ordering::SeqCst) {
                let due = started.elapsed().as_millis() as usize * rate / 1000;
                let in_new = std::fs::read_dir(inbox.join("new"))
                    .map(|d| d.count())
                    .unwrap_or(0);
                let want = (due.saturating_sub(n)).max(waiting.saturating_sub(in_new));
                for _ in 0..want {
                    n += 1;
                    let secs = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap()
                        .as_secs();
                    let name = format!("{secs}.M{n}P{}.stream", std::process::id());
                    let raw = raw_mail(
                        &format!("s{}@stream.example", n % 500),
                        "help",
                        "",
                        &format!("stream{n}@stream.example"),
                    );
                    let tmp = inbox.join("tmp").join(&name);
                    let delivered = std::fs::write(&tmp, raw)
                        .and_then(|()| std::fs::rename(&tmp, inbox.join("new").join(&name)));
                    if delivered.is_err() {
                        // The test failed and its folder is gone.
                        return;
                    }
                }
                count.store(n, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        Stream {
            running,
            delivered,
            started,
            thread: Some(thread),
        }
    }

    /// Mails delivered a second since the start.
    fn rate(&self) -> f64 {
        self.delivered.load(Ordering::SeqCst) as f64 / self.started.elapsed().as_secs_f64()
    }

    fn end(mut self) {
        self.running.store(false, Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap();
    }
}

/// `status --json`'s number field `name` (`None` when null).
fn status_number(install: &Install, name: &str) -> Option<i64> {
    let json = install.ok(&["status", "--json"]);
    let at = json
        .find(&format!("\"{name}\":"))
        .unwrap_or_else(|| panic!("no {name} in {json}"));
    let rest = &json[at + name.len() + 3..];
    let value: String = rest.chars().take_while(|c| *c != ',').collect();
    value.parse().ok()
}

/// alice and bob, and board 101 between them (alice to move); the
/// outbox emptied.
fn a_board(extra: &str) -> Install {
    let mut s = Install::with_config(extra);
    s.send(ALICE, "signup alice Sesame-A1", "");
    s.send(BOB, "signup bob Sesame-B2", "");
    s.poll();
    s.send(ALICE, "chess challenge alice bob", "");
    s.poll();
    s.take_outbox();
    s
}

/// Board 101's player to act has been idle for eight days (past the
/// default seven of `[timers] nag_days`): the next run of the timers
/// reminds alice.
fn make_reminder_due(install: &Install) {
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    conn.busy_timeout(Duration::from_secs(30)).unwrap();
    let past = (chrono::Utc::now() - chrono::Duration::days(8))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let changed = conn
        .execute(
            "UPDATE boards SET last_action_at = ?1, last_nag_at = NULL WHERE board = 101",
            [past],
        )
        .unwrap();
    assert_eq!(changed, 1);
}

/// Whether a reminder to `to` was queued (the outbox table: a relay
/// slower than the stream sends it later, behind the replies before it).
fn reminder_queued(install: &Install, to: &str) -> bool {
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    conn.busy_timeout(Duration::from_secs(30)).unwrap();
    conn.query_row(
        "SELECT count(*) FROM outbox WHERE recipient = ?1 AND subject LIKE 'Nag:%'",
        [to],
        |r| r.get::<_, i64>(0),
    )
    .unwrap()
        > 0
}

/// A relay that takes each mail but slowly, as one across the world does
/// (a sendmail stand-in that keeps each mail in `sent/` and takes 50 ms).
#[cfg(unix)]
fn with_slow_relay(install: &Install) {
    use std::os::unix::fs::PermissionsExt;
    let sent = install.path("sent");
    std::fs::create_dir_all(&sent).unwrap();
    let program = install.path("slow-sendmail");
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\ncat > '{}'/\"$$.mail\"\nsleep 0.05\n",
            sent.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let text = std::fs::read_to_string(&install.config).unwrap().replace(
        "[outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n",
        &format!(
            "[outbox]\nkind = \"sendmail\"\ncommand = \"{}\"\n",
            program.display()
        ),
    );
    std::fs::write(&install.config, text).unwrap();
}

/// The daemon under a steady stream of `seconds`: 25 mails a second into
/// the Maildir inbox, more than the relay takes (each reply takes it 50
/// ms), so mail is always waiting. While it flows: a SIGHUP takes effect
/// within 5 s of the signal, a reminder made due is queued within seconds,
/// `status` shows a fresh pass and a fresh mail, and a `poll` started
/// beside `serve` exits within seconds.
#[cfg(unix)]
fn steady_stream(seconds: u64) {
    let install = a_board("\n[poll]\ninterval_seconds = 60\n");
    with_slow_relay(&install);
    let log = install.path("serve.log");
    let child = serve(&install, &log);
    let stream = Stream::start(install.path("var/inbox"), 25, 0);
    let began = Instant::now();
    let flowing = Duration::from_secs(seconds / 4);
    std::thread::sleep(flowing);
    assert!(
        read(&log).contains("mail processed"),
        "serve handles the stream"
    );

    // A SIGHUP while mail flows.
    let text = std::fs::read_to_string(&install.config)
        .unwrap()
        .replace("name = \"Test PBM\"", "name = \"Renamed PBM\"");
    std::fs::write(&install.config, text).unwrap();
    let sent = Instant::now();
    signal(&child.0, "HUP");
    wait_for(30, "the reload in the log", || {
        read(&log).contains("config read again")
    });
    let reload = sent.elapsed();
    assert!(
        reload < Duration::from_secs(5),
        "the reload took {reload:?} under steady mail"
    );

    // A reminder falls due while mail flows.
    make_reminder_due(&install);
    let due = Instant::now();
    wait_for(30, "the reminder to alice", || {
        reminder_queued(&install, ALICE)
    });
    let reminded = due.elapsed();
    // A pass begins no mail after 2 s and no send after 2 s of each of
    // its three sending steps: the timers run within one pass.
    assert!(
        reminded < Duration::from_secs(20),
        "the reminder took {reminded:?} under steady mail"
    );

    // `status` is fresh: a pass ended and a mail was handled lately.
    let pass_age = status_number(&install, "last_pass_age_seconds").expect("a pass ended");
    let mail_age = status_number(&install, "last_mail_age_seconds").expect("a mail handled");
    assert!(
        pass_age <= 20,
        "last pass {pass_age} s ago under steady mail"
    );
    assert!(
        mail_age <= 20,
        "last mail {mail_age} s ago under steady mail"
    );

    // A cron `poll` beside `serve` reads what it found and exits.
    let poll_log = install.path("poll.log");
    let mut poll = Running(command(&install, &["poll"], &poll_log).spawn().unwrap());
    let polled = Instant::now();
    let poll_deadline = Duration::from_secs(20);
    while poll.0.try_wait().unwrap().is_none() && polled.elapsed() < poll_deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let exited = poll.0.try_wait().unwrap();
    eprintln!(
        "reload {reload:?}, reminder {reminded:?}, pass {pass_age} s, mail {mail_age} s, poll {:?}",
        polled.elapsed()
    );
    assert!(
        exited.is_some(),
        "poll still reading after {poll_deadline:?} of steady mail: {}",
        read(&poll_log)
    );

    let left = Duration::from_secs(seconds).saturating_sub(began.elapsed());
    std::thread::sleep(left);
    let rate = stream.rate();
    stream.end();
    assert!(
        rate >= 20.0,
        "the stream delivered {rate:.1} mails a second"
    );
    stop(child);
}

#[test]
#[cfg(unix)]
fn under_a_steady_stream_sighup_timers_status_and_poll_keep_their_time() {
    steady_stream(24);
}

/// The minute of steady mail.
#[test]
#[ignore = "a minute long; the 24-second variant runs always"]
#[cfg(unix)]
fn under_a_minute_of_steady_mail_sighup_timers_status_and_poll_keep_their_time() {
    steady_stream(60);
}

/// A sendmail stand-in that notes each call in `calls` and then hangs.
#[cfg(unix)]
fn hanging_sendmail(install: &Install) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let calls = install.path("sendmail.calls");
    let path = install.path("hanging-sendmail");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\necho call >> '{}'\nexec sleep 60\n",
            calls.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    (path, calls)
}

fn calls(path: &Path) -> usize {
    read(path).lines().count()
}

/// An install whose outbox is a sendmail that hangs (killed after 1 s).
#[cfg(unix)]
fn with_hanging_relay(extra: &str) -> (Install, PathBuf) {
    let install = Install::new();
    let (program, calls) = hanging_sendmail(&install);
    std::fs::write(
        &install.config,
        format!(
            "[server]\naddress = \"{}\"\nname = \"Test PBM\"\n\
             [database]\npath = \"var/db.sqlite\"\n\
             [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\
             [outbox]\nkind = \"sendmail\"\ncommand = \"{}\"\ntimeout_seconds = 1\n\
             [accounts]\nconfirm_addresses = false\n{extra}",
            common::SERVER_ADDRESS,
            program.display()
        ),
    )
    .unwrap();
    (install, calls)
}

#[cfg(unix)]
#[test]
fn a_hanging_relay_costs_a_poll_one_timeout_not_one_per_reply() {
    let (mut install, calls_file) = with_hanging_relay("");
    for i in 0..6 {
        install.send(&format!("p{i}@players.example"), "help", "");
    }
    let out = install.run(&["poll"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        calls(&calls_file),
        1,
        "after a send timed out the pass tried no more mail to that relay"
    );
    assert_eq!(
        status_number(&install, "outbox_waiting"),
        Some(6),
        "the six replies wait in the outbox"
    );
}

#[cfg(unix)]
#[test]
fn a_hanging_relay_does_not_hold_incoming_mail() {
    let (mut install, calls_file) = with_hanging_relay("\n[poll]\ninterval_seconds = 1\n");
    for i in 0..6 {
        install.send(&format!("p{i}@players.example"), "help", "");
    }
    let log = install.path("serve.log");
    let child = serve(&install, &log);
    wait_for(30, "the six mails handled and a send tried", || {
        read(&log).matches("mail processed").count() == 6 && calls(&calls_file) >= 1
    });
    // Mail keeps arriving while the relay hangs: each is handled at the
    // next pass, and no pass waits for the relay again meanwhile.
    for i in 6..12 {
        let id = install.send(&format!("p{i}@players.example"), "help", "");
        wait_for(30, "a mail handled while the relay hangs", || {
            read(&log).contains(&id)
        });
    }
    assert_eq!(
        calls(&calls_file),
        1,
        "the relay that hung is left alone for a while: {}",
        read(&log)
    );
    stop(child);
}

#[test]
fn replies_already_committed_go_out_before_a_crashing_mail_is_read_again() {
    let mut install = Install::with_config("\n[limits]\nfailures_before_quarantine = 10\n");
    install.send("a@players.example", "help", "");
    install.send("b@players.example", "help", "KILLS-THE-SERVER");
    let log = install.path("serve.log");
    let mut runs = 0;
    while install.all_outbox_raw().is_empty() {
        runs += 1;
        assert!(
            runs <= 3,
            "no reply went out in {} runs that each crashed: {}",
            runs - 1,
            read(&log)
        );
        let mut child = Running(
            command(&install, &["serve"], &log)
                .env("PBMCHESS_TEST_ABORT_ON", "KILLS-THE-SERVER")
                .spawn()
                .unwrap(),
        );
        wait_for(30, "serve to crash on the mail", || {
            child.0.try_wait().unwrap().is_some()
        });
    }
    let out = install.all_outbox_raw();
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].contains("To: a@players.example"), "{}", out[0]);
    // The crashing mail is still in the inbox, not yet quarantined.
    let waiting = std::fs::read_dir(install.path("var/inbox/new"))
        .unwrap()
        .count();
    assert_eq!(waiting, 1);
}

#[test]
fn only_mail_that_committed_is_logged_as_processed() {
    let mut install = Install::new();
    // A trap: a mail whose Message-ID starts with `trap` leaves a row
    // whose deferred foreign key fails the group's commit.
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    conn.execute_batch(
        "CREATE TABLE trap (userid TEXT REFERENCES users(userid) DEFERRABLE INITIALLY DEFERRED);
         CREATE TRIGGER trap_mail AFTER INSERT ON processed_mail
         WHEN NEW.message_id LIKE 'trap%'
         BEGIN INSERT INTO trap VALUES ('nobody-at-all'); END;",
    )
    .unwrap();
    drop(conn);
    let before = install.send("a@players.example", "help", "");
    install.deliver_raw(&raw_mail(
        "t@players.example",
        "help",
        "",
        "trap1@players.example",
    ));
    let after = install.send("c@players.example", "help", "");
    let log = install.path("poll.log");
    let status = command(&install, &["poll"], &log).status().unwrap();
    assert_eq!(status.code(), Some(2), "{}", read(&log));
    let log = read(&log);
    assert!(
        !log.contains("mail processed"),
        "nothing committed, nothing logged as processed: {log}"
    );
    for id in [before.as_str(), "trap1@players.example", after.as_str()] {
        assert!(
            log.lines()
                .any(|l| l.contains(id) && l.contains("rolled_back")),
            "{id} logged as rolled back: {log}"
        );
    }
}

/// The `mail processed` log line of a reply "e4" by alice to her board
/// mail, read with `extra` added to the config.
fn reply_log_line(extra: &str) -> String {
    let mut install = Install::with_config("");
    install.send(ALICE, "signup alice Sesame-A1", "");
    install.send(BOB, "signup bob Sesame-B2", "");
    install.poll();
    install.take_outbox();
    install.send(ALICE, "chess challenge alice bob", "");
    install.poll();
    let mails = install.take_outbox();
    let board_mail = common::only_one(&mails, ALICE);
    let config = std::fs::read_to_string(&install.config).unwrap();
    std::fs::write(&install.config, format!("{config}\n{extra}")).unwrap();
    let parent = board_mail.header("Message-ID").unwrap();
    install.deliver_raw(&format!(
        "From: {ALICE}\r\nTo: {}\r\nSubject: Re: {}\r\nMessage-ID: <r1@a.example>\r\n\
         In-Reply-To: {parent}\r\nReferences: {parent}\r\n\
         Date: Mon, 23 Nov 2026 10:05:00 +0000\r\n\r\ne4\r\n\r\n> the board\r\n",
        common::SERVER_ADDRESS,
        board_mail.subject
    ));
    let log = install.path("poll.log");
    assert!(command(&install, &["poll"], &log)
        .status()
        .unwrap()
        .success());
    let log = read(&log);
    log.lines()
        .find(|l| l.contains("r1@a.example") && l.contains("mail processed"))
        .unwrap_or_else(|| panic!("no log line of the reply: {log}"))
        .to_string()
}

#[test]
fn a_reply_is_logged_with_its_board() {
    let line = reply_log_line("");
    assert!(line.contains("reply chess 101"), "{line}");
    assert!(line.contains("outcome=answered"), "{line}");
}

#[test]
fn an_unauthenticated_reply_is_logged_with_its_board() {
    let line = reply_log_line("[security]\nauthserv_id = \"mx.games.test\"\n");
    assert!(line.contains("reply chess 101"), "{line}");
}
