//! "Did you mean": edit distance and the nearest verb or game.

use super::*;

/// Edit distance (optimal string alignment: insertions, deletions,
/// substitutions and swaps of neighbours count one each), ignoring case.
pub(super) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The candidate nearest to `word`, when it is close enough to be a typo:
/// one edit for words of up to four letters, two for longer ones (never
/// more than a third of the candidate). Ties go to the earlier candidate.
/// A candidate whose length differs from the word's by more than that
/// budget cannot be within it and is not weighed: a huge word costs one
/// count of its characters, never an edit distance.
pub(super) fn nearest<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let len = word.chars().count();
    let most = if len <= 4 { 1 } else { 2 };
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if len.abs_diff(c.chars().count()) > most {
            continue;
        }
        let d = distance(word, c);
        if d == 0 || d > most || d * 3 > c.chars().count() {
            continue;
        }
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The verb of a scope a mistyped word most likely meant (name or alias).
pub(super) fn suggest_verb<C>(table: &'static [Verb<C>], word: &str) -> Option<&'static str> {
    nearest(
        word,
        table
            .iter()
            .flat_map(|v| std::iter::once(v.name).chain(v.aliases.iter().copied())),
    )
}

/// The game a mistyped or shortened game name most likely meant: the one
/// game it is a prefix of, else the nearest.
pub(super) fn suggest_game(word: &str) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    let starting: Vec<&str> = GAME_NAMES
        .iter()
        .copied()
        .filter(|g| g.starts_with(&w))
        .collect();
    if let [one] = starting[..] {
        return Some(one);
    }
    nearest(&w, GAME_NAMES.iter().copied())
}
