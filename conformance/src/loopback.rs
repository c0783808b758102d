//! A real TLS server on 127.0.0.1 for benchmarks and integration tests:
//! serves one fixed response (with any headers and a prepared body) to
//! every request, keep-alive, on a background runtime; HTTP/1.1, or h2
//! with a stream limit. It stops when the returned handle is dropped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::ca::{CertKind, TestCa};

/// A running loopback server.
pub struct LoopbackServer {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Connections accepted so far.
    pub connections: Arc<AtomicUsize>,
    /// The request targets (path and query) received, in order.
    pub paths: Arc<std::sync::Mutex<Vec<String>>>,
    _rt: tokio::runtime::Runtime,
}

/// One route of [`LoopbackServer::routed`]: a request target and the whole
/// response to it (status line, head fields, body).
#[derive(Clone, Debug)]
pub struct Route {
    /// The request target it answers, exactly (path and query).
    pub path: String,
    /// The status code.
    pub status: u16,
    /// Head fields, each ending in CRLF (`Content-Type: text/plain\r\n`).
    pub head_fields: String,
    /// The body (sent with a Content-Length).
    pub body: Vec<u8>,
}

impl LoopbackServer {
    /// Starts a server for `names`, answering `head_fields` (e.g.
    /// `Content-Type: text/plain\r\n`) and `body` with a Content-Length.
    pub fn start(ca: &TestCa, names: &[&str], head_fields: &str, body: Vec<u8>) -> LoopbackServer {
        let response = Arc::new(whole_response(200, head_fields, &body));
        Self::serve(ca, names, move |_| response.clone())
    }

    /// Starts a server that answers each request by its target from
    /// `routes`, and 404 (text/plain) for any other.
    pub fn routed(ca: &TestCa, names: &[&str], routes: Vec<Route>) -> LoopbackServer {
        let prepared: Vec<(String, Arc<Vec<u8>>)> = routes
            .iter()
            .map(|r| {
                let whole = whole_response(r.status, &r.head_fields, &r.body);
                (r.path.clone(), Arc::new(whole))
            })
            .collect();
        let missing = Arc::new(whole_response(
            404,
            "Content-Type: text/plain\r\n",
            b"no such route",
        ));
        Self::serve(ca, names, move |path| {
            prepared
                .iter()
                .find(|(p, _)| p == path)
                .map_or_else(|| missing.clone(), |(_, r)| r.clone())
        })
    }

    fn serve(
        ca: &TestCa,
        names: &[&str],
        response: impl Fn(&str) -> Arc<Vec<u8>> + Send + Sync + 'static,
    ) -> LoopbackServer {
        let response = Arc::new(response);
        Self::accept(ca, names, b"http/1.1", move |mut tls, seen| {
            let response = response.clone();
            async move {
                let mut buf = vec![0u8; 8192];
                let mut pending = Vec::new();
                loop {
                    // One response per request head, until the client closes.
                    while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head: Vec<u8> = pending.drain(..end + 4).collect();
                        let head = String::from_utf8_lossy(&head);
                        let path = head.split(' ').nth(1).unwrap_or("").to_string();
                        let response = response(&path);
                        seen.lock().unwrap_or_else(|e| e.into_inner()).push(path);
                        // write_all can return with the last TLS records
                        // still in rustls's buffer (the socket was full);
                        // unflushed, they wait for the next read, and a
                        // keep-alive client waits for them.
                        if tls.write_all(&response).await.is_err() || tls.flush().await.is_err() {
                            return;
                        }
                    }
                    match tls.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => pending.extend_from_slice(&buf[..n]),
                    }
                }
            }
        })
    }

    /// Starts an h2-only server for `names` (ALPN `h2`) answering every
    /// stream with 200, `content_type` and `body`; at most `max_streams`
    /// streams at once on a connection.
    pub fn start_h2(
        ca: &TestCa,
        names: &[&str],
        content_type: &str,
        body: Vec<u8>,
        max_streams: u32,
    ) -> LoopbackServer {
        let body = bytes::Bytes::from(body);
        let content_type = content_type.to_string();
        Self::accept(ca, names, b"h2", move |tls, seen| {
            let (body, content_type) = (body.clone(), content_type.clone());
            async move {
                let mut b = h2::server::Builder::new();
                b.max_concurrent_streams(max_streams);
                let Ok(mut conn) = b.handshake(tls).await else {
                    return;
                };
                while let Some(Ok((req, mut respond))) = conn.accept().await {
                    let path = req
                        .uri()
                        .path_and_query()
                        .map(|p| p.to_string())
                        .unwrap_or_default();
                    seen.lock().unwrap_or_else(|e| e.into_inner()).push(path);
                    let (body, content_type) = (body.clone(), content_type.clone());
                    tokio::spawn(async move {
                        let resp = http::Response::builder()
                            .status(200)
                            .header("content-type", content_type)
                            .header("content-length", body.len())
                            .body(())
                            .expect("a response head");
                        let Ok(mut send) = respond.send_response(resp, false) else {
                            return;
                        };
                        let _ = send.send_data(body, true);
                    });
                }
            }
        })
    }

    /// What every server here shares: a certificate for `names` offering
    /// `alpn`, a listener on a background runtime, the count of
    /// connections, and each TLS connection handed to `handle` in a task
    /// of its own, with the list of request targets to add to.
    fn accept<F, Fut>(ca: &TestCa, names: &[&str], alpn: &[u8], handle: F) -> LoopbackServer
    where
        F: Fn(tokio_rustls::server::TlsStream<tokio::net::TcpStream>, Paths) -> Fut
            + Send
            + Sync
            + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let cfg = ca
            .server_config(&names, CertKind::Valid, &[alpn])
            .expect("a server configuration");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(cfg));
        let (rt, std_listener, port) = crate::loopback::background_listener();
        let connections = Arc::new(AtomicUsize::new(0));
        let count = connections.clone();
        let paths: Paths = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = paths.clone();
        let handle = Arc::new(handle);
        rt.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
            while let Ok((tcp, _)) = listener.accept().await {
                let _ = tcp.set_nodelay(true);
                count.fetch_add(1, Ordering::SeqCst);
                let (acceptor, handle, seen) = (acceptor.clone(), handle.clone(), seen.clone());
                tokio::spawn(async move {
                    if let Ok(tls) = acceptor.accept(tcp).await {
                        handle(tls, seen).await;
                    }
                });
            }
        });
        LoopbackServer {
            port,
            connections,
            paths,
            _rt: rt,
        }
    }
}

/// The request targets a server received, in order.
type Paths = Arc<std::sync::Mutex<Vec<String>>>;

/// A response's bytes: status line, head fields, Content-Length, body.
fn whole_response(status: u16, head_fields: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "HTTP/1.1 {status} {}\r\n{head_fields}Content-Length: {}\r\n\r\n",
        if status == 200 { "OK" } else { "Other" },
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// A one-worker runtime and a non-blocking listener on 127.0.0.1 (any
/// port) for a test server to run on; the port is returned too.
pub(crate) fn background_listener() -> (tokio::runtime::Runtime, std::net::TcpListener, u16) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    (rt, listener, port)
}
