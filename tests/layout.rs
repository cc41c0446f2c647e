//! The code's layout as the README and docs/architecture.md describe it
//! (issue #25): the README's map names every part of `src/`, and the
//! library's top-level modules import one another one way only (no
//! circle between modules of different concerns).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file that the library builds outside tests: its test
/// module (from the first `#[cfg(test)]`) and its comments dropped.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules named after `crate::` in `code`, including the
/// first level of a `crate::{a, b::c}` group.
fn crate_references(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Nested groups aside, each item's first word is a module.
            let mut depth = 0;
            let mut item_start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if c.is_whitespace() => {}
                    _ if item_start && depth == 0 => {
                        out.insert(ident(&group[j..]));
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// The library's top-level module of a file under `src/` (`server` for
/// `src/server/guard.rs`, `daemon` for `src/daemon.rs`).
fn top_module(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel.components().next().unwrap().as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

#[test]
fn the_library_modules_import_one_another_one_way() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let top = top_module(file);
        // The binary's own files reach the library as `pbmchess::`.
        if top == "main" || top == "cli" || top == "lib" {
            continue;
        }
        let code = code_of(&fs::read_to_string(file).unwrap());
        for target in crate_references(&code) {
            if target != top {
                graph.entry(top.clone()).or_default().insert(target);
            }
        }
    }
    assert!(
        graph.get("server").is_some_and(|s| s.contains("store")),
        "the scan sees the server's imports: {graph:?}"
    );
    // A depth-first search for a circle.
    fn visit<'g>(
        node: &'g str,
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'g str>,
        done: &mut BTreeSet<&'g str>,
    ) {
        if let Some(at) = path.iter().position(|n| *n == node) {
            panic!(
                "import circle between modules: {} -> {node}",
                path[at..].join(" -> ")
            );
        }
        if !done.insert(node) {
            return;
        }
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, path, done);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done);
    }
    // The pure cores import nothing of the server's edges.
    for pure in ["rules", "command", "ratings", "timers"] {
        for edge in ["server", "store", "mail", "daemon", "config", "app"] {
            assert!(
                !graph.get(pure).is_some_and(|s| s.contains(edge)),
                "{pure} is pure but imports {edge}"
            );
        }
    }
}

#[test]
fn the_readme_map_names_every_part_of_src() {
    let readme =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme
        .find("## How the code is laid out")
        .expect("the README's layout section");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut missing = Vec::new();
    for entry in fs::read_dir(src()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let shown = if path.is_dir() {
            format!("src/{name}/")
        } else {
            format!("src/{name}")
        };
        if !section.contains(&shown) {
            missing.push(shown);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "the README's layout section does not name {missing:?}"
    );
}

#[test]
fn crate_references_read_groups_and_paths() {
    let code =
        "use crate::{config::Config, mail::{self, Envelope}, store};\nlet x = crate::limits::A;";
    let refs: Vec<String> = crate_references(code).into_iter().collect();
    assert_eq!(refs, ["config", "limits", "mail", "store"]);
}
