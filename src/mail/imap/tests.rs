//! IMAP message ids and quoting, and the configuration checked before any
//! connection (the IMAP inbox against Dovecot is in tests/it/mail/).

use super::*;

#[test]
fn ids_round_trip() {
    assert_eq!(parse_id("17:42"), Some((17, 42)));
    assert_eq!(parse_id("x:1"), None);
    assert_eq!(parse_id("1"), None);
}

#[test]
fn quoting_escapes() {
    assert_eq!(quote("a \"b\" \\c"), "\"a \\\"b\\\" \\\\c\"");
}

fn cfg() -> ImapConfig {
    ImapConfig {
        host: "127.0.0.1".into(),
        port: None,
        tls: ImapTls::Plain,
        username: "u".into(),
        password: Some(Secret::new("p")),
        password_file: None,
        mailbox: "INBOX".into(),
        processed_mailbox: None,
        quarantine_mailbox: "Quarantine".into(),
        tls_ca_file: None,
        idle: true,
        timeout_seconds: 5,
    }
}

#[test]
fn config_is_checked_without_connecting() {
    assert!(ImapInbox::new(&cfg()).is_ok());
    let mut c = cfg();
    c.password = None;
    assert!(ImapInbox::new(&c).is_err());
    let mut c = cfg();
    c.processed_mailbox = Some("Bad\r\nName".into());
    assert!(ImapInbox::new(&c).is_err());
    let debug = format!("{:?}", ImapInbox::new(&cfg()).unwrap());
    assert!(!debug.contains("\"p\""), "{debug}");
}

#[test]
fn unreachable_server_is_an_error_not_a_hang() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut c = cfg();
    c.port = Some(port);
    let mut inbox = ImapInbox::new(&c).unwrap();
    let err = inbox.fetch(10).unwrap_err();
    assert!(err.to_string().contains("cannot connect"), "{err}");
    let start = Instant::now();
    inbox.wait_for_mail(Duration::from_millis(200)).unwrap();
    assert!(start.elapsed() >= Duration::from_millis(200));
}
