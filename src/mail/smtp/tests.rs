//! The client against an in-process sink that can pipeline, ask for AUTH,
//! stay silent, refuse or hang up.

use super::session::{base64, dot_stuffed};
use super::*;
use std::io::{BufRead, Write};
use std::net::TcpListener;
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// How the in-process sink behaves.
#[derive(Clone, Copy, Default)]
pub(crate) struct SinkOpts {
    /// Offers PIPELINING, and then reads MAIL, RCPT and DATA before it
    /// answers any of them (a client that waits for each answer hangs).
    pub pipelining: bool,
    /// Offers AUTH PLAIN LOGIN and wants user `u`, password `p w`.
    pub auth: bool,
    /// Never says anything.
    pub silent: bool,
    /// Closes the connection after each accepted mail, without a word.
    pub hang_up_after_mail: bool,
}

/// What the sink saw.
#[derive(Default)]
pub(crate) struct SinkLog {
    pub connections: usize,
    pub commands: Vec<String>,
    /// Each message as delivered (dot-stuffing undone), with its
    /// recipients.
    pub messages: Vec<(Vec<String>, Vec<u8>)>,
}

pub(crate) struct Sink {
    pub port: u16,
    pub log: Arc<Mutex<SinkLog>>,
}

/// An SMTP server on a loopback port, serving each connection in a
/// thread: `reject@...` gets a 550 at RCPT, `tempfail@...` a 451.
pub(crate) fn sink(opts: SinkOpts) -> Sink {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(SinkLog::default()));
    let shared = log.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            let log = shared.clone();
            std::thread::spawn(move || {
                let _ = serve(conn, opts, &log);
            });
        }
    });
    Sink { port, log }
}

fn serve(conn: TcpStream, opts: SinkOpts, log: &Mutex<SinkLog>) -> std::io::Result<()> {
    log.lock().unwrap().connections += 1;
    if opts.silent {
        std::thread::sleep(Duration::from_secs(30));
        return Ok(());
    }
    let mut w = conn.try_clone()?;
    let mut r = std::io::BufReader::new(conn);
    let mut line = || -> std::io::Result<String> {
        let mut l = String::new();
        r.read_line(&mut l)?;
        Ok(l)
    };
    w.write_all(b"220 sink ready\r\n")?;
    let mut rcpts: Vec<String> = Vec::new();
    loop {
        let l = line()?;
        if l.is_empty() {
            return Ok(());
        }
        let cmd = l.trim_end().to_string();
        log.lock().unwrap().commands.push(cmd.clone());
        let upper = cmd.to_ascii_uppercase();
        if upper.starts_with("EHLO") {
            let mut reply = String::from("250-sink\r\n");
            if opts.pipelining {
                reply.push_str("250-PIPELINING\r\n");
            }
            if opts.auth {
                reply.push_str("250-AUTH PLAIN LOGIN\r\n");
            }
            reply.push_str("250 8BITMIME\r\n");
            w.write_all(reply.as_bytes())?;
        } else if upper.starts_with("MAIL FROM:") {
            rcpts.clear();
            if opts.pipelining {
                // Everything up to DATA before a word back.
                let mut answers = String::from("250 ok\r\n");
                loop {
                    let next = line()?;
                    let c = next.trim_end().to_string();
                    log.lock().unwrap().commands.push(c.clone());
                    if c.eq_ignore_ascii_case("DATA") {
                        break;
                    }
                    answers.push_str(&rcpt(&c, &mut rcpts));
                }
                answers.push_str(if rcpts.is_empty() {
                    "554 no valid recipients\r\n"
                } else {
                    "354 go on\r\n"
                });
                w.write_all(answers.as_bytes())?;
                if !rcpts.is_empty() {
                    take_message(&mut line, &rcpts, log)?;
                    w.write_all(b"250 queued\r\n")?;
                    if opts.hang_up_after_mail {
                        return Ok(());
                    }
                }
            } else {
                w.write_all(b"250 ok\r\n")?;
            }
        } else if upper.starts_with("RCPT TO:") {
            w.write_all(rcpt(&cmd, &mut rcpts).as_bytes())?;
        } else if upper == "DATA" {
            if rcpts.is_empty() {
                w.write_all(b"554 no valid recipients\r\n")?;
            } else {
                w.write_all(b"354 go on\r\n")?;
                take_message(&mut line, &rcpts, log)?;
                w.write_all(b"250 queued\r\n")?;
                if opts.hang_up_after_mail {
                    return Ok(());
                }
            }
        } else if upper.starts_with("AUTH PLAIN ") {
            let ok = cmd[11..] == base64(b"\0u\0p w");
            w.write_all(if ok { b"235 ok\r\n" } else { b"535 no\r\n" })?;
        } else if upper == "AUTH LOGIN" {
            w.write_all(b"334 VXNlcm5hbWU6\r\n")?;
            let user = line()?;
            w.write_all(b"334 UGFzc3dvcmQ6\r\n")?;
            let pass = line()?;
            let ok = user.trim_end() == base64(b"u") && pass.trim_end() == base64(b"p w");
            w.write_all(if ok { b"235 ok\r\n" } else { b"535 no\r\n" })?;
        } else if upper == "QUIT" {
            w.write_all(b"221 bye\r\n")?;
            return Ok(());
        } else if upper == "RSET" || upper == "NOOP" {
            rcpts.clear();
            w.write_all(b"250 ok\r\n")?;
        } else {
            w.write_all(b"500 what\r\n")?;
        }
    }
}

fn rcpt(cmd: &str, rcpts: &mut Vec<String>) -> String {
    let addr = cmd[8..].trim().trim_matches(|c| c == '<' || c == '>');
    if addr.starts_with("reject@") {
        "550 no such user\r\n".into()
    } else if addr.starts_with("tempfail@") {
        "451 try later\r\n".into()
    } else {
        rcpts.push(addr.to_string());
        "250 ok\r\n".into()
    }
}

fn take_message(
    line: &mut impl FnMut() -> std::io::Result<String>,
    rcpts: &[String],
    log: &Mutex<SinkLog>,
) -> std::io::Result<()> {
    let mut msg = Vec::new();
    loop {
        let l = line()?;
        if l.is_empty() || l == ".\r\n" {
            break;
        }
        let l = l.strip_prefix('.').unwrap_or(&l);
        msg.extend_from_slice(l.as_bytes());
    }
    log.lock().unwrap().messages.push((rcpts.to_vec(), msg));
    Ok(())
}

pub(crate) fn client_config(port: u16) -> SmtpClientConfig {
    SmtpClientConfig {
        host: "127.0.0.1".into(),
        port,
        security: Security::None,
        credentials: None,
        ca_pem: None,
        hello_name: "test.local".into(),
        timeout: Duration::from_secs(3),
    }
}

fn to(addr: &str) -> Vec<String> {
    vec![addr.to_string()]
}

const MSG: &[u8] = b"Subject: x\r\n\r\nline\r\n.dot line\r\n..two\r\nend\r\n";

#[test]
fn dots_are_stuffed_and_the_end_is_marked() {
    assert_eq!(dot_stuffed(b"a\r\n.b\r\n"), b"a\r\n..b\r\n.\r\n");
    assert_eq!(dot_stuffed(b".x"), b"..x\r\n.\r\n");
    assert_eq!(dot_stuffed(b""), b"\r\n.\r\n");
}

#[test]
fn many_mails_go_over_one_connection_without_rset_between_clean_ones() {
    let sink = sink(SinkOpts::default());
    let mut client = SmtpClient::new(client_config(sink.port));
    let stop = AtomicBool::new(false);
    for i in 0..5 {
        client
            .send("pbm@x.test", &to(&format!("p{i}@x.test")), MSG, &stop)
            .unwrap();
    }
    client.close();
    std::thread::sleep(Duration::from_millis(50));
    let log = sink.log.lock().unwrap();
    assert_eq!(log.connections, 1);
    assert_eq!(log.messages.len(), 5);
    assert_eq!(log.messages[0].1, MSG, "dot-stuffing undone gives the mail");
    assert_eq!(log.messages[4].0, to("p4@x.test"));
    assert!(!log.commands.iter().any(|c| c == "RSET"));
    assert_eq!(log.commands.last().map(String::as_str), Some("QUIT"));
}

#[test]
fn offered_pipelining_sends_mail_rcpt_and_data_together() {
    // The sink answers nothing until it has DATA: a client waiting
    // for each reply would time out.
    let sink = sink(SinkOpts {
        pipelining: true,
        ..SinkOpts::default()
    });
    let mut client = SmtpClient::new(client_config(sink.port));
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    for _ in 0..3 {
        client
            .send("pbm@x.test", &to("a@x.test"), MSG, &stop)
            .unwrap();
    }
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(sink.log.lock().unwrap().messages.len(), 3);
}

#[test]
fn a_refused_recipient_is_a_refusal_in_the_transaction_and_rset_follows() {
    for pipelining in [false, true] {
        let sink = sink(SinkOpts {
            pipelining,
            ..SinkOpts::default()
        });
        let mut client = SmtpClient::new(client_config(sink.port));
        let stop = AtomicBool::new(false);
        let err = client
            .send("pbm@x.test", &to("reject@x.test"), MSG, &stop)
            .unwrap_err();
        assert!(err.in_transaction);
        assert!(matches!(err.error, SmtpError::Reply { code: 550, .. }));
        let err = client
            .send("pbm@x.test", &to("tempfail@x.test"), MSG, &stop)
            .unwrap_err();
        assert!(matches!(err.error, SmtpError::Reply { code: 451, .. }));
        client
            .send("pbm@x.test", &to("ok@x.test"), MSG, &stop)
            .unwrap();
        let log = sink.log.lock().unwrap();
        assert_eq!(log.messages.len(), 1, "only the good one");
        assert_eq!(log.messages[0].0, to("ok@x.test"));
        assert!(log.commands.iter().any(|c| c == "RSET"));
    }
}

#[test]
fn auth_plain_and_login_carry_the_credentials() {
    let sink = sink(SinkOpts {
        auth: true,
        ..SinkOpts::default()
    });
    let mut cfg = client_config(sink.port);
    cfg.credentials = Some(("u".into(), Secret::new("p w")));
    let stop = AtomicBool::new(false);
    SmtpClient::new(cfg.clone())
        .send("pbm@x.test", &to("a@x.test"), MSG, &stop)
        .unwrap();
    cfg.credentials = Some(("u".into(), Secret::new("wrong")));
    let err = SmtpClient::new(cfg)
        .send("pbm@x.test", &to("a@x.test"), MSG, &stop)
        .unwrap_err();
    assert!(!err.in_transaction, "a login refusal is not the mail's");
    assert!(matches!(err.error, SmtpError::Reply { code: 535, .. }));
    assert_eq!(sink.log.lock().unwrap().messages.len(), 1);
}

#[test]
fn a_connection_the_server_closed_is_replaced_and_the_mail_sent_once() {
    let sink = sink(SinkOpts {
        hang_up_after_mail: true,
        ..SinkOpts::default()
    });
    let mut client = SmtpClient::new(client_config(sink.port));
    let stop = AtomicBool::new(false);
    for i in 0..3 {
        client
            .send("pbm@x.test", &to(&format!("p{i}@x.test")), MSG, &stop)
            .unwrap();
    }
    let log = sink.log.lock().unwrap();
    assert_eq!(log.messages.len(), 3);
    assert_eq!(log.connections, 3);
}

#[test]
fn a_silent_server_times_out_and_a_stop_ends_the_wait_at_once() {
    let sink = sink(SinkOpts {
        silent: true,
        ..SinkOpts::default()
    });
    let mut cfg = client_config(sink.port);
    cfg.timeout = Duration::from_secs(1);
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let err = SmtpClient::new(cfg.clone())
        .send("pbm@x.test", &to("a@x.test"), MSG, &stop)
        .unwrap_err();
    assert!(matches!(err.error, SmtpError::Io(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    cfg.timeout = Duration::from_secs(60);
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::SeqCst);
    });
    let started = Instant::now();
    let err = SmtpClient::new(cfg)
        .send("pbm@x.test", &to("a@x.test"), MSG, &stop)
        .unwrap_err();
    assert_eq!(err.error, SmtpError::Stopped);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn replies_are_bounded() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut c, _) = listener.accept().unwrap();
        let _ = c.write_all(&vec![b'2'; MAX_LINE * 4]);
        std::thread::sleep(Duration::from_secs(5));
    });
    let err = SmtpClient::new(client_config(port))
        .send("pbm@x.test", &to("a@x.test"), MSG, &AtomicBool::new(false))
        .unwrap_err();
    assert!(err.error.to_string().contains("too long"), "{err:?}");
}

/// The lettre this tree takes (Cargo.lock) is 0.11.23, which sets no
/// `TCP_NODELAY` (see the module doc): the reason this client exists.
/// When this fails, another lettre came in: check whether it sets
/// `TCP_NODELAY` (lettre/lettre#1159) before deciding to keep this client,
/// then write the version checked here.
#[test]
fn lettre_is_the_release_without_tcp_nodelay() {
    let lock = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock"));
    let versions: Vec<&str> = lock
        .split("[[package]]")
        .filter(|package| package.contains("\nname = \"lettre\"\n"))
        .filter_map(|package| {
            package
                .lines()
                .find_map(|line| line.strip_prefix("version = \""))
                .map(|v| v.trim_end_matches('"'))
        })
        .collect();
    assert_eq!(versions, ["0.11.23"]);
}
