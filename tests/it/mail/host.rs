//! On a real mail host: `check` and `status` tell the admin the truth,
//! SIGHUP reads the config again, bounces stop an address that never
//! reads its mail, and no secret of the config reaches an output.

use crate::common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{raw_mail, Install, SERVER_ADDRESS};

/// A secret planted in configs: it must appear in no output.
const PLANTED: &str = "Pl4nted-S3cret-9f2c";

fn text(out: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A sendmail stand-in: `body` runs as a shell script.
#[cfg(unix)]
fn stub(install: &Install, name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = install.path(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn check_says_what_works_and_exits_0() {
    let install = Install::new();
    let out = install.run(&["check"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    for what in ["config", "database", "inbox", "outbox"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with("ok") && l.contains(&format!("{what}:"))),
            "no ok line for {what}: {stdout}"
        );
    }
}

#[test]
fn check_exits_2_on_a_failing_imap_login_and_never_prints_the_password() {
    // Nothing listens on the port: the login cannot work.
    let (_refusing, port) = common::refusing_port();
    let install = Install::with_whole_config(&format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\n[database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"imap\"\nhost = \"127.0.0.1\"\nport = {port}\ntls = \"plain\"\n\
         username = \"chess\"\npassword = \"{PLANTED}\"\ntimeout_seconds = 2\n\
         [outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n"
    ));
    let out = install.run(&["check"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("FAILED") && l.contains("inbox:")),
        "{stdout}"
    );
    assert!(stdout
        .lines()
        .any(|l| l.starts_with("ok") && l.contains("database:")));
    assert!(!stdout.contains(PLANTED) && !stderr.contains(PLANTED));
}

#[cfg(unix)]
#[test]
fn check_runs_sendmail_bv_and_reports_a_queue_it_cannot_write() {
    let install = Install::new();
    let good = stub(
        &install,
        "sendmail-good",
        "[ \"$1\" = -bv ] || exit 64\nexit 0",
    );
    let bad = stub(
        &install,
        "sendmail-bad",
        "echo 'postdrop: warning: mail_queue_enter: create file maildrop/1: Permission denied' >&2\nexit 75",
    );
    let with = |command: &std::path::Path| {
        let text = std::fs::read_to_string(&install.config).unwrap().replace(
            "[outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n",
            &format!(
                "[outbox]\nkind = \"sendmail\"\ncommand = \"{}\"\n",
                command.display()
            ),
        );
        let config = install.path("sendmail.toml");
        std::fs::write(&config, text).unwrap();
        common::pbmchess()
            .arg("--config")
            .arg(&config)
            .arg("check")
            .output()
            .unwrap()
    };
    let out = with(&good);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("-bv pbm@games.test accepted"), "{stdout}");
    let out = with(&bad);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("FAILED outbox") && stdout.contains("Permission denied"),
        "{stdout}"
    );
}

#[test]
fn status_shows_the_last_pass_the_queues_and_the_last_errors() {
    let mut install = Install::new();
    let before = install.ok(&["status"]);
    assert!(before.contains("last pass: never"), "{before}");
    install.send("a@players.test", "help", "");
    install.send("b@players.test", "help", "");
    let waiting = install.ok(&["status"]);
    assert!(waiting.contains("inbox: 2 waiting"), "{waiting}");
    install.poll();
    let after = install.ok(&["status"]);
    assert!(after.contains("last pass: 20"), "{after}");
    assert!(after.contains("inbox: 0 waiting"), "{after}");
    assert!(after.contains("outbox: 0 waiting"), "{after}");
    assert!(after.contains("quarantine: 0 quarantined"), "{after}");
    assert!(after.contains("stopped addresses: none"), "{after}");

    let json = install.ok(&["status", "--json"]);
    let json = json.trim();
    assert!(json.starts_with('{') && json.ends_with('}'), "{json}");
    for field in [
        "\"last_pass_age_seconds\":",
        "\"inbox_waiting\":0",
        "\"outbox_waiting\":0",
        "\"outbox_oldest_age_seconds\":null",
        "\"quarantined\":0",
        "\"inbox_last_error\":null",
        "\"stopped_addresses\":[]",
    ] {
        assert!(json.contains(field), "{field} missing: {json}");
    }
}

#[test]
fn status_shows_mail_the_outbox_cannot_send_with_its_age_and_error() {
    // An SMTP server that is not there: the replies wait.
    let (_refusing, port) = common::refusing_port();
    let install = Install::with_config("").clone_with_outbox(&format!(
        "[outbox]\nkind = \"smtp\"\nhost = \"127.0.0.1\"\nport = {port}\ntls = \"none\"\ntimeout_seconds = 2\n",
    ));
    let mail = install.path("help.eml");
    std::fs::write(
        &mail,
        raw_mail("a@players.test", "help", "", "h1@players.test"),
    )
    .unwrap();
    let out = install.run(&["process", mail.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    let status = install.ok(&["status"]);
    assert!(
        status.contains("outbox: 1 waiting (the oldest for"),
        "{status}"
    );
    assert!(
        status.contains("outbox last error: mail 1: ")
            && status.contains(&format!("SMTP 127.0.0.1:{port}")),
        "{status}"
    );
    let json = install.ok(&["status", "--json"]);
    assert!(json.contains("\"outbox_waiting\":1"), "{json}");
    assert!(
        json.contains("\"outbox_last_error\":\"")
            && json.contains(&format!("SMTP 127.0.0.1:{port}")),
        "{json}"
    );
}

trait WithOutbox {
    fn clone_with_outbox(self, outbox: &str) -> Install;
}

impl WithOutbox for Install {
    /// This installation with its `[outbox]` section replaced.
    fn clone_with_outbox(self, outbox: &str) -> Install {
        let text = std::fs::read_to_string(&self.config).unwrap().replace(
            "[outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n",
            outbox,
        );
        std::fs::write(&self.config, text).unwrap();
        self
    }
}

/// A DSN from the recipient's MTA for the mail `id` sent to `to`.
fn dsn(to: &str, id: &str, n: u32) -> String {
    format!(
        "From: MAILER-DAEMON@mx.players.test (Mail Delivery System)\r\n\
         To: {SERVER_ADDRESS}\r\n\
         Subject: Undelivered Mail Returned to Sender\r\n\
         Message-ID: <dsn{n}.{}@mx.players.test>\r\n\
         Auto-Submitted: auto-replied\r\n\
         MIME-Version: 1.0\r\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\
         \r\n\
         --B\r\n\
         Content-Type: text/plain\r\n\
         \r\n\
         Your message could not be delivered.\r\n\
         \r\n\
         --B\r\n\
         Content-Type: message/delivery-status\r\n\
         \r\n\
         Reporting-MTA: dns; mx.players.test\r\n\
         \r\n\
         Final-Recipient: rfc822; {to}\r\n\
         Action: failed\r\n\
         Status: 5.2.2\r\n\
         Diagnostic-Code: smtp; 552 5.2.2 mailbox full\r\n\
         \r\n\
         --B\r\n\
         Content-Type: text/rfc822-headers\r\n\
         \r\n\
         From: Test PBM <{SERVER_ADDRESS}>\r\n\
         To: {to}\r\n\
         Message-ID: <{id}>\r\n\
         \r\n\
         --B--\r\n",
        std::process::id()
    )
}

#[test]
fn bounces_stop_an_address_and_a_mail_from_it_clears_them() {
    let mut install = Install::with_config("bounces_before_stop = 2\n");
    install.ok(&["admin", "user", "add", "alice", "pw", "a@players.test"]);
    install.ok(&["admin", "user", "add", "bob", "pw", "b@players.test"]);
    // Two help answers to alice: their Message-IDs are what bounces quote.
    install.send("a@players.test", "help", "");
    install.poll();
    install.send("a@players.test", "help", "");
    install.poll();
    let sent = install.take_outbox();
    assert_eq!(sent.len(), 2);
    let ids: Vec<String> = sent
        .iter()
        .map(|m| {
            m.header("Message-ID")
                .unwrap()
                .trim_matches(['<', '>'])
                .to_string()
        })
        .collect();

    // Forged bounces count for nothing: an id the server never sent, and
    // a real id claimed for another recipient.
    install.deliver_raw(&dsn(
        "a@players.test",
        "pbmchess.999.0123456789abcdef@games.test",
        1,
    ));
    install.deliver_raw(&dsn("b@players.test", &ids[0], 2));
    install.poll();
    assert!(install.ok(&["status"]).contains("stopped addresses: none"));

    install.deliver_raw(&dsn("a@players.test", &ids[0], 3));
    install.poll();
    assert!(install.ok(&["status"]).contains("stopped addresses: none"));
    // Bounces within a day stop nothing; a day and more later they do.
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    conn.execute(
        "UPDATE mail_bounces SET bounced_at = '2026-01-01T00:00:00Z'",
        [],
    )
    .unwrap();
    drop(conn);
    install.deliver_raw(&dsn("A@Players.test", &ids[1], 4));
    install.poll();
    let status = install.ok(&["status"]);
    assert!(
        status.contains("stopped addresses (bounced): 1")
            && status.contains("a@players.test (2 bounces"),
        "{status}"
    );
    let json = install.ok(&["status", "--json"]);
    assert!(
        json.contains("{\"address\":\"a@players.test\",\"bounces\":2"),
        "{json}"
    );

    // Mail for alice is now given up unsent; bob's still goes.
    assert_eq!(
        install
            .ok(&["admin", "challenge", "chess", "alice", "bob"])
            .trim(),
        "101"
    );
    let sent = install.take_outbox();
    assert!(sent.iter().all(|m| m.to != "a@players.test"), "{sent:#?}");
    assert!(sent.iter().any(|m| m.to == "b@players.test"));
    let list = install.ok(&["admin", "outbox", "list"]);
    assert!(list.contains("bounced too often"), "{list}");

    // Alice writes: she reads her mail after all, and gets the answer.
    install.send("a@players.test", "help", "");
    install.poll();
    let sent = install.take_outbox();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].to, "a@players.test");
    // The answer says since when the address was sent nothing.
    assert!(
        common::joined(&sent[0].body).contains("mail to this address bounced as undeliverable"),
        "{}",
        sent[0].body
    );
    assert!(install.ok(&["status"]).contains("stopped addresses: none"));
}

/// Wait until `done`, at most `secs` seconds.
fn wait_for(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn signal(child: &std::process::Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn sighup_reads_the_config_again_and_sigterm_still_stops_serve() {
    let mut install = Install::with_config("\n[poll]\ninterval_seconds = 1\n");
    let log = install.path("serve.log");
    let mut child = common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .arg("serve")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    install.send("a@players.test", "help", "");
    let mut got = Vec::new();
    wait_for(30, "the first answer", || {
        got.extend(install.take_outbox());
        !got.is_empty()
    });
    assert!(
        got[0].raw.contains("From: \"Test PBM\" <"),
        "{}",
        got[0].raw
    );
    // The admin renames the server and sends SIGHUP.
    let text = std::fs::read_to_string(&install.config)
        .unwrap()
        .replace("name = \"Test PBM\"", "name = \"Renamed PBM\"");
    std::fs::write(&install.config, text).unwrap();
    signal(&child, "HUP");
    wait_for(20, "the reload in the log", || {
        std::fs::read_to_string(&log)
            .unwrap()
            .contains("config read again")
    });
    assert!(child.try_wait().unwrap().is_none(), "SIGHUP killed serve");
    install.send("b@players.test", "help", "");
    let mut got = Vec::new();
    wait_for(30, "the answer after the reload", || {
        got.extend(install.take_outbox());
        !got.is_empty()
    });
    assert!(
        got[0].raw.contains("From: \"Renamed PBM\" <"),
        "{}",
        got[0].raw
    );

    let started = Instant::now();
    signal(&child, "TERM");
    wait_for(10, "serve to stop on SIGTERM", || {
        child.try_wait().unwrap().is_some()
    });
    assert!(started.elapsed() < Duration::from_secs(10));
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(
        log.contains("starting") && log.contains("db.sqlite"),
        "{log}"
    );
}

#[test]
fn a_broken_config_on_sighup_keeps_serve_running_on_the_old_one_without_leaking() {
    let install = Install::with_config("\n[poll]\ninterval_seconds = 1\n");
    let log = install.path("serve.log");
    let mut child = common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .arg("serve")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    wait_for(20, "serve to start", || {
        std::fs::read_to_string(&log).unwrap().contains("serving")
    });
    let text = std::fs::read_to_string(&install.config).unwrap();
    std::fs::write(
        &install.config,
        format!("{text}\n[outbox2]\npassword = \"{PLANTED}\"\nport = 5x\n"),
    )
    .unwrap();
    signal(&child, "HUP");
    wait_for(20, "the refused reload in the log", || {
        std::fs::read_to_string(&log)
            .unwrap()
            .contains("the config was not read again")
    });
    assert!(
        child.try_wait().unwrap().is_none(),
        "serve died on a bad reload"
    );
    signal(&child, "TERM");
    wait_for(10, "serve to stop", || child.try_wait().unwrap().is_some());
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(!log.contains(PLANTED), "{log}");
}

#[test]
fn sigterm_stops_serve_within_seconds_even_while_a_mail_server_hangs() {
    // An "IMAP server" that takes the connection and never says a word:
    // serve waits in its greeting for up to timeout_seconds (60).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = accepted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            held.push(stream);
        }
    });
    let install = Install::with_whole_config(&format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\n[database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"imap\"\nhost = \"127.0.0.1\"\nport = {port}\ntls = \"plain\"\n\
         username = \"chess\"\npassword = \"{PLANTED}\"\ntimeout_seconds = 60\n\
         [outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n"
    ));
    let mut child = common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(20, "serve to connect to the silent server", || {
        accepted.load(std::sync::atomic::Ordering::SeqCst)
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().unwrap().is_none());
    let started = Instant::now();
    signal(&child, "TERM");
    wait_for(12, "serve to stop on SIGTERM", || {
        child.try_wait().unwrap().is_some()
    });
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "serve took {:?} to stop",
        started.elapsed()
    );
}
