//! `cargo xtask bench fetch`: a 16 KiB text page from a loopback TLS server
//! through webgate's whole pipeline (admission, resolve, vet, dial, TLS,
//! HTTP/1.1 or h2, body, render), beside reqwest (rustls) fetching the
//! same page in the same run: one-shot requests (webgate with connection
//! reuse off against a fresh reqwest client each time), then sequential
//! and 64 in flight to one host with reuse on (every request still
//! re-resolves and re-vets; only the socket is kept) against one pooled
//! reqwest client kept for the whole run, 1,000 in flight both ways (the
//! load a shared service carries), and 64 and 1,000 in flight to an h2
//! host whose connection the fetches share. Every row is the median of 7
//! interleaved rounds with its range, and each ratio is given for the
//! medians and for the worst round; memory is measured in fresh
//! processes. Figures are printed, never asserted.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use webgate::fetch::Fetcher;
use webgate::internals::net::RemappedDial;
use webgate::internals::net::{StaticResolve, TcpDial};
use webgate::net::TlsSettings;
use webgate::policy::Policy;
use webgate_conformance::ca::TestCa;
use webgate_conformance::loopback::LoopbackServer;

const PUBLIC: &str = "93.184.216.34";
const PUBLIC_H2: &str = "93.184.216.35";

fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Every allocation counted (live and peak bytes): the heap a fetch in
/// flight holds, exactly, beside the resident memory the kernel shows
/// (which also holds what the allocator keeps and rounds to pages). Two
/// relaxed atomic operations an allocation, on both sides alike.
#[global_allocator]
static HEAP: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

fn reset_peak() {
    // Linux: writing 5 to clear_refs resets the peak RSS (VmHWM).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    HEAP.reset_peak_usage();
}

/// `--memory WIDTH SIDE` (SIDE one of `ours-fresh`, `ours-kept`,
/// `ours-h2`, `peer-fresh`, `peer-pooled`, `peer-h2`): this process runs
/// that one load once, after one warm-up fetch, and prints the peak
/// resident memory it added, a fetch in flight. Memory is measured in a
/// process of its own each time: in a shared one, the allocator keeps
/// what the previous row freed and later rows look free.
/// A third argument, TOTAL, runs that many fetches instead of twice the
/// width and prints req/s too: one load alone, for a profiler.
fn memory_row() -> Option<(usize, String, Option<usize>)> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == "--memory")?;
    Some((
        args.get(i + 1)?.parse().ok()?,
        args.get(i + 2)?.clone(),
        args.get(i + 3).and_then(|t| t.parse().ok()),
    ))
}

/// Who fetches in a load.
#[derive(Clone, Copy)]
enum Side<'a> {
    /// webgate, with this Fetcher and these arguments.
    Ours(&'a Fetcher, &'a serde_json::Value),
    /// reqwest, a fresh client for each fetch, to this URL.
    PeerFresh(&'a str),
    /// reqwest, one client for the whole run, to this URL.
    PeerPooled(&'a reqwest::Client, &'a str),
}

const ROUNDS: usize = 7;
/// Slices of each side in a round, alternating.
const SLICES: usize = 8;

fn main() {
    let ca = TestCa::new();
    let body: Vec<u8> = (0..16 * 1024)
        .map(|i| b"abcdefghijklmnopqrstuvwxyz\n"[i % 27])
        .collect();
    let h1_server = LoopbackServer::start(
        &ca,
        &["a.example"],
        "Content-Type: text/plain\r\n",
        body.clone(),
    );
    // nginx's default stream limit.
    let h2_server = LoopbackServer::start_h2(&ca, &["b.example"], "text/plain", body.clone(), 128);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    let mut tls = TlsSettings::default();
    tls.add_root(ca.root());
    let mut table = HashMap::new();
    table.insert("a.example".to_string(), vec![PUBLIC.parse().unwrap()]);
    table.insert("b.example".to_string(), vec![PUBLIC_H2.parse().unwrap()]);
    let h1_addr: std::net::SocketAddr = format!("127.0.0.1:{}", h1_server.port).parse().unwrap();
    let h2_addr: std::net::SocketAddr = format!("127.0.0.1:{}", h2_server.port).parse().unwrap();
    let build = |reuse: bool, per_host: usize| {
        let mut policy = Policy::default();
        policy.connection_reuse = reuse;
        policy.idle_per_host = per_host;
        policy.idle_total = per_host.max(policy.idle_total);
        Fetcher::builder()
            .policy(policy)
            .resolver(Arc::new(StaticResolve::new(table.clone())))
            .dialer(Arc::new(RemappedDial::new(
                vec![
                    (format!("{PUBLIC}:443").parse().unwrap(), h1_addr),
                    (format!("{PUBLIC_H2}:443").parse().unwrap(), h2_addr),
                ],
                TcpDial,
            )))
            .tls(tls.clone())
            .build()
            .unwrap()
    };
    let default_per_host = Policy::default().idle_per_host;
    let fresh = build(false, default_per_host);
    let kept = build(true, default_per_host);
    // As many kept per host as there are fetches in flight: reqwest's
    // pool keeps every idle connection.
    let kept_wide = build(true, 1000);
    let shared = build(true, default_per_host);
    let h1_args = serde_json::json!({"url": "https://a.example/page"});
    let h2_args = serde_json::json!({"url": "https://b.example/page"});
    const H1_URL: &str = "https://a.example/page";
    const H2_URL: &str = "https://b.example/page";
    let root = reqwest::Certificate::from_der(ca.root().as_ref()).unwrap();
    let reqwest_client = move || {
        reqwest::Client::builder()
            .use_rustls_tls()
            .tls_built_in_root_certs(false)
            .add_root_certificate(root.clone())
            .resolve("a.example", h1_addr)
            .resolve("b.example", h2_addr)
            .build()
            .unwrap()
    };

    let fetch_peer = |client: &reqwest::Client, url: &str| {
        let request = client.get(url).send();
        async move {
            let r = request.await.unwrap();
            assert!(
                r.version() == reqwest::Version::HTTP_11 || r.version() == reqwest::Version::HTTP_2
            );
            r.text().await.unwrap()
        }
    };
    // Sanity: both get the page, each server in its protocol.
    rt.block_on(async {
        for (f, args, url, alpn) in [
            (&kept, &h1_args, H1_URL, None),
            (&shared, &h2_args, H2_URL, Some("h2")),
        ] {
            let (o, a) = f.call_audited(args).await;
            assert!(
                o.text.ends_with(std::str::from_utf8(&body).unwrap()),
                "{}",
                &o.text[..200.min(o.text.len())]
            );
            let got = a.to_json()["hops"][0]["tls"]["alpn"].clone();
            assert_eq!(got.as_str(), alpn.or(Some("http/1.1")), "{url}");
            let r = reqwest_client().get(url).send().await.unwrap();
            let want = if alpn.is_some() {
                reqwest::Version::HTTP_2
            } else {
                reqwest::Version::HTTP_11
            };
            assert_eq!(r.version(), want, "{url}");
            assert_eq!(r.bytes().await.unwrap().len(), body.len());
        }
    });

    // `total` fetches with `width` in flight: req/s, and the peak resident
    // memory the run added, a fetch in flight.
    let load = |total: usize, width: usize, side: Side| -> (f64, f64, f64) {
        reset_peak();
        let base = status_kib("VmRSS:");
        let heap_base = HEAP.current_usage();
        let t = Instant::now();
        rt.block_on(async {
            // One at a time: the caller's own task awaits each fetch, as
            // an agent does; no task is spawned.
            if width == 1 {
                for _ in 0..total {
                    match side {
                        Side::Ours(f, a) => {
                            std::hint::black_box(f.call(a).await);
                        }
                        Side::PeerFresh(url) => {
                            std::hint::black_box(fetch_peer(&reqwest_client(), url).await);
                        }
                        Side::PeerPooled(c, url) => {
                            std::hint::black_box(fetch_peer(c, url).await);
                        }
                    }
                }
                return;
            }
            let sem = Arc::new(tokio::sync::Semaphore::new(width));
            let mut tasks = Vec::new();
            for _ in 0..total {
                let permit = sem.clone().acquire_owned().await.unwrap();
                // A reqwest client only on reqwest's side: one built for
                // webgate's fetches would count in webgate's memory.
                let task: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> =
                    match side {
                        Side::Ours(f, a) => {
                            let (f, a) = (f.clone(), a.clone());
                            Box::pin(async move {
                                std::hint::black_box(f.call(&a).await);
                            })
                        }
                        Side::PeerFresh(url) => {
                            let r = fetch_peer(&reqwest_client(), url);
                            Box::pin(async move {
                                std::hint::black_box(r.await);
                            })
                        }
                        Side::PeerPooled(c, url) => {
                            let r = fetch_peer(c, url);
                            Box::pin(async move {
                                std::hint::black_box(r.await);
                            })
                        }
                    };
                tasks.push(tokio::spawn(async move {
                    task.await;
                    drop(permit);
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
        });
        let rps = total as f64 / t.elapsed().as_secs_f64();
        let per_fetch = status_kib("VmHWM:").saturating_sub(base) as f64 / width as f64;
        let heap = HEAP.peak_usage().saturating_sub(heap_base) as f64 / 1024.0 / width as f64;
        (rps, per_fetch, heap)
    };
    let warm = |side: Side| load(1, 1, side);

    if let Some((width, side, total)) = memory_row() {
        let client = reqwest_client();
        let side = match side.as_str() {
            "ours-fresh" => Side::Ours(&fresh, &h1_args),
            "ours-kept" => Side::Ours(&kept, &h1_args),
            "ours-h2" => Side::Ours(&shared, &h2_args),
            "peer-fresh" => Side::PeerFresh(H1_URL),
            "peer-pooled" => Side::PeerPooled(&client, H1_URL),
            _ => Side::PeerPooled(&client, H2_URL),
        };
        warm(side);
        let (rps, kib, heap) = load(total.unwrap_or(width * 2), width, side);
        println!("MEMORY {kib} {heap}");
        println!("{rps:.0} req/s");
        return;
    }

    println!("fetch benchmark: 16 KiB text/plain over TLS 1.3 on loopback (HTTP/1.1, and h2 with 128 streams a connection); every row the median of {ROUNDS} rounds [min–max], each round {SLICES} slices of each side, alternating; reqwest's pooled client is one for the whole run");
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let span = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        format!("[{lo:.0}–{hi:.0}]")
    };
    // One pair of rows, `total` fetches a round, `width` in flight: every
    // round runs both sides, interleaved; a ratio is given for
    // the medians and for the worst round (the round whose webgate/peer
    // ratio was lowest): a lead that holds in one run in three is not a
    // lead.
    let pair = |what: &str, total: usize, width: usize, ours: (&str, Side), peer: (&str, Side)| {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        // Warmed at the row's width, both sides: a pooled side starts its
        // rounds with the connections that width keeps, whichever row ran
        // before (reqwest's one client is shared by every row, and would
        // otherwise come in with the last row's connections while a
        // Fetcher of its own comes in cold).
        load(width, width, ours.1);
        load(width, width, peer.1);
        // A round is SLICES slices of each side, alternating, so that a
        // drift of the machine within a round (another tenant, the CPU's
        // clock) falls on both sides alike.
        let slice = (total / SLICES).max(width);
        for round in 0..ROUNDS {
            let (mut ta, mut tb) = (0.0, 0.0);
            for k in 0..SLICES {
                let order = if (round + k) % 2 == 0 {
                    [true, false]
                } else {
                    [false, true]
                };
                for mine in order {
                    if mine {
                        ta += slice as f64 / load(slice, width, ours.1).0;
                    } else {
                        tb += slice as f64 / load(slice, width, peer.1).0;
                    }
                }
            }
            a.push((slice * SLICES) as f64 / ta);
            b.push((slice * SLICES) as f64 / tb);
        }
        for (label, v) in [(ours.0, &a), (peer.0, &b)] {
            println!("{label:<60} {:>8.0} req/s {}", median(v), span(v));
        }
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| x / y)
            .fold(f64::INFINITY, f64::min);
        println!(
            "webgate / reqwest, {what} ({total} a round): {:.2}x (medians), {worst:.2}x (worst round)",
            median(&a) / median(&b)
        );
    };
    // Peak memory a fetch in flight, each side in MEMORY_RUNS fresh
    // processes: the medians of the resident and of the heap figure.
    const MEMORY_RUNS: usize = 5;
    let memory = |width: usize, side: &str| -> (f64, f64) {
        let (mut rss, mut heap): (Vec<f64>, Vec<f64>) = (0..MEMORY_RUNS)
            .map(|_| {
                let out = std::process::Command::new(std::env::current_exe().unwrap())
                    .args(["--memory", &width.to_string(), side])
                    .output()
                    .unwrap();
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .find_map(|l| {
                        let mut v = l.strip_prefix("MEMORY ")?.split_whitespace();
                        Some((v.next()?.parse().ok()?, v.next()?.parse().ok()?))
                    })
                    .unwrap_or((f64::NAN, f64::NAN))
            })
            .unzip();
        rss.sort_by(f64::total_cmp);
        heap.sort_by(f64::total_cmp);
        (rss[MEMORY_RUNS / 2], heap[MEMORY_RUNS / 2])
    };
    // One line of memory figures: webgate's side against reqwest's.
    let compare = |what: &str, ours: (f64, f64), peer: (f64, f64)| {
        println!(
            "memory a fetch in flight, {what} (fresh process each, median of {MEMORY_RUNS}): \
             peak RSS growth webgate {:.0} KiB, reqwest {:.0} KiB ({:.2}x); \
             peak heap webgate {:.1} KiB, reqwest {:.1} KiB ({:.2}x)",
            ours.0,
            peer.0,
            ours.0 / peer.0.max(1.0),
            ours.1,
            peer.1,
            ours.1 / peer.1.max(0.1)
        );
    };
    let pooled = reqwest_client();
    // What every fetch in flight holds before anything else: its future.
    println!(
        "a fetch's future: webgate {} bytes, reqwest {} bytes",
        std::mem::size_of_val(&kept.call(&h1_args)),
        std::mem::size_of_val(&fetch_peer(&pooled, H1_URL))
    );

    pair(
        "one-shot",
        1000,
        1,
        (
            "webgate, one-shot (reuse off: fresh connection each)",
            Side::Ours(&fresh, &h1_args),
        ),
        (
            "reqwest, one-shot (fresh client each)",
            Side::PeerFresh(H1_URL),
        ),
    );
    pair(
        "sequential to one host",
        4000,
        1,
        (
            "webgate, sequential to one host (reuse on)",
            Side::Ours(&kept, &h1_args),
        ),
        (
            "reqwest, sequential (one pooled client)",
            Side::PeerPooled(&pooled, H1_URL),
        ),
    );
    for (width, off_total, on_total) in [(64, 2560, 12_800), (1000, 8000, 8000)] {
        pair(
            &format!("{width} in flight, reuse off / fresh clients"),
            off_total,
            width,
            (
                &format!("webgate, {width} in flight (reuse off)"),
                Side::Ours(&fresh, &h1_args),
            ),
            (
                &format!("reqwest, {width} in flight (fresh client each)"),
                Side::PeerFresh(H1_URL),
            ),
        );
        pair(
            &format!("{width} in flight, reuse on / pooled client"),
            on_total,
            width,
            (
                &format!("webgate, {width} in flight (reuse on, {default_per_host} kept per host)"),
                Side::Ours(&kept, &h1_args),
            ),
            (
                &format!("reqwest, {width} in flight (one pooled client)"),
                Side::PeerPooled(&pooled, H1_URL),
            ),
        );
        if width > default_per_host {
            pair(
                &format!("{width} in flight, reuse on with 1000 kept per host / pooled client"),
                on_total,
                width,
                (
                    &format!("webgate, {width} in flight (reuse on, 1000 kept per host)"),
                    Side::Ours(&kept_wide, &h1_args),
                ),
                (
                    &format!("reqwest, {width} in flight (one pooled client)"),
                    Side::PeerPooled(&pooled, H1_URL),
                ),
            );
        }
        compare(
            &format!("{width} in flight, reuse off / fresh clients"),
            memory(width, "ours-fresh"),
            memory(width, "peer-fresh"),
        );
        compare(
            &format!("{width} in flight, reuse on / pooled client"),
            memory(width, "ours-kept"),
            memory(width, "peer-pooled"),
        );
    }
    for (width, total) in [(64, 12_800), (1000, 8000)] {
        pair(
            &format!("h2, {width} in flight / pooled client"),
            total,
            width,
            (
                &format!("webgate, h2, {width} in flight (streams shared)"),
                Side::Ours(&shared, &h2_args),
            ),
            (
                &format!("reqwest, h2, {width} in flight (one pooled client)"),
                Side::PeerPooled(&pooled, H2_URL),
            ),
        );
        compare(
            &format!("h2, {width} in flight"),
            memory(width, "ours-h2"),
            memory(width, "peer-h2"),
        );
    }
    println!(
        "connections accepted: HTTP/1.1 server {}, h2 server {}",
        h1_server
            .connections
            .load(std::sync::atomic::Ordering::SeqCst),
        h2_server
            .connections
            .load(std::sync::atomic::Ordering::SeqCst)
    );
}
