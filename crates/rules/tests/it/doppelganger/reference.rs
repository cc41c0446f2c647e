//! The reference generator: a plain Doppelganger generator written from
//! docs/rules.md §2 alone, shared by perft and the random playouts.

use super::*;

/// A deliberately plain Doppelganger generator written from docs/rules.md §2
/// alone, sharing nothing with the engine: the board is an 8×8 array of
/// (FEN letter, pair id), pair ids are unique over the whole game (a new
/// one per promotion), attacks are found by walking from every enemy
/// piece, and every action is tried on a copy and kept when the mover's
/// king is not attacked afterwards.
#[derive(Clone)]
pub(super) struct Ref {
    sq: [[(char, u32); 8]; 8],
    white: bool,
    pub(super) rights: Vec<char>,
    ep: Option<(i32, i32)>,
    lenient: bool,
    next_id: u32,
}

fn name(f: i32, r: i32) -> String {
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
}

fn square(text: &str) -> (i32, i32) {
    let b = text.as_bytes();
    ((b[0] - b'a') as i32, (b[1] - b'1') as i32)
}

impl Ref {
    pub(super) fn from_text(text: &str, lenient: bool) -> Ref {
        let f: Vec<&str> = text.split(' ').collect();
        let mut sq = [['.'; 8]; 8].map(|row| row.map(|c| (c, 0)));
        for (i, row) in f[0].split('/').enumerate() {
            let r = 7 - i;
            let mut file = 0;
            for c in row.chars() {
                match c.to_digit(10) {
                    Some(d) => file += d as usize,
                    None => {
                        sq[r][file] = (c, 0);
                        file += 1;
                    }
                }
            }
        }
        let mut me = Ref {
            sq,
            white: f[1] == "w",
            rights: f[2].chars().filter(|&c| c != '-').collect(),
            ep: (f[3] != "-").then(|| square(f[3])),
            lenient,
            next_id: 1,
        };
        match f.iter().find_map(|x| x.strip_prefix("pairs=")) {
            Some("-") => {}
            Some(list) => {
                for pair in list.split(',') {
                    let id = me.new_id();
                    for s in [&pair[..2], &pair[2..]] {
                        let (f, r) = square(s);
                        me.sq[r as usize][f as usize].1 = id;
                    }
                }
            }
            None => {
                for letter in "RNBrnb".chars() {
                    let found: Vec<(usize, usize)> = (0..8)
                        .flat_map(|r| (0..8).map(move |f| (r, f)))
                        .filter(|&(r, f)| me.sq[r][f].0 == letter)
                        .collect();
                    if found.len() == 2 {
                        let id = me.new_id();
                        for (r, f) in found {
                            me.sq[r][f].1 = id;
                        }
                    }
                }
            }
        }
        me
    }

    fn new_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn at(&self, f: i32, r: i32) -> Option<char> {
        ((0..8).contains(&f) && (0..8).contains(&r)).then(|| self.sq[r as usize][f as usize].0)
    }

    fn mine(&self, c: char) -> bool {
        c != '.' && c.is_ascii_uppercase() == self.white
    }

    fn theirs(&self, c: char) -> bool {
        c != '.' && c.is_ascii_uppercase() != self.white
    }

    /// Does any piece of `white` attack (f, r)?
    fn attacked(&self, f: i32, r: i32, white: bool) -> bool {
        for pr in 0..8 {
            for pf in 0..8 {
                let c = self.sq[pr as usize][pf as usize].0;
                if c == '.' || c.is_ascii_uppercase() != white {
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

    fn king(&self, white: bool) -> (i32, i32) {
        let k = if white { 'K' } else { 'k' };
        for r in 0..8 {
            for f in 0..8 {
                if self.sq[r as usize][f as usize].0 == k {
                    return (f, r);
                }
            }
        }
        panic!("no king")
    }

    pub(super) fn in_check(&self) -> bool {
        let (f, r) = self.king(self.white);
        self.attacked(f, r, !self.white)
    }

    /// Squares of the pawns of `white`, except `but`.
    fn pawns(&self, white: bool, but: (i32, i32)) -> Vec<(i32, i32)> {
        let p = if white { 'P' } else { 'p' };
        let mut out = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                if self.sq[r as usize][f as usize].0 == p && (f, r) != but {
                    out.push((f, r));
                }
            }
        }
        out
    }

    /// Legal actions as coordinates with the choice after a slash
    /// (`e4d5/c7`, `b7b8r/g2`, castling `e1g1`).
    fn legal(&self) -> Vec<String> {
        let mut out = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                let c = self.sq[r as usize][f as usize].0;
                if !self.mine(c) {
                    continue;
                }
                let mut targets: Vec<(i32, i32)> = Vec::new();
                match c.to_ascii_lowercase() {
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
                                if self.theirs(t) || self.ep == Some((f + df, r + d)) {
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
                                    if ok && !self.mine(t) {
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
                                    if self.mine(t) {
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
                let pawn = c.eq_ignore_ascii_case(&'p');
                for (tf, tr) in targets {
                    let uci = format!("{}{}", name(f, r), name(tf, tr));
                    let mut bases = Vec::new();
                    let mut choices: Vec<(i32, i32)> = Vec::new();
                    if pawn && (tr == 0 || tr == 7) {
                        choices = self.pawns(self.white, (f, r));
                        if choices.is_empty() && !self.lenient {
                            continue;
                        }
                        for p in ["r", "n", "b"] {
                            bases.push(format!("{uci}{p}"));
                        }
                    } else {
                        let victim = if pawn && tf != f && self.at(tf, tr) == Some('.') {
                            (tf, r)
                        } else {
                            (tf, tr)
                        };
                        let v = self.sq[victim.1 as usize][victim.0 as usize].0;
                        if v.eq_ignore_ascii_case(&'p') && self.theirs(v) {
                            choices = self.pawns(!self.white, victim);
                        }
                        bases.push(uci);
                    }
                    for base in bases {
                        let full: Vec<String> = if choices.is_empty() {
                            vec![base]
                        } else {
                            choices
                                .iter()
                                .map(|&(cf, cr)| format!("{base}/{}", name(cf, cr)))
                                .collect()
                        };
                        for m in full {
                            let after = self.play(&m);
                            let (kf, kr) = after.king(self.white);
                            if !after.attacked(kf, kr, !self.white) {
                                out.push(m);
                            }
                        }
                    }
                }
            }
        }
        // Castling: the right, king and rook where they start, the squares
        // between empty, king not in check and not crossing or landing on
        // an attacked square.
        let rank = if self.white { 0 } else { 7 };
        for (letter, rook_file, between, path) in [
            ('K', 7, &[5, 6][..], &[4, 5, 6][..]),
            ('Q', 0, &[1, 2, 3][..], &[4, 3, 2][..]),
        ] {
            let letter = if self.white {
                letter
            } else {
                letter.to_ascii_lowercase()
            };
            let king = if self.white { 'K' } else { 'k' };
            let rook = if self.white { 'R' } else { 'r' };
            if self.rights.contains(&letter)
                && self.at(4, rank) == Some(king)
                && self.at(rook_file, rank) == Some(rook)
                && between.iter().all(|&f| self.at(f, rank) == Some('.'))
                && path.iter().all(|&f| !self.attacked(f, rank, !self.white))
            {
                out.push(format!("{}{}", name(4, rank), name(path[2], rank)));
            }
        }
        out.sort();
        out
    }

    /// Empty a square, with the castling right of a corner rook.
    fn remove(&mut self, (f, r): (i32, i32)) {
        self.sq[r as usize][f as usize] = ('.', 0);
        self.touch((f, r));
    }

    /// A square emptied or entered: the rights that need it go.
    fn touch(&mut self, at: (i32, i32)) {
        let lost: &[char] = match at {
            (0, 0) => &['Q'],
            (7, 0) => &['K'],
            (4, 0) => &['K', 'Q'],
            (0, 7) => &['q'],
            (7, 7) => &['k'],
            (4, 7) => &['k', 'q'],
            _ => &[],
        };
        self.rights.retain(|c| !lost.contains(c));
    }

    fn play(&self, m: &str) -> Ref {
        let (core, choice) = match m.split_once('/') {
            Some((core, c)) => (core, Some(square(c))),
            None => (m, None),
        };
        let (ff, fr) = square(&core[0..2]);
        let (tf, tr) = square(&core[2..4]);
        let promo = core.chars().nth(4);
        let mut n = self.clone();
        let (c, id) = self.sq[fr as usize][ff as usize];
        let pawn = c.eq_ignore_ascii_case(&'p');
        let victim_at = if pawn && tf != ff && self.at(tf, tr) == Some('.') {
            (tf, fr)
        } else {
            (tf, tr)
        };
        let (victim, victim_id) = self.sq[victim_at.1 as usize][victim_at.0 as usize];
        n.remove((ff, fr));
        n.remove(victim_at);
        n.touch((tf, tr));
        let placed = match promo {
            Some(p) => {
                let p = if self.white {
                    p.to_ascii_uppercase()
                } else {
                    p
                };
                let id = match choice {
                    Some(partner) => {
                        let id = n.new_id();
                        n.sq[partner.1 as usize][partner.0 as usize] = (p, id);
                        id
                    }
                    None => 0,
                };
                (p, id)
            }
            None => (c, id),
        };
        n.sq[tr as usize][tf as usize] = placed;
        if c.eq_ignore_ascii_case(&'k') && (tf - ff).abs() == 2 {
            let (rf, rt) = if tf == 6 { (7, 5) } else { (0, 3) };
            let rook = n.sq[tr as usize][rf];
            n.remove((rf as i32, tr));
            n.sq[tr as usize][rt] = rook;
        }
        if victim.eq_ignore_ascii_case(&'p') {
            if let Some(other) = choice {
                n.remove(other);
            }
        } else if victim != '.' && victim_id != 0 {
            let partner = (0..8)
                .flat_map(|r| (0..8).map(move |f| (f, r)))
                .find(|&(f, r)| n.sq[r as usize][f as usize] == (victim, victim_id));
            if let Some(at) = partner {
                n.remove(at);
            }
        }
        n.ep = (pawn && (tr - fr).abs() == 2).then_some((ff, (fr + tr) / 2));
        n.white = !self.white;
        n
    }

    /// FEN's placement field.
    pub(super) fn placement(&self) -> String {
        let mut s = String::new();
        for r in (0..8).rev() {
            let mut run = 0;
            for f in 0..8 {
                match self.sq[r][f].0 {
                    '.' => run += 1,
                    c => {
                        if run > 0 {
                            s.push_str(&run.to_string());
                            run = 0;
                        }
                        s.push(c);
                    }
                }
            }
            if run > 0 {
                s.push_str(&run.to_string());
            }
            if r > 0 {
                s.push('/');
            }
        }
        s
    }

    /// Every pair as `a1h1`, a1 first within and between pairs.
    pub(super) fn pairs(&self) -> Vec<String> {
        let mut by_id: Vec<(u32, Vec<(i32, i32)>)> = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                let id = self.sq[r as usize][f as usize].1;
                if id == 0 || self.sq[r as usize][f as usize].0 == '.' {
                    continue;
                }
                match by_id.iter_mut().find(|(i, _)| *i == id) {
                    Some((_, v)) => v.push((f, r)),
                    None => by_id.push((id, vec![(f, r)])),
                }
            }
        }
        let mut out: Vec<((i32, i32), String)> = by_id
            .into_iter()
            .filter(|(_, v)| v.len() == 2)
            .map(|(_, v)| {
                (
                    (v[0].1, v[0].0),
                    format!("{}{}", name(v[0].0, v[0].1), name(v[1].0, v[1].1)),
                )
            })
            .collect();
        out.sort();
        out.into_iter().map(|(_, s)| s).collect()
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
