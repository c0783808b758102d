//! One HTTP exchange over an established stream: hyper's client
//! connection (HTTP/1.1, or h2 when ALPN chose it), the connection task,
//! and the response head. Shared by `web_fetch` and the search gateway.

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncRead, AsyncWrite};

/// Aborts the connection task when dropped, so nothing is left running
/// once the caller is done with the response.
#[derive(Debug)]
pub struct ConnGuard(tokio::task::JoinHandle<()>);

impl Drop for ConnGuard {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Sends `req` over `io` and waits for the response head. With `h2`, the
/// request URI must be absolute (it carries `:authority`); over HTTP/1.1 it
/// must be origin-form with a `Host` header.
pub(crate) async fn send<T>(
    io: T,
    h2: bool,
    req: Request<Full<Bytes>>,
) -> Result<(Response<Incoming>, ConnGuard), hyper::Error>
where
    T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let io = TokioIo::new(io);
    if h2 {
        let mut b = hyper::client::conn::http2::Builder::new(TokioExecutor::new());
        // Bounded header lists and reset streams: a hostile server cannot
        // make the client buffer without end.
        b.max_header_list_size(256 * 1024)
            .max_concurrent_reset_streams(16);
        let (mut sender, conn) = b.handshake(io).await?;
        let guard = ConnGuard(tokio::spawn(async move {
            let _ = conn.await;
        }));
        let resp = sender.send_request(req).await?;
        Ok((resp, guard))
    } else {
        let mut b = hyper::client::conn::http1::Builder::new();
        b.max_buf_size(256 * 1024);
        let (mut sender, conn) = b.handshake(io).await?;
        let guard = ConnGuard(tokio::spawn(async move {
            let _ = conn.await;
        }));
        let resp = sender.send_request(req).await?;
        Ok((resp, guard))
    }
}
