//! Mail server outages: replies held and delivered once, rejected
//! recipients given up, IMAP down during `poll`, a refused SMTP login, and
//! `serve` across outages until SIGTERM.

use super::*;

#[test]
fn replies_due_while_smtp_is_down_are_delivered_once_after_it_is_back() {
    let Some(servers) =
        Servers::start("replies_due_while_smtp_is_down_are_delivered_once_after_it_is_back")
    else {
        return;
    };
    let s = servers.install();
    // Three commands wait in the inbox, worth four replies.
    send(&servers, BOB, "signup bob BobPw", "b1@elsewhere.example");
    send(
        &servers,
        CAROL,
        "signup carol CarolPw",
        "c1@elsewhere.example",
    );
    send(
        &servers,
        BOB,
        "chess challenge bob carol",
        "b2@elsewhere.example",
    );
    servers.stop(Service::Smtp);

    // Polls while SMTP is down: the mail is read and filed, the replies wait.
    let out = s.run(&["poll"]);
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{log}");
    assert!(log.contains("will retry"), "{log}");
    assert_eq!(servers.count("pbm", "INBOX"), 0);
    assert_eq!(servers.count("pbm", "Processed"), 3);
    assert_eq!(pending(&s), 4);
    // More mail meanwhile (put straight into the mailbox: SMTP is down).
    let mut session = servers.session("pbm");
    session
        .append(
            "INBOX",
            &player_mail(
                BOB,
                "chess move 101 bob BobPw f3",
                "",
                "b3@elsewhere.example",
            ),
        )
        .finish()
        .unwrap();
    session.logout().unwrap();
    for _ in 0..3 {
        let out = s.run(&["poll"]);
        assert!(out.status.success());
    }
    let last_failure = Instant::now();
    assert_eq!(servers.count("pbm", "INBOX"), 0);
    assert_eq!(pending(&s), 6, "{:#?}", outbox_rows(&s));
    assert!(servers.sink().is_empty());
    let tried = outbox_rows(&s);
    assert!(tried.iter().any(|r| r.attempts > 0), "{tried:#?}");
    assert!(tried
        .iter()
        .all(|r| r.last_error.is_some() == (r.attempts > 0)));

    // Back on the same port: after the retry delay (one second), one poll
    // delivers it all.
    servers.restart(Service::Smtp);
    let due = last_failure + Duration::from_millis(1100);
    std::thread::sleep(due.saturating_duration_since(Instant::now()));
    s.poll();
    let rows = outbox_rows(&s);
    assert_eq!(rows.len(), 6);
    assert!(rows.iter().all(|r| r.sent && !r.failed), "{rows:#?}");
    // One more poll a little later sends nothing again.
    std::thread::sleep(Duration::from_millis(1100));
    s.poll();
    let sink = servers.sink();
    assert_eq!(sink.len(), 6, "{sink:#?}");
    let got = by_message_id(&sink);
    for row in &rows {
        assert_eq!(got.get(&row.message_id), Some(&1), "{row:?} in {got:#?}");
    }
    let to_bob = sink.iter().filter(|m| m.to == BOB).count();
    assert_eq!(to_bob, 3);
    // Delivery order after the outage follows the retry times, not the
    // order the replies were queued in.
    let mut to_carol: Vec<&str> = sink
        .iter()
        .filter(|m| m.to == CAROL)
        .map(|m| m.subject.as_str())
        .collect();
    to_carol.sort_unstable();
    assert_eq!(
        to_carol,
        [
            "Chess Board 101 carol",
            "New Chess Board 101 bob",
            "Welcome to PBM Chess, carol"
        ]
    );
}

#[test]
fn a_rejected_recipient_is_given_up_and_the_others_still_go() {
    let Some(servers) = Servers::start("a_rejected_recipient_is_given_up_and_the_others_still_go")
    else {
        return;
    };
    let s = servers.install();
    // The router answers 550 for reject@..., 451 for tempfail@...
    send(
        &servers,
        "reject@elsewhere.example",
        "help",
        "r1@elsewhere.example",
    );
    send(
        &servers,
        "tempfail@elsewhere.example",
        "help",
        "t1@elsewhere.example",
    );
    send(&servers, CAROL, "help", "c1@elsewhere.example");
    let log = poll_until(&s, "carol's answer", || {
        servers.sink().iter().any(|m| m.to == CAROL)
    });
    assert!(log.contains("given up"), "{log}");
    let rows = outbox_rows(&s);
    assert_eq!(rows.len(), 3, "{rows:#?}");
    let row = |to: &str| rows.iter().find(|r| r.to == to).unwrap();
    let rejected = row("reject@elsewhere.example");
    assert!(rejected.failed && !rejected.sent, "{rejected:?}");
    assert_eq!(rejected.attempts, 1);
    assert!(
        rejected.last_error.as_deref().unwrap().contains("550"),
        "{rejected:?}"
    );
    let tempfail = row("tempfail@elsewhere.example");
    assert!(!tempfail.failed && !tempfail.sent, "{tempfail:?}");
    assert!(tempfail.attempts >= 1);
    assert!(row(CAROL).sent);

    // Later polls try the temporary failure again, never the rejected one.
    let before = tempfail.attempts;
    poll_until(&s, "another attempt at tempfail", || {
        outbox_rows(&s)
            .iter()
            .any(|r| r.to == "tempfail@elsewhere.example" && r.attempts > before)
    });
    let rows = outbox_rows(&s);
    let rejected = rows
        .iter()
        .find(|r| r.to == "reject@elsewhere.example")
        .unwrap();
    assert_eq!(rejected.attempts, 1, "{rejected:?}");
    assert!(rows.iter().all(|r| !r.failed || r.to.starts_with("reject")));
    let sink = servers.sink();
    assert_eq!(sink.len(), 1, "{sink:#?}");
}

#[test]
fn poll_while_imap_is_down_exits_2_still_sends_and_catches_up_later() {
    let Some(servers) =
        Servers::start("poll_while_imap_is_down_exits_2_still_sends_and_catches_up_later")
    else {
        return;
    };
    let s = servers.install();
    send(&servers, BOB, "signup bob BobPw", "b1@elsewhere.example");
    poll_until(&s, "bob's welcome", || servers.sink().len() == 1);

    servers.stop(Service::Dovecot);
    // Mail arriving meanwhile waits in the Maildir behind Dovecot; replies
    // queued by the admin still go out.
    send(
        &servers,
        CAROL,
        "signup carol CarolPw",
        "c1@elsewhere.example",
    );
    s.ok(&[
        "admin",
        "user",
        "add",
        "dave",
        "DavePw",
        "dave@elsewhere.example",
    ]);
    s.ok(&["admin", "challenge", "chess", "bob", "dave"]);
    let out = s.run(&["poll"]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{log}");
    assert!(log.contains("cannot read the inbox"), "{log}");
    let sink = servers.sink();
    assert_eq!(sink.len(), 3, "{sink:#?}");
    for m in &sink[1..] {
        assert_eq!(m.subject, "New Chess Board 101 bob");
    }
    assert_eq!(pending(&s), 0);

    servers.restart(Service::Dovecot);
    let out = s.run(&["poll"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sink = servers.sink();
    assert_eq!(sink.len(), 4, "{sink:#?}");
    assert_eq!(sink[3].to, CAROL);
    assert_eq!(
        sink[3].header("In-Reply-To").as_deref(),
        Some("<c1@elsewhere.example>")
    );
    assert_eq!(servers.count("pbm", "INBOX"), 0);
}

#[test]
fn a_refused_smtp_login_holds_the_replies_until_the_password_is_fixed() {
    let Some(servers) =
        Servers::start("a_refused_smtp_login_holds_the_replies_until_the_password_is_fixed")
    else {
        return;
    };
    let s = Install::with_whole_config(&servers.config(Some("wrong-secret")));
    send(&servers, BOB, "help", "b1@elsewhere.example");
    send(&servers, CAROL, "help", "c1@elsewhere.example");
    let out = s.run(&["poll"]);
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{log}");
    assert!(log.contains("535"), "{log}");
    // A 535 is about the server's own account, not the recipient: a
    // configuration error that the admin fixes; the replies wait.
    let rows = outbox_rows(&s);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| !r.failed && !r.sent), "{rows:#?}");
    assert!(servers.sink().is_empty());

    std::fs::write(&s.config, servers.config(Some("pbm-secret"))).unwrap();
    poll_until(&s, "the held-back replies", || pending(&s) == 0);
    let sink = servers.sink();
    assert_eq!(sink.len(), 2, "{sink:#?}");
    assert!(by_message_id(&sink).values().all(|&n| n == 1));
    assert!(outbox_rows(&s).iter().all(|r| r.sent));
}

/// A running `pbmchess serve` whose log goes to a file; killed on drop if
/// still running.
struct Serve {
    child: Child,
    log: PathBuf,
}

impl Serve {
    fn start(s: &Install) -> Serve {
        let log = s.path("serve.log");
        let child = common::pbmchess()
            .arg("--config")
            .arg(&s.config)
            .arg("serve")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Serve { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn assert_alive(&mut self) {
        let exit = self.child.try_wait().unwrap();
        assert!(exit.is_none(), "serve exited: {exit:?}\n{}", self.log());
    }

    /// Waits until the log holds `text` `n` times or more.
    fn wait_log(&mut self, text: &str, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.log().matches(text).count() < n {
            self.assert_alive();
            assert!(
                Instant::now() < deadline,
                "no {text:?} in the log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGTERM; returns the exit status.
    fn terminate(&mut self) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(exit) = self.child.try_wait().unwrap() {
                return exit;
            }
            assert!(
                Instant::now() < deadline,
                "serve did not stop on SIGTERM:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn serve_survives_imap_and_smtp_outages_and_stops_on_sigterm() {
    let Some(servers) = Servers::start("serve_survives_imap_and_smtp_outages_and_stops_on_sigterm")
    else {
        return;
    };
    let s = servers.install();
    let mut serve = Serve::start(&s);
    let answered = |to: &str, n: usize| servers.sink().iter().filter(|m| m.to == to).count() >= n;

    send(&servers, BOB, "help", "b1@elsewhere.example");
    wait_until(20, "the first answer", || answered(BOB, 1));

    // Dovecot goes away: the daemon logs it and keeps running.
    servers.stop(Service::Dovecot);
    // Mail arriving meanwhile waits in the Maildir behind Dovecot.
    send(&servers, CAROL, "help", "c1@elsewhere.example");
    serve.wait_log("cannot read the inbox", 2);
    serve.assert_alive();
    assert!(!answered(CAROL, 1));
    // Back: the daemon catches up.
    servers.restart(Service::Dovecot);
    wait_until(30, "the answer to mail sent during the outage", || {
        answered(CAROL, 1)
    });
    serve.assert_alive();
    assert_eq!(servers.count("pbm", "INBOX"), 0);

    // SMTP goes away: the reply waits in the outbox, and goes once SMTP is back.
    servers.stop(Service::Smtp);
    let mut session = servers.session("pbm");
    session
        .append(
            "INBOX",
            &player_mail(BOB, "help chess", "", "b2@elsewhere.example"),
        )
        .finish()
        .unwrap();
    session.logout().unwrap();
    serve.wait_log("will retry", 1);
    assert_eq!(pending(&s), 1);
    servers.restart(Service::Smtp);
    wait_until(30, "the answer held back by the SMTP outage", || {
        answered(BOB, 2)
    });
    serve.assert_alive();

    let exit = serve.terminate();
    assert!(exit.success(), "{exit}\n{}", serve.log());
    let log = serve.log();
    assert!(log.contains("stopped"), "{log}");
    assert!(!log.contains("panicked"), "{log}");
    let sink = servers.sink();
    assert_eq!(sink.len(), 3, "{sink:#?}");
    assert!(by_message_id(&sink).values().all(|&n| n == 1), "{sink:#?}");
    assert_eq!(pending(&s), 0);
}
