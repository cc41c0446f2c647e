//! The documentation as a reader meets it: README.md stays a front door
//! (under 400 lines), and every relative link of README.md and docs/*.md
//! leads somewhere: to a file of the checkout, and where it names a
//! heading (`file.md#heading`), to a heading of that file as GitHub
//! anchors it. Every file or folder of the checkout a code span names
//! (`src/…`, `crates/…`, `tests/…`, `benches/…`) is there.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

const README_MOST_LINES: usize = 400;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, with their text.
fn documents() -> Vec<(PathBuf, String)> {
    let mut paths = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path, text)
        })
        .collect()
}

/// The lines of `text` outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push(line);
        }
    }
    lines
}

/// The targets of the inline links `[text](target)` in `text`, outside
/// code blocks and code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose_lines(text) {
        // Code spans hold text such as `[a](b)` that is no link.
        let outside_code: String = line
            .split('`')
            .enumerate()
            .map(|(i, part)| if i % 2 == 0 { part } else { "" })
            .collect();
        let mut rest = outside_code.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    targets
}

/// A heading's anchor as GitHub writes it: lower case, every character
/// but letters, digits, `-`, `_` and spaces dropped, spaces made `-`.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Where the paths of the checkout start: a code span beginning with one
/// of these names a file or folder of the checkout.
const CHECKOUT_PREFIXES: [&str; 4] = ["src/", "crates/", "tests/", "benches/"];

/// The paths of the checkout that the code spans of `text` name, outside
/// code blocks (a code span may run over a line end).
fn named_paths(text: &str) -> Vec<String> {
    let prose = prose_lines(text).join("\n");
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| CHECKOUT_PREFIXES.iter().any(|p| span.starts_with(p)))
        .map(str::to_string)
        .collect()
}

/// The anchors of the headings of `text` (a repeated heading's later
/// anchors get `-1`, `-2`, ... as on GitHub).
fn anchors(text: &str) -> HashSet<String> {
    let mut found = HashSet::new();
    for line in prose_lines(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes == 0 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let anchor = anchor_of(&line[hashes..]);
        let mut unique = anchor.clone();
        let mut n = 0;
        while found.contains(&unique) {
            n += 1;
            unique = format!("{anchor}-{n}");
        }
        found.insert(unique);
    }
    found
}

/// What is wrong with the relative link `target` written in `from`, if
/// anything.
fn broken(from: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (file, anchor) = match target.split_once('#') {
        Some((file, anchor)) => (file, Some(anchor)),
        None => (target, None),
    };
    let path = if file.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap().join(file)
    };
    if !path.exists() {
        return Some(format!("{}: no such file", path.display()));
    }
    let anchor = anchor?;
    if path.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    if anchors(&text).contains(anchor) {
        None
    } else {
        Some(format!("{}: no heading #{anchor}", path.display()))
    }
}

#[test]
fn the_readme_stays_under_400_lines() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < README_MOST_LINES,
        "README.md has {lines} lines; the details belong in docs/"
    );
}

#[test]
fn every_relative_link_of_the_readme_and_docs_leads_to_a_file_and_heading() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (path, text) in documents() {
        for target in link_targets(&text) {
            checked += 1;
            if let Some(why) = broken(&path, &target) {
                failures.push(format!("{}: ({target}) {why}", path.display()));
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} links found: is the reader broken?"
    );
    assert!(
        failures.is_empty(),
        "broken links:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_path_of_the_checkout_the_readme_and_docs_name_is_there() {
    let mut checked = 0;
    let mut missing = Vec::new();
    for (path, text) in documents() {
        for named in named_paths(&text) {
            checked += 1;
            if !root().join(&named).exists() {
                missing.push(format!("{}: `{named}`", path.display()));
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} paths found: is the reader broken?"
    );
    assert!(
        missing.is_empty(),
        "paths named but not in the checkout:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_readme_links_every_page_of_docs() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let linked: HashSet<String> = link_targets(&readme).into_iter().collect();
    for (path, _) in documents().into_iter().skip(1) {
        let name = format!("docs/{}", path.file_name().unwrap().to_str().unwrap());
        assert!(linked.contains(&name), "README.md does not link {name}");
    }
}

#[test]
fn links_are_read_outside_code_and_anchored_as_github_does() {
    let text = "See [a](a.md#x) and `[b](b.md)`.\n```\n[c](c.md)\n```\n[d](d.md)\n";
    assert_eq!(link_targets(text), ["a.md#x", "d.md"]);
    assert_eq!(
        anchor_of(" Authenticated From: `[security] authserv_id`"),
        "authenticated-from-security-authserv_id"
    );
    assert_eq!(anchor_of("2. Commands"), "2-commands");
    let headings = anchors("# A\n## Same\n## Same\n");
    assert!(headings.contains("same") && headings.contains("same-1"));
    assert!(broken(Path::new("/nowhere/README.md"), "gone.md").is_some());
    assert!(broken(Path::new("/nowhere/README.md"), "https://example.org/x").is_none());
}

#[test]
fn paths_are_read_from_code_spans_outside_code_blocks() {
    let text = "In `src/a.rs` and `crates/b/`, not `cargo test` nor src/c.rs;\n\
                `tests/it/\nd.rs` runs over a line.\n```\n`src/e.rs`\n```\n`benches/f.rs`\n";
    assert_eq!(
        named_paths(text),
        ["src/a.rs", "crates/b/", "tests/it/\nd.rs", "benches/f.rs"]
    );
}
