//! `cargo xtask tidy`: the house-style checks a compiler does not make.
//! Also run as a `#[test]` (see the bottom), so `cargo test` catches them.
//!
//! - every Rust source file opens with a `//!` header;
//! - every crate root forbids unsafe code;
//! - no test is switched off with the ignore attribute (no silent skips);
//! - the pure modules never name tokio, hyper or hickory;
//! - every message text of `vectors/messages.tsv` is written in one source
//!   file only;
//! - the spec copies under `vectors/` equal `../shared/spec/` when that
//!   folder is present (it is in the project's CI);
//! - licence files ship at the top and in the vendored crate;
//! - no import circle among the core's modules or a folder's files
//!   (`layers`);
//! - the provenance of extraction's compiled models quotes the trainer's
//!   settings and LightGBM pin as they stand (`cargo xtask train --check`
//!   compares the trees themselves).

use std::path::{Path, PathBuf};

pub fn run(root: &Path) -> Result<(), String> {
    let problems = check(root);
    if problems.is_empty() {
        println!("tidy: ok");
        Ok(())
    } else {
        for p in &problems {
            eprintln!("tidy: {p}");
        }
        Err(format!("{} tidy problem(s)", problems.len()))
    }
}

const SOURCE_DIRS: [&str; 5] = [
    "core/src",
    "cli/src",
    "conformance/src",
    "xtask/src",
    "fuzz/fuzz_targets",
];
const CRATE_ROOTS: [&str; 4] = [
    "core/src/lib.rs",
    "cli/src/main.rs",
    "conformance/src/lib.rs",
    "xtask/src/main.rs",
];
const PURE_DIRS: [&str; 4] = [
    "core/src/policy",
    "core/src/args",
    "core/src/body",
    "core/src/extract",
];
const SPEC_COPIES: [(&str, &str); 4] = [
    ("vectors/messages.tsv", "messages.tsv"),
    ("vectors/iana/boundaries.csv", "iana/boundaries.csv"),
    (
        "vectors/iana/iana-ipv4-special-registry.csv",
        "iana/iana-ipv4-special-registry.csv",
    ),
    (
        "vectors/iana/iana-ipv6-special-registry.csv",
        "iana/iana-ipv6-special-registry.csv",
    ),
];

pub fn check(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut files = Vec::new();
    for d in SOURCE_DIRS {
        rust_files(&root.join(d), &mut files);
    }
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    // Built at run time so this file does not trip its own check.
    let ignore_attr = format!("#[{}", "ignore");
    let mut all_rust = files.clone();
    for d in [
        "core/tests",
        "cli/tests",
        "conformance/tests",
        "core/benches",
    ] {
        rust_files(&root.join(d), &mut all_rust);
    }
    for f in &all_rust {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        if !text.starts_with("//!") {
            problems.push(format!("{}: no `//!` header", rel(f)));
        }
        if text.contains(&ignore_attr) {
            problems.push(format!(
                "{}: a test is switched off; no silent skips",
                rel(f)
            ));
        }
    }
    for r in CRATE_ROOTS {
        let p = root.join(r);
        if !p.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if !text.contains("#![forbid(unsafe_code)]") {
            problems.push(format!("{r}: crate root without #![forbid(unsafe_code)]"));
        }
    }
    for d in PURE_DIRS {
        let mut pure = Vec::new();
        rust_files(&root.join(d), &mut pure);
        for f in pure {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            for io in ["tokio", "hyper", "hickory"] {
                if text
                    .lines()
                    .any(|l| !l.trim_start().starts_with("//") && l.contains(io))
                {
                    problems.push(format!("{}: the pure core names {io}", rel(&f)));
                }
            }
        }
    }
    problems.extend(crate::layers::circles(root));
    problems.extend(message_texts_once(root, &files));
    problems.extend(spec_copies(root));
    problems.extend(model_provenance(root));
    for l in [
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "core/LICENSE-MIT",
        "core/LICENSE-APACHE",
    ] {
        if !root.join(l).is_file() {
            problems.push(format!("{l} is missing"));
        }
    }
    problems
}

/// `model_data.rs`'s `PROVENANCE` against what it names: its trainer
/// exists, each quoted settings line is a line of the trainer (before its
/// comment), and its LightGBM version is the one the trainer's
/// requirements pin. Changing a setting without training again fails
/// here, before the slower `train --check` would.
fn model_provenance(root: &Path) -> Vec<String> {
    let model = "core/src/extract/model_data.rs";
    let Ok(text) = std::fs::read_to_string(root.join(model)) else {
        return vec![format!("{model} is missing")];
    };
    let field = |name: &str| -> Option<String> {
        let line = text.lines().find(|l| l.trim_start().starts_with(name))?;
        let v = line.split_once('"')?.1.rsplit_once('"')?.0;
        Some(v.to_string())
    };
    let (Some(trainer), Some(lightgbm)) = (field("trainer: "), field("lightgbm: ")) else {
        return vec![format!(
            "{model}: no PROVENANCE with its trainer and LightGBM version"
        )];
    };
    let Ok(script) = std::fs::read_to_string(root.join(&trainer)) else {
        return vec![format!("{model}: its trainer {trainer} is missing")];
    };
    let mut problems = Vec::new();
    let own: Vec<&str> = script
        .lines()
        .map(|l| l.split("  #").next().unwrap_or(l).trim_end())
        .collect();
    let settings: Vec<String> = text
        .split("settings: &[")
        .nth(1)
        .and_then(|rest| rest.split("],").next())
        .map(|block| {
            block
                .lines()
                .filter_map(|l| {
                    let l = l.trim().strip_suffix(',')?;
                    Some(
                        l.strip_prefix('"')?
                            .strip_suffix('"')?
                            .replace("\\\"", "\""),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if settings.is_empty() {
        problems.push(format!("{model}: PROVENANCE quotes no settings"));
    }
    for line in &settings {
        if !own.contains(&line.as_str()) {
            problems.push(format!(
                "{model}: the models were trained with `{line}`, which is no longer a line of \
                 {trainer}: train again (`cargo xtask train`)"
            ));
        }
    }
    let requirements = Path::new(&trainer).with_file_name("requirements.txt");
    let pinned = std::fs::read_to_string(root.join(&requirements))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("lightgbm==").map(str::to_string));
    if pinned.as_deref() != Some(lightgbm.as_str()) {
        problems.push(format!(
            "{model}: trained with LightGBM {lightgbm}, but {} pins {:?}",
            requirements.display(),
            pinned
        ));
    }
    problems
}

/// The literal text of each template up to its first placeholder, when
/// long enough to be telling, may stand in one source file only.
fn message_texts_once(root: &Path, files: &[PathBuf]) -> Vec<String> {
    let mut tsv = String::new();
    for name in ["vectors/messages.tsv", "vectors/option-messages.tsv"] {
        match std::fs::read_to_string(root.join(name)) {
            // Each file's header line is skipped below.
            Ok(t) => tsv.push_str(&t),
            Err(_) => return vec![format!("{name} is missing")],
        }
    }
    let sources: Vec<(String, String)> = files
        .iter()
        .filter(|f| f.starts_with(root.join("core/src")) || f.starts_with(root.join("cli/src")))
        .map(|f| {
            (
                f.strip_prefix(root).unwrap().display().to_string(),
                std::fs::read_to_string(f).unwrap_or_default(),
            )
        })
        .collect();
    let mut problems = Vec::new();
    for line in tsv.lines().filter(|l| !l.starts_with("id\t")) {
        let Some(template) = line.split('\t').nth(4) else {
            continue;
        };
        let frag = template.split('{').next().unwrap_or("").trim_end();
        if frag.chars().count() < 12 {
            continue;
        }
        let holders: Vec<&str> = sources
            .iter()
            .filter(|(_, t)| t.contains(frag))
            .map(|(p, _)| p.as_str())
            .collect();
        if holders.len() > 1 {
            problems.push(format!(
                "message text {frag:?} is written in {}",
                holders.join(", ")
            ));
        }
    }
    problems
}

fn spec_copies(root: &Path) -> Vec<String> {
    let spec = root.join("../shared/spec");
    if !spec.is_dir() {
        // Outside the project's own checkout (a vendoring user's CI) there
        // is no shared spec to compare with; say so rather than pass quietly.
        println!("tidy: ../shared/spec not present; spec copies not compared");
        return Vec::new();
    }
    SPEC_COPIES
        .iter()
        .filter_map(|(ours, theirs)| {
            let a = std::fs::read(root.join(ours)).ok();
            let b = std::fs::read(spec.join(theirs)).ok();
            (a.is_none() || a != b).then(|| format!("{ours} differs from ../shared/spec/{theirs}"))
        })
        .collect()
}

pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tidy() {
        let root = crate::root();
        let problems = super::check(&root);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn tidy_catches_a_message_written_twice() {
        let dir = std::env::temp_dir().join(format!("webgate-tidy-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("core/src")).unwrap();
        std::fs::create_dir_all(dir.join("vectors")).unwrap();
        std::fs::write(
            dir.join("vectors/messages.tsv"),
            "id\ttool\tclass\tkind\ttemplate\nx\tt\tsoft\t\tdns resolution failed for {host}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("core/src/a.rs"),
            "//! a\n\"dns resolution failed for \"",
        )
        .unwrap();
        std::fs::write(
            dir.join("core/src/b.rs"),
            "//! b\n\"dns resolution failed for \"",
        )
        .unwrap();
        let files = vec![dir.join("core/src/a.rs"), dir.join("core/src/b.rs")];
        let p = super::message_texts_once(&dir, &files);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(p.len(), 1, "{p:?}");
    }
}
