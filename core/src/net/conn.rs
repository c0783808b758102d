//! One client connection: hyper's connection started over a stream
//! ([`handshake`]: HTTP/1.1, or h2 behind the gate that holds the server's
//! bytes until our request is written), where its work runs (an h2
//! connection's task, [`ConnGuard`]; an HTTP/1.1 connection's [`Driver`],
//! run by the request using it), the [`Sender`] that takes requests, and
//! [`Conn`], all of it with the socket address it was dialled to and its
//! TLS session. The exchange (`http`) and the pool of kept connections
//! (`pool`) both build on it.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::{http1, http2};
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::audit::TlsAudit;

/// What sends requests on one connection.
pub(crate) enum Sender {
    /// HTTP/1.1: one request at a time.
    H1(http1::SendRequest<Full<Bytes>>),
    /// h2: many requests at once, each on a stream of its own (a clone
    /// of the sender shares the connection).
    H2(http2::SendRequest<Full<Bytes>>),
}

impl Sender {
    /// Waits until the connection can take a request; an error when it
    /// has closed.
    pub async fn ready(&mut self) -> Result<(), hyper::Error> {
        match self {
            Sender::H1(s) => s.ready().await,
            Sender::H2(s) => s.ready().await,
        }
    }

    pub fn is_closed(&self) -> bool {
        match self {
            Sender::H1(s) => s.is_closed(),
            Sender::H2(s) => s.is_closed(),
        }
    }

    /// Sends one request and waits for its head.
    pub async fn send(
        &mut self,
        req: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, hyper::Error> {
        match self {
            Sender::H1(s) => s.send_request(req).await,
            Sender::H2(s) => s.send_request(req).await,
        }
    }
}

/// One open connection: its sender, its task or driver, the socket
/// address it was dialled to, and its TLS session as the audit shows it.
pub(crate) struct Conn {
    pub sender: Sender,
    /// Never read, only held: an h2 connection's task ends when the last
    /// handle on it is dropped (one per request on it, and the pool's).
    /// Also the connection's identity ([`Conn::same`]).
    pub task: Arc<ConnGuard>,
    /// An HTTP/1.1 connection's work, run by whoever uses it.
    pub driver: Driver,
    pub addr: SocketAddr,
    pub h2: bool,
    pub tls: TlsAudit,
}

impl Conn {
    pub fn new(
        sender: Sender,
        task: ConnGuard,
        driver: Driver,
        addr: SocketAddr,
        tls: TlsAudit,
    ) -> Conn {
        Conn {
            h2: matches!(sender, Sender::H2(_)),
            sender,
            task: Arc::new(task),
            driver,
            addr,
            tls,
        }
    }

    /// Another handle on the same h2 connection, for a request on a
    /// stream of its own; `None` for HTTP/1.1, which takes one request at
    /// a time.
    pub fn stream(&self) -> Option<Conn> {
        match &self.sender {
            Sender::H1(_) => None,
            Sender::H2(s) => Some(Conn {
                sender: Sender::H2(s.clone()),
                task: Arc::clone(&self.task),
                driver: Driver::none(),
                addr: self.addr,
                h2: true,
                tls: self.tls.clone(),
            }),
        }
    }

    /// The connection has closed (an idle HTTP/1.1 one is asked: its
    /// work runs once to see the end of its stream).
    pub fn closed(&mut self) -> bool {
        !self.driver.still_going() || self.sender.is_closed()
    }

    /// Both handles are on one connection.
    pub fn same(&self, other: &Conn) -> bool {
        Arc::ptr_eq(&self.task, &other.task)
    }

    /// Handles on this connection other than this one are held: a
    /// request is using it.
    pub fn in_use(&self) -> bool {
        Arc::strong_count(&self.task) > 1
    }
}

/// Aborts an h2 connection's task when dropped, so nothing is left
/// running once the caller is done with the response (an HTTP/1.1
/// connection has no task: its guard holds nothing).
#[derive(Debug)]
pub(crate) struct ConnGuard(Option<tokio::task::JoinHandle<()>>);

impl Drop for ConnGuard {
    fn drop(&mut self) {
        if let Some(task) = &self.0 {
            task.abort();
        }
    }
}

/// An HTTP/1.1 connection's work (hyper's connection future: writing the
/// request, reading the response into its body), run inside the future
/// of the request that uses the connection rather than in a task of its
/// own; empty for h2, and once the connection has ended.
///
/// Why: one request at a time is all an HTTP/1.1 connection carries, so
/// a task of its own only hands each response over from one thread to
/// another (a wake-up through the scheduler for the head and each piece
/// of the body). Run by the request, the socket's readiness wakes the
/// request itself. While the connection sits idle in the pool nothing
/// runs it; a server that closed it meanwhile is seen when the pool asks
/// whether it is still open ([`Conn::closed`], which runs it once), or at
/// the latest when the next request runs it to wait until it is ready
/// (`Sender::ready`), and that request takes another connection.
pub(crate) struct Driver(Option<Pin<Box<dyn Future<Output = ()> + Send>>>);

impl Driver {
    /// Nothing to run (h2, or a connection whose work ended).
    pub fn none() -> Driver {
        Driver(None)
    }

    /// Runs the work of an idle connection once, outside any request (a
    /// wake-up it asks for goes nowhere: the next request runs it again):
    /// whether it is still going. A server that closed the connection
    /// meanwhile is seen here, and the end of its stream ends the work.
    /// Work that ended before, or none here (h2's runs in its task), is
    /// not asked: its sender says whether it closed.
    fn still_going(&mut self) -> bool {
        let Some(work) = &mut self.0 else {
            return true;
        };
        let mut cx = Context::from_waker(Waker::noop());
        if work.as_mut().poll(&mut cx).is_ready() {
            self.0 = None;
            return false;
        }
        true
    }

    /// Awaits `fut` while running the connection's work beside it, in the
    /// same task: whatever `fut` waits for (a response head, a body
    /// frame, readiness) is that work's doing.
    pub fn drive<F: Future>(&mut self, fut: F) -> Driven<'_, F> {
        Driven { work: self, fut }
    }
}

pin_project_lite::pin_project! {
    /// [`Driver::drive`]'s future: `fut`, and the connection's work run
    /// each time it is polled. A struct rather than an `async fn`, which
    /// would hold `fut` twice (the argument and its pinned copy) in every
    /// request's future.
    pub(crate) struct Driven<'a, F> {
        work: &'a mut Driver,
        #[pin]
        fut: F,
    }
}

impl<F: Future> Future for Driven<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let mut this = self.project();
        if let Poll::Ready(out) = this.fut.as_mut().poll(cx) {
            return Poll::Ready(out);
        }
        if let Some(work) = &mut this.work.0 {
            if work.as_mut().poll(cx).is_ready() {
                // Ended (closed, or failed: hyper tells `fut` why).
                this.work.0 = None;
            }
        }
        // The work may have made `fut`'s answer (or queued a wake-up of
        // this task for it): asked again now, not a turn later.
        this.fut.poll(cx)
    }
}

/// Starts hyper's client connection over `io` (h2 when ALPN chose it):
/// h2 in a task of its own, which ends when the guard is dropped (its
/// streams are shared between requests); HTTP/1.1 with its work in the
/// [`Driver`] (dropping it closes the connection).
pub(crate) async fn handshake<T>(
    io: T,
    h2: bool,
) -> Result<(Sender, ConnGuard, Driver), hyper::Error>
where
    T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    if h2 {
        let io = TokioIo::new(GatedIo::new(io));
        let mut b = hyper::client::conn::http2::Builder::new(TokioExecutor::new());
        // Bounded header lists and reset streams: a hostile server cannot
        // make the client buffer without end.
        b.max_header_list_size(256 * 1024)
            .max_concurrent_reset_streams(16);
        let (sender, conn) = b.handshake(io).await?;
        let guard = ConnGuard(Some(tokio::spawn(async move {
            let _ = conn.await;
        })));
        Ok((Sender::H2(sender), guard, Driver::none()))
    } else {
        let io = TokioIo::new(io);
        let mut b = hyper::client::conn::http1::Builder::new();
        b.max_buf_size(256 * 1024);
        let (sender, conn) = b.handshake(io).await?;
        let work = Driver(Some(Box::pin(async move {
            let _ = conn.await;
        })));
        Ok((Sender::H1(sender), ConnGuard(None), work))
    }
}

/// What [`GatedIo`] knows of the frames written so far.
#[derive(Default)]
struct Gate {
    /// Bytes of the client preface still to pass.
    preface_left: usize,
    /// The frame header being read, and how much of it is here.
    header: [u8; 9],
    header_len: usize,
    /// Bytes of the current frame's payload still to pass.
    payload_left: usize,
    /// A HEADERS frame (our request) has been written: reads may flow.
    open: bool,
    reader: Option<Waker>,
}

impl Gate {
    /// Follows the frames in `bytes` (what was just written).
    fn saw(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && !self.open {
            if self.preface_left > 0 {
                let n = self.preface_left.min(bytes.len());
                self.preface_left -= n;
                bytes = &bytes[n..];
            } else if self.payload_left > 0 {
                let n = self.payload_left.min(bytes.len());
                self.payload_left -= n;
                bytes = &bytes[n..];
            } else {
                let n = (9 - self.header_len).min(bytes.len());
                self.header[self.header_len..self.header_len + n].copy_from_slice(&bytes[..n]);
                self.header_len += n;
                bytes = &bytes[n..];
                if self.header_len == 9 {
                    let h = self.header;
                    self.payload_left =
                        (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2]);
                    self.header_len = 0;
                    // Frame type 1 is HEADERS.
                    self.open = h[3] == 1;
                }
            }
        }
        if self.open {
            if let Some(w) = self.reader.take() {
                w.wake();
            }
        }
    }
}

/// An h2 connection's stream that reads nothing from the server until the
/// request's HEADERS frame has been written.
///
/// Why: hyper's h2 client task stops taking requests as soon as it sees a
/// GOAWAY, and a request it had not yet taken fails with "dispatch task is
/// gone" — even when the GOAWAY's last stream id says the server will
/// answer it (a server draining, or one allowing a single request per
/// connection, sends GOAWAY(NO_ERROR, 1) then the whole response). Holding
/// the server's bytes until our one request is on the wire closes that
/// window from outside hyper: the request is stream 1 before the GOAWAY is
/// read, and h2 delivers its response. Writes are never held.
struct GatedIo<T> {
    inner: T,
    gate: Arc<Mutex<Gate>>,
}

impl<T> GatedIo<T> {
    fn new(inner: T) -> Self {
        GatedIo {
            inner,
            gate: Arc::new(Mutex::new(Gate {
                preface_left: 24,
                ..Gate::default()
            })),
        }
    }

    fn gate(&self) -> std::sync::MutexGuard<'_, Gate> {
        // A poisoned gate is still a gate: its state is plain data.
        self.gate.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for GatedIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        {
            let mut g = self.gate();
            if !g.open {
                g.reader = Some(cx.waker().clone());
                return Poll::Pending;
            }
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for GatedIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &r {
            self.gate().saw(&buf[..*n]);
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(mut n)) = &r {
            let mut g = self.gate();
            for b in bufs {
                let take = n.min(b.len());
                g.saw(&b[..take]);
                n -= take;
                if n == 0 {
                    break;
                }
            }
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::{handshake, Gate};
    use std::future::Future;
    use std::sync::Arc;
    use std::task::{Context, Poll, Waker};

    /// Runs `fut` to its end on this thread with no runtime at all:
    /// anything in it that spawned a task (`tokio::spawn`) would panic.
    fn block_on<F: Future>(fut: F) -> F::Output {
        struct Unpark(std::thread::Thread);
        impl std::task::Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut fut = std::pin::pin!(fut);
        loop {
            if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
                return out;
            }
            std::thread::park();
        }
    }

    /// An HTTP/1.1 connection's work runs in the request that uses it:
    /// two requests, one after the other, on one connection that nothing
    /// ran while it was idle between them; then the server goes, and the
    /// next wait for readiness sees it closed.
    #[test]
    fn an_http1_connection_runs_inside_its_requests() {
        use http_body_util::BodyExt;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let (client, mut server) = tokio::io::duplex(4096);
        let server = async move {
            let mut got = Vec::new();
            let mut buf = [0u8; 1024];
            for _ in 0..2 {
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = server.read(&mut buf).await.expect("read");
                    assert!(n > 0, "the client closed early");
                    got.extend_from_slice(&buf[..n]);
                }
                got.clear();
                server
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
                    .await
                    .expect("write");
            }
            // Dropped here: the connection ends.
        };
        let client = async move {
            let (mut sender, _guard, mut driver) =
                handshake(client, false).await.expect("handshake");
            let mut bodies = Vec::new();
            for _ in 0..2 {
                driver.drive(sender.ready()).await.expect("ready");
                let req = hyper::Request::builder()
                    .uri("/")
                    .header("host", "a.example")
                    .body(http_body_util::Full::new(hyper::body::Bytes::new()))
                    .expect("request");
                let resp = driver.drive(sender.send(req)).await.expect("head");
                let body = driver
                    .drive(resp.into_body().collect())
                    .await
                    .expect("body");
                bodies.push(body.to_bytes());
            }
            (sender, driver, bodies)
        };
        let (mut sender, mut driver, bodies) = block_on(async {
            let mut server = std::pin::pin!(server);
            let mut client = std::pin::pin!(client);
            let mut server_done = false;
            std::future::poll_fn(|cx| {
                if !server_done {
                    server_done = server.as_mut().poll(cx).is_ready();
                }
                client.as_mut().poll(cx)
            })
            .await
        });
        assert_eq!(bodies, vec![&b"hello"[..], &b"hello"[..]]);
        assert!(block_on(driver.drive(sender.ready())).is_err());
        assert!(sender.is_closed());
    }

    fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
        let n = payload.len();
        let mut f = vec![
            (n >> 16) as u8,
            (n >> 8) as u8,
            n as u8,
            kind,
            0,
            0,
            0,
            0,
            1,
        ];
        f.extend_from_slice(payload);
        f
    }

    /// The gate opens at the first HEADERS frame, however the writes cut
    /// the preface and the frames (a SETTINGS payload full of 0x01 bytes
    /// must not be taken for a frame type).
    #[test]
    fn the_gate_opens_at_the_first_headers_frame() {
        let mut bytes = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        bytes.extend(frame(4, &[1; 12]));
        bytes.extend(frame(8, &[0, 0, 1, 1]));
        let before = bytes.len();
        bytes.extend(frame(1, &[0x82]));
        for cut in [1, 2, 7, 9, 64] {
            let mut g = Gate {
                preface_left: 24,
                ..Gate::default()
            };
            for (i, chunk) in bytes.chunks(cut).enumerate() {
                g.saw(chunk);
                let seen = (i + 1) * cut;
                assert_eq!(g.open, seen >= before + 9, "cut {cut} at {seen}");
            }
            assert!(g.open);
        }
    }
}
