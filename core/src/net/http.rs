//! One HTTP exchange over an established stream: the request as it goes
//! on the wire, the response head (over a connection `conn` starts), and
//! the body moved into a decoder under a deadline. Shared by `web_fetch` and the search client,
//! so both shape requests and read bodies the same way.

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderName, HeaderValue, HOST, USER_AGENT};
use hyper::{Method, Request};
#[cfg(feature = "search-providers")]
use tokio::io::{AsyncRead, AsyncWrite};
use url::Url;

use super::conn::Driver;
#[cfg(feature = "search-providers")]
use super::conn::{handshake, ConnGuard};
use super::limit::Limit;
use crate::body::{BodyDecoder, BodyFail, Flow};

/// A request for `url` as it goes on the wire: the User-Agent first, then
/// `headers`; over h2 an absolute URI (it carries `:authority`), over
/// HTTP/1.1 an origin-form target with a `Host` header (the port only
/// when the URL names one). `None` when a value is not a valid header
/// value (a policy's User-Agent is validated before any call).
pub(crate) fn request(
    method: Method,
    url: &Url,
    h2: bool,
    user_agent: &str,
    headers: &[(HeaderName, HeaderValue)],
    body: Bytes,
) -> Option<Request<Full<Bytes>>> {
    let mut b = Request::builder()
        .method(method)
        .header(USER_AGENT, HeaderValue::from_str(user_agent).ok()?);
    for (k, v) in headers {
        b = b.header(k, v);
    }
    b = if h2 {
        b.uri(url.as_str())
    } else {
        let host = url.host_str().unwrap_or_default();
        let authority = match url.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        };
        let target = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        b.header(HOST, HeaderValue::from_str(&authority).ok()?)
            .uri(target)
    };
    b.body(Full::new(body)).ok()
}

/// Moves a body's frames into `decoder` until the end, the decoder's cap,
/// a failure or the limit (a body that stops arriving in time is
/// unreadable), with the connection's `driver` run beside it. `on_data`
/// sees the decoder after every data frame (the fetch reports progress
/// from it).
pub(crate) async fn pull(
    mut incoming: Incoming,
    driver: &mut Driver,
    decoder: &mut BodyDecoder,
    limit: &mut Limit,
    mut on_data: impl FnMut(&BodyDecoder),
) -> Result<(), BodyFail> {
    loop {
        let frame = match limit.within(driver.drive(incoming.frame())).await {
            Ok(f) => f,
            Err(_) => return Err(BodyFail::Unreadable),
        };
        match frame {
            None => return Ok(()),
            Some(Err(_)) => return Err(BodyFail::Unreadable),
            Some(Ok(f)) => {
                if let Ok(data) = f.into_data() {
                    let pushed = decoder.push(&data);
                    on_data(decoder);
                    match pushed? {
                        Flow::More => {}
                        Flow::Full => return Ok(()),
                    }
                }
            }
        }
    }
}

/// Sends `req` over `io` and waits for the response head: a
/// [`handshake`](super::conn::handshake) and one request. With `h2`, the request URI must be
/// absolute (it carries `:authority`); over HTTP/1.1 it must be
/// origin-form with a `Host` header. (The search client's path; fetch
/// keeps the sender, for reuse.) The body is read with the driver
/// returned beside it.
#[cfg(feature = "search-providers")]
pub(crate) async fn send<T>(
    io: T,
    h2: bool,
    req: Request<Full<Bytes>>,
) -> Result<(hyper::Response<Incoming>, ConnGuard, Driver), hyper::Error>
where
    T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let (mut sender, guard, mut driver) = handshake(io, h2).await?;
    let resp = driver.drive(sender.send(req)).await?;
    Ok((resp, guard, driver))
}

/// Whether a failed exchange ended before any response because the
/// connection went away (the server closed it, or answered a GOAWAY or
/// REFUSED_STREAM for a request it did not process; hyper reports the
/// request it never took as canceled or "dispatch task is gone"): the
/// errors after which a GET may be sent again on a fresh connection.
pub(crate) fn connection_gone(e: &hyper::Error) -> bool {
    if e.is_canceled() || e.is_incomplete_message() || e.is_closed() {
        return true;
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(h2) = s.downcast_ref::<h2::Error>() {
            return h2.is_go_away() || h2.reason() == Some(h2::Reason::REFUSED_STREAM);
        }
        source = s.source();
    }
    false
}

/// Every value of one header, in order.
pub(crate) fn header_values(headers: &hyper::HeaderMap, name: HeaderName) -> Vec<&[u8]> {
    headers.get_all(name).iter().map(|v| v.as_bytes()).collect()
}

/// Whether a response lets its connection serve another request: not
/// when any `Connection` header holds the `close` option (RFC 9112
/// §9.6), in any case, among other options.
pub(crate) fn keeps_connection(headers: &hyper::HeaderMap) -> bool {
    !headers.get_all(hyper::header::CONNECTION).iter().any(|v| {
        v.to_str()
            .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")))
    })
}
