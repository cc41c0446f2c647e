//! Writing moves: canonical SAN with the variant's suffix and `+`/`#`.

use super::hooks::Hooks;
use super::pieces::Kind;
use super::state::{Move, Special, State};

impl<H: Hooks> State<H> {
    /// Canonical SAN with `+`/`#`.
    pub fn san(&self, m: Move) -> String {
        let legal = self.legal_moves();
        self.san_with(m, &legal)
    }

    /// Canonical SAN with `+`/`#`; `legal` are the legal moves here.
    pub(crate) fn san_with(&self, m: Move, legal: &[Move]) -> String {
        let mut s = self.san_plain(m, legal);
        let after = self.after(m);
        if after.is_check() {
            s.push(if after.has_legal_move() { '+' } else { '#' });
        }
        s
    }

    /// SAN without the check suffix (the variant's notation suffix
    /// included). `legal` are the legal moves here (for disambiguation).
    pub(crate) fn san_plain(&self, m: Move, legal: &[Move]) -> String {
        let mut s = self.san_core(m, legal);
        s.push_str(&self.variant.hooks.write_suffix(self, m));
        s
    }

    /// SAN proper: piece, disambiguation, capture, square, promotion.
    fn san_core(&self, m: Move, legal: &[Move]) -> String {
        let hooks = &self.variant.hooks;
        if let Special::Castle(i) = m.special {
            return self.variant.castlings[i as usize].notation.to_string();
        }
        let kind = self.kind_on(m.from).expect("a move starts on a piece");
        let capture = self.is_capture(m);
        let mut s = String::new();
        if kind == Kind::Pawn {
            if capture {
                s.push(m.from.file_char());
                s.push('x');
            }
            s.push_str(&m.to.to_string());
            if let Special::Promotion(k) = m.special {
                s.push('=');
                s.push(hooks.letter(k));
            }
            return s;
        }
        s.push(hooks.letter(kind));
        // Rivals: other pieces written with the same letter that reach `to`.
        let mut rivals: Vec<_> = legal
            .iter()
            .filter(|o| {
                o.to == m.to
                    && o.from != m.from
                    && !matches!(o.special, Special::Castle(_))
                    && self
                        .kind_on(o.from)
                        .is_some_and(|k| hooks.letter(k) == hooks.letter(kind))
            })
            .map(|o| o.from)
            .collect();
        rivals.dedup();
        if !rivals.is_empty() {
            if rivals.iter().all(|r| r.file() != m.from.file()) {
                s.push(m.from.file_char());
            } else if rivals.iter().all(|r| r.rank() != m.from.rank()) {
                s.push_str(&(m.from.rank() + 1).to_string());
            } else {
                s.push_str(&m.from.to_string());
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&m.to.to_string());
        s
    }
}
