//! Every line of every mail the server sends stays within 78 columns
//! (RFC 5322 §2.1.1): a realistic session through the real binary (`poll`
//! over a Maildir), its notices and errors read back from the outbox.

mod common;

use common::{only_one, parse_sent, Install, SentMail};

const ALICE: &str = "alice.with.a.rather.long.name@a-long-domain.example";
const BOB: &str = "bob@b.example";
const CAROL: &str = "carol@c.example";
const MALLORY: &str = "mallory@m.example";

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

/// The code in a confirmation mail's Subject (`confirm address alice K7Q2P9`).
fn code_of(mail: &SentMail) -> String {
    let words: Vec<&str> = mail.subject.split_whitespace().collect();
    assert_eq!(&words[..2], ["confirm", "address"], "{}", mail.subject);
    words[3].to_string()
}

/// Each line of `mail` (Subject and decoded body) wider than 78 columns.
fn wide_lines(mail: &SentMail) -> Vec<String> {
    std::iter::once(mail.subject.as_str())
        .chain(mail.body.lines())
        .filter(|l| l.chars().count() > 78)
        .map(str::to_string)
        .collect()
}

#[test]
fn every_notice_and_error_of_a_session_stays_within_78_columns() {
    let mut s = Install::confirming("");
    // Signup and confirmation (alice's address is long: it is quoted in
    // sentences).
    for (addr, user, pw) in [(ALICE, "alice", "apw"), (BOB, "bob", "bpw")] {
        let mails = round(&mut s, addr, &format!("signup {user} {pw}"), "");
        let code = code_of(only_one(&mails, addr));
        round(
            &mut s,
            addr,
            &format!("Re: confirm address {user} {code}"),
            "",
        );
    }
    // A signup left unconfirmed, a wrong code, a taken userid.
    round(&mut s, CAROL, "signup carol cpw", "");
    round(&mut s, CAROL, "confirm address carol WRONG1", "");
    round(&mut s, MALLORY, "signup alice mpw", "");
    // Help pages.
    for topic in [
        "help",
        "help commands",
        "help reply",
        "help drawing",
        "help chess",
        "help doublechess",
        "help doppelganger",
        "help shadowchess",
        "help mchess",
        "help zelig",
        "help zelig2",
        "help temporal",
        "help nothing",
    ] {
        round(&mut s, MALLORY, topic, "");
    }
    // Boards drawn small and from Black's side: their legend too.
    round(&mut s, BOB, "chess set bob bpw small", "");
    round(&mut s, BOB, "chess set bob bpw flip", "");
    // A game: a challenge, a refused challenge, a move, an illegal move,
    // a move out of turn, with a comment to quote back.
    round(&mut s, ALICE, "chess challenge alice bob", "");
    round(&mut s, ALICE, "chess challenge alice nobody", "");
    round(&mut s, ALICE, "chess challenge alice alice", "");
    round(&mut s, ALICE, "chess challenge alice carol", "");
    round(&mut s, ALICE, "chess move 101 alice apw e4", "Good luck!");
    let comment = "A long comment, written as one line as mail programs do, which \
                   goes on well past the width of a mail line before it ends.";
    round(&mut s, BOB, "chess move 101 bob bpw e4", comment);
    round(&mut s, BOB, "chess move 101 bob bpw Ke2", "");
    round(&mut s, ALICE, "chess move 101 alice apw d4", "");
    // A wrong password, then a stranger's flood of guesses: a lockout.
    round(&mut s, BOB, "chess move 101 bob wrong e5", "");
    let guesses: String = (0..50)
        .map(|i| format!("chess move 101 bob guess{i} e5\n"))
        .collect();
    round(&mut s, MALLORY, "multiple", &guesses);
    // A `multiple` mixing answers, and a mail the server cannot read.
    round(
        &mut s,
        BOB,
        "multiple",
        "chess games\nchess move 101 bob bpw Qh9\nmessage bob bpw alice\nhello\nfrobnicate\n",
    );
    round(&mut s, CAROL, "what is this", "");
    round(&mut s, BOB, "chess resign 101 bob bpw", "");

    let all: Vec<SentMail> = s.all_outbox_raw().iter().map(|r| parse_sent(r)).collect();
    // The session produced the mails it is meant to check.
    assert!(all.len() >= 25, "{}", all.len());
    for subject in ["Error", "Account locked for a while"] {
        assert!(all.iter().any(|m| m.subject == subject), "{subject}");
    }
    assert!(all.iter().any(|m| m
        .body
        .contains("lower case; - is an empty dark square;\ndrawn from Black's side.")));
    // Chess boards are narrow; only Temporal and Shadow Chess boards are
    // known to be wider (issue #23), and none is played here.
    let wide: Vec<String> = all
        .iter()
        .flat_map(|m| {
            wide_lines(m)
                .into_iter()
                .map(move |l| format!("[{}] {l}", m.subject))
        })
        .collect();
    assert!(
        wide.is_empty(),
        "lines over 78 columns:\n{}",
        wide.join("\n")
    );
}
