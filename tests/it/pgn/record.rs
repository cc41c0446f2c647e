//! `pgn` mails a game record that a strict reader of the PGN standard
//! (export format, section 8 of the 1994 standard) reads back, written here
//! independently of the server's writer; the moves it yields replay to the
//! board's final position. The end-of-game mail carries the same record.

use crate::common;

use common::{only_one, Install};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";

/// A game read from PGN export format.
#[derive(Debug)]
struct PgnGame {
    tags: Vec<(String, String)>,
    moves: Vec<String>,
    result: String,
}

/// Read one game in export format strictly: tag pairs one a line as
/// `[Name "value"]` with `\"` and `\\` escapes, the seven-tag roster first
/// and in order, one blank line, then move text of move numbers (`N.` for
/// White, `N...` before a Black move that does not follow its White move),
/// SAN tokens and one game termination marker equal to the Result tag;
/// lines under 80 characters. Any deviation is an error.
fn read_pgn(text: &str) -> Result<PgnGame, String> {
    let mut lines = text.lines();
    let mut tags = Vec::new();
    for line in lines.by_ref() {
        if line.is_empty() {
            break;
        }
        let inner = line
            .strip_prefix('[')
            .and_then(|l| l.strip_suffix(']'))
            .ok_or(format!("not a tag pair: {line}"))?;
        let (name, value) = inner.split_once(' ').ok_or(format!("no value: {line}"))?;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("bad tag name: {name}"));
        }
        let quoted = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .ok_or(format!("value not quoted: {line}"))?;
        let mut out = String::new();
        let mut chars = quoted.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(e @ ('\\' | '"')) => out.push(e),
                    _ => return Err(format!("bad escape: {line}")),
                },
                '"' => return Err(format!("unescaped quote: {line}")),
                c => out.push(c),
            }
        }
        tags.push((name.to_string(), out));
    }
    let roster = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
    for (i, name) in roster.iter().enumerate() {
        if tags.get(i).map(|(n, _)| n.as_str()) != Some(name) {
            return Err(format!("tag {i} is not {name}: {tags:?}"));
        }
    }
    let date = &tags[2].1;
    let parts: Vec<&str> = date.split('.').collect();
    if parts.len() != 3 || parts[0].len() != 4 || parts[1].len() != 2 || parts[2].len() != 2 {
        return Err(format!("bad date: {date}"));
    }
    let movetext: Vec<&str> = lines.collect();
    if movetext.iter().any(|l| l.len() >= 80) {
        return Err("a move text line is 80 characters or longer".into());
    }
    let tokens: Vec<&str> = movetext.iter().flat_map(|l| l.split_whitespace()).collect();
    let (result, body) = tokens.split_last().ok_or("no move text")?;
    if !["1-0", "0-1", "1/2-1/2", "*"].contains(result) || *result != tags[6].1 {
        return Err(format!(
            "termination {result} does not match the Result tag"
        ));
    }
    let mut moves = Vec::new();
    let mut expected_number = 1;
    let mut white_to_move = true;
    let mut numbered = false;
    for token in body {
        if let Some(n) = token.strip_suffix("...") {
            let n: u32 = n.parse().map_err(|_| format!("bad number: {token}"))?;
            if n != expected_number || white_to_move {
                return Err(format!("{token} out of place"));
            }
            numbered = true;
        } else if let Some(n) = token.strip_suffix('.') {
            let n: u32 = n.parse().map_err(|_| format!("bad number: {token}"))?;
            if n != expected_number || !white_to_move {
                return Err(format!("{token} out of place"));
            }
            numbered = true;
        } else {
            if white_to_move && !numbered {
                return Err(format!("White's move {token} has no number"));
            }
            let san_ok = token
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+#=-".contains(c));
            if !san_ok {
                return Err(format!("not a SAN token: {token}"));
            }
            moves.push(token.to_string());
            if !white_to_move {
                expected_number += 1;
            }
            white_to_move = !white_to_move;
            numbered = false;
        }
    }
    Ok(PgnGame {
        tags,
        moves,
        result: result.to_string(),
    })
}

#[test]
fn the_strict_reader_refuses_what_the_standard_refuses() {
    let good = "[Event \"e\"]\n[Site \"s\"]\n[Date \"2026.11.22\"]\n[Round \"-\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 1-0\n";
    assert!(read_pgn(good).is_ok());
    for bad in [
        good.replace("[Site \"s\"]\n", ""),
        good.replace("1. e4", "e4"),
        good.replace("2. Qh5", "3. Qh5"),
        good.replace(" 1-0\n", " 0-1\n"),
        good.replace("\"e\"", "\"e\"\"\""),
    ] {
        assert!(read_pgn(&bad).is_err(), "{bad}");
    }
}

#[test]
fn pgn_of_a_finished_chess_game_reads_back_and_replays() {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(ALICE, "chess challenge alice bob", "");
    s.poll();
    s.take_outbox();
    let game = [
        ("alice apw", "e4"),
        ("bob bpw", "e5"),
        ("alice apw", "Bc4"),
        ("bob bpw", "Nc6"),
        ("alice apw", "Qh5"),
        ("bob bpw", "Nf6"),
        ("alice apw", "Qxf7#"),
    ];
    let mut last = Vec::new();
    for (who, mv) in game {
        s.send(ALICE, &format!("chess move 101 {who} {mv}"), "");
        s.poll();
        last = s.take_outbox();
    }
    let final_mail = only_one(&last, BOB).body.clone();
    assert!(
        final_mail.contains("The game record (PGN):"),
        "{final_mail}"
    );

    s.send(BOB, "chess pgn 101", "");
    s.poll();
    let mails = s.take_outbox();
    let m = only_one(&mails, BOB);
    assert_eq!(m.subject, "Chess Board 101 record");
    let pgn = read_pgn(&m.body).unwrap_or_else(|e| panic!("{e}:\n{}", m.body));
    assert_eq!(pgn.result, "1-0");
    assert_eq!(pgn.tags[4], ("White".into(), "alice".into()));
    assert_eq!(pgn.tags[5], ("Black".into(), "bob".into()));
    assert!(
        pgn.tags.iter().all(|(n, _)| n != "FEN"),
        "from the start: no FEN"
    );
    assert_eq!(pgn.moves, ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    // The same record is in the end-of-game mail.
    let body_moves = m.body.split("\n\n").nth(1).unwrap().trim_end();
    assert!(final_mail.contains(body_moves), "{final_mail}");

    let chess = rules::game("chess").unwrap();
    let mut position = chess.start(&[]).unwrap();
    for mv in &pgn.moves {
        position.play(mv).unwrap();
    }
    assert!(matches!(
        position.outcome(),
        rules::Outcome::Won {
            winner: rules::Color::White,
            ..
        }
    ));
}

#[test]
fn pgn_of_another_game_has_a_variant_tag_and_an_active_board_is_unfinished() {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(ALICE, "doublechess challenge alice bob", "");
    s.poll();
    s.take_outbox();
    s.send(ALICE, "doublechess move 101 alice apw i4", "");
    s.send(BOB, "doublechess pgn 101", "");
    s.poll();
    let mails = s.take_outbox();
    let m = mails
        .iter()
        .find(|m| m.subject == "Double Chess Board 101 record")
        .unwrap();
    let pgn = read_pgn(&m.body).unwrap_or_else(|e| panic!("{e}:\n{}", m.body));
    assert_eq!(pgn.result, "*");
    assert!(pgn
        .tags
        .contains(&("Variant".to_string(), "Double Chess".to_string())));
    assert_eq!(pgn.moves, ["i4"]);
}
