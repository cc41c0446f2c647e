//! Mail hygiene: X-Loop, addresses starting with a dash, blockquote bombs,
//! and the state folders' owner and pruning.

use super::*;

#[test]
fn every_mail_carries_x_loop_and_an_error_for_an_error_is_never_sent_only_a_notice_a_day() {
    let mut s = signed_up("");
    let mails = round(&mut s, MALLORY, "frobnicate", "");
    let error = only_one(&mails, MALLORY).clone();
    assert_eq!(error.subject, "Error");
    assert_eq!(error.header("X-Loop").as_deref(), Some(SERVER_ADDRESS));
    let error_id = mid(&error);
    assert!(error_id.contains(".error@games.test"), "{error_id}");
    // A second server behind a forwarder that strips Auto-Submitted and
    // X-Loop answers our error with its own error.
    let raw = format!(
        "From: {MALLORY}\r\nTo: {SERVER_ADDRESS}\r\nSubject: Re: Error\r\n\
         Message-ID: <pong1@evil.example>\r\nIn-Reply-To: {error_id}\r\n\
         References: <a@b.example> {error_id}\r\n\r\nUnknown command.\r\n"
    );
    // Its errors are not sent: one short fixed notice instead, at most
    // once a day, and nothing for its answer to that notice.
    let mails = deliver(&mut s, &raw);
    let notice = only_one(&mails, MALLORY).clone();
    assert!(
        notice
            .body
            .starts_with("Your mail answers an error mail of this server"),
        "{}",
        notice.body
    );
    assert!(!notice.body.contains("Unknown command"), "{}", notice.body);
    let notice_id = mid(&notice);
    let raw = format!(
        "From: {MALLORY}\r\nTo: {SERVER_ADDRESS}\r\nSubject: Re: Error\r\n\
         Message-ID: <pong3@evil.example>\r\nIn-Reply-To: {notice_id}\r\n\
         References: {error_id} {notice_id}\r\n\r\nUnknown command.\r\n"
    );
    let mails = deliver(&mut s, &raw);
    assert!(mails.is_empty(), "{mails:#?}");
    // Our own address with a +tag, or coming back with our X-Loop.
    let mails = round(&mut s, "pbm+bounce@games.test", "help", "");
    assert!(mails.is_empty(), "{mails:#?}");
    let raw = common::raw_mail(MALLORY, "frobnicate", "", "loop2@evil.example").replacen(
        "\r\n",
        "\r\nX-Loop: PBM+x@Games.Test\r\n",
        1,
    );
    assert!(deliver(&mut s, &raw).is_empty());
    // A good command in reply to an error mail is still answered.
    let raw = format!(
        "From: {MALLORY}\r\nTo: {SERVER_ADDRESS}\r\nSubject: help\r\n\
         Message-ID: <pong2@evil.example>\r\nIn-Reply-To: {error_id}\r\n\r\nx\r\n"
    );
    only_one(&deliver(&mut s, &raw), MALLORY);
}

#[test]
fn addresses_starting_with_a_dash_are_refused() {
    let mut s = signed_up("");
    let mails = round(&mut s, "-oQ/tmp/x@evil.example", "help", "");
    assert!(mails.is_empty(), "{mails:#?}");
    let mails = round(
        &mut s,
        MALLORY,
        "signup mallory Sesame-M4 -bi@evil.example",
        "",
    );
    assert!(to(&mails, "-bi@evil.example").is_empty(), "{mails:#?}");
    assert!(
        only_one(&mails, MALLORY).subject.contains("Error"),
        "{mails:#?}"
    );
}

#[test]
fn a_bulk_mail_with_a_blockquote_bomb_is_ignored_unread() {
    let mut s = signed_up("");
    let bomb = format!(
        "<html><body>{}{}</body></html>",
        "<blockquote>".repeat(10_900),
        "x<br>".repeat(32_700)
    );
    let refs: Vec<String> = (0..34_000).map(|i| format!("<r{i}@x.example>")).collect();
    let raw = format!(
        "From: {MALLORY}\r\nTo: {SERVER_ADDRESS}\r\nSubject: help\r\nPrecedence: bulk\r\n\
         Message-ID: <{}@evil.example>\r\nReferences: {}\r\n\
         Content-Type: text/html\r\n\r\n{bomb}\r\n",
        "m".repeat(250_000),
        refs.join(" ")
    );
    assert!(deliver(&mut s, &raw).is_empty());
    // Its Message-ID is kept as a hash: stored values are bounded.
    let longest: i64 = db(&s)
        .query_row(
            "SELECT max(length(message_id)) FROM processed_mail",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(longest <= 998, "{longest}");
}

#[cfg(unix)]
#[test]
fn state_folders_are_the_owners_and_processed_mail_is_pruned() {
    use std::os::unix::fs::PermissionsExt;
    let mut s = Install::with_config("[retention]\nprocessed_mail_days = 10\n");
    for dir in [
        "var",
        "var/inbox",
        "var/inbox/new",
        "var/outbox",
        "var/outbox/cur",
    ] {
        let mode = std::fs::metadata(s.path(dir)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{dir}");
    }
    s.send(ALICE, &format!("signup alice {ALICE_PW}"), "");
    s.poll();
    let cur = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(s.path("var/inbox/cur"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect()
    };
    let files = cur();
    assert_eq!(files.len(), 1);
    // Young: kept. Older than processed_mail_days: gone at the next pass.
    s.poll();
    assert_eq!(cur().len(), 1);
    let old = std::process::Command::new("touch")
        .args(["-d", "20 days ago"])
        .arg(&files[0])
        .status()
        .unwrap();
    assert!(old.success());
    s.poll();
    assert!(cur().is_empty());
}
