//! Reply tokens stay with their player: copies, second mailboxes, Reply-To,
//! From headers, tokens ended by noreply or a new password or address, and
//! nothing stored that replays one.

use super::*;

#[test]
fn a_copy_for_a_stranger_who_challenged_carries_no_token_and_plays_nothing() {
    let mut s = signed_up("");
    // A stranger's challenge starts no board: the stranger gets only the
    // refusal, which carries no token.
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
