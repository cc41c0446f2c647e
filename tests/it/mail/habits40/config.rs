//! `config.example.toml` and the config reader agree: a section with
//! `path` alone is a Maildir.

use crate::common::Install;

/// The shipped example with every live `kind = "maildir"` line taken out
/// of `[inbox]` and `[outbox]`, so each keeps `path` alone.
fn example_with_path_only() -> String {
    let example = include_str!("../../../../config.example.toml");
    let mut out = String::new();
    let mut section = "";
    let mut removed = 0;
    for line in example.lines() {
        if line.starts_with('[') {
            section = line.trim();
        }
        if (section == "[inbox]" || section == "[outbox]") && line.trim() == "kind = \"maildir\"" {
            removed += 1;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    assert_eq!(removed, 2, "the example names kind in [inbox] and [outbox]");
    out
}

#[test]
fn the_example_with_outbox_reduced_to_path_starts_and_answers() {
    let text = example_with_path_only();
    assert!(text.contains("[outbox]") && text.contains("path = \"var/outbox\""));
    // `init` runs inside with_whole_config and must succeed.
    let mut install = Install::with_whole_config(&text);
    install.send("ann@players.test", "help", "");
    install.poll();
    let sent = install.take_outbox();
    assert!(
        sent.iter().any(|m| m.to.contains("ann@players.test")),
        "the reply is written to the Maildir of [outbox] path: {sent:?}"
    );
}
