//! The one IO loop of `web_fetch`: admit → resolve → vet every address →
//! dial only vetted addresses → TLS → request → on a redirect, back through
//! the hop rule and admission → the body pipeline → extraction → the
//! result text. Every decision is made by the pure modules; this file only
//! moves bytes and keeps time.

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{
    HeaderValue, ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HOST, LOCATION,
    USER_AGENT,
};
use hyper::{Request, Response};
use rustls::pki_types::ServerName;
use serde_json::Value;
use tokio::time::Instant;

use crate::args::parse_fetch_args;
use crate::body::{self, charset, BodyDecoder, BodyFail, CapMode, Flow, MediaClass, TypeRefusal};
use crate::extract;
use crate::messages::{Extraction, FetchError, FetchOk};
use crate::net::http::{self, ConnGuard};
use crate::net::{Dial, HickoryResolve, Io, Resolve, TcpDial, TlsSettings};
use crate::policy::{admit, next_hop, vet, AdmittedUrl, Hop, Policy};
use crate::tool::Outcome;

/// The value `Accept-Encoding` always carries.
const ACCEPT_ENCODINGS: &str = "gzip, deflate, br, zstd";

/// A successful fetch, before it is rendered as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// The final URL: query kept, fragment dropped.
    pub url: String,
    /// Whether `max_chars` or the flat-text byte cap cut the text.
    pub truncated: bool,
    /// How the text was made.
    pub extraction: Extraction,
    /// The text.
    pub text: String,
}

impl Fetched {
    /// The contract's exact result text: header, blank line, text.
    pub fn render(&self) -> String {
        FetchOk {
            url: &self.url,
            truncated: self.truncated,
            extraction: self.extraction,
            text: &self.text,
        }
        .to_string()
    }
}

/// Options of one typed fetch (the model's `max_chars` and `raw`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FetchOptions {
    /// At most this many characters (lowered to the policy's limit).
    pub max_chars: Option<usize>,
    /// Render the whole document instead of the main article.
    pub raw: bool,
}

/// Builds a [`Fetcher`]: the policy, and the Resolve and Dial seams.
#[derive(Default)]
pub struct FetcherBuilder {
    policy: Policy,
    resolver: Option<Arc<dyn Resolve>>,
    dialer: Option<Arc<dyn Dial>>,
    tls: TlsSettings,
}

impl std::fmt::Debug for FetcherBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetcherBuilder")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl FetcherBuilder {
    /// The host's policy (default: the contract's).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// The Resolve seam (default: hickory with the system configuration).
    pub fn resolver(mut self, r: Arc<dyn Resolve>) -> Self {
        self.resolver = Some(r);
        self
    }

    /// The Dial seam (default: TCP).
    pub fn dialer(mut self, d: Arc<dyn Dial>) -> Self {
        self.dialer = Some(d);
        self
    }

    /// The TLS settings (extra roots).
    pub fn tls(mut self, tls: TlsSettings) -> Self {
        self.tls = tls;
        self
    }

    /// The fetcher. Fails only when the system DNS configuration or the TLS
    /// settings cannot be loaded.
    pub fn build(self) -> Result<Fetcher, String> {
        let resolver = match self.resolver {
            Some(r) => r,
            None => Arc::new(HickoryResolve::system()?),
        };
        Ok(Fetcher {
            inner: Arc::new(Inner {
                policy: self.policy,
                resolver,
                dialer: self.dialer.unwrap_or_else(|| Arc::new(TcpDial)),
                tls: tokio_rustls::TlsConnector::from(self.tls.client_config()?),
            }),
        })
    }
}

/// The `web_fetch` tool. Cheap to clone; safe to share between tasks.
#[derive(Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("policy", &self.inner.policy)
            .finish_non_exhaustive()
    }
}

struct Inner {
    policy: Policy,
    resolver: Arc<dyn Resolve>,
    dialer: Arc<dyn Dial>,
    tls: tokio_rustls::TlsConnector,
}

impl Fetcher {
    /// A builder with the contract's policy and the default seams.
    pub fn builder() -> FetcherBuilder {
        FetcherBuilder::default()
    }

    /// The policy in force.
    pub fn policy(&self) -> &Policy {
        &self.inner.policy
    }

    /// The tool as a model calls it: JSON arguments in, one outcome out.
    pub async fn call(&self, args: &Value) -> Outcome {
        let policy = &self.inner.policy;
        let result = match parse_fetch_args(args, policy) {
            Ok(a) => {
                self.fetch(
                    &a.url,
                    FetchOptions {
                        max_chars: Some(a.max_chars),
                        raw: a.raw,
                    },
                )
                .await
            }
            Err(e) => Err(e.into()),
        };
        match result {
            Ok(f) => Outcome::ok("fetch.ok", f.render()),
            Err(e) => e.into(),
        }
    }

    /// The typed API: fetch one URL.
    pub async fn fetch(&self, url: &str, opts: FetchOptions) -> Result<Fetched, FetchError> {
        let policy = &self.inner.policy;
        let max_chars = opts
            .max_chars
            .unwrap_or(policy.max_chars)
            .min(policy.max_chars);
        let mut current = admit(url, policy)?;
        let mut followed = 0u32;
        loop {
            let deadline = Instant::now() + policy.request_timeout;
            let (resp, conn) = self.exchange(&current, deadline).await?;
            let status = resp.status().as_u16();
            let location = resp
                .headers()
                .get(LOCATION)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            match next_hop(&current, status, location.as_deref(), followed, policy) {
                Hop::Follow(next) => {
                    // The redirect's own body is never read.
                    drop((resp, conn));
                    current = next;
                    followed += 1;
                    continue;
                }
                Hop::Refuse(e) => return Err(e),
                Hop::NotARedirect => {}
            }
            let out = self
                .read(&current, resp, deadline, max_chars, opts.raw)
                .await;
            drop(conn);
            return out;
        }
    }

    /// One request: resolve, vet, dial, TLS, send, and wait for the head.
    async fn exchange(
        &self,
        url: &AdmittedUrl,
        deadline: Instant,
    ) -> Result<(Response<Incoming>, ConnGuard), FetchError> {
        let inner = &self.inner;
        let timed_out = || FetchError::Timeout { url: url.display() };
        let failed = || FetchError::NetFailed {
            url: url.as_str().to_string(),
        };
        let host = url.host();

        let answers = tokio::time::timeout_at(deadline, inner.resolver.resolve(host))
            .await
            .map_err(|_| timed_out())?
            .map_err(|_| FetchError::DnsFailed {
                host: host.to_string(),
            })?;
        // Every address is judged; only the allowed ones are kept, in the
        // resolver's order.
        let vetted: Vec<_> = answers.into_iter().filter_map(|a| vet(a).ok()).collect();
        if vetted.is_empty() {
            return Err(FetchError::NoAllowedAddress {
                host: host.to_string(),
            });
        }

        let connect_by = deadline.min(Instant::now() + inner.policy.connect_timeout);
        let port = url.port();
        let stream: Box<dyn Io> = tokio::time::timeout_at(connect_by, async {
            for a in vetted {
                if let Ok(s) = inner.dialer.dial(a, port).await {
                    return Ok(s);
                }
            }
            Err(())
        })
        .await
        .map_err(|_| timed_out())?
        .map_err(|_| failed())?;

        let name = ServerName::try_from(host.to_string()).map_err(|_| failed())?;
        let tls = tokio::time::timeout_at(deadline, inner.tls.connect(name, stream))
            .await
            .map_err(|_| timed_out())?
            .map_err(|_| failed())?;
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
        let mut req = Request::builder()
            .header(
                USER_AGENT,
                HeaderValue::from_str(&inner.policy.user_agent).map_err(|_| failed())?,
            )
            .header(ACCEPT_ENCODING, ACCEPT_ENCODINGS);
        if h2 {
            // h2 takes the authority from the absolute URI (`:authority`).
            req = req.uri(url.as_str());
        } else {
            let authority = match url.as_url().port() {
                Some(p) => format!("{host}:{p}"),
                None => host.to_string(),
            };
            let path = match url.as_url().query() {
                Some(q) => format!("{}?{q}", url.as_url().path()),
                None => url.as_url().path().to_string(),
            };
            req = req
                .header(
                    HOST,
                    HeaderValue::from_str(&authority).map_err(|_| failed())?,
                )
                .uri(path);
        }
        let req = req.body(Full::new(Bytes::new())).map_err(|_| failed())?;
        let head = tokio::time::timeout_at(deadline, http::send(tls, h2, req))
            .await
            .map_err(|_| timed_out())?
            .map_err(|_| failed())?;
        Ok(head)
    }

    /// The response after the head: status, Content-Type, charset,
    /// Content-Length, then the body under the cap, then the text.
    async fn read(
        &self,
        url: &AdmittedUrl,
        resp: Response<Incoming>,
        deadline: Instant,
        max_chars: usize,
        raw: bool,
    ) -> Result<Fetched, FetchError> {
        let policy = &self.inner.policy;
        let shown = url.display();
        let status = resp.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(FetchError::Status { url: shown, status });
        }
        let headers = resp.headers();
        let ct_header = headers
            .get(CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let ct = body::classify(ct_header.as_deref()).map_err(|r| match r {
            TypeRefusal::Missing => FetchError::TypeMissing { url: shown.clone() },
            TypeRefusal::Refused(content_type) => FetchError::TypeRefused {
                content_type,
                url: shown.clone(),
            },
        })?;
        let encoding = charset::encoding_for(ct.charset.as_deref()).map_err(|_| {
            FetchError::CharsetUnknown {
                url: shown.clone(),
                charset: ct.charset.clone().unwrap_or_default(),
            }
        })?;
        let mode = if ct.class == MediaClass::Text {
            CapMode::Truncate
        } else {
            CapMode::Refuse
        };
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if mode == CapMode::Refuse && declared.is_some_and(|n| n > policy.body_cap) {
            return Err(FetchError::BodyCap {
                url: shown,
                limit: policy.body_cap,
            });
        }
        let unreadable = || FetchError::BodyRead { url: shown.clone() };
        let codings = body::parse_codings(
            headers
                .get_all(CONTENT_ENCODING)
                .iter()
                .map(|v| std::str::from_utf8(v.as_bytes()).unwrap_or("\u{fffd}")),
        )
        .map_err(|_| unreadable())?;
        let mut decoder =
            BodyDecoder::new(&codings, policy.body_cap, mode).map_err(|_| unreadable())?;
        let map_fail = |f: BodyFail| match f {
            BodyFail::Cap => FetchError::BodyCap {
                url: shown.clone(),
                limit: policy.body_cap,
            },
            BodyFail::Unreadable => unreadable(),
        };
        let mut incoming = resp.into_body();
        loop {
            let frame = tokio::time::timeout_at(deadline, incoming.frame())
                .await
                .map_err(|_| unreadable())?;
            match frame {
                None => break,
                Some(Err(_)) => return Err(unreadable()),
                Some(Ok(f)) => {
                    if let Ok(data) = f.into_data() {
                        if decoder.push(&data).map_err(map_fail)? == Flow::Full {
                            break;
                        }
                    }
                }
            }
        }
        let body = decoder.finish().map_err(map_fail)?;
        let decoded = charset::decode_owned(body.bytes, encoding);
        let (mut text, extraction) = match ct.class {
            MediaClass::Html => extract::render_page(&decoded, url.as_url(), raw),
            MediaClass::Structured | MediaClass::Text => (decoded, Extraction::Plain),
        };
        let cut = body::text::truncate_chars(&mut text, max_chars);
        Ok(Fetched {
            url: url.as_str().to_string(),
            truncated: cut || body.truncated,
            extraction,
            text,
        })
    }
}

/// How long a fetch may take at most, all hops included: a bound for
/// hosts that wrap calls in their own time-outs.
pub fn worst_case_duration(policy: &Policy) -> Duration {
    policy.request_timeout * (policy.max_redirects + 1)
}
