//! A tournament's PGN by mail: one Event for the whole tournament,
//! `Round "r.b"`, the players' ratings when each game began, the
//! tournament's start; read back by python-chess and pgn-extract.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use super::{
    create_tournament, finish, install_with, mail_to, new_boards, say, tour, Board, Ending, Player,
    ANN, BEN, CAT, CONFIG, DAN, FAY,
};

/// Whether a reader of PGN must be there: under CI (`CI=true`, or the
/// CI script's `PBMCHESS_TEST_SERVERS_REQUIRED=1`) a missing one fails
/// the test; elsewhere it is skipped, saying why.
fn readers_required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("PBMCHESS_TEST_SERVERS_REQUIRED").is_ok_and(|v| v == "1")
}

/// `pgn-extract` on the PATH or where Debian puts it.
fn pgn_extract() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([PathBuf::from("/usr/games")])
        .map(|dir| dir.join("pgn-extract"))
        .find(|p| p.is_file())
}

/// Whether `python3` can import python-chess.
fn python_chess() -> bool {
    Command::new("python3")
        .args(["-c", "import chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What python-chess reads of each game: its tags as `Name=value`
/// lines, its mainline's ply count and its errors, one block per game.
const READ_WITH_PYTHON_CHESS: &str = r#"
import sys, chess.pgn
with open(sys.argv[1]) as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        for name, value in game.headers.items():
            print(f"{name}={value}")
        print(f"plies={len(list(game.mainline_moves()))}")
        print(f"errors={[str(e) for e in game.errors]}")
        print("--")
"#;

/// The tags of each game of a PGN text, in order.
fn games_tags(pgn: &str) -> Vec<BTreeMap<String, String>> {
    pgn.split("[Event ")
        .skip(1)
        .map(|game| {
            format!("[Event {game}")
                .lines()
                .filter_map(|l| l.strip_prefix('[')?.strip_suffix("\"]"))
                .filter_map(|l| l.split_once(" \""))
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// A 4-player Swiss whose round 1 is played (a fool's mate and a draw)
/// and round 2 paired: its PGN holds four games under one Event, each
/// `Round "r.b"` with the ratings the players had when it began (ann
/// and ben rated, cat and dan at the start rating in round 1; round 2
/// with what round 1 made of them), `EventDate` the
/// start; python-chess reads every game and its moves without an error,
/// and pgn-extract finds no error and all four games.
#[test]
fn a_tournaments_pgn_is_one_event_with_rounds_ratings_and_loads_in_pgn_readers() {
    let test = "a_tournaments_pgn_is_one_event_with_rounds_ratings_and_loads_in_pgn_readers";
    let extract = pgn_extract();
    let python = python_chess();
    if extract.is_none() || !python {
        let mut missing = Vec::new();
        if !python {
            missing.push("python-chess (pip install chess==1.11.2)");
        }
        if extract.is_none() {
            missing.push("pgn-extract (apt-get install pgn-extract)");
        }
        let why = format!("missing {}", missing.join(" and "));
        assert!(
            !readers_required(),
            "{test}: PGN readers required but {why}"
        );
        common::servers::skip(test, &why);
        return;
    }
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    let ratings: BTreeMap<Player, i64> =
        [(ANN, 1812), (BEN, 1703), (CAT, 1600), (DAN, 1600)].into();
    {
        let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
        for p in [ANN, BEN] {
            conn.execute(
                "INSERT INTO ratings (game, userid, rating, games) VALUES ('chess', ?1, ?2, 12)",
                rusqlite::params![p.user(), ratings[&p]],
            )
            .unwrap();
        }
    }
    create_tournament(&mut s, ANN, "pgnday", "swiss 4 rounds 2");
    let mut round1 = BTreeMap::new();
    for p in [BEN, CAT, DAN] {
        round1 = new_boards(&tour(&mut s, "join", "pgnday", p), "pgnday", &all);
    }
    let round1: Vec<Board> = round1.into_values().collect();
    assert_eq!(round1.len(), 2, "{round1:#?}");
    finish(&mut s, &round1[0], Ending::Win(round1[0].black));
    let mails = finish(&mut s, &round1[1], Ending::Draw);
    let round2: Vec<Board> = new_boards(&mails, "pgnday", &all).into_values().collect();
    assert_eq!(round2.len(), 2, "{mails:#?}");
    // Round 2 began with the ratings round 1 left (none of its games has
    // ended since).
    let later: BTreeMap<Player, i64> = {
        let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
        [ANN, BEN, CAT, DAN]
            .into_iter()
            .map(|p| {
                let rating = conn
                    .query_row(
                        "SELECT rating FROM ratings WHERE game = 'chess' AND userid = ?1",
                        [p.user()],
                        |r| r.get(0),
                    )
                    .unwrap();
                (p, rating)
            })
            .collect()
    };
    assert_ne!(later, ratings, "round 1 changed the ratings");

    let pgn = mail_to(&say(&mut s, FAY, "chess tournament pgn pgnday"), FAY).body;
    let games = games_tags(&pgn);
    assert_eq!(games.len(), 4, "{pgn}");
    let boards: Vec<&Board> = round1.iter().chain(&round2).collect();
    let start = games[0]["Date"].clone();
    for (tags, board) in games.iter().zip(&boards) {
        let place = if board.round == 1 { &round1 } else { &round2 }
            .iter()
            .filter(|b| b.number <= board.number)
            .count();
        assert_eq!(tags["Event"], "Chess tournament pgnday", "{pgn}");
        assert_eq!(tags["Round"], format!("{}.{place}", board.round), "{pgn}");
        assert_eq!(tags["White"], board.white.user(), "{pgn}");
        let at_start = if board.round == 1 { &ratings } else { &later };
        assert_eq!(
            tags["WhiteElo"],
            at_start[&board.white].to_string(),
            "{pgn}"
        );
        assert_eq!(
            tags["BlackElo"],
            at_start[&board.black].to_string(),
            "{pgn}"
        );
        assert_eq!(tags["EventDate"], start, "{pgn}");
    }

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pgnday.pgn");
    std::fs::write(&file, &pgn).unwrap();
    let read = Command::new("python3")
        .args(["-c", READ_WITH_PYTHON_CHESS])
        .arg(&file)
        .output()
        .unwrap();
    assert!(read.status.success(), "{read:?}");
    let read = String::from_utf8(read.stdout).unwrap();
    let blocks: Vec<&str> = read
        .split("--\n")
        .filter(|b| !b.trim().is_empty())
        .collect();
    assert_eq!(blocks.len(), 4, "python-chess reads four games: {read}");
    for (block, board) in blocks.iter().zip(&boards) {
        assert!(block.contains("errors=[]\n"), "{block}");
        assert!(block.contains("Event=Chess tournament pgnday\n"), "{block}");
        let at_start = if board.round == 1 { &ratings } else { &later };
        assert!(
            block.contains(&format!("WhiteElo={}\n", at_start[&board.white])),
            "{block}"
        );
        assert!(
            block.contains(&format!("Round={}.", board.round)),
            "{block}"
        );
    }
    // The fool's mate: four plies, read as moves.
    assert!(blocks[0].contains("plies=4\n"), "{}", blocks[0]);

    let extract = extract.unwrap();
    let checked = Command::new(&extract)
        .args(["-s", "-r"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        checked.status.success() && checked.stderr.is_empty() && checked.stdout.is_empty(),
        "pgn-extract reports: {checked:?}"
    );
    let out = dir.path().join("out.pgn");
    let extracted = Command::new(&extract)
        .arg("-s")
        .arg(format!("-o{}", out.display()))
        .arg(&file)
        .output()
        .unwrap();
    assert!(extracted.status.success(), "{extracted:?}");
    let again = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        again.matches("[Event \"Chess tournament pgnday\"]").count(),
        4,
        "{again}"
    );
    assert_eq!(again.matches("[WhiteElo ").count(), 4, "{again}");
}
