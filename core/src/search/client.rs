//! The transport every search provider shares: one request to the host's
//! configured endpoint under the fixed deadline, the response cap enforced
//! while reading, and the contract's failure families.
//!
//! Provider endpoints are the host's own choice, never a model's, so they
//! are reached through their own [`Connect`] seam rather than the fetch
//! policy (a gateway may well live on a private address).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use hyper::body::Bytes;
use hyper::header::{HeaderName, HeaderValue, RETRY_AFTER};
use hyper::Method;
use rustls::pki_types::ServerName;
use serde_json::Value;
use url::Url;

use super::Report;
use crate::body::{BodyDecoder, BodyFail, CapMode};
use crate::messages::{SearchError, SetupError};
use crate::net::limit::Limit;
use crate::net::{http, BoxFuture, Io, TlsSettings};
use crate::policy::Policy;

/// Opens a stream to a provider's host and port.
pub trait Connect: Send + Sync + 'static {
    /// Connects to `host:port`.
    fn connect<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Box<dyn Io>>>;
}

/// The default: the system's name resolution and TCP.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TcpConnect;

impl Connect for TcpConnect {
    fn connect<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Box<dyn Io>>> {
        Box::pin(async move {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            let s = tokio::net::TcpStream::connect((host, port)).await?;
            s.set_nodelay(true)?;
            Ok(Box::new(s) as Box<dyn Io>)
        })
    }
}

/// A non-2xx answer, before it becomes a message.
#[derive(Debug)]
pub(crate) struct Refused {
    pub code: u16,
    /// The start of the error body (at most the cut plus a few bytes), or
    /// `None` when it could not be read.
    pub body: Option<Vec<u8>>,
    /// Its Retry-After, read when the head arrived.
    pub retry_after: Option<Duration>,
}

impl Refused {
    /// The contract's rendering: `backend returned {code}: {body}`, the
    /// empty-body form, or the unreadable form.
    pub fn into_error(self, cut: usize) -> SearchError {
        let (code, retry_after) = (self.code, self.retry_after);
        match self.body {
            None => SearchError::StatusUnread { code, retry_after },
            Some(b) if b.is_empty() => SearchError::StatusEmpty { code, retry_after },
            Some(b) => SearchError::Status {
                code,
                body: super::escape_error_body(&b, cut),
                retry_after,
            },
        }
    }
}

/// A `Retry-After` value (RFC 9110 §10.2.3) as a wait from `now`: whole
/// delay-seconds, or an HTTP-date in any of its three forms (a date already
/// past is no wait). Anything else, or a wait beyond what a clock can
/// express, is `None`: a malformed header must not invent a delay.
pub(crate) fn parse_retry_after(value: &[u8], now: SystemTime) -> Option<Duration> {
    let text = std::str::from_utf8(value).ok()?.trim_matches([' ', '\t']);
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<u64>().ok().map(Duration::from_secs);
    }
    let when = httpdate::parse_http_date(text).ok()?;
    let wait = when.duration_since(now).unwrap_or(Duration::ZERO);
    // HTTP-dates are whole seconds; round the part of a second that `now`
    // has already spent up, so the wait never ends before the date.
    Some(Duration::from_secs(
        wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
    ))
}

/// The shared HTTP client of the providers.
#[derive(Clone)]
pub struct Client {
    connect: Arc<dyn Connect>,
    tls: tokio_rustls::TlsConnector,
    pub(crate) policy: Policy,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

impl Client {
    /// A client with the system's TCP and the given TLS settings.
    pub fn new(policy: Policy, tls: &TlsSettings) -> Result<Self, SetupError> {
        policy.validate()?;
        Ok(Client {
            connect: Arc::new(TcpConnect),
            tls: tokio_rustls::TlsConnector::from(tls.client_config()?),
            policy,
        })
    }

    /// Replaces the connect seam (tests reach scripted servers this way).
    pub fn with_connect(mut self, c: Arc<dyn Connect>) -> Self {
        self.connect = c;
        self
    }

    /// One exchange under the deadline, noted in `report`. `Ok(Ok(body))`
    /// for a 2xx within the cap, `Ok(Err(refused))` for any other status.
    pub(crate) async fn exchange(
        &self,
        method: Method,
        url: &Url,
        headers: &[(HeaderName, HeaderValue)],
        body: Option<Bytes>,
        report: &Report,
    ) -> Result<Result<Vec<u8>, Refused>, SearchError> {
        use SearchError::{Read, Request as Req};
        let deadline = crate::net::deadline_after(self.policy.search_deadline);
        let host = url.host_str().unwrap_or_default();
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let port = url.port_or_known_default().unwrap_or(443);
        let stream = tokio::time::timeout_at(deadline, self.connect.connect(host, port))
            .await
            .map_err(|_| Req)?
            .map_err(|_| Req)?;
        let body = body.unwrap_or_default();
        let build = |h2: bool| {
            http::request(
                method.clone(),
                url,
                h2,
                &self.policy.user_agent,
                headers,
                body.clone(),
            )
            .ok_or(Req)
        };
        let (resp, _guard, mut driver) = if url.scheme() == "https" {
            let name = ServerName::try_from(bare.to_string()).map_err(|_| Req)?;
            let tls = tokio::time::timeout_at(deadline, self.tls.connect(name, stream))
                .await
                .map_err(|_| Req)?
                .map_err(|_| Req)?;
            let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
            tokio::time::timeout_at(deadline, http::send(tls, h2, build(h2)?))
                .await
                .map_err(|_| Req)?
                .map_err(|_| Req)?
        } else {
            tokio::time::timeout_at(deadline, http::send(stream, false, build(false)?))
                .await
                .map_err(|_| Req)?
                .map_err(|_| Req)?
        };
        let code = resp.status().as_u16();
        let success = (200..300).contains(&code);
        // Read against the clock now, when the head arrived: a date-form
        // wait would shrink while the error body is read.
        let retry_after = if success {
            None
        } else {
            resp.headers()
                .get(RETRY_AFTER)
                .and_then(|v| parse_retry_after(v.as_bytes(), SystemTime::now()))
        };
        // Success bodies are read up to the cap (one byte more refuses);
        // error bodies only as far as the message can show. Providers
        // send no Accept-Encoding, so no codings are undone.
        let (limit, mode) = if success {
            (self.policy.search_body_cap, CapMode::Refuse)
        } else {
            (self.policy.search_error_cut as u64 + 4, CapMode::Truncate)
        };
        let mut decoder = BodyDecoder::new(&[], limit, mode).map_err(|_| Read)?;
        let read = http::pull(
            resp.into_body(),
            &mut driver,
            &mut decoder,
            &mut Limit::at(deadline),
            |_| {},
        )
        .await;
        let received = decoder.received();
        let body = read.and_then(|()| decoder.finish());
        Ok(match (body, success) {
            (Ok(b), true) => {
                report.exchange(code, received);
                Ok(b.bytes)
            }
            (Ok(b), false) => {
                report.exchange(code, b.bytes.len() as u64);
                Err(Refused {
                    code,
                    body: Some(b.bytes),
                    retry_after,
                })
            }
            (Err(BodyFail::Cap), true) => {
                report.exchange(code, received);
                return Err(SearchError::TooBig { limit });
            }
            (Err(_), true) => return Err(Read),
            (Err(_), false) => Err(Refused {
                code,
                body: None,
                retry_after,
            }),
        })
    }
}

impl Client {
    /// One exchange whose 2xx body is JSON; any other status becomes its
    /// `backend returned …` message.
    pub(crate) async fn json(
        &self,
        method: Method,
        url: &Url,
        headers: &[(HeaderName, HeaderValue)],
        body: Option<Bytes>,
        report: &Report,
    ) -> Result<Value, SearchError> {
        let body = self
            .exchange(method, url, headers, body, report)
            .await?
            .map_err(|r| r.into_error(self.policy.search_error_cut))?;
        json_body(&body)
    }
}

/// The `results` array of an answer, or a malformed answer.
pub(crate) fn results(v: &Value) -> Result<&Vec<Value>, SearchError> {
    v.get("results")
        .and_then(Value::as_array)
        .ok_or(SearchError::Malformed)
}

/// A 2xx body as JSON: UTF-8 first, then JSON.
pub(crate) fn json_body(body: &[u8]) -> Result<Value, SearchError> {
    let text = std::str::from_utf8(body).map_err(|_| SearchError::NotUtf8)?;
    serde_json::from_str(text).map_err(|_| SearchError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1994-11-06T08:49:37Z, the RFC's example date.
    fn rfc_example() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777)
    }

    #[test]
    fn retry_after_delay_seconds() {
        let now = rfc_example();
        let p = |v: &str| parse_retry_after(v.as_bytes(), now);
        assert_eq!(p("120"), Some(Duration::from_secs(120)));
        assert_eq!(p("0"), Some(Duration::ZERO));
        assert_eq!(p(" 7\t"), Some(Duration::from_secs(7)));
        assert_eq!(
            p("18446744073709551615"),
            Some(Duration::from_secs(u64::MAX))
        );
        // Not delay-seconds: signs, fractions, overflow, words, nothing.
        for bad in [
            "-1",
            "+1",
            "1.5",
            "18446744073709551616",
            "soon",
            "",
            " ",
            "1 2",
        ] {
            assert_eq!(p(bad), None, "{bad:?}");
        }
        assert_eq!(parse_retry_after(b"\xff1", now), None);
    }

    #[test]
    fn retry_after_dates_in_all_three_forms() {
        let now = rfc_example() - Duration::from_secs(90);
        for form in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(
                parse_retry_after(form.as_bytes(), now),
                Some(Duration::from_secs(90)),
                "{form}"
            );
        }
        // A date already past is no wait; a part-second still to go is a
        // whole second.
        let later = rfc_example() + Duration::from_secs(5);
        let v = b"Sun, 06 Nov 1994 08:49:37 GMT";
        assert_eq!(parse_retry_after(v, later), Some(Duration::ZERO));
        let just_before = rfc_example() - Duration::from_millis(1);
        assert_eq!(
            parse_retry_after(v, just_before),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            parse_retry_after(b"Sun, 06 Nov 1994 25:49:37 GMT", now),
            None
        );
    }
}
