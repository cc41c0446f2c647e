//! Through the binary: the admin CLI's password, and a stranger's signup by
//! mail.

use super::*;

// --------------------------------------------------- the admin CLI's password

#[test]
fn admin_user_add_and_passwd_read_the_password_from_stdin() {
    use std::io::Write;
    let s = Install::new();
    let run = |args: &[&str], input: &str| {
        let mut child = common::pbmchess()
            .arg("--config")
            .arg(&s.config)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run(
        &[
            "admin",
            "user",
            "add",
            "alice",
            "alice@players.org",
            "--password-stdin",
        ],
        "s3cret@home\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    let out = run(
        &["admin", "user", "passwd", "alice", "--password-stdin"],
        "newer\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(
        &["admin", "user", "passwd", "alice", "--password-stdin"],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard input holds no password"));
    let db = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let user = pbmchess::store::user(&db, "alice").unwrap().unwrap();
    assert_eq!(user.addresses, vec!["alice@players.org"]);
    assert!(user.password_hash.starts_with("$argon2id$"));
}

#[test]
fn a_password_given_as_an_argument_still_works_and_warns_that_it_is_visible() {
    let s = Install::new();
    let out = s.run(&["admin", "user", "add", "bob", "bpw", "bob@players.org"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("visible to other users"), "{stderr}");
    let out = s.run(&["admin", "user", "passwd", "bob", "other"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("visible to other users"));
}

#[test]
fn a_stranger_signup_by_mail_through_the_binary_mails_only_its_sender() {
    let mut s = Install::confirming("");
    let extras: Vec<String> = (0..20).map(|j| format!("v{j}@victims.org")).collect();
    s.send(MALLORY, &format!("signup mal mpw {}", extras.join(" ")), "");
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 1, "{mails:#?}");
    assert_eq!(mails[0].to, MALLORY);
}
