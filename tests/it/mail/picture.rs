//! The board's picture in board mails, through the real binary: for every
//! game, both sides, the inline PNG decodes at the size its `<img>`
//! states, each square has its colour (shaded where the last move
//! changed it) and a piece stands on each occupied square and on no empty
//! one, against the position the test plays alongside; `set … nopicture`
//! and `picture`; `show` and `preview`; the fall-back under `[limits]
//! max_reply_bytes`; and the HTML part opened in headless Chromium.

use crate::common;

use common::{only_one, Install, SentMail};
use mail_parser::{MessageParser, MimeHeaders};
use rules::{Diagram, Position};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

const LIGHT: [u8; 3] = [0xf0, 0xd9, 0xb5];
const DARK: [u8; 3] = [0xb5, 0x88, 0x63];
/// The last move's shade, #e8e030 at half opacity, over each.
const LIGHT_MARKED: [u8; 3] = [236, 220, 115];
const DARK_MARKED: [u8; 3] = [206, 180, 73];

fn exchange(s: &mut Install, from: &str, subject: &str) -> Vec<SentMail> {
    s.send(from, subject, "");
    s.poll();
    s.take_outbox()
}

/// alice (apw) and bob (bpw) signed up, bob drawing from Black's side.
fn two_players(extra: &str) -> Install {
    let mut s = Install::with_config(extra);
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    s.take_outbox();
    for game in rules::registry() {
        s.send(BOB, &format!("{} set bob bpw flip", game.name()), "");
    }
    s.poll();
    s.take_outbox();
    s
}

/// A mail's picture: the PNG's bytes, and the `<img>` of its HTML part
/// (`cid:` value, width, height).
struct Shown {
    png: Vec<u8>,
    width: u32,
    height: u32,
}

/// The picture a mail carries, checked against its HTML part: one
/// image/png part whose Content-ID the `<img>` names; `None` without one.
fn picture(m: &SentMail) -> Option<Shown> {
    let msg = MessageParser::default().parse(m.raw.as_bytes()).unwrap();
    let images: Vec<_> = msg
        .parts
        .iter()
        .filter(|p| {
            p.content_type()
                .is_some_and(|c| c.ctype() == "image" && c.subtype() == Some("png"))
        })
        .collect();
    let html = msg.body_html(0).map(|h| h.to_string());
    let image = match images.as_slice() {
        [] => {
            assert!(!m.raw.contains("cid:"), "{}", m.raw);
            return None;
        }
        [one] => one,
        _ => panic!("several pictures: {}", m.raw),
    };
    let id = image.content_id().expect("a Content-ID").to_string();
    let html = html.expect("an HTML part");
    let img = html
        .split_once(&format!("<img src=\"cid:{id}\""))
        .unwrap_or_else(|| panic!("no <img> of {id}: {html}"))
        .1;
    let attr = |name: &str| -> u32 {
        img.split_once(&format!("{name}=\""))
            .unwrap()
            .1
            .split_once('"')
            .unwrap()
            .0
            .parse()
            .unwrap()
    };
    // Above the text board, which follows unchanged.
    assert!(html.find("<img").unwrap() < html.find("<pre").unwrap());
    let top = msg.parts[0].content_type().unwrap();
    assert_eq!(top.subtype(), Some("alternative"), "{}", m.raw);
    assert!(
        m.raw.contains("Content-Type: multipart/related"),
        "{}",
        m.raw
    );
    Some(Shown {
        png: image.contents().to_vec(),
        width: attr("width"),
        height: attr("height"),
    })
}

/// Decoded RGB pixels of a PNG, with its size.
fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).expect("its pixels");
    buf.truncate(info.buffer_size());
    let rgb = match info.color_type {
        png::ColorType::Rgb => buf,
        png::ColorType::Rgba => buf
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
        other => panic!("colour type {other:?}"),
    };
    (info.width, info.height, rgb)
}

fn near(a: [u8; 3], b: [u8; 3], tolerance: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tolerance)
}

/// The top left corner of a square in the picture, from the layout of
/// docs/commands.md §6: an 8-pixel margin, a 24-pixel caption, 18 pixels
/// of labels when there are several boards, 20 pixels of rank numbers
/// left of each board, 16 between boards, 32 a square.
fn square_at(diagram: &Diagram, board: usize, file: u8, rank: u8, from_black: bool) -> (u32, u32) {
    let several = diagram.boards.len() > 1;
    let top = 8 + 24 + if several { 18 } else { 0 };
    let mut left = 8;
    for g in &diagram.boards[..board] {
        left += 20 + g.files as u32 * 32 + 16;
    }
    left += 20;
    let g = &diagram.boards[board];
    let (col, row) = if from_black {
        (g.files - 1 - file, rank)
    } else {
        (file, g.ranks - 1 - rank)
    };
    (left + col as u32 * 32, top + row as u32 * 32)
}

/// Check a picture against the position it shows, drawn from
/// `from_black`'s side, the squares in `marked` shaded.
fn check_picture(
    what: &str,
    shown: &Shown,
    diagram: &Diagram,
    marked: &[(usize, u8, u8)],
    from_black: bool,
) {
    let (width, height, rgb) = decode(&shown.png);
    assert_eq!((width, height), (shown.width, shown.height), "{what}");
    let boards: u32 = diagram
        .boards
        .iter()
        .map(|g| 20 + g.files as u32 * 32)
        .sum::<u32>()
        + 16 * (diagram.boards.len() as u32 - 1);
    assert_eq!(width, (16 + boards).max(240), "{what}");
    let at = |x: u32, y: u32| -> [u8; 3] {
        let i = ((y * width + x) * 3) as usize;
        [rgb[i], rgb[i + 1], rgb[i + 2]]
    };
    let mut pieces = 0;
    for (b, grid) in diagram.boards.iter().enumerate() {
        for rank in 0..grid.ranks {
            for file in 0..grid.files {
                let (x, y) = square_at(diagram, b, file, rank, from_black);
                assert!(x + 32 <= width && y + 32 <= height, "{what}");
                let dark = (file + rank) % 2 == 0;
                let is_marked = marked.contains(&(b, file, rank));
                let expected = match (dark, is_marked) {
                    (true, false) => DARK,
                    (false, false) => LIGHT,
                    (true, true) => DARK_MARKED,
                    (false, true) => LIGHT_MARKED,
                };
                let place = format!("{what}: board {b} file {file} rank {rank}");
                // A corner no piece covers.
                let corner = at(x + 3, y + 30);
                assert!(
                    near(corner, expected, 3),
                    "{place}: {corner:?} {expected:?}"
                );
                let differing = (y + 3..y + 29)
                    .flat_map(|py| (x + 3..x + 29).map(move |px| (px, py)))
                    .filter(|&(px, py)| !near(at(px, py), corner, 48))
                    .count();
                if grid.at(file, rank).is_empty() {
                    assert_eq!(differing, 0, "{place}: drawn on an empty square");
                } else {
                    assert!(differing >= 30, "{place}: no piece drawn ({differing})");
                    pieces += 1;
                }
            }
        }
    }
    let glyphs = diagram
        .boards
        .iter()
        .flat_map(|g| &g.cells)
        .filter(|c| !c.is_empty())
        .count();
    assert_eq!(pieces, glyphs, "{what}");
}

/// The squares whose contents differ between two diagrams.
fn changed(before: &Diagram, after: &Diagram) -> Vec<(usize, u8, u8)> {
    let mut out = Vec::new();
    for (b, (old, new)) in before.boards.iter().zip(&after.boards).enumerate() {
        for rank in 0..old.ranks {
            for file in 0..old.files {
                if old.at(file, rank) != new.at(file, rank) {
                    out.push((b, file, rank));
                }
            }
        }
    }
    out
}

/// The actions of a short playout, the same each run: an action without
/// a space where there is one.
fn next_action(position: &dyn Position, ply: usize) -> Option<String> {
    let actions = position.legal_actions();
    if actions.is_empty() {
        return None;
    }
    let plain: Vec<&String> = actions.iter().filter(|a| !a.contains(' ')).collect();
    let pool: Vec<&String> = if plain.is_empty() {
        actions.iter().collect()
    } else {
        plain
    };
    Some(pool[(ply * 7 + 3) % pool.len()].clone())
}

#[test]
fn every_game_s_board_mails_show_the_position_as_a_picture_from_each_side() {
    for game in rules::registry() {
        let name = game.name();
        let mut s = two_players("");
        let board = s.ok(&["admin", "challenge", name, "alice", "bob"]);
        let board = board.trim().to_string();
        s.poll();
        let mut position = game.start(&[]).unwrap();
        let mut mails = s.take_outbox();
        let mut marked = Vec::new();
        for ply in 0..6 {
            assert_eq!(mails.len(), 2, "{name}: {mails:#?}");
            let diagram = position.diagram();
            for (to, from_black) in [(ALICE, false), (BOB, true)] {
                let m = only_one(&mails, to);
                let shown = picture(m).unwrap_or_else(|| panic!("{name}: no picture: {}", m.raw));
                let what = format!("{name} ply {ply} to {to}");
                check_picture(&what, &shown, &diagram, &marked, from_black);
                for line in m.raw.split("\r\n") {
                    assert!(line.len() <= 78, "{what}: {line:?}");
                }
            }
            let Some(action) = next_action(position.as_ref(), ply) else {
                break;
            };
            let (player, from, pw) = match position.to_act() {
                rules::Color::White => ("alice", ALICE, "apw"),
                rules::Color::Black => ("bob", BOB, "bpw"),
            };
            let before = position.diagram();
            position.play(&action).unwrap();
            marked = changed(&before, &position.diagram());
            mails = exchange(
                &mut s,
                from,
                &format!("{name} move {board} {player} {pw} {action}"),
            );
        }
    }
}

#[test]
fn nopicture_leaves_it_out_for_every_game_and_picture_brings_it_back() {
    let mut s = two_players("");
    let mails = exchange(&mut s, ALICE, "chess set alice apw nopicture");
    let m = only_one(&mails, ALICE);
    assert!(m.body.contains("without a picture"), "{}", m.body);
    assert!(m.body.contains("every game"), "{}", m.body);
    s.ok(&["admin", "challenge", "zelig", "alice", "bob"]);
    s.poll();
    let mails = s.take_outbox();
    let to_alice = only_one(&mails, ALICE);
    assert!(picture(to_alice).is_none());
    assert!(to_alice.raw.contains("<pre"), "the HTML part stays");
    assert!(picture(only_one(&mails, BOB)).is_some());

    let mails = exchange(&mut s, ALICE, "temporal set alice apw Picture");
    assert!(only_one(&mails, ALICE).body.contains("as a picture"));
    let mails = exchange(&mut s, ALICE, "zelig show 101");
    let m = only_one(&mails, ALICE);
    assert!(picture(m).is_some(), "{}", m.raw);
    // text only wins: no HTML part, so no picture.
    exchange(&mut s, ALICE, "chess set alice apw plain");
    let mails = exchange(&mut s, ALICE, "zelig show 101");
    let m = only_one(&mails, ALICE);
    assert!(picture(m).is_none());
    assert!(!m.raw.contains("image/png"));
}

#[test]
fn show_historic_views_and_previews_carry_the_picture_with_their_last_ply_marked() {
    let mut s = two_players("");
    let board = s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    let board = board.trim().to_string();
    s.poll();
    s.take_outbox();
    exchange(&mut s, ALICE, &format!("chess move {board} alice apw e4"));
    exchange(&mut s, BOB, &format!("chess move {board} bob bpw e5"));
    let chess = rules::game("chess").unwrap();
    let mut position = chess.start(&[]).unwrap();
    position.play("e4").unwrap();
    let after_e4 = position.diagram();
    let start = chess.start(&[]).unwrap().diagram();
    // The historic view after ply 1, drawn from bob's side.
    let mails = exchange(&mut s, BOB, &format!("chess show {board}#1"));
    let shown = picture(only_one(&mails, BOB)).expect("a picture");
    check_picture(
        "show #1",
        &shown,
        &after_e4,
        &changed(&start, &after_e4),
        true,
    );
    // A preview of Nf3 from the board as it stands, from alice's side.
    position.play("e5").unwrap();
    let before = position.diagram();
    position.play("Nf3").unwrap();
    let mails = exchange(&mut s, ALICE, &format!("chess preview {board} Nf3"));
    let shown = picture(only_one(&mails, ALICE)).expect("a picture");
    let marked = changed(&before, &position.diagram());
    assert_eq!(marked, [(0, 6, 0), (0, 5, 2)]);
    check_picture("preview", &shown, &position.diagram(), &marked, false);
    // Shown twice, the same picture.
    let again = exchange(&mut s, ALICE, &format!("chess preview {board} Nf3"));
    assert_eq!(picture(only_one(&again, ALICE)).unwrap().png, shown.png);
}

#[test]
fn a_king_in_check_is_marked_under_it() {
    let mut s = two_players("");
    let board = s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    let board = board.trim().to_string();
    s.poll();
    s.take_outbox();
    exchange(&mut s, ALICE, &format!("chess move {board} alice apw e4"));
    exchange(&mut s, BOB, &format!("chess move {board} bob bpw f6"));
    let mails = exchange(&mut s, ALICE, &format!("chess move {board} alice apw Qh5+"));
    let shown = picture(only_one(&mails, BOB)).expect("a picture");
    let (width, _, rgb) = decode(&shown.png);
    let chess = rules::game("chess").unwrap();
    let position = chess
        .position(
            "rnbqkbnr/ppppp1pp/5p2/7Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2",
            &[],
        )
        .unwrap();
    let diagram = position.diagram();
    // bob's side: the black king on e8, a red disc around it.
    // A point of the disc beside the king's shape.
    let (x, y) = square_at(&diagram, 0, 4, 7, true);
    let i = (((y + 16) * width + x + 3) * 3) as usize;
    let red = [rgb[i], rgb[i + 1], rgb[i + 2]];
    assert!(red[0] > 150 && red[1] < 120 && red[2] < 120, "{red:?}");
    // No disc on the white king's square.
    let (x, y) = square_at(&diagram, 0, 4, 0, true);
    let i = (((y + 16) * width + x + 3) * 3) as usize;
    assert!(near([rgb[i], rgb[i + 1], rgb[i + 2]], DARK, 3));
}

#[test]
fn a_mail_too_large_with_the_picture_goes_without_it() {
    // Room for both text parts of a chess board mail, not for a picture.
    let s = two_players("[limits]\nmax_reply_bytes = 9000\n");
    s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    s.poll();
    let mails = s.take_outbox();
    let m = only_one(&mails, ALICE);
    assert!(picture(m).is_none(), "{}", m.raw);
    assert!(m.raw.contains("Content-Type: text/html"), "{}", m.raw);
    assert!(m.raw.len() <= 9000 + 2000);
}

/// The HTML part of a mail as a mail program shows it: written to `dir`
/// with its picture beside it, the `cid:` reference pointing at that copy
/// (what a mail program does with the mail's own part). Returns the page.
fn open_as_mail_program(m: &SentMail, dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let msg = MessageParser::default().parse(m.raw.as_bytes()).unwrap();
    let html = msg.body_html(0).expect("an HTML part").to_string();
    let image = msg
        .parts
        .iter()
        .find(|p| p.content_type().is_some_and(|c| c.ctype() == "image"))
        .expect("a picture");
    let id = image.content_id().unwrap();
    let file = format!("{name}-board.png");
    std::fs::write(dir.join(&file), image.contents()).unwrap();
    let cid = format!("src=\"cid:{id}\"");
    assert_eq!(html.matches(&cid).count(), 1, "{html}");
    let page = dir.join(format!("{name}.html"));
    std::fs::write(&page, html.replace(&cid, &format!("src=\"{file}\""))).unwrap();
    page
}

/// Pixels of a screenshot that are a square colour, by colour, above
/// row `text_top`; and the dark pixels (ink) below it.
fn board_colour_counts(png: &[u8], text_top: u32) -> (usize, usize, usize) {
    let (width, _, rgb) = decode(png);
    let px: Vec<(u32, [u8; 3])> = rgb
        .chunks_exact(3)
        .enumerate()
        .map(|(i, p)| (i as u32 / width, [p[0], p[1], p[2]]))
        .collect();
    let above = |p: &&(u32, [u8; 3])| p.0 < text_top;
    let light = px
        .iter()
        .filter(above)
        .filter(|p| near(p.1, LIGHT, 2))
        .count();
    let dark = px
        .iter()
        .filter(above)
        .filter(|p| near(p.1, DARK, 2))
        .count();
    let ink = px
        .iter()
        .filter(|p| p.0 >= text_top && p.1.iter().all(|&c| c < 80))
        .count();
    (light, dark, ink)
}

#[test]
fn the_html_part_opened_in_chromium_shows_the_picture_and_the_text_board() {
    let Some(chromium) = ["chromium", "chromium-browser"].into_iter().find(|c| {
        std::process::Command::new(c)
            .arg("--version")
            .output()
            .is_ok()
    }) else {
        assert!(
            !std::env::var("PBMCHESS_TEST_SERVERS_REQUIRED").is_ok_and(|v| v == "1"),
            "chromium is required here (.ci/run installs it)"
        );
        eprintln!("skipped: no chromium");
        return;
    };
    let mut s = two_players("");
    let board = s.ok(&["admin", "challenge", "shadowchess", "alice", "bob"]);
    s.poll();
    s.take_outbox();
    let mails = exchange(
        &mut s,
        ALICE,
        &format!("shadowchess move {} alice apw e4/d2d3", board.trim()),
    );
    let dir = tempfile::tempdir().unwrap();
    let mut shots = Vec::new();
    for (to, name) in [(ALICE, "alice"), (BOB, "bob")] {
        let m = only_one(&mails, to);
        let page = open_as_mail_program(m, dir.path(), name);
        let shot = dir.path().join(format!("{name}.png"));
        // Nothing of the machine's user: its home is the test's.
        let out = std::process::Command::new(chromium)
            .env("HOME", dir.path())
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--disable-extensions",
                "--disable-background-networking",
                "--force-device-scale-factor=1",
                "--window-size=800,1400",
            ])
            .arg(format!(
                "--user-data-dir={}",
                dir.path().join("profile").display()
            ))
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("file://{}", page.display()))
            .output()
            .unwrap();
        let png = std::fs::read(&shot)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        // The picture: each of the 128 squares of both boards is about
        // 1000 pixels of its colour (less where pieces and marks cover);
        // a blank page or a broken image has none. The text board: dark
        // ink of the drawing's characters.
        if let Some(keep) = std::env::var_os("PBMCHESS_SCREENSHOTS") {
            std::fs::copy(
                &shot,
                std::path::Path::new(&keep).join(format!("{name}.png")),
            )
            .unwrap();
        }
        // The picture stands in a paragraph (8 pixels of body margin, 16
        // of paragraph margin): the text board is below it.
        let height = picture(m).expect("a picture").height;
        let (light, dark, ink) = board_colour_counts(&png, 8 + 16 + height + 4);
        assert!(light > 30_000 && dark > 30_000, "{name}: {light} {dark}");
        assert!(ink > 2_000, "{name}: no text ({ink})");
        shots.push(png);
    }
    assert_ne!(shots[0], shots[1], "each side drawn from its own side");
}

#[test]
fn an_observer_who_chose_the_picture_gets_it_from_their_side_and_one_who_did_not_does_not() {
    const CAROL: &str = "carol@players.test";
    const DAVE: &str = "dave@players.test";
    let mut s = two_players("");
    s.send(CAROL, "signup carol cpw", "");
    s.send(DAVE, "signup dave dpw", "");
    s.poll();
    s.take_outbox();
    let board = s.ok(&["admin", "challenge", "doublechess", "alice", "bob"]);
    let board = board.trim().to_string();
    s.poll();
    s.take_outbox();
    exchange(
        &mut s,
        CAROL,
        &format!("doublechess subscribe {board} carol cpw"),
    );
    exchange(&mut s, CAROL, "doublechess set carol cpw flip");
    exchange(
        &mut s,
        DAVE,
        &format!("doublechess subscribe {board} dave dpw"),
    );
    exchange(&mut s, DAVE, "chess set dave dpw nopicture");
    let game = rules::game("doublechess").unwrap();
    let mut position = game.start(&[]).unwrap();
    let action = next_action(position.as_ref(), 0).unwrap();
    let before = position.diagram();
    position.play(&action).unwrap();
    let mails = exchange(
        &mut s,
        ALICE,
        &format!("doublechess move {board} alice apw {action}"),
    );
    let marked = changed(&before, &position.diagram());
    let shown = picture(only_one(&mails, CAROL)).expect("carol's picture");
    check_picture("carol", &shown, &position.diagram(), &marked, true);
    let to_dave = only_one(&mails, DAVE);
    assert!(picture(to_dave).is_none(), "{}", to_dave.raw);
    assert!(to_dave.raw.contains("<pre"));
}
