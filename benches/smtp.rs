//! Sending speed: `cargo bench --bench smtp`.
//!
//! Starts a local aiosmtpd (`python3 -m aiosmtpd`, its `Sink` handler,
//! which takes every mail and keeps none) on a loopback port and sends the
//! same board mails to it, side by side:
//!
//! - Python's `smtplib`, one connection (`python3 -c`), the reference;
//! - our `SmtpOutbox` (TCP_NODELAY, one connection for the pass, pipelining
//!   where offered; aiosmtpd does not offer it), connecting included;
//! - lettre 0.11's `SmtpTransport` as a sender would use it (one
//!   connection per mail, no TCP_NODELAY), on a tenth of the mails;
//! - our `SendmailOutbox` running a stub `sendmail` (`cat >/dev/null`), one
//!   process per mail, on a tenth of the mails.
//!
//! Each is run three times; the best run counts (the machine is shared).
//! Prints mails per second and our rate over smtplib's (target: >= 0.5).
//! Without aiosmtpd (Debian: python3-aiosmtpd) it says so and exits.
//!
//! Quick mode (`PBMCHESS_BENCH_QUICK=1`, or without `--bench`): 50 mails.

mod support;

use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use lettre::Message;
use pbmchess::mail::{build_message, Outgoing, Sender, SendmailOutbox, SmtpConfig, SmtpOutbox};
use support::quick;

/// The Python with aiosmtpd, if any.
fn python() -> Option<PathBuf> {
    ["/usr/bin/python3", "python3"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| {
            Command::new(p)
                .args(["-c", "import aiosmtpd"])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// aiosmtpd's sink on `port`, killed on drop.
struct Relay(Child);

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_relay(python: &Path, port: u16) -> Relay {
    let child = Command::new(python)
        .args(["-m", "aiosmtpd", "-n", "-c", "aiosmtpd.handlers.Sink", "-l"])
        .arg(format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start aiosmtpd");
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "aiosmtpd did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Relay(child)
}

/// A board mail as the server sends it (about 1.5 KB).
fn board_mail(i: usize) -> Message {
    let mut body = String::from("It is your move in Chess Board 101.\n\n");
    for rank in (1..=8).rev() {
        body.push_str(&format!("  {rank} | r n b q k b n r |\n"));
    }
    body.push_str("      a b c d e f g h\n\n");
    for m in 1..=20 {
        body.push_str(&format!("{m:>3}. e2-e4    e7-e5\n"));
    }
    let out = Outgoing {
        to: format!("p{i}@bench.test"),
        subject: "Chess Board 101 p0 p1".into(),
        body,
        in_reply_to: Some(format!("m{i}@players.bench.test")),
    };
    build_message(
        &out,
        i as i64 + 1,
        b"bench key",
        "Bench PBM <pbm@bench.test>",
        SystemTime::now(),
    )
    .expect("message")
}

const SMTPLIB: &str = r#"
import smtplib, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
data = sys.stdin.buffer.read()
s = smtplib.SMTP("127.0.0.1", port)
s.ehlo("bench.test")
t = time.perf_counter()
for i in range(n):
    s.sendmail("pbm@bench.test", ["p%d@bench.test" % i], data)
elapsed = time.perf_counter() - t
s.quit()
print(elapsed)
"#;

/// smtplib's time for `n` mails of `data` on one connection (connecting
/// not counted).
fn smtplib(python: &Path, port: u16, n: usize, data: &[u8]) -> f64 {
    let mut child = Command::new(python)
        .args(["-c", SMTPLIB, &port.to_string(), &n.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    child.stdin.take().unwrap().write_all(data).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "smtplib run failed");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("seconds")
}

fn ours(port: u16, mails: &[Message]) -> f64 {
    let cfg = SmtpConfig {
        url: None,
        host: Some("127.0.0.1".into()),
        port: Some(port),
        tls: pbmchess::mail::SmtpTls::None,
        username: None,
        password: None,
        password_file: None,
        tls_ca_file: None,
        timeout_seconds: 30,
        hello_name: Some("bench.test".into()),
    };
    let mut outbox = SmtpOutbox::new(&cfg).expect("outbox");
    let t = Instant::now();
    for m in mails {
        outbox.send(m).expect("sent");
    }
    outbox.end_pass();
    t.elapsed().as_secs_f64()
}

fn lettre_per_mail(port: u16, mails: &[Message]) -> f64 {
    use lettre::Transport;
    let transport = lettre::SmtpTransport::builder_dangerous("127.0.0.1")
        .port(port)
        .build();
    let t = Instant::now();
    for m in mails {
        transport.send(m).expect("sent");
    }
    t.elapsed().as_secs_f64()
}

fn sendmail(dir: &Path, mails: &[Message]) -> f64 {
    use std::os::unix::fs::PermissionsExt;
    let stub = dir.join("sendmail");
    std::fs::write(&stub, "#!/bin/sh\ncat >/dev/null\n").unwrap();
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut outbox = SendmailOutbox::new(&stub);
    let t = Instant::now();
    for m in mails {
        outbox.send(m).expect("sent");
    }
    t.elapsed().as_secs_f64()
}

fn best(mut run: impl FnMut() -> f64) -> f64 {
    (0..3).map(|_| run()).fold(f64::INFINITY, f64::min)
}

fn main() {
    let Some(python) = python() else {
        println!("smtp bench skipped: python3 with aiosmtpd is missing (apt-get install python3-aiosmtpd)");
        return;
    };
    let n = if quick() { 50 } else { 1000 };
    let port = free_port();
    let _relay = start_relay(&python, port);
    let mails: Vec<Message> = (0..n).map(board_mail).collect();
    let data = mails[0].formatted();
    let rate = |count: usize, secs: f64| count as f64 / secs;

    let py = best(|| smtplib(&python, port, n, &data));
    let us = best(|| ours(port, &mails));
    let few = &mails[..(n / 10).max(5)];
    let old = best(|| lettre_per_mail(port, few));
    let tmp = tempfile::tempdir().unwrap();
    let sm = best(|| sendmail(tmp.path(), few));

    println!(
        "smtp: {n} board mails of {} bytes to aiosmtpd on loopback (best of 3)",
        data.len()
    );
    println!(
        "  smtplib, one connection:          {:>8.0} mails/s ({:.3} s)",
        rate(n, py),
        py
    );
    println!(
        "  pbmchess SmtpOutbox:              {:>8.0} mails/s ({:.3} s, connecting included)",
        rate(n, us),
        us
    );
    println!(
        "  lettre, a connection per mail:    {:>8.0} mails/s ({} mails, {:.1} ms each)",
        rate(few.len(), old),
        few.len(),
        old / few.len() as f64 * 1e3
    );
    println!(
        "  sendmail stub, a process per mail:{:>8.0} mails/s ({} mails, {:.1} ms each)",
        rate(few.len(), sm),
        few.len(),
        sm / few.len() as f64 * 1e3
    );
    println!(
        "ratio pbmchess / smtplib = {:.2} (target >= 0.5)",
        rate(n, us) / rate(n, py)
    );
}
