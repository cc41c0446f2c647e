//! HTML board mails and 7bit text parts, through the real binary: board
//! mails go out multipart/alternative, their HTML part showing the very
//! lines of the text part in a `<pre>` (read back with a real HTML parser,
//! Python's `html.parser`), with nothing that fetches anything; `set …
//! plain` gives one text/plain part and `set … html` both again; text parts
//! go out 7bit (8bit when not ASCII), board lines whole.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{only_one, Install, SentMail};
use mail_parser::{MessageParser, MimeHeaders};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

/// alice (apw) and bob (bpw) signed up; the outbox emptied.
fn two_players() -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    s.take_outbox();
    s
}

fn exchange(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

/// What a mail is made of: its top Content-Type, its text part and its
/// HTML part (None when it has none).
struct Parts {
    top: String,
    text: String,
    html: Option<String>,
}

fn parts(m: &SentMail) -> Parts {
    let msg = MessageParser::default().parse(m.raw.as_bytes()).unwrap();
    let ct = msg.parts[0].content_type().unwrap();
    let top = format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or(""));
    let leaves: Vec<_> = msg.parts.iter().filter(|p| p.is_text()).collect();
    let text: Vec<_> = leaves.iter().filter(|p| !p.is_text_html()).collect();
    let html: Vec<_> = leaves.iter().filter(|p| p.is_text_html()).collect();
    assert_eq!(text.len(), 1, "one text part: {}", m.raw);
    assert!(html.len() <= 1, "at most one HTML part: {}", m.raw);
    Parts {
        top,
        text: text[0].text_contents().unwrap().replace("\r\n", "\n"),
        html: html
            .first()
            .map(|p| p.text_contents().unwrap().replace("\r\n", "\n")),
    }
}

/// Python's HTML parser over `docs`: for each, the text inside `<pre>` as
/// a browser shows it (the newline right after `<pre>` dropped, as HTML
/// says) and every tag with its attributes, outside `<pre>` too.
const PARSER: &str = r#"
import sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.pre = ""
        self.tags = []
        self.outside = ""
    def handle_starttag(self, tag, attrs):
        self.tags.append([tag, [k for k, v in attrs]])
        if tag == "pre":
            self.depth += 1
    def handle_startendtag(self, tag, attrs):
        self.tags.append([tag, [k for k, v in attrs]])
    def handle_endtag(self, tag):
        if tag == "pre":
            self.depth -= 1
    def handle_data(self, data):
        if self.depth > 0:
            self.pre += data
        else:
            self.outside += data
    def handle_comment(self, data):
        self.tags.append(["!--", []])

docs = sys.stdin.buffer.read().decode("utf-8").split("\0")
out = []
for doc in docs:
    p = P()
    p.feed(doc)
    p.close()
    pre = p.pre[1:] if p.pre.startswith("\n") else p.pre
    tags = "\n".join(" ".join([t] + a) for t, a in p.tags)
    out += [pre, tags, p.outside.strip()]
sys.stdout.buffer.write("\0".join(out).encode("utf-8"))
"#;

struct Parsed {
    pre: String,
    tags: Vec<(String, Vec<String>)>,
    outside: String,
}

fn parse_html(docs: &[String]) -> Vec<Parsed> {
    let mut child = Command::new("python3")
        .args(["-c", PARSER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let input = docs.join("\0");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let out = String::from_utf8(out.stdout).unwrap();
    let fields: Vec<&str> = out.split('\0').collect();
    assert_eq!(fields.len(), 3 * docs.len(), "{out}");
    fields
        .chunks(3)
        .map(|f| Parsed {
            pre: f[0].to_string(),
            tags: f[1]
                .lines()
                .map(|l| {
                    let mut words = l.split(' ').map(String::from);
                    (words.next().unwrap(), words.collect())
                })
                .collect(),
            outside: f[2].to_string(),
        })
        .collect()
}

/// The tags and attributes an HTML part may hold: nothing that fetches,
/// runs or links anything; the board's picture only as the mail's own
/// part (`cid:`).
fn assert_harmless(doc: &str, parsed: &Parsed) {
    let lower = doc.to_ascii_lowercase();
    for bad in ["<script", "href=", "url(", "@import", "<link"] {
        assert!(!lower.contains(bad), "{bad} in {doc}");
    }
    assert_eq!(
        lower.matches("src=").count(),
        lower.matches("<img src=\"cid:").count(),
        "a source other than the mail's own part: {doc}"
    );
    assert!(lower.matches("<img").count() <= 1, "{doc}");
    for (tag, attrs) in &parsed.tags {
        let allowed: &[&str] = match tag.as_str() {
            "html" | "head" | "body" | "wbr" | "p" => &[],
            "img" => &["src", "width", "height", "style", "alt"],
            "meta" => &["charset", "name", "content"],
            "pre" => &["style"],
            other => panic!("tag {other} in {doc}"),
        };
        for a in attrs {
            assert!(allowed.contains(&a.as_str()), "{tag} {a} in {doc}");
        }
    }
    assert_eq!(parsed.outside, "", "text outside <pre>: {doc}");
}

/// No line of the raw mail (headers, MIME parts, HTML) longer than 78
/// columns or than the text's own longest line (the drawings' widths are
/// tested in `mail::width`), every text part 7bit or 8bit
/// (never quoted-printable or base64); only a picture is base64.
fn assert_sent_as_written(m: &SentMail) {
    let widest = m.body.lines().map(|l| l.chars().count()).max();
    let limit = widest.unwrap_or(0).max(78);
    for line in m.raw.split("\r\n") {
        assert!(line.chars().count() <= limit, "{line:?} in {}", m.raw);
    }
    let encodings: Vec<&str> = m
        .raw
        .split("\r\n")
        .filter_map(|l| l.strip_prefix("Content-Transfer-Encoding: "))
        .collect();
    assert!(!encodings.is_empty(), "{}", m.raw);
    let pictures = m.raw.matches("Content-Type: image/png").count();
    let base64 = encodings.iter().filter(|e| **e == "base64").count();
    assert_eq!(base64, pictures, "{}", m.raw);
    for e in encodings {
        assert!(
            e == "7bit" || e == "8bit" || e == "base64",
            "{e} in {}",
            m.raw
        );
    }
}

/// The board mails of one game's new board, one player drawing it small
/// and from White, the other large and flipped, and a `preview new`.
fn board_mails(game: &str) -> Vec<SentMail> {
    let mut s = two_players();
    exchange(&mut s, ALICE, &format!("{game} set alice apw small"), "");
    exchange(&mut s, BOB, &format!("{game} set bob bpw flip"), "");
    let board = s.ok(&["admin", "challenge", game, "alice", "bob"]);
    s.poll();
    let mut mails = s.take_outbox();
    assert_eq!(mails.len(), 2, "{game}: {mails:#?}");
    let board = board.trim();
    mails.extend(exchange(&mut s, BOB, &format!("{game} show {board}"), ""));
    mails.extend(exchange(&mut s, ALICE, &format!("{game} preview new"), ""));
    assert_eq!(mails.len(), 4, "{game}: {mails:#?}");
    mails
}

#[test]
fn every_games_html_part_shows_the_lines_of_its_text_part() {
    for game in rules::registry() {
        let mails = board_mails(game.name());
        let split: Vec<Parts> = mails.iter().map(parts).collect();
        let docs: Vec<String> = split
            .iter()
            .map(|p| p.html.clone().expect("a board mail has an HTML part"))
            .collect();
        let parsed = parse_html(&docs);
        for ((m, p), h) in mails.iter().zip(&split).zip(&parsed) {
            assert_eq!(p.top, "multipart/alternative", "{}", m.raw);
            assert_eq!(m.body, p.text, "the text part is what a bot reads");
            assert!(p.text.contains("+---"), "a drawing: {}", p.text);
            let text_rows: Vec<&str> = p.text.lines().collect();
            let html_rows: Vec<&str> = h.pre.lines().collect();
            assert_eq!(html_rows, text_rows, "{}: {}", game.name(), m.subject);
            assert_harmless(p.html.as_deref().unwrap(), h);
            assert_sent_as_written(m);
        }
    }
}

#[test]
fn set_plain_sends_one_text_part_for_every_game_and_set_html_both_again() {
    let mut s = two_players();
    let mails = exchange(&mut s, ALICE, "chess set alice apw plain", "");
    let m = only_one(&mails, ALICE);
    assert!(m.body.contains("text only"), "{}", m.body);
    assert!(m.body.contains("every game"), "{}", m.body);
    // Asked in chess, holds for zelig too.
    s.ok(&["admin", "challenge", "zelig", "alice", "bob"]);
    s.poll();
    let mails = s.take_outbox();
    let to_alice = only_one(&mails, ALICE);
    let p = parts(to_alice);
    assert_eq!(p.top, "text/plain", "{}", to_alice.raw);
    assert!(p.html.is_none());
    assert!(!to_alice.raw.contains("<pre"), "{}", to_alice.raw);
    assert!(p.text.contains("+---"), "{}", p.text);
    assert_sent_as_written(to_alice);
    // bob did not ask: both parts.
    assert_eq!(parts(only_one(&mails, BOB)).top, "multipart/alternative");

    let mails = exchange(&mut s, ALICE, "zelig set alice apw HTML", "");
    assert!(only_one(&mails, ALICE).body.contains("HTML"));
    let mails = exchange(&mut s, ALICE, "chess preview new e4", "");
    let p = parts(only_one(&mails, ALICE));
    assert_eq!(p.top, "multipart/alternative");
    assert!(p.html.is_some());
}

#[test]
fn mails_without_a_drawing_stay_text_plain() {
    let mut s = Install::new();
    let mails = exchange(&mut s, ALICE, "signup alice apw", "");
    let m = only_one(&mails, ALICE);
    assert_eq!(parts(m).top, "text/plain", "{}", m.raw);
    let mails = exchange(&mut s, ALICE, "chess show 999", "");
    let m = only_one(&mails, ALICE);
    assert_eq!(parts(m).top, "text/plain", "{}", m.raw);
    assert_sent_as_written(m);
    let mails = exchange(&mut s, ALICE, "help chess", "");
    let m = only_one(&mails, ALICE);
    assert_eq!(parts(m).top, "text/plain", "{}", m.raw);
}

#[test]
fn the_help_pages_say_how_to_get_text_only_mail() {
    let mut s = Install::new();
    // A player: a stranger gets one help page a command.
    exchange(&mut s, ALICE, "signup alice apw", "");
    let mails = exchange(&mut s, ALICE, "help commands drawing", "");
    let all: String = mails.iter().map(|m| m.body.as_str()).collect();
    assert!(
        all.contains("<game> set <userid> <password> plain|html"),
        "{all}"
    );
    assert!(
        all.contains("\"<game> set <userid> <password> plain\" sends\nyou text only"),
        "{all}"
    );
}

#[test]
fn a_double_chess_rank_line_goes_out_whole_in_7bit() {
    let mut s = two_players();
    let board = s.ok(&["admin", "challenge", "doublechess", "alice", "bob"]);
    s.poll();
    s.take_outbox();
    let mails = exchange(
        &mut s,
        BOB,
        &format!("doublechess show {}", board.trim()),
        "",
    );
    let m = only_one(&mails, BOB);
    // The widest line of the large drawing (74 columns: the file letters
    // with `Black` after them), close to the 76 columns at which
    // quoted-printable would cut it; the unit tests of `outbound` take
    // lines up to 78.
    let rank = m
        .body
        .lines()
        .max_by_key(|l| l.len())
        .expect("a drawing")
        .to_string();
    assert!(rank.len() >= 70, "{rank}");
    assert!(m.raw.contains(&format!("\r\n{rank}\r\n")), "{}", m.raw);
    // (A picture's base64 lines may end in `=`: its padding.)
    let text_parts = m.raw.split("Content-Type: image/png").next().unwrap();
    assert!(
        !text_parts.contains("=\r\n"),
        "a soft line break: {}",
        m.raw
    );
    assert!(!m.raw.to_ascii_lowercase().contains("quoted-printable"));
    assert!(m.raw.contains("Content-Transfer-Encoding: 7bit"));
    assert_sent_as_written(m);
}

#[test]
fn a_board_mail_with_non_ascii_text_goes_out_8bit_and_readable() {
    let mut s = two_players();
    let board = s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    s.poll();
    s.take_outbox();
    let subject = format!("chess move {} alice apw e4", board.trim());
    let mails = exchange(&mut s, ALICE, &subject, "Schöne Grüße, Bob <3 & co");
    let m = only_one(&mails, BOB);
    let p = parts(m);
    assert!(p.text.contains("Schöne Grüße, Bob <3 & co"), "{}", p.text);
    assert!(
        m.raw.contains("\r\nSchöne Grüße, Bob <3 & co\r\n"),
        "{}",
        m.raw
    );
    assert!(
        m.raw.contains("Schöne Grüße, Bob &lt;3 &amp; co"),
        "{}",
        m.raw
    );
    assert!(m.raw.contains("Content-Transfer-Encoding: 8bit"));
    assert_sent_as_written(m);
    let parsed = parse_html(&[p.html.clone().unwrap()]);
    assert_eq!(
        parsed[0].pre.lines().collect::<Vec<_>>(),
        p.text.lines().collect::<Vec<_>>()
    );
}

/// A reply as a mail program that shows our HTML part writes it: its own
/// text part with the move on top and our text quoted, its HTML part with
/// the move on top and our whole `<pre>` quoted. The text part is read:
/// the move plays, and nothing of the quoted board becomes a comment.
#[test]
fn a_reply_quoting_the_html_part_plays_from_its_text_part() {
    let mut s = two_players();
    s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    s.poll();
    let mails = s.take_outbox();
    let ours = only_one(&mails, ALICE);
    let html = parts(ours).html.expect("an HTML part");
    let parent = ours.header("Message-ID").unwrap();
    let quoted: Vec<String> = ours.body.lines().map(|l| format!("> {l}")).collect();
    let pre = html
        .split_once("<body>")
        .unwrap()
        .1
        .split_once("</body>")
        .unwrap()
        .0;
    let raw = format!(
        "From: {ALICE}\r\nTo: {}\r\nSubject: Re: {}\r\nMessage-ID: <r1@players.test>\r\n\
         In-Reply-To: {parent}\r\nReferences: {parent}\r\n\
         Date: Mon, 23 Nov 2026 10:05:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/alternative; boundary=\"b1\"\r\n\r\n\
         --b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         d4\r\nMy first move.\r\n\r\nOn Mon, Test PBM wrote:\r\n{}\r\n\
         --b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
         <html><body><div>d4</div><div>My first move.</div>\
         <blockquote>{}</blockquote></body></html>\r\n--b1--\r\n",
        common::SERVER_ADDRESS,
        ours.subject,
        quoted.join("\r\n"),
        pre.replace('\n', "\r\n"),
    );
    s.deliver_raw(&raw);
    s.poll();
    let mails = s.take_outbox();
    let to_bob = only_one(&mails, BOB);
    assert!(to_bob.body.contains("\n1. d4\n"), "{}", to_bob.body);
    assert!(
        to_bob
            .body
            .contains("Comment from alice:\nMy first move.\n\n"),
        "{}",
        to_bob.body
    );
    // The board once: the quoted one is no comment.
    assert_eq!(to_bob.body.matches("  8 |").count(), 1, "{}", to_bob.body);
}
