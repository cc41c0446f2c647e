//! The `[inbox]` and `[outbox]` config sections.

use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;

/// A secret string (a password, a URL with credentials): printed as
/// `*****` by `Debug` and `Display`, so it never reaches a log.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }

    /// The secret itself, for the one place that needs it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("*****")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("*****")
    }
}

/// `[inbox]`: where inbound mail is read. Default (no section): the
/// Maildir `var/inbox`. A section without `kind` is a Maildir; unknown
/// keys are errors.
///
/// ```toml
/// [inbox]
/// kind = "maildir"
/// path = "var/inbox"
/// ```
/// ```toml
/// [inbox]
/// kind = "imap"
/// host = "imap.example.org"
/// port = 993                      # default 993 for tls = "implicit", else 143
/// tls = "implicit"                # "implicit" | "starttls" | "plain" (loopback only!)
/// username = "chess@example.org"
/// password_file = "/etc/pbmchess/imap-password"   # or password = "..."
/// mailbox = "INBOX"               # default
/// processed_mailbox = "Processed" # optional; else processed mail just gets \Seen
/// quarantine_mailbox = "Quarantine" # default; mail failing inside the server
/// tls_ca_file = "/etc/pbmchess/ca.pem"            # optional extra trusted CA
/// idle = true                     # use IDLE to wait for mail when offered
/// timeout_seconds = 60
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
#[serde(remote = "InboxConfig")]
pub enum InboxConfig {
    Maildir {
        #[serde(default = "default_inbox_path")]
        path: PathBuf,
    },
    Imap(ImapConfig),
}

/// `kind` defaults to `"maildir"`: the section is read as a table, the
/// kind filled in when missing, then read as the tagged enum.
impl<'de> Deserialize<'de> for InboxConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(d)?;
        if !table.contains_key("kind") {
            if let Some(key) = table.keys().find(|k| k.as_str() != "path") {
                return Err(D::Error::custom(format!(
                    "[inbox] has `{key}` but no kind; write kind = \"imap\" (a section without kind is a Maildir, which has only `path`)"
                )));
            }
            table.insert("kind".into(), "maildir".into());
        }
        InboxConfig::deserialize(toml::Value::Table(table)).map_err(D::Error::custom)
    }
}

impl Default for InboxConfig {
    fn default() -> Self {
        InboxConfig::Maildir {
            path: default_inbox_path(),
        }
    }
}

fn default_inbox_path() -> PathBuf {
    PathBuf::from("var/inbox")
}

fn default_outbox_path() -> PathBuf {
    PathBuf::from("var/outbox")
}

/// TLS for IMAP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImapTls {
    /// TLS from the first byte (port 993).
    #[default]
    Implicit,
    /// Plain connection upgraded with STARTTLS (port 143); fails if the
    /// server does not offer it.
    Starttls,
    /// No encryption at all: for a server on the loopback interface.
    Plain,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    pub host: String,
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub tls: ImapTls,
    pub username: String,
    #[serde(default)]
    pub password: Option<Secret>,
    #[serde(default)]
    pub password_file: Option<PathBuf>,
    #[serde(default = "default_mailbox")]
    pub mailbox: String,
    #[serde(default)]
    pub processed_mailbox: Option<String>,
    /// Where mail that failed inside the server too often is moved; created
    /// when missing.
    #[serde(default = "default_quarantine_mailbox")]
    pub quarantine_mailbox: String,
    /// A PEM file with extra trusted certificates (a private CA, or the
    /// server's self-signed certificate), added to the system's roots.
    #[serde(default)]
    pub tls_ca_file: Option<PathBuf>,
    /// Use IMAP IDLE to wait for mail when the server offers it.
    #[serde(default = "yes")]
    pub idle: bool,
    /// Connect, read and write timeout.
    #[serde(default = "default_imap_timeout")]
    pub timeout_seconds: u64,
}

impl ImapConfig {
    /// The configured port, or 993 for implicit TLS and 143 otherwise.
    pub(crate) fn port(&self) -> u16 {
        self.port.unwrap_or(match self.tls {
            ImapTls::Implicit => 993,
            ImapTls::Starttls | ImapTls::Plain => 143,
        })
    }
}

fn default_mailbox() -> String {
    "INBOX".to_string()
}

fn default_quarantine_mailbox() -> String {
    "Quarantine".to_string()
}

fn yes() -> bool {
    true
}

fn default_imap_timeout() -> u64 {
    60
}

fn default_smtp_timeout() -> u64 {
    30
}

/// `[outbox]`: how mail is sent. Default (no section): the Maildir
/// `var/outbox`. A section without `kind` is a Maildir (as `[inbox]`), so
/// `path` alone is enough; any other key without a kind is refused naming
/// it. Unknown keys are errors.
///
/// ```toml
/// [outbox]
/// kind = "maildir"
/// path = "var/outbox"
/// ```
/// ```toml
/// [outbox]
/// kind = "smtp"
/// host = "smtp.example.org"
/// port = 587                      # default 465 implicit, 587 starttls, 25 none
/// tls = "starttls"                # "implicit" | "starttls" | "none"
/// username = "chess@example.org"
/// password_file = "/etc/pbmchess/smtp-password"
/// tls_ca_file = "/etc/pbmchess/ca.pem"            # optional extra trusted CA
/// timeout_seconds = 30
/// hello_name = "chess.example.org"                # optional EHLO name
/// # or instead of host/port/tls/credentials:
/// # url = "smtps://user:pass@smtp.example.org:465"
/// ```
/// ```toml
/// [outbox]
/// kind = "sendmail"
/// command = "/usr/sbin/sendmail"  # default
/// timeout_seconds = 60            # then the program is killed, the mail retried
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
#[serde(remote = "OutboxConfig")]
pub enum OutboxConfig {
    Maildir {
        #[serde(default = "default_outbox_path")]
        path: PathBuf,
    },
    Smtp(SmtpConfig),
    Sendmail {
        #[serde(default = "default_sendmail")]
        command: PathBuf,
        /// Seconds the program may run before it is killed and the mail
        /// tried again later.
        #[serde(default = "default_sendmail_timeout")]
        timeout_seconds: u64,
    },
}

/// `kind` defaults to `"maildir"`, read as for [`InboxConfig`].
impl<'de> Deserialize<'de> for OutboxConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(d)?;
        if !table.contains_key("kind") {
            if let Some(key) = table.keys().find(|k| k.as_str() != "path") {
                return Err(D::Error::custom(format!(
                    "[outbox] has `{key}` but no kind; write kind = \"smtp\" or \"sendmail\" (a section without kind is a Maildir, which has only `path`)"
                )));
            }
            table.insert("kind".into(), "maildir".into());
        }
        OutboxConfig::deserialize(toml::Value::Table(table)).map_err(D::Error::custom)
    }
}

impl Default for OutboxConfig {
    fn default() -> Self {
        OutboxConfig::Maildir {
            path: default_outbox_path(),
        }
    }
}

fn default_sendmail() -> PathBuf {
    PathBuf::from("/usr/sbin/sendmail")
}

fn default_sendmail_timeout() -> u64 {
    super::transports::SENDMAIL_TIMEOUT.as_secs()
}

/// TLS for SMTP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SmtpTls {
    /// TLS from the first byte (port 465).
    Implicit,
    /// STARTTLS required (port 587).
    #[default]
    Starttls,
    /// No encryption: for a relay on the loopback interface.
    None,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    /// lettre's connection URL (`smtp://host:port`, `smtps://user:pass@host`,
    /// `smtp://host?tls=required`); excludes `host`, `port`, `tls` and the
    /// credentials.
    #[serde(default)]
    pub url: Option<Secret>,
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub tls: SmtpTls,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub password: Option<Secret>,
    #[serde(default)]
    pub password_file: Option<PathBuf>,
    /// A PEM file with extra trusted certificates (a private CA, or the
    /// server's self-signed certificate); only with `host`, not `url`.
    #[serde(default)]
    pub tls_ca_file: Option<PathBuf>,
    /// Connect and command timeout.
    #[serde(default = "default_smtp_timeout")]
    pub timeout_seconds: u64,
    /// The name given in EHLO (default: this machine's host name).
    #[serde(default)]
    pub hello_name: Option<String>,
}

impl SmtpConfig {
    /// The configured port, or 465 / 587 / 25 by TLS mode.
    pub(crate) fn port(&self) -> u16 {
        self.port.unwrap_or(match self.tls {
            SmtpTls::Implicit => 465,
            SmtpTls::Starttls => 587,
            SmtpTls::None => 25,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct App {
        #[serde(default)]
        inbox: InboxConfig,
        #[serde(default)]
        outbox: OutboxConfig,
    }

    fn app(toml_text: &str) -> Result<App, toml::de::Error> {
        toml::from_str(toml_text)
    }

    #[test]
    fn defaults_are_local_maildirs() {
        let a = app("").unwrap();
        assert_eq!(
            a.inbox,
            InboxConfig::Maildir {
                path: "var/inbox".into()
            }
        );
        assert_eq!(
            a.outbox,
            OutboxConfig::Maildir {
                path: "var/outbox".into()
            }
        );
        let a = app("[inbox]\nkind = \"maildir\"\n[outbox]\nkind = \"maildir\"").unwrap();
        assert_eq!(a.inbox, InboxConfig::default());
        assert_eq!(a.outbox, OutboxConfig::default());
    }

    #[test]
    fn imap_section_with_defaults() {
        let a = app("[inbox]\nkind = \"imap\"\nhost = \"imap.example.org\"\nusername = \"chess\"\npassword = \"s3cret\"").unwrap();
        let InboxConfig::Imap(imap) = a.inbox else {
            panic!()
        };
        assert_eq!(imap.port(), 993);
        assert_eq!(imap.tls, ImapTls::Implicit);
        assert_eq!(imap.mailbox, "INBOX");
        assert_eq!(imap.processed_mailbox, None);
        assert!(imap.idle);
        assert_eq!(imap.timeout_seconds, 60);
        assert_eq!(imap.password.as_ref().unwrap().expose(), "s3cret");
        let debug = format!("{imap:?}");
        assert!(!debug.contains("s3cret"), "{debug}");
        let a = app("[inbox]\nkind = \"imap\"\nhost = \"h\"\nusername = \"u\"\ntls = \"starttls\"\nprocessed_mailbox = \"Done\"").unwrap();
        let InboxConfig::Imap(imap) = a.inbox else {
            panic!()
        };
        assert_eq!(imap.port(), 143);
        assert_eq!(imap.processed_mailbox.as_deref(), Some("Done"));
    }

    #[test]
    fn an_inbox_without_kind_is_a_maildir() {
        let a = app("[inbox]\npath = \"mail/in\"").unwrap();
        assert_eq!(
            a.inbox,
            InboxConfig::Maildir {
                path: "mail/in".into()
            }
        );
        assert_eq!(app("[inbox]\n").unwrap().inbox, InboxConfig::default());
        let e = app("[inbox]\nhost = \"imap.example.org\"")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no kind") && e.contains("host"), "{e}");
        assert!(app("[inbox]\nkind = \"maildir\"\npth = \"x\"").is_err());
    }

    #[test]
    fn unknown_keys_and_kinds_are_rejected() {
        assert!(
            app("[inbox]\nkind = \"imap\"\nhost = \"h\"\nusername = \"u\"\npasword = \"x\"")
                .is_err()
        );
        assert!(app("[inbox]\nkind = \"pop3\"").is_err());
        assert!(app("[outbox]\nkind = \"smtp\"\nhots = \"h\"").is_err());
        assert!(app("[inbox]\nkind = \"maildir\"\npth = \"x\"").is_err());
        assert!(app("[outbox]\nkind = \"sendmail\"\ncmd = \"x\"").is_err());
        assert_eq!(
            app("[outbox]\npath = \"x\"").unwrap().outbox,
            OutboxConfig::Maildir { path: "x".into() },
            "a section without kind is a Maildir"
        );
        let e = app("[outbox]\nhost = \"smtp.example.org\"")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no kind") && e.contains("host"), "{e}");
    }

    #[test]
    fn smtp_and_sendmail_sections() {
        let a = app("[outbox]\nkind = \"smtp\"\nhost = \"smtp.example.org\"\nusername = \"u\"\npassword = \"pw\"").unwrap();
        let OutboxConfig::Smtp(smtp) = &a.outbox else {
            panic!()
        };
        assert_eq!(smtp.port(), 587);
        assert_eq!(smtp.tls, SmtpTls::Starttls);
        assert_eq!(smtp.timeout_seconds, 30);
        assert!(!format!("{:?}", a.outbox).contains("pw\""));
        let a = app("[outbox]\nkind = \"smtp\"\nurl = \"smtps://u:hidden@h\"").unwrap();
        assert!(!format!("{:?}", a.outbox).contains("hidden"));
        let a = app("[outbox]\nkind = \"sendmail\"").unwrap();
        assert_eq!(
            a.outbox,
            OutboxConfig::Sendmail {
                command: "/usr/sbin/sendmail".into(),
                timeout_seconds: 60,
            }
        );
        let a = app("[outbox]\nkind = \"sendmail\"\ntimeout_seconds = 5").unwrap();
        assert!(matches!(
            a.outbox,
            OutboxConfig::Sendmail {
                timeout_seconds: 5,
                ..
            }
        ));
    }
}
