//! The log formats: no colour codes off a terminal, `RUST_LOG` filters, and
//! JSON lines on request.

use super::*;

/// Run `poll` on one delivered mail with these log settings; its stderr.
fn poll_log(install: &mut Install, rust_log: &str, args: &[&str]) -> String {
    install.send("a@players.test", "help", "");
    let out = common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .args(args)
        .arg("poll")
        .env("RUST_LOG", rust_log)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn logs_have_no_colour_codes_off_a_terminal_and_rust_log_filters_them() {
    let mut install = Install::new();
    let log = poll_log(&mut install, "info", &[]);
    assert!(log.contains("mail processed"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "escape codes in a log file: {log:?}"
    );
    let log = poll_log(&mut install, "warn", &[]);
    assert!(!log.contains("mail processed"), "{log}");
}

#[test]
fn logs_are_json_lines_on_request_by_flag_or_config() {
    let mut install = Install::new();
    let log = poll_log(&mut install, "info", &["--log-format", "json"]);
    let lines: Vec<&str> = log.lines().collect();
    assert!(!lines.is_empty());
    for line in &lines {
        assert!(
            line.starts_with('{') && line.ends_with('}') && line.contains("\"level\":"),
            "not a JSON line: {line}"
        );
    }
    assert!(log.contains("\"message\":\"mail processed\""), "{log}");
    // Plain values a log system can index, not Rust debug strings.
    assert!(log.contains("\"outcome\":\"answered\""), "{log}");
    assert!(log.contains("\"commands\":1"), "{log}");
    assert!(log.contains("\"mails_read\":1"), "{log}");
    assert!(
        !log.contains("Answered {") && !log.contains("PassReport"),
        "{log}"
    );

    let mut install = Install::with_config("[log]\nformat = \"json\"\n");
    let log = poll_log(&mut install, "info", &[]);
    assert!(log.lines().all(|l| l.starts_with('{')), "{log}");
}
