//! The Maildir outbox: each message written once into `new/`, synced per
//! batch.

use std::path::{Path, PathBuf};
use std::time::Duration;

use lettre::Message;
use sha2::{Digest, Sha256};

use super::{SendError, Sender};
use crate::hex::encode as hex;
use crate::mail::inbox::create_maildir;
use crate::mail::MailError;

/// Writes each message into `new/` of a Maildir: the default local setup,
/// and what tests read. Failures are temporary (disk full, permissions).
///
/// Each message is written into `tmp/` and renamed into `new/` (the
/// Maildir way, so a reader never sees half a message); durability comes
/// per batch: [`Sender::flush`] syncs the Maildir's file system once (on
/// Linux `syncfs`; elsewhere each file and `new/`), instead of one `fsync`
/// per message. A crash before the flush loses only messages whose outbox
/// rows are not yet marked sent, so they are written again.
///
/// Each message is written once: its file name ends in a key of its
/// Message-ID (`….KEY.pbmchess`, see `message_key`), and a message
/// whose key is in `new/` already (a batch written, then not recorded as
/// sent: the disk filled before the flush or the database's commit) is
/// written over that file, not beside it. Ruling: what a reader took out
/// of `new/` meanwhile is written again (at least once, as the
/// [`Sender`] contract says).
#[derive(Debug)]
pub struct MaildirOutbox {
    /// The Maildir: `tmp/`, `new/` and `cur/` under it.
    path: PathBuf,
    /// Messages written since the last flush (their paths in `new/`).
    unsynced: Vec<PathBuf>,
    /// The file name in `new/` of each message key written there: read
    /// from `new/` at the first send of a pass, kept up to date by each.
    written: Option<std::collections::HashMap<String, String>>,
}

impl MaildirOutbox {
    /// Opens the Maildir at `path`, creating `new/`, `cur/`, `tmp/`.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, MailError> {
        let path = path.into();
        create_maildir(&path)?;
        Ok(MaildirOutbox {
            path,
            unsynced: Vec::new(),
            written: None,
        })
    }

    /// The file name for a message of key `key`: the one it was written
    /// to already, or a new one.
    fn name_for(&mut self, key: &str) -> std::io::Result<String> {
        if self.written.is_none() {
            let mut written = std::collections::HashMap::new();
            for entry in std::fs::read_dir(self.path.join("new"))? {
                let name = entry?.file_name();
                let Some(name) = name.to_str() else { continue };
                if let Some(key) = key_of_name(name) {
                    written.insert(key.to_string(), name.to_string());
                }
            }
            self.written = Some(written);
        }
        let written = self.written.get_or_insert_with(Default::default);
        Ok(written
            .entry(key.to_string())
            .or_insert_with(|| format!("{}.{key}.pbmchess", MaildirOutbox::unique_name()))
            .clone())
    }

    /// A name unique to this message: `SECONDS.MMICROSPPIDQN` (the Maildir
    /// convention's parts; the sequence number is per process).
    /// Microseconds and sequence are zero-padded, so that names written in
    /// one second sort in the order they were written (a file system's
    /// coarse modification times cannot tell them apart).
    fn unique_name() -> String {
        use std::sync::atomic::{AtomicU64, Ordering};
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        format!(
            "{}.M{:06}P{}Q{:010}",
            now.as_secs(),
            now.subsec_micros(),
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        )
    }
}

impl Sender for MaildirOutbox {
    /// Writing one file of a bounded size into a local folder.
    fn longest_send(&self) -> Duration {
        Duration::from_secs(5)
    }

    /// Durable only after [`Sender::flush`].
    fn durable_at_send(&self) -> bool {
        false
    }

    fn send(&mut self, msg: &Message) -> Result<(), SendError> {
        let fail = |e: std::io::Error| {
            SendError::Temporary(format!("cannot write to the outbox Maildir: {e}"))
        };
        let name = self.name_for(&message_key(msg)).map_err(fail)?;
        let tmp = self.path.join("tmp").join(&name);
        let new = self.path.join("new").join(&name);
        write_owner_only(&tmp, &msg.formatted()).map_err(fail)?;
        std::fs::rename(&tmp, &new).map_err(fail)?;
        self.unsynced.push(new);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), SendError> {
        if self.unsynced.is_empty() {
            return Ok(());
        }
        let fail = |e: std::io::Error| {
            SendError::Temporary(format!("cannot sync the outbox Maildir: {e}"))
        };
        sync_maildir(&self.path.join("new"), &self.unsynced).map_err(fail)?;
        self.unsynced.clear();
        Ok(())
    }

    /// `new/` is read again at the next pass (a reader may have emptied it).
    fn end_pass(&mut self) {
        self.written = None;
    }
}

/// The key a message's file name in the outbox Maildir ends in: 16 hex
/// digits of the SHA-256 of its Message-ID (of the whole message, should
/// it have none). A message sent again keeps its Message-ID, so its key.
fn message_key(msg: &Message) -> String {
    let mut h = Sha256::new();
    match msg.headers().get_raw("Message-ID") {
        Some(id) => h.update(id.trim().as_bytes()),
        None => h.update(msg.formatted()),
    }
    hex(&h.finalize()[..8])
}

/// The message key in an outbox file name `….KEY.pbmchess`, if it has one.
fn key_of_name(name: &str) -> Option<&str> {
    let rest = name.strip_suffix(".pbmchess")?;
    let (_, key) = rest.rsplit_once('.')?;
    (key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit())).then_some(key)
}

/// Write a new file readable by its owner only (0600): mail to players
/// is nobody else's business.
fn write_owner_only(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(bytes)
}

/// Make the files written into `new` durable, with the directory entries.
#[cfg(target_os = "linux")]
fn sync_maildir(new: &Path, _files: &[PathBuf]) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let dir = std::fs::File::open(new)?;
    // SAFETY: syncfs takes an open file descriptor, which `dir` owns for
    // the whole call.
    if unsafe { libc::syncfs(dir.as_raw_fd()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Make the files written into `new` durable, with the directory entries.
#[cfg(not(target_os = "linux"))]
fn sync_maildir(new: &Path, files: &[PathBuf]) -> std::io::Result<()> {
    for f in files {
        std::fs::File::open(f)?.sync_all()?;
    }
    std::fs::File::open(new)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::build_message;
    use crate::mail::outbound::message::tests::{at, row, FROM, KEY};

    #[test]
    fn maildir_outbox_writes_into_new() {
        let tmp = tempfile::tempdir().unwrap();
        let mut outbox = MaildirOutbox::open(tmp.path().join("out")).unwrap();
        let msg = build_message(&row(), 3, KEY, FROM, at()).unwrap();
        outbox.send(&msg).unwrap();
        let files: Vec<_> = std::fs::read_dir(tmp.path().join("out/new"))
            .unwrap()
            .collect();
        assert_eq!(files.len(), 1);
        let bytes = std::fs::read(files[0].as_ref().unwrap().path()).unwrap();
        assert_eq!(bytes, msg.formatted());
    }
}
