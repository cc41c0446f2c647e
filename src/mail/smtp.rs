//! A small SMTP client of our own (RFC 5321), for the speed of the wire
//! (issue #24): lettre 0.11 sets no `TCP_NODELAY`, so every mail waited
//! about 44 ms for Nagle's algorithm to meet the relay's delayed ACK, and
//! it opens one connection per mail.
//!
//! - `TCP_NODELAY` on every connection, and each step goes out in one
//!   write (a command, the pipelined commands, the body with its final
//!   dot), so no segment waits for an ACK.
//! - One connection for a whole sending pass: [`SmtpSession::send`] runs one
//!   mail transaction after another on it; [`SmtpSession::quit`] ends it.
//!   A completed transaction leaves the server ready for the next (RFC 5321
//!   §4.1.1.4); `RSET` goes before a mail when the previous transaction
//!   ended in a failure, and as a check of a connection that has been idle
//!   a while. A reused connection found closed before the message was
//!   handed over is replaced, and the mail is tried once more on the new one.
//! - PIPELINING (RFC 2920) when offered: `MAIL`, `RCPT` and `DATA` in one
//!   write, their replies read together.
//! - Plain, STARTTLS (required or opportunistic) and TLS from the first
//!   byte, through native-tls; AUTH PLAIN or LOGIN; `BODY=8BITMIME` and
//!   `SMTPUTF8` when the mail needs them.
//! - Bounds: connecting, and each read and write, take at most `timeout`;
//!   reads and writes wait in slices of [`STOP_SLICE`] and give up as soon
//!   as the stop flag is set, so a hung relay holds up neither the rest of
//!   a pass nor a SIGTERM. A reply has at most [`MAX_REPLY_LINES`] lines of
//!   at most [`MAX_LINE`] bytes.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::config::Secret;

/// How often a wait on the socket looks at the stop flag.
pub(super) const STOP_SLICE: Duration = Duration::from_millis(200);

/// The longest reply line read (RFC 5321 allows 512; servers go beyond).
pub(super) const MAX_LINE: usize = 4096;

/// The most lines one reply may have.
pub(super) const MAX_REPLY_LINES: usize = 200;

/// An idle connection older than this is checked with `RSET` before use.
const IDLE_CHECK: Duration = Duration::from_secs(5);

/// How the connection is secured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Security {
    /// No TLS.
    None,
    /// STARTTLS; `required`: fail when it is not offered, else go on plain.
    StartTls { required: bool },
    /// TLS from the first byte.
    Implicit,
}

/// Where and how to connect.
#[derive(Clone)]
pub(crate) struct SmtpClientConfig {
    pub host: String,
    pub port: u16,
    pub security: Security,
    pub credentials: Option<(String, Secret)>,
    /// Extra trusted certificates (PEM).
    pub ca_pem: Option<Vec<u8>>,
    /// The name given in EHLO.
    pub hello_name: String,
    /// The bound on connecting and on each read and write.
    pub timeout: Duration,
}

/// A failure of one step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SmtpError {
    /// The server answered with this reply code and text.
    Reply { code: u16, text: String },
    /// The connection failed (refused, closed, timed out, TLS, bad reply).
    Io(String),
    /// The stop flag was set: the step was abandoned.
    Stopped,
}

impl std::fmt::Display for SmtpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SmtpError::Reply { code, text } => write!(f, "{code} {text}"),
            SmtpError::Io(e) => f.write_str(e),
            SmtpError::Stopped => f.write_str("stopped"),
        }
    }
}

/// The outcome of one mail: delivered, or why not and at which stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SendFailure {
    pub error: SmtpError,
    /// Whether the failure is about this mail (a refusal in its
    /// transaction), as opposed to the connection or the login.
    pub in_transaction: bool,
    /// Whether the message had been written when it failed: the server
    /// may have taken it, so it is not tried again at once.
    pub body_sent: bool,
}

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
    broken: bool,
    last_used: Instant,
}

/// Base64 (RFC 4648, with padding), for AUTH.
fn base64(data: &[u8]) -> String {
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
        let addrs = super::connect::lookup(&cfg.host, cfg.port, cfg.timeout)
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
    fn ready(&mut self, stop: &AtomicBool) -> bool {
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

/// A client that keeps one session open across mails and reconnects when
/// it has to.
pub(crate) struct SmtpClient {
    config: SmtpClientConfig,
    session: Option<SmtpSession>,
}

impl SmtpClient {
    pub(crate) fn new(config: SmtpClientConfig) -> Self {
        SmtpClient {
            config,
            session: None,
        }
    }

    /// Sends one mail on the open session (opened first when there is
    /// none). A session that was reused and failed before the mail was
    /// handed over is replaced and the mail tried once more; after any
    /// other failure outside the transaction the session is closed.
    pub(crate) fn send(
        &mut self,
        from: &str,
        to: &[String],
        message: &[u8],
        stop: &AtomicBool,
    ) -> Result<(), SendFailure> {
        if let Some(s) = self.session.as_mut() {
            if !s.ready(stop) {
                self.session = None;
            }
        }
        let reused = self.session.is_some();
        let first = self.send_once(from, to, message, stop);
        match first {
            Err(f)
                if reused
                    && !f.in_transaction
                    && !f.body_sent
                    && !matches!(f.error, SmtpError::Stopped) =>
            {
                // A reused connection the server had closed meanwhile: the
                // mail was not handed over; once more on a fresh one.
                self.send_once(from, to, message, stop)
            }
            other => other,
        }
    }

    fn send_once(
        &mut self,
        from: &str,
        to: &[String],
        message: &[u8],
        stop: &AtomicBool,
    ) -> Result<(), SendFailure> {
        if self.session.is_none() {
            let s = SmtpSession::open(&self.config, stop).map_err(|error| SendFailure {
                error,
                in_transaction: false,
                body_sent: false,
            })?;
            self.session = Some(s);
        }
        let s = self.session.as_mut().expect("opened above");
        let result = s.send(from, to, message, stop);
        if result
            .as_ref()
            .is_err_and(|f| !f.in_transaction || s.broken)
        {
            self.session = None;
        }
        result
    }

    /// Connects, greets, secures and logs in as a send would, then quits
    /// without sending (`pbmchess check`).
    pub(crate) fn test_login(&self) -> Result<(), SmtpError> {
        let stop = AtomicBool::new(false);
        SmtpSession::open(&self.config, &stop)?.quit();
        Ok(())
    }

    /// Ends the session, if one is open.
    pub(crate) fn close(&mut self) {
        if let Some(s) = self.session.take() {
            s.quit();
        }
    }
}

impl Drop for SmtpClient {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::BufRead;
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};

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
}
