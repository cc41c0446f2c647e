//! The SMTP and sendmail outboxes: urls, settings, a hanging or failing
//! sendmail, an SMTP relay that refuses.

use super::*;
use crate::mail::{build_message, Outgoing, Secret};
use std::os::unix::fs::PermissionsExt;
use std::time::SystemTime;

fn msg() -> Message {
    let out = Outgoing {
        to: "bob@example.org".into(),
        subject: "Chess Board 101 bob".into(),
        body: "board\n".into(),
        in_reply_to: None,
    };
    build_message(&out, 1, b"key", "pbm@chess.example", SystemTime::now()).unwrap()
}

fn script(dir: &Path, body: &str) -> PathBuf {
    let p = dir.join("fake-sendmail");
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn login_problems_are_told_from_verdicts_on_the_mail() {
    for code in ["530", "534", "535", "538"] {
        assert!(is_login_problem(code), "{code}");
    }
    for code in ["550", "551", "552", "553", "554", "421", "451"] {
        assert!(!is_login_problem(code), "{code}");
    }
}

#[test]
fn sendmail_gets_envelope_arguments_and_the_message() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let cmd = script(
        tmp.path(),
        &format!("echo \"$@\" > {0}.args; cat > {0}", out.display()),
    );
    SendmailOutbox::new(&cmd).send(&msg()).unwrap();
    let args = std::fs::read_to_string(format!("{}.args", out.display())).unwrap();
    assert_eq!(args.trim(), "-i -f pbm@chess.example -- bob@example.org");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("Subject: Chess Board 101 bob\r\n"));
}

#[test]
fn sendmail_exit_codes_are_classified() {
    let tmp = tempfile::tempdir().unwrap();
    let perm = script(tmp.path(), "cat >/dev/null; echo no such user >&2; exit 67");
    let err = SendmailOutbox::new(&perm).send(&msg()).unwrap_err();
    assert!(err.is_permanent(), "{err}");
    assert!(err.to_string().contains("no such user"));
    let temp = script(tmp.path(), "cat >/dev/null; exit 75");
    assert!(!SendmailOutbox::new(&temp)
        .send(&msg())
        .unwrap_err()
        .is_permanent());
    let missing = SendmailOutbox::new(&tmp.path().join("nope")).send(&msg());
    assert!(matches!(missing, Err(SendError::Temporary(_))));
}

#[test]
fn a_sendmail_that_never_ends_is_killed_after_the_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let pidfile = tmp.path().join("pid");
    // The script's child sleeps too: the whole group must go.
    let cmd = script(
        tmp.path(),
        &format!(
            "cat >/dev/null; sleep 1000 & echo $! > {}; wait",
            pidfile.display()
        ),
    );
    let started = Instant::now();
    let err = SendmailOutbox::with_timeout(&cmd, Duration::from_secs(1))
        .send(&msg())
        .unwrap_err();
    assert!(!err.is_permanent());
    assert!(
        err.to_string().contains("did not finish within 1 s"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    // Gone, or a zombie waiting for whoever inherited it to reap it.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .trim_start()
        .chars()
        .next();
    assert!(
        matches!(state, None | Some('Z' | 'X')),
        "the sleeping grandchild was killed: {stat}"
    );
}

#[test]
fn a_stop_ends_a_hanging_sendmail_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    // Reads nothing and never ends: the message stays unwritten too.
    let cmd = script(tmp.path(), "exec sleep 1000");
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::SeqCst);
    });
    let started = Instant::now();
    let err = SendmailOutbox::with_timeout(&cmd, Duration::from_secs(600))
        .send_or_stop(&msg(), &stop)
        .unwrap_err();
    assert!(!err.is_permanent());
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn smtp_refusals_of_the_mail_are_permanent_the_rest_temporary() {
    use crate::mail::smtp::tests::{sink, SinkOpts};
    let sink = sink(SinkOpts::default());
    let cfg = SmtpConfig {
        url: None,
        host: Some("127.0.0.1".into()),
        port: Some(sink.port),
        tls: SmtpTls::None,
        username: None,
        password: None,
        password_file: None,
        tls_ca_file: None,
        timeout_seconds: 5,
        hello_name: Some("pbm.test".into()),
    };
    let mut outbox = SmtpOutbox::new(&cfg).unwrap();
    let to = |addr: &str| {
        let out = Outgoing {
            to: addr.into(),
            subject: "Chess Board 101 bob".into(),
            body: ".board\n".into(),
            in_reply_to: None,
        };
        build_message(&out, 1, b"key", "pbm@chess.example", SystemTime::now()).unwrap()
    };
    outbox.send(&to("bob@x.test")).unwrap();
    assert!(outbox
        .send(&to("reject@x.test"))
        .unwrap_err()
        .is_permanent());
    assert!(!outbox
        .send(&to("tempfail@x.test"))
        .unwrap_err()
        .is_permanent());
    outbox.send(&to("ann@x.test")).unwrap();
    outbox.end_pass();
    let log = sink.log.lock().unwrap();
    assert_eq!(log.connections, 1);
    assert_eq!(log.messages.len(), 2);
    let text = String::from_utf8_lossy(&log.messages[0].1).to_string();
    assert!(text.contains("\r\n\r\n.board\r\n"), "{text}");
    assert!(log.commands.contains(&"EHLO pbm.test".to_string()));
}

#[test]
fn smtp_urls_are_read_as_lettre_read_them() {
    let p = parse_url("smtps://us%40er:p%3Ass@mail.example.org/helo.example").unwrap();
    assert_eq!((p.host.as_str(), p.port), ("mail.example.org", 465));
    assert_eq!(p.security, Security::Implicit);
    let (user, pw) = p.credentials.unwrap();
    assert_eq!((user.as_str(), pw.expose()), ("us@er", "p:ss"));
    assert_eq!(p.hello_name.as_deref(), Some("helo.example"));
    let p = parse_url("smtp://127.0.0.1:2525").unwrap();
    assert_eq!((p.port, p.security), (2525, Security::None));
    assert!(p.credentials.is_none());
    let p = parse_url("smtp://h?tls=required").unwrap();
    assert_eq!(
        (p.port, p.security),
        (587, Security::StartTls { required: true })
    );
    let p = parse_url("smtp://h?tls=opportunistic").unwrap();
    assert_eq!(p.security, Security::StartTls { required: false });
    for bad in ["http://h", "smtp://h?tls=maybe", "smtp://", "not a url"] {
        assert!(parse_url(bad).is_err(), "{bad}");
    }
    let err = parse_url("ftp://u:hunter2@h").err().unwrap().to_string();
    assert!(!err.contains("hunter2"), "{err}");
}

#[test]
fn a_user_or_password_with_a_broken_escape_is_refused() {
    for bad in [
        "smtp://u:p%zz@h",
        "smtp://u:p%4@h",
        "smtp://u%:p@h",
        "smtp://u:%ff@h",
    ] {
        let err = parse_url(bad).err().expect(bad).to_string();
        assert!(err.contains("percent-encoding"), "{bad}: {err}");
    }
    let p = parse_url("smtp://u:%C3%A9%25@h").unwrap();
    assert_eq!(p.credentials.unwrap().1.expose(), "é%");
}

#[test]
fn smtp_config_errors_are_reported() {
    let base = SmtpConfig {
        url: None,
        host: None,
        port: None,
        tls: SmtpTls::None,
        username: None,
        password: None,
        password_file: None,
        tls_ca_file: None,
        timeout_seconds: 30,
        hello_name: None,
    };
    assert!(SmtpOutbox::new(&base).is_err());
    let both = SmtpConfig {
        url: Some(Secret::new("smtp://localhost:25")),
        host: Some("h".into()),
        ..base.clone()
    };
    assert!(SmtpOutbox::new(&both).is_err());
    let half = SmtpConfig {
        host: Some("localhost".into()),
        username: Some("u".into()),
        ..base.clone()
    };
    assert!(SmtpOutbox::new(&half).is_err());
    let ok = SmtpConfig {
        url: Some(Secret::new("smtp://127.0.0.1:2525")),
        ..base
    };
    assert!(!format!("{:?}", SmtpOutbox::new(&ok).unwrap()).contains("2525"));
}

#[test]
fn smtp_connection_refused_is_temporary() {
    // A port nobody listens on: bind, learn the port, close.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let cfg = SmtpConfig {
        url: None,
        host: Some("127.0.0.1".into()),
        port: Some(port),
        tls: SmtpTls::None,
        username: None,
        password: None,
        password_file: None,
        tls_ca_file: None,
        timeout_seconds: 5,
        hello_name: None,
    };
    let err = SmtpOutbox::new(&cfg).unwrap().send(&msg()).unwrap_err();
    assert!(matches!(err, SendError::Temporary(_)), "{err}");
}
