//! The whole score in turn mails (`set … moves all`, the default) in every
//! game, within 78 columns; `set … moves last` keeps the last five moves.

use crate::common::{to, Install, SentMail};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

/// Limits wide enough for a game mailed in three `multiple`s.
const LIMITS: &str =
    "[limits]\ncommands_per_hour = 1000\ncommands_per_hour_per_account = 1000\ncommands_per_hour_total = 10000\n";

/// `plies` legal plies of `game` from its start, as the rules write them,
/// each leaving the game running, with the seat that plays it.
fn a_game(game: &str, plies: usize) -> Vec<(rules::Color, String)> {
    let rules = rules::game(game).unwrap();
    let mut position = rules.start(&[]).unwrap();
    let mut out = Vec::new();
    for k in 0..plies {
        let actions = position.legal_actions();
        let seat = position.to_act();
        let played = (0..actions.len())
            .map(|i| &actions[(7 * k + 3 + i) % actions.len()])
            .find_map(|action| {
                let mut next = position.clone_box();
                let played = next.play(action).ok()?;
                // The notation read back leads to the same position.
                let mut read = position.clone_box();
                read.play(&played.notation).ok()?;
                let same = read.to_text() == next.to_text();
                (same && next.outcome() == rules::Outcome::Ongoing)
                    .then_some((next, played.notation))
            });
        let (next, notation) = played.unwrap_or_else(|| panic!("{game}: no way on at ply {k}"));
        position = next;
        out.push((seat, notation));
    }
    out
}

fn line(game: &str, seat: rules::Color, notation: &str) -> String {
    let who = if seat == rules::Color::White {
        "alice apw"
    } else {
        "bob bpw"
    };
    format!("{game} move 101 {who} {notation}")
}

/// A board of `game` where 119 plies were mailed, and the turn mail of the
/// 120th (60 moves): the mail to the player who did not send it.
fn sixty_moves(game: &str, s: &mut Install) -> (Vec<(rules::Color, String)>, SentMail) {
    let plies = a_game(game, 120);
    let n = s.ok(&["admin", "challenge", game, "alice", "bob"]);
    assert_eq!(n.trim(), "101", "{game}");
    for chunk in plies[..119].chunks(50) {
        let body: Vec<String> = chunk.iter().map(|(s, m)| line(game, *s, m)).collect();
        s.send(ALICE, "multiple", &body.join("\n"));
        s.poll();
        let mails = s.take_outbox();
        // Every ply played: nothing refused.
        assert!(
            mails.iter().all(|m| !m.body.contains("Refused: ")),
            "{game}: {mails:#?}"
        );
    }
    let (seat, last) = &plies[119];
    let (from, other) = if *seat == rules::Color::White {
        (ALICE, BOB)
    } else {
        (BOB, ALICE)
    };
    s.send(from, &line(game, *seat, last), "");
    s.poll();
    let mails = s.take_outbox();
    let got = to(&mails, other);
    assert_eq!(got.len(), 1, "{game}: {mails:#?}");
    (plies, got[0].clone())
}

fn install() -> Install {
    let mut s = Install::with_config(LIMITS);
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    s.take_outbox();
    s
}

#[test]
fn a_sixty_move_turn_mail_shows_the_whole_score_in_every_game() {
    for game in game::command::GAME_NAMES {
        let mut s = install();
        let (plies, mail) = sixty_moves(game, &mut s);
        let body = &mail.body;
        let count = s.ok(&["admin", "show", game, "101", "--size", "small"]);
        assert!(!count.contains("finished"), "{game}: {count}");
        // The score from its first move on (the first ply's line), and
        // its last.
        let moves: Vec<&str> = body
            .lines()
            .skip_while(|l| !l.starts_with("1. ") && !l.starts_with(" 1. "))
            .take_while(|l| !l.is_empty())
            .collect();
        assert!(!moves.is_empty(), "{game}: {body}");
        let first = plies[0].1.split_whitespace().next().unwrap();
        assert!(moves[0].contains(first), "{game}: {first} in {body}");
        let last = plies[119].1.split_whitespace().next().unwrap();
        let numbered = |l: &&&str| {
            l.trim_start()
                .split_once(". ")
                .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
        };
        let last_line = moves.iter().rfind(numbered).unwrap();
        assert!(last_line.contains(last), "{game}: {last} in {body}");
        // No move left out between the first and the last: the lines
        // numbered 1, 2, 3 ... (a game whose plies share a line, Shadow
        // Chess's reveals, has fewer than 60).
        let numbers: Vec<u32> = moves
            .iter()
            .filter(numbered)
            .filter_map(|l| l.trim_start().split_once(". ")?.0.parse().ok())
            .collect();
        let lines = numbers.len();
        assert_eq!(numbers, (1..=lines as u32).collect::<Vec<_>>(), "{game}");
        assert!(lines >= 40, "{game}: {lines} move lines in {body}");
        assert!(!body.contains("\n...\n"), "{game}: {body}");
        for l in body.lines() {
            assert!(l.chars().count() <= 78, "{game}: {l:?}");
        }
    }
}

#[test]
fn set_moves_last_keeps_the_last_five_moves_and_all_brings_the_score_back() {
    let mut s = install();
    s.send(ALICE, "chess set alice apw moves last", "");
    s.poll();
    let mails = s.take_outbox();
    let told = to(&mails, ALICE);
    assert_eq!(told.len(), 1, "{mails:#?}");
    assert!(
        crate::common::joined(&told[0].body)
            .contains("only the last five moves, alice, in every game"),
        "{}",
        told[0].body
    );
    // Black plays ply 120: alice gets its turn mail.
    let (plies, mail) = sixty_moves("chess", &mut s);
    let numbered = |body: &str| {
        body.lines()
            .filter(|l| {
                l.split('.')
                    .next()
                    .is_some_and(|n| !n.is_empty() && n.trim().parse::<u32>().is_ok())
            })
            .count()
    };
    let n = numbered(&mail.body);
    assert!((5..=6).contains(&n), "{n} in {}", mail.body);
    assert!(
        !mail.body.lines().any(|l| l.starts_with(" 1. ")),
        "{}",
        mail.body
    );
    // Back to the whole score, for every game.
    s.send(ALICE, "doublechess set alice apw moves all", "");
    s.poll();
    let mails = s.take_outbox();
    assert!(
        crate::common::joined(&to(&mails, ALICE)[0].body).contains("the whole score"),
        "{mails:#?}"
    );
    let more = a_game("chess", 122);
    assert_eq!(more[..120], plies[..]);
    for (seat, m) in &more[120..] {
        let from = if *seat == rules::Color::White {
            ALICE
        } else {
            BOB
        };
        s.send(from, &line("chess", *seat, m), "");
        s.poll();
    }
    let mails = s.take_outbox();
    let turn = to(&mails, ALICE);
    let mail = turn.last().unwrap();
    assert!(numbered(&mail.body) >= 61, "{}", mail.body);
}
