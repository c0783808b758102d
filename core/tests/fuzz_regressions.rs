//! Replays `fuzz/regressions/<target>/*` and the committed seed corpora
//! `fuzz/seeds/<target>/*` through the same property checks the fuzz targets
//! run, as ordinary tests. A minimised crash goes in `fuzz/regressions/`
//! with a `.md` note beside it saying what the bug was.

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut n = 0;
    for kind in ["regressions", "seeds"] {
        let dir = root.join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "md") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let r = std::panic::catch_unwind(|| check(&data));
            assert!(r.is_ok(), "{} failed", path.display());
            n += 1;
        }
    }
    // Every target has a committed seed corpus; an empty replay means the
    // corpus went missing, not that all is well.
    assert!(n > 0, "no inputs for fuzz target {target}");
}

#[test]
fn admission() {
    replay("admission", webgate::internals::fuzzing::admission);
}

#[test]
fn ip_literal() {
    replay("ip_literal", webgate::internals::fuzzing::ip_literal);
}

#[test]
fn fetch_args() {
    replay("fetch_args", webgate::internals::fuzzing::arguments);
}

#[test]
fn search_args() {
    replay("search_args", webgate::internals::fuzzing::arguments);
}

#[test]
fn table_diff() {
    replay("table_diff", webgate::internals::fuzzing::table_diff);
}

#[test]
fn body() {
    replay("body", webgate::internals::fuzzing::body);
}

#[test]
fn content_type() {
    replay("content_type", webgate::internals::fuzzing::content_type);
}

#[test]
fn extraction() {
    replay("extraction", webgate::internals::fuzzing::extraction);
}

#[test]
fn search_response() {
    replay(
        "search_response",
        webgate::internals::fuzzing::search_response,
    );
}

#[test]
fn robots() {
    replay("robots", webgate::internals::fuzzing::robots);
}
