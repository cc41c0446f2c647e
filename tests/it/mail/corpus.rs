//! The inbound corpus: every mail under `tests/corpus/` answered by the
//! real binary (`process FILE`) on a fresh database with a small fixture
//! (users alice and bob, chess board 101 between them at ply 0), and
//! checked against `tests/corpus/manifest.toml`: how many replies, to
//! whom, how large at most, and the state after (users, plies of board
//! 101). `PBM_CORPUS_RECORD=1` prints what each mail actually did, in the
//! manifest's own form, for reviewing a change.

use crate::common;

use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    mail: Vec<Expected>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    /// The .eml file, or for a generated mail the generator's name.
    file: Option<String>,
    generate: Option<String>,
    /// What the mail is about.
    about: String,
    /// Replies written to the out Maildir.
    replies: usize,
    /// Their recipients, sorted.
    #[serde(default)]
    to: Vec<String>,
    /// The largest reply's size in bytes, at most.
    max_reply_bytes: usize,
    /// Users after the mail (the fixture has 2).
    users: i64,
    /// Plies of chess board 101 after the mail (the fixture's is 0).
    ply: i64,
    /// Only "no crash, at most `replies` replies, each to the sender".
    #[serde(default)]
    loose: bool,
}

const SENDER_OF_LOOSE: &str = "carol@players.test";

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn bin(dir: &Path, args: &[&str]) -> std::process::Output {
    common::pbmchess()
        .arg("--config")
        .arg(dir.join("pbmchess.toml"))
        .args(args)
        .env("RUST_LOG", "error")
        .output()
        .unwrap()
}

fn ok(dir: &Path, args: &[&str]) {
    let out = bin(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The fixture, made once: users alice and bob, chess board 101.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pbmchess.toml"),
        format!(
            "[server]\naddress = \"{}\"\nname = \"Test PBM\"\n[database]\npath = \"var/db.sqlite\"\n\
             [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n[outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n",
            common::SERVER_ADDRESS
        ),
    )
    .unwrap();
    ok(dir.path(), &["init"]);
    ok(
        dir.path(),
        &["admin", "user", "add", "alice", "apw", "alice@players.test"],
    );
    ok(
        dir.path(),
        &["admin", "user", "add", "bob", "bpw", "bob@players.test"],
    );
    ok(dir.path(), &["admin", "challenge", "chess", "alice", "bob"]);
    ok(dir.path(), &["poll"]);
    for sub in ["new", "cur"] {
        let d = dir.path().join("var/outbox").join(sub);
        for e in std::fs::read_dir(&d).unwrap() {
            std::fs::remove_file(e.unwrap().path()).unwrap();
        }
    }
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A 20 MiB mail whose body would be commands if it were read.
fn generated(name: &str, dir: &Path) -> PathBuf {
    assert_eq!(name, "20MiB", "unknown generator {name}");
    let file = dir.join("big.eml");
    let mut raw =
        common::raw_mail("carol@players.test", "help", "", "big1@players.test").into_bytes();
    let line = b"chess show 101 and some more words to fill a line of text\r\n";
    while raw.len() < 20 * 1024 * 1024 {
        raw.extend_from_slice(line);
    }
    std::fs::write(&file, raw).unwrap();
    file
}

#[test]
fn every_corpus_mail_has_its_expected_outcome() {
    let manifest: Manifest =
        toml::from_str(&std::fs::read_to_string(corpus().join("manifest.toml")).unwrap()).unwrap();
    let listed: Vec<_> = manifest
        .mail
        .iter()
        .filter_map(|m| m.file.clone())
        .collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".eml"))
        .collect();
    on_disk.sort();
    let mut listed_sorted = listed.clone();
    listed_sorted.sort();
    assert_eq!(listed_sorted, on_disk, "the manifest lists every .eml once");
    assert!(manifest.mail.len() >= 40);
    let record = std::env::var_os("PBM_CORPUS_RECORD").is_some();
    let template = fixture();
    let mut wrong = Vec::new();
    for expected in &manifest.mail {
        let work = tempfile::tempdir().unwrap();
        copy_tree(template.path(), work.path());
        let (name, file) = match (&expected.file, &expected.generate) {
            (Some(f), None) => (f.clone(), corpus().join(f)),
            (None, Some(g)) => (format!("generated {g}"), generated(g, work.path())),
            _ => panic!("each mail has a file or a generator: {expected:?}"),
        };
        let out = bin(work.path(), &["process", file.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{name}: process failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut sent = Vec::new();
        for e in std::fs::read_dir(work.path().join("var/outbox/new")).unwrap() {
            let raw = std::fs::read_to_string(e.unwrap().path()).unwrap();
            sent.push(common::parse_sent(&raw));
        }
        let mut to: Vec<String> = sent.iter().map(|m| m.to.clone()).collect();
        to.sort();
        let largest = sent.iter().map(|m| m.raw.len()).max().unwrap_or(0);
        let conn = rusqlite::Connection::open(work.path().join("var/db.sqlite")).unwrap();
        let users: i64 = conn
            .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
            .unwrap();
        let ply: i64 = conn
            .query_row(
                "SELECT count(*) FROM plies WHERE game = 'chess' AND board = 101",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let integrity: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(integrity, "ok", "{name}");
        if record {
            eprintln!(
                "[[mail]]\nfile = {:?}\nabout = {:?}\nreplies = {}\nto = {to:?}\nmax_reply_bytes = {}\nusers = {users}\nply = {ply}\n",
                name, expected.about, sent.len(), largest
            );
        }
        let fits = if expected.loose {
            sent.len() <= expected.replies && to.iter().all(|t| t == SENDER_OF_LOOSE)
        } else {
            sent.len() == expected.replies
                && to == expected.to
                && largest <= expected.max_reply_bytes
                && users == expected.users
                && ply == expected.ply
        };
        // Headers of every reply stay headers: no injected line.
        for m in &sent {
            assert!(m.header("Bcc").is_none(), "{name}: {}", m.raw);
        }
        if !fits {
            wrong.push(format!(
                "{name} ({}): {} replies to {to:?}, largest {largest} bytes, {users} users, ply {ply}; expected {expected:?}",
                expected.about,
                sent.len()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
