//! The simulated network: a Resolve that answers from the vector, a Dial
//! that hands back in-memory streams to scripted servers and records every
//! dial, and the servers themselves (HTTP/1.1 written byte by byte, so they
//! can lie; h2 through the `h2` crate).

use std::collections::HashMap;
use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use webgate::net::{BoxFuture, Dial, Io, LookupFailed, Resolve};
use webgate::policy::VettedAddr;

use crate::ca::{CertKind, TestCa};
use crate::vector::{Answer, Response, Server};

/// Answers lookups from the vector: one answer per lookup, the last repeats.
#[derive(Debug, Default)]
pub struct SimResolve {
    answers: Mutex<HashMap<String, (Vec<Answer>, usize)>>,
}

impl SimResolve {
    /// From the vector's `dns` table.
    pub fn new(dns: &std::collections::BTreeMap<String, Vec<Answer>>) -> Self {
        let answers = dns
            .iter()
            .map(|(h, a)| (h.to_ascii_lowercase(), (a.clone(), 0)))
            .collect();
        SimResolve {
            answers: Mutex::new(answers),
        }
    }
}

impl Resolve for SimResolve {
    fn resolve<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, LookupFailed>> {
        let answer = {
            let mut map = self.answers.lock().unwrap_or_else(|e| e.into_inner());
            match map.get_mut(host) {
                Some((list, i)) if !list.is_empty() => {
                    let a = list[(*i).min(list.len() - 1)].clone();
                    *i += 1;
                    Some(a)
                }
                _ => None,
            }
        };
        Box::pin(async move {
            match answer {
                None => Err(LookupFailed::NoSuchName),
                Some(Answer::Addresses(list)) => list
                    .iter()
                    .map(|a| a.parse::<IpAddr>().map_err(|_| LookupFailed::Other))
                    .collect(),
                Some(Answer::Special(s)) if s == "hang" => std::future::pending().await,
                Some(Answer::Special(s)) if s == "nxdomain" => Err(LookupFailed::NoSuchName),
                Some(Answer::Special(s)) if s == "servfail" => Err(LookupFailed::ServerFailure),
                Some(Answer::Special(_)) => Err(LookupFailed::Other),
            }
        })
    }
}

/// A request head as recorded: `(name, value)` pairs, the request line
/// under `:request`.
pub type RequestHead = Vec<(String, String)>;

/// One scripted server and what it saw.
pub struct ServerState {
    spec: Server,
    names: Vec<String>,
    tls: Arc<rustls::ServerConfig>,
    next: AtomicUsize,
    /// The request heads it received, header names lower-case, in order,
    /// each with its place among every server's requests.
    pub requests: Mutex<Vec<(usize, RequestHead)>>,
    /// The arrival counter all servers of a vector share.
    arrivals: Arc<AtomicUsize>,
    /// h2 connections accepted so far (a request's `:conn` is its
    /// connection's number, from 0).
    h2_connections: AtomicUsize,
}

/// Dials scripted servers over in-memory streams and records every dial.
pub struct SimDial {
    servers: HashMap<SocketAddr, Arc<ServerState>>,
    /// Every dial, as `ip:port` text, in order.
    pub dials: Arc<Mutex<Vec<String>>>,
}

impl SimDial {
    /// Builds the servers of a vector; certificates come from `ca`.
    pub fn new(
        specs: &[Server],
        dns: &std::collections::BTreeMap<String, Vec<Answer>>,
        ca: &TestCa,
    ) -> Result<Self, String> {
        let mut servers = HashMap::new();
        let arrivals = Arc::new(AtomicUsize::new(0));
        for spec in specs {
            let addr: SocketAddr = spec
                .addr
                .parse()
                .map_err(|_| format!("bad server addr {:?}", spec.addr))?;
            let names = if spec.names.is_empty() {
                // Default: every host whose answers include this address.
                dns.iter()
                    .filter(|(_, answers)| {
                        answers.iter().any(|a| matches!(a, Answer::Addresses(l) if l.iter().any(|x| x.parse::<IpAddr>().ok() == Some(addr.ip()))))
                    })
                    .map(|(h, _)| h.clone())
                    .collect()
            } else {
                spec.names.clone()
            };
            let kind = match spec.cert.as_str() {
                "valid" => CertKind::Valid,
                "wrong-name" => CertKind::WrongName,
                "expired" => CertKind::Expired,
                "self-signed" => CertKind::SelfSigned,
                other => return Err(format!("unknown cert kind {other:?}")),
            };
            let names = if names.is_empty() {
                vec!["unnamed.invalid".to_string()]
            } else {
                names
            };
            let alpn: &[&[u8]] = match spec.alpn.as_str() {
                "h2" => &[b"h2"],
                "http/1.1" => &[b"http/1.1"],
                "none" => &[],
                other => return Err(format!("unknown alpn {other:?}")),
            };
            let cfg = ca.server_config(&names, kind, alpn)?;
            servers.insert(
                addr,
                Arc::new(ServerState {
                    spec: spec.clone(),
                    names,
                    tls: Arc::new(cfg),
                    next: AtomicUsize::new(0),
                    requests: Mutex::new(Vec::new()),
                    arrivals: Arc::clone(&arrivals),
                    h2_connections: AtomicUsize::new(0),
                }),
            );
        }
        Ok(SimDial {
            servers,
            dials: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// The request heads every server saw, in the order they arrived.
    pub fn requests(&self) -> Vec<Vec<(String, String)>> {
        let mut all = Vec::new();
        for s in self.servers.values() {
            all.extend(
                s.requests
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .iter()
                    .cloned(),
            );
        }
        all.sort_by_key(|(place, _)| *place);
        all.into_iter().map(|(_, head)| head).collect()
    }
}

/// The search gateway's seam: by host name and port.
impl webgate::internals::search::Connect for SimDial {
    fn connect<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Box<dyn Io>>> {
        self.dials
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(format!("{host}:{port}"));
        let server = self
            .servers
            .iter()
            .find(|(a, s)| a.port() == port && s.names.iter().any(|n| n == host))
            .map(|(_, s)| s.clone());
        Box::pin(async move {
            let Some(server) = server else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionRefused,
                    "no gateway there",
                ));
            };
            open(server).await
        })
    }
}

async fn open(server: Arc<ServerState>) -> std::io::Result<Box<dyn Io>> {
    match server.spec.connect.as_str() {
        "refuse" => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                "refused",
            ))
        }
        "hang" => std::future::pending::<()>().await,
        _ => {}
    }
    let (client, far) = tokio::io::duplex(64 * 1024);
    tokio::spawn(serve(server, far));
    Ok(Box::new(client) as Box<dyn Io>)
}

impl Dial for SimDial {
    fn dial(&self, addr: VettedAddr, port: u16) -> BoxFuture<'_, std::io::Result<Box<dyn Io>>> {
        let target = SocketAddr::new(addr.ip(), port);
        self.dials
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(target.to_string());
        let server = self.servers.get(&target).cloned();
        Box::pin(async move {
            let refused = || {
                std::io::Error::new(
                    std::io::ErrorKind::ConnectionRefused,
                    "nothing listens there",
                )
            };
            let Some(server) = server else {
                return Err(refused());
            };
            match server.spec.connect.as_str() {
                "refuse" => return Err(refused()),
                "hang" => std::future::pending::<()>().await,
                _ => {}
            }
            let (client, far) = tokio::io::duplex(64 * 1024);
            tokio::spawn(serve(server, far));
            Ok(Box::new(client) as Box<dyn Io>)
        })
    }
}

async fn serve(server: Arc<ServerState>, stream: tokio::io::DuplexStream) {
    match server.spec.tls.as_str() {
        "stall" => {
            // Accept the bytes, never answer: the handshake stalls.
            let _keep = stream;
            std::future::pending::<()>().await;
        }
        "plain" => {
            let mut s = stream;
            let _ = s
                .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                .await;
        }
        // Plain HTTP, for a gateway at an http:// endpoint.
        "off" => serve_h1(server, stream).await,
        _ => {
            let acceptor = tokio_rustls::TlsAcceptor::from(server.tls.clone());
            let Ok(tls) = acceptor.accept(stream).await else {
                return;
            };
            if server.spec.alpn == "h2" {
                serve_h2(server, tls).await;
            } else {
                serve_h1(server, tls).await;
            }
        }
    }
}

/// Records a request head and picks the scripted response for it.
fn take_request(server: &ServerState, head: Vec<(String, String)>) -> Response {
    server
        .requests
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((server.arrivals.fetch_add(1, Ordering::SeqCst), head));
    next_response(server)
}

fn next_response(server: &ServerState) -> Response {
    let i = server.next.fetch_add(1, Ordering::SeqCst);
    let list = &server.spec.response;
    if list.is_empty() {
        return Response {
            status: 500,
            ..Response::default()
        };
    }
    list[i.min(list.len() - 1)].clone()
}

/// The response body after the vector's encodings.
pub fn body_bytes(r: &Response) -> Vec<u8> {
    let mut body: Vec<u8> = if let Some(b) = &r.body {
        b.as_bytes().to_vec()
    } else if let Some(b) = &r.body_b64 {
        base64::engine::general_purpose::STANDARD
            .decode(b)
            .unwrap_or_default()
    } else if let Some(rep) = &r.body_repeat {
        format!("{}{}{}", rep.head, rep.text.repeat(rep.times), rep.tail).into_bytes()
    } else {
        Vec::new()
    };
    for coding in &r.encode {
        body = encode(coding, &body);
    }
    body
}

fn encode(coding: &str, data: &[u8]) -> Vec<u8> {
    match coding {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            let _ = e.write_all(data);
            e.finish().unwrap_or_default()
        }
        // A gzip body of two members (RFC 1952 §2.2): the first half of the
        // data, then the rest.
        "gzip-members" => {
            let half = data.len() / 2;
            [encode("gzip", &data[..half]), encode("gzip", &data[half..])].concat()
        }
        "deflate" => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            let _ = e.write_all(data);
            e.finish().unwrap_or_default()
        }
        "deflate-raw" => {
            let mut e =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
            let _ = e.write_all(data);
            e.finish().unwrap_or_default()
        }
        "br" => {
            let mut out = Vec::new();
            {
                let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
                let _ = w.write_all(data);
            }
            out
        }
        "zstd" => zstd::stream::encode_all(data, 3).unwrap_or_default(),
        // A deliberately broken stream: the gzip magic, then garbage.
        "corrupt" => [
            b"\x1f\x8b\x08\x00\x00\x00\x00\x00".as_slice(),
            b"not deflate at all",
        ]
        .concat(),
        _ => data.to_vec(),
    }
}

async fn read_head<S: AsyncRead + Unpin>(s: &mut S) -> Option<Vec<(String, String)>> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        if buf.len() > 64 * 1024 || s.read(&mut byte).await.ok()? == 0 {
            return None;
        }
        buf.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&buf);
    let mut lines = text.split("\r\n");
    let request_line = lines.next()?.to_string();
    let mut out = vec![(":request".to_string(), request_line)];
    for l in lines.filter(|l| !l.is_empty()) {
        let (k, v) = l.split_once(':')?;
        out.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    // A request body (the gateway's POST) is read by its length and kept
    // under the pseudo-name `:body`.
    let len = out
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    if len > 0 {
        let mut body = vec![0u8; len.min(1 << 20)];
        s.read_exact(&mut body).await.ok()?;
        out.push((
            ":body".to_string(),
            String::from_utf8_lossy(&body).into_owned(),
        ));
    }
    Some(out)
}

async fn sleep_ms(ms: u64) {
    if ms > 0 {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

async fn serve_h1<S: AsyncRead + AsyncWrite + Unpin>(server: Arc<ServerState>, mut s: S) {
    // `keep_alive = N`: N responses on one connection, then the next
    // request's head is read and the connection closed unanswered (a
    // server whose keep-alive ran out). Absent: one response, then the
    // write side is shut, as before.
    let kept = server.spec.keep_alive;
    let mut served = 0usize;
    loop {
        let Some(head) = read_head(&mut s).await else {
            return;
        };
        if kept > 0 && served == kept {
            return;
        }
        served += 1;
        let r = take_request(&server, head);
        match respond_h1(&mut s, &r).await {
            Next::More if kept > 0 => {}
            Next::More | Next::Finish => break,
            Next::Abandon => return,
        }
    }
    let _ = s.shutdown().await;
    // Hold the stream until the client is done reading.
    let mut sink = [0u8; 1024];
    while matches!(s.read(&mut sink).await, Ok(n) if n > 0) {}
}

/// What the connection does after one response.
enum Next {
    /// Read the next request.
    More,
    /// Shut the write side and hold the stream until the client is done.
    Finish,
    /// Drop the stream as it is (raw answers, abrupt ends, write errors).
    Abandon,
}

/// Writes one scripted response.
async fn respond_h1<S: AsyncRead + AsyncWrite + Unpin>(s: &mut S, r: &Response) -> Next {
    sleep_ms(r.delay_head_ms).await;
    if let Some(raw) = &r.raw {
        let _ = s.write_all(raw.as_bytes()).await;
        let _ = s.shutdown().await;
        return Next::Abandon;
    }
    let body = body_bytes(r);
    let framing = r.framing.clone().unwrap_or_else(|| "length".into());
    let reason = http::StatusCode::from_u16(r.status)
        .ok()
        .and_then(|c| c.canonical_reason())
        .unwrap_or("Whatever");
    let mut head = format!("HTTP/1.1 {} {reason}\r\n", r.status);
    for (k, v) in &r.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let has_length = r
        .headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-length"));
    match framing.as_str() {
        "chunked" => head.push_str("Transfer-Encoding: chunked\r\n"),
        "close" => head.push_str("Connection: close\r\n"),
        _ if !has_length => head.push_str(&format!(
            "Content-Length: {}\r\n",
            r.content_length.unwrap_or(body.len() as u64)
        )),
        _ => {}
    }
    head.push_str("\r\n");
    if s.write_all(head.as_bytes()).await.is_err() {
        return Next::Abandon;
    }
    let chunk = r.chunk_size.unwrap_or(16 * 1024).max(1);
    let limit = r.drop_after.unwrap_or(usize::MAX);
    let mut sent = 0usize;
    for piece in body.chunks(chunk) {
        sleep_ms(r.delay_chunk_ms).await;
        let piece = &piece[..piece.len().min(limit - sent)];
        let ok = if framing == "chunked" {
            let mut c = format!("{:x}\r\n", piece.len()).into_bytes();
            c.extend_from_slice(piece);
            c.extend_from_slice(b"\r\n");
            s.write_all(&c).await
        } else {
            s.write_all(piece).await
        };
        if ok.is_err() {
            return Next::Abandon;
        }
        sent += piece.len();
        if sent >= limit {
            // An abrupt end: no close_notify, no last chunk.
            let _ = s.flush().await;
            return Next::Abandon;
        }
    }
    if framing == "chunked" && s.write_all(b"0\r\n\r\n").await.is_err() {
        return Next::Abandon;
    }
    if framing == "close" || s.flush().await.is_err() {
        return Next::Finish;
    }
    Next::More
}

async fn serve_h2<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    server: Arc<ServerState>,
    s: S,
) {
    let mut builder = h2::server::Builder::new();
    if let Some(n) = server.spec.max_streams {
        builder.max_concurrent_streams(n);
    }
    let Ok(mut conn) = builder.handshake(s).await else {
        return;
    };
    let number = server.h2_connections.fetch_add(1, Ordering::SeqCst);
    let mut accepted = 0;
    while let Some(Ok((req, mut respond))) = conn.accept().await {
        accepted += 1;
        if server
            .spec
            .streams_per_connection
            .is_some_and(|n| accepted > n)
        {
            // Refused, unprocessed: the client may send it elsewhere.
            respond.send_reset(h2::Reason::REFUSED_STREAM);
            continue;
        }
        if server.spec.goaway_after == Some(accepted) {
            // GOAWAY; the streams accepted so far are still answered, and
            // `accept` goes on driving the connection until they are.
            conn.graceful_shutdown();
        }
        let target = req
            .uri()
            .path_and_query()
            .map(|p| p.to_string())
            .unwrap_or_default();
        let mut head = vec![(
            ":request".to_string(),
            format!("{} {target} HTTP/2", req.method()),
        )];
        head.push((
            ":authority".to_string(),
            req.uri()
                .authority()
                .map(|a| a.to_string())
                .unwrap_or_default(),
        ));
        head.push((":path".into(), target));
        head.push((":conn".into(), number.to_string()));
        for (k, v) in req.headers() {
            head.push((
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            ));
        }
        let r = take_request(&server, head);
        tokio::spawn(async move {
            sleep_ms(r.delay_head_ms).await;
            let body = body_bytes(&r);
            let mut b = http::Response::builder().status(r.status);
            for (k, v) in &r.headers {
                b = b.header(k.as_str(), v.as_str());
            }
            let Ok(resp) = b.body(()) else { return };
            let Ok(mut send) = respond.send_response(resp, body.is_empty()) else {
                return;
            };
            let chunk = r.chunk_size.unwrap_or(16 * 1024).max(1);
            let limit = r.drop_after.unwrap_or(usize::MAX);
            let mut sent = 0;
            let pieces: Vec<&[u8]> = body.chunks(chunk).collect();
            for (i, piece) in pieces.iter().enumerate() {
                sleep_ms(r.delay_chunk_ms).await;
                if sent + piece.len() > limit {
                    // Let what was sent reach the client first: a reset
                    // clears frames still queued, the head included.
                    sleep_ms(10).await;
                    send.send_reset(h2::Reason::INTERNAL_ERROR);
                    return;
                }
                sent += piece.len();
                send.reserve_capacity(piece.len());
                if send
                    .send_data(bytes::Bytes::copy_from_slice(piece), i + 1 == pieces.len())
                    .is_err()
                {
                    return;
                }
            }
        });
    }
}
