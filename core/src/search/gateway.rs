//! The Gateway provider: one POST of the accepted arguments as JSON to the
//! host's endpoint, with the host's key, under one fixed deadline for the
//! whole exchange, reading at most the response cap.
//!
//! The endpoint is the host's own infrastructure, not a model's choice, so
//! it is reached through its own [`Connect`] seam rather than the fetch
//! policy (a gateway may well live on a private address).

use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST, USER_AGENT};
use hyper::{Method, Request};
use rustls::pki_types::ServerName;
use serde_json::Value;
use tokio::time::Instant;
use url::Url;

use super::{rows_from_results, Provider};
use crate::args::SearchArgs;
use crate::messages::{SearchError, SearchRow};
use crate::net::{http, BoxFuture, Io, TlsSettings};
use crate::policy::Policy;

/// Opens a stream to the gateway's host and port.
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
pub struct TcpConnect;

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

/// The gateway provider.
pub struct Gateway {
    endpoint: Url,
    key: Option<String>,
    connect: Arc<dyn Connect>,
    tls: tokio_rustls::TlsConnector,
    policy: Policy,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is never printed.
        f.debug_struct("Gateway")
            .field("endpoint", &self.endpoint.as_str())
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// A gateway at `endpoint` (http or https), with an optional key sent
    /// as `Authorization: Bearer …`.
    pub fn new(
        endpoint: &str,
        key: Option<String>,
        policy: Policy,
        tls: &TlsSettings,
    ) -> Result<Self, String> {
        let endpoint =
            Url::parse(endpoint).map_err(|e| format!("search endpoint {endpoint:?}: {e}"))?;
        if !matches!(endpoint.scheme(), "http" | "https") || endpoint.host_str().is_none() {
            return Err(format!(
                "search endpoint {endpoint} must be an http or https URL with a host"
            ));
        }
        Ok(Gateway {
            endpoint,
            key,
            connect: Arc::new(TcpConnect),
            tls: tokio_rustls::TlsConnector::from(tls.client_config()?),
            policy,
        })
    }

    /// Replaces the connect seam (tests reach a scripted gateway this way).
    pub fn with_connect(mut self, c: Arc<dyn Connect>) -> Self {
        self.connect = c;
        self
    }

    async fn exchange(
        &self,
        args: &SearchArgs,
        deadline: Instant,
    ) -> Result<Vec<SearchRow>, SearchError> {
        use SearchError::{Read, Request as Req};
        let url = &self.endpoint;
        let host = url.host_str().unwrap_or_default();
        let port = url.port_or_known_default().unwrap_or(443);
        let stream = tokio::time::timeout_at(deadline, self.connect.connect(host, port))
            .await
            .map_err(|_| Req)?
            .map_err(|_| Req)?;
        let body = Bytes::from(args.to_json().to_string());
        let authority = match url.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        };
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        let build = |h2: bool| -> Result<Request<Full<Bytes>>, SearchError> {
            let mut b = Request::builder()
                .method(Method::POST)
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json")
                .header(
                    USER_AGENT,
                    HeaderValue::from_str(&self.policy.user_agent).map_err(|_| Req)?,
                );
            if let Some(k) = &self.key {
                let mut v = HeaderValue::from_str(&format!("Bearer {k}")).map_err(|_| Req)?;
                v.set_sensitive(true);
                b = b.header(AUTHORIZATION, v);
            }
            b = if h2 {
                b.uri(url.as_str())
            } else {
                b.header(HOST, authority.as_str()).uri(path.as_str())
            };
            b.body(Full::new(body.clone())).map_err(|_| Req)
        };
        let (resp, _guard) = if url.scheme() == "https" {
            let name = ServerName::try_from(
                host.trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_string(),
            )
            .map_err(|_| Req)?;
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
        let status = resp.status().as_u16();
        let mut incoming = resp.into_body();
        if !(200..300).contains(&status) {
            // Only the part of the error body the message can show is read.
            let want = self.policy.search_error_cut + 4;
            let mut buf = Vec::new();
            loop {
                match tokio::time::timeout_at(deadline, incoming.frame()).await {
                    Ok(None) => break,
                    Ok(Some(Ok(f))) => {
                        if let Ok(d) = f.into_data() {
                            buf.extend_from_slice(&d);
                            if buf.len() >= want {
                                break;
                            }
                        }
                    }
                    Ok(Some(Err(_))) | Err(_) => {
                        return Err(SearchError::StatusUnread { code: status })
                    }
                }
            }
            if buf.is_empty() {
                return Err(SearchError::StatusEmpty { code: status });
            }
            let body = super::escape_error_body(&buf, self.policy.search_error_cut);
            return Err(SearchError::Status { code: status, body });
        }
        let cap = self.policy.search_body_cap;
        let mut buf: Vec<u8> = Vec::new();
        loop {
            match tokio::time::timeout_at(deadline, incoming.frame()).await {
                Ok(None) => break,
                Ok(Some(Ok(f))) => {
                    if let Ok(d) = f.into_data() {
                        // The cap is enforced while reading: never buffer past it.
                        if buf.len() as u64 + d.len() as u64 > cap {
                            return Err(SearchError::TooBig { limit: cap });
                        }
                        buf.extend_from_slice(&d);
                    }
                }
                Ok(Some(Err(_))) | Err(_) => return Err(Read),
            }
        }
        let text = std::str::from_utf8(&buf).map_err(|_| SearchError::NotUtf8)?;
        let v: Value = serde_json::from_str(text).map_err(|_| SearchError::Malformed)?;
        let results = v
            .get("results")
            .and_then(Value::as_array)
            .ok_or(SearchError::Malformed)?;
        rows_from_results(results)
    }
}

impl Provider for Gateway {
    fn name(&self) -> &'static str {
        "gateway"
    }

    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>> {
        Box::pin(async move {
            let deadline = Instant::now() + self.policy.search_deadline;
            self.exchange(args, deadline).await
        })
    }
}
