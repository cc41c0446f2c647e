//! Network and program transports: SMTP (our own client, `smtp.rs`) and a
//! sendmail command.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lettre::Message;

use super::config::{SmtpConfig, SmtpTls};
use super::connect::{is_loopback, read_ca_file, resolve_password};
use super::outbound::{SendError, Sender};
use super::smtp::{Security, SmtpClient, SmtpClientConfig, SmtpError};
use super::{MailError, Secret};

/// Sends through an SMTP server with `SmtpClient`: `TCP_NODELAY`, one
/// connection for a whole sending pass (closed with QUIT at its end),
/// PIPELINING when offered. Timeouts: `timeout_seconds` (default 30 s) for
/// connecting and for each read and write; a send gives up as soon as the
/// stop flag is set.
///
/// Error classes: a 5xx reply to the mail's own transaction (MAIL, RCPT,
/// DATA, the message) is [`SendError::Permanent`]; everything else (4xx,
/// refused connection, timeout, TLS trouble, lost connection, a refusal
/// of the greeting, EHLO or login) is [`SendError::Temporary`], retried by
/// the outbox schedule. So are the 5xx replies about the server's own login
/// (530, 534, 535, 538) wherever they come: a configuration error the admin
/// fixes (MTAs defer on them too), not a verdict on the mail.
pub struct SmtpOutbox {
    client: SmtpClient,
    /// `timeout_seconds`, which bounds each step of a send.
    timeout: Duration,
    /// For logs: `host:port`, never credentials.
    label: String,
}

impl std::fmt::Debug for SmtpOutbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpOutbox")
            .field("server", &self.label)
            .finish()
    }
}

/// What `url` says (lettre's connection URL form, kept from when lettre
/// sent our mail): `smtp://[user:pass@]host[:port][/ehlo-name][?tls=required|opportunistic]`
/// or `smtps://...`. Ports default to 25 (plain `smtp`), 587 (`smtp` with
/// `tls`) and 465 (`smtps`); user and password are percent-decoded.
struct UrlParts {
    host: String,
    port: u16,
    security: Security,
    credentials: Option<(String, Secret)>,
    hello_name: Option<String>,
}

fn parse_url(text: &str) -> Result<UrlParts, MailError> {
    // Never quote the URL in an error: it may hold the password.
    let bad = |why: &str| MailError::Config(format!("[outbox] url: {why}"));
    let url = url::Url::parse(text).map_err(|e| bad(&e.to_string()))?;
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| bad("no host"))?
        .to_string();
    let tls = url
        .query_pairs()
        .find(|(k, _)| k == "tls")
        .map(|(_, v)| v.to_string());
    let (security, default_port) = match (url.scheme(), tls.as_deref()) {
        ("smtp", None) => (Security::None, 25),
        ("smtp", Some("required")) => (Security::StartTls { required: true }, 587),
        ("smtp", Some("opportunistic")) => (Security::StartTls { required: false }, 587),
        ("smtps", _) => (Security::Implicit, 465),
        _ => {
            return Err(bad(
                "the scheme must be smtp or smtps, and tls= required or opportunistic",
            ))
        }
    };
    let decode = |s: &str| -> Result<String, MailError> {
        percent_decode(s).ok_or_else(|| bad("bad percent-encoding in the user or password"))
    };
    let credentials = match url.password() {
        Some(pw) => Some((decode(url.username())?, Secret::new(decode(pw)?))),
        None => None,
    };
    let path = url.path().trim_matches('/');
    Ok(UrlParts {
        host,
        port: url.port().unwrap_or(default_port),
        security,
        credentials,
        hello_name: (!path.is_empty()).then(|| path.to_string()),
    })
}

/// `%XX` decoded, as UTF-8; `None` when it is not (a `%` not followed by
/// two hex digits, or bytes that are not UTF-8).
fn percent_decode(s: &str) -> Option<String> {
    let escapes_are_whole = s.split('%').skip(1).all(|after| {
        after
            .get(..2)
            .is_some_and(|xx| xx.bytes().all(|b| b.is_ascii_hexdigit()))
    });
    escapes_are_whole
        .then(|| percent_encoding::percent_decode_str(s).decode_utf8().ok())
        .flatten()
        .map(String::from)
}

impl SmtpOutbox {
    pub fn new(config: &SmtpConfig) -> Result<Self, MailError> {
        let timeout = Duration::from_secs(config.timeout_seconds.max(1));
        let password = resolve_password(
            config.password.as_ref(),
            config.password_file.as_deref(),
            "outbox",
        )?;
        let ca_pem = read_ca_file(config.tls_ca_file.as_deref(), "outbox")?;
        let (client, label) = if let Some(url) = &config.url {
            if config.host.is_some()
                || config.port.is_some()
                || config.username.is_some()
                || password.is_some()
                || ca_pem.is_some()
            {
                return Err(MailError::Config(
                    "[outbox] url excludes host, port, username, password and tls_ca_file: keep one way".into(),
                ));
            }
            // The URL is a secret as a whole.
            (
                client_of_url(config, url, timeout)?,
                "the url's server".to_string(),
            )
        } else {
            client_of_host(config, password, ca_pem, timeout)?
        };
        Ok(SmtpOutbox {
            client: SmtpClient::new(client),
            timeout,
            label,
        })
    }
}

/// The name said in EHLO when `hello_name` is not set: lettre's default.
fn default_hello_name() -> String {
    lettre::transport::smtp::extension::ClientId::default().to_string()
}

/// The client settings of `[outbox] url`.
fn client_of_url(
    config: &SmtpConfig,
    url: &Secret,
    timeout: Duration,
) -> Result<SmtpClientConfig, MailError> {
    let parts = parse_url(url.expose())?;
    Ok(SmtpClientConfig {
        host: parts.host,
        port: parts.port,
        security: parts.security,
        credentials: parts.credentials,
        ca_pem: None,
        hello_name: config
            .hello_name
            .clone()
            .or(parts.hello_name)
            .unwrap_or_else(default_hello_name),
        timeout,
    })
}

/// The client settings of `[outbox] host`, `port`, `tls`, `username`,
/// `password` and `tls_ca_file`, and the label logs name the server by.
fn client_of_host(
    config: &SmtpConfig,
    password: Option<Secret>,
    ca_pem: Option<Vec<u8>>,
    timeout: Duration,
) -> Result<(SmtpClientConfig, String), MailError> {
    let host = config
        .host
        .as_deref()
        .filter(|h| !h.trim().is_empty())
        .ok_or_else(|| MailError::Config("[outbox] kind = \"smtp\" needs host or url".into()))?;
    if let Some(pem) = &ca_pem {
        native_tls::Certificate::from_pem(pem)
            .map_err(|e| MailError::Config(format!("[outbox] tls_ca_file: {e}")))?;
    }
    let security = match config.tls {
        SmtpTls::Implicit => Security::Implicit,
        SmtpTls::Starttls => Security::StartTls { required: true },
        SmtpTls::None => {
            if !is_loopback(host) {
                tracing::warn!(host, "SMTP without TLS to a host that is not loopback");
            }
            Security::None
        }
    };
    let credentials = match (&config.username, password) {
        (Some(user), Some(pw)) => Some((user.clone(), pw)),
        (None, None) => None,
        _ => {
            return Err(MailError::Config(
                "[outbox] username and password go together".into(),
            ))
        }
    };
    let client = SmtpClientConfig {
        host: host.to_string(),
        port: config.port(),
        security,
        credentials,
        ca_pem,
        hello_name: config.hello_name.clone().unwrap_or_else(default_hello_name),
        timeout,
    };
    let label = format!("{host}:{}", config.port());
    Ok((client, label))
}

/// A stop flag that is never set, for [`Sender::send`].
static NEVER: AtomicBool = AtomicBool::new(false);

impl Sender for SmtpOutbox {
    /// One send is at most `SMTP_STEPS` steps (connect, greeting, EHLO,
    /// STARTTLS, EHLO, AUTH, RSET, MAIL, RCPT, DATA, the body, the final
    /// reply, and a reconnection, with room to spare), each bounded by
    /// `timeout_seconds`.
    fn longest_send(&self) -> Duration {
        self.timeout * SMTP_STEPS
    }

    fn send(&mut self, msg: &Message) -> Result<(), SendError> {
        self.send_or_stop(msg, &NEVER)
    }

    fn send_or_stop(&mut self, msg: &Message, stop: &AtomicBool) -> Result<(), SendError> {
        let envelope = msg.envelope();
        let from = envelope.from().map(|a| a.to_string()).unwrap_or_default();
        let to: Vec<String> = envelope.to().iter().map(|a| a.to_string()).collect();
        let message = msg.formatted();
        self.client.send(&from, &to, &message, stop).map_err(|f| {
            let text = format!("SMTP {}: {}", self.label, f.error);
            match f.error {
                SmtpError::Reply { code, .. }
                    if f.in_transaction
                        && code / 100 == 5
                        && !is_login_problem(&code.to_string()) =>
                {
                    SendError::Permanent(text)
                }
                _ => SendError::Temporary(text),
            }
        })
    }

    fn end_pass(&mut self) {
        self.client.close();
    }
}

/// The steps of one SMTP send that each may take `timeout_seconds`.
const SMTP_STEPS: u32 = 16;

/// Whether an SMTP reply code is about authentication (RFC 4954): 530
/// authentication required, 534 mechanism too weak, 535 credentials
/// invalid, 538 encryption required. They say nothing about the mail and
/// would refuse every mail alike until the configuration is fixed.
fn is_login_problem(code: &str) -> bool {
    matches!(code, "530" | "534" | "535" | "538")
}

/// Sends by running a sendmail-compatible program:
/// `COMMAND -i -f <envelope sender> -- <recipients...>` with the message on
/// standard input, one process per mail.
///
/// Exit status: 0 is success; `EX_DATAERR` (65), `EX_NOUSER` (67) and
/// `EX_NOHOST` (68) are [`SendError::Permanent`]; any other status, a signal,
/// or a program that cannot be started is [`SendError::Temporary`] (sendmail's
/// own queue usually takes over temporary trouble, so this is rare).
///
/// Bound: a program still running after `[outbox]
/// timeout_seconds` (default 60), or when the stop flag is set, is killed
/// with its whole process group (it runs in one of its own, so a script's
/// children go too); the mail is a temporary failure, tried again later.
#[derive(Debug)]
pub struct SendmailOutbox {
    command: PathBuf,
    timeout: Duration,
}

/// `[outbox] timeout_seconds` of the sendmail outbox when not set.
pub(crate) const SENDMAIL_TIMEOUT: Duration = Duration::from_secs(60);

impl SendmailOutbox {
    pub fn new(command: &Path) -> Self {
        SendmailOutbox::with_timeout(command, SENDMAIL_TIMEOUT)
    }

    /// A sendmail outbox whose program is killed after `timeout`.
    pub(crate) fn with_timeout(command: &Path, timeout: Duration) -> Self {
        SendmailOutbox {
            command: command.to_path_buf(),
            timeout: timeout.max(Duration::from_secs(1)),
        }
    }
}

/// How long a killed sendmail's reaping is waited for.
const REAP_WAIT: Duration = Duration::from_secs(2);

impl Sender for SendmailOutbox {
    /// The program's time limit, and a little for starting and reaping it.
    fn longest_send(&self) -> Duration {
        self.timeout + REAP_WAIT * 2
    }

    fn send(&mut self, msg: &Message) -> Result<(), SendError> {
        self.send_or_stop(msg, &NEVER)
    }

    fn send_or_stop(&mut self, msg: &Message, stop: &AtomicBool) -> Result<(), SendError> {
        use std::os::unix::process::CommandExt;
        let envelope = msg.envelope();
        let from = envelope.from().map(|a| a.to_string()).unwrap_or_default();
        let mut cmd = Command::new(&self.command);
        cmd.arg("-i").arg("-f").arg(&from).arg("--");
        for to in envelope.to() {
            cmd.arg(to);
        }
        let name = self.command.display().to_string();
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| SendError::Temporary(format!("cannot run {name}: {e}")))?;
        let pid = child.id() as libc::pid_t;
        let stdin = child.stdin.take();
        let raw = msg.formatted();
        let (tx, rx) = std::sync::mpsc::channel();
        // Writing may block (a program that does not read) and so may
        // waiting: both in a thread, which the kill below ends.
        std::thread::spawn(move || {
            let written = stdin
                .map(|mut stdin| stdin.write_all(&raw))
                .unwrap_or(Ok(()));
            let output = child.wait_with_output();
            let _ = tx.send((written, output));
        });
        let deadline = Instant::now() + self.timeout;
        let (written, output) = loop {
            match rx.recv_timeout(super::smtp::STOP_SLICE) {
                Ok(done) => break done,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    let stopped = stop.load(Ordering::SeqCst);
                    if stopped || Instant::now() >= deadline {
                        // SAFETY: kill(2) on the process group the child
                        // leads; it has not been reaped (no result yet).
                        unsafe {
                            libc::kill(-pid, libc::SIGKILL);
                        }
                        let _ = rx.recv_timeout(REAP_WAIT);
                        return Err(SendError::Temporary(if stopped {
                            format!("{name} was stopped: the server is shutting down")
                        } else {
                            format!(
                                "{name} did not finish within {} s and was killed",
                                self.timeout.as_secs()
                            )
                        }));
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(SendError::Temporary(format!("lost track of {name}")))
                }
            }
        };
        let output =
            output.map_err(|e| SendError::Temporary(format!("waiting for {name}: {e}")))?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stderr = stderr.trim();
        match output.status.code() {
            Some(0) => match written {
                Ok(()) => Ok(()),
                Err(e) => Err(SendError::Temporary(format!(
                    "{name} exited before reading the whole message: {e}"
                ))),
            },
            Some(code @ (65 | 67 | 68)) => Err(SendError::Permanent(format!(
                "{name} exited with {code}: {stderr}"
            ))),
            Some(code) => Err(SendError::Temporary(format!(
                "{name} exited with {code}: {stderr}"
            ))),
            None => Err(SendError::Temporary(format!(
                "{name} was killed by a signal"
            ))),
        }
    }
}

impl SmtpOutbox {
    /// Connect, greet and log in as a send would, then quit without
    /// sending (`pbmchess check`). The error names the server, never the
    /// credentials.
    pub(crate) fn test_login(&self) -> Result<(), String> {
        self.client
            .test_login()
            .map_err(|e| format!("SMTP {}: {e}", self.label))
    }
}

#[cfg(test)]
mod tests;
