//! `check --probe` proves the inbox path, through a sendmail outbox too.

use super::*;

/// The `probe:` line of `check` output.
fn probe_line(said: &str) -> String {
    said.lines()
        .find(|l| l.contains(" probe: "))
        .unwrap_or_else(|| panic!("no probe line in {said}"))
        .to_string()
}

#[test]
fn check_probe_sees_its_mail_reach_the_inbox_and_files_it_away_unanswered() {
    // The outbox Maildir is the inbox: what is sent lands in inbox/new.
    let install = Install::with_whole_config(&format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\n[database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\
         [outbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n"
    ));
    let out = install.run(&["check", "--probe", "--probe-seconds", "30"]);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}{}", stderr(&out));
    let line = probe_line(&said);
    assert!(
        line.starts_with("ok") && line.contains("reached the inbox"),
        "{line}"
    );
    assert!(names_in(&install.path("var/inbox/new")).is_empty());
    let filed = names_in(&install.path("var/inbox/cur"));
    assert_eq!(filed.len(), 1, "{filed:?}");
    assert!(filed[0].ends_with(":2,FS"), "{filed:?}");
    // Nothing answers it, nothing counts it.
    install.ok(&["poll"]);
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    let (outbox, processed): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM outbox), (SELECT count(*) FROM processed_mail)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((outbox, processed), (0, 0));
}

#[test]
fn check_probe_says_where_to_look_when_its_mail_goes_elsewhere() {
    // The outbox Maildir is taken by nobody: like an MTA that delivers the
    // server's mail to /var/mail instead of the inbox.
    let mut install = Install::new();
    let out = install.run(&["check", "--probe", "--probe-seconds", "1"]);
    let said = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    let line = probe_line(&said);
    assert!(line.starts_with("FAILED"), "{line}");
    for part in [
        "did not reach the inbox",
        "var/outbox",
        "var/inbox",
        "mailbox_command",
        "pbmchess probe ",
    ] {
        assert!(line.contains(part), "{part}: {line}");
    }
    // The probe, delivered late, is ignored by the daemon: never answered.
    let probes = names_in(&install.path("var/outbox/new"));
    assert_eq!(probes.len(), 1);
    let file = install.path("var/outbox/new").join(&probes[0]);
    let raw = std::fs::read_to_string(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    assert!(raw.contains("Auto-Submitted: auto-generated"), "{raw}");
    install.deliver_raw(&raw);
    install.poll();
    assert!(install.take_outbox().is_empty());
    let conn = rusqlite::Connection::open(install.path("var/db.sqlite")).unwrap();
    let outcome: String = conn
        .query_row("SELECT outcome FROM processed_mail", [], |r| r.get(0))
        .unwrap();
    assert_eq!(outcome, "ignored");
}

#[test]
fn check_probe_goes_through_a_sendmail_outbox_too() {
    let tmp = tempfile::tempdir().unwrap();
    let inbox = tmp.path().join("inbox");
    let script = tmp.path().join("sendmail");
    // A local MTA that delivers to the inbox Maildir (`-bv`: verify only).
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n[ \"$1\" = -bv ] && exit 0\nf=probe.$$\n\
             cat > {in}/tmp/$f && mv {in}/tmp/$f {in}/new/$f\n",
            in = inbox.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let install = Install::with_whole_config(&format!(
        "[server]\naddress = \"{SERVER_ADDRESS}\"\n[database]\npath = \"var/db.sqlite\"\n\
         [inbox]\nkind = \"maildir\"\npath = \"{}\"\n\
         [outbox]\nkind = \"sendmail\"\ncommand = \"{}\"\n",
        inbox.display(),
        script.display()
    ));
    let out = install.run(&["check", "--probe", "--probe-seconds", "30"]);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}{}", stderr(&out));
    assert!(probe_line(&said).contains("reached the inbox"), "{said}");
    assert!(names_in(&inbox.join("new")).is_empty());
}
