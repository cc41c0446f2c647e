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

mod parse_error;
mod secrets;
mod sections;

use parse_error::describe_error;
pub(crate) use secrets::*;
pub use sections::*;

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
    pub web: WebSection,
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
    /// line, the column and the key, never a value: see `describe_error`.
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
        let text = include_str!("../../config.example.toml");
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
