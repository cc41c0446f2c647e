//! A plain implementation of docs/rules.md §5, written from the text and
//! sharing nothing with the engine: cells as coordinates, attacks by
//! walking every piece's moves, every action played out on a copy.

pub const KINDS: &str = "KQRBNU";

type C = (i8, i8, i8);

fn idx(c: C) -> usize {
    (c.0 * 16 + c.1 * 4 + c.2) as usize
}

fn at(i: usize) -> C {
    ((i / 16) as i8, (i / 4 % 4) as i8, (i % 4) as i8)
}

fn inside(c: C) -> bool {
    (0..4).contains(&c.0) && (0..4).contains(&c.1) && (0..4).contains(&c.2)
}

pub fn name(i: usize) -> String {
    let c = at(i);
    format!(
        "{}{}{}",
        (b'A' + c.0 as u8) as char,
        (b'a' + c.1 as u8) as char,
        c.2 + 1
    )
}

fn parse_name(s: &str) -> usize {
    let b = s.as_bytes();
    idx((
        (b[0] - b'A') as i8,
        (b[1] - b'a') as i8,
        (b[2] - b'1') as i8,
    ))
}

fn touching(a: usize, b: usize) -> bool {
    let (x, y) = (at(a), at(b));
    a != b && (x.0 - y.0).abs() <= 1 && (x.1 - y.1).abs() <= 1 && (x.2 - y.2).abs() <= 1
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ref {
    /// (white?, kind letter) per cell.
    pub active: [Option<(bool, char)>; 64],
    /// Per side (white = 0): a vanished piece (kind, cell, counters).
    pub vanished: [Option<(char, usize, u8)>; 2],
    /// Per side: an original (cell, counters).
    pub originals: [Option<(usize, u8)>; 2],
    pub res: [[u8; 6]; 2],
    pub white: bool,
    pub phase: &'static str,
    pub clock: u32,
}

fn side(white: bool) -> usize {
    if white {
        0
    } else {
        1
    }
}

/// The cells a piece moves to from `from`, given what stands where.
fn dests(r: &Ref, from: usize, kind: char, white: bool) -> Vec<usize> {
    let f = at(from);
    let mut out = Vec::new();
    if kind == 'N' {
        for a in -2i8..=2 {
            for b in -2i8..=2 {
                for c in -2i8..=2 {
                    let mut m = [a.abs(), b.abs(), c.abs()];
                    m.sort();
                    if m != [0, 1, 2] {
                        continue;
                    }
                    let t = (f.0 + a, f.1 + b, f.2 + c);
                    if inside(t) && r.active[idx(t)].is_none_or(|p| p.0 != white) {
                        out.push(idx(t));
                    }
                }
            }
        }
        return out;
    }
    for a in -1i8..=1 {
        for b in -1i8..=1 {
            for c in -1i8..=1 {
                let axes = [a, b, c].iter().filter(|&&x| x != 0).count();
                let ok = match kind {
                    'K' | 'Q' => axes > 0,
                    'R' => axes == 1,
                    'B' => axes == 2,
                    'U' => axes == 3,
                    _ => false,
                };
                if !ok {
                    continue;
                }
                let mut t = (f.0 + a, f.1 + b, f.2 + c);
                while inside(t) {
                    match r.active[idx(t)] {
                        Some(p) if p.0 == white => break,
                        Some(_) => {
                            out.push(idx(t));
                            break;
                        }
                        None => out.push(idx(t)),
                    }
                    if kind == 'K' {
                        break;
                    }
                    t = (t.0 + a, t.1 + b, t.2 + c);
                }
            }
        }
    }
    out
}

/// Whether the piece of `kind` on `from` attacks `target`: the step
/// between them fits the kind, and nothing active stands in between.
fn hits(r: &Ref, from: usize, kind: char, target: usize) -> bool {
    let (f, t) = (at(from), at(target));
    let d = [t.0 - f.0, t.1 - f.1, t.2 - f.2];
    let mut size = d.map(i8::abs);
    if kind == 'N' {
        size.sort();
        return size == [0, 1, 2];
    }
    let len = size.into_iter().max().unwrap_or(0);
    if len == 0 || size.iter().any(|&x| x != 0 && x != len) {
        return false;
    }
    let axes = size.iter().filter(|&&x| x != 0).count();
    let fits = match kind {
        'K' => len == 1,
        'Q' => true,
        'R' => axes == 1,
        'B' => axes == 2,
        'U' => axes == 3,
        _ => false,
    };
    let s = d.map(i8::signum);
    fits && (1..len)
        .all(|k| r.active[idx((f.0 + s[0] * k, f.1 + s[1] * k, f.2 + s[2] * k))].is_none())
}

impl Ref {
    pub fn parse(text: &str) -> Ref {
        let mut r = Ref {
            active: [None; 64],
            vanished: [None; 2],
            originals: [None; 2],
            res: [[0; 6]; 2],
            white: true,
            phase: "play",
            clock: 0,
        };
        for f in text.split(' ') {
            let (k, v) = f.split_once('=').unwrap();
            match k {
                "phase" => {
                    r.phase = ["place", "play", "won-w", "won-b"]
                        .into_iter()
                        .find(|p| *p == v)
                        .unwrap()
                }
                "side" => r.white = v == "w",
                "white" | "black" if v != "-" => {
                    let w = k == "white";
                    for item in v.split(',') {
                        let kind = item.chars().next().unwrap();
                        let cell = parse_name(&item[2..5]);
                        match item.get(5..) {
                            Some(m) if m.starts_with("(V") => {
                                let n = m[2..m.len() - 1].parse().unwrap();
                                r.vanished[side(w)] = Some((kind, cell, n));
                            }
                            Some(m) if m.starts_with("(C") => {
                                let n = m[2..m.len() - 1].parse().unwrap();
                                r.originals[side(w)] = Some((cell, n));
                                r.active[cell] = Some((w, kind));
                            }
                            _ => r.active[cell] = Some((w, kind)),
                        }
                    }
                }
                "wres" | "bres" if v != "-" => {
                    let s = side(k == "wres");
                    let b = v.as_bytes();
                    let mut i = 0;
                    while i < b.len() {
                        let kind = KINDS.find(b[i] as char).unwrap();
                        let mut j = i + 1;
                        while j < b.len() && b[j].is_ascii_digit() {
                            j += 1;
                        }
                        r.res[s][kind] = v[i + 1..j].parse().unwrap();
                        i = j;
                    }
                }
                "clock" => r.clock = v.parse().unwrap(),
                _ => {}
            }
        }
        r
    }

    pub fn text(&self) -> String {
        let list = |w: bool| {
            let s = side(w);
            let mut items = Vec::new();
            for i in 0..64 {
                if let Some((pw, k)) = self.active[i] {
                    if pw == w {
                        let mark = match self.originals[s] {
                            Some((c, n)) if c == i => format!("(C{n})"),
                            _ => String::new(),
                        };
                        items.push(format!("{k}@{}{mark}", name(i)));
                    }
                }
                if let Some((k, c, n)) = self.vanished[s] {
                    if c == i {
                        items.push(format!("{k}@{}(V{n})", name(i)));
                    }
                }
            }
            if items.is_empty() {
                "-".to_string()
            } else {
                items.join(",")
            }
        };
        let res = |s: usize| {
            let t: String = KINDS
                .chars()
                .zip(self.res[s])
                .filter(|&(_, n)| n > 0)
                .map(|(k, n)| format!("{k}{n}"))
                .collect();
            if t.is_empty() {
                "-".to_string()
            } else {
                t
            }
        };
        format!(
            "phase={} side={} white={} black={} wres={} bres={} clock={}",
            self.phase,
            if self.white { "w" } else { "b" },
            list(true),
            list(false),
            res(0),
            res(1),
            self.clock
        )
    }

    /// The royal king of a side: (cell, vanished?).
    fn royal(&self, w: bool) -> Option<(usize, bool)> {
        let s = side(w);
        if let Some(('K', c, _)) = self.vanished[s] {
            return Some((c, true));
        }
        (0..64)
            .find(|&i| {
                self.active[i] == Some((w, 'K')) && self.originals[s].is_none_or(|o| o.0 != i)
            })
            .map(|i| (i, false))
    }

    /// Whether a royal king of side `w` on `cell` is attacked.
    fn attacked(&self, cell: usize, w: bool) -> bool {
        if let Some((_, c, 1)) = self.vanished[side(!w)] {
            if c == cell {
                return true;
            }
        }
        (0..64).any(|i| match self.active[i] {
            Some((pw, k)) if pw != w && i != cell => hits(self, i, k, cell),
            _ => false,
        })
    }

    /// For the end: the side to act's royal king (or its reappearance
    /// cell) is attacked.
    pub fn threatened(&self) -> bool {
        self.royal(self.white)
            .is_some_and(|(c, _)| self.attacked(c, self.white))
    }

    /// The turn's end after the action made `n` from `self`: counters,
    /// expiry, reappearance, legality, the drop test. `None` if illegal.
    fn finish(
        &self,
        mut n: Ref,
        drop: Option<(usize, char)>,
        mut took: bool,
        mut won: bool,
    ) -> Option<Ref> {
        let me = self.white;
        let s = side(me);
        let dropping = drop.is_some();
        let mut drop = drop;
        let had = self.vanished[s].is_some() || self.originals[s].is_some();
        if had {
            if let Some((k, c, cnt)) = n.vanished[s] {
                if cnt > 1 {
                    n.vanished[s] = Some((k, c, cnt - 1));
                } else {
                    n.vanished[s] = None;
                    if let Some(v) = n.active[c] {
                        if v == (me, 'K') {
                            return None;
                        }
                        took = true;
                        if v.0 != me && n.originals[side(!me)].is_some_and(|o| o.0 == c) {
                            n.originals[side(!me)] = None;
                            won = true;
                        }
                    }
                    if drop.is_some_and(|d| d.0 == c) {
                        drop = None;
                    }
                    n.active[c] = Some((me, k));
                }
            }
            if let Some((c, cnt)) = n.originals[s] {
                if cnt > 1 {
                    n.originals[s] = Some((c, cnt - 1));
                } else {
                    n.originals[s] = None;
                    n.active[c] = None;
                }
            }
        }
        if let Some((c, false)) = n.royal(me) {
            if n.attacked(c, me) {
                return None;
            }
        }
        if let Some((dc, dk)) = drop {
            if let Some((k, false)) = n.royal(!me) {
                if hits(&n, dc, dk, k) {
                    return None;
                }
            }
        }
        if won {
            n.phase = if me { "won-w" } else { "won-b" };
        }
        n.clock = if took || dropping { 0 } else { self.clock + 1 };
        n.white = !me;
        Some(n)
    }

    pub fn successors(&self) -> Vec<(String, Ref)> {
        let mut out = Vec::new();
        let me = self.white;
        let s = side(me);
        if self.phase.starts_with("won") {
            return out;
        }
        if self.phase == "place" {
            for c in 0..64 {
                let free = self.active[c].is_none()
                    && (0..64).all(|k| self.active[k].is_none() || !touching(c, k));
                if free {
                    let mut n = *self;
                    n.active[c] = Some((me, 'K'));
                    n.res[s][0] -= 1;
                    if !me {
                        n.phase = "play";
                    }
                    n.white = !me;
                    n.clock = 0;
                    out.push((format!("K@{}", name(c)), n));
                }
            }
            return out;
        }
        let warp = self.vanished[s].is_some() || self.originals[s].is_some();
        for (ki, kind) in KINDS.chars().enumerate().skip(1) {
            if self.res[s][ki] == 0 {
                continue;
            }
            for c in 0..64 {
                if self.active[c].is_some() {
                    continue;
                }
                let mut n = *self;
                n.active[c] = Some((me, kind));
                n.res[s][ki] -= 1;
                if let Some(next) = self.finish(n, Some((c, kind)), false, false) {
                    out.push((format!("{kind}@{}", name(c)), next));
                }
            }
        }
        for from in 0..64 {
            let Some((pw, kind)) = self.active[from] else {
                continue;
            };
            if pw != me {
                continue;
            }
            for to in dests(self, from, kind, me) {
                let took = self.active[to].is_some();
                let mark = if took { 'x' } else { '-' };
                let won = took && self.originals[side(!me)].is_some_and(|o| o.0 == to);
                // The move.
                let mut n = *self;
                n.active[to] = n.active[from].take();
                if won {
                    n.originals[side(!me)] = None;
                }
                if let Some((c, cnt)) = n.originals[s] {
                    if c == from {
                        n.originals[s] = Some((to, cnt));
                    }
                }
                if let Some(next) = self.finish(n, None, took, won) {
                    out.push((format!("{}{mark}{}", name(from), name(to)), next));
                }
                // The clones.
                if !warp {
                    for cnt in 1..=6u8 {
                        let mut n = *self;
                        n.active[to] = Some((me, kind));
                        if won {
                            n.originals[side(!me)] = None;
                        }
                        n.originals[s] = Some((from, cnt));
                        if let Some(next) = self.finish(n, None, took, won) {
                            out.push((format!("C{cnt}:{}{mark}{}", name(from), name(to)), next));
                        }
                    }
                }
            }
            if !warp {
                for cnt in 1..=6u8 {
                    let mut n = *self;
                    n.active[from] = None;
                    n.vanished[s] = Some((kind, from, cnt));
                    if let Some(next) = self.finish(n, None, false, false) {
                        out.push((format!("V{cnt}:{}", name(from)), next));
                    }
                }
            }
        }
        out
    }
}

pub fn perft(r: &Ref, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let next = r.successors();
    if depth == 1 {
        return next.len() as u64;
    }
    next.iter().map(|(_, n)| perft(n, depth - 1)).sum()
}

/// From the start, over all legal pairs of kings: White's legal drops,
/// White's king steps, and the cells from which a knight would check.
pub fn start_counts() -> (u64, u64, u64) {
    let start = Ref::parse(super::START);
    let (mut drops, mut steps, mut knight_checks) = (0, 0, 0);
    for (_, after_white) in start.successors() {
        for (_, r) in after_white.successors() {
            for (n, _) in r.successors() {
                if n.contains('@') {
                    drops += 1;
                } else if !n.as_bytes()[1].is_ascii_digit() {
                    steps += 1;
                }
            }
            let bk = (0..64)
                .find(|&i| r.active[i] == Some((false, 'K')))
                .unwrap();
            knight_checks += (0..64)
                .filter(|&c| r.active[c].is_none() && hits(&r, c, 'N', bk))
                .count() as u64;
        }
    }
    (drops, steps, knight_checks)
}
