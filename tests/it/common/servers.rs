//! Real mail servers for the tests: Dovecot (IMAP) and aiosmtpd (SMTP,
//! `tests/servers/smtp_router.py`), started per test by
//! `tests/servers/start.sh` in a temp dir and stopped on drop.
//!
//! When the packages (dovecot-imapd, python3-aiosmtpd) are missing,
//! [`Servers::start`] prints `skipped: ...` and returns `None`, unless
//! `PBMCHESS_TEST_SERVERS_REQUIRED=1` is set, where it fails the test.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::{parse_sent, SentMail};

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers")
        .join(name)
}

/// Says on the real stderr that `test` is skipped and why (not eprintln!,
/// which the test harness captures, so the skip shows in a normal run).
pub fn skip(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}

/// With openssl there: the TLS ports and the self-signed certificate.
#[derive(Clone, Debug)]
pub struct Tls {
    pub imaps_port: u16,
    pub smtps_port: u16,
    pub ca_file: PathBuf,
}

/// One of the two servers, for outages.
#[derive(Clone, Copy, Debug)]
pub enum Service {
    Dovecot,
    Smtp,
}

/// Dovecot and the SMTP router, started by `tests/servers/start.sh` in a
/// temp dir; stopped on drop.
pub struct Servers {
    pub dir: tempfile::TempDir,
    pub imap_port: u16,
    pub smtp_port: u16,
    pub tls: Option<Tls>,
}

impl Servers {
    /// Starts the servers, or returns `None` (after printing why, see
    /// [`skip`]) when the packages are missing.
    pub fn start(test: &str) -> Option<Servers> {
        let dir = tempfile::Builder::new()
            .prefix("pbmchess-mail-")
            .tempdir()
            .unwrap();
        let out = Command::new(script("start.sh"))
            .arg(dir.path())
            .output()
            .expect("run tests/servers/start.sh");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() == Some(77) {
            let required = std::env::var("PBMCHESS_TEST_SERVERS_REQUIRED").is_ok_and(|v| v == "1");
            assert!(!required, "{test}: mail test servers required but {stderr}");
            skip(test, stderr.trim());
            return None;
        }
        assert!(out.status.success(), "start.sh failed: {stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let get = |name: &str| -> Option<String> {
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{name}=")))
                .map(str::to_string)
        };
        let port = |name: &str| -> u16 {
            get(name)
                .unwrap_or_else(|| panic!("start.sh printed no {name}: {stdout}"))
                .parse()
                .unwrap()
        };
        let tls = get("PBMCHESS_TEST_CA_FILE").map(|ca| Tls {
            imaps_port: port("PBMCHESS_TEST_IMAPS_PORT"),
            smtps_port: port("PBMCHESS_TEST_SMTPS_PORT"),
            ca_file: PathBuf::from(ca),
        });
        Some(Servers {
            imap_port: port("PBMCHESS_TEST_IMAP_PORT"),
            smtp_port: port("PBMCHESS_TEST_SMTP_PORT"),
            tls,
            dir,
        })
    }

    /// Stops one server alone (`tests/servers/service.sh DIR stop NAME`);
    /// returns once its ports are closed.
    pub fn stop(&self, service: Service) {
        self.service("stop", service);
    }

    /// Starts again, on the same ports, a server [`Servers::stop`] stopped
    /// (`service.sh DIR start NAME`); returns once its ports are open.
    pub fn restart(&self, service: Service) {
        self.service("start", service);
    }

    fn service(&self, action: &str, service: Service) {
        let name = match service {
            Service::Dovecot => "dovecot",
            Service::Smtp => "smtp",
        };
        let out = Command::new(script("service.sh"))
            .arg(self.dir.path())
            .args([action, name])
            .output()
            .expect("run tests/servers/service.sh");
        assert!(
            out.status.success(),
            "service.sh {action} {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A raw IMAP session as `user` (password `user-secret`), for checking
    /// what the code under test did.
    pub fn session(&self, user: &str) -> imap::Session<std::net::TcpStream> {
        let tcp = std::net::TcpStream::connect(("127.0.0.1", self.imap_port)).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut client = imap::Client::new(tcp);
        client.read_greeting().unwrap();
        client
            .login(user, format!("{user}-secret"))
            .map_err(|(e, _)| e)
            .unwrap()
    }

    /// How many messages `mailbox` of `user` holds.
    pub fn count(&self, user: &str, mailbox: &str) -> u32 {
        let mut s = self.session(user);
        let n = s.examine(mailbox).unwrap().exists;
        s.logout().unwrap();
        n
    }

    /// Every mail in `user`'s INBOX, read over IMAP, in arrival order.
    pub fn mailbox(&self, user: &str) -> Vec<SentMail> {
        let mut s = self.session(user);
        let exists = s.examine("INBOX").unwrap().exists;
        let mut out = Vec::new();
        if exists > 0 {
            let fetches = s.fetch("1:*", "BODY.PEEK[]").unwrap();
            for f in fetches.iter() {
                out.push(parse_sent(&String::from_utf8_lossy(f.body().unwrap())));
            }
        }
        s.logout().unwrap();
        out
    }

    /// Every mail delivered to the sink Maildir, in delivery order.
    pub fn sink(&self) -> Vec<SentMail> {
        let mut files = Vec::new();
        for sub in ["new", "cur"] {
            if let Ok(rd) = std::fs::read_dir(self.dir.path().join("sink").join(sub)) {
                files.extend(rd.map(|e| e.unwrap().path()));
            }
        }
        // smtp_router.py names files `<secs>.M<micros>P<pid>Q<counter>...`.
        files.sort_by_key(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let num = |s: &str| s.parse::<u64>().unwrap_or(0);
            let (secs, rest) = name.split_once(".M").unwrap_or((&name, ""));
            let micros = rest.split('P').next().unwrap_or("");
            (num(secs), num(micros), name.clone())
        });
        files
            .iter()
            .map(|f| parse_sent(&std::fs::read_to_string(f).unwrap()))
            .collect()
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        let _ = Command::new(script("stop.sh"))
            .arg(self.dir.path())
            .status();
    }
}

/// Submits `raw` from `from` to `to` over SMTP, with a tiny client of its
/// own: the tests must not depend on the code under test to put mail in.
pub fn submit(smtp_port: u16, from: &str, to: &str, raw: &[u8]) {
    let mut smtp = std::net::TcpStream::connect(("127.0.0.1", smtp_port)).unwrap();
    smtp.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(smtp.try_clone().unwrap());
    let mut expect = |code: &str| loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert!(line.starts_with(code), "expected {code}, got {line:?}");
        if line.as_bytes().get(3) != Some(&b'-') {
            break;
        }
    };
    expect("220");
    for (cmd, code) in [
        ("HELO player.test".to_string(), "250"),
        (format!("MAIL FROM:<{from}>"), "250"),
        (format!("RCPT TO:<{to}>"), "250"),
        ("DATA".to_string(), "354"),
    ] {
        write!(smtp, "{cmd}\r\n").unwrap();
        expect(code);
    }
    smtp.write_all(raw).unwrap();
    smtp.write_all(b"\r\n.\r\n").unwrap();
    expect("250");
    smtp.write_all(b"QUIT\r\n").unwrap();
}

/// Waits (at most `secs`) until `done` holds; fails the test naming `what`
/// when it never does.
pub fn wait_until(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
