//! Double Chess (docs/rules.md §1) through the server's face: castling in every
//! form and every refusal, rights, en passant and promotion on the files
//! beyond h, SAN disambiguation on the wide board, FEN, perft hand counts,
//! and a differential check against a small independent reference move
//! generator written here from the rules text.

use rules::doublechess;
use rules::orthodox::{Move, Orthodox, State};
use rules::{self, Color, Ending, MoveError, Outcome, Position};

use crate::harness;

use harness::{play_out, reference_perft, Playout, Reference, Rng};

const START: &str =
    "rnbqrnbqkbnrqbnr/pppppppppppppppp/16/16/16/16/PPPPPPPPPPPPPPPP/RNBQRNBQKBNRQBNR w LEPAlepa - 0 1";
/// Kings and all four rooks, pawn walls: only the inside castlings are open
/// (the rooks on e and l stand in the way of the outside ones).
const INSIDE: &str =
    "r3r3k2r3r/pppppppppppppppp/16/16/16/16/PPPPPPPPPPPPPPPP/R3R3K2R3R w LEPAlepa - 0 1";
/// Kings and the corner rooks only: both outside castlings are open.
const OUTSIDE: &str = "r7k6r/pppppppppppppppp/16/16/16/16/PPPPPPPPPPPPPPPP/R7K6R w PApa - 0 1";

fn pos(fen: &str) -> Box<dyn Position> {
    rules::game("doublechess")
        .unwrap()
        .position(fen, &[])
        .unwrap()
}

fn play_ok(p: &mut Box<dyn Position>, input: &str) -> String {
    p.play(input)
        .unwrap_or_else(|e| panic!("{input}: {e}"))
        .notation
}

fn reading(fen: &str, input: &str) -> Result<String, MoveError> {
    pos(fen).play(input).map(|p| p.notation)
}

fn refusal(fen: &str, input: &str) -> String {
    match pos(fen).play(input) {
        Err(e @ MoveError::Illegal { .. }) => e.to_string(),
        other => panic!("{input} in {fen}: {other:?}"),
    }
}

// ------------------------------------------------------------ the face

#[test]
fn game_face_and_start() {
    let g = rules::game("doublechess").unwrap();
    assert_eq!(g.name(), "doublechess");
    assert_eq!(g.title(), "Double Chess");
    let p = g.start(&[]).unwrap();
    assert_eq!(p.to_text(), START);
    assert_eq!(p.game().name(), "doublechess");
    let d = p.diagram();
    let grid = &d.boards[0];
    assert_eq!((grid.files, grid.ranks), (16, 8));
    assert_eq!(grid.at(8, 0)[0].letter, 'K');
    assert_eq!(grid.at(12, 7)[0].letter, 'Q');
    assert_eq!(grid.at(12, 7)[0].color, Color::Black);
    assert!(g.start(&["x".into()]).is_err());
}

// ------------------------------------------------------------ perft

#[test]
fn perft_from_the_start() {
    let p = pos(START);
    // d1: 16 pawns × 2 (single and double step) = 32, plus 4 knights × 2
    // (b1: a3 c3; f1: e3 g3; k1: j3 l3; o1: n3 p3; the d/h/j/l/m pawns
    // block the rest) = 8. Nothing else can move: 40.
    assert_eq!(p.perft(1), 40);
    // d2: no White first move touches Black's pieces or squares (nothing
    // passes rank 4), so Black has the same 40 replies: 40 × 40.
    assert_eq!(p.perft(2), 1600);
    // d3: checked against the reference generator below.
    assert_eq!(p.perft(3), 70008);
    assert_eq!(reference_perft(&Ref::from_fen(START), 3), 70008);
}

#[test]
fn perft_with_castling_open() {
    // INSIDE, White: 16 pawns × 2 = 32; king h1, j1 = 2; rook a1: b1 c1 d1
    // = 3; rook e1: b1 c1 d1 and f1 g1 h1 = 6; rook l1: j1 k1 and m1 n1 o1
    // = 5; rook p1: m1 n1 o1 = 3; O-O and O-O-O = 2 (O-O-O-O is blocked by
    // the rook on l1, O-O-O-O-O by the rook on e1). Total 53.
    let p = pos(INSIDE);
    assert_eq!(p.perft(1), 53);
    let acts = p.legal_actions();
    assert!(acts.contains(&"O-O".to_string()) && acts.contains(&"O-O-O".to_string()));
    assert!(!acts.iter().any(|a| a == "O-O-O-O" || a == "O-O-O-O-O"));
    // Black mirrors White and the pawn walls keep the armies apart: 53².
    assert_eq!(p.perft(2), 53 * 53);
    let d3 = p.perft(3);
    assert_eq!(d3, reference_perft(&Ref::from_fen(INSIDE), 3));
    // OUTSIDE, White: 32 pawn moves; king h1, j1 = 2; rook a1: b1…h1 = 7;
    // rook p1: j1…o1 = 6; O-O-O-O and O-O-O-O-O = 2. Total 49.
    let p = pos(OUTSIDE);
    assert_eq!(p.perft(1), 49);
    let acts = p.legal_actions();
    assert!(acts.contains(&"O-O-O-O".to_string()) && acts.contains(&"O-O-O-O-O".to_string()));
    assert_eq!(p.perft(2), 49 * 49);
    assert_eq!(p.perft(3), reference_perft(&Ref::from_fen(OUTSIDE), 3));
}

#[test]
#[ignore = "slow: run with --ignored (release recommended); see also benches/perft.rs"]
fn perft_from_the_start_depth_4() {
    let p = pos(START);
    let n = p.perft(4);
    assert_eq!(n, 3_050_767);
    assert_eq!(n, reference_perft(&Ref::from_fen(START), 4));
    eprintln!("doublechess perft(4) = {n}");
}

// ------------------------------------------------------------ castling

#[test]
fn each_castling_in_every_notation() {
    for input in ["O-O", "0-0", "o-o", "Kk1", "i1k1", "i1-k1"] {
        assert_eq!(reading(INSIDE, input).unwrap(), "O-O", "{input}");
    }
    for input in ["O-O-O", "0-0-0", "Kg1", "i1g1"] {
        assert_eq!(reading(INSIDE, input).unwrap(), "O-O-O", "{input}");
    }
    for input in ["O-O-O-O", "0-0-0-0", "Km1", "i1m1"] {
        assert_eq!(reading(OUTSIDE, input).unwrap(), "O-O-O-O", "{input}");
    }
    for input in ["O-O-O-O-O", "0-0-0-0-0", "Ke1", "i1e1"] {
        assert_eq!(reading(OUTSIDE, input).unwrap(), "O-O-O-O-O", "{input}");
    }
    let check = |fen: &str, input: &str, rank1: &str, rights: &str| {
        let mut p = pos(fen);
        play_ok(&mut p, input);
        let text = p.to_text();
        let fields: Vec<&str> = text.split(' ').collect();
        assert_eq!(
            fields[0].rsplit('/').next().unwrap(),
            rank1,
            "{input}: {text}"
        );
        assert_eq!(fields[2], rights, "{input}: {text}");
        assert_eq!(p.to_text(), pos(&text).to_text());
    };
    check(INSIDE, "O-O", "R3R4RK4R", "lepa");
    check(INSIDE, "O-O-O", "R5KR3R3R", "lepa");
    check(OUTSIDE, "O-O-O-O", "R10RK3", "pa");
    check(OUTSIDE, "O-O-O-O-O", "4KR9R", "pa");
}

#[test]
fn black_castles_on_rank_8() {
    let fen = INSIDE.replace(" w ", " b ");
    let mut p = pos(&fen);
    assert_eq!(play_ok(&mut p, "Kk8"), "O-O");
    assert!(p.to_text().starts_with("r3r4rk4r/"), "{}", p.to_text());
    assert!(p.to_text().contains(" w LEPA "), "{}", p.to_text());
    let mut p = pos(&OUTSIDE.replace(" w ", " b "));
    assert_eq!(play_ok(&mut p, "i8e8"), "O-O-O-O-O");
    assert!(p.to_text().starts_with("4kr9r/"), "{}", p.to_text());
}

#[test]
fn castling_refusals() {
    // Pieces between: from the start every castling is blocked.
    let e = refusal(START, "O-O");
    assert!(e.contains("j1 and k1 are occupied"), "{e}");
    let e = refusal(START, "Km1");
    assert!(e.contains("j1, k1, l1, m1, n1 and o1 are occupied"), "{e}");
    let e = refusal(INSIDE, "O-O-O-O-O");
    assert!(e.contains("e1 is occupied"), "{e}");
    // Open board, no pawns: attacks reach rank 1 along the files.
    let open =
        |black_rook: &str| format!("14k1/16/16/{black_rook}/16/16/16/R3R3K2R3R w LEPA - 0 1");
    let e = refusal(&open("8r7"), "O-O");
    assert!(e.contains("while your king is in check"), "{e}");
    let e = refusal(&open("9r6"), "O-O");
    assert!(e.contains("cross j1"), "{e}");
    let e = refusal(&open("10r5"), "Kk1");
    assert!(e.contains("land on k1"), "{e}");
    let e = refusal(&open("7r8"), "O-O-O");
    assert!(e.contains("cross h1"), "{e}");
    let e = refusal(&open("6r9"), "i1g1");
    assert!(e.contains("land on g1"), "{e}");
    // Attacks on the squares the rook alone crosses do not matter.
    let p = pos(&open("5r10"));
    assert!(p.legal_actions().contains(&"O-O-O".to_string()));
    // Outside castlings: attacked crossing square and destination.
    let wide = |black_rook: &str| format!("14k1/16/16/{black_rook}/16/16/16/R7K6R w PA - 0 1");
    let e = refusal(&wide("11r4"), "O-O-O-O");
    assert!(e.contains("cross l1"), "{e}");
    let e = refusal(&wide("12r3"), "O-O-O-O");
    assert!(e.contains("land on m1"), "{e}");
    let e = refusal(&wide("5r10"), "O-O-O-O-O");
    assert!(e.contains("cross f1"), "{e}");
    let e = refusal(&wide("4r11"), "Ke1");
    assert!(e.contains("land on e1"), "{e}");
    // b1 is only crossed by the rook: no matter.
    assert!(pos(&wide("1r14"))
        .legal_actions()
        .contains(&"O-O-O-O-O".to_string()));
}

#[test]
fn rights_lost_by_rook_and_king_moves() {
    // The l1 rook moves away and back: O-O is gone, the others stay.
    let mut p = pos(INSIDE);
    for m in ["Rlk1", "Rlk8", "Rkl1", "Rkl8"] {
        play_ok(&mut p, m);
    }
    assert!(p.to_text().contains(" w EPAepa "), "{}", p.to_text());
    let e = p.play("O-O").unwrap_err().to_string();
    assert!(e.contains("the rook on l1 has moved"), "{e}");
    assert_eq!(play_ok(&mut p, "O-O-O"), "O-O-O");
    // The king moves away and back: every right is gone.
    let mut p = pos(INSIDE);
    for m in ["Kh1", "Kh8", "Ki1", "Ki8"] {
        play_ok(&mut p, m);
    }
    assert!(p.to_text().contains(" w - "), "{}", p.to_text());
    for c in ["O-O", "O-O-O", "Kk1"] {
        let e = p.play(c).unwrap_err().to_string();
        assert!(e.contains("king has moved"), "{c}: {e}");
    }
}

#[test]
fn rights_lost_when_a_rook_is_captured() {
    // A black knight takes the rook on l1: White loses L (only).
    let fen = "14k1/16/16/16/16/10n5/16/R3R3K2R3R b LEPA - 0 1";
    let mut p = pos(fen);
    assert_eq!(play_ok(&mut p, "Nxl1"), "Nxl1");
    assert!(p.to_text().contains(" w EPA "), "{}", p.to_text());
    let e = p.play("O-O").unwrap_err().to_string();
    assert!(e.contains("rook from l1 has moved or been taken"), "{e}");
    // And a capture on p1 takes P away.
    let fen = "14k1/16/16/16/16/14n1/16/R3R3K2R3R b LEPA - 0 1";
    let mut p = pos(fen);
    play_ok(&mut p, "Nxp1");
    assert!(p.to_text().contains(" w LEA "), "{}", p.to_text());
}

// ------------------------------------------------------------ pawns

#[test]
fn en_passant_beyond_h() {
    let fen = "14k1/13p2/16/12P3/16/16/16/8K7 b - - 0 1";
    let mut p = pos(fen);
    assert_eq!(play_ok(&mut p, "n5"), "n5");
    let text = p.to_text();
    assert_eq!(text, "14k1/16/16/12Pp2/16/16/16/8K7 w - n6 0 2");
    assert_eq!(pos(&text).to_text(), text);
    assert_eq!(play_ok(&mut p, "mxn6"), "mxn6");
    assert_eq!(p.to_text(), "14k1/16/13P2/16/16/16/16/8K7 b - - 0 2");
    // Also in coordinate form.
    let mut p = pos(&text);
    assert_eq!(play_ok(&mut p, "m5n6"), "mxn6");
}

#[test]
fn promotion_beyond_h() {
    let fen = "k14r/14P1/16/16/16/16/16/8K7 w - - 0 1";
    for (input, san) in [
        ("o8=Q", "o8=Q+"),
        ("o8Q", "o8=Q+"),
        ("o7o8q", "o8=Q+"),
        ("o8=N", "o8=N"),
        ("oxp8=R", "oxp8=R+"),
        ("o7p8n", "oxp8=N"),
        ("o8(Q)", "o8=Q+"),
        ("o8/Q", "o8=Q+"),
        ("oxp8(R)", "oxp8=R+"),
        ("oxp8/N", "oxp8=N"),
    ] {
        assert_eq!(reading(fen, input).unwrap(), san, "{input} in {fen}");
    }
    assert!(matches!(
        reading(fen, "o8"),
        Err(MoveError::Ambiguous { .. })
    ));
}

// ------------------------------------------------------------ notation

#[test]
fn san_disambiguation_on_the_wide_board() {
    // Three queens reach l4: j2 and n2 share rank 2, n2 and n6 share file n.
    let fen = "k15/16/13Q2/16/16/16/9Q3Q2/8K7 w - - 0 1";
    let p = pos(fen);
    let acts = p.legal_actions();
    for san in ["Qjl4", "Q6l4", "Qn2l4"] {
        assert!(acts.contains(&san.to_string()), "{san} in {acts:?}");
    }
    assert_eq!(reading(fen, "Qjl4").unwrap(), "Qjl4");
    assert_eq!(reading(fen, "Q6l4").unwrap(), "Q6l4");
    assert_eq!(reading(fen, "n2l4").unwrap(), "Qn2l4");
    match reading(fen, "Qnl4") {
        Err(MoveError::Ambiguous { candidates, .. }) => assert_eq!(candidates, ["Q6l4", "Qn2l4"]),
        other => panic!("{other:?}"),
    }
    // Two rooks on one file: rank disambiguation.
    let fen = "15k/4R11/16/16/16/16/16/4R3K7 w - - 0 1";
    let acts = pos(fen).legal_actions();
    assert!(
        acts.contains(&"R1e4".to_string()) && acts.contains(&"R7e4".to_string()),
        "{acts:?}"
    );
    assert_eq!(reading(fen, "R1e4").unwrap(), "R1e4");
    assert!(matches!(
        reading(fen, "Re4"),
        Err(MoveError::Ambiguous { .. })
    ));
}

#[test]
fn letter_case_rules() {
    // Upper case is a piece, never a file.
    assert!(matches!(
        reading(START, "E4"),
        Err(MoveError::Unreadable { .. })
    ));
    assert!(matches!(
        reading(START, "I2I4"),
        Err(MoveError::Unreadable { .. })
    ));
    assert_eq!(reading(START, "Nc3").unwrap(), "Nc3");
    // Lower-case files are files: `nc3` names an n-pawn, `kj3` a k-pawn.
    assert!(matches!(
        reading(START, "nc3"),
        Err(MoveError::Illegal { .. })
    ));
    assert!(reading(START, "nc3")
        .unwrap_err()
        .to_string()
        .contains("pawn on n2"));
    assert!(matches!(
        reading(START, "kj3"),
        Err(MoveError::Illegal { .. })
    ));
    assert_eq!(reading(START, "k3").unwrap(), "k3");
    assert_eq!(reading(START, "k1j3").unwrap(), "Nj3");
    // `bc4` is the b-pawn taking on c4, never a bishop.
    let fen = "15k/16/16/16/2n13/1P14/16/5B2K7 w - - 0 1";
    assert_eq!(reading(fen, "bc4").unwrap(), "bxc4");
    assert_eq!(reading(fen, "Bc4").unwrap(), "Bxc4");
    // q and r are no files: read as pieces.
    let e = reading(fen, "rb1").unwrap_err().to_string();
    assert!(e.contains("you have no rook"), "{e}");
    assert_eq!(
        reading("k15/16/16/16/16/16/9Q6/8K7 w - - 0 1", "ql4").unwrap(),
        "Ql4"
    );
    let e = reading(START, "Qh5").unwrap_err().to_string();
    assert!(e.contains("the queen on d1 has no legal move"), "{e}");
    let e = reading(START, "Zz9").unwrap_err().to_string();
    assert!(e.contains("lower-case files a to p"), "{e}");
}

// ------------------------------------------------------------ FEN and draws

#[test]
fn fen_round_trips() {
    for fen in [START, INSIDE, OUTSIDE] {
        assert_eq!(pos(fen).to_text(), fen);
    }
    let mut p = pos(START);
    for m in ["i4", "n5", "Nl3", "Nn6"] {
        play_ok(&mut p, m);
    }
    let text = p.to_text();
    assert_eq!(
        text,
        "rnbqrnbqkbnrqb1r/ppppppppppppp1pp/13n2/13p2/8P7/11N4/PPPPPPPP1PPPPPPP/RNBQRNBQKB1RQBNR w LEPAlepa - 2 3"
    );
    assert_eq!(pos(&text).to_text(), text);
    let g = rules::game("doublechess").unwrap();
    // Chess letters for castling are refused here, and vice versa.
    assert!(g.position(&START.replace("LEPAlepa", "KQkq"), &[]).is_err());
    assert!(rules::game("chess")
        .unwrap()
        .position(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
            &[]
        )
        .is_err());
    // Wrong width.
    assert!(g
        .position(&START.replace("/16/16/16/16/", "/16/15/16/16/"), &[])
        .is_err());
}

#[test]
fn draws_and_mate_on_the_wide_board() {
    let drawn = |e| Outcome::Drawn { ending: e };
    assert_eq!(
        pos("15k/16/16/16/16/16/16/K15 w - - 0 1").outcome(),
        drawn(Ending::InsufficientMaterial)
    );
    assert_eq!(
        pos("15k/16/16/16/16/16/16/KN14 w - - 0 1").outcome(),
        drawn(Ending::InsufficientMaterial)
    );
    assert_eq!(
        pos("15k/16/16/16/16/16/16/KQ14 w - - 0 1").outcome(),
        Outcome::Ongoing
    );
    // Stalemate in the p8 corner.
    assert_eq!(
        pos("15k/13Q2/14K1/16/16/16/16/16 b - - 0 1").outcome(),
        drawn(Ending::Stalemate)
    );
    // Back-rank mate on p8.
    let mut p = pos("15k/13ppp/16/16/16/16/16/K6R8 w - - 0 1");
    assert_eq!(play_ok(&mut p, "Rh8"), "Rh8#");
    assert_eq!(
        p.outcome(),
        Outcome::Won {
            winner: Color::White,
            ending: Ending::Checkmate
        }
    );
    // 50-move rule.
    let mut p = pos("15k/16/16/16/16/16/16/K6R8 w - - 99 70");
    play_ok(&mut p, "Rh2");
    assert_eq!(p.outcome(), drawn(Ending::FiftyMoveRule));
    // Repetition.
    let mut p = pos(START);
    for m in ["Nj3", "Nj6", "Nk1", "Nk8", "Nj3", "Nj6", "Nk1"] {
        play_ok(&mut p, m);
        assert_eq!(p.outcome(), Outcome::Ongoing);
    }
    play_ok(&mut p, "Nk8");
    assert_eq!(p.outcome(), drawn(Ending::Repetition));
}

// ------------------------------------------------------------ reference generator

/// A deliberately plain Double Chess move generator written from docs/rules.md
/// §1 alone, sharing nothing with the engine: board as a 16×8 array of FEN
/// letters, attacks found by walking from each enemy piece, castling from
/// "all squares strictly between king and rook empty".
#[derive(Clone)]
struct Ref {
    sq: [[char; 16]; 8],
    white: bool,
    rights: Vec<char>,
    ep: Option<(i32, i32)>,
}

const W: i32 = 16;
const H: i32 = 8;

impl Ref {
    fn from_fen(fen: &str) -> Ref {
        let f: Vec<&str> = fen.split(' ').collect();
        let mut sq = [['.'; 16]; 8];
        for (i, row) in f[0].split('/').enumerate() {
            let r = 7 - i;
            let mut file = 0usize;
            let mut num = String::new();
            for c in row.chars() {
                if c.is_ascii_digit() {
                    num.push(c);
                } else {
                    if !num.is_empty() {
                        file += num.parse::<usize>().unwrap();
                        num.clear();
                    }
                    sq[r][file] = c;
                    file += 1;
                }
            }
        }
        let ep = (f[3] != "-").then(|| {
            let b = f[3].as_bytes();
            ((b[0] - b'a') as i32, (b[1] - b'1') as i32)
        });
        Ref {
            sq,
            white: f[1] == "w",
            rights: f[2].chars().filter(|&c| c != '-').collect(),
            ep,
        }
    }

    fn at(&self, f: i32, r: i32) -> Option<char> {
        (0..W).contains(&f).then_some(())?;
        (0..H).contains(&r).then_some(())?;
        Some(self.sq[r as usize][f as usize])
    }

    fn is_white(c: char) -> bool {
        c.is_ascii_uppercase()
    }

    /// Does any piece of `white` attack (f, r)?
    fn attacked(&self, f: i32, r: i32, white: bool) -> bool {
        for pr in 0..H {
            for pf in 0..W {
                let c = self.sq[pr as usize][pf as usize];
                if c == '.' || Ref::is_white(c) != white {
                    continue;
                }
                let (df, dr) = (f - pf, r - pr);
                let hit = match c.to_ascii_lowercase() {
                    'p' => df.abs() == 1 && dr == if white { 1 } else { -1 },
                    'n' => df.abs() * dr.abs() == 2,
                    'k' => df.abs() <= 1 && dr.abs() <= 1 && (df, dr) != (0, 0),
                    k => {
                        let straight = df == 0 || dr == 0;
                        let diag = df.abs() == dr.abs();
                        let fits = (df, dr) != (0, 0)
                            && match k {
                                'r' => straight,
                                'b' => diag,
                                _ => straight || diag,
                            };
                        fits && {
                            let n = df.abs().max(dr.abs());
                            (1..n).all(|i| {
                                self.at(pf + df.signum() * i, pr + dr.signum() * i) == Some('.')
                            })
                        }
                    }
                };
                if hit {
                    return true;
                }
            }
        }
        false
    }

    fn name(f: i32, r: i32) -> String {
        format!("{}{}", (b'a' + f as u8) as char, r + 1)
    }

    fn king(&self, white: bool) -> (i32, i32) {
        let k = if white { 'K' } else { 'k' };
        for r in 0..H {
            for f in 0..W {
                if self.sq[r as usize][f as usize] == k {
                    return (f, r);
                }
            }
        }
        panic!("no king")
    }

    /// Legal moves as coordinates (`e2e4`, `o7o8q`, castling `i1m1`).
    fn legal(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mine = |c: char| c != '.' && Ref::is_white(c) == self.white;
        let theirs = |c: char| c != '.' && Ref::is_white(c) != self.white;
        for r in 0..H {
            for f in 0..W {
                let c = self.sq[r as usize][f as usize];
                if !mine(c) {
                    continue;
                }
                let mut targets: Vec<(i32, i32)> = Vec::new();
                match c.to_ascii_lowercase() {
                    'p' => {
                        let d = if self.white { 1 } else { -1 };
                        if self.at(f, r + d) == Some('.') {
                            targets.push((f, r + d));
                            let home = if self.white { 1 } else { H - 2 };
                            if r == home && self.at(f, r + 2 * d) == Some('.') {
                                targets.push((f, r + 2 * d));
                            }
                        }
                        for df in [-1, 1] {
                            if let Some(t) = self.at(f + df, r + d) {
                                if theirs(t) || self.ep == Some((f + df, r + d)) {
                                    targets.push((f + df, r + d));
                                }
                            }
                        }
                    }
                    'n' | 'k' => {
                        for df in -2..=2i32 {
                            for dr in -2..=2i32 {
                                let ok = if c.eq_ignore_ascii_case(&'n') {
                                    df.abs() * dr.abs() == 2
                                } else {
                                    df.abs() <= 1 && dr.abs() <= 1 && (df, dr) != (0, 0)
                                };
                                if let Some(t) = self.at(f + df, r + dr) {
                                    if ok && !mine(t) {
                                        targets.push((f + df, r + dr));
                                    }
                                }
                            }
                        }
                    }
                    k => {
                        for df in -1..=1i32 {
                            for dr in -1..=1i32 {
                                let straight = df == 0 || dr == 0;
                                if (df, dr) == (0, 0)
                                    || (k == 'r' && !straight)
                                    || (k == 'b' && straight)
                                {
                                    continue;
                                }
                                let mut i = 1;
                                while let Some(t) = self.at(f + df * i, r + dr * i) {
                                    if mine(t) {
                                        break;
                                    }
                                    targets.push((f + df * i, r + dr * i));
                                    if t != '.' {
                                        break;
                                    }
                                    i += 1;
                                }
                            }
                        }
                    }
                }
                for (tf, tr) in targets {
                    let uci = format!("{}{}", Ref::name(f, r), Ref::name(tf, tr));
                    let last = tr == 0 || tr == H - 1;
                    let promos: Vec<String> = if c.eq_ignore_ascii_case(&'p') && last {
                        ["q", "r", "b", "n"]
                            .iter()
                            .map(|p| format!("{uci}{p}"))
                            .collect()
                    } else {
                        vec![uci]
                    };
                    for m in promos {
                        if !self.play(&m).attacked_king(self.white) {
                            out.push(m);
                        }
                    }
                }
            }
        }
        // Castling: king on i, rook letter in the rights, everything strictly
        // between them empty, king not in check, path not attacked.
        let rank = if self.white { 0 } else { H - 1 };
        let (kf, kr) = self.king(self.white);
        for (rook_file, king_to) in [(11, 10), (4, 6), (15, 12), (0, 4)] {
            let letter = (b'A' + rook_file as u8) as char;
            let letter = if self.white {
                letter
            } else {
                letter.to_ascii_lowercase()
            };
            if !self.rights.contains(&letter) || (kf, kr) != (8, rank) {
                continue;
            }
            let (lo, hi) = (rook_file.min(8), rook_file.max(8));
            if !(lo + 1..hi).all(|f| self.at(f, rank) == Some('.')) {
                continue;
            }
            let step = if king_to > 8 { 1 } else { -1 };
            let mut path = vec![8];
            let mut f = 8;
            while f != king_to {
                f += step;
                path.push(f);
            }
            if path.iter().any(|&f| self.attacked(f, rank, !self.white)) {
                continue;
            }
            out.push(format!(
                "{}{}",
                Ref::name(8, rank),
                Ref::name(king_to, rank)
            ));
        }
        out.sort();
        out
    }

    fn attacked_king(&self, white: bool) -> bool {
        let (f, r) = self.king(white);
        self.attacked(f, r, !white)
    }

    /// The position after a move in coordinates (castling as the king's move).
    fn play(&self, m: &str) -> Ref {
        let b = m.as_bytes();
        let (ff, fr) = ((b[0] - b'a') as i32, (b[1] - b'1') as i32);
        let (tf, tr) = ((b[2] - b'a') as i32, (b[3] - b'1') as i32);
        let mut n = self.clone();
        let c = self.sq[fr as usize][ff as usize];
        n.sq[fr as usize][ff as usize] = '.';
        let mut placed = c;
        if c.eq_ignore_ascii_case(&'p') {
            if Some((tf, tr)) == self.ep {
                n.sq[fr as usize][tf as usize] = '.';
            }
            if let Some(&p) = b.get(4) {
                let p = p as char;
                placed = if self.white {
                    p.to_ascii_uppercase()
                } else {
                    p
                };
            }
        }
        n.sq[tr as usize][tf as usize] = placed;
        n.ep =
            (c.eq_ignore_ascii_case(&'p') && (tr - fr).abs() == 2).then_some((ff, (fr + tr) / 2));
        if c.eq_ignore_ascii_case(&'k') && (tf - ff).abs() >= 2 {
            let (rook_from, rook_to) = match tf {
                10 => (11, 9),
                6 => (4, 7),
                12 => (15, 11),
                _ => (0, 5),
            };
            n.sq[tr as usize][rook_from] = '.';
            n.sq[tr as usize][rook_to] = if self.white { 'R' } else { 'r' };
        }
        if c.eq_ignore_ascii_case(&'k') {
            n.rights.retain(|l| l.is_ascii_uppercase() != self.white);
        }
        for (f, r) in [(ff, fr), (tf, tr)] {
            if r == 0 || r == H - 1 {
                let letter = (b'A' + f as u8) as char;
                let letter = if r == 0 {
                    letter
                } else {
                    letter.to_ascii_lowercase()
                };
                n.rights.retain(|&l| l != letter);
            }
        }
        n.white = !self.white;
        n
    }
}

impl Reference for Ref {
    fn legal(&self) -> Vec<String> {
        Ref::legal(self)
    }
    fn play(&self, m: &str) -> Ref {
        Ref::play(self, m)
    }
}

/// The random playouts' checks and choices: how often castling was
/// preferred.
struct Castlings(usize);

impl Playout for Castlings {
    type Hooks = Orthodox;
    type Ref = Ref;

    fn check(&mut self, mine: &State, reference: &Ref, here: &str) {
        assert_eq!(
            mine.is_check(),
            reference.attacked_king(reference.white),
            "{here}"
        );
        let mut rights: Vec<char> = mine
            .fen()
            .split(' ')
            .nth(2)
            .unwrap()
            .chars()
            .filter(|&c| c != '-')
            .collect();
        let mut theirs = reference.rights.clone();
        rights.sort();
        theirs.sort();
        assert_eq!(rights, theirs, "{here}");
    }

    /// Prefer castling when it is there, to exercise it.
    fn choose(&mut self, _mine: &State, legal: &[Move], rng: &mut Rng) -> usize {
        let castle = legal
            .iter()
            .position(|m| matches!(m.special, rules::orthodox::Special::Castle(_)));
        match castle {
            Some(i) if rng.usize(..2) == 0 => {
                self.0 += 1;
                i
            }
            _ => rng.usize(..legal.len()),
        }
    }
}

#[test]
fn random_playouts_agree_with_the_reference() {
    let starts = [
        START,
        INSIDE,
        OUTSIDE,
        // Open armies with castling rights, so castling and checks happen.
        "r3r3k2r3r/pp2p1pp1pp1pp1p/2n2b3q3n2/16/16/2N2B3Q3N2/PP2P1PP1PP1PP1P/R3R3K2R3R w LEPAlepa - 0 1",
        "r7k6r/p6ppp5p/3q8b3/16/16/3Q8B3/P6PPP5P/R7K6R w PApa - 0 1",
    ];
    let mut rng = Rng::with_seed(0x5EED_0FD0_0B1E);
    let mut counted = Castlings(0);
    let positions = play_out(&mut counted, &mut rng, "", 60, 120, |game| {
        let fen = starts[game % starts.len()];
        (
            State::from_fen(doublechess::variant(), fen).unwrap(),
            Ref::from_fen(fen),
        )
    });
    let castlings = counted.0;
    assert!(positions > 3000, "{positions}");
    assert!(castlings > 20, "{castlings}");
}
