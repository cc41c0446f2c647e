//! A small SMTP client of our own (RFC 5321), for the speed of the wire.
//!
//! Why not lettre's `SmtpTransport`: lettre 0.11 (0.11.23 in Cargo.lock)
//! sets no `TCP_NODELAY`, so every mail waited about 40 ms for Nagle's
//! algorithm to meet the relay's delayed ACK, and it opens one connection
//! per mail. lettre's fix (lettre/lettre#1159, "set TCP_NODELAY on
//! connections") is merged upstream but in no release yet. This client
//! stays until a lettre release sets it: the test
//! `tests::lettre_is_the_release_without_tcp_nodelay` reads the lettre
//! version in Cargo.lock and fails the day another lettre comes in; then
//! check that release (and `cargo bench --bench smtp`, which sends with both
//! side by side) before deciding whether this module can go. What lettre
//! would still have to do as well: keep one connection for a pass, and
//! give up on a stop flag (below).
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

mod session;
#[cfg(test)]
pub(crate) mod tests;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::config::Secret;
use session::SmtpSession;

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
