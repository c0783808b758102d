//! The suite's own rules, shown to fail: a wrong text, a message id with
//! no vector, two vectors with one name, a file that would not be loaded,
//! an unexpected pass and a stale expected-failure entry.

use std::path::{Path, PathBuf};

use webgate_conformance::{run_suite, Verdict};

const GOOD: &str = r#"
[[test]]
name = "scheme"
id = "fetch.url.scheme"
tool = "web_fetch"
args = '{"url": "http://a.example/"}'
[test.expect]
class = "soft"
text = "scheme not allowed: http"
dials = []
"#;

fn dir(files: &[(&str, &str)]) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "webgate-suite-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (name, text) in files {
        std::fs::write(d.join(name), text).unwrap();
    }
    d
}

fn cleanup(d: &Path) {
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_good_vector_passes() {
    let d = dir(&[("a.toml", GOOD)]);
    let r = run_suite(&d, None, None);
    cleanup(&d);
    assert_eq!((r.passed(), r.failed()), (1, 0), "{r:?}");
}

#[test]
fn a_wrong_text_fails() {
    let d = dir(&[(
        "a.toml",
        &GOOD.replace("scheme not allowed: http", "scheme not allowed: HTTP"),
    )]);
    let r = run_suite(&d, None, None);
    cleanup(&d);
    assert_eq!(r.failed(), 1);
    assert!(
        matches!(&r.results[0].1, Verdict::Fail(e) if e.contains("expected")),
        "{r:?}"
    );
}

#[test]
fn a_message_id_without_a_vector_fails() {
    let d = dir(&[("a.toml", GOOD)]);
    let tsv = "id\ttool\tclass\tkind\ttemplate\nfetch.url.scheme\tweb_fetch\tsoft\t\tscheme not allowed: {scheme}\nfetch.url.port\tweb_fetch\thard\tInvalidArguments\tport not allowed: {port}\n";
    let r = run_suite(&d, None, Some(tsv));
    cleanup(&d);
    assert_eq!(
        r.suite_errors,
        vec!["message id fetch.url.port has no vector".to_string()]
    );
    assert_eq!(r.failed(), 1);
}

#[test]
fn a_duplicate_name_fails() {
    let d = dir(&[("a.toml", &format!("{GOOD}{GOOD}"))]);
    let r = run_suite(&d, None, None);
    cleanup(&d);
    assert!(
        r.suite_errors
            .iter()
            .any(|e| e.contains("two vectors share this name")),
        "{r:?}"
    );
    assert!(r.failed() > 0);
}

#[test]
fn an_unloaded_file_fails() {
    for (name, text) in [
        ("b.tml", GOOD),
        ("c.toml", "[[test]\nname = "),
        ("d.toml", ""),
        ("e.toml", "[[test]]\nname = \"x\"\n"),
    ] {
        let d = dir(&[("a.toml", GOOD), (name, text)]);
        let r = run_suite(&d, None, None);
        cleanup(&d);
        assert!(
            !r.suite_errors.is_empty() && r.failed() > 0,
            "{name}: {r:?}"
        );
    }
}

#[test]
fn expected_failures_need_reasons_and_stay_true() {
    let bad = GOOD.replace("scheme not allowed: http", "wrong");
    // A listed failure with a reason passes the run.
    let d = dir(&[
        ("a.toml", &bad),
        (
            "expected_failures.txt",
            "a/scheme  the text changes in the next release\n",
        ),
    ]);
    let r = run_suite(&d, None, None);
    cleanup(&d);
    assert_eq!((r.passed(), r.failed()), (1, 0), "{r:?}");
    // A listed vector that passes fails the run.
    let d = dir(&[
        ("a.toml", GOOD),
        ("expected_failures.txt", "a/scheme  was broken\n"),
    ]);
    let r = run_suite(&d, None, None);
    cleanup(&d);
    assert!(
        matches!(r.results[0].1, Verdict::UnexpectedPass) && r.failed() == 1,
        "{r:?}"
    );
    // A stale entry fails the run.
    let d = dir(&[
        ("a.toml", GOOD),
        ("expected_failures.txt", "a/gone  removed long ago\n"),
    ]);
    let r = run_suite(&d, None, None);
    cleanup(&d);
    assert!(r.suite_errors.iter().any(|e| e.contains("stale")), "{r:?}");
    // An entry without a reason is an error.
    let d = dir(&[("a.toml", &bad), ("expected_failures.txt", "a/scheme\n")]);
    let r = run_suite(&d, None, None);
    cleanup(&d);
    assert!(
        r.suite_errors.iter().any(|e| e.contains("needs a reason")),
        "{r:?}"
    );
}

#[test]
fn the_filter_selects_by_full_name() {
    let d = dir(&[("a.toml", GOOD), ("b.toml", GOOD)]);
    let r = run_suite(&d, Some("b/"), None);
    cleanup(&d);
    assert_eq!(r.results.len(), 1);
    assert_eq!(r.results[0].0, "b/scheme");
}
