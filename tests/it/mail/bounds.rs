//! Bounded answers through the real binary (`poll` over a Maildir).

use crate::common;

use common::Install;

#[test]
fn a_fan_out_too_large_gets_one_short_error_and_the_inbox_moves_on() {
    let mut install = Install::new();
    install.ok(&["admin", "user", "add", "alice", "apw", "alice@players.test"]);
    install.ok(&["admin", "user", "add", "bob", "bpw", "bob@players.test"]);
    let body = "y".repeat(99).repeat(1000);
    let subject = format!("message alice apw{}", " bob".repeat(11_000));
    install.send("alice@players.test", &subject, &body);
    install.send(
        "carol@players.test",
        &format!("help{}", " chess".repeat(3000)),
        "",
    );
    install.poll();
    let sent = install.take_outbox();
    assert_eq!(sent.len(), 2, "{sent:#?}");
    let error = common::only_one(&sent, "alice@players.test");
    assert_eq!(error.subject, "Error");
    assert!(error.raw.len() < 1024, "{}", error.raw);
    assert!(
        error.body.contains("nothing of it was done"),
        "{}",
        error.body
    );
    assert!(common::to(&sent, "bob@players.test").is_empty());
    // `help chess` three thousand times: one page.
    let help = common::only_one(&sent, "carol@players.test");
    assert!(!help.subject.contains("parts"), "{}", help.subject);
    assert!(help.raw.len() < 8 * 1024);
}
