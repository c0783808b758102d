//! `webgate extract FILE`: the same extraction `web_fetch` runs, on a
//! local file or standard input (gzip inflated first), for looking at what
//! a page becomes without fetching it.

use std::io::Read as _;
use std::process::ExitCode;

use clap::Args;
use webgate::extract::{extract as run_extraction, Options, Style};

use crate::host::LookOptions;
use crate::output::usage;

/// Run web_fetch's HTML extraction on a local file (or - for stdin);
/// `.gz` files are inflated first.
#[derive(Args, Debug)]
pub(crate) struct ExtractArgs {
    /// The HTML file, or - for standard input.
    #[arg(default_value = "-")]
    file: String,
    /// Render the whole document, not the main article.
    #[arg(long)]
    raw: bool,
    /// Plain text instead of markdown (no syntax, no link targets).
    #[arg(long)]
    text: bool,
    /// The URL that links and images resolve against.
    #[arg(long, default_value = "https://example.invalid/")]
    base_url: String,
    /// The file's charset label (default UTF-8).
    #[arg(long)]
    charset: Option<String>,
    #[command(flatten)]
    look: LookOptions,
}

/// Runs `extract`.
pub(crate) fn run(a: ExtractArgs) -> ExitCode {
    extract(
        &a.file,
        a.raw,
        a.text,
        &a.base_url,
        a.charset.as_deref(),
        &a.look,
    )
}

fn extract(
    file: &str,
    raw: bool,
    text: bool,
    base: &str,
    charset: Option<&str>,
    look: &LookOptions,
) -> ExitCode {
    let base = match url::Url::parse(base) {
        Ok(u) => u,
        Err(_) => return usage(&format!("--base-url {base:?} is not a URL")),
    };
    let mut bytes = Vec::new();
    let read = if file == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(file).map(|b| bytes = b)
    };
    if let Err(e) = read {
        eprintln!("webgate: {file}: {e}");
        return ExitCode::FAILURE;
    }
    if file.ends_with(".gz") || bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        if let Err(e) = flate2::read::GzDecoder::new(bytes.as_slice()).read_to_end(&mut out) {
            eprintln!("webgate: {file}: not valid gzip: {e}");
            return ExitCode::FAILURE;
        }
        bytes = out;
    }
    let encoding = match webgate::internals::body::encoding_for(charset) {
        Ok(e) => e,
        Err(_) => {
            return usage(&format!(
                "--charset {:?} is not a known label",
                charset.unwrap_or("")
            ))
        }
    };
    let html = webgate::internals::body::decode(&bytes, encoding);
    let style = if text { Style::Plain } else { Style::Markdown };
    let mut options = Options::new(raw, style);
    (options.links, options.comments) = look.settings();
    let out = run_extraction(&html, &base, &options).text;
    out!("{out}");
    ExitCode::SUCCESS
}
