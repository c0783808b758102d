//! `cargo xtask bench fetch`: a 16 KiB text page from a loopback TLS server
//! through webgate's whole pipeline (admission, resolve, vet, dial, TLS,
//! HTTP/1.1, body, render), beside reqwest (rustls) fetching the same page
//! in the same run: one-shot requests (webgate with connection reuse off
//! against a fresh reqwest client each time), then sequential and 64 in
//! flight to one host with reuse on (every request still re-resolves and
//! re-vets; only the socket is kept) against one pooled reqwest client,
//! and 1,000 in flight both ways: the load a shared service carries.
//! Every row is the median of 7 interleaved rounds with its range, and
//! each ratio is given for the medians and for the worst round. Figures
//! are printed, never asserted.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use webgate::fetch::Fetcher;
use webgate::net::{RemappedDial, StaticResolve, TcpDial, TlsSettings};
use webgate::policy::Policy;
use webgate_conformance::ca::TestCa;
use webgate_conformance::loopback::LoopbackServer;

const PUBLIC: &str = "93.184.216.34";

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

fn reset_peak() {
    // Linux: writing 5 to clear_refs resets the peak RSS (VmHWM).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// `--memory WIDTH SIDE` (SIDE one of `ours-fresh`, `ours-kept`,
/// `peer-fresh`, `peer-pooled`): this process runs that one load once and
/// prints the peak resident memory it added, a fetch in flight. Memory is
/// measured in a process of its own each time: in a shared one, the
/// allocator keeps what the previous row freed and later rows look free.
fn memory_row() -> Option<(usize, String)> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == "--memory")?;
    Some((args.get(i + 1)?.parse().ok()?, args.get(i + 2)?.clone()))
}

fn main() {
    let ca = TestCa::new();
    let body: Vec<u8> = (0..16 * 1024)
        .map(|i| b"abcdefghijklmnopqrstuvwxyz\n"[i % 27])
        .collect();
    let server = LoopbackServer::start(
        &ca,
        &["a.example"],
        "Content-Type: text/plain\r\n",
        body.clone(),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    let mut tls = TlsSettings::default();
    tls.add_root(ca.root());
    let mut table = HashMap::new();
    table.insert("a.example".to_string(), vec![PUBLIC.parse().unwrap()]);
    let to = format!("127.0.0.1:{}", server.port).parse().unwrap();
    let build = |reuse: bool| {
        let mut policy = Policy::default();
        policy.connection_reuse = reuse;
        Fetcher::builder()
            .policy(policy)
            .resolver(Arc::new(StaticResolve::new(table.clone())))
            .dialer(Arc::new(RemappedDial::new(
                vec![(format!("{PUBLIC}:443").parse().unwrap(), to)],
                TcpDial,
            )))
            .tls(tls.clone())
            .build()
            .unwrap()
    };
    let fresh = build(false);
    let fetcher = build(true);
    let args = serde_json::json!({"url": "https://a.example/page"});
    let root = reqwest::Certificate::from_der(ca.root().as_ref()).unwrap();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{}", server.port).parse().unwrap();
    let reqwest_client = move || {
        reqwest::Client::builder()
            .use_rustls_tls()
            .tls_built_in_root_certs(false)
            .add_root_certificate(root.clone())
            .resolve("a.example", addr)
            .http1_only()
            .build()
            .unwrap()
    };

    // Sanity: both get the page.
    rt.block_on(async {
        let o = fetcher.call(&args).await;
        assert!(
            o.text.ends_with(std::str::from_utf8(&body).unwrap()),
            "{}",
            &o.text[..200.min(o.text.len())]
        );
        let r = reqwest_client()
            .get("https://a.example/page")
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(r.len(), body.len());
    });

    let n_seq = 400;
    let n_conc = 1280;
    // Every row is measured in ROUNDS interleaved rounds, the order of the
    // two sides alternating, and printed as its median with the range
    // beside it; a ratio is given for the medians and for the worst round
    // (the round whose webgate/peer ratio was lowest): a lead that holds
    // in one run in three is not a lead.
    const ROUNDS: usize = 7;
    println!("fetch benchmark: 16 KiB text/plain over TLS 1.3 on loopback, HTTP/1.1; every row the median of {ROUNDS} interleaved rounds [min–max]; {n_seq} sequential, {n_conc} at 64 in flight, 2,000 at 1,000 in flight");
    let pooled_client = reqwest_client();
    let time = |f: &dyn Fn()| {
        let t = Instant::now();
        f();
        (n_seq as f64 / t.elapsed().as_secs_f64(), 0.0)
    };
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
    // One pair of rows: (req/s, KiB a fetch) per round for each side.
    type Run<'a> = &'a dyn Fn() -> (f64, f64);
    let pair = |what: &str, ours: (&str, Run), peer: (&str, Run), memory: bool| {
        let (mut a, mut b, mut ma, mut mb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            let mut one = |mine: bool| {
                let (rps, kib) = if mine { (ours.1)() } else { (peer.1)() };
                if mine {
                    a.push(rps);
                    ma.push(kib);
                } else {
                    b.push(rps);
                    mb.push(kib);
                }
            };
            if round % 2 == 0 {
                one(true);
                one(false);
            } else {
                one(false);
                one(true);
            }
        }
        for (label, v, m) in [(ours.0, &a, &ma), (peer.0, &b, &mb)] {
            let mem = if memory {
                format!(
                    "   peak RSS growth a fetch: {:.0} KiB {}",
                    median(m),
                    span(m)
                )
            } else {
                String::new()
            };
            println!("{label:<52} {:>8.0} req/s {}{mem}", median(v), span(v));
        }
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| x / y)
            .fold(f64::INFINITY, f64::min);
        println!(
            "webgate / reqwest, {what}: {:.2}x (medians), {worst:.2}x (worst round)",
            median(&a) / median(&b)
        );
        if memory {
            println!(
                "memory a fetch, webgate / reqwest, {what}: {:.2}x (medians)",
                median(&ma) / median(&mb).max(1.0)
            );
        }
    };
    let reqwest_seq = |client: Option<&reqwest::Client>| {
        rt.block_on(async {
            for _ in 0..n_seq {
                let fresh_client;
                let c = match client {
                    Some(c) => c,
                    None => {
                        fresh_client = reqwest_client();
                        &fresh_client
                    }
                };
                let r = c
                    .get("https://a.example/page")
                    .send()
                    .await
                    .unwrap()
                    .text()
                    .await
                    .unwrap();
                std::hint::black_box(r);
            }
        })
    };
    let webgate_seq = |f: &Fetcher| {
        rt.block_on(async {
            for _ in 0..n_seq {
                std::hint::black_box(f.call(&args).await);
            }
        })
    };
    pair(
        "one-shot",
        (
            "webgate, one-shot (reuse off: fresh connection each)",
            &|| time(&|| webgate_seq(&fresh)),
        ),
        ("reqwest, one-shot (fresh client each)", &|| {
            time(&|| reqwest_seq(None))
        }),
        false,
    );
    pair(
        "sequential to one host",
        ("webgate, sequential to one host (reuse on)", &|| {
            time(&|| webgate_seq(&fetcher))
        }),
        ("reqwest, sequential (one pooled client)", &|| {
            time(&|| reqwest_seq(Some(&pooled_client)))
        }),
        false,
    );

    // `total` fetches with `width` in flight: req/s, and the peak resident
    // memory the run added, a fetch in flight.
    let conc = |total: usize, width: usize, fresh: bool, ours: Option<&Fetcher>| -> (f64, f64) {
        reset_peak();
        let base = status_kib("VmRSS:");
        let t = Instant::now();
        rt.block_on(async {
            let sem = Arc::new(tokio::sync::Semaphore::new(width));
            let shared = reqwest_client();
            let mut tasks = Vec::new();
            for _ in 0..total {
                let permit = sem.clone().acquire_owned().await.unwrap();
                let (f, a) = (ours.cloned(), args.clone());
                let client = if fresh {
                    reqwest_client()
                } else {
                    shared.clone()
                };
                tasks.push(tokio::spawn(async move {
                    if let Some(f) = f {
                        std::hint::black_box(f.call(&a).await);
                    } else {
                        let r = client
                            .get("https://a.example/page")
                            .send()
                            .await
                            .unwrap()
                            .text()
                            .await
                            .unwrap();
                        std::hint::black_box(r);
                    }
                    drop(permit);
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
        });
        let rps = total as f64 / t.elapsed().as_secs_f64();
        let per_fetch = status_kib("VmHWM:").saturating_sub(base) as f64 / width as f64;
        (rps, per_fetch)
    };
    if let Some((width, side)) = memory_row() {
        let total = width * 2;
        let (_, kib) = match side.as_str() {
            "ours-fresh" => conc(total, width, true, Some(&fresh)),
            "ours-kept" => conc(total, width, true, Some(&fetcher)),
            "peer-fresh" => conc(total, width, true, None),
            _ => conc(total, width, false, None),
        };
        println!("MEMORY {kib}");
        return;
    }
    // Peak memory a fetch in flight, each side in 3 fresh processes (the
    // median), for the reuse-off and reuse-on rows.
    let memory = |width: usize, side: &str| -> f64 {
        let mut v: Vec<f64> = (0..3)
            .map(|_| {
                let out = std::process::Command::new(std::env::current_exe().unwrap())
                    .args(["--memory", &width.to_string(), side])
                    .output()
                    .unwrap();
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .find_map(|l| l.strip_prefix("MEMORY ")?.trim().parse().ok())
                    .unwrap_or(f64::NAN)
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[1]
    };
    for (total, width) in [(n_conc, 64), (2000, 1000)] {
        pair(
            &format!("{width} in flight, reuse off / fresh clients"),
            (&format!("webgate, {width} in flight (reuse off)"), &|| {
                conc(total, width, true, Some(&fresh))
            }),
            (
                &format!("reqwest, {width} in flight (fresh client each)"),
                &|| conc(total, width, true, None),
            ),
            false,
        );
        pair(
            &format!("{width} in flight, reuse on / pooled client"),
            (&format!("webgate, {width} in flight (reuse on)"), &|| {
                conc(total, width, true, Some(&fetcher))
            }),
            (
                &format!("reqwest, {width} in flight (one pooled client)"),
                &|| conc(total, width, false, None),
            ),
            false,
        );
        let (of, pf) = (memory(width, "ours-fresh"), memory(width, "peer-fresh"));
        let (ok, pp) = (memory(width, "ours-kept"), memory(width, "peer-pooled"));
        println!(
            "peak RSS growth a fetch, {width} in flight (fresh process each, median of 3): \
             webgate reuse off {of:.0} KiB, reqwest fresh clients {pf:.0} KiB ({:.2}x); \
             webgate reuse on {ok:.0} KiB, reqwest pooled {pp:.0} KiB ({:.2}x)",
            of / pf.max(1.0),
            ok / pp.max(1.0)
        );
    }
}
