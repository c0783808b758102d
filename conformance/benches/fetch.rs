//! `cargo xtask bench fetch`: a 16 KiB text page from a loopback TLS server
//! through webgate's whole pipeline (admission, resolve, vet, dial, TLS,
//! HTTP/1.1, body, render), beside reqwest (rustls) fetching the same page
//! in the same run: one-shot requests (webgate with connection reuse off
//! against a fresh reqwest client each time), then sequential and 64 in
//! flight to one host with reuse on (every request still re-resolves and
//! re-vets; only the socket is kept) against one pooled reqwest client.
//! Figures are printed, never asserted.

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
    println!("fetch benchmark: 16 KiB text/plain over TLS 1.3 on loopback, HTTP/1.1, {n_seq} sequential (median of 5 interleaved rounds), {n_conc} at 64 in flight");
    let pooled_client = reqwest_client();
    // Each pair runs in 5 interleaved rounds, the order alternating, and
    // the median of each side is shown (one round is ~0.1 s: single runs
    // swing by 10% or more on a shared machine).
    let rounds = 5;
    let time = |f: &dyn Fn()| {
        let t = Instant::now();
        f();
        n_seq as f64 / t.elapsed().as_secs_f64()
    };
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let pair = |ours: (&str, &dyn Fn()), peer: (&str, &dyn Fn())| {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            if round % 2 == 0 {
                a.push(time(ours.1));
                b.push(time(peer.1));
            } else {
                b.push(time(peer.1));
                a.push(time(ours.1));
            }
        }
        let (a, b) = (median(a), median(b));
        println!("{:<52} {a:>8.0} req/s", ours.0);
        println!("{:<52} {b:>8.0} req/s", peer.0);
        (a, b)
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
    let (ours_seq, peer_seq) = pair(
        (
            "webgate, one-shot (reuse off: fresh connection each)",
            &|| webgate_seq(&fresh),
        ),
        ("reqwest, one-shot (fresh client each)", &|| {
            reqwest_seq(None)
        }),
    );
    println!(
        "webgate / reqwest one-shot throughput: {:.2}x",
        ours_seq / peer_seq
    );
    let (ours_kept, peer_kept) = pair(
        ("webgate, sequential to one host (reuse on)", &|| {
            webgate_seq(&fetcher)
        }),
        ("reqwest, sequential (one pooled client)", &|| {
            reqwest_seq(Some(&pooled_client))
        }),
    );
    println!(
        "webgate / reqwest sequential to one host: {:.2}x (pooled client)",
        ours_kept / peer_kept
    );

    let conc = |label: &str, fresh: bool, ours: Option<&Fetcher>| -> f64 {
        reset_peak();
        let base = status_kib("VmRSS:");
        let t = Instant::now();
        rt.block_on(async {
            let sem = Arc::new(tokio::sync::Semaphore::new(64));
            let shared = reqwest_client();
            let mut tasks = Vec::new();
            for _ in 0..n_conc {
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
        let rps = n_conc as f64 / t.elapsed().as_secs_f64();
        let per_fetch = status_kib("VmHWM:").saturating_sub(base) / 64;
        println!("{label:<48} {rps:>8.0} req/s   peak RSS growth / 64: {per_fetch} KiB");
        rps
    };
    let ours_fresh = conc("webgate, 64 in flight (reuse off)", true, Some(&fresh));
    let peer_c = conc("reqwest, 64 in flight (fresh client each)", true, None);
    let ours_c = conc("webgate, 64 in flight (reuse on)", true, Some(&fetcher));
    let pooled = conc("reqwest, 64 in flight (one pooled client)", false, None);
    println!(
        "webgate / reqwest at 64 in flight: {:.2}x (reuse off / fresh clients), {:.2}x (reuse on / pooled client)",
        ours_fresh / peer_c,
        ours_c / pooled
    );
}
