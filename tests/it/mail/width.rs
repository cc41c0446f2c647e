//! Every line of every mail the server sends stays within 78 columns
//! (RFC 5322 §2.1.1): a realistic session through the real binary (`poll`
//! over a Maildir), its notices and errors read back from the outbox.

use crate::common;

use common::world::World;
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
        "help tournament",
        "help if",
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
    // Every game's boards are walked by the test below.
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

const BLACK: &str = "bob_with_a_rather_long_userid_32";

/// The four readers of every board: each size, each side; Black's userid
/// is as long as a userid may be (32), so headers and listings are wide.
const READERS: [(&str, &str, &str); 4] = [
    ("alice", "a@w.test", "large noflip"),
    (BLACK, "b@w.test", "small flip"),
    ("carol", "c@w.test", "large flip"),
    ("dave", "d@w.test", "small noflip"),
];

/// Each line over 78 columns of the mails `w` queued since the last look,
/// with the Subject it was in; `seen` counts the mails looked at.
fn overlong(w: &mut World, seen: &mut Vec<String>) -> Vec<String> {
    let mut wide = Vec::new();
    for m in w.replies() {
        seen.push(m.subject.clone());
        for line in std::iter::once(m.subject.as_str()).chain(m.body.lines()) {
            if line.chars().count() > 78 {
                wide.push(format!("[{}] {line}", m.subject));
            }
        }
    }
    wide
}

/// One game played by mail with a random legal action each turn (the same
/// ones every run) until it ends or 40 plies are played, then resigned;
/// every board mail is copied to observers of each size and side, and
/// each reader asks for a preview, a historic view, the PGN, the help and
/// the listings, and sends an illegal move.
fn walk(game: &'static dyn rules::Game, seed: u64) -> (Vec<String>, Vec<String>) {
    let name = game.name();
    let mut w = World::new();
    let mut seen = Vec::new();
    for (user, addr, how) in READERS {
        w.mail(addr, &format!("signup {user} {user}pw"), "");
        for word in how.split(' ') {
            w.mail(addr, &format!("{name} set {user} {user}pw {word}"), "");
        }
    }
    w.mail("a@w.test", &format!("{name} challenge alice {BLACK}"), "");
    for (user, addr, _) in &READERS[2..] {
        w.mail(addr, &format!("{name} subscribe 101 {user} {user}pw"), "");
    }
    let mut wide = overlong(&mut w, &mut seen);
    let mut position = game.start(&[]).unwrap();
    // Seeded, so the walk is the same on every run.
    let mut dice = fastrand::Rng::with_seed(seed);
    let mut ply = 0;
    while ply < 40 && position.outcome() == rules::Outcome::Ongoing {
        let actions = position.legal_actions();
        if actions.is_empty() {
            break;
        }
        let action = actions[dice.usize(..actions.len())].clone();
        let (user, addr) = match position.to_act() {
            rules::Color::White => ("alice", "a@w.test"),
            rules::Color::Black => (BLACK, "b@w.test"),
        };
        let comment = "A comment written as one long line, as mail programs do, \
                       which goes on well past the width of a mail line.";
        w.mail(
            addr,
            &format!("{name} move 101 {user} {user}pw {action}"),
            comment,
        );
        position.play(&action).unwrap();
        ply += 1;
        let before = seen.len();
        wide.extend(overlong(&mut w, &mut seen));
        // The move was played: its board mail went to both players and
        // both observers, and nothing was refused.
        assert!(
            seen.len() - before >= 4,
            "{name} {action}: {:?}",
            &seen[before..]
        );
        assert!(
            seen[before..].iter().all(|s| !s.contains("Error")),
            "{name} {action}: {:?}",
            &seen[before..]
        );
    }
    for (user, addr, _) in READERS {
        let long_move = "Qh9".repeat(40);
        for subject in [
            format!(
                "{name} preview 101 {}",
                position.legal_actions().first().map_or("x", String::as_str)
            ),
            format!("{name} show 101#3"),
            format!("{name} show 101"),
            format!("{name} pgn 101"),
            format!("{name} help"),
            format!("help {name}"),
            format!("{name} games"),
            format!("{name} players"),
            format!("{name} move 101 {user} {user}pw zz9"),
            format!("{name} move 101 {user} {user}pw {long_move}"),
            format!("{name} preview new {long_move}"),
        ] {
            w.mail(addr, &subject, "");
        }
        wide.extend(overlong(&mut w, &mut seen));
    }
    if position.outcome() == rules::Outcome::Ongoing {
        w.mail("a@w.test", &format!("{name} resign 101 alice alicepw"), "");
    }
    for subject in [
        format!("{name} pgn 101"),
        format!("{name} standings"),
        format!("{name} history"),
        format!("{name} show 101"),
        "list".to_string(),
    ] {
        w.mail("d@w.test", &subject, "");
    }
    wide.extend(overlong(&mut w, &mut seen));
    (wide, seen)
}

#[test]
fn every_mail_of_every_game_in_each_size_and_side_stays_within_78_columns() {
    let mut wide = Vec::new();
    for (k, game) in rules::registry().iter().enumerate() {
        let (lines, seen) = walk(*game, 0x9E37_79B9_7F4A_7C15 ^ k as u64);
        // The walk reached the mails it is meant to check.
        for kind in ["finished", "(historic)", "Error"] {
            assert!(
                seen.iter().any(|s| s.contains(kind)),
                "{}: no {kind} mail among {seen:?}",
                game.name()
            );
        }
        wide.extend(lines.into_iter().map(|l| format!("{}: {l}", game.name())));
    }
    assert!(
        wide.is_empty(),
        "{} lines over 78 columns:\n{}",
        wide.len(),
        wide.join("\n")
    );
}

#[test]
fn a_long_subject_in_a_multiple_answer_and_a_long_quoted_command_are_cut() {
    let mut w = World::new();
    w.config.server.name = "The Example Chess Club Mailbox".into();
    w.mail("a@w.test", "signup alice alicepw", "");
    w.mail("b@w.test", "signup bob bobpw", "");
    w.mail("a@w.test", "chess challenge alice bob", "");
    w.replies();
    let long_move = "Qh9".repeat(40);
    w.mail(
        "a@w.test",
        "multiple",
        &format!("signup {BLACK} pw\nhelp chess\nchess move 101 alice alicepw {long_move}\n"),
    );
    let mails = w.replies();
    assert_eq!(mails.len(), 1, "{mails:?}");
    let body = &mails[0].body;
    for line in body.lines() {
        assert!(line.chars().count() <= 78, "{line}\n{body}");
    }
    // The welcome's Subject (75 characters) cut and marked, a short one
    // whole.
    assert!(
        body.lines()
            .any(|l| l.starts_with("=== Welcome to The Example") && l.ends_with("... ===")),
        "{body}"
    );
    assert!(body.contains("\n=== Help for Chess ===\n"), "{body}");
    // The quoted command: its start as sent, the password masked, the cut
    // marked.
    let quote = body
        .lines()
        .skip_while(|l| *l != "Your command was:")
        .nth(1)
        .unwrap();
    assert!(
        quote.starts_with("  chess move 101 alice ***** Qh9Qh9"),
        "{quote}"
    );
    assert!(quote.ends_with("..."), "{quote}");
    assert!(!body.contains("alicepw"), "{body}");
}

/// The widest line of a game's start position drawn in `size` from either
/// side, the key under it left out.
fn drawing_width(game: &dyn rules::Game, size: game::command::BoardSize) -> usize {
    let diagram = game.start(&[]).unwrap().diagram();
    [false, true]
        .into_iter()
        .map(|from_black| {
            let text = game::render::board(&diagram, game::render::Drawing { size, from_black });
            text.lines()
                .take_while(|l| !l.starts_with("White pieces") && !l.starts_with("Black pieces"))
                .map(|l| l.chars().count())
                .max()
                .unwrap()
        })
        .max()
        .unwrap()
}

#[test]
fn each_games_help_states_its_drawings_real_width() {
    use game::command::BoardSize;
    let mut w = World::new();
    for game in rules::registry() {
        let large = drawing_width(*game, BoardSize::Large);
        let small = drawing_width(*game, BoardSize::Small);
        assert!(
            large <= 78 && small <= 78,
            "{}: {large} {small}",
            game.name()
        );
        w.mail("a@w.test", &format!("help {}", game.name()), "");
        let mails = w.replies();
        let help = common::joined(&mails[0].body);
        let said = format!("The large drawing is {large} columns wide, the small one {small}");
        assert!(
            help.contains(&said),
            "{}: not {said:?} in {help}",
            game.name()
        );
    }
}
