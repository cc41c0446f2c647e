//! The reference generator: a plain Zelig move generator written from
//! docs/rules.md §3 alone, shared by perft and the random playouts.

use super::*;

/// A deliberately plain Zelig move generator written from docs/rules.md §3
/// alone, sharing nothing with the engine: the board is an 8×8 array of
/// FEN letters, each zelig's power is worked out from the whole board
/// every time it is needed, by the algorithm's steps as written, and
/// attacks are found by walking from each enemy piece.
#[derive(Clone)]
pub(super) struct Ref {
    sq: [[char; 8]; 8],
    pub(super) white: bool,
    rights: Vec<char>,
    ep: Option<(i32, i32)>,
    rule: Powers,
}

impl Ref {
    pub(super) fn from_fen(fen: &str, rule: Powers) -> Ref {
        let f: Vec<&str> = fen.split(' ').collect();
        let mut sq = [['.'; 8]; 8];
        for (i, row) in f[0].split('/').enumerate() {
            let r = 7 - i;
            let mut file = 0usize;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as usize;
                } else {
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
            rule,
        }
    }

    fn at(&self, f: i32, r: i32) -> Option<char> {
        ((0..8).contains(&f) && (0..8).contains(&r)).then(|| self.sq[r as usize][f as usize])
    }

    /// Every zelig's power (`r n b q m`), `.` elsewhere.
    pub(super) fn powers(&self) -> [[char; 8]; 8] {
        let by_file = ['r', 'n', 'b', 'q', 'm', 'b', 'n', 'r'];
        let mut out = [['.'; 8]; 8];
        for white in [true, false] {
            let z = if white { 'Z' } else { 'z' };
            let near: Vec<usize> = if white {
                (0..8).collect()
            } else {
                (0..8).rev().collect()
            };
            let on = |f: usize| -> Vec<usize> {
                near.iter()
                    .copied()
                    .filter(|&r| self.sq[r][f] == z)
                    .collect()
            };
            if self.rule != Powers::Quota {
                for f in 0..8 {
                    for r in on(f) {
                        out[r][f] = by_file[f];
                    }
                }
                continue;
            }
            // 1. b, g, c, f, e files.
            for f in [1, 6, 2, 5, 4] {
                for r in on(f) {
                    out[r][f] = by_file[f];
                }
            }
            // 2. Rook quota 2 from the rook files.
            let (a, d, h) = (on(0), on(3), on(7));
            let mut quota = 2;
            if !a.is_empty() && !h.is_empty() {
                out[a[0]][0] = 'r';
                out[h[0]][7] = 'r';
                quota = 0;
            } else {
                for (f, list) in [(0, &a), (7, &h)] {
                    for &r in list.iter().take(2) {
                        out[r][f] = 'r';
                        quota -= 1;
                    }
                }
            }
            // 3. The d-file: the queen, then rooks while the quota lasts.
            for (i, &r) in d.iter().enumerate() {
                if i == 0 {
                    out[r][3] = 'q';
                } else if quota > 0 {
                    out[r][3] = 'r';
                    quota -= 1;
                }
            }
            // 4. The rest of d, a, h, per file: bishop, knight, monarchs.
            for (f, list) in [(3, &d), (0, &a), (7, &h)] {
                let mut next = ['b', 'n'].into_iter();
                for &r in list.iter() {
                    if out[r][f] == '.' {
                        out[r][f] = next.next().unwrap_or('m');
                    }
                }
            }
        }
        out
    }

    /// How the piece on a square moves: `p`, `k`, or a zelig's power.
    fn mover(&self, powers: &[[char; 8]; 8], f: i32, r: i32) -> char {
        match self.sq[r as usize][f as usize].to_ascii_lowercase() {
            'z' => powers[r as usize][f as usize],
            c => c,
        }
    }

    /// The squares a piece moving as `kind` from (f, r) reaches or attacks
    /// (pawns aside), stopping at the first piece on a line.
    fn reach(&self, kind: char, f: i32, r: i32) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        let steps: &[(i32, i32)] = &[
            (1, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (1, 1),
            (1, -1),
            (-1, 1),
            (-1, -1),
        ];
        match kind {
            'n' => {
                for (df, dr) in [
                    (1, 2),
                    (2, 1),
                    (2, -1),
                    (1, -2),
                    (-1, -2),
                    (-2, -1),
                    (-2, 1),
                    (-1, 2),
                ] {
                    if self.at(f + df, r + dr).is_some() {
                        out.push((f + df, r + dr));
                    }
                }
            }
            'k' | 'm' => {
                for &(df, dr) in steps {
                    if self.at(f + df, r + dr).is_some() {
                        out.push((f + df, r + dr));
                    }
                }
            }
            slider => {
                let dirs = match slider {
                    'r' => &steps[..4],
                    'b' => &steps[4..],
                    _ => steps,
                };
                for &(df, dr) in dirs {
                    let mut i = 1;
                    while let Some(c) = self.at(f + df * i, r + dr * i) {
                        out.push((f + df * i, r + dr * i));
                        if c != '.' {
                            break;
                        }
                        i += 1;
                    }
                }
            }
        }
        out
    }

    fn attacked(&self, f: i32, r: i32, by_white: bool) -> bool {
        let powers = self.powers();
        for pr in 0..8 {
            for pf in 0..8 {
                let c = self.sq[pr as usize][pf as usize];
                if c == '.' || c.is_ascii_uppercase() != by_white {
                    continue;
                }
                let hit = match self.mover(&powers, pf, pr) {
                    'p' => (f - pf).abs() == 1 && r - pr == if by_white { 1 } else { -1 },
                    kind => self.reach(kind, pf, pr).contains(&(f, r)),
                };
                if hit {
                    return true;
                }
            }
        }
        false
    }

    fn king(&self, white: bool) -> (i32, i32) {
        let k = if white { 'K' } else { 'k' };
        for r in 0..8 {
            for f in 0..8 {
                if self.sq[r as usize][f as usize] == k {
                    return (f, r);
                }
            }
        }
        panic!("no king")
    }

    pub(super) fn in_check(&self, white: bool) -> bool {
        let (f, r) = self.king(white);
        self.attacked(f, r, !white)
    }

    /// Zelig 2: the mover's zeligs on d, and on a and h together.
    fn within_limits(&self, white: bool) -> bool {
        let z = if white { 'Z' } else { 'z' };
        let count = |f: usize| (0..8).filter(|&r| self.sq[r][f] == z).count();
        count(3) <= 1 && count(0) + count(7) <= 2
    }

    pub(super) fn name(f: i32, r: i32) -> String {
        format!("{}{}", (b'a' + f as u8) as char, r + 1)
    }

    /// Legal moves as coordinates (`b1c3`, promotion `e7e8z`, castling as
    /// the king's move `e1g1`).
    fn legal(&self) -> Vec<String> {
        let powers = self.powers();
        let mine = |c: char| c != '.' && c.is_ascii_uppercase() == self.white;
        let theirs = |c: char| c != '.' && c.is_ascii_uppercase() != self.white;
        let mut candidates = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                if !mine(self.sq[r as usize][f as usize]) {
                    continue;
                }
                let mut targets = Vec::new();
                match self.mover(&powers, f, r) {
                    'p' => {
                        let d = if self.white { 1 } else { -1 };
                        if self.at(f, r + d) == Some('.') {
                            targets.push((f, r + d));
                            let home = if self.white { 1 } else { 6 };
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
                    kind => {
                        for (tf, tr) in self.reach(kind, f, r) {
                            if !mine(self.sq[tr as usize][tf as usize]) {
                                targets.push((tf, tr));
                            }
                        }
                    }
                }
                for (tf, tr) in targets {
                    let mut m = format!("{}{}", Ref::name(f, r), Ref::name(tf, tr));
                    if self.sq[r as usize][f as usize].eq_ignore_ascii_case(&'p')
                        && (tr == 0 || tr == 7)
                    {
                        m.push('z');
                    }
                    candidates.push(m);
                }
            }
        }
        // Castling with the corner zelig: right kept, squares between
        // empty, the king not in check and not crossing or landing on an
        // attacked square.
        let rank = if self.white { 0 } else { 7 };
        for (letter, corner, king_to) in [('K', 7, 6), ('Q', 0, 2)] {
            let letter = if self.white {
                letter
            } else {
                letter.to_ascii_lowercase()
            };
            if !self.rights.contains(&letter) {
                continue;
            }
            let (lo, hi) = (corner.min(4), corner.max(4));
            if !(lo + 1..hi).all(|f| self.at(f, rank) == Some('.')) {
                continue;
            }
            let step = if king_to > 4 { 1 } else { -1 };
            if [4, 4 + step, king_to]
                .iter()
                .any(|&f| self.attacked(f, rank, !self.white))
            {
                continue;
            }
            candidates.push(format!(
                "{}{}",
                Ref::name(4, rank),
                Ref::name(king_to, rank)
            ));
        }
        let mut out: Vec<String> = candidates
            .into_iter()
            .filter(|m| {
                let after = self.play(m);
                !after.in_check(self.white)
                    && (self.rule != Powers::Limited || after.within_limits(self.white))
            })
            .collect();
        out.sort();
        out
    }

    /// The position after a move in coordinates.
    fn play(&self, m: &str) -> Ref {
        let b = m.as_bytes();
        let (ff, fr) = ((b[0] - b'a') as i32, (b[1] - b'1') as i32);
        let (tf, tr) = ((b[2] - b'a') as i32, (b[3] - b'1') as i32);
        let mut n = self.clone();
        let c = self.sq[fr as usize][ff as usize];
        n.sq[fr as usize][ff as usize] = '.';
        let mut placed = c;
        let pawn = c.eq_ignore_ascii_case(&'p');
        if pawn {
            if Some((tf, tr)) == self.ep {
                n.sq[fr as usize][tf as usize] = '.';
            }
            if b.len() > 4 {
                placed = if self.white { 'Z' } else { 'z' };
            }
        }
        n.sq[tr as usize][tf as usize] = placed;
        n.ep = (pawn && (tr - fr).abs() == 2).then_some((ff, (fr + tr) / 2));
        let king = c.eq_ignore_ascii_case(&'k');
        if king && (tf - ff).abs() == 2 {
            let (from, to) = if tf == 6 { (7, 5) } else { (0, 3) };
            let z = n.sq[tr as usize][from];
            n.sq[tr as usize][from] = '.';
            n.sq[tr as usize][to] = z;
        }
        if king {
            n.rights.retain(|l| l.is_ascii_uppercase() != self.white);
        }
        for (f, r) in [(ff, fr), (tf, tr)] {
            let lost = match (f, r) {
                (7, 0) => 'K',
                (0, 0) => 'Q',
                (7, 7) => 'k',
                (0, 7) => 'q',
                _ => continue,
            };
            n.rights.retain(|&l| l != lost);
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
