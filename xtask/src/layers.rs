//! The import structure as tidy holds it: no circle among the top-level
//! modules of the core (`core/src/*`), nor among the files of any module
//! folder (`extract/`, `net/`, `fetch/`, …, and `cli/src`). A circle is
//! a house a newcomer cannot read in order: following one concern leads
//! back to where it started.
//!
//! What counts as an import: a path that names a sibling module outside a
//! comment and outside the file's `#[cfg(test)] mod tests` (tests may read
//! anything): `crate::NAME` at the top, `super::NAME` (or, from a nested
//! folder, `super::super::NAME`) and `crate::FOLDER::NAME` inside a folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A folder's modules and what each imports of its siblings.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every circle, as `a → b → … → a`, in every folder checked.
pub fn circles(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut folders = vec![(root.join("core/src"), "crate".to_string())];
    folders.push((root.join("cli/src"), "crate".to_string()));
    let mut i = 0;
    while i < folders.len() {
        let (dir, path) = folders[i].clone();
        i += 1;
        let modules = modules(&dir);
        for (name, files) in &modules {
            if files.len() > 1 || dir.join(name).is_dir() {
                folders.push((dir.join(name), format!("{path}::{name}")));
            }
        }
        let graph = graph(&modules, &path);
        for c in find_circles(&graph) {
            out.push(format!("{}: an import circle: {c}", rel(root, &dir)));
        }
    }
    out
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

/// The modules of a folder, each with its files: `name.rs`, or every file
/// of the folder `name/`. The crate root and `mod.rs` are the folder's
/// own file, not a sibling.
fn modules(dir: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut out = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let p = e.path();
        let Some(stem) = p.file_stem().and_then(|s| s.to_str()).map(str::to_string) else {
            continue;
        };
        if p.is_dir() {
            let mut files = Vec::new();
            super::tidy::rust_files(&p, &mut files);
            if !files.is_empty() {
                out.entry(stem).or_insert_with(Vec::new).extend(files);
            }
        } else if p.extension().is_some_and(|x| x == "rs")
            && !matches!(stem.as_str(), "mod" | "lib" | "main")
        {
            out.entry(stem).or_insert_with(Vec::new).push(p);
        }
    }
    out
}

/// The code of a file that counts: without its unit tests and comments.
fn code(text: &str) -> String {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The sibling names a module's code reaches, `path` being the folder's
/// module path (`crate`, `crate::extract`).
fn graph(modules: &BTreeMap<String, Vec<PathBuf>>, path: &str) -> Graph {
    let names: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let mut g = Graph::new();
    for (name, files) in modules {
        let mut reached = BTreeSet::new();
        for f in files {
            let text = code(&std::fs::read_to_string(f).unwrap_or_default());
            // From `name.rs` or `name/mod.rs` a sibling is `super::x`; one
            // folder deeper, `super::super::x`. Absolute paths work from
            // anywhere.
            let mut prefixes = vec![format!("{path}::")];
            if path != "crate" {
                prefixes.push("super::".into());
                prefixes.push("super::super::".into());
            }
            for prefix in &prefixes {
                for (i, _) in text.match_indices(prefix.as_str()) {
                    // `super::super::x` also matches `super::` at its
                    // start; the word after it is then `super`, no sibling.
                    let rest = &text[i + prefix.len()..];
                    let word: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if word != *name && names.contains(word.as_str()) {
                        reached.insert(word);
                    }
                }
                // Braced lists: `super::{a, b::c}`.
                for (i, _) in text.match_indices(&format!("{prefix}{{")) {
                    let rest = &text[i + prefix.len() + 1..];
                    let list = &rest[..rest.find('}').unwrap_or(rest.len())];
                    for item in list.split(',') {
                        let word = item.trim().split("::").next().unwrap_or("").trim();
                        if word != name && names.contains(word) {
                            reached.insert(word.to_string());
                        }
                    }
                }
            }
        }
        g.insert(name.clone(), reached);
    }
    g
}

/// Each circle once, by a depth-first search from every module.
fn find_circles(g: &Graph) -> Vec<String> {
    let mut found = BTreeSet::new();
    for start in g.keys() {
        // Iterative DFS over paths from `start`, bounded by the module
        // count (a path never repeats a module).
        let mut stack: Vec<Vec<&str>> = vec![vec![start.as_str()]];
        while let Some(path) = stack.pop() {
            let last = path[path.len() - 1];
            for next in g.get(last).into_iter().flatten() {
                if next == start {
                    // Report each circle from its smallest module.
                    if path.iter().all(|m| *m >= start.as_str()) {
                        let mut c = path.join(" → ");
                        c.push_str(&format!(" → {start}"));
                        found.insert(c);
                    }
                } else if !path.contains(&next.as_str()) && next.as_str() > start.as_str() {
                    let mut p = path.clone();
                    p.push(next);
                    stack.push(p);
                }
            }
        }
    }
    found.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(edges: &[(&str, &str)]) -> Graph {
        let mut g = Graph::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    }

    #[test]
    fn circles_are_found_once_and_lines_are_not_circles() {
        assert!(find_circles(&g(&[("a", "b"), ("b", "c")])).is_empty());
        assert_eq!(
            find_circles(&g(&[("dom", "sink"), ("sink", "dom"), ("sink", "guard")])),
            ["dom → sink → dom"]
        );
        assert_eq!(
            find_circles(&g(&[("a", "b"), ("b", "c"), ("c", "a")])),
            ["a → b → c → a"]
        );
    }

    #[test]
    fn imports_are_read_from_code_not_comments_or_tests() {
        let text = "//! see super::dom\nuse super::{dom::Doc, work};\nfn f() { super::super::lexicon::x(); }\n#[cfg(test)]\nmod tests {\n use super::super::sink;\n}\n";
        let dir = std::env::temp_dir().join(format!("webgate-layers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut modules = BTreeMap::new();
        for name in ["render", "dom", "work", "lexicon", "sink"] {
            let p = dir.join(format!("{name}.rs"));
            std::fs::write(&p, if name == "render" { text } else { "" }).unwrap();
            modules.insert(name.to_string(), vec![p]);
        }
        let graph = graph(&modules, "crate::extract");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            graph["render"]
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            ["dom", "lexicon", "work"]
        );
    }
}
