//! The MIME Sniffing standard's own test data (`vectors/wpt/`): every
//! case of WPT's `mime-types.json` and `generated-mime-types.json` parsed
//! and serialized as the standard says, and the charset each names.

use serde_json::Value;
use webgate::internals::body::encoding_for;
use webgate::internals::body::MimeType;

fn cases(file: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("vectors/wpt")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: Value = serde_json::from_str(&text).unwrap();
    // Strings are section titles.
    v.as_array()
        .unwrap()
        .iter()
        .filter(|c| c.is_object())
        .cloned()
        .collect()
}

fn check(file: &str, at_least: usize) {
    let cases = cases(file);
    assert!(cases.len() >= at_least, "{file}: {} cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let input = c["input"].as_str().unwrap();
        let parsed = MimeType::parse(input);
        let got = parsed.as_ref().map(MimeType::serialize);
        let want = c["output"].as_str().map(str::to_string);
        if got != want {
            failures.push(format!("{input:?}: got {got:?}, want {want:?}"));
            continue;
        }
        if let Some(encoding) = c.get("encoding") {
            let got = parsed
                .as_ref()
                .and_then(|m| m.param("charset"))
                .and_then(|l| encoding_for(Some(l)).ok())
                .map(|e| e.name());
            if got != encoding.as_str() {
                failures.push(format!("{input:?}: encoding {got:?}, want {encoding}"));
            }
        }
    }
    assert!(failures.is_empty(), "{file}:\n{}", failures.join("\n"));
}

#[test]
fn wpt_mime_types() {
    check("mime-types.json", 45);
}

#[test]
fn wpt_generated_mime_types() {
    check("generated-mime-types.json", 800);
}
