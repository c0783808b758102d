//! A reader that stops early (`webgate extract page.html | head`) is not
//! an error: the CLI neither panics nor changes its exit code.

use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let page = std::env::temp_dir().join(format!("webgate-pipe-{}.html", std::process::id()));
    std::fs::write(&page, format!("<p>{}</p>", "word ".repeat(400_000))).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .arg("extract")
        .arg(&page)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The read end is dropped here: the rest of the output has nowhere to go.
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_file(&page);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
