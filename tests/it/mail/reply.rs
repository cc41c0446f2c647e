//! Playing by reply, through real mails and `poll` (the real
//! binary, Maildir in and out) and the MTA pipe (`process`): a player
//! answers a board mail with just the move, as Gmail, Outlook and
//! Thunderbird write replies; stale, foreign and forged replies are refused
//! and change nothing; no password is needed or echoed.

use crate::common;

use common::{only_one, to, Install, SentMail, SERVER_ADDRESS};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";
const CAROL: &str = "carol@c.example";
const ALICE_PW: &str = "Sesame-A1";
const BOB_PW: &str = "Sesame-B2";

/// alice and bob signed up, carol too; board 101: alice (White) against bob.
fn a_board() -> Install {
    let mut s = Install::new();
    s.send(ALICE, &format!("signup alice {ALICE_PW}"), "");
    s.send(BOB, &format!("signup bob {BOB_PW}"), "");
    s.send(CAROL, "signup carol Sesame-C3", "");
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

/// The Message-ID of a board mail, with its brackets.
fn mid(m: &SentMail) -> String {
    m.header("Message-ID").expect("a Message-ID")
}

/// The board mail quoted as a mail program shows it: its body lines.
fn quoted(m: &SentMail, prefix: &str) -> String {
    m.body
        .lines()
        .map(|l| {
            if l.is_empty() {
                prefix.trim_end().to_string()
            } else {
                format!("{prefix}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\r\n")
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn headers(from: &str, m: &SentMail, id: &str, extra: &str) -> String {
    format!(
        "From: {from}\r\nTo: Test PBM <{SERVER_ADDRESS}>\r\nSubject: Re: {subject}\r\n\
         Message-ID: <{id}>\r\nIn-Reply-To: {parent}\r\nReferences: <cmd.1@players.test> {parent}\r\n\
         Date: Mon, 23 Nov 2026 10:05:00 +0000\r\nMIME-Version: 1.0\r\n{extra}",
        subject = m.subject,
        parent = mid(m),
    )
}

/// A reply as Gmail writes it: multipart/alternative, the plain part with
/// the attribution line and `>` quotes, the HTML part with a
/// `gmail_quote` blockquote; the player's lines on top, then a signature.
fn gmail(from: &str, m: &SentMail, id: &str, lines: &[&str]) -> String {
    let plain = format!(
        "{}\r\n\r\n-- \r\nAlice A.\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, Test PBM <{SERVER_ADDRESS}> wrote:\r\n\r\n{}\r\n",
        lines.join("\r\n"),
        quoted(m, "> ")
    );
    let html_lines: String = lines
        .iter()
        .map(|l| format!("<div>{}</div>", html_escape(l)))
        .collect();
    let html_quote: String = m
        .body
        .lines()
        .map(|l| format!("{}<br>", html_escape(l)))
        .collect();
    let html = format!(
        "<div dir=\"ltr\">{html_lines}<br clear=\"all\"><div><br></div>-- <br><div dir=\"ltr\" class=\"gmail_signature\">Alice A.</div></div><br>\
         <div class=\"gmail_quote\"><div dir=\"ltr\" class=\"gmail_attr\">On Mon, 23 Nov 2026 at 10:00, Test PBM &lt;<a href=\"mailto:{SERVER_ADDRESS}\">{SERVER_ADDRESS}</a>&gt; wrote:<br></div>\
         <blockquote class=\"gmail_quote\" style=\"margin:0px 0px 0px 0.8ex\"><pre>{html_quote}</pre></blockquote></div>\r\n"
    );
    format!(
        "{}Content-Type: multipart/alternative; boundary=\"000000000000gmail\"\r\n\r\n\
         --000000000000gmail\r\nContent-Type: text/plain; charset=\"UTF-8\"\r\n\r\n{plain}\r\n\
         --000000000000gmail\r\nContent-Type: text/html; charset=\"UTF-8\"\r\n\r\n{html}\r\n\
         --000000000000gmail--\r\n",
        headers(from, m, id, "")
    )
}

/// A reply as Outlook writes it: top-posted, the original below a header
/// block (with `-----Original Message-----` above it, or with nothing, as
/// newer Outlooks do) and no `>` marks; HTML alternative as well.
fn outlook(from: &str, m: &SentMail, id: &str, lines: &[&str], rule: bool) -> String {
    let rule = if rule {
        "-----Original Message-----\r\n"
    } else {
        ""
    };
    let plain = format!(
        "{}\r\n\r\n{rule}From: Test PBM <{SERVER_ADDRESS}>\r\nSent: Monday, November 23, 2026 10:00 AM\r\nTo: {from}\r\nSubject: {}\r\n\r\n{}\r\n",
        lines.join("\r\n"),
        m.subject,
        m.body.replace('\n', "\r\n")
    );
    let html = format!(
        "<html><head><style>p.MsoNormal{{margin:0cm}}</style></head><body lang=\"EN-GB\"><div class=\"WordSection1\">{}\
         <div style=\"border:none;border-top:solid #E1E1E1 1.0pt\"><p class=\"MsoNormal\"><b>From:</b> Test PBM &lt;{SERVER_ADDRESS}&gt;<br><b>Sent:</b> Monday, November 23, 2026 10:00 AM<br><b>To:</b> {from}<br><b>Subject:</b> {}</p></div>\
         <pre>{}</pre></div></body></html>\r\n",
        lines
            .iter()
            .map(|l| format!("<p class=\"MsoNormal\">{}</p>", html_escape(l)))
            .collect::<String>(),
        html_escape(&m.subject),
        html_escape(&m.body)
    );
    format!(
        "{}X-Mailer: Microsoft Outlook 16.0\r\nContent-Type: multipart/alternative; boundary=\"----=_NextPart_000_0001\"\r\n\r\n\
         ------=_NextPart_000_0001\r\nContent-Type: text/plain; charset=\"us-ascii\"\r\nContent-Transfer-Encoding: 7bit\r\n\r\n{plain}\r\n\
         ------=_NextPart_000_0001\r\nContent-Type: text/html; charset=\"us-ascii\"\r\n\r\n{html}\r\n\
         ------=_NextPart_000_0001--\r\n",
        headers(from, m, id, "")
    )
}

/// A reply as Thunderbird writes it: plain text, format=flowed, the
/// attribution `On 23/11/2026 10:00, Test PBM wrote:`, `>` quotes, a
/// signature under the text.
fn thunderbird(from: &str, m: &SentMail, id: &str, lines: &[&str]) -> String {
    format!(
        "{}User-Agent: Mozilla Thunderbird\r\nContent-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 7bit\r\n\r\n\
         {}\r\n\r\n-- \r\nBob, from the Thunderbird\r\n\r\nOn 23/11/2026 10:00, Test PBM wrote:\r\n{}\r\n",
        headers(from, m, id, ""),
        lines.join("\r\n"),
        quoted(m, "> ")
    )
}

/// A reply from the plainest mail program: the move and nothing else.
fn plain(from: &str, m: &SentMail, id: &str, text: &str) -> String {
    format!(
        "{}Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
        headers(from, m, id, "")
    )
}

/// The passwords appear in no mail the server wrote.
fn no_password_in(s: &Install) {
    for raw in s.all_outbox_raw() {
        assert!(
            !raw.contains(ALICE_PW) && !raw.contains(BOB_PW),
            "a password in\n{raw}"
        );
    }
}

fn board_mail<'a>(mails: &'a [SentMail], addr: &str) -> &'a SentMail {
    let m = only_one(mails, addr);
    assert!(mid(m).starts_with("<t."), "{}", m.raw);
    m
}

#[test]
fn a_whole_game_is_played_by_replies_from_gmail_outlook_and_thunderbird() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    // Every board mail to a player carries a reply token on our domain and
    // says how to answer it.
    for addr in [ALICE, BOB] {
        let m = board_mail(&mails, addr);
        let id = mid(m);
        assert!(id.ends_with("@games.test>"), "{id}");
        assert!(id.len() >= "<t.@games.test>".len() + 32, "{id}");
        assert!(
            common::joined(&m.body).ends_with(&format!(
                "To play, reply with your move on the first line (help reply), or use the Subject command: chess move 101 {} <password> <move>",
                if addr == ALICE { "alice" } else { "bob" }
            )),
            "{}",
            m.body
        );
    }
    assert_ne!(mid(&mails[0]), mid(&mails[1]));

    // alice, in Gmail: the move, a comment, a signature, the quote.
    let new_to_alice = only_one(&mails, ALICE).clone();
    let mails = deliver(
        &mut s,
        &gmail(
            ALICE,
            &new_to_alice,
            "r1@mail.gmail.test",
            &["f3", "Let's go!"],
        ),
    );
    let to_bob = board_mail(&mails, BOB).clone();
    assert_eq!(to_bob.subject, "Chess Board 101 bob **");
    assert!(
        to_bob.body.starts_with("It is bob's turn."),
        "{}",
        to_bob.body
    );
    assert!(to_bob.body.contains("\n1. f3"), "{}", to_bob.body);
    assert!(
        to_bob.body.contains("Comment from alice:\nLet's go!\n"),
        "{}",
        to_bob.body
    );
    assert!(!to_bob.body.contains("Alice A."), "{}", to_bob.body);
    assert!(!to_bob.body.contains("wrote:"), "{}", to_bob.body);
    // The answer to alice threads under her reply; bob's board mail does
    // not name it (issue #31: it would show her mail domain).
    assert_eq!(
        only_one(&mails, ALICE).header("In-Reply-To").as_deref(),
        Some("<r1@mail.gmail.test>")
    );
    assert_eq!(to_bob.header("In-Reply-To"), None);

    // bob, in Outlook with the original under a rule, top-posted.
    let mails = deliver(
        &mut s,
        &outlook(
            BOB,
            &to_bob,
            "r2@outlook.test",
            &["e5", "Thanks, you too."],
            true,
        ),
    );
    let to_alice = board_mail(&mails, ALICE).clone();
    assert!(
        to_alice.body.contains("\n1. f3         e5\n"),
        "{}",
        to_alice.body
    );
    assert!(
        to_alice
            .body
            .contains("Comment from bob:\nThanks, you too.\n"),
        "{}",
        to_alice.body
    );

    // alice, in Thunderbird.
    let mails = deliver(
        &mut s,
        &thunderbird(ALICE, &to_alice, "r3@thunderbird.test", &["g4"]),
    );
    let to_bob = board_mail(&mails, BOB).clone();
    assert_eq!(to_bob.subject, "Chess Board 101 bob");
    assert!(to_bob.body.contains("\n2. g4\n"), "{}", to_bob.body);
    assert!(!to_bob.body.contains("Thunderbird"), "{}", to_bob.body);

    // bob, in a newer Outlook (no rule above the header block): mate.
    let mails = deliver(
        &mut s,
        &outlook(BOB, &to_bob, "r4@outlook.test", &["Qh4#", "Sorry!"], false),
    );
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert_eq!(m.subject, "Chess Board 101 finished **");
        assert!(
            m.body.starts_with("Game won by bob (checkmate)."),
            "{}",
            m.body
        );
        // A finished game's mail takes no reply.
        assert!(!mid(m).starts_with("<t."), "{}", m.raw);
        assert!(!m.body.contains("To play, reply"), "{}", m.body);
    }
    // The tokens expired with the game: a late reply is refused.
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "r5@a.example", "resign"));
    let m = only_one(&mails, ALICE);
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(
        m.body
            .starts_with("Chess board 101 is over, so its board mails take no more replies."),
        "{}",
        m.body
    );
    no_password_in(&s);
}

#[test]
fn a_reply_to_a_mail_that_is_no_longer_current_is_refused_with_the_board_now() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let new_to_bob = only_one(&mails, BOB).clone();
    let new_to_alice = only_one(&mails, ALICE).clone();
    let mails = deliver(&mut s, &plain(ALICE, &new_to_alice, "s1@a.example", "e4"));
    let current_to_bob = board_mail(&mails, BOB).clone();

    // bob answers the first mail (ply 0); the board is at ply 1.
    let mails = deliver(
        &mut s,
        &thunderbird(BOB, &new_to_bob, "s2@b.example", &["e5", "Here goes."]),
    );
    let m = only_one(&mails, BOB);
    assert_eq!(mails.len(), 1, "{mails:#?}");
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(
        common::joined(&m.body).starts_with(
            "This mail showed ply 0; Chess board 101 is at ply 1 now, so your reply is not played: reply to the newest board mail (or put #2 after the move to play it anyway)."
        ),
        "{}",
        m.body
    );
    // The board as it stands, the line as written, the comment kept.
    assert!(m.body.contains("*R*"), "{}", m.body);
    assert!(m.body.contains("Your command was:\n  e5\n"), "{}", m.body);
    assert!(m.body.contains("Here goes."), "{}", m.body);
    let shown = round(&mut s, BOB, "chess show 101", "");
    assert!(!only_one(&shown, BOB).body.contains("e5"));

    // An explicit guard plays it from the old mail anyway.
    let mails = deliver(&mut s, &plain(BOB, &new_to_bob, "s3@b.example", "e5#2"));
    assert!(
        board_mail(&mails, ALICE)
            .body
            .contains("\n1. e4         e5\n"),
        "{mails:#?}"
    );
    // A stale reply with a wrong guard is refused by the guard.
    let mails = deliver(
        &mut s,
        &plain(BOB, &current_to_bob, "s4@b.example", "Nc6#2"),
    );
    assert!(
        only_one(&mails, BOB)
            .body
            .starts_with("Your command is guarded as ply 2, but the next ply"),
        "{mails:#?}"
    );
}

/// Issue #23 §5: a stale reply when it is the opponent's turn is not told
/// to add `#N` (`Nc6#3` would then be refused: not the player's turn). It
/// is told the exact `queue` reply instead, and that reply works.
#[test]
fn a_stale_reply_out_of_turn_suggests_the_queue_reply_that_works_not_a_guard() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let new_to_alice = only_one(&mails, ALICE).clone();
    let mails = deliver(&mut s, &plain(ALICE, &new_to_alice, "o1@a.example", "e4"));
    let to_bob = board_mail(&mails, BOB).clone();
    deliver(&mut s, &plain(BOB, &to_bob, "o2@b.example", "e5"));

    // bob answers the same mail (ply 1) again; the board is at ply 2,
    // and ply 3 is alice's.
    let mails = deliver(&mut s, &plain(BOB, &to_bob, "o3@b.example", "Nc6"));
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let error = only_one(&mails, BOB).clone();
    let text = common::joined(&error.body);
    assert!(
        text.starts_with(
            "This mail showed ply 1; Chess board 101 is at ply 2 now and it is alice's turn, so your reply is not played. To have Nc6 played when your turn comes, reply to this mail with: queue Nc6"
        ),
        "{}",
        error.body
    );
    assert!(!text.contains("#3"), "{}", error.body);

    // Done as told: the move is queued, and played when bob's turn comes.
    let mails = deliver(
        &mut s,
        &thunderbird(BOB, &error, "o4@b.example", &["queue Nc6"]),
    );
    let queued = only_one(&mails, BOB);
    assert!(
        common::joined(&queued.body).contains("Your move Nc6 is queued on chess board 101"),
        "{}",
        queued.body
    );
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess move 101 alice {ALICE_PW} Nf3"),
        "",
    );
    let m = board_mail(&mails, BOB);
    assert!(m.body.contains("2. Nf3        Nc6 (Auto)"), "{}", m.body);
    no_password_in(&s);
}

#[test]
fn replies_from_another_address_to_the_opponents_mail_or_with_a_forged_token_change_nothing() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();

    // carol got hold of alice's board mail.
    let mails = deliver(&mut s, &plain(CAROL, &to_alice, "f1@c.example", "e4"));
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let m = only_one(&mails, CAROL);
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(
        common::joined(&m.body).starts_with(&format!(
            "Your reply comes from {CAROL}, which is not an address of the player this board mail was sent to, so it is not read as a move; reply from that address, or use the Subject command: chess move 101 <userid> <password> <move>."
        )),
        "{}",
        m.body
    );

    // bob answers alice's board mail (forwarded to him) from his address.
    let mails = deliver(&mut s, &plain(BOB, &to_alice, "f2@b.example", "e4"));
    assert!(
        only_one(&mails, BOB).body.starts_with(&format!(
            "Your reply comes from {BOB}, which is not an address"
        )),
        "{mails:#?}"
    );

    // A made-up token on our domain.
    let forged = plain(ALICE, &to_alice, "f3@a.example", "e4").replace(
        &mid(&to_alice),
        "<t.00112233445566778899aabbccddeeff00112233@games.test>",
    );
    let mails = deliver(&mut s, &forged);
    let m = only_one(&mails, ALICE);
    assert!(
        common::joined(&m.body).starts_with(
            "Your mail answers a mail this server did not send, or one of a board that no longer exists, so it is not read as a move"
        ),
        "{}",
        m.body
    );

    // A reply that names no token (a mail program that drops In-Reply-To).
    let mails = round(&mut s, ALICE, &format!("Re: {}", to_alice.subject), "e4");
    let m = only_one(&mails, ALICE);
    assert!(
        common::joined(&m.body).starts_with(
            "Your mail answers a board mail, but does not name one this server takes replies to"
        ),
        "{}",
        m.body
    );
    assert!(
        common::joined(&m.body).contains(
            "use the Subject command instead: chess move 101 <userid> <password> <move>."
        ),
        "{}",
        m.body
    );

    // A token in the body or the Subject is not read.
    let token = mid(&to_alice);
    let mails = round(
        &mut s,
        ALICE,
        &format!("Re: {} {token}", to_alice.subject),
        &format!("e4\n{token}"),
    );
    assert!(
        only_one(&mails, ALICE).subject.ends_with("Error"),
        "{mails:#?}"
    );

    // Nothing was played by any of them.
    let shown = round(&mut s, ALICE, "chess show 101", "");
    assert!(
        only_one(&shown, ALICE)
            .body
            .starts_with("It is alice's turn."),
        "{shown:#?}"
    );
    assert!(!only_one(&shown, ALICE).body.contains("1. e4"));
    no_password_in(&s);
}

#[test]
fn propose_reject_and_resign_by_reply() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let mails = deliver(
        &mut s,
        &plain(ALICE, only_one(&mails, ALICE), "p1@a.example", "d4"),
    );
    let mails = deliver(
        &mut s,
        &plain(BOB, only_one(&mails, BOB), "p2@b.example", "d5"),
    );
    // alice offers a draw by reply; bob's mail says so and takes a reply.
    let mails = deliver(
        &mut s,
        &gmail(
            ALICE,
            only_one(&mails, ALICE),
            "p3@a.example",
            &["propose", "Draw?"],
        ),
    );
    let to_bob = board_mail(&mails, BOB).clone();
    assert!(
        common::joined(&to_bob.body)
            .contains("alice proposes a draw; bob may answer with the move accept or reject."),
        "{}",
        to_bob.body
    );
    let mails = deliver(&mut s, &plain(BOB, &to_bob, "p4@b.example", "reject"));
    let to_alice = board_mail(&mails, ALICE).clone();
    assert!(
        to_alice.body.starts_with("It is alice's turn."),
        "{}",
        to_alice.body
    );
    assert!(!to_alice.body.contains("proposes"), "{}", to_alice.body);
    // bob resigns by replying to the mail that answered his reject.
    let to_bob = board_mail(&mails, BOB).clone();
    let mails = deliver(
        &mut s,
        &outlook(BOB, &to_bob, "p5@b.example", &["resign"], false),
    );
    for addr in [ALICE, BOB] {
        assert!(
            only_one(&mails, addr)
                .body
                .starts_with("Game won by alice (resignation)."),
            "{mails:#?}"
        );
    }
    no_password_in(&s);
}

#[test]
fn queue_and_show_by_reply_and_a_subject_command_in_a_reply_stays_a_command() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_bob = only_one(&mails, BOB).clone();
    // Out of turn, bob queues his answer by reply.
    let mails = deliver(&mut s, &plain(BOB, &to_bob, "q1@b.example", "queue e5"));
    assert!(only_one(&mails, BOB).body.contains("e5"), "{mails:#?}");
    // show by reply: the board now, itself answerable.
    let mails = deliver(&mut s, &plain(BOB, &to_bob, "q2@b.example", "show"));
    let shown = board_mail(&mails, BOB).clone();
    assert_eq!(shown.subject, "Chess Board 101 alice");
    // alice plays by a Subject command in a reply: her command, with password.
    let to_alice = only_one(&round(&mut s, ALICE, "chess show 101", ""), ALICE).clone();
    let raw = plain(ALICE, &to_alice, "q3@a.example", "Nice board.").replace(
        &format!("Subject: Re: {}", to_alice.subject),
        &format!("Subject: Re: chess move 101 alice {ALICE_PW} e4"),
    );
    let mails = deliver(&mut s, &raw);
    // The queued e5 followed at once.
    let m = board_mail(&mails, BOB);
    assert!(m.body.contains("1. e4         e5 (Auto)"), "{}", m.body);
    assert!(
        m.body.contains("Comment from alice:\nNice board."),
        "{}",
        m.body
    );
    no_password_in(&s);
}

#[test]
fn noreply_sends_ordinary_board_mails_and_refuses_replies() {
    let mut s = a_board();
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess set alice {ALICE_PW} noreply"),
        "",
    );
    assert!(
        only_one(&mails, ALICE)
            .body
            .contains("cannot be answered by reply"),
        "{mails:#?}"
    );
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();
    assert!(mid(&to_alice).starts_with("<pbmchess."), "{}", to_alice.raw);
    assert!(
        !to_alice.body.contains("To play, reply"),
        "{}",
        to_alice.body
    );
    // bob still plays by reply.
    board_mail(&mails, BOB);
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "n1@a.example", "e4"));
    let m = only_one(&mails, ALICE);
    assert!(
        common::joined(&m.body).starts_with(
            "Your mail answers a board mail, but does not name one this server takes replies to"
        ),
        "{}",
        m.body
    );
    // Back on.
    round(
        &mut s,
        ALICE,
        &format!("chess set alice {ALICE_PW} reply"),
        "",
    );
    let to_alice = only_one(&round(&mut s, ALICE, "chess show 101", ""), ALICE).clone();
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "n2@a.example", "e4"));
    assert!(to(&mails, BOB)[0].body.contains("1. e4"), "{mails:#?}");
}

#[test]
fn help_reply_explains_it() {
    let mut s = a_board();
    let mails = round(&mut s, CAROL, "help reply", "");
    let m = only_one(&mails, CAROL);
    assert_eq!(m.subject, "Help on reply");
    assert!(m.body.contains("Reply button"), "{}", m.body);
    assert!(m.body.contains("noreply"), "{}", m.body);
}

#[test]
fn a_reply_through_the_mta_pipe_plays() {
    let s = a_board();
    let file = s.path("challenge.eml");
    std::fs::write(
        &file,
        common::raw_mail(ALICE, "chess challenge alice bob", "", "c1@a.example"),
    )
    .unwrap();
    s.ok(&["process", file.to_str().unwrap()]);
    let mails = s.take_outbox();
    let to_alice = board_mail(&mails, ALICE).clone();
    let file = s.path("reply.eml");
    std::fs::write(
        &file,
        gmail(ALICE, &to_alice, "c2@a.example", &["Nf3", "By pipe."]),
    )
    .unwrap();
    s.ok(&["process", file.to_str().unwrap()]);
    let mails = s.take_outbox();
    let m = board_mail(&mails, BOB);
    assert!(m.body.contains("\n1. Nf3\n"), "{}", m.body);
    assert!(
        m.body.contains("Comment from alice:\nBy pipe."),
        "{}",
        m.body
    );
    // The same mail delivered again is recognised and not applied twice.
    s.ok(&["process", file.to_str().unwrap()]);
    assert!(s.take_outbox().is_empty());
}

#[test]
fn an_html_only_reply_plays_and_no_token_reaches_the_log() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();
    let token = mid(&to_alice);
    let token = token.trim_start_matches('<').trim_end_matches('>');
    // A web mailer that sends HTML only: the move in a div, the quote in a
    // blockquote.
    let raw = format!(
        "{}Content-Type: text/html; charset=utf-8\r\n\r\n\
         <html><body><div>c4</div><div>From the browser.</div><br>\
         <div>On Mon, 23 Nov 2026, Test PBM wrote:</div><blockquote><pre>{}</pre></blockquote></body></html>\r\n",
        headers(ALICE, &to_alice, "h1@a.example", ""),
        html_escape(&to_alice.body)
    );
    s.deliver_raw(&raw);
    let out = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("poll")
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("mail processed"), "{log}");
    let hex = token.trim_start_matches("t.").split('@').next().unwrap();
    assert!(!log.contains(hex), "the token is in the log:\n{log}");
    let mails = s.take_outbox();
    let m = board_mail(&mails, BOB);
    assert!(m.body.contains("\n1. c4\n"), "{}", m.body);
    assert!(
        m.body.contains("Comment from alice:\nFrom the browser."),
        "{}",
        m.body
    );
    let new_token = mid(m);
    assert!(!log.contains(
        new_token
            .trim_start_matches("<t.")
            .split('@')
            .next()
            .unwrap()
    ));
}

#[test]
fn a_refused_reply_is_answered_by_replying_to_the_error_mail() {
    let mut s = a_board();
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    let to_alice = only_one(&mails, ALICE).clone();
    let mails = deliver(
        &mut s,
        &gmail(ALICE, &to_alice, "e1@a.example", &["e5", "Oops."]),
    );
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let error = only_one(&mails, ALICE).clone();
    assert_eq!(error.subject, "Chess Board 101 Error");
    assert!(
        error.body.starts_with("e5 is not a legal move"),
        "{}",
        error.body
    );
    assert!(
        error.body.contains("Your command was:\n  e5\n"),
        "{}",
        error.body
    );
    assert!(error.body.contains("Oops."), "{}", error.body);
    // The error mail shows the board now and takes a reply itself.
    assert!(mid(&error).starts_with("<t."), "{}", error.raw);
    assert!(error.body.contains("To play, reply"), "{}", error.body);
    let mails = deliver(&mut s, &thunderbird(ALICE, &error, "e2@a.example", &["e4"]));
    assert!(
        board_mail(&mails, BOB).body.contains("\n1. e4\n"),
        "{mails:#?}"
    );
    // Someone else's error mail stays an ordinary one.
    let mails = deliver(&mut s, &plain(CAROL, &to_alice, "e3@c.example", "d4"));
    assert!(!mid(only_one(&mails, CAROL)).starts_with("<t."));
}

/// A board loads only its recent plies (issue #14's resume point); the
/// token still remembers the ply number, not how many plies were loaded.
#[test]
fn a_reply_plays_deep_into_a_long_game() {
    let mut s = a_board();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    let opening = [
        "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6", "O-O", "O-O", "h3", "h6",
        "a4", "a5",
    ];
    let mut last = Vec::new();
    for (i, mv) in opening.iter().enumerate() {
        let (from, who, pw) = if i % 2 == 0 {
            (ALICE, "alice", ALICE_PW)
        } else {
            (BOB, "bob", BOB_PW)
        };
        last = round(&mut s, from, &format!("chess move 101 {who} {pw} {mv}"), "");
    }
    let to_alice = board_mail(&last, ALICE).clone();
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "deep1@a.example", "Re1"));
    let to_bob = board_mail(&mails, BOB);
    assert!(to_bob.body.contains("9. Re1"), "{}", to_bob.body);
    // The same mail answered again is a ply behind now: refused.
    let mails = deliver(&mut s, &plain(ALICE, &to_alice, "deep2@a.example", "d4"));
    assert!(
        only_one(&mails, ALICE)
            .body
            .starts_with("This mail showed ply 16; Chess board 101 is at ply 17 now"),
        "{mails:#?}"
    );
}
