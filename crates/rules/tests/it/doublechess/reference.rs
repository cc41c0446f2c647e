//! The reference generator: a plain Double Chess move generator written from
//! docs/rules.md §1 alone, shared by perft and the random playouts.

use super::*;

/// A deliberately plain Double Chess move generator written from docs/rules.md
/// §1 alone, sharing nothing with the engine: board as a 16×8 array of FEN
/// letters, attacks found by walking from each enemy piece, castling from
/// "all squares strictly between king and rook empty".
#[derive(Clone)]
pub(super) struct Ref {
    sq: [[char; 16]; 8],
    pub(super) white: bool,
    pub(super) rights: Vec<char>,
    ep: Option<(i32, i32)>,
}

const W: i32 = 16;
const H: i32 = 8;

impl Ref {
    pub(super) fn from_fen(fen: &str) -> Ref {
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

    pub(super) fn attacked_king(&self, white: bool) -> bool {
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
