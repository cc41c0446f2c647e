//! Trust and consent: what one person can make the server do to others and
//! to accounts. Each attack is replayed with the mail (or the admin CLI
//! call) that carried it, against the real binary.

use crate::common;

use common::{joined, only_one, to, Install, SentMail};

const ALICE: &str = "alice@players.org";
const BOB: &str = "bob@players.org";
const CAROL: &str = "carol@players.org";
const DAVE: &str = "dave@players.org";
const MALLORY: &str = "mallory@evil.org";

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

/// The code in a mail's Subject (`confirm address alice K7Q2P9`).
fn code_of(mail: &SentMail) -> String {
    let words: Vec<&str> = mail.subject.split_whitespace().collect();
    assert_eq!(&words[..2], ["confirm", "address"], "{}", mail.subject);
    words[3].to_string()
}

/// `userid` signs up from `addr` and confirms it.
fn confirmed(s: &mut Install, addr: &str, userid: &str, pw: &str) {
    let mails = round(s, addr, &format!("signup {userid} {pw}"), "");
    let code = code_of(only_one(&mails, addr));
    let mails = round(s, addr, &format!("confirm address {userid} {code}"), "");
    assert!(
        only_one(&mails, addr).body.contains("is confirmed"),
        "{mails:#?}"
    );
}

/// alice, bob, carol and dave, confirmed, on a server that confirms.
fn four_players(extra: &str) -> Install {
    let mut s = Install::confirming(extra);
    confirmed(&mut s, ALICE, "alice", "apw");
    confirmed(&mut s, BOB, "bob", "bpw");
    confirmed(&mut s, CAROL, "carol", "cpw");
    confirmed(&mut s, DAVE, "dave", "dpw");
    s
}

fn boards(s: &Install) -> i64 {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    conn.query_row("SELECT count(*) FROM boards", [], |r| r.get(0))
        .unwrap()
}

// ------------------------------------------- 1. challenges for two others

#[test]
fn a_strangers_multiple_of_challenges_starts_no_board() {
    let mut s = four_players("");
    let players = ["alice", "bob", "carol", "dave"];
    let mut body = String::new();
    for i in 0..50 {
        let (a, b) = (players[i % 4], players[(i + 1 + i / 4) % 4]);
        if a != b {
            body.push_str(&format!("chess challenge {a} {b}\n"));
        }
    }
    let mails = round(&mut s, MALLORY, "multiple", &body);
    for addr in [ALICE, BOB, CAROL, DAVE] {
        assert!(to(&mails, addr).is_empty(), "{mails:#?}");
    }
    assert_eq!(boards(&s), 0);
    let answer = only_one(&mails, MALLORY);
    assert!(
        joined(&answer.body).contains("A challenge comes from one of its two players"),
        "{}",
        answer.body
    );
    // A player's own address may still challenge for them.
    let mails = round(&mut s, ALICE, "chess challenge bob alice", "");
    assert_eq!(to(&mails, BOB).len(), 1, "{mails:#?}");
    assert_eq!(boards(&s), 1);
}

#[test]
fn a_challenge_from_one_player_for_two_others_is_refused() {
    let mut s = four_players("");
    let mails = round(
        &mut s,
        CAROL,
        "chess challenge alice bob --nagtime=1 --forfeittime=60",
        "",
    );
    assert!(to(&mails, ALICE).is_empty(), "{mails:#?}");
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    assert_eq!(boards(&s), 0);
}

#[test]
fn challenges_spend_the_challengers_allowance_not_the_opponents() {
    let mut s = four_players("");
    let body = "chess challenge bob alice --nagtime=1 --forfeittime=60\n".repeat(20);
    let mails = round(&mut s, BOB, "multiple", &body);
    // One opponent gets at most three new boards a day from one player.
    assert_eq!(to(&mails, ALICE).len(), 3, "{mails:#?}");
    assert!(
        joined(&only_one(&mails, BOB).body)
            .contains("bob has started 3 boards against alice in the last 24 hours"),
        "{mails:#?}"
    );
    // alice's own allowance is whole: her challenge and her seek run.
    let mails = round(&mut s, ALICE, "chess challenge alice carol", "");
    assert_eq!(to(&mails, CAROL).len(), 1, "{mails:#?}");
    round(&mut s, DAVE, "chess seek dave dpw", "");
    let mails = round(&mut s, ALICE, "chess seek alice apw", "");
    assert_eq!(to(&mails, DAVE).len(), 1, "{mails:#?}");
    assert_eq!(boards(&s), 5);
}

// ------------------------------------------- 2. change address fans out

/// Mails to addresses of `domain`.
fn to_domain<'a>(mails: &'a [SentMail], domain: &str) -> Vec<&'a SentMail> {
    mails.iter().filter(|m| m.to.ends_with(domain)).collect()
}

#[test]
fn one_mail_of_change_address_lines_mails_at_most_two_strangers() {
    let mut s = Install::confirming("\n[limits]\nunconfirmed_mails_per_hour = 5\n");
    confirmed(&mut s, MALLORY, "mal", "mpw");
    confirmed(&mut s, ALICE, "alice", "apw");
    let mut body = String::new();
    for line in 0..6 {
        let named: Vec<String> = (0..19)
            .map(|i| format!("v{line}x{i}@victims.org"))
            .collect();
        body.push_str(&format!("change address mal mpw {}\n", named.join(" ")));
    }
    let mails = round(&mut s, MALLORY, "multiple", &body);
    assert!(to_domain(&mails, "@victims.org").is_empty(), "{mails:#?}");
    assert!(
        joined(&only_one(&mails, MALLORY).body)
            .contains("change address names at most 2 addresses"),
        "{mails:#?}"
    );
    // Lines of two addresses: two confirmation mails for the whole mail.
    let mut body = String::new();
    for line in 0..6 {
        body.push_str(&format!(
            "change address mal mpw w{line}a@victims.org w{line}b@victims.org\n"
        ));
    }
    let mails = round(&mut s, MALLORY, "multiple", &body);
    assert_eq!(to_domain(&mails, "@victims.org").len(), 2, "{mails:#?}");
    let told = to(&mails, MALLORY)
        .into_iter()
        .find(|m| m.subject == "Not sent")
        .expect("the sender is told");
    assert!(
        joined(&told.body).contains("one mail makes this server write to at most 2 addresses"),
        "{}",
        told.body
    );
    // Signups from rotating addresses spend the server's hour...
    for i in 0..6 {
        round(
            &mut s,
            &format!("s{i}@rotating.org"),
            &format!("signup rot{i} rpw x{i}@victims.org"),
            "",
        );
    }
    // ... but not what alice's own change of address needs.
    let mails = round(
        &mut s,
        ALICE,
        "change address alice apw alice@players.org alice@newhome.org",
        "",
    );
    assert!(
        only_one(&mails, "alice@newhome.org")
            .subject
            .starts_with("confirm address alice "),
        "{mails:#?}"
    );
    assert!(mails.iter().all(|m| m.subject != "Not sent"), "{mails:#?}");
}

// --------------------------------------- 3. tournaments filled for good

fn tournaments(s: &Install) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let mut stmt = conn
        .prepare("SELECT name, state FROM tournaments ORDER BY id")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    rows
}

#[test]
fn never_confirmed_accounts_neither_open_nor_join_tournaments() {
    let mut s = Install::confirming(
        "\n[tournaments]\nplayers_may_create = true\n[limits]\nopen_tournaments = 3\n",
    );
    confirmed(&mut s, ALICE, "alice", "apw");
    // Sybils signed up from addresses nobody confirmed.
    for i in 0..3 {
        let from = format!("sybil{i}@rotating.org");
        round(&mut s, &from, &format!("signup sybil{i} spw"), "");
        let mails = round(
            &mut s,
            &from,
            &format!("chess tournament create t{i} sybil{i} spw roundrobin 3"),
            "",
        );
        assert!(
            joined(&only_one(&mails, &from).body)
                .contains("has no confirmed address yet, so it cannot open tournaments"),
            "{mails:#?}"
        );
    }
    assert!(tournaments(&s).is_empty());
    let mails = round(
        &mut s,
        ALICE,
        "chess tournament create spring alice apw roundrobin 3",
        "",
    );
    assert!(joined(&only_one(&mails, ALICE).body).contains("tournament spring is open"));
    // Nor do they join one (the default config lets players join).
    let mails = round(
        &mut s,
        "sybil0@rotating.org",
        "chess tournament join spring sybil0 spw",
        "",
    );
    assert!(
        joined(&only_one(&mails, "sybil0@rotating.org").body).contains("cannot join tournaments"),
        "{mails:#?}"
    );
}

#[test]
fn the_admin_cancels_tournaments_and_a_removed_creators_open_ones_go() {
    let mut s = four_players(
        "\n[tournaments]\nplayers_may_create = true\n[limits]\nopen_tournaments = 2\n",
    );
    round(
        &mut s,
        BOB,
        "chess tournament create bobs bob bpw roundrobin 5",
        "",
    );
    round(
        &mut s,
        CAROL,
        "chess tournament create carols carol cpw roundrobin 3",
        "",
    );
    round(&mut s, ALICE, "chess tournament join bobs alice apw", "");
    // The server is full: alice cannot open one, but the admin can.
    let mails = round(
        &mut s,
        ALICE,
        "chess tournament create mine alice apw roundrobin 3",
        "",
    );
    assert!(joined(&only_one(&mails, ALICE).body).contains("holds 2 tournaments"));
    s.ok(&[
        "admin",
        "tournament",
        "create",
        "cup",
        "chess",
        "--kind",
        "roundrobin",
        "--players",
        "3",
    ]);
    // Removing bob removes the tournament he opened; alice is told.
    s.ok(&["admin", "user", "remove", "bob"]);
    let mails = s.take_outbox();
    assert!(
        joined(&only_one(&mails, ALICE).body).contains("bobs is cancelled"),
        "{mails:#?}"
    );
    assert_eq!(
        tournaments(&s),
        [
            ("carols".to_string(), "open".to_string()),
            ("cup".to_string(), "open".to_string())
        ]
    );
    // The admin cancels an open one: removed.
    let said = s.ok(&["admin", "tournament", "cancel", "cup"]);
    assert!(said.contains("cup removed"), "{said}");
    // A running one ends at once, its boards in play deleted.
    round(&mut s, ALICE, "chess tournament join carols alice apw", "");
    let mails = round(&mut s, DAVE, "chess tournament join carols dave dpw", "");
    assert!(!to(&mails, ALICE).is_empty(), "it started: {mails:#?}");
    assert_eq!(boards(&s), 3);
    let said = s.ok(&["admin", "tournament", "cancel", "carols"]);
    assert!(said.contains("3 boards in play deleted"), "{said}");
    assert_eq!(boards(&s), 0);
    assert_eq!(
        tournaments(&s),
        [("carols".to_string(), "finished".to_string())]
    );
    let mails = s.take_outbox();
    assert!(
        joined(&only_one(&mails, DAVE).body).contains("The server admin cancelled it"),
        "{mails:#?}"
    );
    // The slots are free again: alice opens hers.
    let mails = round(
        &mut s,
        ALICE,
        "chess tournament create mine alice apw roundrobin 3",
        "",
    );
    assert!(joined(&only_one(&mails, ALICE).body).contains("tournament mine is open"));
}

// ------------------------------------------ 4. admin user passwd's rules

/// The binary run with `input` on standard input.
fn run_with_input(s: &Install, args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// A reply to board mail `m` from `from`, its body `text`.
fn reply_to(m: &SentMail, from: &str, id: &str, text: &str) -> String {
    let parent = m.header("Message-ID").unwrap();
    format!(
        "From: {from}\r\nTo: {}\r\nSubject: Re: {}\r\nMessage-ID: <{id}>\r\n\
         In-Reply-To: {parent}\r\nReferences: {parent}\r\n\
         Date: Mon, 23 Nov 2026 10:05:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
        common::SERVER_ADDRESS,
        m.subject
    )
}

#[test]
fn admin_user_passwd_ends_the_players_reply_tokens() {
    let mut s = Install::new();
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    round(&mut s, ALICE, "chess challenge alice bob", "");
    let mails = round(&mut s, ALICE, "chess move 101 alice apw e4", "");
    let board = only_one(&mails, BOB).clone();
    let out = run_with_input(
        &s,
        &["admin", "user", "passwd", "bob", "--password-stdin"],
        "n3wer\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    s.deliver_raw(&reply_to(&board, BOB, "reply.1@players.org", "e5"));
    s.poll();
    let mails = s.take_outbox();
    assert!(to(&mails, ALICE).is_empty(), "the token played: {mails:#?}");
}

#[test]
fn the_admin_cli_sets_no_password_that_signup_or_mail_refuses() {
    let mut s = Install::new();
    round(&mut s, ALICE, "signup alice apw", "");
    for bad in [
        "pass word",
        " SpPass99 ",
        "123456",
        "chess",
        "x",
        "tab\tbed",
    ] {
        let out = run_with_input(
            &s,
            &["admin", "user", "passwd", "alice", "--password-stdin"],
            &format!("{bad}\n"),
        );
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("choose another password"),
            "{bad:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = run_with_input(
            &s,
            &[
                "admin",
                "user",
                "add",
                "newbie",
                "newbie@players.org",
                "--password-stdin",
            ],
            &format!("{bad}\n"),
        );
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
    }
    // The old password still plays; signup refuses the same words.
    let mails = round(&mut s, ALICE, "chess tournaments", "");
    assert_eq!(mails.len(), 1);
    for bad in ["123456", "chess", "x"] {
        let mails = round(&mut s, CAROL, &format!("signup carol {bad}"), "");
        assert!(
            joined(&only_one(&mails, CAROL).body).contains("cannot be the password"),
            "{bad}: {mails:#?}"
        );
    }
}

// --------------------------------------------------- 5. reserved names

#[test]
fn role_names_the_servers_own_and_lookalikes_of_kept_names_are_refused_at_signup() {
    let mut s = Install::with_whole_config(&format!(
        "[server]\naddress = \"{}\"\nname = \"Test PBM\"\nadmins = [\"richard\"]\n\n\
         [database]\npath = \"var/db.sqlite\"\n\n[inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\n\
         [outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n",
        common::SERVER_ADDRESS
    ));
    let kept = [
        "admin",
        "postmaster",
        "mailer-daemon",
        "pbmchess",
        "pbm",
        "abuse",
        "noc",
        "security",
        "hostmaster",
        "usenet",
        "news",
        "webmaster",
        "www",
        "uucp",
        "ftp",
        "info",
        "marketing",
        "sales",
        "support",
        "computer1",
        "computers",
        "compvter",
        "richard2",
        "Post_Master5",
    ];
    let body: String = kept
        .iter()
        .map(|u| format!("signup {u} pw4{u}\n"))
        .collect();
    let mails = round(&mut s, MALLORY, "multiple", &body);
    let answer = joined(&only_one(&mails, MALLORY).body);
    assert_eq!(
        answer.matches("a name this server keeps").count(),
        kept.len(),
        "{answer}"
    );
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let users: i64 = conn
        .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(users, 0);
    // Names near them but not alike still sign up; players may be bob2.
    for (from, userid) in [(ALICE, "richardson"), (BOB, "computing"), (CAROL, "newsom")] {
        let mails = round(&mut s, from, &format!("signup {userid} pw4{userid}"), "");
        assert!(
            joined(&only_one(&mails, from).body).contains("Your account is ready"),
            "{userid}: {mails:#?}"
        );
    }
}

// ------------------------------------- 6. a forged signup from a victim

#[test]
fn a_signup_forged_from_a_victims_address_does_not_block_the_victims_own() {
    let mut s = Install::confirming("");
    const VICTIM: &str = "victim@victims.org";
    // Forged "from" the victim: the welcome mail goes there.
    let mails = round(&mut s, VICTIM, "signup mallet mpw", "");
    assert!(only_one(&mails, VICTIM)
        .subject
        .starts_with("confirm address mallet "));
    // The victim's own signup, the same day, goes through with its code.
    let mails = round(&mut s, VICTIM, "signup victor vpw", "");
    let welcome = only_one(&mails, VICTIM);
    assert!(
        welcome.subject.starts_with("confirm address victor "),
        "{mails:#?}"
    );
    let code = code_of(welcome);
    let mails = round(
        &mut s,
        VICTIM,
        &format!("confirm address victor {code}"),
        "",
    );
    assert!(
        only_one(&mails, VICTIM).body.contains("is confirmed"),
        "{mails:#?}"
    );
    // The forged account never got the address: it stays unconfirmed there.
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let mallet = pbmchess::store::user(&conn, "mallet").unwrap().unwrap();
    assert_eq!(mallet.confirmed_addresses().count(), 0);
}

// ------------------------------------- 7. answers to unknown senders

const TWELVE_TOPICS: &str = "help commands reply if tournament chess doppelganger doublechess mchess shadowchess temporal zelig zelig2";

/// Bytes of the mails to `addr` (subjects and bodies).
fn bytes_to(mails: &[SentMail], addr: &str) -> usize {
    to(mails, addr)
        .iter()
        .map(|m| m.subject.len() + m.body.len())
        .sum()
}

#[test]
fn a_stranger_gets_one_help_page_and_a_bounded_answer() {
    let mut s = Install::new();
    round(&mut s, ALICE, "signup alice apw", "");
    // 200 bytes asking for twelve pages, from an address nobody confirmed.
    let mails = round(&mut s, MALLORY, TWELVE_TOPICS, "");
    let answer = only_one(&mails, MALLORY);
    assert!(
        bytes_to(&mails, MALLORY) <= 16 * 1024,
        "{}",
        bytes_to(&mails, MALLORY)
    );
    assert!(
        joined(&answer.body).contains("This server sends one help page a command"),
        "{}",
        answer.body
    );
    // Many reading commands in one mail: cut at 16 KB, and said so.
    let body = "help commands\nhelp if\nhelp tournament\nhelp temporal\nchess games\nhelp reply\n";
    let mails = round(&mut s, MALLORY, "multiple", body);
    let answer = joined(&only_one(&mails, MALLORY).body);
    assert!(
        bytes_to(&mails, MALLORY) <= 17 * 1024,
        "{}",
        bytes_to(&mails, MALLORY)
    );
    assert!(
        answer.contains("sends at most 16 KB of answers to a mail from an address that is not a confirmed player's"),
        "{answer}"
    );
    assert!(answer.contains("nor the 3 commands after it"), "{answer}");
    // A confirmed player still gets every page.
    let mails = round(&mut s, ALICE, TWELVE_TOPICS, "");
    assert!(
        bytes_to(&mails, ALICE) > 30 * 1024,
        "{}",
        bytes_to(&mails, ALICE)
    );
}

#[test]
fn without_confirmation_lines_of_change_address_mail_at_most_two_addresses() {
    let mut s = Install::new();
    round(&mut s, MALLORY, "signup mal mpw", "");
    let body: String = (0..6)
        .map(|i| format!("change address mal mpw {MALLORY} n{i}@victims.org\n"))
        .collect();
    let mails = round(&mut s, MALLORY, "multiple", &body);
    // A named address gets no notice of its own; an address that was the
    // account's a line before is told as an old one, but one mail writes
    // to at most two addresses that are not confirmed ones at its end.
    assert!(to_domain(&mails, "@victims.org").len() <= 2, "{mails:#?}");
}
