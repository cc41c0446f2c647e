//! Only a player acts for a player: the attacks of the threat model,
//! each sent as the mail that carried it through the real binary (`poll`,
//! Maildir in and out), get nothing played, nothing mailed, nothing leaked.
//! Header hygiene: ignored mail is cheap, References bounded.

use crate::common;

use common::{only_one, to, Install, SentMail, SERVER_ADDRESS};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";
const BOB2: &str = "bob@second.org";
const MALLORY: &str = "mallory@evil.example";
const ALICE_PW: &str = "Sesame-A1";
const BOB_PW: &str = "Sesame-B2";

fn signed_up(extra: &str) -> Install {
    let mut s = Install::with_config(extra);
    s.send(ALICE, &format!("signup alice {ALICE_PW}"), "");
    s.send(BOB, &format!("signup bob {BOB_PW}"), "");
    s.poll();
    s.take_outbox();
    s
}

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

fn deliver(s: &mut Install, raw: &str) -> Vec<SentMail> {
    s.deliver_raw(raw);
    s.poll();
    s.take_outbox()
}

fn mid(m: &SentMail) -> String {
    m.header("Message-ID").expect("a Message-ID")
}

/// A reply to `parent` (its Message-ID in In-Reply-To) with `text` on top.
fn reply(from: &str, parent: &str, id: &str, extra_headers: &str, text: &str) -> String {
    format!(
        "From: {from}\r\nTo: {SERVER_ADDRESS}\r\nSubject: Re: Chess Board 101 alice\r\n\
         Message-ID: <{id}>\r\nIn-Reply-To: {parent}\r\nReferences: {parent}\r\n\
         Date: Mon, 23 Nov 2026 10:05:00 +0000\r\nMIME-Version: 1.0\r\n{extra_headers}\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n"
    )
}

/// Board 101 as `show` tells it to alice.
fn board_now(s: &mut Install) -> String {
    let mails = round(s, ALICE, "chess show 101", "");
    only_one(&mails, ALICE).body.clone()
}

fn nothing_played(s: &mut Install) {
    let board = board_now(s);
    assert!(board.starts_with("It is alice's turn."), "{board}");
    assert!(!board.contains("1. e4"), "{board}");
}

/// The database file of an installation.
fn db(s: &Install) -> rusqlite::Connection {
    rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap()
}

#[test]
fn a_copy_for_a_stranger_who_challenged_carries_no_token_and_plays_nothing() {
    let mut s = signed_up("");
    // A stranger's challenge starts no board (issue #37): the stranger
    // gets only the refusal, which carries no token.
    let mails = round(&mut s, MALLORY, "chess challenge alice bob", "");
    let copy = only_one(&mails, MALLORY).clone();
    assert!(to(&mails, ALICE).is_empty(), "{mails:#?}");
    assert!(!mid(&copy).starts_with("<t."), "{}", copy.raw);
    assert!(!copy.body.contains("To play, reply"), "{}", copy.body);
    assert!(copy.header("In-Reply-To").is_some(), "{}", copy.raw);

    // The attack: a reply "from" alice naming the copy's Message-ID.
    let mails = deliver(
        &mut s,
        &reply(ALICE, &mid(&copy), "x1@evil.example", "", "e4"),
    );
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    assert!(
        to(&mails, ALICE)
            .iter()
            .all(|m| m.subject.ends_with("Error")),
        "{mails:#?}"
    );
    let mails = deliver(
        &mut s,
        &reply(ALICE, &mid(&copy), "x2@evil.example", "", "resign#1"),
    );
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    let boards: i64 = db(&s)
        .query_row("SELECT count(*) FROM boards", [], |r| r.get(0))
        .unwrap();
    assert_eq!(boards, 0);
}

#[test]
fn an_opponent_moving_from_a_second_mailbox_gets_no_token_of_the_other_player() {
    let mut s = signed_up("");
    round(&mut s, ALICE, "chess challenge alice bob", "");
    round(
        &mut s,
        ALICE,
        &format!("chess move 101 alice {ALICE_PW} e4"),
        "",
    );
    // bob moves with his password from an address not on file.
    let mails = round(&mut s, BOB2, &format!("chess move 101 bob {BOB_PW} e5"), "");
    let copy = only_one(&mails, BOB2);
    let to_alice = only_one(&mails, ALICE);
    assert!(mid(to_alice).starts_with("<t."), "{}", to_alice.raw);
    assert!(!mid(copy).starts_with("<t."), "{}", copy.raw);
    assert!(!copy.body.contains("To play, reply"), "{}", copy.body);
    // alice's board mail does not tell her bob's mail domain.
    assert_eq!(to_alice.header("In-Reply-To"), None, "{}", to_alice.raw);
    assert!(!to_alice.raw.contains("players.test"), "{}", to_alice.raw);
    // Every board mail that carries a token goes to its player's address.
    let conn = db(&s);
    let n: i64 = conn
        .query_row(
            "SELECT count(*) FROM outbox WHERE message_id LIKE 't.%' AND recipient NOT IN (?1, ?2)",
            [ALICE, BOB],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn reply_to_never_names_who_is_asking_nor_where_answers_go() {
    let mut s = signed_up("");
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();
    // A genuine mallory with alice's address in Reply-To and her token.
    let raw = reply(
        MALLORY,
        &mid(&to_alice),
        "r1@evil.example",
        &format!("Reply-To: {ALICE}\r\n"),
        "e4",
    );
    let mails = deliver(&mut s, &raw);
    assert!(to(&mails, ALICE).is_empty(), "{mails:#?}");
    assert!(
        only_one(&mails, MALLORY)
            .body
            .starts_with(&format!("Your reply comes from {MALLORY}")),
        "{mails:#?}"
    );
    nothing_played(&mut s);
    // A command with Reply-To: the answer goes to From, not to the victim.
    let raw = common::raw_mail(MALLORY, "help", "", "r2@evil.example").replacen(
        "\r\n",
        &format!("\r\nReply-To: {BOB}\r\n"),
        1,
    );
    let mails = deliver(&mut s, &raw);
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    only_one(&mails, MALLORY);
}

#[test]
fn two_from_headers_or_a_from_of_several_addresses_are_never_answered() {
    let mut s = signed_up("");
    round(&mut s, ALICE, "chess challenge alice bob", "");
    for (i, from) in [
        format!("From: {ALICE}\r\nFrom: {MALLORY}"),
        format!("From: {ALICE}, {MALLORY}"),
    ]
    .iter()
    .enumerate()
    {
        let raw = format!(
            "{from}\r\nTo: {SERVER_ADDRESS}\r\nSubject: chess move 101 alice {ALICE_PW} e4\r\n\
             Message-ID: <two{i}@evil.example>\r\n\r\nx\r\n"
        );
        let mails = deliver(&mut s, &raw);
        assert!(mails.is_empty(), "{mails:#?}");
    }
    nothing_played(&mut s);
}

#[test]
fn noreply_a_new_password_or_address_ends_every_token_the_player_holds() {
    type Action = fn(&mut Install) -> Vec<SentMail>;
    let actions: [(&str, Action); 4] = [
        ("noreply", |s| {
            round(s, ALICE, &format!("chess set alice {ALICE_PW} noreply"), "")
        }),
        ("password", |s| {
            round(
                s,
                ALICE,
                &format!("change password alice {ALICE_PW} Other-9"),
                "",
            )
        }),
        ("address", |s| {
            round(
                s,
                ALICE,
                &format!("change address alice {ALICE_PW} {ALICE}"),
                "",
            )
        }),
        ("signoff", |s| {
            round(s, ALICE, &format!("signoff alice {ALICE_PW}"), "")
        }),
    ];
    for (what, action) in actions {
        let mut s = signed_up("");
        let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
        let to_alice = only_one(&mails, ALICE).clone();
        // A second board: tokens end on every board.
        let mails = round(&mut s, BOB, "chess challenge bob alice", "");
        let second = only_one(&mails, ALICE).clone();
        action(&mut s);
        for (i, m) in [&to_alice, &second].iter().enumerate() {
            let mails = deliver(
                &mut s,
                &reply(
                    ALICE,
                    &mid(m),
                    &format!("{what}{i}@a.example"),
                    "",
                    "propose",
                ),
            );
            assert!(to(&mails, BOB).is_empty(), "{what}: {mails:#?}");
            let answer = only_one(&mails, ALICE);
            assert!(
                answer.body.contains("no longer takes replies"),
                "{what}: {}",
                answer.body
            );
        }
        let n: i64 = db(&s)
            .query_row(
                "SELECT count(*) FROM reply_tokens WHERE userid = 'alice' AND expired_at IS NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 0, "{what}");
    }
}

/// Every string in every column of every row of the outbox and the reply
/// tokens of a database.
fn all_text(conn: &rusqlite::Connection) -> Vec<String> {
    let mut out = Vec::new();
    for table in ["outbox", "reply_tokens", "processed_mail", "addresses"] {
        let Ok(mut stmt) = conn.prepare(&format!("SELECT * FROM {table}")) else {
            continue;
        };
        let n = stmt.column_count();
        let rows: Vec<Vec<String>> = stmt
            .query_map([], |r| {
                Ok((0..n)
                    .filter_map(|i| r.get::<_, String>(i).ok())
                    .collect::<Vec<_>>())
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        out.extend(rows.into_iter().flatten());
    }
    out
}

#[test]
fn after_sending_nothing_in_the_database_a_backup_or_the_log_replays_a_token_or_a_code() {
    let mut s = Install::confirming("");
    s.send(ALICE, &format!("signup alice {ALICE_PW}"), "");
    s.send(BOB, &format!("signup bob {BOB_PW} {BOB2}"), "");
    s.send(MALLORY, "signup carol Sesame-C3", "");
    let out = s.run(&["poll"]);
    assert!(out.status.success());
    let welcome: Vec<SentMail> = s.take_outbox();
    // alice and bob confirm their own addresses (board mails reach only
    // confirmed ones); bob's second address and carol's stay unconfirmed.
    for m in welcome
        .iter()
        .filter(|m| m.subject.starts_with("confirm address") && (m.to == ALICE || m.to == BOB))
    {
        round(&mut s, &m.to, &m.subject, "");
    }
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();
    let token = mid(&to_alice);
    let token = token
        .trim_start_matches("<t.")
        .split('@')
        .next()
        .unwrap()
        .to_string();
    let codes: Vec<String> = welcome
        .iter()
        .filter(|m| m.subject.starts_with("confirm address"))
        .map(|m| m.subject.rsplit(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(codes.len(), 3, "{welcome:#?}");

    // The live database and a backup of it hold neither.
    let backup = s.path("backup.sqlite");
    db(&s)
        .execute("VACUUM INTO ?1", [backup.to_str().unwrap()])
        .unwrap();
    let bytes = std::fs::read(&backup).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    for secret in codes.iter().chain([&token]) {
        assert!(!text.contains(secret.as_str()), "{secret} in the backup");
    }
    let conn = rusqlite::Connection::open(&backup).unwrap();
    let stored = all_text(&conn);
    assert!(stored.iter().any(|v| v.contains("******")), "{stored:#?}");

    // Whatever the backup holds, replayed, is accepted as nothing.
    let mut stmt = conn
        .prepare("SELECT message_id, subject FROM outbox WHERE recipient = ?1")
        .unwrap();
    let rows: Vec<(Option<String>, String)> = stmt
        .query_map([ALICE], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let ids: Vec<String> = rows.iter().filter_map(|(id, _)| id.clone()).collect();
    assert!(!ids.is_empty(), "{rows:#?}");
    for (i, id) in ids.iter().enumerate() {
        let mails = deliver(
            &mut s,
            &reply(
                ALICE,
                &format!("<{id}>"),
                &format!("b{i}@a.example"),
                "",
                "e4",
            ),
        );
        assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    }
    for (i, (_, subject)) in rows.iter().enumerate() {
        if subject.starts_with("confirm address") {
            let mails = round(&mut s, ALICE, subject, &format!("{i}"));
            assert!(
                only_one(&mails, ALICE).subject.contains("Error"),
                "{subject}: {mails:#?}"
            );
        }
    }
    nothing_played(&mut s);

    // No log line of a sent mail shows a code.
    let mut s = Install::confirming("");
    s.send(MALLORY, "signup carol Sesame-C3", "");
    let out = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("poll")
        .env("RUST_LOG", "info")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    let sent = s.take_outbox();
    let code = sent[0].subject.rsplit(' ').next().unwrap().to_string();
    assert!(log.contains("mail sent"), "{log}");
    assert!(!log.contains(&code), "{code} in the log:\n{log}");
}

const AUTHSERV: &str = "[security]\nauthserv_id = \"mx.games.test\"\n";

#[test]
fn with_authserv_id_a_reply_needs_an_authenticated_from_and_the_player_is_told_once() {
    let mut s = signed_up(AUTHSERV);
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    // The stranger's challenge was refused; alice's own (password-less
    // too) needs authentication as well: send it authenticated.
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    assert!(
        only_one(&mails, ALICE).body.contains("could not confirm"),
        "{mails:#?}"
    );
    let pass = "Authentication-Results: mx.games.test; dmarc=pass header.from=a.example\r\n";
    let raw = common::raw_mail(ALICE, "chess challenge alice bob", "", "c1@a.example").replacen(
        "\r\n",
        &format!("\r\n{pass}"),
        1,
    );
    let mails = deliver(&mut s, &raw);
    let to_alice = only_one(&mails, ALICE).clone();
    assert!(mid(&to_alice).starts_with("<t."), "{}", to_alice.raw);

    // Forged: no header, another host's pass, or our host's pass below
    // our host's fail (only the topmost counts).
    let forged = [
        String::new(),
        "Authentication-Results: evil.example; dmarc=pass header.from=a.example\r\n".into(),
        "Authentication-Results: mx.games.test; dmarc=fail header.from=a.example\r\n\
         Authentication-Results: mx.games.test; dmarc=pass header.from=a.example\r\n"
            .into(),
        "Authentication-Results: mx.games.test; dkim=pass header.d=evil.example\r\n".into(),
    ];
    for (i, headers) in forged.iter().enumerate() {
        let mails = deliver(
            &mut s,
            &reply(
                ALICE,
                &mid(&to_alice),
                &format!("f{i}@evil.example"),
                headers,
                "e4\r\n\r\nSECRET-TEXT of the attacker",
            ),
        );
        assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
        if i == 0 {
            // Told once, without the attacker's text.
            let notice = only_one(&mails, ALICE);
            assert_eq!(notice.subject, "Reply not played");
            assert!(notice.raw.lines().all(|l| l.len() <= 78), "{}", notice.raw);
            assert!(!notice.raw.contains("SECRET-TEXT"), "{}", notice.raw);
            assert!(!notice.body.contains("e4"), "{}", notice.body);
        } else {
            assert!(mails.is_empty(), "told once a day: {mails:#?}");
        }
    }
    let board = board_now_authenticated(&mut s, pass);
    assert!(!board.contains("1. e4"), "{board}");
    // Nothing above the quote, unauthenticated: still not a word back.
    let mails = deliver(
        &mut s,
        &reply(
            ALICE,
            &mid(&to_alice),
            "f9@evil.example",
            "",
            "> quoted only",
        ),
    );
    assert!(mails.is_empty(), "{mails:#?}");
    // A whole command on the first line runs as that command, as ever.
    let mails = deliver(
        &mut s,
        &reply(ALICE, &mid(&to_alice), "w1@a.example", "", "chess show 101"),
    );
    assert!(
        only_one(&mails, ALICE)
            .body
            .starts_with("It is alice's turn."),
        "{mails:#?}"
    );

    // DKIM alone, even aligned, authenticates nothing (see `mail::auth`).
    let dkim =
        "Authentication-Results: mx.games.test; dkim=pass header.d=a.example header.s=s1\r\n";
    let mails = deliver(
        &mut s,
        &reply(ALICE, &mid(&to_alice), "dk1@a.example", dkim, "e4"),
    );
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    // Authenticated by our host's DMARC (another host's header aside): played.
    let ok = "Authentication-Results: mx.games.test; dkim=pass header.d=a.example header.s=s1; \
              dmarc=pass (policy=none) header.from=a.example\r\n\
              Authentication-Results: evil.example; dmarc=fail\r\n";
    let mails = deliver(
        &mut s,
        &reply(ALICE, &mid(&to_alice), "ok1@a.example", ok, "e4"),
    );
    assert!(only_one(&mails, BOB).body.contains("1. e4"), "{mails:#?}");
}

fn board_now_authenticated(s: &mut Install, header: &str) -> String {
    let raw = common::raw_mail(ALICE, "chess show 101", "", "show@a.example").replacen(
        "\r\n",
        &format!("\r\n{header}"),
        1,
    );
    let mails = deliver(s, &raw);
    only_one(&mails, ALICE).body.clone()
}

#[test]
fn with_authserv_id_commands_with_a_password_still_run_unauthenticated() {
    let mut s = signed_up(AUTHSERV);
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess set alice {ALICE_PW} small"),
        "",
    );
    assert!(
        !only_one(&mails, ALICE).subject.contains("Error"),
        "{mails:#?}"
    );
}

#[test]
fn every_mail_carries_x_loop_and_an_error_for_an_error_is_never_sent() {
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
