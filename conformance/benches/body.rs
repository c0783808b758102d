//! `cargo xtask bench body`:
//! (a) gzip, brotli and zstd bombs that inflate to 1 GiB, served over TLS
//!     on loopback to the release `webgate` binary: outcome, wall time and
//!     peak RSS of the whole process (GNU time's %M);
//! (b) inflate-and-decode throughput of an 8 MiB gzip HTML body through
//!     webgate's streaming decoder (16 KiB chunks, cap counting, charset
//!     decode) against flate2 alone, in the same run;
//! (c) peak RSS of the whole process fetching an 8 MiB text page.
//! The binary comes from `WEBGATE_BIN` (xtask builds it). Figures are
//! printed, never asserted.

use std::io::{Read, Write};
use std::process::Command;
use std::time::Instant;

use webgate::internals::body::{decode_owned, BodyDecoder, CapMode, Coding};
use webgate_conformance::ca::TestCa;
use webgate_conformance::loopback::LoopbackServer;

const PUBLIC: &str = "93.184.216.34";

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Compresses `total` zero bytes without holding them all.
fn bomb(coding: &str, total: usize) -> Vec<u8> {
    let chunk = vec![0u8; 1 << 20];
    match coding {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            for _ in 0..total / chunk.len() {
                e.write_all(&chunk).unwrap();
            }
            e.finish().unwrap()
        }
        "br" => {
            let mut out = Vec::new();
            {
                let mut w = brotli::CompressorWriter::new(&mut out, 1 << 16, 9, 24);
                for _ in 0..total / chunk.len() {
                    w.write_all(&chunk).unwrap();
                }
            }
            out
        }
        _ => {
            let mut e = zstd::stream::write::Encoder::new(Vec::new(), 19).unwrap();
            for _ in 0..total / chunk.len() {
                e.write_all(&chunk).unwrap();
            }
            e.finish().unwrap()
        }
    }
}

/// Runs the binary under GNU time: (exit code, first stdout line, seconds, peak RSS KiB).
fn run_webgate(bin: &str, port: u16, pem: &str, extra: &[&str]) -> (i32, String, f64, Option<u64>) {
    let resolve = format!("a.example={PUBLIC}");
    let connect = format!("{PUBLIC}:443=127.0.0.1:{port}");
    let mut args: Vec<String> = vec!["-f".into(), "%M".into(), bin.into()];
    for a in [
        "fetch",
        "https://a.example/",
        "--resolve",
        &resolve,
        "--connect-to",
        &connect,
        "--ca-file",
        pem,
    ] {
        args.push(a.into());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let t = Instant::now();
    let timed = Command::new("/usr/bin/time").args(&args).output();
    let secs = t.elapsed().as_secs_f64();
    let out = match timed {
        Ok(o) => o,
        Err(_) => Command::new(bin)
            .args(&args[3..])
            .output()
            .expect("webgate binary"),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse::<u64>().ok());
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    (out.status.code().unwrap_or(-1), first, secs, rss)
}

/// The benchmark's 181 real pages, inflated and concatenated to 8 MiB.
fn real_pages() -> Option<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/article-extraction-benchmark/html");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".html.gz"))
        .collect();
    names.sort();
    let mut all = Vec::new();
    while all.len() < 8 << 20 {
        for p in &names {
            let gz = std::fs::read(p).ok()?;
            flate2::read::GzDecoder::new(gz.as_slice())
                .read_to_end(&mut all)
                .ok()?;
        }
    }
    all.truncate(8 << 20);
    Some(all)
}

/// Inflate + cap + text decode through webgate against flate2 alone.
fn throughput(label: &str, html: &[u8]) {
    println!("  {label}:");
    let gz = gzip(html);
    // Rounds alternate between the two so that machine noise hits both
    // alike; the best round of each counts.
    let rounds = 25;
    let bare_run = || {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_end(&mut out)
            .unwrap();
        out.len()
    };
    let ours_run = || {
        let mut d = BodyDecoder::new(&[Coding::Gzip], 8 << 20, CapMode::Refuse).unwrap();
        for c in gz.chunks(16 * 1024) {
            d.push(c).unwrap();
        }
        let body = d.finish().unwrap();
        decode_owned(body.bytes, encoding_rs::UTF_8).len()
    };
    let inflate_only = || {
        let mut d = BodyDecoder::new(&[Coding::Gzip], 8 << 20, CapMode::Refuse).unwrap();
        for c in gz.chunks(16 * 1024) {
            d.push(c).unwrap();
        }
        d.finish().unwrap().bytes.len()
    };
    let (mut bare, mut ours, mut inflate) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..rounds {
        let t = Instant::now();
        std::hint::black_box(inflate_only());
        inflate = inflate.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        std::hint::black_box(bare_run());
        bare = bare.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        std::hint::black_box(ours_run());
        ours = ours.min(t.elapsed().as_secs_f64());
    }
    let mb = html.len() as f64 / (1 << 20) as f64;
    println!(
        "  flate2 read::GzDecoder alone          {:>8.1} MiB/s",
        mb / bare
    );
    println!(
        "  webgate decoder + cap + UTF-8 decode  {:>8.1} MiB/s",
        mb / ours
    );
    println!(
        "  webgate decoder + cap, no text decode  {:>8.1} MiB/s",
        mb / inflate
    );
    println!("  webgate / bare decoder: {:.2}x", bare / ours);
}

fn main() {
    let bin = std::env::var("WEBGATE_BIN").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../target/release/webgate").into()
    });
    if !std::path::Path::new(&bin).exists() {
        eprintln!("body bench: no webgate binary at {bin} (run `cargo build --release -p webgate-cli` or `cargo xtask bench body`)");
        std::process::exit(1);
    }
    let ca = TestCa::new();
    let pem_path =
        std::env::temp_dir().join(format!("webgate-bench-ca-{}.pem", std::process::id()));
    std::fs::write(&pem_path, ca.root_pem()).unwrap();
    let pem = pem_path.to_str().unwrap().to_string();

    println!("(a) bombs inflating to 1 GiB, refused by the release binary over TLS on loopback");
    for (coding, ct) in [
        ("gzip", "text/html"),
        ("br", "application/json"),
        ("zstd", "text/html"),
    ] {
        let b = bomb(coding, 1 << 30);
        let server = LoopbackServer::start(
            &ca,
            &["a.example"],
            &format!("Content-Type: {ct}\r\nContent-Encoding: {coding}\r\n"),
            b.clone(),
        );
        let (code, first, secs, rss) = run_webgate(&bin, server.port, &pem, &[]);
        println!(
            "  {coding:<5} bomb of {:>8} bytes: exit {code}, {secs:.3} s, peak RSS {} — {first}",
            b.len(),
            rss.map(|k| format!("{:.1} MiB", k as f64 / 1024.0))
                .unwrap_or_else(|| "n/a (no /usr/bin/time)".into())
        );
    }

    println!("\n(b) inflate-and-decode throughput, 8 MiB HTML, gzip, 16 KiB chunks");
    // Synthetic: a non-ASCII character every ~85 bytes, the hard case for
    // UTF-8 validation.
    let synthetic: Vec<u8> = {
        let mut h = b"<!doctype html><html><body>".to_vec();
        let mut i = 0u64;
        while h.len() < (8 << 20) - 64 {
            h.extend_from_slice(format!("<p>Paragraph {i}: the quick brown fox jumps over the lazy dog, caf\u{e9} \u{2713}.</p>\n").as_bytes());
            i += 1;
        }
        h.extend_from_slice(b"</body></html>");
        h.truncate(8 << 20);
        h
    };
    throughput("synthetic paragraphs", &synthetic);
    match real_pages() {
        Some(html) => throughput(
            "real pages (article-extraction-benchmark, concatenated)",
            &html,
        ),
        None => println!(
            "  real pages: not run, ../shared/data/article-extraction-benchmark/html not found"
        ),
    }

    println!("\n(c) a full fetch of an 8 MiB text page by the release binary");
    let text: Vec<u8> = (0..8 << 20)
        .map(|i| b"lorem ipsum dolor sit amet\n"[i % 27])
        .collect();
    let server = LoopbackServer::start(&ca, &["a.example"], "Content-Type: text/plain\r\n", text);
    let (code, first, secs, rss) = run_webgate(&bin, server.port, &pem, &[]);
    match rss {
        Some(k) => println!(
            "  exit {code}, {secs:.3} s, peak RSS {:.1} MiB = {:.2}x the body size — {first}",
            k as f64 / 1024.0,
            k as f64 / 1024.0 / 8.0
        ),
        None => println!("  exit {code}, {secs:.3} s, peak RSS n/a (no /usr/bin/time) — {first}"),
    }
    let _ = std::fs::remove_file(&pem_path);
}
