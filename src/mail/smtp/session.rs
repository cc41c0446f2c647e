//! One SMTP connection: greeting, EHLO, STARTTLS, AUTH, mail transactions,
//! each read and write bounded in time and size and stopped by the flag.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{
    Security, SendFailure, SmtpClientConfig, SmtpError, IDLE_CHECK, MAX_LINE, MAX_REPLY_LINES,
    STOP_SLICE,
};
use crate::mail::config::Secret;

enum Stream {
    Plain(TcpStream),
    Tls(Box<native_tls::TlsStream<TcpStream>>),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

/// A reply: its code and its lines' texts.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reply {
    code: u16,
    lines: Vec<String>,
}

impl Reply {
    fn text(&self) -> String {
        self.lines.join(" / ")
    }

    fn error(&self) -> SmtpError {
        SmtpError::Reply {
            code: self.code,
            text: self.text(),
        }
    }
}

/// The server's EHLO keywords that matter here.
#[derive(Debug, Default, Clone)]
struct Extensions {
    pipelining: bool,
    starttls: bool,
    eight_bit: bool,
    smtputf8: bool,
    auth_plain: bool,
    auth_login: bool,
}

/// One open connection, after EHLO (and STARTTLS and AUTH).
pub(super) struct SmtpSession {
    stream: BufReader<Stream>,
    /// The socket under the stream, for its timeouts.
    tcp: TcpStream,
    ext: Extensions,
    timeout: Duration,
    /// Whether the last transaction ended cleanly.
    clean: bool,
    /// Closed in the middle of a transaction: no longer usable.
    pub(super) broken: bool,
    last_used: Instant,
}

/// Base64 (RFC 4648, with padding), for AUTH.
pub(super) fn base64(data: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// The message with every line starting with a dot doubled (RFC 5321
/// §4.5.2), ending in CRLF, followed by the final `.` line.
pub(crate) fn dot_stuffed(message: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(message.len() + message.len() / 64 + 8);
    let mut at_line_start = true;
    for &b in message {
        if at_line_start && b == b'.' {
            out.push(b'.');
        }
        out.push(b);
        at_line_start = b == b'\n';
    }
    if !message.ends_with(b"\r\n") {
        if message.ends_with(b"\r") {
            out.push(b'\n');
        } else {
            out.extend_from_slice(b"\r\n");
        }
    }
    out.extend_from_slice(b".\r\n");
    out
}

fn io_err(what: &str, e: impl std::fmt::Display) -> SmtpError {
    SmtpError::Io(format!("{what}: {e}"))
}

fn timed_out(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

impl SmtpSession {
    /// Connects, reads the greeting, says EHLO, secures and logs in as
    /// configured.
    pub(super) fn open(
        cfg: &SmtpClientConfig,
        stop: &AtomicBool,
    ) -> Result<SmtpSession, SmtpError> {
        let addrs = crate::mail::connect::lookup(&cfg.host, cfg.port, cfg.timeout)
            .map_err(|e| io_err("cannot resolve the host", e))?;
        let mut last = None;
        let mut tcp = None;
        for addr in addrs {
            if stop.load(Ordering::SeqCst) {
                return Err(SmtpError::Stopped);
            }
            match TcpStream::connect_timeout(&addr, cfg.timeout) {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let tcp = tcp.ok_or_else(|| {
            io_err(
                "cannot connect",
                last.map(|e| e.to_string())
                    .unwrap_or_else(|| "no address".into()),
            )
        })?;
        let setup = |e| io_err("socket setup", e);
        tcp.set_nodelay(true).map_err(setup)?;
        // The TLS handshake waits for whole timeouts; afterwards reads and
        // writes wait in slices (see `read_line`, `write_all`).
        tcp.set_read_timeout(Some(cfg.timeout)).map_err(setup)?;
        tcp.set_write_timeout(Some(cfg.timeout)).map_err(setup)?;
        let handle = tcp.try_clone().map_err(setup)?;
        let stream = match cfg.security {
            Security::Implicit => Stream::Tls(Box::new(tls(cfg, tcp)?)),
            _ => Stream::Plain(tcp),
        };
        let mut session = SmtpSession {
            stream: BufReader::with_capacity(8192, stream),
            tcp: handle,
            ext: Extensions::default(),
            timeout: cfg.timeout,
            clean: true,
            broken: false,
            last_used: Instant::now(),
        };
        session.slices()?;
        let greeting = session.read_reply(stop)?;
        if greeting.code != 220 {
            return Err(greeting.error());
        }
        session.ehlo(&cfg.hello_name, stop)?;
        if let Security::StartTls { required } = cfg.security {
            if session.ext.starttls {
                session.command("STARTTLS", stop, 220)?;
                let Stream::Plain(tcp) = session.stream.get_ref() else {
                    unreachable!("STARTTLS is asked on a plain connection")
                };
                let tcp = tcp.try_clone().map_err(setup)?;
                if !session.stream.buffer().is_empty() {
                    return Err(SmtpError::Io(
                        "the server sent data after its STARTTLS reply".into(),
                    ));
                }
                tcp.set_read_timeout(Some(cfg.timeout)).map_err(setup)?;
                let secured = tls(cfg, tcp)?;
                session.stream = BufReader::with_capacity(8192, Stream::Tls(Box::new(secured)));
                session.slices()?;
                session.ehlo(&cfg.hello_name, stop)?;
            } else if required {
                return Err(SmtpError::Io("the server does not offer STARTTLS".into()));
            }
        }
        if let Some((user, password)) = &cfg.credentials {
            session.auth(user, password, stop)?;
        }
        Ok(session)
    }

    /// Socket timeouts of one slice, so waits can look at the stop flag.
    fn slices(&self) -> Result<(), SmtpError> {
        let slice = Some(STOP_SLICE.min(self.timeout));
        self.tcp
            .set_read_timeout(slice)
            .and_then(|_| self.tcp.set_write_timeout(slice))
            .map_err(|e| io_err("socket setup", e))
    }

    fn ehlo(&mut self, name: &str, stop: &AtomicBool) -> Result<(), SmtpError> {
        let reply = self.command(&format!("EHLO {name}"), stop, 250)?;
        let mut ext = Extensions::default();
        for line in reply.lines.iter().skip(1) {
            let mut words = line.split_ascii_whitespace();
            let keyword = words.next().unwrap_or("").to_ascii_uppercase();
            match keyword.as_str() {
                "PIPELINING" => ext.pipelining = true,
                "STARTTLS" => ext.starttls = true,
                "8BITMIME" => ext.eight_bit = true,
                "SMTPUTF8" => ext.smtputf8 = true,
                "AUTH" => {
                    for m in words {
                        match m.to_ascii_uppercase().as_str() {
                            "PLAIN" => ext.auth_plain = true,
                            "LOGIN" => ext.auth_login = true,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        self.ext = ext;
        Ok(())
    }

    fn auth(&mut self, user: &str, password: &Secret, stop: &AtomicBool) -> Result<(), SmtpError> {
        if self.ext.auth_plain {
            let token = base64(format!("\0{user}\0{}", password.expose()).as_bytes());
            self.command(&format!("AUTH PLAIN {token}"), stop, 235)?;
        } else if self.ext.auth_login {
            self.command("AUTH LOGIN", stop, 334)?;
            self.command(&base64(user.as_bytes()), stop, 334)?;
            self.command(&base64(password.expose().as_bytes()), stop, 235)?;
        } else {
            return Err(SmtpError::Io(
                "the server offers neither AUTH PLAIN nor AUTH LOGIN".into(),
            ));
        }
        Ok(())
    }

    /// Writes `line` and reads its reply, which must have code `want`.
    fn command(&mut self, line: &str, stop: &AtomicBool, want: u16) -> Result<Reply, SmtpError> {
        self.write_all(format!("{line}\r\n").as_bytes(), stop)?;
        let reply = self.read_reply(stop)?;
        if reply.code == want {
            Ok(reply)
        } else {
            Err(reply.error())
        }
    }

    /// Writes all of `data`, in slices of [`STOP_SLICE`], for at most
    /// `timeout` without progress.
    fn write_all(&mut self, mut data: &[u8], stop: &AtomicBool) -> Result<(), SmtpError> {
        let mut last_progress = Instant::now();
        while !data.is_empty() {
            if stop.load(Ordering::SeqCst) {
                return Err(SmtpError::Stopped);
            }
            match self.stream.get_mut().write(data) {
                Ok(0) => return Err(SmtpError::Io("the connection was closed".into())),
                Ok(n) => {
                    data = &data[n..];
                    last_progress = Instant::now();
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if timed_out(&e) => {
                    if last_progress.elapsed() >= self.timeout {
                        return Err(SmtpError::Io("timed out writing to the server".into()));
                    }
                }
                Err(e) => return Err(io_err("writing to the server", e)),
            }
        }
        self.stream
            .get_mut()
            .flush()
            .map_err(|e| io_err("writing to the server", e))
    }

    /// Reads one line (without its line end), waiting at most `timeout`.
    fn read_line(&mut self, stop: &AtomicBool) -> Result<String, SmtpError> {
        let started = Instant::now();
        let mut line = Vec::new();
        loop {
            if stop.load(Ordering::SeqCst) {
                return Err(SmtpError::Stopped);
            }
            let buf = match self.stream.fill_buf() {
                Ok([]) => return Err(SmtpError::Io("the server closed the connection".into())),
                Ok(buf) => buf,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if timed_out(&e) => {
                    if started.elapsed() >= self.timeout {
                        return Err(SmtpError::Io("timed out waiting for the server".into()));
                    }
                    continue;
                }
                Err(e) => return Err(io_err("reading from the server", e)),
            };
            let (take, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            line.extend_from_slice(&buf[..take]);
            self.stream.consume(take);
            if line.len() > MAX_LINE {
                return Err(SmtpError::Io("the server sent a line too long".into()));
            }
            if done {
                while matches!(line.last(), Some(b'\n' | b'\r')) {
                    line.pop();
                }
                return Ok(String::from_utf8_lossy(&line).into_owned());
            }
        }
    }

    /// Reads one (possibly multi-line) reply.
    fn read_reply(&mut self, stop: &AtomicBool) -> Result<Reply, SmtpError> {
        let mut lines = Vec::new();
        let mut code = None;
        loop {
            let line = self.read_line(stop)?;
            let bytes = line.as_bytes();
            let this: Option<u16> = line.get(..3).and_then(|c| c.parse().ok());
            let Some(this) = this.filter(|c| (200..600).contains(c)) else {
                return Err(SmtpError::Io(format!(
                    "not an SMTP reply: {:?}",
                    line.chars().take(80).collect::<String>()
                )));
            };
            if code.is_some_and(|c| c != this) {
                return Err(SmtpError::Io("a reply changed its code midway".into()));
            }
            code = Some(this);
            lines.push(line.get(4..).unwrap_or("").to_string());
            if lines.len() > MAX_REPLY_LINES {
                return Err(SmtpError::Io("the server sent a reply too long".into()));
            }
            if bytes.get(3) != Some(&b'-') {
                return Ok(Reply { code: this, lines });
            }
        }
    }

    /// Whether the connection is still good for a next mail: the last
    /// transaction ended cleanly and it was used recently, or `RSET` is
    /// answered.
    pub(super) fn ready(&mut self, stop: &AtomicBool) -> bool {
        if self.broken {
            return false;
        }
        if self.clean && self.last_used.elapsed() < IDLE_CHECK {
            return true;
        }
        let ok = self.command("RSET", stop, 250).is_ok();
        self.clean = ok;
        ok
    }

    /// Sends one mail: `from` (the envelope sender), `to` (the recipients)
    /// and the whole message (CRLF line ends).
    pub(super) fn send(
        &mut self,
        from: &str,
        to: &[String],
        message: &[u8],
        stop: &AtomicBool,
    ) -> Result<(), SendFailure> {
        let fail = |error| SendFailure {
            error,
            in_transaction: false,
            body_sent: false,
        };
        let refused = |error| SendFailure {
            error,
            in_transaction: true,
            body_sent: false,
        };
        let params = self.mail_params(from, to, message).map_err(refused)?;
        self.clean = false;
        let mut commands = vec![format!("MAIL FROM:<{from}>{params}\r\n")];
        commands.extend(to.iter().map(|t| format!("RCPT TO:<{t}>\r\n")));
        commands.push("DATA\r\n".to_string());
        let replies = self.envelope_replies(&commands, stop).map_err(fail)?;
        let mail = &replies[0];
        let rcpts = &replies[1..replies.len().min(1 + to.len())];
        let data = replies.get(1 + to.len());
        let first_refusal = if mail.code / 100 != 2 {
            Some(mail.error())
        } else {
            rcpts.iter().find(|r| r.code / 100 != 2).map(Reply::error)
        };
        match data {
            Some(d) if d.code == 354 => {
                if let Some(refusal) = first_refusal {
                    // Pipelined, DATA went through although the mail or a
                    // recipient was refused: closing the connection aborts
                    // the transaction, where a final dot could deliver an
                    // empty mail to the recipients accepted.
                    self.broken = true;
                    let _ = self.tcp.shutdown(std::net::Shutdown::Both);
                    return Err(refused(refusal));
                }
            }
            Some(d) => return Err(refused(first_refusal.unwrap_or_else(|| d.error()))),
            None => {
                return Err(refused(
                    first_refusal.unwrap_or_else(|| SmtpError::Io("no reply to DATA".into())),
                ))
            }
        }
        let body_sent = |error| SendFailure {
            error,
            in_transaction: false,
            body_sent: true,
        };
        self.write_all(&dot_stuffed(message), stop)
            .map_err(body_sent)?;
        let end = self.read_reply(stop).map_err(body_sent)?;
        self.last_used = Instant::now();
        if end.code / 100 == 2 {
            self.clean = true;
            Ok(())
        } else {
            Err(refused(end.error()))
        }
    }

    /// The parameters of `MAIL FROM`: `SMTPUTF8` for addresses that are
    /// not ASCII (refused when the server does not take it), `BODY=8BITMIME`
    /// for a message that is not ASCII, where the server offers it.
    fn mail_params(&self, from: &str, to: &[String], message: &[u8]) -> Result<String, SmtpError> {
        let non_ascii = !from.is_ascii() || to.iter().any(|t| !t.is_ascii());
        let mut params = String::new();
        if non_ascii {
            if !self.ext.smtputf8 {
                return Err(SmtpError::Reply {
                    code: 553,
                    text: "the address is not ASCII and the server does not take SMTPUTF8".into(),
                });
            }
            params.push_str(" SMTPUTF8");
        }
        if !message.is_ascii() && self.ext.eight_bit {
            params.push_str(" BODY=8BITMIME");
        }
        Ok(params)
    }

    /// Sends the envelope `commands` (MAIL, each RCPT, DATA) and reads
    /// their replies: all at once where the server pipelines, else one by
    /// one, stopping at the first refusal.
    fn envelope_replies(
        &mut self,
        commands: &[String],
        stop: &AtomicBool,
    ) -> Result<Vec<Reply>, SmtpError> {
        let mut replies = Vec::with_capacity(commands.len());
        if self.ext.pipelining {
            self.write_all(commands.concat().as_bytes(), stop)?;
            for _ in 0..commands.len() {
                replies.push(self.read_reply(stop)?);
            }
        } else {
            for (i, c) in commands.iter().enumerate() {
                self.write_all(c.as_bytes(), stop)?;
                let reply = self.read_reply(stop)?;
                let ok = reply.code / 100 == 2 || (i + 1 == commands.len() && reply.code == 354);
                replies.push(reply);
                if !ok {
                    break;
                }
            }
        }
        Ok(replies)
    }

    /// Says QUIT and closes, waiting at most one slice for the answer.
    pub(super) fn quit(mut self) {
        let never = AtomicBool::new(false);
        if self.write_all(b"QUIT\r\n", &never).is_ok() {
            let _ = self.tcp.set_read_timeout(Some(STOP_SLICE));
            let mut byte = [0u8; 64];
            let _ = self.stream.get_mut().read(&mut byte);
        }
        let _ = self.tcp.shutdown(std::net::Shutdown::Both);
    }
}

fn tls(
    cfg: &SmtpClientConfig,
    tcp: TcpStream,
) -> Result<native_tls::TlsStream<TcpStream>, SmtpError> {
    let mut builder = native_tls::TlsConnector::builder();
    if let Some(pem) = &cfg.ca_pem {
        let cert = native_tls::Certificate::from_pem(pem).map_err(|e| io_err("tls_ca_file", e))?;
        builder.add_root_certificate(cert);
    }
    let connector = builder.build().map_err(|e| io_err("TLS setup", e))?;
    let host = cfg.host.trim_start_matches('[').trim_end_matches(']');
    connector
        .connect(host, tcp)
        .map_err(|e| io_err("TLS handshake", e))
}
