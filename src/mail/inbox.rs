//! Inboxes: where inbound mail waits until the server has committed it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::MailError;

/// One raw inbound message, as fetched from an [`Inbox`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboundMessage {
    /// The inbox's handle for this message (a Maildir file name, an IMAP
    /// `UIDVALIDITY:UID`). Only meaningful to the inbox that returned it.
    pub id: String,
    /// The message as delivered (RFC 5322 bytes); of a message larger
    /// than the inbox's limit only its header (see [`InboundMessage::size`]).
    pub raw: Vec<u8>,
    /// The size of the whole message in the inbox: larger than `raw` when
    /// only the header was read.
    pub size: usize,
    /// Why the message could not be read at all (`raw` is then empty).
    pub unreadable: Option<String>,
}

impl InboundMessage {
    /// A message read whole.
    #[cfg(test)]
    pub(crate) fn whole(id: String, raw: Vec<u8>) -> InboundMessage {
        InboundMessage {
            id,
            size: raw.len(),
            raw,
            unreadable: None,
        }
    }
}

/// How a message was dealt with, given to [`Inbox::mark_done`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// The server read and committed it (whether it answered or not, and
    /// also when it was a duplicate).
    Processed,
    /// Filed away unread: a never-answer mail (auto-reply, bounce, list, our
    /// own address), or one refused before the server (too large).
    Ignored,
    /// Failed inside the server too often: moved out of the way into the
    /// quarantine folder (the database keeps a copy and the error; `admin
    /// inbox retry` replays it).
    Quarantined,
}

/// A source of inbound mail.
///
/// The daemon's loop: `fetch` a batch, hand each message's `raw` bytes to
/// the server, and only after the server's transaction has committed call
/// `mark_done` for it. Until then the message stays where it was, so a crash
/// re-reads it (the server's Message-ID record makes that harmless). A
/// message whose processing failed is simply not marked; it comes back on the
/// next fetch.
pub trait Inbox: Send {
    /// Up to `max` messages not yet marked done, in delivery order, oldest
    /// first. Never marks anything as read. A message larger than the
    /// limit ([`Inbox::limit_message_bytes`]) is judged by its size before
    /// it is read, and only its header is read; one that cannot be read
    /// comes back with [`InboundMessage::unreadable`] set, so the rest of
    /// the inbox goes on.
    fn fetch(&mut self, max: usize) -> Result<Vec<InboundMessage>, MailError>;

    /// From the next fetch on, hand out only messages waiting at that
    /// fetch: a pass reads what was there when it began and never chases
    /// mail delivered while it reads (that mail is the next pass's).
    fn hold_to_waiting(&mut self) {}

    /// Read messages larger than `bytes` only as far as their header
    /// (`[limits] max_message_bytes`; without a call, that default).
    fn limit_message_bytes(&mut self, bytes: usize);

    /// Files the message away so it is not fetched again. Idempotent: a
    /// message already filed away is not an error.
    fn mark_done(&mut self, msg: &InboundMessage, outcome: Done) -> Result<(), MailError>;

    /// Blocks until new mail may have arrived or `timeout` has passed,
    /// whichever is first. May return early; the caller then fetches.
    fn wait_for_mail(&mut self, timeout: Duration) -> Result<(), MailError> {
        std::thread::sleep(timeout);
        Ok(())
    }
}

/// Maildir flags given by [`MaildirInbox::mark_done`]: `S` (seen) for
/// processed mail; `FS` (flagged, seen) for ignored mail, so an admin can
/// spot the filed-away loop-protection cases in `cur/` with any mail reader.
pub(crate) fn maildir_flags(outcome: Done) -> &'static str {
    match outcome {
        Done::Processed => "S",
        Done::Ignored => "FS",
        Done::Quarantined => "F",
    }
}

/// The Maildir++ subfolder of a Maildir inbox that quarantined mail is
/// moved to (mail readers show it as the folder `Quarantine`).
pub(crate) const MAILDIR_QUARANTINE: &str = ".Quarantine";

/// An inbox in a local Maildir (`new/`, `cur/`, `tmp/`), the default local
/// setup: an MTA (or a test) delivers into `new/`.
///
/// - `fetch` reads only `new/`: a message moves to `cur/` only after it has
///   been processed, so `cur/` never holds pending work. Files whose names
///   start with `.` are skipped, as the Maildir rules say.
/// - Delivery order: by the number of seconds that starts a Maildir file
///   name (the delivery time by convention: `1700000000.M12P34.host`), then by
///   the file's modification time (delivery writes the file once, in `tmp/`,
///   and renames it), then by name. A name without leading digits uses its
///   modification time's seconds in place of the number.
/// - `mark_done` renames `new/NAME` to `cur/NAME:2,S` (or `:2,FS` for
///   [`Done::Ignored`], see [`maildir_flags`]); a [`Done::Quarantined`]
///   mail goes to `.Quarantine/cur/NAME:2,F` instead.
///
/// One listing of `new/` serves the fetches that follow it while every
/// message they handed out was filed away: a backlog of 10,000 files was
/// listed (and each file's time read) once per batch. A message not
/// filed away (it failed), or a listing used up, makes the next fetch list
/// `new/` again, so a failed message comes first again and mail delivered
/// meanwhile is found.
#[derive(Debug)]
pub(crate) struct MaildirInbox {
    path: PathBuf,
    max_bytes: usize,
    /// Names of the last listing not yet handed out, oldest first.
    listed: std::collections::VecDeque<String>,
    /// Names handed out and not yet filed away.
    out: std::collections::HashSet<String>,
    /// The names in `new/` at the first listing after
    /// [`Inbox::hold_to_waiting`] (`Some(None)` until that listing): later
    /// listings hand out only these.
    held: Option<Option<std::collections::HashSet<String>>>,
}

/// The `[limits] max_message_bytes` an inbox applies until told otherwise.
pub(crate) fn default_max_bytes() -> usize {
    crate::limits::MAX_MESSAGE_BYTES
}

impl MaildirInbox {
    /// Opens the Maildir at `path`, creating `new/`, `cur/` and `tmp/` if
    /// missing.
    pub(crate) fn open(path: impl Into<PathBuf>) -> Result<Self, MailError> {
        let path = path.into();
        create_maildir(&path)?;
        Ok(MaildirInbox {
            path,
            max_bytes: default_max_bytes(),
            listed: Default::default(),
            out: Default::default(),
            held: None,
        })
    }

    /// The pending file names in `new/`, oldest delivery first.
    fn pending(&self) -> Result<Vec<String>, MailError> {
        let new = self.path.join("new");
        let entries = fs::read_dir(&new).map_err(|e| MailError::io(&new, e))?;
        let mut found: Vec<((u64, SystemTime), String)> = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| MailError::io(&new, e))?;
            let name = match entry.file_name().into_string() {
                Ok(n) => n,
                Err(raw) => {
                    tracing::warn!(file = ?raw, "skipping a non-UTF-8 file name in the inbox");
                    continue;
                }
            };
            if name.starts_with('.') {
                continue;
            }
            let meta = match entry.metadata() {
                // A symlink is read as what it points to (or judged
                // unreadable: the file fails, not the inbox).
                Ok(m) if m.is_file() || m.file_type().is_symlink() => m,
                Ok(_) => continue,
                // Moved away meanwhile (another reader): not ours any more.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(MailError::io(entry.path(), e)),
            };
            let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            found.push((delivery_key(&name, mtime), name));
        }
        found.sort();
        Ok(found.into_iter().map(|(_, name)| name).collect())
    }
}

/// Sort key for delivery order: (seconds from the name or the mtime, mtime).
fn delivery_key(name: &str, mtime: SystemTime) -> (u64, SystemTime) {
    let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
    let secs = digits.parse::<u64>().ok().unwrap_or_else(|| {
        mtime
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    });
    (secs, mtime)
}

/// The file's bytes and size: the whole file when it is at most
/// `max_bytes` long (judged by its size before reading), else its header
/// only (see [`crate::limits::header_of`]).
fn read_bounded(file: &Path, max_bytes: usize) -> io::Result<(Vec<u8>, usize)> {
    use std::io::Read;
    let f = fs::File::open(file)?;
    let size = usize::try_from(f.metadata()?.len()).unwrap_or(usize::MAX);
    let take = if size > max_bytes {
        crate::limits::HEADER_BYTES
    } else {
        // One byte more than the size shows whether it grew meanwhile.
        max_bytes.saturating_add(1)
    };
    let mut raw = Vec::with_capacity(size.min(take));
    f.take(take as u64).read_to_end(&mut raw)?;
    if size > max_bytes || raw.len() > max_bytes {
        let head = crate::limits::header_of(&raw).len();
        raw.truncate(head);
        return Ok((raw, size.max(max_bytes + 1)));
    }
    let size = raw.len();
    Ok((raw, size))
}

/// Create a Maildir's folders where missing. Folders it creates are for
/// the owner only (0700), whatever the process umask (mail holds
/// passwords); folders that exist keep their mode (an admin may give the
/// MTA's group access, docs/deployment.md).
pub(crate) fn create_maildir(path: &Path) -> Result<(), MailError> {
    for sub in ["new", "cur", "tmp"] {
        let dir = path.join(sub);
        create_dir_owner_only(&dir).map_err(|e| MailError::io(&dir, e))?;
    }
    Ok(())
}

/// `fs::create_dir_all`, each folder it creates 0700 (on Unix).
pub(crate) fn create_dir_owner_only(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Delete processed and ignored mail (flag `S`, in `cur/`) of the
/// Maildir inbox at `path` delivered before `before`, at most `batch`
/// files; quarantined mail (in `.Quarantine`) stays for the admin.
/// Processed mail holds passwords in clear: it is kept only for
/// `[retention] inbox_mail_days` (see `daemon::prune`). Returns how many
/// files were deleted.
pub(crate) fn prune_processed_maildir(
    path: &Path,
    before: std::time::SystemTime,
    batch: usize,
) -> io::Result<usize> {
    let cur = path.join("cur");
    let entries = match fs::read_dir(&cur) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        if removed >= batch {
            break;
        }
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        // Filed away by `mark_done`: processed or ignored mail is Seen.
        let done = name
            .rsplit_once(":2,")
            .is_some_and(|(_, flags)| flags.contains('S'));
        if !done || name.starts_with('.') {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_file() && meta.modified().is_ok_and(|m| m < before) {
            match fs::remove_file(entry.path()) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(removed)
}

impl Inbox for MaildirInbox {
    fn fetch(&mut self, max: usize) -> Result<Vec<InboundMessage>, MailError> {
        if !self.out.is_empty() || self.listed.is_empty() {
            self.out.clear();
            let mut pending = self.pending()?;
            match &mut self.held {
                Some(Some(held)) => pending.retain(|name| held.contains(name)),
                Some(waiting) => *waiting = Some(pending.iter().cloned().collect()),
                None => {}
            }
            self.listed = pending.into();
        }
        let mut out = Vec::new();
        while out.len() < max {
            let Some(name) = self.listed.pop_front() else {
                break;
            };
            self.out.insert(name.clone());
            let file = self.path.join("new").join(&name);
            match read_bounded(&file, self.max_bytes) {
                Ok((raw, size)) => out.push(InboundMessage {
                    id: name,
                    raw,
                    size,
                    unreadable: None,
                }),
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => {
                    tracing::warn!(file = %file.display(), error = %e, "an inbox file cannot be read");
                    out.push(InboundMessage {
                        id: name,
                        raw: Vec::new(),
                        size: 0,
                        unreadable: Some(e.to_string()),
                    });
                }
            }
        }
        Ok(out)
    }

    fn hold_to_waiting(&mut self) {
        self.held = Some(None);
        // The next fetch lists `new/` afresh.
        self.listed.clear();
    }

    fn limit_message_bytes(&mut self, bytes: usize) {
        self.max_bytes = bytes;
    }

    fn mark_done(&mut self, msg: &InboundMessage, outcome: Done) -> Result<(), MailError> {
        let name = &msg.id;
        if name.contains('/') || name.starts_with('.') || name.is_empty() {
            return Err(MailError::Other(format!(
                "not a Maildir message id: {name:?}"
            )));
        }
        // A name delivered with an info part ("x:2,F") keeps its flags.
        let (base, old_flags) = match name.split_once(":2,") {
            Some((b, f)) => (b, f),
            None => (name.as_str(), ""),
        };
        let mut flags: Vec<char> = old_flags
            .chars()
            .chain(maildir_flags(outcome).chars())
            .collect();
        flags.sort_unstable();
        flags.dedup();
        let flags: String = flags.into_iter().collect();
        let src = self.path.join("new").join(name);
        let folder = match outcome {
            Done::Quarantined => {
                let q = self.path.join(MAILDIR_QUARANTINE);
                create_maildir(&q)?;
                q
            }
            Done::Processed | Done::Ignored => self.path.clone(),
        };
        let dst = folder.join("cur").join(format!("{base}:2,{flags}"));
        match fs::rename(&src, &dst) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound && !src.exists() => {
                // Already filed away (a second mark_done, or another reader).
                tracing::debug!(id = %name, "inbox message already gone from new/");
            }
            Err(e) => return Err(MailError::io(&src, e)),
        }
        self.out.remove(name);
        Ok(())
    }

    /// Polls `new/` once a second until something is there or `timeout`
    /// has passed.
    fn wait_for_mail(&mut self, timeout: Duration) -> Result<(), MailError> {
        let deadline = Instant::now() + timeout;
        loop {
            if !self.pending()?.is_empty() {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(());
            }
            std::thread::sleep((deadline - now).min(Duration::from_secs(1)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processed_mail_older_than_retention_is_pruned_the_rest_stays() {
        let tmp = tempfile::tempdir().unwrap();
        create_maildir(tmp.path()).unwrap();
        for name in ["1.a:2,S", "2.b:2,FS", "3.c:2,RS", "4.d:2,F", "5.e"] {
            fs::write(tmp.path().join("cur").join(name), "x").unwrap();
        }
        fs::write(tmp.path().join("new/6.f"), "x").unwrap();
        let future = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        assert_eq!(prune_processed_maildir(tmp.path(), past, 100).unwrap(), 0);
        assert_eq!(prune_processed_maildir(tmp.path(), future, 2).unwrap(), 2);
        assert_eq!(prune_processed_maildir(tmp.path(), future, 100).unwrap(), 1);
        let mut left: Vec<String> = fs::read_dir(tmp.path().join("cur"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["4.d:2,F", "5.e"]);
        assert!(tmp.path().join("new/6.f").exists());
    }

    #[cfg(unix)]
    #[test]
    fn new_maildir_folders_are_for_the_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let md = tmp.path().join("a/b/inbox");
        create_maildir(&md).unwrap();
        for dir in [
            md.clone(),
            md.join("new"),
            md.join("cur"),
            tmp.path().join("a"),
        ] {
            let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", dir.display());
        }
    }
    use std::time::Duration;

    fn deliver(dir: &Path, name: &str, body: &str, mtime_secs: u64) {
        let p = dir.join("new").join(name);
        fs::write(&p, body).unwrap();
        let f = fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(mtime_secs))
            .unwrap();
    }

    #[test]
    fn open_creates_the_maildir_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("var/inbox");
        MaildirInbox::open(&path).unwrap();
        for sub in ["new", "cur", "tmp"] {
            assert!(path.join(sub).is_dir(), "{sub}");
        }
    }

    #[test]
    fn fetch_returns_new_mail_oldest_first_and_skips_dot_files() {
        let tmp = tempfile::tempdir().unwrap();
        let mut inbox = MaildirInbox::open(tmp.path()).unwrap();
        deliver(tmp.path(), "1700000200.M1P1.host", "third", 10);
        deliver(tmp.path(), "1700000100.M9P1.host", "second", 30);
        deliver(tmp.path(), "1700000100.M1P1.host", "first", 20);
        deliver(tmp.path(), ".hidden", "no", 1);
        fs::create_dir(tmp.path().join("new/subdir")).unwrap();
        let got = inbox.fetch(10).unwrap();
        let bodies: Vec<_> = got
            .iter()
            .map(|m| String::from_utf8(m.raw.clone()).unwrap())
            .collect();
        assert_eq!(bodies, ["first", "second", "third"]);
        assert_eq!(got[0].id, "1700000100.M1P1.host");
        assert_eq!(inbox.fetch(2).unwrap().len(), 2);
    }

    #[test]
    fn a_held_inbox_hands_out_only_what_waited_at_its_first_fetch() {
        let tmp = tempfile::tempdir().unwrap();
        let mut inbox = MaildirInbox::open(tmp.path()).unwrap();
        deliver(tmp.path(), "1.a", "a", 1);
        deliver(tmp.path(), "2.b", "b", 2);
        inbox.hold_to_waiting();
        let first = inbox.fetch(1).unwrap();
        assert_eq!(first[0].id, "1.a");
        inbox.mark_done(&first[0], Done::Processed).unwrap();
        // Delivered while the pass reads: the next pass's.
        deliver(tmp.path(), "0.late", "late", 3);
        let rest = inbox.fetch(10).unwrap();
        assert_eq!(rest.iter().map(|m| &m.id).collect::<Vec<_>>(), ["2.b"]);
        inbox.mark_done(&rest[0], Done::Processed).unwrap();
        assert!(inbox.fetch(10).unwrap().is_empty());
        // The next pass holds to what waits then.
        inbox.hold_to_waiting();
        let next = inbox.fetch(10).unwrap();
        assert_eq!(next.iter().map(|m| &m.id).collect::<Vec<_>>(), ["0.late"]);
    }

    #[test]
    fn names_without_timestamp_sort_by_mtime() {
        let tmp = tempfile::tempdir().unwrap();
        let mut inbox = MaildirInbox::open(tmp.path()).unwrap();
        deliver(tmp.path(), "b-late", "late", 1_700_000_300);
        deliver(tmp.path(), "a-early", "early", 1_700_000_100);
        deliver(tmp.path(), "1700000200.x", "middle", 5);
        let ids: Vec<_> = inbox.fetch(10).unwrap().into_iter().map(|m| m.id).collect();
        assert_eq!(ids, ["a-early", "1700000200.x", "b-late"]);
    }

    #[test]
    fn fetch_does_not_move_anything_until_mark_done() {
        let tmp = tempfile::tempdir().unwrap();
        let mut inbox = MaildirInbox::open(tmp.path()).unwrap();
        deliver(tmp.path(), "1.a", "x", 1);
        assert_eq!(inbox.fetch(10).unwrap().len(), 1);
        // Simulated crash: a fresh inbox sees the same message again.
        let mut again = MaildirInbox::open(tmp.path()).unwrap();
        assert_eq!(again.fetch(10).unwrap().len(), 1);
    }

    #[test]
    fn mark_done_moves_to_cur_with_flags() {
        let tmp = tempfile::tempdir().unwrap();
        let mut inbox = MaildirInbox::open(tmp.path()).unwrap();
        deliver(tmp.path(), "1.a", "x", 1);
        deliver(tmp.path(), "2.b", "y", 2);
        deliver(tmp.path(), "3.c:2,R", "z", 3);
        let msgs = inbox.fetch(10).unwrap();
        inbox.mark_done(&msgs[0], Done::Processed).unwrap();
        inbox.mark_done(&msgs[1], Done::Ignored).unwrap();
        inbox.mark_done(&msgs[2], Done::Processed).unwrap();
        assert!(tmp.path().join("cur/1.a:2,S").is_file());
        assert!(tmp.path().join("cur/2.b:2,FS").is_file());
        assert!(tmp.path().join("cur/3.c:2,RS").is_file());
        assert!(inbox.fetch(10).unwrap().is_empty());
        // Idempotent.
        inbox.mark_done(&msgs[0], Done::Processed).unwrap();
    }

    #[test]
    fn one_listing_serves_batches_until_a_message_is_left_or_it_is_used_up() {
        let tmp = tempfile::tempdir().unwrap();
        let mut inbox = MaildirInbox::open(tmp.path()).unwrap();
        for i in 1..=5 {
            deliver(tmp.path(), &format!("{i}.m"), "x", i);
        }
        let ids = |msgs: &[InboundMessage]| msgs.iter().map(|m| m.id.clone()).collect::<Vec<_>>();
        let first = inbox.fetch(2).unwrap();
        assert_eq!(ids(&first), ["1.m", "2.m"]);
        for m in &first {
            inbox.mark_done(m, Done::Processed).unwrap();
        }
        // Delivered now with an earlier time: the listing still serves.
        deliver(tmp.path(), "0.m", "x", 0);
        let second = inbox.fetch(2).unwrap();
        assert_eq!(ids(&second), ["3.m", "4.m"]);
        // 4.m is left (it failed): the next fetch lists again, oldest first.
        inbox.mark_done(&second[0], Done::Processed).unwrap();
        let third = inbox.fetch(10).unwrap();
        assert_eq!(ids(&third), ["0.m", "4.m", "5.m"]);
        for m in &third {
            inbox.mark_done(m, Done::Processed).unwrap();
        }
        // Used up: listed again, and empty.
        assert!(inbox.fetch(10).unwrap().is_empty());
        deliver(tmp.path(), "9.m", "x", 9);
        assert_eq!(ids(&inbox.fetch(10).unwrap()), ["9.m"]);
    }

    #[test]
    fn mark_done_refuses_path_tricks() {
        let tmp = tempfile::tempdir().unwrap();
        let mut inbox = MaildirInbox::open(tmp.path()).unwrap();
        let evil = InboundMessage::whole("../x".into(), vec![]);
        assert!(inbox.mark_done(&evil, Done::Processed).is_err());
    }

    #[test]
    fn wait_for_mail_returns_at_once_when_mail_is_there() {
        let tmp = tempfile::tempdir().unwrap();
        let mut inbox = MaildirInbox::open(tmp.path()).unwrap();
        let start = Instant::now();
        inbox.wait_for_mail(Duration::from_millis(50)).unwrap();
        assert!(start.elapsed() >= Duration::from_millis(50));
        deliver(tmp.path(), "1.a", "x", 1);
        let start = Instant::now();
        inbox.wait_for_mail(Duration::from_secs(30)).unwrap();
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
