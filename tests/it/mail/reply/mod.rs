//! Playing by reply, through real mails and `poll` (the real
//! binary, Maildir in and out) and the MTA pipe (`process`): a player
//! answers a board mail with just the move, as Gmail, Outlook and
//! Thunderbird write replies; stale, foreign and forged replies are refused
//! and change nothing; no password is needed or echoed.

use crate::common;

use common::{only_one, to, Install, SentMail, SERVER_ADDRESS};

mod clients;
mod commands;
mod errors;
mod refusals;

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
