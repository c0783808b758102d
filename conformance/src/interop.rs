//! `cargo xtask interop`: webgate against the server software the web
//! runs on — nginx, Apache httpd (mod_http2, mod_brotli, mod_deflate) and
//! unbound — started on loopback with the configurations in
//! `conformance/interop/` and a fresh test CA.
//!
//! The runner installs nothing: a missing server fails the run with the
//! package to install (`.ci/run` installs them from Debian). Fetches go
//! through the library with the policy on: names resolve through a
//! static table (HTTP cases) or through unbound (DNS cases) to public
//! addresses, which the Dial seam sends to the servers' loopback ports,
//! exactly as `--resolve` / `--connect-to` / `--dns-server` do.

use std::collections::HashMap;
use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use webgate::fetch::Fetcher;
use webgate::internals::net::{RemappedDial, StaticResolve, TcpDial};
use webgate::net::{HickoryResolve, Resolve, TlsSettings};
use webgate::policy::Policy;
use webgate::tool::Outcome;

use crate::ca::TestCa;

/// The body cap the cases probe at exactly and one over (the default).
const CAP: usize = 8 * 1024 * 1024;

/// GOAWAY-before-response fetches; every one must succeed.
const GOAWAY_RUNS: usize = 100;

/// The names in the servers' certificate.
const NAMES: &[&str] = &[
    "h2.example",
    "h1.example",
    "tls12.example",
    "tls13.example",
    "goaway.example",
    "apache.example",
    "www.zone.example",
    "cname-public.zone.example",
    "mixed.zone.example",
    "v6.zone.example",
    "many.zone.example",
];

/// A server process, stopped when dropped.
struct Server {
    name: &'static str,
    child: Child,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where a server binary is, or how to install it.
fn need(bin: &str, package: &str) -> Result<PathBuf, String> {
    for dir in ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"] {
        let p = Path::new(dir).join(bin);
        if p.exists() {
            return Ok(p);
        }
    }
    Err(format!(
        "interop: {bin} is not installed; install it (Debian: apt-get install {package}) \
         — no case is skipped"
    ))
}

/// `n` distinct free loopback ports. Every listener is held until all
/// are picked: one dropped at once can be handed out again by the next
/// bind, and two servers then share a port (nginx warns "conflicting
/// server name" and one case meets the other server).
fn free_ports(n: usize) -> Vec<u16> {
    // OK: a loopback bind to port 0 only fails on a machine without one.
    let held: Vec<_> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port"))
        .collect();
    held.iter()
        .map(|l| l.local_addr().expect("an address").port())
        .collect()
}

fn wait_for(port: u16, udp: bool, server: &mut Server) -> Result<(), String> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(15) {
        if let Ok(Some(status)) = server.child.try_wait() {
            return Err(format!("{} exited at start: {status}", server.name));
        }
        let up = if udp {
            // A bound UDP port refuses a second bind.
            std::net::UdpSocket::bind(("127.0.0.1", port)).is_err()
        } else {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        };
        if up {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("{} did not start listening on {port}", server.name))
}

fn render(template: &str, vars: &HashMap<&str, String>) -> String {
    let mut out = template.to_string();
    for (k, v) in vars {
        out = out.replace(&format!("{{{{{k}}}}}"), v);
    }
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // OK: writing to a Vec cannot fail.
    e.write_all(data).expect("gzip");
    e.finish().expect("gzip")
}

fn write(path: &Path, data: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, data).map_err(|e| format!("{}: {e}", path.display()))
}

fn page(marker: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{marker}</title></head><body><article>\
         <h1>{marker}</h1><p>This page is served by real server software for webgate's \
         interop run; the marker {marker} shows it came through whole.</p>\
         <p>A second paragraph, long enough to be read as the article.</p></article></body></html>"
    )
}

/// The document root.
fn docroot(www: &Path) -> Result<(), String> {
    write(&www.join("index.html"), page("INDEX").as_bytes())?;
    for d in ["dyn", "trailer", "br", "gz"] {
        write(
            &www.join(d).join("page.html"),
            page(&format!("CODED-{d}")).repeat(20).as_bytes(),
        )?;
    }
    // One page in two gzip members (RFC 1952 §2.2), split between its
    // paragraphs, served by gzip_static.
    let whole = page("FIRST-MEMBER").replace("</p>\n", "</p>").replace(
        "<p>A second paragraph",
        "<p>SECOND-MEMBER: a second paragraph",
    );
    let cut = whole
        .find("<p>SECOND-MEMBER")
        .expect("the second paragraph");
    write(&www.join("static/multi.html"), whole.as_bytes())?;
    write(
        &www.join("static/multi.html.gz"),
        &[
            gzip(&whole.as_bytes()[..cut]),
            gzip(&whole.as_bytes()[cut..]),
        ]
        .concat(),
    )?;
    // The cap at exactly and one over: HTML is refused over it, flat text
    // is cut at it (contract §7); identity and gzip.
    let html = |len: usize| {
        let (head, tail) = (
            "<!doctype html><html><body><article><p>",
            "</p></article></body></html>",
        );
        let mut b = head.as_bytes().to_vec();
        b.resize(len - tail.len(), b'a');
        b.extend_from_slice(tail.as_bytes());
        b
    };
    for (dir, gz) in [("cap", false), ("capgz", true)] {
        for (name, body) in [
            ("exact.html", html(CAP)),
            ("over.html", html(CAP + 1)),
            ("over.txt", vec![b'a'; CAP + 1]),
        ] {
            write(&www.join(dir).join(name), &body)?;
            if gz {
                write(&www.join(dir).join(format!("{name}.gz")), &gzip(&body))?;
            }
        }
    }
    Ok(())
}

/// One case: a fetch and what must come of it.
struct Case {
    group: &'static str,
    name: String,
    url: String,
    /// The outcome's message id.
    id: &'static str,
    /// A check on the outcome and its record, when the id is not enough.
    check: Option<Check>,
}

/// A check on a case's outcome and record, beyond its message id.
type Check = Box<dyn Fn(&Outcome, &Value) -> Result<(), String>>;

/// The requests of a record, in order.
fn hops_of(a: &Value) -> &[Value] {
    a["hops"].as_array().map_or(&[], Vec::as_slice)
}

/// The last request of a record (`null` when there was none).
fn last_hop(a: &Value) -> &Value {
    hops_of(a).last().unwrap_or(&Value::Null)
}

/// How many of a record's requests went on a kept or shared connection,
/// and how many connection attempts it made.
fn reused_and_dials(a: &Value) -> (usize, usize) {
    let hops = hops_of(a);
    let reused = hops.iter().filter(|h| h["reused"] == true).count();
    let dials = hops
        .iter()
        .map(|h| h["dials"].as_array().map_or(0, Vec::len))
        .sum();
    (reused, dials)
}

fn case(group: &'static str, name: impl Into<String>, url: &str, id: &'static str) -> Case {
    Case {
        group,
        name: name.into(),
        url: url.to_string(),
        id,
        check: None,
    }
}

impl Case {
    fn with(mut self, f: impl Fn(&Outcome, &Value) -> Result<(), String> + 'static) -> Case {
        self.check = Some(Box::new(f));
        self
    }
}

fn alpn(want: &'static str) -> impl Fn(&Outcome, &Value) -> Result<(), String> {
    move |_, a| {
        let got = last_hop(a)["tls"]["alpn"].as_str();
        (got == Some(want))
            .then_some(())
            .ok_or(format!("ALPN {got:?}, want {want}"))
    }
}

fn tls(want: &'static str) -> impl Fn(&Outcome, &Value) -> Result<(), String> {
    move |_, a| {
        let got = last_hop(a)["tls"]["version"].as_str();
        (got == Some(want))
            .then_some(())
            .ok_or(format!("TLS {got:?}, want {want}"))
    }
}

fn coding(
    want: &'static str,
    marker: &'static str,
) -> impl Fn(&Outcome, &Value) -> Result<(), String> {
    move |o, a| {
        let got = &last_hop(a)["body"]["encodings"];
        if *got != json!([want]) {
            return Err(format!("codings {got:?}, want [{want}]"));
        }
        o.text
            .contains(marker)
            .then_some(())
            .ok_or(format!("the text lacks {marker}"))
    }
}

fn contains(markers: &'static [&'static str]) -> impl Fn(&Outcome, &Value) -> Result<(), String> {
    move |o, _| match markers.iter().find(|m| !o.text.contains(**m)) {
        Some(m) => Err(format!("the text lacks {m}")),
        None => Ok(()),
    }
}

fn hops(n: usize) -> impl Fn(&Outcome, &Value) -> Result<(), String> {
    move |_, a| {
        let got = hops_of(a).len();
        (got == n)
            .then_some(())
            .ok_or(format!("{got} requests, want {n}"))
    }
}

/// The body read whole at exactly the cap, or (`cut`) read past it and
/// cut there, the result saying so.
fn inflated(n: usize, cut: bool) -> impl Fn(&Outcome, &Value) -> Result<(), String> {
    move |o, a| {
        let body = &last_hop(a)["body"];
        let got = body["bytes_inflated"]
            .as_u64()
            .map(|bytes| (bytes, body["cap"] == "truncated"));
        let ok = match got {
            // Reading stops one byte past the cap: that byte is how it
            // knows the body is longer.
            Some((bytes, true)) if cut => bytes > n as u64 && o.text.contains("truncated: true"),
            Some((bytes, false)) if !cut => bytes == n as u64,
            _ => false,
        };
        ok.then_some(())
            .ok_or(format!("inflated, cut: {got:?}, want {n} bytes, cut {cut}"))
    }
}

fn http_cases() -> Vec<Case> {
    let mut v = vec![
        case(
            "protocols",
            "h2 over TLS",
            "https://h2.example/",
            "fetch.ok",
        )
        .with(alpn("h2")),
        case(
            "protocols",
            "HTTP/1.1 over TLS",
            "https://h1.example/",
            "fetch.ok",
        )
        .with(alpn("http/1.1")),
        case(
            "protocols",
            "TLS 1.2 only",
            "https://tls12.example/",
            "fetch.ok",
        )
        .with(tls("TLSv1_2")),
        case(
            "protocols",
            "TLS 1.3 only",
            "https://tls13.example/",
            "fetch.ok",
        )
        .with(tls("TLSv1_3")),
        case(
            "protocols",
            "Apache mod_http2",
            "https://apache.example/",
            "fetch.ok",
        )
        .with(alpn("h2")),
    ];
    for host in ["h2", "h1"] {
        v.push(
            case(
                "codings",
                format!("nginx dynamic gzip ({host})"),
                &format!("https://{host}.example/dyn/page.html"),
                "fetch.ok",
            )
            .with(coding("gzip", "CODED-dyn")),
        );
        v.push(
            case(
                "codings",
                format!("gzip_static, two members ({host})"),
                &format!("https://{host}.example/static/multi.html"),
                "fetch.ok",
            )
            .with(contains(&["FIRST-MEMBER", "SECOND-MEMBER"])),
        );
        v.push(
            case(
                "codings",
                format!("chunked gzip with a trailer ({host})"),
                &format!("https://{host}.example/trailer/page.html"),
                "fetch.ok",
            )
            .with(coding("gzip", "CODED-trailer")),
        );
    }
    v.push(
        case(
            "codings",
            "Apache mod_brotli",
            "https://apache.example/br/page.html",
            "fetch.ok",
        )
        .with(coding("br", "CODED-br")),
    );
    v.push(
        case(
            "codings",
            "Apache mod_deflate",
            "https://apache.example/gz/page.html",
            "fetch.ok",
        )
        .with(coding("gzip", "CODED-gz")),
    );
    for status in ["301", "302", "303", "307", "308"] {
        v.push(
            case(
                "redirects",
                format!("{status} to the same host"),
                &format!("https://h2.example/r/{status}"),
                "fetch.ok",
            )
            .with(hops(2)),
        );
    }
    v.push(
        case(
            "redirects",
            "relative Location",
            "https://h2.example/r/relative",
            "fetch.ok",
        )
        .with(hops(2)),
    );
    v.push(
        case(
            "redirects",
            "to another host (h2 to HTTP/1.1)",
            "https://h2.example/r/cross",
            "fetch.ok",
        )
        .with(hops(2)),
    );
    v.push(case(
        "redirects",
        "https to http refused",
        "https://h2.example/r/downgrade",
        "fetch.redirect.refused",
    ));
    v.push(case(
        "redirects",
        "to an IP literal refused",
        "https://h2.example/r/private",
        "fetch.redirect.refused",
    ));
    v.push(
        case(
            "redirects",
            "a loop stops at the limit",
            "https://h2.example/r/loop",
            "fetch.redirect.refused",
        )
        .with(hops(6)),
    );
    for host in ["h2", "h1"] {
        for (dir, how) in [("cap", "identity"), ("capgz", "gzip")] {
            let url = |f: &str| format!("https://{host}.example/{dir}/{f}");
            v.push(
                case(
                    "cap",
                    format!("{how} HTML at exactly the cap ({host})"),
                    &url("exact.html"),
                    "fetch.ok",
                )
                .with(inflated(CAP, false)),
            );
            v.push(case(
                "cap",
                format!("{how} HTML one over ({host})"),
                &url("over.html"),
                "fetch.body.cap",
            ));
            v.push(
                case(
                    "cap",
                    format!("{how} text one over: cut at the cap ({host})"),
                    &url("over.txt"),
                    "fetch.ok",
                )
                .with(inflated(CAP, true)),
            );
        }
    }
    v
}

/// The record names the lookup's failure as `want` (the host sees the
/// cause; the model's text is the same for every one).
fn cause_is(a: &Value, want: &str) -> Result<(), String> {
    let cause = a["hops"][0]["cause"].as_str();
    (cause == Some(want))
        .then_some(())
        .ok_or(format!("cause {cause:?}, want {want:?}"))
}

fn dns_cases() -> Vec<Case> {
    vec![
        case("dns", "A record", "https://www.zone.example/", "fetch.ok"),
        case(
            "dns",
            "CNAME to a public address",
            "https://cname-public.zone.example/",
            "fetch.ok",
        ),
        case(
            "dns",
            "CNAME to a private address",
            "https://cname-private.zone.example/",
            "fetch.dns.no_allowed",
        ),
        case(
            "dns",
            "private and public answers: only the public one dialled",
            "https://mixed.zone.example/",
            "fetch.ok",
        )
        .with(|_, a| {
            let dials: Vec<String> = a["hops"][0]["dials"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d["addr"].as_str()?.parse::<SocketAddr>().ok())
                .map(|addr| addr.ip().to_string())
                .collect();
            (dials == ["93.184.216.10"])
                .then_some(())
                .ok_or(format!("dialled {dials:?}"))
        }),
        case("dns", "AAAA only", "https://v6.zone.example/", "fetch.ok"),
        case(
            "dns",
            "only loopback",
            "https://loopback.zone.example/",
            "fetch.dns.no_allowed",
        ),
        case(
            "dns",
            "only the metadata address",
            "https://metadata.zone.example/",
            "fetch.dns.no_allowed",
        ),
        case(
            "dns",
            "NXDOMAIN",
            "https://nx.zone.example/",
            "fetch.dns.failed",
        )
        .with(|_, a| cause_is(a, "NXDOMAIN")),
        case(
            "dns",
            "REFUSED",
            "https://x.refused.example/",
            "fetch.dns.failed",
        )
        .with(|_, a| cause_is(a, "REFUSED")),
        case(
            "dns",
            "SERVFAIL",
            "https://x.servfail.example/",
            "fetch.dns.failed",
        )
        .with(|_, a| {
            // Soon, not at the end of the lookup limit.
            let ms = a["total_ms"].as_f64().unwrap_or(f64::INFINITY);
            (ms < 2_000.0)
                .then_some(())
                .ok_or(format!("took {ms} ms"))?;
            cause_is(a, "SERVFAIL")
        }),
        case(
            "dns",
            "an answer too big for UDP (TCP fallback)",
            "https://many.zone.example/",
            "fetch.ok",
        )
        .with(|_, a| {
            let n = a["hops"][0]["addresses"].as_array().map_or(0, Vec::len);
            (n == 120)
                .then_some(())
                .ok_or(format!("{n} addresses, want all 120"))
        }),
    ]
}

/// Runs every case; returns the number of failures.
pub fn main() -> Result<usize, String> {
    let nginx = need("nginx", "nginx")?;
    let apache = need("apache2", "apache2")?;
    let unbound = need("unbound", "unbound")?;
    let dir = std::env::temp_dir().join(format!("webgate-interop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("nginx-tmp")).map_err(|e| e.to_string())?;
    let cleanup = Cleanup(dir.clone());

    let ca = TestCa::new();
    let names: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    let (cert, key) = ca.leaf_pem(&names);
    write(&dir.join("leaf.pem"), cert.as_bytes())?;
    write(&dir.join("leaf.key"), key.as_bytes())?;
    docroot(&dir.join("www"))?;

    let keys = ["H2", "H1", "TLS12", "TLS13", "GOAWAY", "APACHE"];
    let mut picked = free_ports(keys.len() + 1);
    let dns_port = picked.pop().expect("one port per server and one for DNS");
    let ports: HashMap<&str, u16> = keys.into_iter().zip(picked).collect();
    let mut vars: HashMap<&str, String> = ports.iter().map(|(k, v)| (*k, v.to_string())).collect();
    vars.insert("DIR", dir.display().to_string());
    vars.insert("DNS", dns_port.to_string());
    // Apache, started as root, hands its workers to an unprivileged user.
    vars.insert("USER", "www-data".into());
    vars.insert("GROUP", "www-data".into());
    let many: Vec<String> = (0..120)
        .map(|i| format!("    local-data: \"many.zone.example. 300 IN A 93.184.217.{i}\""))
        .collect();
    vars.insert("MANY", many.join("\n"));
    let conf = Path::new(env!("CARGO_MANIFEST_DIR")).join("interop");
    let read = |f: &str| std::fs::read_to_string(conf.join(f)).map_err(|e| format!("{f}: {e}"));
    write(
        &dir.join("nginx.conf"),
        render(&read("nginx.conf")?, &vars).as_bytes(),
    )?;
    write(
        &dir.join("apache2.conf"),
        render(&read("apache2.conf")?, &vars).as_bytes(),
    )?;
    write(
        &dir.join("unbound.conf"),
        render(&read("unbound.conf")?, &vars).as_bytes(),
    )?;
    // Apache's workers read the tree as www-data.
    let _ = Command::new("chmod")
        .args(["-R", "a+rX", &dir.display().to_string()])
        .status();

    let spawn = |name: &'static str, bin: &Path, args: &[&str]| -> Result<Server, String> {
        let child = Command::new(bin)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("{name}: {e}"))?;
        Ok(Server { name, child })
    };
    let d = |f: &str| dir.join(f).display().to_string();
    let mut servers = vec![
        spawn("nginx", &nginx, &["-p", &d(""), "-c", &d("nginx.conf")])?,
        spawn(
            "apache2",
            &apache,
            &["-f", &d("apache2.conf"), "-DFOREGROUND"],
        )?,
        spawn("unbound", &unbound, &["-d", "-c", &d("unbound.conf")])?,
    ];
    wait_for(ports["H2"], false, &mut servers[0])?;
    wait_for(ports["APACHE"], false, &mut servers[1])?;
    wait_for(dns_port, true, &mut servers[2])?;

    // Public addresses for the names, and where each is really dialled.
    let public = |last: u8| IpAddr::from([93, 184, 216, last]);
    let by_name: [(&str, u8, &str); 6] = [
        ("h2.example", 10, "H2"),
        ("h1.example", 11, "H1"),
        ("tls12.example", 12, "TLS12"),
        ("tls13.example", 13, "TLS13"),
        ("goaway.example", 14, "GOAWAY"),
        ("apache.example", 20, "APACHE"),
    ];
    let mut table: HashMap<String, Vec<IpAddr>> = HashMap::new();
    let mut map = Vec::new();
    for (name, last, port) in by_name {
        table.insert(name.to_string(), vec![public(last)]);
        map.push((
            SocketAddr::new(public(last), 443),
            SocketAddr::from(([127, 0, 0, 1], ports[port])),
        ));
    }
    let h2 = SocketAddr::from(([127, 0, 0, 1], ports["H2"]));
    map.push(("[2606:2800:220:1::10]:443".parse().expect("an address"), h2));
    for i in 0..120u8 {
        map.push((SocketAddr::new(IpAddr::from([93, 184, 217, i]), 443), h2));
    }
    let mut roots = TlsSettings::default();
    roots
        .add_pem_roots(ca.root_pem().as_bytes())
        .map_err(|e| e.to_string())?;
    let fetcher = |resolver: Arc<dyn Resolve>| {
        Fetcher::builder()
            .policy(Policy::default())
            .resolver(resolver)
            .dialer(Arc::new(RemappedDial::new(map.clone(), TcpDial)))
            .tls(roots.clone())
            .build()
    };
    let http = fetcher(Arc::new(StaticResolve::new(table.clone()))).map_err(|e| e.to_string())?;
    let dns = fetcher(Arc::new(
        HickoryResolve::server(SocketAddr::from(([127, 0, 0, 1], dns_port)))
            .map_err(|e| e.to_string())?,
    ))
    .map_err(|e| e.to_string())?;

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut counts: Vec<(&str, usize, usize)> = Vec::new();
    let mut failed = 0;
    let mut record = |group: &'static str, ok: bool| {
        match counts.iter_mut().find(|c| c.0 == group) {
            Some(c) => {
                c.1 += 1;
                c.2 += usize::from(!ok);
            }
            None => counts.push((group, 1, usize::from(!ok))),
        }
        if !ok {
            failed += 1;
        }
    };
    for (fetcher, cases) in [(&http, http_cases()), (&dns, dns_cases())] {
        for c in cases {
            let (o, a) = rt.block_on(fetcher.call_audited(&json!({ "url": c.url })));
            let verdict = if o.id != c.id {
                Err(format!(
                    "got {} ({}), want {}",
                    o.id,
                    o.text.chars().take(160).collect::<String>(),
                    c.id
                ))
            } else {
                c.check.as_ref().map_or(Ok(()), |f| f(&o, &a.to_json()))
            };
            match &verdict {
                Ok(()) => println!("{}/{} ... ok", c.group, c.name),
                Err(why) => println!("{}/{} ... FAILED: {why}", c.group, c.name),
            }
            record(c.group, verdict.is_ok());
        }
    }
    // The GOAWAY race: every fetch must come back whole.
    let mut goaway_failures = Vec::new();
    let mut retried = 0;
    for _ in 0..GOAWAY_RUNS {
        let (o, a) = rt.block_on(http.call_audited(&json!({"url": "https://goaway.example/"})));
        let a = a.to_json();
        retried += usize::from(hops_of(&a).iter().any(|h| h["retry"] == true));
        if o.id != "fetch.ok" || !o.text.contains("INDEX") {
            goaway_failures.push(o.text.chars().take(120).collect::<String>());
        } else if hops_of(&a).iter().any(|h| h["tls"]["alpn"] != "h2") {
            goaway_failures.push("not h2".into());
        }
    }
    println!(
        "goaway/{GOAWAY_RUNS} fetches from nginx with keepalive_requests 1, {retried} retried ... {}",
        if goaway_failures.is_empty() { "ok".to_string() } else { format!("FAILED: {} failed: {:?}", goaway_failures.len(), &goaway_failures[..goaway_failures.len().min(3)]) }
    );
    record("goaway", goaway_failures.is_empty());

    // Connection reuse against real servers: 10 fetches in a row on one
    // fresh Fetcher take one connection (every hop still resolved and
    // vetted); a server that closes after each response is never reused.
    for (name, url, want_reused) in [
        ("nginx h2", "https://h2.example/", 9),
        ("nginx HTTP/1.1", "https://h1.example/", 9),
        ("Apache httpd", "https://apache.example/", 9),
        ("nginx keepalive_requests 1", "https://goaway.example/", 0),
    ] {
        let verdict = (|| {
            let f =
                fetcher(Arc::new(StaticResolve::new(table.clone()))).map_err(|e| e.to_string())?;
            let (mut reused, mut dials) = (0, 0);
            for _ in 0..10 {
                let (o, a) = rt.block_on(f.call_audited(&json!({ "url": url })));
                if o.id != "fetch.ok" {
                    return Err(format!(
                        "{}: {}",
                        o.id,
                        o.text.chars().take(120).collect::<String>()
                    ));
                }
                let (r, d) = reused_and_dials(&a.to_json());
                reused += r;
                dials += d;
            }
            if reused != want_reused || dials != 10 - want_reused {
                return Err(format!(
                    "{reused} reused, {dials} dials; want {want_reused} reused"
                ));
            }
            Ok(())
        })();
        match &verdict {
            Ok(()) => {
                println!("reuse/{name}: 10 fetches, {want_reused} on a kept connection ... ok")
            }
            Err(why) => println!("reuse/{name} ... FAILED: {why}"),
        }
        record("reuse", verdict.is_ok());
    }

    // h2 streams shared against a real server: after one fetch, 64 at
    // once all take streams of its connection (nginx allows 128); and
    // against a server that sends GOAWAY after every stream, 32 at once
    // all come back whole (a refused stream retires the connection and
    // the fetch dials afresh).
    for (name, url, shared) in [
        (
            "nginx h2: 64 at once after one",
            "https://h2.example/",
            true,
        ),
        (
            "nginx keepalive_requests 1: 32 at once",
            "https://goaway.example/",
            false,
        ),
    ] {
        let width = if shared { 64 } else { 32 };
        let verdict = (|| {
            let f =
                fetcher(Arc::new(StaticResolve::new(table.clone()))).map_err(|e| e.to_string())?;
            let results = rt.block_on(async {
                let _ = f.call_audited(&json!({ "url": url })).await;
                let tasks: Vec<_> = (0..width)
                    .map(|_| {
                        let f = f.clone();
                        tokio::spawn(async move { f.call_audited(&json!({ "url": url })).await })
                    })
                    .collect();
                let mut out = Vec::new();
                for t in tasks {
                    out.push(t.await.map_err(|e| e.to_string())?);
                }
                Ok::<_, String>(out)
            })?;
            let (mut reused, mut dials) = (0, 0);
            for (o, a) in &results {
                if o.id != "fetch.ok" {
                    return Err(format!(
                        "{}: {}",
                        o.id,
                        o.text.chars().take(120).collect::<String>()
                    ));
                }
                let (r, d) = reused_and_dials(&a.to_json());
                reused += r;
                dials += d;
            }
            if shared && (reused != width || dials != 0) {
                return Err(format!("{reused} reused, {dials} dials; want all shared"));
            }
            Ok(format!("{reused} on a shared connection, {dials} dials"))
        })();
        match &verdict {
            Ok(how) => println!("shared/{name}: {width} fetches whole, {how} ... ok"),
            Err(why) => println!("shared/{name} ... FAILED: {why}"),
        }
        record("shared", verdict.is_ok());
    }

    drop(servers);
    drop(cleanup);
    println!();
    for (group, n, bad) in &counts {
        println!("{group:<10} {n:>3} cases, {bad} failed");
    }
    let total: usize = counts.iter().map(|c| c.1).sum();
    println!("{} passed, {failed} failed", total - failed);
    Ok(failed)
}

/// Removes the temporary tree.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ports handed to the servers are distinct: each is held until
    /// all are picked (one released at once often comes back within a
    /// few hundred binds).
    #[test]
    fn free_ports_are_distinct() {
        let ports = free_ports(256);
        let distinct: std::collections::HashSet<_> = ports.iter().collect();
        assert_eq!(distinct.len(), ports.len());
    }
}
