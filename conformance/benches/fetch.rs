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
    println!("fetch benchmark: 16 KiB text/plain over TLS 1.3 on loopback, HTTP/1.1, {n_seq} sequential, {n_conc} at 64 in flight");
    let pooled_client = reqwest_client();
    let time_seq = |label: &str, f: &dyn Fn()| {
        let t = Instant::now();
        f();
        let rps = n_seq as f64 / t.elapsed().as_secs_f64();
        println!("{label:<48} {rps:>8.0} req/s");
        rps
    };
    let ours_seq = time_seq(
        "webgate, one-shot (reuse off: fresh connection each)",
        &|| {
            rt.block_on(async {
                for _ in 0..n_seq {
                    std::hint::black_box(fresh.call(&args).await);
                }
            })
        },
    );
    let peer_seq = time_seq("reqwest, sequential (fresh client each)", &|| {
        rt.block_on(async {
            for _ in 0..n_seq {
                let r = reqwest_client()
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
    });
    println!(
        "webgate / reqwest one-shot throughput: {:.2}x",
        ours_seq / peer_seq
    );
    let ours_kept = time_seq("webgate, sequential to one host (reuse on)", &|| {
        rt.block_on(async {
            for _ in 0..n_seq {
                std::hint::black_box(fetcher.call(&args).await);
            }
        })
    });
    let peer_kept = time_seq("reqwest, sequential (one pooled client)", &|| {
        rt.block_on(async {
            for _ in 0..n_seq {
                let r = pooled_client
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
    });
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
