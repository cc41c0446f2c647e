//! An inbox on an IMAP server (blocking `imap` crate).

use std::net::TcpStream;
use std::time::{Duration, Instant};

use imap::{Client, ImapConnection, Session};

use super::config::{ImapConfig, ImapTls, Secret};
use super::connect::{is_loopback, read_ca_file, resolve_password};
use super::inbox::{Done, InboundMessage, Inbox};
use super::MailError;

/// UIDs per `UID STORE`/`UID EXPUNGE` of [`ImapInbox::prune_processed`].
const PRUNE_CHUNK: usize = 500;

/// Longest single IDLE: RFC 2177 asks clients to re-issue IDLE at least
/// every 29 minutes.
const MAX_IDLE: Duration = Duration::from_secs(29 * 60);

/// An inbox in an IMAP mailbox.
///
/// - `fetch`: `UID SEARCH UNSEEN`, ordered by UID (the order the server
///   received the mail), then per message `UID FETCH (UID RFC822.SIZE)` and
///   `UID FETCH (UID BODY.PEEK[])`, or `BODY.PEEK[HEADER]` only for a
///   message over the limit (it is answered from its header with a short
///   refusal), so nothing is marked seen before the server has committed. Message ids are
///   `UIDVALIDITY:UID`.
/// - `mark_done`: `UID STORE +FLAGS.SILENT (\Seen)` (and `\Flagged` for
///   [`Done::Ignored`], as the Maildir inbox does); then, when
///   `processed_mailbox` is set, `UID MOVE` there (or `UID COPY`, `\Deleted`
///   and `UID EXPUNGE`, plain `EXPUNGE` without UIDPLUS). A mail
///   [`Done::Quarantined`] is flagged and moved to `quarantine_mailbox`.
///   The processed and quarantine mailboxes are created at connect time
///   when missing.
/// - The mailbox should be the server's own: a human who reads it with a
///   mail client marks mail `\Seen`, and seen mail is not fetched.
/// - Connections are opened lazily and reused; after any error the
///   connection is dropped, and the next call reconnects (one immediate
///   retry on a fresh connection per call). Connect, read and write use
///   `timeout_seconds` (an IDLE waits at most the time asked, and its
///   DONE again `timeout_seconds`); the socket has `TCP_NODELAY`.
/// - Mailbox names are sent as quoted ASCII strings (no modified UTF-7).
pub struct ImapInbox {
    config: ImapConfig,
    password: Secret,
    ca_pem: Option<Vec<u8>>,
    conn: Option<Conn>,
    /// Messages larger than this are fetched as far as their header only.
    max_bytes: usize,
    /// The highest unseen UID at the first search after
    /// [`Inbox::hold_to_waiting`] (`Some(None)` until that search): later
    /// fetches hand out no message above it.
    held: Option<Option<u32>>,
}

struct Conn {
    session: Session<Box<dyn ImapConnection>>,
    /// A clone of the socket, to restore its read timeout after IDLE.
    tcp: TcpStream,
    uid_validity: u32,
    has_idle: bool,
    has_move: bool,
    has_uidplus: bool,
}

impl std::fmt::Debug for ImapInbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImapInbox")
            .field("config", &self.config)
            .field("connected", &self.conn.is_some())
            .finish()
    }
}

impl ImapInbox {
    /// Checks the configuration and reads the password; does not connect.
    pub fn new(config: &ImapConfig) -> Result<Self, MailError> {
        let password = resolve_password(
            config.password.as_ref(),
            config.password_file.as_deref(),
            "inbox",
        )?
        .ok_or_else(|| {
            MailError::Config("[inbox] kind = \"imap\" needs password or password_file".into())
        })?;
        for name in [&config.mailbox, &config.quarantine_mailbox]
            .into_iter()
            .chain(config.processed_mailbox.as_ref())
        {
            if name.is_empty() || !name.bytes().all(|b| (0x20..0x7f).contains(&b)) {
                return Err(MailError::Config(format!(
                    "[inbox] mailbox name {name:?} must be printable ASCII"
                )));
            }
        }
        if config.tls == ImapTls::Plain && !is_loopback(&config.host) {
            tracing::warn!(host = %config.host, "IMAP without TLS to a host that is not loopback: the password travels in clear");
        }
        let ca_pem = read_ca_file(config.tls_ca_file.as_deref(), "inbox")?;
        if let Some(pem) = &ca_pem {
            native_tls::Certificate::from_pem(pem)
                .map_err(|e| MailError::Config(format!("[inbox] tls_ca_file: {e}")))?;
        }
        Ok(ImapInbox {
            config: config.clone(),
            password,
            ca_pem,
            conn: None,
            max_bytes: super::inbox::default_max_bytes(),
            held: None,
        })
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.config.timeout_seconds.max(1))
    }

    /// An error talking to the server: `<what> <host>:<port>: <e>`.
    fn err(&self, what: &str, e: &dyn std::fmt::Display) -> MailError {
        let cfg = &self.config;
        MailError::Imap(format!("{what} {}:{}: {e}", cfg.host, cfg.port()))
    }

    /// A fresh connection: TCP (and TLS), logged in, the target mailboxes
    /// created, the inbox selected.
    fn connect(&self) -> Result<Conn, MailError> {
        let tcp = self.open_tcp()?;
        let tcp_clone = tcp
            .try_clone()
            .map_err(|e| self.err("socket setup for", &e))?;
        let client = self.greeted_client(tcp)?;
        let cfg = &self.config;
        let mut session = client
            .login(&cfg.username, self.password.expose())
            .map_err(|(e, _)| {
                MailError::Imap(format!(
                    "login as {} at {}:{} failed: {e}",
                    cfg.username,
                    cfg.host,
                    cfg.port()
                ))
            })?;
        let caps = session
            .capabilities()
            .map_err(|e| self.err("CAPABILITY at", &e))?;
        let has_idle = caps.has_str("IDLE");
        let has_move = caps.has_str("MOVE");
        let has_uidplus = caps.has_str("UIDPLUS");
        drop(caps);
        self.create_targets(&mut session)?;
        let mailbox = session
            .select(&cfg.mailbox)
            .map_err(|e| self.err(&format!("cannot select {:?} at", cfg.mailbox), &e))?;
        Ok(Conn {
            session,
            tcp: tcp_clone,
            uid_validity: mailbox.uid_validity.unwrap_or(0),
            has_idle,
            has_move,
            has_uidplus,
        })
    }

    /// A TCP connection to the first address of the host that answers,
    /// with the timeouts set.
    fn open_tcp(&self) -> Result<TcpStream, MailError> {
        let cfg = &self.config;
        let timeout = self.timeout();
        let addrs = super::connect::lookup(&cfg.host, cfg.port(), timeout)
            .map_err(|e| self.err("cannot resolve", &e))?;
        let mut last_err: Option<std::io::Error> = None;
        let mut tcp = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, timeout) {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last_err = Some(e),
            }
        }
        let tcp = match tcp {
            Some(t) => t,
            None => {
                let e = last_err
                    .map(|e| e.to_string())
                    .unwrap_or_else(|| "no address".into());
                return Err(self.err("cannot connect to", &e));
            }
        };
        // No Nagle delay: a command, or IDLE's DONE, goes out at once.
        tcp.set_nodelay(true)
            .and_then(|_| tcp.set_read_timeout(Some(timeout)))
            .and_then(|_| tcp.set_write_timeout(Some(timeout)))
            .map_err(|e| self.err("socket setup for", &e))?;
        Ok(tcp)
    }

    /// The IMAP client over `tcp` as `[inbox] tls` says, its greeting read.
    fn greeted_client(&self, tcp: TcpStream) -> Result<Client<Box<dyn ImapConnection>>, MailError> {
        let cfg = &self.config;
        let tls = || {
            let mut builder = native_tls::TlsConnector::builder();
            if let Some(pem) = &self.ca_pem {
                let cert = native_tls::Certificate::from_pem(pem)
                    .map_err(|e| self.err("TLS certificate for", &e))?;
                builder.add_root_certificate(cert);
            }
            builder.build().map_err(|e| self.err("TLS setup for", &e))
        };
        let client: Client<Box<dyn ImapConnection>> = match cfg.tls {
            ImapTls::Plain => {
                let mut c = Client::new(Box::new(tcp) as Box<dyn ImapConnection>);
                c.read_greeting()
                    .map_err(|e| self.err("no greeting from", &e))?;
                c
            }
            ImapTls::Implicit => {
                let stream = tls()?
                    .connect(&cfg.host, tcp)
                    .map_err(|e| self.err("TLS handshake with", &e))?;
                let mut c = Client::new(Box::new(stream) as Box<dyn ImapConnection>);
                c.read_greeting()
                    .map_err(|e| self.err("no greeting from", &e))?;
                c
            }
            ImapTls::Starttls => {
                let mut tcp = tcp;
                starttls(&mut tcp).map_err(|e| self.err("STARTTLS at", &e))?;
                let stream = tls()?
                    .connect(&cfg.host, tcp)
                    .map_err(|e| self.err("TLS handshake with", &e))?;
                let mut c = Client::new(Box::new(stream) as Box<dyn ImapConnection>);
                c.greeting_read = true;
                c
            }
        };
        Ok(client)
    }

    /// Creates `processed_mailbox` and `quarantine_mailbox` where missing.
    fn create_targets(
        &self,
        session: &mut Session<Box<dyn ImapConnection>>,
    ) -> Result<(), MailError> {
        let cfg = &self.config;
        for target in cfg
            .processed_mailbox
            .iter()
            .chain(std::iter::once(&cfg.quarantine_mailbox))
        {
            let names = session
                .list(None, Some(&quote(target)))
                .map_err(|e| self.err("LIST at", &e))?;
            if names.is_empty() {
                tracing::info!(mailbox = %target, "creating an IMAP mailbox");
                session
                    .create(target)
                    .map_err(|e| self.err(&format!("cannot create mailbox {target:?} at"), &e))?;
            }
        }
        Ok(())
    }

    /// Runs `op` on a connection; on failure drops it and tries once more on
    /// a fresh connection.
    fn with_conn<T>(
        &mut self,
        mut op: impl FnMut(&mut Conn, &ImapConfig) -> Result<T, MailError>,
    ) -> Result<T, MailError> {
        let reused = self.conn.is_some();
        let first = self.try_op(&mut op);
        match first {
            Err(e) if reused => {
                tracing::info!(error = %e, "IMAP command failed on a reused connection; reconnecting");
                self.try_op(&mut op)
            }
            other => other,
        }
    }

    fn try_op<T>(
        &mut self,
        op: &mut impl FnMut(&mut Conn, &ImapConfig) -> Result<T, MailError>,
    ) -> Result<T, MailError> {
        if self.conn.is_none() {
            self.conn = Some(self.connect()?);
        }
        let conn = self.conn.as_mut().expect("connected above");
        let result = op(conn, &self.config);
        if result.is_err() {
            // Dropped without LOGOUT: the connection may be broken or hung.
            self.conn = None;
        }
        result
    }

    /// Delete processed mail delivered before `before` (at most `batch`
    /// messages): in `processed_mailbox` the messages with an INTERNALDATE
    /// before that day, or, without one, the seen messages of the mailbox
    /// itself (processed and ignored mail is marked seen; mail not yet
    /// processed is not). `UID STORE \Deleted`, then `UID EXPUNGE` (plain
    /// `EXPUNGE` without UIDPLUS). The quarantine mailbox is left alone.
    /// Returns how many messages were deleted.
    pub fn prune_processed(
        &mut self,
        before: chrono::DateTime<chrono::Utc>,
        batch: usize,
    ) -> Result<usize, MailError> {
        let day = before.format("%-d-%b-%Y").to_string();
        self.with_conn(|conn, cfg| {
            let (mailbox, query) = match &cfg.processed_mailbox {
                Some(processed) => (processed, format!("BEFORE {day}")),
                None => (&cfg.mailbox, format!("SEEN BEFORE {day}")),
            };
            let elsewhere = mailbox != &cfg.mailbox;
            if elsewhere {
                conn.session.select(mailbox).map_err(imap_err("SELECT"))?;
            }
            let mut uids: Vec<u32> = conn
                .session
                .uid_search(&query)
                .map_err(imap_err("UID SEARCH BEFORE"))?
                .into_iter()
                .collect();
            uids.sort_unstable();
            uids.truncate(batch);
            // A few hundred UIDs per command: servers bound a command's line.
            for chunk in uids.chunks(PRUNE_CHUNK) {
                let set = chunk
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(",");
                conn.session
                    .uid_store(&set, "+FLAGS.SILENT (\\Deleted)")
                    .map_err(imap_err("UID STORE"))?;
                if conn.has_uidplus {
                    conn.session
                        .uid_expunge(&set)
                        .map_err(imap_err("UID EXPUNGE"))?;
                } else {
                    conn.session.expunge().map_err(imap_err("EXPUNGE"))?;
                }
            }
            if elsewhere {
                let inbox = conn
                    .session
                    .select(&cfg.mailbox)
                    .map_err(imap_err("SELECT"))?;
                conn.uid_validity = inbox.uid_validity.unwrap_or(0);
            }
            Ok(uids.len())
        })
    }

    /// Logs out politely (also done on drop).
    pub(crate) fn disconnect(&mut self) {
        if let Some(mut c) = self.conn.take() {
            let _ = c.session.logout();
        }
    }
}

impl Drop for ImapInbox {
    fn drop(&mut self) {
        self.disconnect();
    }
}

/// Reads the greeting and negotiates STARTTLS on a fresh connection, by
/// hand: the `imap` crate has no public way to do it on a socket whose
/// timeouts we set ourselves.
fn starttls(tcp: &mut TcpStream) -> Result<(), String> {
    use std::io::{Read, Write};
    // One line, read byte by byte: nothing may be read past the tagged OK,
    // since the TLS handshake follows it.
    fn line(tcp: &mut TcpStream) -> Result<String, String> {
        let mut buf = Vec::new();
        let mut byte = [0u8; 1];
        while buf.len() < 8192 {
            match tcp.read(&mut byte) {
                Ok(0) => return Err("connection closed".into()),
                Ok(_) => {
                    buf.push(byte[0]);
                    if byte[0] == b'\n' {
                        return Ok(String::from_utf8_lossy(&buf).trim_end().to_string());
                    }
                }
                Err(e) => return Err(e.to_string()),
            }
        }
        Err("line too long".into())
    }
    let greeting = line(tcp)?;
    if !greeting.starts_with("* OK") {
        return Err(format!("unexpected greeting {greeting:?}"));
    }
    tcp.write_all(b"pbm0 STARTTLS\r\n")
        .map_err(|e| e.to_string())?;
    loop {
        let l = line(tcp)?;
        if let Some(rest) = l.strip_prefix("pbm0 ") {
            return if rest.starts_with("OK") {
                Ok(())
            } else {
                Err(format!("refused: {rest}"))
            };
        }
    }
}

/// An IMAP quoted string.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn imap_err(what: &str) -> impl Fn(imap::Error) -> MailError + '_ {
    move |e| MailError::Imap(format!("{what}: {e}"))
}

fn parse_id(id: &str) -> Option<(u32, u32)> {
    let (v, u) = id.split_once(':')?;
    Some((v.parse().ok()?, u.parse().ok()?))
}

impl Inbox for ImapInbox {
    fn fetch(&mut self, max: usize) -> Result<Vec<InboundMessage>, MailError> {
        let max_bytes = self.max_bytes;
        let mut held = self.held;
        let fetched = self.with_conn(|conn, _cfg| {
            let mut uids: Vec<u32> = conn
                .session
                .uid_search("UNSEEN")
                .map_err(imap_err("UID SEARCH UNSEEN"))?
                .into_iter()
                .collect();
            uids.sort_unstable();
            match &mut held {
                Some(Some(top)) => uids.retain(|uid| uid <= top),
                Some(waiting) => *waiting = Some(uids.last().copied().unwrap_or(0)),
                None => {}
            }
            uids.truncate(max);
            let mut out = Vec::with_capacity(uids.len());
            // Fetch one by one: simple, keeps memory to one message, and a
            // message deleted meanwhile just drops out. Its size is asked
            // first: of a message over the limit only the header is fetched.
            for uid in uids {
                let sizes = conn
                    .session
                    .uid_fetch(uid.to_string(), "(UID RFC822.SIZE)")
                    .map_err(imap_err("UID FETCH"))?;
                let Some(size) = sizes
                    .iter()
                    .find(|f| f.uid == Some(uid))
                    .map(|f| f.size.unwrap_or(0) as usize)
                else {
                    continue;
                };
                let over = size > max_bytes;
                let query = if over {
                    "(UID BODY.PEEK[HEADER])"
                } else {
                    "(UID BODY.PEEK[])"
                };
                let fetches = conn
                    .session
                    .uid_fetch(uid.to_string(), query)
                    .map_err(imap_err("UID FETCH"))?;
                let body = fetches
                    .iter()
                    .find(|f| f.uid == Some(uid))
                    .and_then(|f| if over { f.header() } else { f.body() })
                    .map(|b| if over { crate::limits::header_of(b) } else { b })
                    .map(<[u8]>::to_vec);
                if let Some(raw) = body {
                    let id = format!("{}:{uid}", conn.uid_validity);
                    out.push(InboundMessage {
                        size: if over { size } else { raw.len() },
                        id,
                        raw,
                        unreadable: None,
                    });
                }
            }
            Ok(out)
        });
        self.held = held;
        fetched
    }

    fn hold_to_waiting(&mut self) {
        self.held = Some(None);
    }

    fn limit_message_bytes(&mut self, bytes: usize) {
        self.max_bytes = bytes;
    }

    fn mark_done(&mut self, msg: &InboundMessage, outcome: Done) -> Result<(), MailError> {
        let (validity, uid) = parse_id(&msg.id)
            .ok_or_else(|| MailError::Imap(format!("not an IMAP message id: {:?}", msg.id)))?;
        self.with_conn(|conn, cfg| {
            if conn.uid_validity != validity {
                return Err(MailError::Imap(format!(
                    "UIDVALIDITY of {:?} changed from {validity} to {}; the message will be fetched again",
                    cfg.mailbox, conn.uid_validity
                )));
            }
            let flags = match outcome {
                Done::Processed => "(\\Seen)",
                Done::Ignored | Done::Quarantined => "(\\Seen \\Flagged)",
            };
            let uid = uid.to_string();
            conn.session
                .uid_store(&uid, format!("+FLAGS.SILENT {flags}"))
                .map_err(imap_err("UID STORE"))?;
            let target = match outcome {
                Done::Quarantined => Some(&cfg.quarantine_mailbox),
                Done::Processed | Done::Ignored => cfg.processed_mailbox.as_ref(),
            };
            if let Some(target) = target {
                if conn.has_move {
                    conn.session
                        .uid_mv(&uid, target)
                        .map_err(imap_err("UID MOVE"))?;
                } else {
                    conn.session
                        .uid_copy(&uid, quote(target))
                        .map_err(imap_err("UID COPY"))?;
                    conn.session
                        .uid_store(&uid, "+FLAGS.SILENT (\\Deleted)")
                        .map_err(imap_err("UID STORE"))?;
                    if conn.has_uidplus {
                        conn.session
                            .uid_expunge(&uid)
                            .map_err(imap_err("UID EXPUNGE"))?;
                    } else {
                        conn.session.expunge().map_err(imap_err("EXPUNGE"))?;
                    }
                }
            }
            Ok(())
        })
    }

    /// With IDLE (configured and offered by the server): returns as soon as
    /// the mailbox changes, or after `timeout` (at most 29 minutes per call).
    /// Without: sleeps `timeout`. Unseen mail already waiting returns at
    /// once. Never fails fast: when the server cannot be reached it sleeps
    /// `timeout` and returns `Ok`, leaving the error to the next `fetch`.
    fn wait_for_mail(&mut self, timeout: Duration) -> Result<(), MailError> {
        let started = Instant::now();
        if !self.config.idle {
            std::thread::sleep(timeout);
            return Ok(());
        }
        let read_timeout = self.timeout();
        let waited = self.with_conn(|conn, _cfg| {
            if !conn.has_idle {
                return Ok(false);
            }
            if !conn
                .session
                .uid_search("UNSEEN")
                .map_err(imap_err("UID SEARCH UNSEEN"))?
                .is_empty()
            {
                return Ok(true);
            }
            let mut handle = conn.session.idle();
            handle
                .timeout(timeout.clamp(Duration::from_secs(1), MAX_IDLE))
                .keepalive(false);
            let outcome = handle.wait_while(imap::extensions::idle::stop_on_any);
            // IDLE leaves the socket without a read timeout: restore it
            // before the handle ends IDLE (DONE) on drop.
            let _ = conn.tcp.set_read_timeout(Some(read_timeout));
            drop(handle);
            outcome.map_err(imap_err("IDLE"))?;
            Ok(true)
        });
        let waited = match waited {
            Ok(w) => w,
            Err(e) => {
                tracing::debug!(error = %e, "IMAP wait_for_mail could not use the server");
                false
            }
        };
        if !waited {
            if let Some(rest) = timeout.checked_sub(started.elapsed()) {
                std::thread::sleep(rest);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
