//! A pbmchess installation in a temp folder, driven through the real binary.

#![allow(dead_code)]

pub mod servers;
pub mod world;

use std::path::PathBuf;
use std::process::{Command, Output};

use mail_parser::MessageParser;

/// One mail the server sent.
#[derive(Clone, Debug)]
pub struct SentMail {
    pub to: String,
    pub subject: String,
    pub body: String,
    pub raw: String,
}

impl SentMail {
    pub fn header(&self, name: &str) -> Option<String> {
        let msg = MessageParser::default().parse(self.raw.as_bytes())?;
        msg.header_raw(name).map(|v| v.trim().to_string())
    }
}

pub struct Install {
    pub dir: tempfile::TempDir,
    pub config: PathBuf,
    seq: u64,
}

pub const SERVER_ADDRESS: &str = "pbm@games.test";

/// The binary, apart from the machine it runs on: a config at
/// `/etc/pbmchess/pbmchess.toml` is ignored (`PBMCHESS_NO_SYSTEM_CONFIG`;
/// `--config` still names one), and the caller's `PBMCHESS_*` and
/// `RUST_LOG` settings do not reach it (the log is at `info` unless the
/// test sets `RUST_LOG`).
pub fn pbmchess() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pbmchess"));
    for name in [
        "PBMCHESS_CONFIG",
        "PBMCHESS_LOG_FORMAT",
        "PBMCHESS_TEST_ABORT_ON",
        "RUST_LOG",
    ] {
        command.env_remove(name);
    }
    command.env("PBMCHESS_NO_SYSTEM_CONFIG", "1");
    command
}

impl Install {
    /// A fresh installation with Maildir inbox and outbox, initialised.
    pub fn new() -> Install {
        Install::with_config("")
    }

    /// A fresh installation; `extra` is appended to the config file.
    /// Addresses count as confirmed at once (`[accounts]
    /// confirm_addresses = false`), so that tests of other things need
    /// not confirm each player's address; [`Install::confirming`] keeps
    /// the default.
    pub fn with_config(extra: &str) -> Install {
        Install::with_whole_config(&format!(
            "{}\n[accounts]\nconfirm_addresses = false\n{extra}",
            base_config()
        ))
    }

    /// A fresh installation with the default config: addresses must be
    /// confirmed before they get what other players wrote.
    pub fn confirming(extra: &str) -> Install {
        Install::with_whole_config(&format!("{}{extra}", base_config()))
    }

    /// A fresh installation whose config file is `text` and nothing else
    /// (relative paths in it are taken from the temp folder), initialised.
    pub fn with_whole_config(text: &str) -> Install {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("pbmchess.toml");
        std::fs::write(&config, text).unwrap();
        let install = Install {
            dir,
            config,
            seq: 0,
        };
        install.ok(&["init"]);
        install
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Run the binary with this config.
    pub fn run(&self, args: &[&str]) -> Output {
        pbmchess()
            .arg("--config")
            .arg(&self.config)
            .args(args)
            .env("RUST_LOG", "warn")
            .output()
            .expect("the binary runs")
    }

    /// Run and insist on success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "pbmchess {args:?} failed: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Deliver a raw message into the inbox (Maildir `new/`), in order.
    pub fn deliver_raw(&mut self, raw: &str) {
        self.seq += 1;
        let name = format!("{}.M{}P1.test", 1_700_000_000 + self.seq, self.seq);
        let new = self.path("var/inbox/new");
        std::fs::create_dir_all(&new).unwrap();
        let tmp = self.path("var/inbox/tmp").join(&name);
        std::fs::create_dir_all(tmp.parent().unwrap()).unwrap();
        std::fs::write(&tmp, raw).unwrap();
        std::fs::rename(&tmp, new.join(&name)).unwrap();
    }

    /// Deliver a plain mail; returns its Message-ID.
    pub fn send(&mut self, from: &str, subject: &str, body: &str) -> String {
        let id = format!("msg{}.{}@players.test", self.seq + 1, std::process::id());
        self.deliver_raw(&raw_mail(from, subject, body, &id));
        id
    }

    pub fn poll(&self) {
        self.ok(&["poll"]);
    }

    /// Every mail in the outbox Maildir not taken before, oldest first;
    /// they are moved to `cur/` so the next call sees only new ones.
    pub fn take_outbox(&self) -> Vec<SentMail> {
        let new = self.path("var/outbox/new");
        let cur = self.path("var/outbox/cur");
        std::fs::create_dir_all(&cur).unwrap();
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&new) {
            Ok(rd) => rd.map(|e| e.unwrap().path()).collect(),
            Err(_) => return vec![],
        };
        files.sort_by_key(|p| {
            (
                std::fs::metadata(p).unwrap().modified().unwrap(),
                p.file_name().unwrap().to_owned(),
            )
        });
        let mut out = Vec::new();
        for f in files {
            let raw = std::fs::read_to_string(&f).unwrap();
            out.push(parse_sent(&raw));
            std::fs::rename(&f, cur.join(f.file_name().unwrap())).unwrap();
        }
        out
    }

    /// Every mail ever written to the outbox Maildir (new and cur).
    pub fn all_outbox_raw(&self) -> Vec<String> {
        let mut all = Vec::new();
        for sub in ["new", "cur"] {
            if let Ok(rd) = std::fs::read_dir(self.path(&format!("var/outbox/{sub}"))) {
                for e in rd {
                    all.push(std::fs::read_to_string(e.unwrap().path()).unwrap());
                }
            }
        }
        all
    }
}

/// A loopback port that refuses every connection for as long as the
/// returned socket lives (bound, never listening): a mail server that is
/// not there, without guessing a port that nothing on the machine uses.
pub fn refusing_port() -> (socket2::Socket, u16) {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    socket.bind(&loopback.into()).unwrap();
    let port = socket.local_addr().unwrap().as_socket().unwrap().port();
    (socket, port)
}

fn base_config() -> String {
    format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\nname = \"Test PBM\"\n\n[database]\npath = \"var/db.sqlite\"\n\n[inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\n[outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n"
    )
}

pub fn raw_mail(from: &str, subject: &str, body: &str, message_id: &str) -> String {
    format!(
        "From: {from}\r\nTo: {SERVER_ADDRESS}\r\nSubject: {subject}\r\nMessage-ID: <{message_id}>\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}

pub fn parse_sent(raw: &str) -> SentMail {
    let msg = MessageParser::default()
        .parse(raw.as_bytes())
        .expect("outgoing mail parses");
    let to = msg
        .to()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .unwrap_or_default()
        .to_string();
    SentMail {
        to,
        subject: msg.subject().unwrap_or_default().to_string(),
        body: msg.body_text(0).unwrap_or_default().replace("\r\n", "\n"),
        raw: raw.to_string(),
    }
}

/// The one mail addressed to `addr` (fails the test if there are more or none).
pub fn only_one<'a>(mails: &'a [SentMail], addr: &str) -> &'a SentMail {
    let mine = to(mails, addr);
    assert_eq!(mine.len(), 1, "one mail to {addr}: {mails:#?}");
    mine[0]
}

/// The mails addressed to `to`.
pub fn to<'a>(mails: &'a [SentMail], to: &str) -> Vec<&'a SentMail> {
    mails.iter().filter(|m| m.to == to).collect()
}

/// `text` with every run of white space (a line break where prose was
/// wrapped to 78 columns, too) made one space, so that a sentence can be
/// looked for however the mail's lines fall.
pub fn joined(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
