//! The config's sections, each with its defaults.

use std::path::PathBuf;

use serde::Deserialize;

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

/// `[web]`: the read-only web site (`pbmchess web`, docs/web.md).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct WebSection {
    /// The address and port the site listens on (plain HTTP; put a TLS
    /// proxy in front, see docs/deployment.md). Port 0: one the system
    /// chooses, logged and printed at the start.
    pub listen: String,
    /// The site's address as its readers reach it (`https://chess.example.org`),
    /// for the links of the Atom feeds; unset: `http://` and `listen`.
    pub url: Option<String>,
    /// Requests a client address may make per minute (on average; a burst
    /// of `burst` at once); beyond it the site answers 429.
    pub requests_per_minute: u32,
    pub burst: u32,
    /// The site runs behind a proxy on the same host: a request from a
    /// loopback address is counted against the last address its proxy
    /// appended to `X-Forwarded-For`. False: the peer's address, always.
    pub behind_proxy: bool,
}

impl Default for WebSection {
    fn default() -> Self {
        WebSection {
            listen: "127.0.0.1:8080".into(),
            url: None,
            requests_per_minute: 300,
            burst: 60,
            behind_proxy: false,
        }
    }
}
