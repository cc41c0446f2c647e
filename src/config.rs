//! The TOML config, with defaults that work out of the box.
//!
//! Without a file every key takes its default: database
//! `var/pbmchess.sqlite`, inbox Maildir `var/inbox`, outbox Maildir
//! `var/outbox`. Relative paths in a config file are taken relative to the
//! folder of that file, so a config and its `var/` can move together;
//! built-in defaults are relative to the current directory.
//! `config.example.toml` documents every key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::mail::{InboxConfig, OutboxConfig};

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub server: ServerSection,
    pub database: DatabaseSection,
    pub inbox: InboxConfig,
    pub outbox: OutboxConfig,
    pub(crate) poll: PollSection,
    pub(crate) retry: RetrySection,
    pub(crate) timers: TimersSection,
    pub limits: LimitsSection,
    pub(crate) retention: RetentionSection,
    pub(crate) templates: TemplatesSection,
    pub(crate) log: LogSection,
    pub computer: ComputerSection,
    pub accounts: AccountsSection,
    pub(crate) security: SecuritySection,
    pub tournaments: TournamentsSection,
}

/// Who may open tournaments by mail.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct TournamentsSection {
    /// Players may open tournaments by mail (`<game> tournament create`);
    /// false (the default): only the userids in `[server] admins` may, and
    /// the admin CLI always may.
    pub players_may_create: bool,
}

/// Who may act without a password.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct SecuritySection {
    /// The receiving MTA's name as it writes it in `Authentication-Results`
    /// (RFC 8601). When set, only the topmost such header of this host
    /// counts, and a command without a password (a reply by token, a
    /// stranger's challenge) needs `dmarc=pass` or an aligned `dkim=pass`
    /// for the From address (see `mail::auth`). Unset (the default): From
    /// is trusted as it comes.
    pub authserv_id: Option<String>,
}

/// Who the server is.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ServerSection {
    /// The address players write to; replies come from it and mail from it
    /// is never answered.
    pub address: String,
    /// The display name on replies and in help.
    pub name: String,
    /// Userids that may use the admin mail commands (`broadcast`).
    pub admins: Vec<String>,
}

/// The address of the example config and of the built-in defaults; `init`
/// warns while it is still configured.
pub const EXAMPLE_ADDRESS: &str = "pbmchess@localhost";

impl Default for ServerSection {
    fn default() -> Self {
        ServerSection {
            address: EXAMPLE_ADDRESS.into(),
            name: "pbmchess".into(),
            admins: Vec::new(),
        }
    }
}

impl ServerSection {
    /// The domain of `address`, as the Message-IDs of the server's mails
    /// name it (see `mail::outgoing_message_id`).
    pub(crate) fn domain(&self) -> &str {
        self.address.trim().rsplit_once('@').map_or("", |(_, d)| d)
    }

    /// Whether `userid` is one of the `admins` (compared in lower case).
    pub(crate) fn is_admin(&self, userid: &str) -> bool {
        self.admins.iter().any(|a| a.eq_ignore_ascii_case(userid))
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DatabaseSection {
    pub path: PathBuf,
    /// How long a command waits for another process's write to end before
    /// it gives up (`process` then exits 75, so the MTA tries again later).
    pub busy_timeout_seconds: u64,
}

impl Default for DatabaseSection {
    fn default() -> Self {
        DatabaseSection {
            path: PathBuf::from("var/pbmchess.sqlite"),
            busy_timeout_seconds: 30,
        }
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct PollSection {
    /// Seconds `serve` waits between passes.
    pub interval_seconds: u64,
}

impl Default for PollSection {
    fn default() -> Self {
        PollSection {
            interval_seconds: 60,
        }
    }
}

/// How outgoing mail that failed temporarily is tried again.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RetrySection {
    /// Seconds before the first retry; each further wait doubles.
    pub first_seconds: u64,
    /// The longest wait between two attempts, in seconds.
    pub max_seconds: u64,
    /// Hours after which a mail still failing is given up.
    pub give_up_hours: u64,
    /// Seconds a sending pass holds the mails it claimed (at least twice
    /// the transport's longest send; see `limits::SEND_LEASE`). After a
    /// crash mid-send the next sender takes them back at once (the send
    /// lock); they wait this long only where that lock cannot be had.
    pub lease_seconds: u64,
}

impl Default for RetrySection {
    fn default() -> Self {
        let policy = crate::mail::RetryPolicy::default();
        RetrySection {
            first_seconds: policy.first_delay.as_secs(),
            max_seconds: policy.max_delay.as_secs(),
            give_up_hours: policy.give_up_after.as_secs() / 3600,
            lease_seconds: crate::limits::SEND_LEASE.as_secs(),
        }
    }
}

impl RetrySection {
    pub(crate) fn policy(&self) -> crate::mail::RetryPolicy {
        use std::time::Duration;
        crate::mail::RetryPolicy {
            first_delay: Duration::from_secs(self.first_seconds.max(1)),
            max_delay: Duration::from_secs(self.max_seconds.max(1)),
            give_up_after: Duration::from_secs(self.give_up_hours.saturating_mul(3600)),
        }
    }
}

/// Defaults for boards that name no timers of their own.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct TimersSection {
    /// Days without action before the player to act is reminded (daily).
    pub nag_days: u32,
    /// Days without action before the player to act forfeits.
    pub forfeit_days: u32,
    /// Days of vacation a player may take in one calendar year.
    pub vacation_days_per_year: u32,
}

impl Default for TimersSection {
    fn default() -> Self {
        TimersSection {
            nag_days: 7,
            forfeit_days: 21,
            vacation_days_per_year: 30,
        }
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsSection {
    /// Commands (each line of a `multiple` counts) per sender address per
    /// hour; beyond it only commands whose password is right still run
    /// (they count against their account instead), the rest are dropped
    /// with one notice an hour.
    pub commands_per_hour: u32,
    /// Commands with a right password per account per hour.
    pub commands_per_hour_per_account: u32,
    /// Commands per hour for the whole server from senders who prove no
    /// password (signups, strangers, wrong passwords); beyond it those are
    /// refused with one sentence a mail until the next hour. Players'
    /// commands with their right password count against their accounts
    /// only (see `server::guard`).
    pub commands_per_hour_total: u32,
    /// Boards a player may ask for in 24 hours (their own challenges by
    /// mail and `seek`; being challenged spends nothing; the admin's
    /// `admin challenge` is not counted).
    pub boards_per_player_per_day: u32,
    /// Larger inbound mails are refused with a short error.
    pub max_message_bytes: usize,
    /// Tries after which a mail that fails inside the server (a database
    /// or template failure, not the player's mistake) is quarantined.
    pub failures_before_quarantine: u32,
    /// The largest mail the server sends (the answers to one sender joined,
    /// or any one mail to someone else); a mail whose answers would be
    /// larger is refused with one short error and changes nothing. See
    /// `crate::limits`.
    pub max_reply_bytes: usize,
    /// Most boards, users, topics or games one command may name (after
    /// repeated ones are collapsed).
    pub max_list_items: usize,
    /// Mails per clock hour (UTC), server-wide, that inbound mails cause
    /// to addresses other than their senders' and the players' confirmed
    /// ones (confirmation mails to new addresses); beyond it they are not
    /// sent, and the sender is told (see `server::Server::charge_strangers`).
    pub unconfirmed_mails_per_hour: u32,
    /// Answers per clock hour (UTC) one address receives to mail with its
    /// From (forged or not) that proved no account of that address (by
    /// its password or a reply token). Beyond it they are not sent (see
    /// `server::guard::answer_may_go`). Unset: `commands_per_hour` and
    /// one: the answers the address's own commands that prove nothing may
    /// get, and the notice that it sent too many.
    pub unproved_answers_per_hour: Option<u32>,
    /// Most observers (`subscribe`) one board may have.
    pub observers_per_board: usize,
    /// Tournaments not yet finished (open or running) the server holds at
    /// once; `tournament create` by mail is refused beyond it (the admin
    /// CLI opens beyond it).
    pub open_tournaments: u32,
}

impl LimitsSection {
    /// `unproved_answers_per_hour`, or `commands_per_hour` and one when
    /// unset.
    pub(crate) fn unproved_answers(&self) -> u32 {
        self.unproved_answers_per_hour
            .unwrap_or(self.commands_per_hour.saturating_add(1))
    }
}

impl Default for LimitsSection {
    fn default() -> Self {
        LimitsSection {
            commands_per_hour: 60,
            commands_per_hour_per_account: 200,
            commands_per_hour_total: 5000,
            boards_per_player_per_day: 20,
            max_message_bytes: crate::limits::MAX_MESSAGE_BYTES,
            failures_before_quarantine: 3,
            max_reply_bytes: 64 * 1024,
            max_list_items: 20,
            unconfirmed_mails_per_hour: 100,
            unproved_answers_per_hour: None,
            observers_per_board: 50,
            open_tournaments: 20,
        }
    }
}

/// How long the records of finished mail are kept (see `crate::limits`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RetentionSection {
    /// Days the Message-IDs of processed inbound mail are kept (a mail
    /// delivered again within them is recognised and not applied twice),
    /// and reply tokens of past plies and ended games.
    pub processed_mail_days: u32,
    /// Days sent outbox mails are kept (mails given up stay until the
    /// admin removes them).
    pub sent_outbox_days: u32,
    /// Days a processed inbound mail itself is kept where the inbox files
    /// it (a Maildir's `cur/`; the IMAP `processed_mailbox`, or the seen
    /// mail of the IMAP mailbox without one), counted from its delivery;
    /// then it is deleted (see `daemon::prune`). It holds passwords in
    /// clear, so the default is a week; its Message-ID is remembered for
    /// `processed_mail_days` all the same. Quarantined mail stays. 0:
    /// deleted at the next pruning after it was processed.
    pub inbox_mail_days: u32,
}

impl Default for RetentionSection {
    fn default() -> Self {
        RetentionSection {
            processed_mail_days: 90,
            sent_outbox_days: 30,
            inbox_mail_days: 7,
        }
    }
}

/// Accounts: password throttling and address confirmation.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AccountsSection {
    /// Wrong passwords for one userid (existing or not) within
    /// `lockout_minutes` after which it is locked for `lockout_minutes`.
    pub password_failures: u32,
    /// How long a lockout lasts, and the window the failures are counted in.
    pub lockout_minutes: u32,
    /// Days a confirmation code stays valid.
    pub confirmation_days: u32,
    /// Whether addresses must prove they are read before they get what
    /// players wrote (the default). Off: every address counts as confirmed
    /// at once, for a closed server whose admin vouches for its players.
    pub confirm_addresses: bool,
    /// Hard bounces of different mails (DSNs for mail the server sent,
    /// quoting its Message-ID), over more than a day with no delivery
    /// accepted in between, after which an address gets no more mail until
    /// mail comes from it (see `server::bounces`); `pbmchess status` lists
    /// it. 0: never stop.
    pub bounces_before_stop: u32,
}

impl Default for AccountsSection {
    fn default() -> Self {
        AccountsSection {
            password_failures: 5,
            lockout_minutes: 15,
            confirmation_days: 7,
            confirm_addresses: true,
            bounces_before_stop: 5,
        }
    }
}

/// The built-in computer player.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ComputerSection {
    /// Whether players may challenge the computer (its running boards
    /// wait while it is off).
    pub enabled: bool,
    /// Its userid: challenge it as `chess challenge alice computer`.
    pub userid: String,
    /// Seconds it may think about one move (at level 5; level n takes
    /// n/5 of it at most).
    pub move_seconds: f64,
    /// Seconds it may think in all for one inbound mail, one pass of the
    /// timers or one admin command (see `server::computer::Budget`).
    pub seconds_per_mail: f64,
}

impl Default for ComputerSection {
    fn default() -> Self {
        ComputerSection {
            enabled: true,
            userid: "computer".into(),
            move_seconds: 1.0,
            seconds_per_mail: 0.8,
        }
    }
}

impl ComputerSection {
    /// Whether `userid` (lower case) is the computer, while it plays.
    pub(crate) fn is(&self, userid: &str) -> bool {
        self.enabled && userid.eq_ignore_ascii_case(&self.userid)
    }

    /// The time it may think about one move at level 5.
    pub(crate) fn move_time(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.move_seconds.clamp(0.01, 600.0))
    }

    /// The time it may think in all for one mail (or timers pass).
    pub(crate) fn mail_time(&self) -> std::time::Duration {
        let seconds = self.seconds_per_mail;
        let seconds = if seconds.is_nan() { 0.8 } else { seconds };
        std::time::Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))
    }
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct TemplatesSection {
    /// A folder whose files override the built-in templates of the same name.
    pub dir: Option<PathBuf>,
}

/// `[log]`: how log lines are written to standard error.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct LogSection {
    /// `text` (one readable line per event) or `json` (one JSON object per
    /// line, for log collectors); `--log-format` overrides it.
    pub format: LogFormat,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub(crate) enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Where the config is looked for when neither `--config` nor
/// `PBMCHESS_CONFIG` names one: the path of docs/deployment.md.
pub(crate) const SYSTEM_CONFIG: &str = "/etc/pbmchess/pbmchess.toml";

/// The config file to load: the one named (`--config`, `PBMCHESS_CONFIG`),
/// else `system` when a file is there (so a command run on a host set up
/// as docs/deployment.md says reads the real config, not the built-in
/// defaults in the working folder), else none: the built-in defaults.
/// `system` is `None` when the command line says to ignore the system
/// config (`--no-system-config`, `PBMCHESS_NO_SYSTEM_CONFIG`): the tests,
/// and trying things out on a host that has one.
///
/// Ruling: a file at `system` that exists but cannot be read is still
/// chosen, so the command fails with "cannot read" rather than quietly
/// working on an empty `var/` of its own.
pub(crate) fn chosen_path(given: Option<&Path>, system: Option<&Path>) -> Option<PathBuf> {
    match (given, system) {
        (Some(path), _) => Some(path.to_path_buf()),
        (None, Some(system)) if std::fs::symlink_metadata(system).is_ok() => {
            Some(system.to_path_buf())
        }
        (None, _) => None,
    }
}

/// The secrets of the config loaded last (see [`remember_secrets`]).
static SECRETS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Secrets shorter than this are not scrubbed (they would mangle text);
/// no mail server takes a password that short.
const SHORTEST_SCRUBBED: usize = 4;

/// Remember the secrets of `config` (the IMAP and SMTP passwords, the
/// SMTP url, the contents of the password files) so that [`scrub`] can
/// take them out of anything printed or logged: the last guard behind
/// [`crate::mail::Secret`], which keeps them out of `Debug` and `Display`.
pub(crate) fn remember_secrets(config: &Config) {
    let values = secrets_of(config);
    if let Ok(mut secrets) = SECRETS.lock() {
        *secrets = values;
    }
}

/// The secrets of `config` (see [`remember_secrets`]), longest first.
pub(crate) fn secrets_of(config: &Config) -> Vec<String> {
    let mut found = Vec::new();
    let mut file = |path: &Option<PathBuf>| {
        if let Some(text) = path.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
            found.push(text.trim().to_string());
            found.extend(text.lines().map(|l| l.trim().to_string()));
        }
    };
    let mut values = Vec::new();
    if let InboxConfig::Imap(imap) = &config.inbox {
        values.extend(imap.password.as_ref().map(|p| p.expose().to_string()));
        file(&imap.password_file);
    }
    if let OutboxConfig::Smtp(smtp) = &config.outbox {
        values.extend(smtp.password.as_ref().map(|p| p.expose().to_string()));
        values.extend(smtp.url.as_ref().map(|u| u.expose().to_string()));
        file(&smtp.password_file);
    }
    values.extend(found);
    values.retain(|v| v.chars().count() >= SHORTEST_SCRUBBED);
    // Longest first, so a secret inside another is not left half shown.
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values.dedup();
    values
}

/// The remembered secrets (see [`remember_secrets`]).
pub(crate) fn secrets() -> Vec<String> {
    SECRETS.lock().map(|s| s.clone()).unwrap_or_default()
}

/// `text` with every remembered secret replaced by `*****`. Every error
/// the binary prints and every log line pass through it.
pub(crate) fn scrub(text: &str) -> String {
    let Ok(secrets) = SECRETS.lock() else {
        return text.to_string();
    };
    scrub_with(text, &secrets)
}

/// `text` with each of `secrets` replaced by `*****`.
pub(crate) fn scrub_with(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for secret in secrets {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), "*****");
        }
    }
    out
}

/// Keys whose values are secrets: a value under a key whose name contains
/// one of these is never quoted in an error (nor is any other value: see
/// [`describe_error`]; this is the second line of defence).
const SECRET_KEYS: [&str; 5] = ["password", "secret", "token", "url", "pass"];

/// The sentence for config text that does not parse: the line and column,
/// the key on that line and its section, and what is wrong, e.g.
/// ``line 7, column 12 (key `port` in [outbox]): invalid type: string,
/// expected u16``.
///
/// It never quotes the config: the toml crate's own `Display` shows the
/// failing line, which may hold a password, and that message reaches the
/// MTA's bounce to a player (exit 78 of `process`), stderr and the log.
/// Values that the parser's message quotes (`invalid type: string
/// "..."`, ``unknown variant `...` ``) are left out, and as a last guard
/// any value of a secret key (`SECRET_KEYS`) is masked should it still
/// appear. Key names are kept: they are what the admin must fix.
pub(crate) fn describe_error(e: &toml::de::Error, text: &str) -> String {
    let message = strip_values(e.message());
    let message = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    let message = mask_secret_values(&message, text);
    let Some(span) = e.span() else {
        return message;
    };
    let start = span.start.min(text.len());
    let start = (0..=start)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..start].chars().count() + 1;
    let mut place = format!("line {line}, column {column}");
    let line_text = text[line_start..].lines().next().unwrap_or("");
    let key = key_of(line_text);
    // A section read as a whole (`[inbox]`, `[outbox]`: their `kind`
    // picks the fields) reports errors at its header line.
    let section = section_of(line_text.trim()).or_else(|| {
        before
            .lines()
            .rev()
            .filter_map(|l| section_of(l.trim()))
            .next()
    });
    match (key, section) {
        (Some(k), Some(s)) => place.push_str(&format!(" (key `{k}` in [{s}])")),
        (Some(k), None) => place.push_str(&format!(" (key `{k}`)")),
        (None, Some(s)) => place.push_str(&format!(" (in [{s}])")),
        (None, None) => {}
    }
    format!("{place}: {message}")
}

/// The key of a `key = value` line, when it is a plain (bare or dotted) key.
fn key_of(line: &str) -> Option<&str> {
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    plain.then_some(key)
}

/// The name of a `[section]` or `[[section]]` header line.
fn section_of(line: &str) -> Option<&str> {
    let name = line.strip_prefix('[')?.split(']').next()?;
    let name = name.trim_start_matches('[').trim();
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    plain.then_some(name)
}

/// The parser's message without the values it quotes: `"..."` strings
/// and the `` `...` `` after `invalid type:`, `invalid value:` and
/// `unknown variant` (serde's wording). Key names in `` `...` `` (unknown
/// field, expected one of) stay.
fn strip_values(message: &str) -> String {
    /// Words after which serde quotes a value in backquotes.
    const BEFORE_VALUE: [&str; 8] = [
        "invalid type:",
        "invalid value:",
        "unknown variant",
        "integer",
        "floating point",
        "boolean",
        "character",
        "string",
    ];
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                // A quoted string: skipped up to its closing quote.
                let mut escaped = false;
                for q in chars.by_ref() {
                    match q {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
                out.push_str("(value left out)");
            }
            '`' if BEFORE_VALUE.iter().any(|w| out.trim_end().ends_with(w)) => {
                for q in chars.by_ref() {
                    if q == '`' {
                        break;
                    }
                }
                out.push_str("(value left out)");
            }
            c => out.push(c),
        }
    }
    out
}

/// `message` with every value of a secret key ([`SECRET_KEYS`]) in `text`
/// replaced by `*****`.
fn mask_secret_values(message: &str, text: &str) -> String {
    let mut message = message.to_string();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        if !SECRET_KEYS.iter().any(|s| key.contains(s)) {
            continue;
        }
        let value = value.trim();
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        for v in [value, value.trim()] {
            if v.chars().count() >= SHORTEST_SCRUBBED && message.contains(v) {
                message = message.replace(v, "*****");
            }
        }
    }
    message
}

/// Why the config could not be loaded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("cannot read the config file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("the config file {path} is not valid: {message}")]
    Invalid { path: String, message: String },
}

impl Config {
    /// Load `path`, or the built-in defaults when `None` (see [`chosen_path`]
    /// for how the command line picks the path).
    pub(crate) fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let Some(path) = path else {
            return Ok(Config::default());
        };
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let mut config = Config::parse(&text).map_err(|message| ConfigError::Invalid {
            path: path.display().to_string(),
            message,
        })?;
        let base = path.parent().unwrap_or(Path::new(""));
        config.resolve_paths(base);
        Ok(config)
    }

    /// Parse config text (paths left as written). The error names the
    /// line, the column and the key, never a value: see [`describe_error`].
    pub fn parse(text: &str) -> Result<Config, String> {
        toml::from_str(text).map_err(|e| describe_error(&e, text))
    }

    /// Make relative paths relative to `base`.
    pub(crate) fn resolve_paths(&mut self, base: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        fix(&mut self.database.path);
        if let Some(dir) = self.templates.dir.as_mut() {
            fix(dir);
        }
        match &mut self.inbox {
            InboxConfig::Maildir { path } => fix(path),
            InboxConfig::Imap(imap) => {
                imap.password_file.iter_mut().for_each(fix);
                imap.tls_ca_file.iter_mut().for_each(fix);
            }
        }
        match &mut self.outbox {
            OutboxConfig::Maildir { path } => fix(path),
            OutboxConfig::Smtp(smtp) => {
                smtp.password_file.iter_mut().for_each(fix);
                smtp.tls_ca_file.iter_mut().for_each(fix);
            }
            // A bare command name is looked up on PATH; only a relative
            // path with a folder in it is taken relative to the config.
            OutboxConfig::Sendmail { command, .. } => {
                if command.components().count() > 1 {
                    fix(command)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_is_the_defaults() {
        assert_eq!(Config::parse("").unwrap(), Config::default());
        let c = Config::default();
        assert_eq!(c.database.path, PathBuf::from("var/pbmchess.sqlite"));
        assert_eq!(c.timers.forfeit_days, 21);
    }

    #[test]
    fn unknown_keys_are_refused_with_their_name() {
        let err = Config::parse("[server]\nadress = \"x\"\n").unwrap_err();
        assert!(err.contains("adress"), "{err}");
    }

    #[test]
    fn the_example_config_parses() {
        let text = include_str!("../config.example.toml");
        // It tells the truth: what it shows are the built-in defaults.
        assert_eq!(Config::parse(text).unwrap(), Config::default());
    }

    #[test]
    fn admins_log_format_and_quarantine_limit_are_read() {
        let c = Config::parse(
            "[server]\nadmins = [\"Richard\"]\n[log]\nformat = \"json\"\n\
             [limits]\nfailures_before_quarantine = 5\n[database]\nbusy_timeout_seconds = 2\n",
        )
        .unwrap();
        assert!(c.server.is_admin("richard"));
        assert!(!c.server.is_admin("alice"));
        assert_eq!(c.log.format, LogFormat::Json);
        assert_eq!(c.limits.failures_before_quarantine, 5);
        assert_eq!(c.database.busy_timeout_seconds, 2);
        let d = Config::default();
        assert_eq!(d.log.format, LogFormat::Text);
        assert_eq!(d.limits.failures_before_quarantine, 3);
        assert!(Config::parse("[log]\nformat = \"xml\"\n").is_err());
    }

    #[test]
    fn retry_section_sets_the_policy() {
        let c = Config::parse("[retry]\nfirst_seconds = 2\nmax_seconds = 5\ngive_up_hours = 1\n")
            .unwrap();
        let p = c.retry.policy();
        use std::time::Duration;
        assert_eq!(p.delay(1), Duration::from_secs(2));
        assert_eq!(p.delay(2), Duration::from_secs(4));
        assert_eq!(p.delay(3), Duration::from_secs(5));
        assert_eq!(p.give_up_after, Duration::from_secs(3600));
        assert_eq!(
            Config::default().retry.policy(),
            crate::mail::RetryPolicy::default()
        );
    }

    /// A secret planted in the config, and text that must not leak it.
    const PLANTED: &str = "Pl4nted-S3cret-42";

    fn error_of(text: &str) -> String {
        let e = Config::parse(text).unwrap_err();
        assert!(!e.contains(PLANTED), "the secret leaked: {e}");
        assert!(!e.contains("Pl4nted"), "part of the secret leaked: {e}");
        e
    }

    #[test]
    fn config_errors_name_line_and_key_but_never_a_secret() {
        // A typo on the line after the password: the line number, not the text.
        let e = error_of(&format!(
            "[outbox]\nkind = \"smtp\"\npassword = \"{PLANTED}\"\nport = 58x7\n"
        ));
        assert!(e.contains("line 4"), "{e}");
        // The password's own line broken (no closing quote).
        let e = error_of(&format!(
            "[outbox]\nkind = \"smtp\"\npassword = \"{PLANTED}\nhost = \"h\"\n"
        ));
        assert!(e.contains("line 3"), "{e}");
        // A value of the wrong type under a secret key.
        let e = error_of(&format!(
            "[inbox]\nkind = \"imap\"\nhost = \"h\"\nusername = \"u\"\npassword = [\"{PLANTED}\"]\n"
        ));
        assert!(e.contains("line"), "{e}");
        // A secret where a number belongs: serde quotes the value it got.
        let e = error_of(&format!(
            "[outbox]\nkind = \"smtp\"\nhost = \"h\"\nport = \"{PLANTED}\"\n"
        ));
        assert!(e.contains("line 1") && e.contains("[outbox]"), "{e}");
        let e = error_of(&format!("[server]\nname = \"x\"\nadmins = \"{PLANTED}\"\n"));
        assert!(e.contains("line 3") && e.contains("`admins`"), "{e}");
        // A secret as a kind, a URL with credentials, a key-less line.
        error_of(&format!("[outbox]\nkind = \"{PLANTED}\"\n"));
        error_of(&format!(
            "[outbox]\nkind = \"smtp\"\nurl = \"smtps://u:{PLANTED}@h\"\nurl = \"x\"\n"
        ));
        error_of(&format!("[server]\n{PLANTED}\n"));
        error_of(&format!("[accounts]\npassword_failures = {PLANTED}\n"));
        error_of(&format!("[poll]\ninterval_seconds = -{}\n", 9_i64.pow(3)));
    }

    #[test]
    fn the_configs_passwords_urls_and_password_files_are_scrubbed_from_text() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("smtp-password");
        std::fs::write(&file, "From-The-File-91\n").unwrap();
        let c = Config::parse(&format!(
            "[inbox]\nkind = \"imap\"\nhost = \"h\"\nusername = \"u\"\npassword = \"{PLANTED}\"\n\
             [outbox]\nkind = \"smtp\"\nhost = \"h\"\nusername = \"u\"\npassword_file = \"{}\"\n",
            file.display()
        ))
        .unwrap();
        let secrets = secrets_of(&c);
        let text = format!("login {PLANTED} failed; file said From-The-File-91.");
        let scrubbed = scrub_with(&text, &secrets);
        assert_eq!(scrubbed, "login ***** failed; file said *****.");
        // Too short to scrub without mangling every text: not taken.
        let short = Config::parse(
            "[inbox]\nkind = \"imap\"\nhost = \"h\"\nusername = \"u\"\npassword = \"abc\"\n",
        )
        .unwrap();
        assert!(secrets_of(&short).is_empty());
        assert!(secrets_of(&Config::default()).is_empty());
    }

    #[test]
    fn the_system_config_is_used_when_none_is_named_and_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let system = dir.path().join("pbmchess.toml");
        let named = Path::new("/somewhere/else.toml");
        assert_eq!(chosen_path(None, Some(&system)), None);
        assert_eq!(chosen_path(Some(named), Some(&system)), Some(named.into()));
        std::fs::write(&system, "").unwrap();
        assert_eq!(chosen_path(None, Some(&system)), Some(system.clone()));
        assert_eq!(chosen_path(Some(named), Some(&system)), Some(named.into()));
        // Ignored (`--no-system-config`): the built-in defaults, unless one
        // is named.
        assert_eq!(chosen_path(None, None), None);
        assert_eq!(chosen_path(Some(named), None), Some(named.into()));
    }

    #[test]
    fn relative_paths_follow_the_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pbm.toml");
        std::fs::write(&path, "[database]\npath = \"db/x.sqlite\"\n").unwrap();
        let c = Config::load(Some(&path)).unwrap();
        assert_eq!(c.database.path, dir.path().join("db/x.sqlite"));
    }
}
