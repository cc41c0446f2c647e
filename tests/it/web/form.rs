//! The move form: a move by the form plays and mails the players exactly
//! as the same move by mail does; a wrong password is refused, counted and
//! locks the account at the same threshold as by mail from an address not
//! on file; the password is never shown back.

use rusqlite::Connection;

use super::{Answer, Web};
use crate::common::Install;

const PASSWORD: &str = "hunter2x";

/// alice and bob, chess board 101 between them, alice's e4 played.
fn pair() -> Install {
    pair_with("")
}

/// [`pair`] with `web` added to the `[web]` section.
fn pair_with(web: &str) -> Install {
    let mut install = Install::with_config(&format!("[web]\nlisten = \"127.0.0.1:0\"\n{web}"));
    for p in ["alice", "bob"] {
        install.ok(&[
            "admin",
            "user",
            "add",
            p,
            PASSWORD,
            &format!("{p}@players.test"),
        ]);
    }
    install.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    install.send(
        "alice@players.test",
        &format!("chess move 101 alice {PASSWORD} e4"),
        "",
    );
    install.poll();
    install
}

fn post(web: &Web, path: &str, form: &str) -> Answer {
    web.request(&format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
        web.addr,
        form.len()
    ))
}

/// The outbox rows after row `after`, to the players' addresses, as
/// (recipient, subject, body) with the times of day blanked.
fn players_rows(install: &Install, after: i64) -> Vec<(String, String, String)> {
    let conn = Connection::open(install.path("var/db.sqlite")).unwrap();
    let mut stmt = conn
        .prepare("SELECT recipient, subject, body FROM outbox WHERE id > ?1 ORDER BY recipient, id")
        .unwrap();
    stmt.query_map([after], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get::<_, String>(2)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .filter(|(to, _, _): &(String, String, String)| to.ends_with("@players.test"))
    .map(|(to, subject, body)| (to, subject, blank_times(&body)))
    .collect()
}

/// `2026-11-28 07:50 UTC` and `2026-11-28` as `TIME`: two installs run
/// a moment apart.
fn blank_times(text: &str) -> String {
    text.split_inclusive(char::is_whitespace)
        .map(|w| {
            let t = w.trim_end_matches(|c: char| c.is_whitespace() || c == '.');
            let date = t.len() == 10 && t.chars().filter(|c| *c == '-').count() == 2;
            let time = t.len() == 5 && t.chars().nth(2) == Some(':');
            if date || time {
                w.replacen(t, "TIME", 1)
            } else {
                w.to_string()
            }
        })
        .collect()
}

fn last_outbox_id(install: &Install) -> i64 {
    let conn = Connection::open(install.path("var/db.sqlite")).unwrap();
    conn.query_row("SELECT COALESCE(MAX(id), 0) FROM outbox", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_move_by_the_form_mails_the_players_as_the_same_move_by_mail() {
    // By mail, from an address not on file (as the web is).
    let mut by_mail = pair();
    let before = last_outbox_id(&by_mail);
    by_mail.send(
        "somewhere@elsewhere.test",
        &format!("chess move 101 bob {PASSWORD} e5"),
        "my reply to e4",
    );
    by_mail.poll();
    let mailed = players_rows(&by_mail, before);

    let by_web = pair();
    let web = Web::start(&by_web);
    let page = web.get("/game/chess/board/101");
    assert!(
        page.body.contains("action=\"/game/chess/board/101/move\""),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("<option value=\"e5\">"),
        "the legal moves offered"
    );
    let before = last_outbox_id(&by_web);
    let answer = post(
        &web,
        "/game/chess/board/101/move",
        &format!("userid=bob&password={PASSWORD}&move=e5&comment=my+reply+to+e4"),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(
        answer.body.contains("e5 played on Chess Board 101"),
        "{}",
        answer.body
    );
    assert!(!answer.body.contains(PASSWORD), "{}", answer.body);
    let webbed = players_rows(&by_web, before);

    assert_eq!(mailed.len(), 2, "{mailed:#?}");
    assert_eq!(webbed, mailed);
    assert!(webbed
        .iter()
        .all(|(_, _, body)| body.contains("my reply to e4")));
    // Nothing is left queued to the web's own address.
    let conn = Connection::open(by_web.path("var/db.sqlite")).unwrap();
    let queued: i64 = conn
        .query_row(
            "SELECT count(*) FROM outbox WHERE recipient LIKE '%@web.invalid'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(queued, 0);
    // The board shows it.
    let board = web.get("/game/chess/board/101");
    assert!(board.body.contains(">e5</a>"), "{}", board.body);
}

/// How many wrong passwords for bob it takes before even the right one
/// is refused, by `attempt` (which answers whether it was refused as
/// locked), up to 12.
fn wrong_until_locked(mut attempt: impl FnMut(&str) -> String) -> usize {
    for n in 1..=12 {
        let answer = attempt("wrongpw");
        assert!(
            !answer.contains("wrongpw"),
            "the password shown back: {answer}"
        );
        if answer.contains("takes no password") {
            return n;
        }
    }
    panic!("never locked");
}

#[test]
fn wrong_passwords_by_the_form_lock_the_account_as_by_mail() {
    let mut by_mail = pair();
    let mut seq = 0;
    let by_mail_count = wrong_until_locked(|pw| {
        seq += 1;
        by_mail.send(
            "somewhere@elsewhere.test",
            &format!("chess move 101 bob {pw} e5"),
            "",
        );
        by_mail.poll();
        by_mail
            .take_outbox()
            .into_iter()
            .filter(|m| m.to == "somewhere@elsewhere.test")
            .map(|m| m.body)
            .collect::<Vec<_>>()
            .join("\n")
    });

    let by_web = pair();
    let web = Web::start(&by_web);
    let by_web_count = wrong_until_locked(|pw| {
        let answer = post(
            &web,
            "/game/chess/board/101/move",
            &format!("userid=bob&password={pw}&move=e5"),
        );
        assert_ne!(answer.status, 200, "{}", answer.body);
        assert_ne!(answer.status, 500, "{}", answer.body);
        answer.body
    });
    assert_eq!(by_web_count, by_mail_count);
    // Locked on the web: the right password is refused too, and the board
    // is as it was.
    let answer = post(
        &web,
        "/game/chess/board/101/move",
        &format!("userid=bob&password={PASSWORD}&move=e5"),
    );
    assert!(answer.body.contains("takes no password"), "{}", answer.body);
    assert!(!answer.body.contains(PASSWORD), "{}", answer.body);
    assert!(!web.get("/game/chess/board/101").body.contains(">e5</a>"));
    // The web's guesses never lock the owner's own mail.
    let mut by_web = by_web;
    by_web.send(
        "bob@players.test",
        &format!("chess move 101 bob {PASSWORD} e5"),
        "",
    );
    by_web.poll();
    assert!(web.get("/game/chess/board/101").body.contains(">e5</a>"));
}

/// `text` with its white space as single spaces (a mail's lines are
/// wrapped, a page's are not).
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The words of `text` from `start` to the end of `end`.
fn words_between(text: &str, start: &str, end: &str) -> String {
    let text = words(text);
    let at = text
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} in {text}"));
    let rest = &text[at..];
    let to = rest
        .find(end)
        .unwrap_or_else(|| panic!("{end:?} in {rest}"));
    rest[..to + end.len()].to_string()
}

/// The `move form processed` lines of a web log, in order.
fn form_log_lines(log: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|l| l.contains("move form processed"))
        .map(str::to_string)
        .collect()
}

#[test]
fn an_account_locked_by_its_own_addresses_is_locked_on_the_web_without_a_check() {
    let mut install = pair();
    // Wrong passwords from bob's own address lock bob (the owner's
    // bucket, not the one the web's wrong passwords count in).
    for n in 1..=5 {
        install.send(
            "bob@players.test",
            &format!("chess move 101 bob wrong{n} e5"),
            "",
        );
        install.poll();
    }
    install.take_outbox();
    install.send(
        "bob@players.test",
        &format!("chess move 101 bob {PASSWORD} e5"),
        "",
    );
    install.poll();
    let mailed = install
        .take_outbox()
        .into_iter()
        .filter(|m| m.to == "bob@players.test")
        .map(|m| m.body)
        .collect::<Vec<_>>()
        .join("\n");
    let sentence = words_between(
        &mailed,
        "bob takes no password until",
        "Send them again after that time.",
    );

    let log = install.path("web.log");
    let web = Web::start_logging(&install, &log);
    let answer = post(
        &web,
        "/game/chess/board/101/move",
        &format!("userid=bob&password={PASSWORD}&move=e5"),
    );
    assert_eq!(answer.status, 400, "{}", answer.body);
    let page = words(&super::unescape(&answer.body));
    assert!(page.contains(&sentence), "{sentence:?} in {page}");
    assert!(!answer.body.contains(PASSWORD), "{}", answer.body);
    assert!(!web.get("/game/chess/board/101").body.contains(">e5</a>"));
    // No argon2id check was made for it.
    let lines = form_log_lines(&log);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("argon2id=0"), "{}", lines[0]);
    // The same form for alice (not locked) makes its check and plays.
    let answer = post(
        &web,
        "/game/chess/board/101/move",
        &format!("userid=alice&password={PASSWORD}&move=resign"),
    );
    assert_ne!(answer.status, 500, "{}", answer.body);
    let lines = form_log_lines(&log);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].contains("argon2id=1"), "{}", lines[1]);
}

/// A form from the client `ip` (behind the proxy: its X-Forwarded-For).
fn post_from(web: &Web, ip: &str, form: &str) -> Answer {
    web.request(&format!(
        "POST /game/chess/board/101/move HTTP/1.1\r\nHost: {}\r\nX-Forwarded-For: {ip}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
        web.addr,
        form.len()
    ))
}

#[test]
fn wrong_passwords_from_one_web_client_lock_that_client_and_no_other() {
    let mut install = pair_with("behind_proxy = true\n");
    let log = install.path("web.log");
    let web = Web::start_logging(&install, &log);
    let guesser = "192.0.2.7";
    // Spread over accounts (and a userid that does not exist): no
    // account's count reaches the threshold, the client's does.
    let userids = ["alice", "bob", "nosuchuser", "alice", "bob"];
    for (n, userid) in userids.iter().enumerate() {
        let answer = post_from(
            &web,
            guesser,
            &format!("userid={userid}&password=wrong{n}&move=e5"),
        );
        assert_eq!(answer.status, 400, "{}", answer.body);
        assert!(
            !answer.body.contains("takes no password"),
            "locked too soon, at {n}: {}",
            answer.body
        );
    }
    // Now even bob's right password is refused for that client, unchecked.
    let answer = post_from(
        &web,
        guesser,
        &format!("userid=bob&password={PASSWORD}&move=e5"),
    );
    assert_eq!(answer.status, 400, "{}", answer.body);
    let page = words(&super::unescape(&answer.body));
    assert!(
        page.contains("This form takes no password from your address until"),
        "{page}"
    );
    assert!(!answer.body.contains(PASSWORD), "{}", answer.body);
    let lines = form_log_lines(&log);
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert!(lines[5].contains("argon2id=0"), "{}", lines[5]);
    assert!(!web.get("/game/chess/board/101").body.contains(">e5</a>"));
    // Another client is not locked: bob plays from there.
    let answer = post_from(
        &web,
        "192.0.2.8",
        &format!("userid=bob&password={PASSWORD}&move=e5"),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(web.get("/game/chess/board/101").body.contains(">e5</a>"));
    // Nor is the owners' mail: alice plays by mail.
    install.send(
        "alice@players.test",
        &format!("chess move 101 alice {PASSWORD} Nf3"),
        "",
    );
    install.poll();
    assert!(web.get("/game/chess/board/101").body.contains(">Nf3</a>"));
    // The guessing client is still locked, whatever account it names.
    let answer = post_from(
        &web,
        guesser,
        &format!("userid=alice&password={PASSWORD}&move=Nc6"),
    );
    let page = words(&super::unescape(&answer.body));
    assert!(
        page.contains("This form takes no password from your address"),
        "{page}"
    );
}

#[test]
fn a_form_that_would_add_words_to_the_command_is_refused_before_it_runs() {
    let install = pair();
    let web = Web::start(&install);
    for form in [
        format!("userid=bob&password={PASSWORD}&move=e5+chess+resign+101+bob+{PASSWORD}"),
        format!("userid=bob+x&password={PASSWORD}&move=e5"),
        format!("userid=bob&password={PASSWORD}&move=e5%0Achess+resign"),
        "userid=bob&move=e5".to_string(),
    ] {
        let answer = post(&web, "/game/chess/board/101/move", &form);
        assert_eq!(answer.status, 400, "{form}: {}", answer.body);
        assert!(!answer.body.contains(PASSWORD), "{}", answer.body);
    }
    assert!(!web.get("/game/chess/board/101").body.contains(">e5</a>"));
    let conn = Connection::open(install.path("var/db.sqlite")).unwrap();
    let status: String = conn
        .query_row(
            "SELECT status FROM boards WHERE game = 'chess' AND board = 101",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(status, "active");
}

#[test]
fn a_player_resigns_by_the_form_as_by_the_mail_s_move() {
    let install = pair();
    let web = Web::start(&install);
    // Both players must have moved for a resignation to count.
    let answer = post(
        &web,
        "/game/chess/board/101/move",
        &format!("userid=bob&password={PASSWORD}&move=e5"),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    let page = web.get("/game/chess/board/101");
    assert!(
        page.body.contains("<option value=\"resign\">"),
        "{}",
        page.body
    );
    let answer = post(
        &web,
        "/game/chess/board/101/move",
        &format!("userid=alice&password={PASSWORD}&move=resign"),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    let board = web.get("/game/chess/board/101");
    assert!(board.body.contains("Game won by bob"), "{}", board.body);
    assert!(!board.body.contains("action=\"/game/chess/board/101/move\""));
}
