use super::*;
use crate::command::BoardSize;
use crate::render::{board, Drawing};
use rules::{registry, Color, Position};

/// A small deterministic generator for the playouts (xorshift64).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Positions from random playouts of every registered game: the start and
/// every fifth ply of a few playouts.
fn positions() -> Vec<Box<dyn Position>> {
    let mut out = Vec::new();
    for (g, game) in registry().iter().enumerate() {
        for seed in 1..=3u64 {
            let mut rng = Rng(seed * 7919 + g as u64 * 104_729);
            let mut position = game.start(&[]).expect("start");
            out.push(position.clone());
            for ply in 0..60 {
                let actions = position.legal_actions();
                if actions.is_empty() {
                    break;
                }
                let action = &actions[rng.below(actions.len())];
                position.play(action).expect("a legal action plays");
                if ply % 5 == 4 {
                    out.push(position.clone());
                }
            }
            out.push(position);
        }
    }
    out
}

/// The text board's glyphs, read back from its small drawing: for every
/// board in order, `(file, rank) -> glyph` of the glyph drawn there.
fn read_text_board(text: &str) -> Vec<Vec<((u8, u8), Glyph)>> {
    let mut boards: Vec<Vec<((u8, u8), Glyph)>> = Vec::new();
    let mut group_start: Option<usize> = None;
    for line in text.lines() {
        if !line.contains('|') {
            group_start = None;
            continue;
        }
        let start = *group_start.get_or_insert(boards.len());
        let parts: Vec<&str> = line.split('|').collect();
        for (k, pair) in parts.chunks(2).enumerate() {
            let [before, inside] = pair else { continue };
            let rank: u8 = before
                .split_whitespace()
                .last()
                .and_then(|n| n.parse::<u8>().ok())
                .expect("a rank number before the board");
            let index = start + k;
            if boards.len() <= index {
                boards.push(Vec::new());
            }
            for (file, c) in inside.chars().skip(1).step_by(2).enumerate() {
                if c == ' ' || c == '-' {
                    continue;
                }
                // Small drawing: Black upper case, White lower case.
                let color = if c.is_ascii_uppercase() {
                    Color::Black
                } else {
                    Color::White
                };
                let glyph = Glyph {
                    color,
                    letter: c.to_ascii_uppercase(),
                };
                boards[index].push(((file as u8, rank - 1), glyph));
            }
        }
    }
    boards
}

/// Every piece title in the picture, in document order.
fn titles(svg: &str) -> Vec<String> {
    svg.split("<g transform=")
        .skip(1)
        .filter_map(|part| {
            let start = part.find("<title>")? + "<title>".len();
            let end = part[start..].find("</title>")?;
            Some(part[start..start + end].to_string())
        })
        .collect()
}

/// A title read back: colour, piece name, and where.
fn read_title(title: &str) -> (Color, String, String) {
    let (color, rest) = title.split_once(' ').expect("a colour");
    let (name, place) = rest.split_once(" on ").expect("a square");
    let color = match color {
        "White" => Color::White,
        "Black" => Color::Black,
        other => panic!("colour {other} in {title}"),
    };
    (color, name.to_string(), place.to_string())
}

/// A small well-formedness check: one root element, every tag closed in
/// order, attributes quoted, entities among XML's five.
fn check_xml(text: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = text;
    let mut roots = 0;
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        let end = rest[open..].find('>').expect("a tag is closed") + open;
        let tag = &rest[open + 1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "closing {name}");
            continue;
        }
        let empty = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name: String = tag.chars().take_while(|c| !c.is_whitespace()).collect();
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == ':'),
            "tag name {name:?}"
        );
        check_attributes(&tag[name.len()..]);
        if stack.is_empty() {
            roots += 1;
        }
        if !empty {
            stack.push(name);
        }
    }
    check_text(rest);
    assert!(rest.trim().is_empty(), "text after the root");
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1, "one root element");
}

fn check_attributes(mut attrs: &str) {
    loop {
        attrs = attrs.trim_start();
        if attrs.is_empty() {
            return;
        }
        let eq = attrs.find('=').expect("name=value");
        let name = &attrs[..eq];
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':'),
            "attribute name {name:?}"
        );
        let value = attrs[eq + 1..].strip_prefix('"').expect("a quoted value");
        let close = value.find('"').expect("a closed value");
        check_text(&value[..close]);
        assert!(!value[..close].contains('<'));
        attrs = &value[close + 1..];
    }
}

fn check_text(text: &str) {
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        let end = rest[amp..].find(';').expect("an entity ends") + amp;
        let entity = &rest[amp + 1..end];
        assert!(
            ["amp", "lt", "gt", "quot", "apos"].contains(&entity),
            "entity {entity}"
        );
        rest = &rest[end + 1..];
    }
}

fn picture(from_black: bool) -> Picture {
    Picture {
        caption: "Board 101: alice (White) v bob (Black) & <friends>, White to move".into(),
        description: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
        from_black,
        marks: vec![],
    }
}

#[test]
fn every_game_s_picture_shows_the_text_board_square_by_square() {
    let mut seen = std::collections::BTreeSet::new();
    let mut stacks = 0;
    for position in positions() {
        let diagram = position.diagram();
        let several = diagram.boards.len() > 1;
        let text = board(
            &diagram,
            Drawing {
                size: BoardSize::Small,
                from_black: false,
            },
        );
        let text_boards = read_text_board(&text);
        assert_eq!(text_boards.len(), diagram.boards.len(), "{text}");
        for from_black in [false, true] {
            let svg = svg(&diagram, &picture(from_black));
            check_xml(&svg);
            let titles = titles(&svg);
            // Every glyph of the diagram has exactly one title, and the
            // first on each square is the one the text board draws.
            let mut read: Vec<(Color, String, String)> =
                titles.iter().map(|t| read_title(t)).collect();
            for (grid, drawn) in diagram.boards.iter().zip(&text_boards) {
                for rank in 0..grid.ranks {
                    for file in 0..grid.files {
                        let at = place(grid, several, file, rank);
                        let here: Vec<(Color, String)> = read
                            .iter()
                            .filter(|(_, _, p)| *p == at)
                            .map(|(c, n, _)| (*c, n.clone()))
                            .collect();
                        let text_glyph = drawn
                            .iter()
                            .find(|(sq, _)| *sq == (file, rank))
                            .map(|(_, g)| *g);
                        let first = here.first().cloned();
                        let expected = text_glyph.map(|g| (g.color, g.piece_name().to_lowercase()));
                        assert_eq!(first, expected, "{at} in\n{text}\n{svg}");
                        let all: Vec<(Color, String)> = grid
                            .at(file, rank)
                            .iter()
                            .map(|g| (g.color, g.piece_name().to_lowercase()))
                            .collect();
                        assert_eq!(here, all, "{at}");
                        if all.len() > 1 {
                            stacks += 1;
                        }
                        seen.insert(position.game().name());
                    }
                }
            }
            read.retain(|(_, _, p)| {
                !diagram.boards.iter().any(|g| {
                    (0..g.ranks).any(|r| (0..g.files).any(|f| place(g, several, f, r) == *p))
                })
            });
            assert!(read.is_empty(), "titles on no square: {read:?}");
            // Every note line of the text board is in the picture.
            for note in diagram.notes.iter().flat_map(|n| n.lines()) {
                for word in note.split_whitespace() {
                    assert!(svg.contains(&escape(word)), "{word} of {note}");
                }
            }
        }
    }
    assert_eq!(seen.len(), registry().len(), "{seen:?}");
    assert!(
        stacks > 0,
        "the playouts drew no square holding several glyphs"
    );
}

#[test]
fn the_text_board_reader_reads_a_known_board() {
    let game = rules::game("chess").unwrap();
    let position = game.start(&[]).unwrap();
    let boards = read_text_board(&board(&position.diagram(), BoardSize::Small));
    assert_eq!(boards.len(), 1);
    assert_eq!(boards[0].len(), 32);
    let e1 = boards[0].iter().find(|(sq, _)| *sq == (4, 0)).unwrap().1;
    assert_eq!(
        e1,
        Glyph {
            color: Color::White,
            letter: 'K'
        }
    );
}

#[test]
fn titles_name_the_piece_and_square() {
    let game = rules::game("chess").unwrap();
    let mut position = game.start(&[]).unwrap();
    position.play("Nf3").unwrap();
    let svg = svg(&position.diagram(), &picture(false));
    let titles = titles(&svg);
    assert!(
        titles.contains(&"White knight on f3".to_string()),
        "{titles:?}"
    );
    assert!(titles.contains(&"Black king on e8".to_string()));
    assert_eq!(titles.len(), 32);
    assert!(svg.contains("<desc>rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1</desc>"));
    assert!(svg.contains("&amp; &lt;friends&gt;"), "the caption escaped");
}

#[test]
fn drawn_from_black_s_side_rank_1_is_on_top_and_h_on_the_left() {
    let game = rules::game("chess").unwrap();
    let diagram = game.start(&[]).unwrap().diagram();
    let white = svg(&diagram, &picture(false));
    let black = svg(&diagram, &picture(true));
    let y_of = |svg: &str, title: &str| -> (u32, u32) {
        let at = svg.find(&format!("<title>{title}</title>")).unwrap();
        let head = &svg[..at];
        let t = head.rfind("translate(").unwrap() + "translate(".len();
        let nums: Vec<u32> = head[t..]
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .take(2)
            .map(|s| s.parse().unwrap())
            .collect();
        (nums[0], nums[1])
    };
    let (wx, wy) = y_of(&white, "White king on e1");
    let (bx, by) = y_of(&white, "Black rook on h8");
    assert!(wy > by && wx < bx);
    let (wx, wy) = y_of(&black, "White king on e1");
    let (bx, by) = y_of(&black, "Black rook on h8");
    assert!(wy < by && wx > bx);
}

#[test]
fn the_same_position_draws_the_same_bytes_and_marks_show() {
    let game = rules::game("shadowchess").unwrap();
    let diagram = game.start(&[]).unwrap().diagram();
    let mut p = picture(false);
    assert_eq!(svg(&diagram, &p), svg(&diagram, &p));
    let plain = svg(&diagram, &p);
    p.marks = vec![
        Mark {
            board: 0,
            file: 4,
            rank: 0,
            kind: MarkKind::Check,
        },
        Mark {
            board: 1,
            file: 4,
            rank: 3,
            kind: MarkKind::LastMove,
        },
    ];
    let marked = svg(&diagram, &p);
    assert_eq!(marked.matches("fill=\"#e02020\"").count(), 1);
    assert_eq!(marked.matches("fill=\"#e8e030\"").count(), 1);
    assert!(!plain.contains("#e8e030"));
    check_xml(&marked);
}

/// Writes one picture per game (mid-playout) into the folder named by
/// `PBMCHESS_SVG_OUT`, to look at: `cargo test -p pbmchess-game --lib
/// svg::tests::write_samples -- --ignored`.
#[test]
#[ignore]
fn write_samples() {
    let dir = std::env::var("PBMCHESS_SVG_OUT").expect("PBMCHESS_SVG_OUT");
    for (k, game) in registry().iter().enumerate() {
        let mut rng = Rng(31 + k as u64);
        let mut position = game.start(&[]).unwrap();
        for _ in 0..24 {
            let actions = position.legal_actions();
            if actions.is_empty() {
                break;
            }
            position.play(&actions[rng.below(actions.len())]).unwrap();
        }
        let p = Picture {
            caption: format!(
                "Board {}: alice v bob, {} to move",
                100 + k,
                position.to_act().name()
            ),
            description: position.to_text(),
            from_black: k % 2 == 1,
            marks: vec![],
        };
        let path = format!("{dir}/{}.svg", game.name());
        std::fs::write(&path, svg(&position.diagram(), &p)).unwrap();
    }
}

/// Full-size pieces as drawn: title and the top-left corner of the square.
fn placed(svg: &str) -> Vec<(String, i64, i64)> {
    svg.split("<g transform=\"translate(")
        .skip(1)
        .filter(|part| {
            part.split_once(')')
                .is_some_and(|(_, rest)| !rest.starts_with(" scale"))
        })
        .map(|part| {
            let (xy, rest) = part.split_once(')').unwrap();
            let (x, y) = xy.split_once(' ').unwrap();
            let start = rest.find("<title>").unwrap() + "<title>".len();
            let end = rest[start..].find("</title>").unwrap();
            (
                rest[start..start + end].to_string(),
                x.parse().unwrap(),
                y.parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_game_s_pieces_stand_on_their_squares_of_the_right_colour() {
    for position in positions().into_iter().step_by(4) {
        let diagram = position.diagram();
        let several = diagram.boards.len() > 1;
        for from_black in [false, true] {
            let svg = svg(&diagram, &picture(from_black));
            let drawn = placed(&svg);
            let mut last_left = None;
            for grid in &diagram.boards {
                // Every piece of this board drawn at origin + (col, row)
                // squares, one origin for the whole board.
                let mut origin = None;
                for rank in 0..grid.ranks {
                    for file in 0..grid.files {
                        let Some(glyph) = grid.at(file, rank).first() else {
                            continue;
                        };
                        let name = title(*glyph, &place(grid, several, file, rank));
                        let &(_, x, y) = drawn
                            .iter()
                            .find(|(t, _, _)| *t == name)
                            .unwrap_or_else(|| panic!("{name} drawn full size"));
                        let col = files(grid, from_black)
                            .iter()
                            .position(|&f| f == file)
                            .unwrap() as i64;
                        let row = ranks(grid, from_black)
                            .iter()
                            .position(|&r| r == rank)
                            .unwrap() as i64;
                        let o = (x - col * SQUARE as i64, y - row * SQUARE as i64);
                        assert_eq!(*origin.get_or_insert(o), o, "{name}");
                        // The square under it has the square's colour.
                        let fill = if is_dark(file, rank) { DARK } else { LIGHT };
                        let rect = format!(
                            "<rect x=\"{x}\" y=\"{y}\" width=\"{SQUARE}\" \
                             height=\"{SQUARE}\" fill=\"{fill}\"/>"
                        );
                        assert!(svg.contains(&rect), "{name} on {rect}");
                    }
                }
                if let (Some((left, _)), Some(prev)) = (origin, last_left) {
                    assert!(left > prev, "boards left to right");
                }
                if let Some((left, _)) = origin {
                    last_left = Some(left);
                }
            }
        }
    }
}

#[test]
fn the_last_move_marks_the_squares_it_changed() {
    let chess = rules::game("chess").unwrap();
    let squares = |before: &dyn Position, action: &str| -> Vec<(usize, u8, u8)> {
        let mut after = before.clone_box();
        after.play(action).unwrap();
        changed_squares(&before.diagram(), &after.diagram())
            .iter()
            .inspect(|m| assert_eq!(m.kind, MarkKind::LastMove))
            .map(|m| (m.board, m.file, m.rank))
            .collect()
    };
    let start = chess.start(&[]).unwrap();
    assert_eq!(squares(start.as_ref(), "e4"), [(0, 4, 1), (0, 4, 3)]);
    // Castling: the king's and the rook's squares, four in all.
    let castle = chess
        .position("4k3/8/8/8/8/8/8/4K2R w K - 0 1", &[])
        .unwrap();
    assert_eq!(
        squares(castle.as_ref(), "O-O"),
        [(0, 4, 0), (0, 5, 0), (0, 6, 0), (0, 7, 0)]
    );
    // En passant: from, to and the pawn taken.
    let ep = chess
        .position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", &[])
        .unwrap();
    assert_eq!(
        squares(ep.as_ref(), "exd6"),
        [(0, 3, 4), (0, 4, 4), (0, 3, 5)]
    );
    // Shadow Chess: the main move and the shadow move, on both boards.
    let shadow = rules::game("shadowchess").unwrap().start(&[]).unwrap();
    let marks = squares(shadow.as_ref(), "e4/d2d3");
    assert_eq!(marks, [(0, 4, 1), (0, 4, 3), (1, 3, 1), (1, 3, 2)]);
    // Every playout ply marks at least one square.
    for position in positions().into_iter().step_by(7) {
        if let Some(action) = position.legal_actions().first() {
            assert!(!squares(position.as_ref(), action).is_empty(), "{action}");
        }
    }
}
