//! Hostile servers on 127.0.0.1 for the attack matrix: each connection
//! plays one [`Script`] — silence, a stalled or bad TLS handshake, an
//! HTTP/1.1 answer written step by step (dripped, endless, lying), or raw
//! HTTP/2 frames (floods, resets, window overflow). Servers stop when
//! dropped: the runtime and every connection task end with them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::ca::{CertKind, TestCa};

/// One piece of an answer.
#[derive(Clone, Debug)]
pub enum Step {
    /// Write these bytes.
    Write(Vec<u8>),
    /// Write these bytes one at a time, pausing between them.
    Drip(Vec<u8>, Duration),
    /// Write this chunk again and again until the client goes away.
    Forever(Vec<u8>),
    /// Wait.
    Sleep(Duration),
    /// End the connection cleanly (TLS close_notify, then FIN) without
    /// answering: what a server does to a kept-alive connection it has
    /// just timed out.
    Close,
}

/// What the server makes the request head into (for answers that depend on
/// the request, such as a redirect chain across hosts).
pub type Answer = Arc<dyn Fn(&str) -> Vec<Step> + Send + Sync>;

/// What every connection does.
#[derive(Clone)]
pub enum Script {
    /// Accept the TCP connection, then say nothing.
    Silent,
    /// Read the TLS ClientHello, then say nothing.
    TlsStall,
    /// TLS (ALPN http/1.1) with this certificate, then per request head
    /// (keep-alive) the answer's steps.
    Http(CertKind, Answer),
    /// TLS with ALPN h2: read the client preface, send our SETTINGS, then
    /// these steps (raw frames, see [`h2_frame`]).
    H2(Vec<Step>),
}

/// One raw HTTP/2 frame.
pub fn h2_frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = payload.len() as u32;
    let mut f = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags];
    f.extend_from_slice(&(stream & 0x7fff_ffff).to_be_bytes());
    f.extend_from_slice(payload);
    f
}

/// An HPACK block for `:status: 200` and `content-type: text/plain`
/// (static-table references, no Huffman).
pub fn h2_ok_headers() -> Vec<u8> {
    let mut b = vec![0x88]; // :status 200, indexed
    b.extend_from_slice(&[0x0f, 0x10, 10]); // content-type, literal value
    b.extend_from_slice(b"text/plain");
    b
}

/// A running hostile server.
pub struct HostileServer {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Connections accepted so far.
    pub connections: Arc<AtomicUsize>,
    /// Connections that have ended (the client closed it, or the script
    /// did): a test of cancellation watches this.
    pub ended: Arc<AtomicUsize>,
    rt: Option<tokio::runtime::Runtime>,
}

impl Drop for HostileServer {
    fn drop(&mut self) {
        // Ends every connection task now, not at some later runtime drop.
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

async fn play<S: AsyncWrite + Unpin>(s: &mut S, steps: &[Step]) -> std::io::Result<()> {
    for step in steps {
        match step {
            Step::Write(b) => s.write_all(b).await?,
            Step::Drip(b, pause) => {
                for byte in b {
                    s.write_all(&[*byte]).await?;
                    s.flush().await?;
                    tokio::time::sleep(*pause).await;
                }
            }
            Step::Forever(chunk) => loop {
                s.write_all(chunk).await?;
            },
            Step::Sleep(d) => tokio::time::sleep(*d).await,
            Step::Close => {
                s.shutdown().await?;
                return Err(std::io::Error::other("closed by the script"));
            }
        }
        s.flush().await?;
    }
    Ok(())
}

/// Reads up to the end of a request head; `None` when the client closed.
async fn read_head<S: AsyncRead + Unpin>(s: &mut S, pending: &mut Vec<u8>) -> Option<String> {
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
            let head: Vec<u8> = pending.drain(..end + 4).collect();
            return Some(String::from_utf8_lossy(&head).into_owned());
        }
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => pending.extend_from_slice(&buf[..n]),
        }
    }
}

impl HostileServer {
    /// Starts a server for `names` playing `script` on every connection.
    pub fn start(ca: &TestCa, names: &[&str], script: Script) -> HostileServer {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let acceptor = |kind: CertKind, alpn: &[u8]| {
            let cfg = ca
                .server_config(&names, kind, &[alpn])
                .expect("a server configuration");
            tokio_rustls::TlsAcceptor::from(Arc::new(cfg))
        };
        let tls = match &script {
            Script::Http(kind, _) => Some(acceptor(*kind, b"http/1.1")),
            Script::H2(_) => Some(acceptor(CertKind::Valid, b"h2")),
            _ => None,
        };
        let (rt, std_listener, port) = crate::loopback::background_listener();
        let connections = Arc::new(AtomicUsize::new(0));
        let count = connections.clone();
        let ended = Arc::new(AtomicUsize::new(0));
        let ends = ended.clone();
        rt.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
            while let Ok((mut tcp, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let (script, tls) = (script.clone(), tls.clone());
                let ends = ends.clone();
                tokio::spawn(async move {
                    // Counted when this task ends, however it ends.
                    struct End(Arc<AtomicUsize>);
                    impl Drop for End {
                        fn drop(&mut self) {
                            self.0.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    let _end = End(ends);
                    match (script, tls) {
                        (Script::Silent, _) => {
                            let mut sink = [0u8; 4096];
                            while matches!(tcp.read(&mut sink).await, Ok(n) if n > 0) {}
                        }
                        (Script::TlsStall, _) => {
                            let mut sink = [0u8; 4096];
                            while matches!(tcp.read(&mut sink).await, Ok(n) if n > 0) {}
                        }
                        (Script::Http(_, answer), Some(acceptor)) => {
                            let Ok(mut s) = acceptor.accept(tcp).await else {
                                return;
                            };
                            let mut pending = Vec::new();
                            while let Some(head) = read_head(&mut s, &mut pending).await {
                                if play(&mut s, &answer(&head)).await.is_err() {
                                    return;
                                }
                            }
                        }
                        (Script::H2(steps), Some(acceptor)) => {
                            let Ok(mut s) = acceptor.accept(tcp).await else {
                                return;
                            };
                            let mut preface = [0u8; 24];
                            if s.read_exact(&mut preface).await.is_err() {
                                return;
                            }
                            let settings = h2_frame(4, 0, 0, &[]);
                            if s.write_all(&settings).await.is_err() {
                                return;
                            }
                            // Keep reading (and dropping) the client's frames.
                            let (mut r, mut w) = tokio::io::split(s);
                            let reader = tokio::spawn(async move {
                                let mut sink = [0u8; 16384];
                                while matches!(r.read(&mut sink).await, Ok(n) if n > 0) {}
                            });
                            let _ = play(&mut w, &steps).await;
                            let _ = reader.await;
                        }
                        _ => {}
                    }
                });
            }
        });
        HostileServer {
            port,
            connections,
            ended,
            rt: Some(rt),
        }
    }
}
