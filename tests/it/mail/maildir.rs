//! The default local setup end to end, through the public API the daemon
//! uses: config -> open_inbox / open_sender -> fetch -> parse_envelope ->
//! (server) -> build_message -> send -> mark_done.

use std::time::{Duration, SystemTime};

use pbmchess::mail::{
    build_message, open_inbox, open_sender, parse_envelope, Done, InboxConfig, OutboxConfig,
    Outgoing,
};

const SERVER: &str = "pbm@chess.example";

#[derive(serde::Deserialize)]
struct App {
    inbox: InboxConfig,
    outbox: OutboxConfig,
}

fn deliver(dir: &std::path::Path, name: &str, raw: &str) {
    std::fs::write(dir.join("new").join(name), raw.replace('\n', "\r\n")).unwrap();
}

#[test]
fn maildir_round_trip_with_loop_protection() {
    let tmp = tempfile::tempdir().unwrap();
    let toml_text = format!(
        "[inbox]\nkind = \"maildir\"\npath = \"{0}/in\"\n[outbox]\nkind = \"maildir\"\npath = \"{0}/out\"\n",
        tmp.path().display()
    );
    let app: App = toml::from_str(&toml_text).unwrap();
    let mut inbox = open_inbox(&app.inbox).unwrap();
    let mut sender = open_sender(&app.outbox).unwrap();
    let inbox_dir = tmp.path().join("in");

    deliver(
        &inbox_dir,
        "1795300000.M1P1.host",
        "From: Alice <alice@example.org>\nSubject: chess move 101 alice pw e4\nMessage-ID: <m1@example.org>\n\nYour move.\n-- \nAlice\n",
    );
    deliver(
        &inbox_dir,
        "1795300001.M1P1.host",
        "From: MAILER-DAEMON@mx.example.org\nSubject: Undelivered Mail Returned to Sender\nReturn-Path: <>\n\nbounce\n",
    );

    let batch = inbox.fetch(50).unwrap();
    assert_eq!(batch.len(), 2);
    let own = vec![SERVER.to_string()];
    let mut row_id = 0;
    for msg in &batch {
        let env = parse_envelope(&msg.raw, &own);
        if env.never_answer.is_some() {
            inbox.mark_done(msg, Done::Ignored).unwrap();
            continue;
        }
        assert_eq!(env.comment, "Your move.");
        row_id += 1;
        let reply = Outgoing {
            to: env.sender.clone().unwrap(),
            subject: "Chess Board 101 bob **".into(),
            body: format!("It is bob's turn.\n\n{}\n", env.comment),
            in_reply_to: Some(env.message_id.clone()),
        };
        let created = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_300_002);
        let mail = build_message(
            &reply,
            row_id,
            b"key",
            "PBM Chess <pbm@chess.example>",
            created,
        )
        .unwrap();
        sender.send(&mail).unwrap();
        inbox.mark_done(msg, Done::Processed).unwrap();
    }
    assert!(inbox.fetch(50).unwrap().is_empty());

    let cur: Vec<String> = std::fs::read_dir(inbox_dir.join("cur"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(
        cur.contains(&"1795300000.M1P1.host:2,S".to_string()),
        "{cur:?}"
    );
    assert!(
        cur.contains(&"1795300001.M1P1.host:2,FS".to_string()),
        "{cur:?}"
    );

    let sent: Vec<_> = std::fs::read_dir(tmp.path().join("out/new"))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(sent.len(), 1, "only the player is answered");
    let text = String::from_utf8(sent[0].clone()).unwrap();
    assert!(text.contains("To: alice@example.org\r\n"), "{text}");
    assert!(text.contains("In-Reply-To: <m1@example.org>\r\n"), "{text}");
    // Our own reply, delivered back to us, is never answered.
    assert!(parse_envelope(&sent[0], &own).never_answer.is_some());
}
