//! Network and program transports: SMTP (lettre) and a sendmail command.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};

use super::config::{SmtpConfig, SmtpTls};
use super::connect::{is_loopback, read_ca_file, resolve_password};
use super::outbound::{SendError, Sender};
use super::MailError;

/// Sends through an SMTP server (lettre, blocking, one connection per
/// message). Timeouts: `timeout_seconds` (default 30 s) for connecting and
/// for every command.
///
/// Error classes: a 5xx reply is [`SendError::Permanent`]; everything else
/// (4xx, refused connection, timeout, TLS trouble, lost connection) is
/// [`SendError::Temporary`], retried by the outbox schedule. So are the 5xx
/// replies about the server's own login (530, 534, 535, 538): a
/// configuration error the admin fixes (MTAs defer on them too), not a
/// verdict on the mail.
pub struct SmtpOutbox {
    transport: SmtpTransport,
    /// `timeout_seconds`, which lettre applies to each step of a send.
    timeout: Duration,
    /// For logs: `host:port` or the URL's host, never credentials.
    label: String,
}

impl std::fmt::Debug for SmtpOutbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpOutbox")
            .field("server", &self.label)
            .finish()
    }
}

impl SmtpOutbox {
    pub fn new(config: &SmtpConfig) -> Result<Self, MailError> {
        let timeout = Some(Duration::from_secs(config.timeout_seconds.max(1)));
        let password = resolve_password(
            config.password.as_ref(),
            config.password_file.as_deref(),
            "outbox",
        )?;
        let ca_pem = read_ca_file(config.tls_ca_file.as_deref(), "outbox")?;
        let (builder, label) = if let Some(url) = &config.url {
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
            let builder = SmtpTransport::from_url(url.expose())
                .map_err(|e| MailError::Config(format!("[outbox] url: {e}")))?;
            (builder, "the url's server".to_string())
        } else {
            let host = config
                .host
                .as_deref()
                .filter(|h| !h.trim().is_empty())
                .ok_or_else(|| {
                    MailError::Config("[outbox] kind = \"smtp\" needs host or url".into())
                })?;
            let tls_params = || {
                let mut b = TlsParameters::builder(host.to_string());
                if let Some(pem) = &ca_pem {
                    let cert = Certificate::from_pem(pem)
                        .map_err(|e| MailError::Config(format!("[outbox] tls_ca_file: {e}")))?;
                    b = b.add_root_certificate(cert);
                }
                b.build()
                    .map_err(|e| MailError::Config(format!("[outbox] TLS setup: {e}")))
            };
            let tls = match config.tls {
                SmtpTls::Implicit => Tls::Wrapper(tls_params()?),
                SmtpTls::Starttls => Tls::Required(tls_params()?),
                SmtpTls::None => {
                    if !is_loopback(host) {
                        tracing::warn!(host, "SMTP without TLS to a host that is not loopback");
                    }
                    Tls::None
                }
            };
            let mut builder = SmtpTransport::builder_dangerous(host)
                .port(config.port())
                .tls(tls);
            match (&config.username, password) {
                (Some(user), Some(pw)) => {
                    builder = builder
                        .credentials(Credentials::new(user.clone(), pw.expose().to_string()));
                }
                (None, None) => {}
                _ => {
                    return Err(MailError::Config(
                        "[outbox] username and password go together".into(),
                    ))
                }
            }
            (builder, format!("{host}:{}", config.port()))
        };
        let mut builder = builder.timeout(timeout);
        if let Some(name) = &config.hello_name {
            builder = builder.hello_name(lettre::transport::smtp::extension::ClientId::Domain(
                name.clone(),
            ));
        }
        Ok(SmtpOutbox {
            transport: builder.build(),
            timeout: Duration::from_secs(config.timeout_seconds.max(1)),
            label,
        })
    }
}

impl Sender for SmtpOutbox {
    /// One send is at most [`SMTP_STEPS`] steps (connect, greeting, EHLO,
    /// STARTTLS, EHLO, AUTH, MAIL, RCPT, DATA, the body, the final dot,
    /// QUIT, with room to spare), each bounded by `timeout_seconds`.
    fn longest_send(&self) -> Duration {
        self.timeout * SMTP_STEPS
    }

    fn send(&mut self, msg: &Message) -> Result<(), SendError> {
        self.transport.send(msg).map(|_| ()).map_err(|e| {
            let text = format!("SMTP {}: {e}", self.label);
            let login_problem = e
                .status()
                .is_some_and(|code| is_login_problem(&code.to_string()));
            if e.is_permanent() && !login_problem {
                SendError::Permanent(text)
            } else {
                SendError::Temporary(text)
            }
        })
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
/// standard input.
///
/// Exit status: 0 is success; `EX_DATAERR` (65), `EX_NOUSER` (67) and
/// `EX_NOHOST` (68) are [`SendError::Permanent`]; any other status, a signal,
/// or a program that cannot be started is [`SendError::Temporary`] (sendmail's
/// own queue usually takes over temporary trouble, so this is rare).
#[derive(Debug)]
pub struct SendmailOutbox {
    command: PathBuf,
}

impl SendmailOutbox {
    pub fn new(command: &Path) -> Self {
        SendmailOutbox {
            command: command.to_path_buf(),
        }
    }
}

impl Sender for SendmailOutbox {
    fn send(&mut self, msg: &Message) -> Result<(), SendError> {
        let envelope = msg.envelope();
        let from = envelope.from().map(|a| a.to_string()).unwrap_or_default();
        let mut cmd = Command::new(&self.command);
        cmd.arg("-i").arg("-f").arg(&from).arg("--");
        for to in envelope.to() {
            cmd.arg(to);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                SendError::Temporary(format!("cannot run {}: {e}", self.command.display()))
            })?;
        let written = child
            .stdin
            .take()
            .map(|mut stdin| stdin.write_all(&msg.formatted()))
            .unwrap_or(Ok(()));
        let output = child.wait_with_output().map_err(|e| {
            SendError::Temporary(format!("waiting for {}: {e}", self.command.display()))
        })?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stderr = stderr.trim();
        match output.status.code() {
            Some(0) => match written {
                Ok(()) => Ok(()),
                Err(e) => Err(SendError::Temporary(format!(
                    "{} exited before reading the whole message: {e}",
                    self.command.display()
                ))),
            },
            Some(code @ (65 | 67 | 68)) => Err(SendError::Permanent(format!(
                "{} exited with {code}: {stderr}",
                self.command.display()
            ))),
            Some(code) => Err(SendError::Temporary(format!(
                "{} exited with {code}: {stderr}",
                self.command.display()
            ))),
            None => Err(SendError::Temporary(format!(
                "{} was killed by a signal",
                self.command.display()
            ))),
        }
    }
}

impl SmtpOutbox {
    /// Connect, greet and log in as a send would, then quit without
    /// sending (`pbmchess check`). The error names the server, never the
    /// credentials.
    pub fn test_login(&self) -> Result<(), String> {
        match self.transport.test_connection() {
            Ok(true) => Ok(()),
            Ok(false) => Err(format!("SMTP {}: the server did not answer", self.label)),
            Err(e) => Err(format!("SMTP {}: {e}", self.label)),
        }
    }
}

#[cfg(test)]
mod tests {
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
        build_message(&out, 1, "pbm@chess.example", SystemTime::now()).unwrap()
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
}
