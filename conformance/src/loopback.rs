//! A real TLS server on 127.0.0.1 for benchmarks and integration tests:
//! serves one fixed response (with any headers and a prepared body) to
//! every request, keep-alive, on a background runtime. It stops when the
//! returned handle is dropped.

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
    _rt: tokio::runtime::Runtime,
}

impl LoopbackServer {
    /// Starts a server for `names`, answering `head_fields` (e.g.
    /// `Content-Type: text/plain\r\n`) and `body` with a Content-Length.
    pub fn start(ca: &TestCa, names: &[&str], head_fields: &str, body: Vec<u8>) -> LoopbackServer {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let cfg = ca
            .server_config(&names, CertKind::Valid, &[b"http/1.1"])
            .expect("a server configuration");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(cfg));
        let (rt, std_listener, port) = crate::loopback::background_listener();
        let connections = Arc::new(AtomicUsize::new(0));
        let count = connections.clone();
        let mut response = format!(
            "HTTP/1.1 200 OK\r\n{head_fields}Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        response.extend_from_slice(&body);
        let response = Arc::new(response);
        rt.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
            while let Ok((tcp, _)) = listener.accept().await {
                let _ = tcp.set_nodelay(true);
                count.fetch_add(1, Ordering::SeqCst);
                let (acceptor, response) = (acceptor.clone(), response.clone());
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let mut buf = vec![0u8; 8192];
                    let mut pending = Vec::new();
                    loop {
                        // One response per request head, until the client closes.
                        while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                            pending.drain(..end + 4);
                            // write_all can return with the last TLS
                            // records still in rustls's buffer (the socket
                            // was full); unflushed, they wait for the next
                            // read, and a keep-alive client waits for them.
                            if tls.write_all(&response).await.is_err() || tls.flush().await.is_err()
                            {
                                return;
                            }
                        }
                        match tls.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => pending.extend_from_slice(&buf[..n]),
                        }
                    }
                });
            }
        });
        LoopbackServer {
            port,
            connections,
            _rt: rt,
        }
    }
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
