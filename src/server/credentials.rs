//! Password checks with a cache of verified credentials, as Dovecot's auth
//! cache does: one argon2id verification per player per process, not one
//! per mail. The cache saves time only: every check still takes its place
//! in the mail's budget (see `guard`), so whether a password is cached
//! never decides whether it is checked.
//!
//! - What is cached is a keyed hash (HMAC-SHA256 under a key drawn at
//!   random when the process starts) of the userid, the stored argon2id PHC
//!   string and the password (lower-cased, as passwords are compared), only
//!   after argon2id accepted it. The tags are compared only within the
//!   process that made them, so nothing stored depends on how they are made. The password itself is never kept; a memory
//!   dump shows only hashes under a key that dies with the process.
//! - A wrong password is never cached: every check that does not match the
//!   cached hash exactly runs argon2id in full.
//! - The stored PHC string is part of the hash, so a password changed by
//!   any process (another `poll`, the admin CLI) no longer matches; the
//!   server also drops a user's entry when their password changes or they
//!   sign off.
//! - Bounded: at most [`CAPACITY`] users; beyond that the oldest entry goes.
//! - An unknown userid costs one argon2id verification as well (against a
//!   hash made for the purpose), so the time of a refusal does not tell
//!   whether the user exists.
//! - Argon2id parameters are the crate's defaults, for hashing and verifying
//!   alike.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use hmac::{KeyInit, Mac};
use sha2::Sha256;

use super::password;

/// Ask the allocator to hand blocks of a MiB and more straight back to the
/// system when freed. Each argon2id check takes 19 MiB of working memory;
/// glibc would otherwise raise its mmap threshold after the first and keep
/// later ones in its heap, where they pile up (over 100 MiB after a
/// backlog of 200 players' checks instead of about 30). Call once at the
/// start of the process; elsewhere than glibc it does nothing.
pub(crate) fn return_large_blocks_at_once() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// The hash an unknown userid is checked against, made once a process
/// (see [`warm_up`]).
fn dummy_hash() -> Option<&'static String> {
    static DUMMY: OnceLock<Option<String>> = OnceLock::new();
    DUMMY
        .get_or_init(|| password::hash_password("no such user").ok())
        .as_ref()
}

/// Make what the checks need once a process (the hash an unknown userid
/// is checked against) now: called before a mail's transaction, so that
/// no hashing runs while the database is locked for writing.
pub(crate) fn warm_up() {
    let _ = dummy_hash();
}

/// Users whose verified credentials are kept at most.
pub(crate) const CAPACITY: usize = 10_000;

/// How many argon2id verifications ran, and how long they took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckStats {
    /// Checks answered (cached or not).
    pub checks: u64,
    /// Of those, the argon2id verifications run.
    pub verifications: u64,
    /// Time spent in the verifications.
    pub time: Duration,
}

/// The cache of verified credentials (one per server, so one per process).
pub struct VerifiedCredentials {
    key: [u8; 32],
    inner: Mutex<Inner>,
    /// The argon2id working memory, kept from one check to the next until
    /// [`VerifiedCredentials::release_memory`].
    memory: Mutex<Vec<argon2::Block>>,
}

#[derive(Default)]
struct Inner {
    tags: HashMap<String, [u8; 32]>,
    /// Userids in the order their entries were made, oldest first.
    order: VecDeque<String>,
    stats: CheckStats,
}

impl Default for VerifiedCredentials {
    fn default() -> Self {
        VerifiedCredentials::new()
    }
}

impl VerifiedCredentials {
    /// An empty cache under a fresh random key. Without randomness from
    /// the system the key stays zero and nothing is cached (every check
    /// runs argon2id) rather than cached under a guessable key.
    pub fn new() -> VerifiedCredentials {
        let mut key = [0u8; 32];
        if getrandom::fill(&mut key).is_err() {
            key = [0u8; 32];
        }
        VerifiedCredentials {
            key,
            inner: Mutex::new(Inner::default()),
            memory: Mutex::new(Vec::new()),
        }
    }

    fn enabled(&self) -> bool {
        self.key != [0u8; 32]
    }

    fn tag(&self, userid: &str, stored_hash: &str, password: &str) -> [u8; 32] {
        let mut h = hmac::Hmac::<Sha256>::new_from_slice(&self.key)
            .expect("HMAC takes a key of any length");
        for part in [userid, stored_hash, password] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().into_bytes().into()
    }

    /// Whether `password` is the password of `userid`, whose stored argon2id
    /// PHC string is `stored_hash`.
    pub(crate) fn matches(&self, userid: &str, stored_hash: &str, password: &str) -> bool {
        // Passwords are compared case-insensitively: so is the cache.
        let tag = self.tag(userid, stored_hash, &password.to_lowercase());
        {
            let mut inner = self.lock();
            inner.stats.checks += 1;
            if self.enabled()
                && inner
                    .tags
                    .get(userid)
                    .is_some_and(|known| constant_time_eq(known, &tag))
            {
                return true;
            }
        }
        let started = Instant::now();
        let ok = self.verify(stored_hash, password);
        let mut inner = self.lock();
        inner.stats.verifications += 1;
        inner.stats.time += started.elapsed();
        if ok && self.enabled() {
            inner.remember(userid, tag);
        }
        ok
    }

    /// A check for a userid that does not exist: always false, after the
    /// same argon2id work as a real check.
    pub(crate) fn no_such_user(&self, password: &str) -> bool {
        if let Some(hash) = dummy_hash() {
            let started = Instant::now();
            let _ = self.verify(hash, password);
            let mut inner = self.lock();
            inner.stats.checks += 1;
            inner.stats.verifications += 1;
            inner.stats.time += started.elapsed();
        }
        false
    }

    /// Forget what was verified for `userid` (password changed, signed off,
    /// deleted).
    pub(crate) fn forget(&self, userid: &str) {
        let mut inner = self.lock();
        if inner.tags.remove(userid).is_some() {
            inner.order.retain(|u| u != userid);
        }
    }

    /// One argon2id verification, in the kept working memory.
    fn verify(&self, stored_hash: &str, password: &str) -> bool {
        let mut memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        password::password_matches_in(&mut memory, stored_hash, password)
    }

    /// Give the argon2id working memory (19 MiB at the default parameters)
    /// back to the system: the daemon does so after each pass, so a server
    /// waiting for mail holds none of it.
    pub(crate) fn release_memory(&self) {
        let mut memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        *memory = Vec::new();
    }

    /// The checks so far.
    pub fn stats(&self) -> CheckStats {
        self.lock().stats
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic elsewhere while holding the lock leaves consistent data.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A new password hashed before its mail's transaction began (see
/// [`PreparedHashes`]): its argon2id PHC string, and a keyed tag of the
/// password it was made of (the password itself is not kept).
pub(crate) struct PreparedHash {
    tag: [u8; 32],
    phc: String,
}

impl PreparedHash {
    /// The argon2id PHC string to store.
    pub(crate) fn phc(&self) -> &str {
        &self.phc
    }
}

impl VerifiedCredentials {
    fn new_password_tag(&self, password: &str) -> [u8; 32] {
        self.tag("", "new password", &password.to_lowercase())
    }

    /// Hash a new password (signup, change password) ahead of its mail's
    /// transaction: one argon2id run, counted in the stats.
    pub(crate) fn prepare(&self, password: &str) -> Result<PreparedHash, super::ServerError> {
        let started = Instant::now();
        let phc = password::hash_password(password)?;
        let mut inner = self.lock();
        inner.stats.verifications += 1;
        inner.stats.time += started.elapsed();
        Ok(PreparedHash {
            tag: self.new_password_tag(password),
            phc,
        })
    }

    /// Check `password` for `userid` (stored hash `stored`; `None` for a
    /// userid that does not exist) ahead of its mail's transaction: one
    /// argon2id run (or the cache's answer), kept as a keyed tag and the
    /// answer (see [`Prepared`]).
    pub(crate) fn precheck(
        &self,
        userid: &str,
        stored: Option<&str>,
        password: &str,
    ) -> PreparedCheck {
        let right = match stored {
            Some(hash) => self.matches(userid, hash, password),
            None => self.no_such_user(password),
        };
        PreparedCheck {
            tag: self.check_tag(userid, stored, password),
            right,
        }
    }

    /// What a check made ahead (one of `checks`) said of `password` for
    /// `userid` with the stored hash `stored`, if one was made.
    pub(crate) fn prechecked(
        &self,
        checks: &[PreparedCheck],
        userid: &str,
        stored: Option<&str>,
        password: &str,
    ) -> Option<bool> {
        let tag = self.check_tag(userid, stored, password);
        checks
            .iter()
            .find(|c| constant_time_eq(&c.tag, &tag))
            .map(|c| c.right)
    }

    fn check_tag(&self, userid: &str, stored: Option<&str>, password: &str) -> [u8; 32] {
        let stored = stored.map_or_else(|| "no such user".to_string(), |h| format!("${h}"));
        self.tag(&userid.to_lowercase(), &stored, &password.to_lowercase())
    }

    /// Whether `prepared` was made of `password`.
    pub(crate) fn prepared_for(&self, prepared: &PreparedHash, password: &str) -> bool {
        constant_time_eq(&prepared.tag, &self.new_password_tag(password))
    }
}

/// A password checked before its mail's transaction began: a keyed tag
/// of userid, stored hash and password, and whether it was right.
pub(crate) struct PreparedCheck {
    tag: [u8; 32],
    right: bool,
}

/// The argon2id work of one mail, done before its transaction began: the
/// hashes of its new passwords and the checks of the passwords it gives.
#[derive(Default)]
pub(crate) struct Prepared {
    pub hashes: Vec<PreparedHash>,
    pub checks: Vec<PreparedCheck>,
    /// The mail's work was done ahead (`false`: a mail nobody prepared,
    /// whose checks run in its transaction).
    pub made: bool,
    /// The accounts the work was done against, each with its stored hash
    /// then (none: no such account): the work holds while they are so
    /// (see `Server::prepared_is_current`).
    pub accounts: Vec<(String, Option<String>)>,
}

impl Prepared {
    /// Note that the work was done against `userid` with `stored` hash
    /// (the first time it is read).
    pub(crate) fn note_account(&mut self, userid: &str, stored: Option<&str>) {
        if !self.accounts.iter().any(|(u, _)| u == userid) {
            self.accounts
                .push((userid.to_string(), stored.map(str::to_string)));
        }
    }
}

/// The argon2id work of mails (see [`Prepared`]), by Message-ID, until the
/// server handles them: done before the write transaction begins (so that
/// argon2id does not run while the database is locked for writing), and
/// taken by the mail when it runs (see `guard`'s rulings). Bounded: a mail
/// has at most `guard::PASSWORD_CHECKS_PER_MAIL` runs, and at
/// most [`PREPARED_MAILS`] mails wait; beyond that the oldest are dropped
/// (their new passwords are then refused as over the mail's budget, their
/// checks made in the transaction).
#[derive(Default)]
pub(crate) struct PreparedHashes {
    by_mail: Mutex<VecDeque<(String, Prepared)>>,
}

/// Mails whose hashes wait at most.
pub(crate) const PREPARED_MAILS: usize = 200;

impl PreparedHashes {
    /// Whether the mail `message_id` has its hashes already.
    pub(crate) fn has(&self, message_id: &str) -> bool {
        self.lock().iter().any(|(id, _)| id == message_id)
    }

    /// Keep what was prepared for the mail `message_id`.
    pub(crate) fn put(&self, message_id: &str, hashes: Prepared) {
        let mut by_mail = self.lock();
        by_mail.push_back((message_id.to_string(), hashes));
        while by_mail.len() > PREPARED_MAILS {
            by_mail.pop_front();
        }
    }

    /// The accounts the mail `message_id`'s work was done against (see
    /// [`Prepared::accounts`]).
    pub(crate) fn accounts_of(&self, message_id: &str) -> Vec<(String, Option<String>)> {
        self.lock()
            .iter()
            .find(|(id, _)| id == message_id)
            .map(|(_, p)| p.accounts.clone())
            .unwrap_or_default()
    }

    /// What was prepared for the mail `message_id` (nothing when not).
    pub(crate) fn take(&self, message_id: &str) -> Prepared {
        let mut by_mail = self.lock();
        match by_mail.iter().position(|(id, _)| id == message_id) {
            Some(at) => by_mail.remove(at).map(|(_, h)| h).unwrap_or_default(),
            None => Prepared::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(String, Prepared)>> {
        self.by_mail.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Inner {
    fn remember(&mut self, userid: &str, tag: [u8; 32]) {
        if self.tags.insert(userid.to_string(), tag).is_none() {
            self.order.push_back(userid.to_string());
            while self.order.len() > CAPACITY {
                if let Some(old) = self.order.pop_front() {
                    self.tags.remove(&old);
                }
            }
        }
    }
}

fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_right_password_is_verified_once_and_a_wrong_one_every_time() {
        let cache = VerifiedCredentials::new();
        let hash = password::hash_password("Secret").unwrap();
        assert!(cache.matches("alice", &hash, "secret"));
        assert!(cache.matches("alice", &hash, "secret"));
        assert!(cache.matches("alice", &hash, "secret"));
        assert_eq!(cache.stats().verifications, 1);
        assert!(!cache.matches("alice", &hash, "wrong"));
        assert!(!cache.matches("alice", &hash, "wrong"));
        assert_eq!(cache.stats().verifications, 3);
        assert_eq!(cache.stats().checks, 5);
        // Still right after the wrong ones.
        assert!(cache.matches("alice", &hash, "secret"));
        assert_eq!(cache.stats().verifications, 3);
    }

    #[test]
    fn a_changed_password_hash_or_a_forgotten_user_is_verified_again() {
        let cache = VerifiedCredentials::new();
        let old = password::hash_password("old").unwrap();
        let new = password::hash_password("new").unwrap();
        assert!(cache.matches("bob", &old, "old"));
        // Changed elsewhere: the cached entry does not fit the new hash.
        assert!(!cache.matches("bob", &new, "old"));
        assert!(cache.matches("bob", &new, "new"));
        assert_eq!(cache.stats().verifications, 3);
        cache.forget("bob");
        assert!(cache.matches("bob", &new, "new"));
        assert_eq!(cache.stats().verifications, 4);
    }

    #[test]
    fn an_unknown_user_costs_a_verification_and_never_matches() {
        let cache = VerifiedCredentials::new();
        assert!(!cache.no_such_user("anything"));
        assert!(!cache.no_such_user("anything"));
        assert_eq!(cache.stats().verifications, 2);
    }

    #[test]
    fn work_done_ahead_answers_only_for_what_it_was_done_for() {
        let cache = VerifiedCredentials::new();
        let new = cache.prepare("New-Pw1").unwrap();
        assert!(new.phc().starts_with("$argon2id$"));
        assert!(cache.prepared_for(&new, "NEW-PW1"));
        assert!(!cache.prepared_for(&new, "other"));
        let hash = password::hash_password("Secret").unwrap();
        let checks = [
            cache.precheck("alice", Some(&hash), "secret"),
            cache.precheck("alice", Some(&hash), "guess"),
            cache.precheck("nobody", None, "guess"),
        ];
        assert_eq!(
            cache.prechecked(&checks, "ALICE", Some(&hash), "Secret"),
            Some(true)
        );
        assert_eq!(
            cache.prechecked(&checks, "alice", Some(&hash), "guess"),
            Some(false)
        );
        assert_eq!(
            cache.prechecked(&checks, "nobody", None, "guess"),
            Some(false)
        );
        // Not checked ahead: another password, another stored hash, a
        // userid that exists now.
        assert_eq!(
            cache.prechecked(&checks, "alice", Some(&hash), "other"),
            None
        );
        assert_eq!(
            cache.prechecked(&checks, "alice", Some("$x"), "secret"),
            None
        );
        assert_eq!(
            cache.prechecked(&checks, "nobody", Some(&hash), "guess"),
            None
        );
    }

    #[test]
    fn mails_waiting_with_their_work_are_bounded_and_taken_once() {
        let waiting = PreparedHashes::default();
        for i in 0..PREPARED_MAILS + 3 {
            waiting.put(&format!("m{i}"), Prepared::default());
        }
        assert!(!waiting.has("m0"));
        assert!(waiting.has("m3"));
        waiting.take("m3");
        assert!(!waiting.has("m3"));
    }

    #[test]
    fn the_cache_is_bounded() {
        let cache = VerifiedCredentials::new();
        let mut inner = cache.lock();
        for i in 0..CAPACITY + 5 {
            inner.remember(&format!("u{i}"), [1; 32]);
        }
        assert_eq!(inner.tags.len(), CAPACITY);
        assert!(!inner.tags.contains_key("u0"));
        assert!(inner.tags.contains_key(&format!("u{}", CAPACITY + 4)));
    }

    #[test]
    fn two_processes_have_different_keys() {
        let a = VerifiedCredentials::new();
        let b = VerifiedCredentials::new();
        assert_ne!(a.key, b.key);
        assert_ne!(a.tag("u", "h", "p"), b.tag("u", "h", "p"));
    }
}
