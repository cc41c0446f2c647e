//! End-to-end mail tests against real servers: Dovecot (IMAP) and aiosmtpd
//! (SMTP), started per test by `tests/servers/start.sh` in a temp dir.
//!
//! When the packages (dovecot-imapd, python3-aiosmtpd) are missing, each
//! test prints `skipped: ...` and passes, unless
//! `PBMCHESS_TEST_SERVERS_REQUIRED=1` is set (CI that installs them), where a
//! missing package fails the test.

use crate::common;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use common::servers::{skip, submit, Servers, Service, Tls};
use pbmchess::mail::{
    build_message, parse_envelope, Done, ImapConfig, ImapInbox, ImapTls, Inbox, Outgoing, Secret,
    SendError, Sender, SmtpConfig, SmtpOutbox, SmtpTls,
};

const SERVER: &str = "pbm@test.local";
const PLAYER: &str = "alice@test.local";

/// The library's own configs for [`Servers`].
impl Servers {
    fn imap_config(&self, user: &str, processed: Option<&str>) -> ImapConfig {
        ImapConfig {
            host: "127.0.0.1".into(),
            port: Some(self.imap_port),
            tls: ImapTls::Plain,
            username: user.into(),
            password: Some(Secret::new(format!("{user}-secret"))),
            password_file: None,
            mailbox: "INBOX".into(),
            processed_mailbox: processed.map(str::to_string),
            quarantine_mailbox: "Quarantine".into(),
            tls_ca_file: None,
            idle: true,
            timeout_seconds: 10,
        }
    }

    fn smtp(&self) -> SmtpOutbox {
        SmtpOutbox::new(&SmtpConfig {
            url: None,
            host: Some("127.0.0.1".into()),
            port: Some(self.smtp_port),
            tls: SmtpTls::None,
            username: None,
            password: None,
            password_file: None,
            tls_ca_file: None,
            timeout_seconds: 10,
            hello_name: None,
        })
        .unwrap()
    }
}

/// A player's mail, as a mail client would write it.
fn player_mail(n: u32, subject: &str) -> Vec<u8> {
    format!(
        "From: Alice <{PLAYER}>\r\nTo: {SERVER}\r\nSubject: {subject}\r\n\
         Message-ID: <cmd{n}@test.local>\r\nDate: Sun, 22 Nov 2026 05:00:0{n} +0000\r\n\r\n\
         Good luck!\r\n\r\nOn Sat, Bob wrote:\r\n> old\r\n"
    )
    .into_bytes()
}

/// Submits [`player_mail`] `n` from the player to the server over SMTP.
fn submit_player_mail(smtp_port: u16, n: u32, subject: &str) {
    submit(smtp_port, PLAYER, SERVER, &player_mail(n, subject));
}

fn wait_for_unseen(inbox: &mut ImapInbox, n: usize) -> Vec<pbmchess::mail::InboundMessage> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = inbox.fetch(100).unwrap();
        if got.len() >= n || Instant::now() > deadline {
            return got;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn imap_inbox_fetches_in_order_and_moves_done_mail() {
    let Some(servers) = Servers::start("imap_inbox_fetches_in_order_and_moves_done_mail") else {
        return;
    };
    // One mail through SMTP, one appended straight into the mailbox.
    submit_player_mail(servers.smtp_port, 1, "chess help");
    let mut raw_session = servers.session("pbm");
    raw_session
        .append("INBOX", &player_mail(2, "chess list"))
        .finish()
        .unwrap();

    let mut inbox = ImapInbox::new(&servers.imap_config("pbm", Some("Processed"))).unwrap();
    let got = wait_for_unseen(&mut inbox, 2);
    let subjects: Vec<_> = got
        .iter()
        .map(|m| parse_envelope(&m.raw, &[SERVER.into()]).subject)
        .collect();
    assert_eq!(subjects, ["chess help", "chess list"]);
    let first = parse_envelope(&got[0].raw, &[SERVER.into()]);
    assert_eq!(first.sender.as_deref(), Some(PLAYER));
    assert_eq!(first.message_id, "cmd1@test.local");
    assert_eq!(first.comment, "Good luck!");
    assert_eq!(first.never_answer, None);

    // Fetching is a peek: until mark_done, a crash would read them again.
    assert_eq!(inbox.fetch(100).unwrap().len(), 2);
    let mut fresh = ImapInbox::new(&servers.imap_config("pbm", Some("Processed"))).unwrap();
    assert_eq!(fresh.fetch(100).unwrap().len(), 2);
    assert_eq!(fresh.fetch(1).unwrap().len(), 1);

    inbox.mark_done(&got[0], Done::Processed).unwrap();
    inbox.mark_done(&got[1], Done::Ignored).unwrap();
    assert!(inbox.fetch(100).unwrap().is_empty());
    assert!(fresh.fetch(100).unwrap().is_empty());
    // Marking again is harmless.
    inbox.mark_done(&got[0], Done::Processed).unwrap();

    // Both moved to Processed, seen; the ignored one also flagged.
    let inbox_box = raw_session.examine("INBOX").unwrap();
    assert_eq!(inbox_box.exists, 0);
    let processed = raw_session.examine("Processed").unwrap();
    assert_eq!(processed.exists, 2);
    let fetches = raw_session
        .fetch("1:2", "(FLAGS BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        .unwrap();
    let mut flags: Vec<(String, Vec<String>)> = fetches
        .iter()
        .map(|f| {
            let subject = String::from_utf8_lossy(f.header().unwrap())
                .trim()
                .to_string();
            let flags = f.flags().iter().map(|fl| format!("{fl:?}")).collect();
            (subject, flags)
        })
        .collect();
    flags.sort();
    assert_eq!(flags[0].0, "Subject: chess help");
    assert!(flags[0].1.contains(&"Seen".to_string()), "{flags:?}");
    assert!(!flags[0].1.contains(&"Flagged".to_string()), "{flags:?}");
    assert!(flags[1].1.contains(&"Seen".to_string()), "{flags:?}");
    assert!(flags[1].1.contains(&"Flagged".to_string()), "{flags:?}");
    raw_session.logout().unwrap();
}

#[test]
fn imap_quarantine_creates_its_mailbox_and_moves_the_mail_there() {
    let Some(servers) =
        Servers::start("imap_quarantine_creates_its_mailbox_and_moves_the_mail_there")
    else {
        return;
    };
    submit_player_mail(servers.smtp_port, 1, "chess help");
    submit_player_mail(servers.smtp_port, 2, "chess list");
    let mut inbox = ImapInbox::new(&servers.imap_config("pbm", None)).unwrap();
    let got = wait_for_unseen(&mut inbox, 2);
    assert_eq!(got.len(), 2);
    inbox.mark_done(&got[0], Done::Quarantined).unwrap();
    // The other mail is still there to be processed.
    let left = inbox.fetch(100).unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(
        parse_envelope(&left[0].raw, &[SERVER.into()]).subject,
        "chess list"
    );
    let mut raw_session = servers.session("pbm");
    let quarantine = raw_session.examine("Quarantine").unwrap();
    assert_eq!(quarantine.exists, 1, "created at connect, holds the mail");
    let flagged = raw_session.search("FLAGGED").unwrap();
    assert_eq!(flagged.len(), 1);
    raw_session.logout().unwrap();
}

#[test]
fn imap_inbox_without_processed_mailbox_only_sets_seen() {
    let Some(servers) = Servers::start("imap_inbox_without_processed_mailbox_only_sets_seen")
    else {
        return;
    };
    submit_player_mail(servers.smtp_port, 1, "chess help");
    let mut inbox = ImapInbox::new(&servers.imap_config("pbm", None)).unwrap();
    let got = wait_for_unseen(&mut inbox, 1);
    assert_eq!(got.len(), 1);
    inbox.mark_done(&got[0], Done::Processed).unwrap();
    assert!(inbox.fetch(100).unwrap().is_empty());
    let mut raw_session = servers.session("pbm");
    let mailbox = raw_session.examine("INBOX").unwrap();
    assert_eq!(mailbox.exists, 1);
    let seen = raw_session.search("SEEN").unwrap();
    assert_eq!(seen.len(), 1);
}

#[test]
fn imap_wait_for_mail_wakes_up_on_new_mail() {
    let Some(servers) = Servers::start("imap_wait_for_mail_wakes_up_on_new_mail") else {
        return;
    };
    let mut inbox = ImapInbox::new(&servers.imap_config("pbm", None)).unwrap();
    assert!(inbox.fetch(10).unwrap().is_empty());
    let port = servers.smtp_port;
    let sender = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(700));
        submit_player_mail(port, 3, "chess games");
    });
    let start = Instant::now();
    inbox.wait_for_mail(Duration::from_secs(30)).unwrap();
    let waited = start.elapsed();
    sender.join().unwrap();
    assert!(
        waited < Duration::from_secs(20),
        "IDLE did not wake up: {waited:?}"
    );
    assert_eq!(wait_for_unseen(&mut inbox, 1).len(), 1);
    // Mail already waiting: returns at once.
    let start = Instant::now();
    inbox.wait_for_mail(Duration::from_secs(30)).unwrap();
    assert!(start.elapsed() < Duration::from_secs(5));
    // And after waiting, the connection still works with its timeouts.
    assert_eq!(inbox.fetch(10).unwrap().len(), 1);
}

#[test]
fn imap_wrong_password_is_an_error() {
    let Some(servers) = Servers::start("imap_wrong_password_is_an_error") else {
        return;
    };
    let mut cfg = servers.imap_config("pbm", None);
    cfg.password = Some(Secret::new("wrong"));
    let err = ImapInbox::new(&cfg).unwrap().fetch(10).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("login"), "{text}");
    assert!(!text.contains("wrong"), "password leaked: {text}");
}

#[test]
fn smtp_round_trip_player_to_server_and_back() {
    let Some(servers) = Servers::start("smtp_round_trip_player_to_server_and_back") else {
        return;
    };
    // 1. The player's command reaches the server's IMAP inbox.
    submit_player_mail(servers.smtp_port, 1, "chess move 101 alice pw e4");
    let mut server_inbox = ImapInbox::new(&servers.imap_config("pbm", Some("Done"))).unwrap();
    let got = wait_for_unseen(&mut server_inbox, 1);
    assert_eq!(got.len(), 1);
    let env = parse_envelope(&got[0].raw, &[SERVER.into()]);
    assert_eq!(env.never_answer, None);

    // 2. The server answers over SMTP.
    let reply = Outgoing {
        to: env.sender.clone().unwrap(),
        subject: "Chess Board 101 bob **".into(),
        body: "It is bob's turn.\n\n  |:P:| Q |\n\nGood luck!\n".into(),
        in_reply_to: Some(env.message_id.clone()),
    };
    let msg = build_message(
        &reply,
        42,
        b"key",
        "PBM Chess <pbm@test.local>",
        SystemTime::now(),
    )
    .unwrap();
    servers.smtp().send(&msg).unwrap();
    server_inbox.mark_done(&got[0], Done::Processed).unwrap();

    // 3. It lands in the player's mailbox with the right headers.
    let mut player_inbox = ImapInbox::new(&servers.imap_config("alice", None)).unwrap();
    let got = wait_for_unseen(&mut player_inbox, 1);
    assert_eq!(got.len(), 1);
    let text = String::from_utf8_lossy(&got[0].raw).to_string();
    for header in [
        "Return-Path: <pbm@test.local>",
        "From: \"PBM Chess\" <pbm@test.local>",
        "To: alice@test.local",
        "Subject: Chess Board 101 bob **",
        "In-Reply-To: <cmd1@test.local>",
        "References: <cmd1@test.local>",
        "Auto-Submitted: auto-replied",
        "Content-Type: text/plain; charset=utf-8",
        "Message-ID: <pbmchess.42.",
        "Date: ",
    ] {
        assert!(text.contains(header), "missing {header:?} in\n{text}");
    }
    assert!(text.contains("  |:P:| Q |"), "{text}");
    // 4. Should it ever come back to the server, it is never answered.
    let back = parse_envelope(&got[0].raw, &[SERVER.into()]);
    assert!(back.never_answer.is_some());
    assert_eq!(back.subject, "Chess Board 101 bob **");
}

#[test]
fn smtp_to_other_domains_reaches_the_sink_and_down_server_is_temporary() {
    let Some(servers) =
        Servers::start("smtp_to_other_domains_reaches_the_sink_and_down_server_is_temporary")
    else {
        return;
    };
    let out = Outgoing {
        to: "bob@elsewhere.example".into(),
        subject: "Chess Board 101 Error".into(),
        body: "No such board.\n".into(),
        in_reply_to: None,
    };
    let msg = build_message(&out, 1, b"key", SERVER, SystemTime::now()).unwrap();
    let mut smtp = servers.smtp();
    smtp.send(&msg).unwrap();
    let sink = servers.dir.path().join("sink/new");
    let files: Vec<_> = std::fs::read_dir(&sink).unwrap().collect();
    assert_eq!(files.len(), 1);

    servers.stop(Service::Smtp);
    let err = smtp.send(&msg).unwrap_err();
    assert!(matches!(err, SendError::Temporary(_)), "{err}");
}

#[test]
fn tls_imap_and_smtp_with_a_private_ca() {
    let name = "tls_imap_and_smtp_with_a_private_ca";
    let Some(servers) = Servers::start(name) else {
        return;
    };
    let Some(Tls {
        imaps_port,
        smtps_port,
        ca_file: ca,
    }) = servers.tls.clone()
    else {
        skip(name, "no openssl for a test certificate");
        return;
    };
    // SMTP with STARTTLS and with TLS from the first byte.
    let smtp_config = |tls: SmtpTls, port: u16, ca: Option<PathBuf>| SmtpConfig {
        url: None,
        host: Some("localhost".into()),
        port: Some(port),
        tls,
        username: None,
        password: None,
        password_file: None,
        tls_ca_file: ca,
        timeout_seconds: 10,
        hello_name: None,
    };
    for (n, (tls, port)) in [
        (SmtpTls::Starttls, servers.smtp_port),
        (SmtpTls::Implicit, smtps_port),
    ]
    .into_iter()
    .enumerate()
    {
        let out = Outgoing {
            to: SERVER.into(),
            subject: format!("chess help {n}"),
            body: "help\n".into(),
            in_reply_to: None,
        };
        let msg = build_message(&out, n as i64, b"key", PLAYER, SystemTime::now()).unwrap();
        // Not trusted without the CA file: a temporary failure, not a send.
        let err = SmtpOutbox::new(&smtp_config(tls, port, None))
            .unwrap()
            .send(&msg)
            .unwrap_err();
        assert!(matches!(err, SendError::Temporary(_)), "{err}");
        SmtpOutbox::new(&smtp_config(tls, port, Some(ca.clone())))
            .unwrap()
            .send(&msg)
            .unwrap();
    }
    // IMAP with TLS from the first byte and with STARTTLS.
    for (tls, port) in [
        (ImapTls::Implicit, imaps_port),
        (ImapTls::Starttls, servers.imap_port),
    ] {
        let mut cfg = servers.imap_config("pbm", None);
        cfg.host = "localhost".into();
        cfg.tls = tls;
        cfg.port = Some(port);
        let err = ImapInbox::new(&cfg).unwrap().fetch(10).unwrap_err();
        assert!(err.to_string().contains("TLS"), "{tls:?}: {err}");
        cfg.tls_ca_file = Some(ca.clone());
        let mut inbox = ImapInbox::new(&cfg).unwrap();
        let got = wait_for_unseen(&mut inbox, 2);
        let subjects: Vec<_> = got
            .iter()
            .map(|m| parse_envelope(&m.raw, &[]).subject)
            .collect();
        assert_eq!(subjects, ["chess help 0", "chess help 1"], "{tls:?}");
    }
}

#[test]
fn smtp_rejections_are_classified() {
    let Some(servers) = Servers::start("smtp_rejections_are_classified") else {
        return;
    };
    let mut smtp = servers.smtp();
    let send = |smtp: &mut SmtpOutbox, to: &str| {
        let out = Outgoing {
            to: to.into(),
            subject: "Chess Board 101 Error".into(),
            body: "x\n".into(),
            in_reply_to: None,
        };
        smtp.send(&build_message(&out, 1, b"key", SERVER, SystemTime::now()).unwrap())
    };
    let err = send(&mut smtp, "reject@test.local").unwrap_err();
    assert!(matches!(err, SendError::Permanent(_)), "{err}");
    assert!(
        err.to_string().contains("550") || err.to_string().contains("no such user"),
        "{err}"
    );
    let err = send(&mut smtp, "tempfail@test.local").unwrap_err();
    assert!(matches!(err, SendError::Temporary(_)), "{err}");
    send(&mut smtp, PLAYER).unwrap();
}

#[test]
fn imap_inbox_reconnects_after_the_server_drops_it() {
    let Some(servers) = Servers::start("imap_inbox_reconnects_after_the_server_drops_it") else {
        return;
    };
    let mut inbox = ImapInbox::new(&servers.imap_config("pbm", None)).unwrap();
    assert!(inbox.fetch(10).unwrap().is_empty());
    // The server throws every session of pbm out.
    let kicked = Command::new("doveadm")
        .arg("-c")
        .arg(servers.dir.path().join("dovecot.conf"))
        .args(["kick", "pbm"])
        .output()
        .unwrap();
    assert!(kicked.status.success(), "{kicked:?}");
    submit_player_mail(servers.smtp_port, 1, "chess help");
    // The next calls reconnect by themselves.
    let got = wait_for_unseen(&mut inbox, 1);
    assert_eq!(got.len(), 1);
    inbox.mark_done(&got[0], Done::Processed).unwrap();
    assert!(inbox.fetch(10).unwrap().is_empty());
}
