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

/// `serve` on the example with `[outbox]` reduced to `path`: it starts,
/// answers a mail into that Maildir, and ends cleanly on SIGTERM. No port
/// is opened (the example names none); the inbox and outbox are the
/// install's own folders.
#[test]
fn the_example_with_outbox_reduced_to_path_serves_and_ends_cleanly() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let text = example_with_path_only();
    let mut install = Install::with_whole_config(&text);
    install.send("ann@players.test", "help", "");
    let log = install.path("serve.log");
    let mut child = crate::common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .arg("serve")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    // Killed should the test fail before it ends.
    struct Reaped<'c>(&'c mut std::process::Child);
    impl Drop for Reaped<'_> {
        fn drop(&mut self) {
            if self.0.try_wait().ok().flatten().is_none() {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }
    }
    let running = Reaped(&mut child);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut sent = Vec::new();
    while sent.is_empty() {
        assert!(
            Instant::now() < deadline,
            "no answer from serve: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
        sent = install.take_outbox();
    }
    assert!(
        sent.iter().any(|m| m.to.contains("ann@players.test")),
        "{sent:?}"
    );
    let stopped = std::process::Command::new("kill")
        .args(["-TERM", &running.0.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = running.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.success(),
        "serve ended with {status}: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}
