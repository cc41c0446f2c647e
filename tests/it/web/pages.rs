//! Every page type for all eight games and a tournament: they answer,
//! the move list is the database's, each ply's link shows the position
//! after it, nothing private shows, every value is escaped, and every
//! answer carries the security headers.

use rusqlite::Connection;

use super::{unescape, Answer, Web};
use crate::common::Install;

pub const PLAYERS: [&str; 4] = ["alice", "bob", "carol", "dave"];

/// What a comment in the league says: an address and markup.
pub const NASTY_COMMENT: &str = "see <script>alert(1)</script> & write to alice@players.test";

/// Plies played on each game's board.
const PLIES: usize = 5;

/// An installation with four players, one board of every game between
/// alice and bob with [`PLIES`] plies played by mail (the second with
/// [`NASTY_COMMENT`]), the chess board resigned by bob after them, and a
/// round robin `spring` of all four (started: its six boards made).
pub fn league(extra: &str) -> Install {
    let mut install = Install::with_config(&format!("[web]\nlisten = \"127.0.0.1:0\"\n{extra}"));
    for p in PLAYERS {
        install.ok(&[
            "admin",
            "user",
            "add",
            p,
            "hunter2x",
            &format!("{p}@players.test"),
        ]);
    }
    for game in rules::registry() {
        install.ok(&["admin", "challenge", game.name(), "alice", "bob"]);
    }
    let db = install.path("var/db.sqlite");
    let boards = boards(&db);
    for (name, number) in &boards {
        let game = rules::game(name).unwrap();
        let mut position = game.start(&[]).unwrap();
        for ply in 0..PLIES {
            let actions = position.legal_actions();
            let action = actions[(ply * 7 + 3) % actions.len()].clone();
            let who = ["alice", "bob"][position.to_act().index()];
            let body = if ply == 1 { NASTY_COMMENT } else { "" };
            install.send(
                &format!("{who}@players.test"),
                &format!("{name} move {number} {who} hunter2x {action}"),
                body,
            );
            position.play(&action).unwrap();
        }
    }
    install.send("bob@players.test", "chess resign 101 bob hunter2x", "");
    install.poll();
    for (name, number) in &boards {
        assert_eq!(plies(&db, name, *number).len(), PLIES, "{name} {number}");
    }
    install.ok(&[
        "admin",
        "tournament",
        "create",
        "spring",
        "chess",
        "--kind",
        "roundrobin",
        "--players",
        "4",
    ]);
    for p in PLAYERS {
        install.ok(&["admin", "tournament", "join", "spring", p]);
    }
    install
}

/// Every board: (game, number), in number order.
pub fn boards(db: &std::path::Path) -> Vec<(String, u32)> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT game, board FROM boards ORDER BY board")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The plies of a board as the database holds them: (number, notation).
pub fn plies(db: &std::path::Path, game: &str, board: u32) -> Vec<(u32, String)> {
    let conn = Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT ply, notation FROM plies WHERE game = ?1 AND board = ?2 ORDER BY ply")
        .unwrap();
    stmt.query_map(rusqlite::params![game, board], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// What every answer must be: the security headers, no address, no
/// script in the page, no inline style.
fn sound(path: &str, answer: &Answer) {
    let csp = answer
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{path}: no CSP"));
    assert!(csp.contains("default-src 'none'"), "{path}: {csp}");
    assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
    assert!(!csp.contains("unsafe"), "{path}: {csp}");
    assert!(
        !csp.contains("http"),
        "{path}: no third-party source: {csp}"
    );
    assert_eq!(answer.header("x-content-type-options"), Some("nosniff"));
    let body = &answer.body;
    assert!(!has_address(body), "{path}: an address in\n{body}");
    for secret in ["hunter2x", "players.test", "argon2"] {
        assert!(!body.contains(secret), "{path}: {secret:?} in\n{body}");
    }
    assert!(!body.contains("<script>"), "{path}: inline script");
    assert!(!body.contains(" style="), "{path}: inline style");
    for handler in [" onload=", " onclick=", " onerror=", "javascript:"] {
        assert!(!body.contains(handler), "{path}: {handler}");
    }
}

/// Whether `text` holds something like a mail address: `x@y.z` (a drop
/// in Temporal's notation, `B@Bb3`, has no domain).
fn has_address(text: &str) -> bool {
    text.match_indices('@').any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let domain: String = text[at + 1..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '-')
            .collect();
        before.is_some_and(|c| c.is_alphanumeric() || "._%+-".contains(c))
            && domain
                .split_once('.')
                .is_some_and(|(host, top)| !host.is_empty() && top.starts_with(char::is_alphabetic))
    })
}

#[test]
fn the_address_finder_finds_addresses_and_not_drops() {
    assert!(has_address("mail alice@players.test now"));
    assert!(has_address("<pbm@games.test>"));
    assert!(!has_address("K@Aa4 B@Bb3 Q@a1. @home"));
}

fn page(web: &Web, path: &str) -> String {
    let answer = web.get(path);
    assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    sound(path, &answer);
    answer.body
}

/// The notations the move table links, in order, with their ply numbers.
fn linked_plies(body: &str, game: &str, board: u32) -> Vec<(u32, String)> {
    let table = body
        .split("<table class=\"moves\">")
        .nth(1)
        .map(|t| t.split("</table>").next().unwrap())
        .unwrap_or("");
    let marker = format!("href=\"/game/{game}/board/{board}?ply=");
    table
        .split(&marker)
        .skip(1)
        .map(|rest| {
            let (n, after) = rest.split_once('"').unwrap();
            let text = after
                .split_once('>')
                .unwrap()
                .1
                .split_once("</a>")
                .unwrap()
                .0;
            (n.parse().unwrap(), unescape(text))
        })
        .collect()
}

/// The picture's `<desc>`: the position text it draws.
fn drawn_position(body: &str) -> String {
    let desc = body
        .split("<desc>")
        .nth(1)
        .expect("a picture")
        .split("</desc>")
        .next();
    unescape(desc.unwrap())
}

#[test]
fn every_page_of_every_game_answers_with_the_database_s_moves_and_nothing_private() {
    let install = league("requests_per_minute = 100000\nburst = 10000\n");
    let db = install.path("var/db.sqlite");
    let web = Web::start(&install);
    let boards = boards(&db);
    let games: Vec<&str> = rules::registry().iter().map(|g| g.name()).collect();
    assert!(boards.len() >= games.len() + 6, "{boards:?}");

    let index = page(&web, "/");
    for game in &games {
        assert!(index.contains(&format!("href=\"/game/{game}\"")), "{game}");
    }
    for (name, number) in &boards {
        let game = rules::game(name).unwrap();
        let stored = plies(&db, name, *number);
        // The board now: its move list is the database's.
        let now = page(&web, &format!("/game/{name}/board/{number}"));
        assert_eq!(linked_plies(&now, name, *number), stored, "{name} {number}");
        assert!(now.contains("<svg"), "{name} {number}: a picture");
        assert!(now.contains("Observers: 0."), "{name}");
        // Each ply's link shows the position after it.
        let mut position = game.start(&[]).unwrap();
        for k in 0..=stored.len() {
            if k > 0 {
                position.play(&stored[k - 1].1).unwrap();
            }
            let then = page(&web, &format!("/game/{name}/board/{number}?ply={k}"));
            assert_eq!(
                drawn_position(&then),
                position.to_text(),
                "{name} {number} ply {k}"
            );
            assert_eq!(linked_plies(&then, name, *number), stored);
            if k < stored.len() {
                assert!(
                    then.contains(&format!("The position after ply {k} of")),
                    "{name} {k}"
                );
            }
            // The squares the ply changed are marked (a move's two, a
            // drop's one); none at the start.
            let marked = then.matches("fill=\"#e8e030\"").count();
            match k {
                0 => assert_eq!(marked, 0, "{name} {number}"),
                _ if *name == "chess" => assert!(marked >= 2, "{name} {number} ply {k}"),
                _ => assert!(marked >= 1, "{name} {number} ply {k}"),
            }
        }
        // The game record: the same moves, no address.
        let pgn = web.get(&format!("/game/{name}/board/{number}/pgn"));
        assert_eq!(pgn.status, 200);
        sound("pgn", &pgn);
        assert!(pgn.body.contains("[Site \"Test PBM\"]"), "{}", pgn.body);
        assert!(pgn.header("content-type").unwrap().contains("pgn"));
        // The feed: one entry per ply (and one for the end).
        let feed = web.get(&format!("/game/{name}/board/{number}/feed"));
        assert_eq!(feed.status, 200);
        sound("feed", &feed);
        assert!(feed.body.starts_with("<?xml"), "{}", feed.body);
        let ended = usize::from(*name == "chess" && *number == 101);
        assert_eq!(
            feed.body.matches("<entry>").count(),
            stored.len() + ended,
            "{}",
            feed.body
        );
        assert_eq!(
            feed.body.matches("<entry>").count(),
            feed.body.matches("</entry>").count()
        );
        // A ply past the last is a plain 404 page.
        let past = web.get(&format!(
            "/game/{name}/board/{number}?ply={}",
            stored.len() + 1
        ));
        assert_eq!(past.status, 404);
        sound("past", &past);
    }
    // From Black's side: another picture, and the links keep the side.
    let white = page(&web, "/game/chess/board/101?ply=2");
    let black = page(&web, "/game/chess/board/101?ply=2&side=black");
    let svg = |p: &str| {
        p.split("<svg")
            .nth(1)
            .unwrap()
            .split("</svg>")
            .next()
            .unwrap()
            .to_string()
    };
    assert_ne!(svg(&white), svg(&black));
    assert_eq!(drawn_position(&white), drawn_position(&black));
    assert!(
        black.contains("href=\"/game/chess/board/101?ply=1&amp;side=black\""),
        "{black}"
    );
    assert!(
        white.contains("href=\"/game/chess/board/101?ply=2&amp;side=black\""),
        "{white}"
    );
    // The comment: escaped, its address hidden, on the board and its feed.
    let board = page(&web, "/game/chess/board/101");
    assert!(
        board.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; write to [address hidden]"),
        "{board}"
    );
    assert!(web
        .get("/game/chess/board/101/feed")
        .body
        .contains("&lt;script&gt;"));
    assert!(board.contains("Game won by alice"), "{board}");
    for game in &games {
        let list = page(&web, &format!("/game/{game}"));
        assert!(list.contains("Active boards") && list.contains("Finished boards"));
        page(&web, &format!("/game/{game}/standings"));
    }
    let finished = page(&web, "/game/chess");
    let (active, done) = finished.split_once("Finished boards").unwrap();
    assert!(
        done.contains("href=\"/game/chess/board/101\""),
        "{finished}"
    );
    assert!(
        !active.contains("href=\"/game/chess/board/101\""),
        "{finished}"
    );
    let standings = page(&web, "/game/chess/standings");
    assert!(
        standings.contains("href=\"/player/alice\"") && standings.contains("1616"),
        "{standings}"
    );
    // Players: boards, results, the rating chart, the feed.
    for p in PLAYERS {
        page(&web, &format!("/player/{p}"));
        let feed = web.get(&format!("/player/{p}/feed"));
        assert_eq!(feed.status, 200);
        sound("player feed", &feed);
    }
    let alice = page(&web, "/player/alice");
    assert!(alice.contains("<polyline"), "a rating chart: {alice}");
    assert!(alice.contains("chess board 101: 1616"), "{alice}");
    assert!(
        web.get("/player/alice/feed")
            .body
            .matches("<entry>")
            .count()
            >= 8 * PLIES / 2
    );
    assert_eq!(web.get("/player/nobody").status, 404);
    // The tournament: listed, its crosstable and rounds, its games.
    let list = page(&web, "/tournaments");
    assert!(
        list.contains("href=\"/game/chess/tournament/spring\""),
        "{list}"
    );
    let spring = page(&web, "/game/chess/tournament/spring");
    assert!(
        spring.contains("Crosstable") && spring.contains("Rounds"),
        "{spring}"
    );
    for p in PLAYERS {
        assert!(
            spring.contains(&format!("href=\"/player/{p}\"")),
            "{spring}"
        );
    }
    let pgn = web.get("/game/chess/tournament/spring/pgn");
    assert_eq!(pgn.status, 200);
    sound("tournament pgn", &pgn);
    assert_eq!(pgn.body.matches("[Event ").count(), 6, "{}", pgn.body);
    assert_eq!(web.get("/game/chess/tournament/autumn").status, 404);
    // Help: every topic, the general page without the server's address.
    let help = page(&web, "/help");
    assert!(
        help.contains("Write to the server&#39;s address")
            || help.contains("Write to the server's address"),
        "{help}"
    );
    for topic in ["commands", "reply", "if", "tournament"]
        .iter()
        .chain(&games)
    {
        page(&web, &format!("/help/{topic}"));
    }
    // What is not a page: plain pages, no internals.
    for path in [
        "/nope",
        "/game/nochess",
        "/game/chess/board/x",
        "/help/../../etc",
        "/game/chess/board/999",
    ] {
        let answer = web.get(path);
        assert_eq!(answer.status, 404, "{path}");
        sound(path, &answer);
        assert!(answer.body.contains("<p>"), "{path}: {}", answer.body);
    }
    // What the router cannot read: a plain page of ours too, never the
    // library's words.
    for path in [
        "/player/%ff",
        "/game/%ff/board/1",
        "/game/chess/tournament/%ff",
    ] {
        let answer = web.get(path);
        assert!(
            answer.status == 400 || answer.status == 404,
            "{path}: {answer:?}"
        );
        sound(path, &answer);
        assert!(answer
            .header("content-type")
            .unwrap()
            .starts_with("text/html"));
        assert!(!answer.body.contains("UTF-8"), "{path}: {}", answer.body);
        assert!(answer.body.contains("<p>"), "{path}: {}", answer.body);
    }
    let post = web.request(&format!(
        "POST /game/chess/board/101 HTTP/1.1\r\nHost: {}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab",
        web.addr
    ));
    assert_eq!(post.status, 405);
    sound("post", &post);
}

#[test]
fn an_oversized_body_is_refused_and_a_busy_writer_does_not_stop_the_pages() {
    let install = league("");
    let web = Web::start(&install);
    let big = "x".repeat(64 * 1024);
    let answer = web.request(&format!(
        "POST / HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{big}",
        web.addr,
        big.len()
    ));
    assert!(answer.status == 413 || answer.status == 405, "{answer:?}");
    // Compressed when the client says it takes gzip.
    let zipped = web.request(&format!(
        "GET /game/chess/board/101 HTTP/1.1\r\nHost: {}\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
        web.addr
    ));
    assert_eq!(zipped.status, 200);
    assert_eq!(zipped.header("content-encoding"), Some("gzip"));
    // A writer holds the database (as `serve` does while it works through
    // a backlog): the pages are read all the same, never a 500.
    let writer = Connection::open(install.path("var/db.sqlite")).unwrap();
    writer
        .execute_batch("BEGIN IMMEDIATE; UPDATE boards SET last_action_at = last_action_at;")
        .unwrap();
    for path in [
        "/",
        "/game/chess/board/101",
        "/player/alice",
        "/game/chess/tournament/spring",
    ] {
        let answer = web.get(path);
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    }
    writer.execute_batch("COMMIT").unwrap();
}

#[test]
fn a_client_beyond_its_rate_gets_a_plain_429_page() {
    let install = Install::with_config(
        "[web]\nlisten = \"127.0.0.1:0\"\nrequests_per_minute = 1\nburst = 3\n",
    );
    let web = Web::start(&install);
    for _ in 0..3 {
        assert_eq!(web.get("/help").status, 200);
    }
    let refused = web.get("/help");
    assert_eq!(refused.status, 429, "{refused:?}");
    sound("429", &refused);
    assert!(
        refused.body.contains("Too many requests"),
        "{}",
        refused.body
    );
    assert!(refused.header("retry-after").is_some());
}

#[test]
fn the_site_keeps_answering_while_serve_works_through_a_backlog() {
    let mut install = league("requests_per_minute = 100000\nburst = 10000\n");
    // A backlog: up to 40 plies by mail on the tournament's chess board
    // 102 (alice against bob, round 1).
    let db = install.path("var/db.sqlite");
    let game = rules::game("chess").unwrap();
    let mut position = game.start(&[]).unwrap();
    let players = ["alice", "bob"];
    for ply in 0..40 {
        let actions = position.legal_actions();
        if actions.is_empty() {
            break;
        }
        let action = actions[(ply * 5 + 1) % actions.len()].clone();
        let who = players[position.to_act().index()];
        install.send(
            &format!("{who}@players.test"),
            &format!("chess move 102 {who} hunter2x {action}"),
            "",
        );
        position.play(&action).unwrap();
        if position.outcome().is_over() {
            break;
        }
    }
    let web = Web::start(&install);
    let mut serve = crate::common::pbmchess()
        .arg("--config")
        .arg(&install.config)
        .arg("serve")
        .env("RUST_LOG", "warn")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let waiting = || {
        std::fs::read_dir(install.path("var/inbox/new"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    // Pages, round after round, from serve's start until the inbox is
    // empty (or a generous bound): every one answers 200.
    let mut rounds = 0;
    loop {
        for path in ["/game/chess/board/102", "/player/alice", "/game/chess"] {
            let answer = web.get(path);
            assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        }
        rounds += 1;
        if waiting() == 0 || rounds > 20_000 {
            break;
        }
    }
    let _ = serve.kill();
    let _ = serve.wait();
    assert_eq!(waiting(), 0, "serve worked through the backlog");
    assert!(!plies(&db, "chess", 102).is_empty());
}

#[test]
fn queued_and_conditional_moves_stay_private() {
    let mut install = league("requests_per_minute = 100000\nburst = 10000\n");
    let conn = Connection::open(install.path("var/db.sqlite")).unwrap();
    // Two tournament boards where one player of no casual board (carol or
    // dave) plays Black, White to move on both, as the pairing numbered
    // them: a conditional line on one, a queued move on the other.
    let black_boards = |who: &str| -> Vec<u32> {
        conn.prepare(
            "SELECT board FROM board_players WHERE game = 'chess' AND seat = 1 \
             AND userid = ?1 ORDER BY board",
        )
        .unwrap()
        .query_map([who], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    let (who, black) = ["dave", "carol"]
        .into_iter()
        .map(|who| (who, black_boards(who)))
        .find(|(_, boards)| boards.len() >= 2)
        .expect("carol or dave plays Black twice");
    let (lined, queued) = (black[0], black[1]);
    install.send(
        &format!("{who}@players.test"),
        &format!("chess if {lined} {who} hunter2x a3 Nf6"),
        "",
    );
    install.send(
        &format!("{who}@players.test"),
        &format!("chess queue {queued} {who} hunter2x Nc6"),
        "",
    );
    install.poll();
    let count = |table: &str| -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    assert!(count("conditional_lines") > 0, "the line is stored");
    assert!(count("pending_moves") > 0, "the queued move is stored");
    let web = Web::start(&install);
    let mut paths = Vec::new();
    for board in [lined, queued] {
        for tail in ["", "/feed", "/pgn"] {
            paths.push(format!("/game/chess/board/{board}{tail}"));
        }
    }
    paths.push(format!("/player/{who}"));
    paths.push(format!("/player/{who}/feed"));
    paths.push("/game/chess/tournament/spring".to_string());
    for path in &paths {
        let path = path.as_str();
        let answer = web.get(path);
        assert_eq!(answer.status, 200, "{path}");
        sound(path, &answer);
        for secret in ["Nf6", "Nc6", "a3 ", "onditional", "queue"] {
            assert!(
                !answer.body.contains(secret),
                "{path}: {secret:?} in\n{}",
                answer.body
            );
        }
    }
}

#[test]
fn a_board_page_marks_the_last_move_and_a_king_in_check_as_the_mail_does() {
    let mut install = Install::with_config("[web]\nlisten = \"127.0.0.1:0\"\n");
    for p in ["alice", "bob"] {
        install.ok(&[
            "admin",
            "user",
            "add",
            p,
            "hunter2x",
            &format!("{p}@players.test"),
        ]);
    }
    install.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    for (who, mv) in [("alice", "e4"), ("bob", "f5"), ("alice", "Qh5+")] {
        install.send(
            &format!("{who}@players.test"),
            &format!("chess move 101 {who} hunter2x {mv}"),
            "",
        );
    }
    install.poll();
    let web = Web::start(&install);
    let check = "fill=\"#e02020\"";
    let now = web.get("/game/chess/board/101");
    assert_eq!(now.status, 200);
    // Qh5+: the king on e8 in check, one disc.
    assert_eq!(now.body.matches(check).count(), 1, "{}", now.body);
    // After f5 nobody is in check: no disc.
    let before = web.get("/game/chess/board/101?ply=2");
    assert_eq!(before.status, 200);
    assert_eq!(before.body.matches(check).count(), 0, "{}", before.body);
}
