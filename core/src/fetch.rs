//! The one IO loop of `web_fetch`: admit → resolve → vet every address →
//! dial only vetted addresses → TLS → request → on a redirect, back through
//! the hop rule and admission → the body pipeline → extraction → the
//! result text. Every decision is made by the pure modules; this file only
//! moves bytes and keeps time.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::{Bytes, Incoming};
use hyper::header::{
    HeaderName, HeaderValue, ACCEPT_ENCODING, CONNECTION, CONTENT_ENCODING, CONTENT_LENGTH,
    CONTENT_TYPE, LOCATION,
};
use hyper::{Method, Response};
use rustls::pki_types::ServerName;
use serde_json::Value;
use tokio::time::Instant;
use tracing::Instrument;

use crate::args::parse_fetch_args;
use crate::audit::{
    ms, AddressAudit, AuditSettings, BodyAudit, CapAction, FailedAt, FetchAudit, HopAudit,
    RedirectAudit, RedirectVerdict, RobotsAudit, RobotsFile, RobotsVerdict, TlsAudit,
};
use crate::body::{self, charset, BodyDecoder, BodyFail, CapMode, MediaClass};
use crate::extract;
use crate::messages::{Extraction, FetchError, FetchOk, Progress, RobotsRefusal, SetupError};
use crate::net::conn::{self, Conn};
use crate::net::http;
use crate::net::pool::{Lease, Limits, Pool};
use crate::net::{eyeballs, Dial, Resolve, TcpDial, TlsSettings};
use crate::policy::robots::{self, RobotsMemo, RobotsTxt, Unreachable};
use crate::policy::{admit, next_hop, vet, AdmittedUrl, Hop, Policy};
use crate::progress;
use crate::tool::Outcome;

/// A successful fetch, before it is rendered as text.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fetched {
    /// The final URL: query kept, fragment dropped.
    pub url: String,
    /// Whether `max_chars` or the flat-text byte cap cut the text.
    pub truncated: bool,
    /// How the text was made.
    pub extraction: Extraction,
    /// The text.
    pub text: String,
    /// The HTML `<title>`, when the page is HTML and has one.
    pub title: Option<String>,
    /// Why extraction stopped before the end of the page, when it did.
    pub cut: Option<extract::Cut>,
}

impl Fetched {
    /// The text without its title line (contract §13): what the page
    /// itself says.
    pub fn body(&self) -> &str {
        let Some(title) = &self.title else {
            return &self.text;
        };
        let rest = self.text.strip_prefix("# ").unwrap_or(&self.text);
        match rest.strip_prefix(title.as_str()) {
            Some(r) if r.is_empty() || r.starts_with('\n') => r.trim_start_matches('\n'),
            _ => &self.text,
        }
    }

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

/// What refused a call before anything was sent (see
/// [`Fetcher::refused_record`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Its arguments.
    Arguments,
    /// Its URL, by the admission rules.
    Admission,
    /// A rule of the agent layer (a budget).
    Other,
}

/// Options of one typed fetch (the model's `max_chars` and `raw`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FetchOptions {
    /// At most this many characters (lowered to the policy's limit).
    pub max_chars: Option<usize>,
    /// Render the whole document instead of the main article.
    pub raw: bool,
    /// Return the whole text, not cut at `max_chars` (the caller pages or
    /// cuts it itself; the body cap still applies).
    pub whole: bool,
}

/// Builds a [`Fetcher`]: the policy, and the Resolve and Dial seams.
#[derive(Default)]
pub struct FetcherBuilder {
    policy: Policy,
    resolver: Option<Arc<dyn Resolve>>,
    dialer: Option<Arc<dyn Dial>>,
    tls: TlsSettings,
    audit: AuditSettings,
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

    /// What audit records and events may show (default: redacted).
    pub fn audit(mut self, audit: AuditSettings) -> Self {
        self.audit = audit;
        self
    }

    /// The fetcher. Fails when the policy does not
    /// [validate](Policy::validate), when no resolver was given and the
    /// default (hickory, the system configuration) is not compiled in or
    /// cannot be loaded, when the TLS settings are refused, or when it is
    /// built on a Tokio runtime without the time driver.
    ///
    /// Calls run on a Tokio runtime with IO and time enabled
    /// (`Builder::enable_all`); a call without one is a failed call,
    /// reported as a network failure and an error event, not a panic.
    pub fn build(self) -> Result<Fetcher, SetupError> {
        self.policy.validate()?;
        if tokio::runtime::Handle::try_current().is_ok() && !crate::net::timer_available() {
            return Err(SetupError::NoTimer);
        }
        let resolver = match self.resolver {
            Some(r) => r,
            #[cfg(feature = "hickory")]
            None => Arc::new(crate::net::HickoryResolve::system()?),
            #[cfg(not(feature = "hickory"))]
            None => return Err(SetupError::NoResolver),
        };
        Ok(Fetcher {
            inner: Arc::new(Inner {
                resolver,
                dialer: self.dialer.unwrap_or_else(|| Arc::new(TcpDial)),
                tls: tokio_rustls::TlsConnector::from(self.tls.client_config()?),
                audit: self.audit,
                pool: Pool::new(Limits {
                    per_host: self.policy.idle_per_host,
                    total: self.policy.idle_total,
                    idle_timeout: self.policy.idle_timeout,
                }),
                policy: self.policy,
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
    audit: AuditSettings,
    /// Idle connections (`Policy::connection_reuse`).
    pool: Arc<Pool>,
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
        self.call_audited(args).await.0
    }

    /// [`Fetcher::call`], with the audit record of the call beside the
    /// outcome (the outcome is the same either way).
    pub async fn call_audited(&self, args: &Value) -> (Outcome, FetchAudit) {
        let started = Instant::now();
        let policy = &self.inner.policy;
        let mut audit = FetchAudit::new();
        audit.requested_url = args
            .get("url")
            .and_then(Value::as_str)
            .map(|u| self.inner.audit.url(u));
        let span = tracing::info_span!(target: "webgate", "web_fetch", url = ?audit.requested_url);
        let result = async {
            match parse_fetch_args(args, policy) {
                Ok(a) => {
                    self.fetch_into(
                        &a.url,
                        FetchOptions {
                            max_chars: Some(a.max_chars),
                            raw: a.raw,
                            whole: false,
                        },
                        &mut audit,
                        &RobotsMemo::new(),
                    )
                    .await
                }
                Err(e) => {
                    let e = FetchError::from(e);
                    audit.args_refused = Some(e.id());
                    tracing::info!(target: "webgate", id = e.id(), "arguments refused");
                    Err(e)
                }
            }
        }
        .instrument(span.clone())
        .await;
        let _in = span.enter();
        let outcome = match result {
            Ok(f) => Outcome::ok("fetch.ok", f.render()),
            Err(e) => e.into(),
        };
        audit.class = outcome.class.as_str();
        audit.id = outcome.id;
        audit.total_ms = ms(started.elapsed());
        tracing::info!(
            target: "webgate",
            class = audit.class,
            id = audit.id,
            total_ms = audit.total_ms,
            "web_fetch done"
        );
        (outcome, audit)
    }

    /// The record of a call refused before anything was sent: its
    /// arguments (`args_refused` names the message), its URL (`admission`
    /// does), or the agent layer's own rules (the outcome's id says
    /// which). `url` is the `url` argument, redacted as every record's.
    pub(crate) fn refused_record(
        &self,
        url: Option<&str>,
        refused: Refused,
        outcome: &Outcome,
        started: Instant,
    ) -> FetchAudit {
        let mut audit = FetchAudit::new();
        audit.requested_url = url.map(|u| self.inner.audit.url(u));
        match refused {
            Refused::Arguments => audit.args_refused = Some(outcome.id),
            Refused::Admission => audit.admission = Some(outcome.id),
            Refused::Other => {}
        }
        audit.class = outcome.class.as_str();
        audit.id = outcome.id;
        audit.total_ms = ms(started.elapsed());
        tracing::info!(
            target: "webgate",
            class = audit.class,
            id = audit.id,
            "web_fetch refused before the network"
        );
        audit
    }

    /// The typed API: fetch one URL.
    pub async fn fetch(&self, url: &str, opts: FetchOptions) -> Result<Fetched, FetchError> {
        self.fetch_audited(url, opts).await.0
    }

    /// [`Fetcher::fetch`] with the audit record of the call.
    pub async fn fetch_audited(
        &self,
        url: &str,
        opts: FetchOptions,
    ) -> (Result<Fetched, FetchError>, FetchAudit) {
        self.fetch_audited_with(url, opts, &RobotsMemo::new()).await
    }

    /// [`Fetcher::fetch_audited`] as part of a run that keeps the
    /// robots.txt files it read in `memo` (used only when the policy
    /// reads robots.txt; [`crate::agent::Run`] keeps one per run).
    pub async fn fetch_audited_with(
        &self,
        url: &str,
        opts: FetchOptions,
        memo: &RobotsMemo,
    ) -> (Result<Fetched, FetchError>, FetchAudit) {
        let started = Instant::now();
        let mut audit = FetchAudit::new();
        audit.requested_url = Some(self.inner.audit.url(url));
        let span = tracing::info_span!(target: "webgate", "web_fetch", url = ?audit.requested_url);
        let r = self
            .fetch_into(url, opts, &mut audit, memo)
            .instrument(span)
            .await;
        let (class, id) = match &r {
            Ok(_) => ("ok", "fetch.ok"),
            Err(e) => (e.class().as_str(), e.id()),
        };
        audit.class = class;
        audit.id = id;
        audit.total_ms = ms(started.elapsed());
        (r, audit)
    }

    /// The fetch itself, writing its decisions into `audit`.
    async fn fetch_into(
        &self,
        url: &str,
        opts: FetchOptions,
        audit: &mut FetchAudit,
        memo: &RobotsMemo,
    ) -> Result<Fetched, FetchError> {
        let policy = &self.inner.policy;
        // Every limit needs Tokio's timer: without it the call fails here
        // (the host's set-up, said in an error event) rather than panic.
        if !crate::net::timer_available() {
            tracing::error!(
                target: "webgate",
                "no Tokio runtime with the time driver: the fetch is not made"
            );
            return Err(FetchError::NetFailed {
                url: url.to_string(),
            });
        }
        let max_chars = opts
            .max_chars
            .unwrap_or(policy.max_chars)
            .min(policy.max_chars);
        let mut current = match admit(url, policy) {
            Ok(u) => {
                audit.admission = Some("admitted");
                u
            }
            Err(e) => {
                let e = FetchError::from(e);
                audit.admission = Some(e.id());
                tracing::info!(target: "webgate", id = e.id(), "url refused by admission");
                return Err(e);
            }
        };
        let mut followed = 0u32;
        // The whole call's limit, when the host set one: every hop's own
        // deadline is the earlier of the two.
        let call_deadline = policy.call_timeout.map(deadline_after);
        loop {
            if policy.robots_txt {
                match call_deadline {
                    Some(d) => tokio::time::timeout_at(d, self.robots_check(&current, memo, audit))
                        .await
                        .unwrap_or_else(|_| {
                            Err(FetchError::Timeout {
                                url: current.display(),
                            })
                        })?,
                    None => self.robots_check(&current, memo, audit).await?,
                }
            }
            // A limit too long to add (a host's `Duration::MAX` for "no
            // limit") is a deadline that never comes, not a panic.
            let deadline = deadline_after(policy.request_timeout);
            let deadline = call_deadline.map_or(deadline, |d| d.min(deadline));
            audit.hops.push(HopAudit {
                url: self.inner.audit.url(current.as_str()),
                ..Default::default()
            });
            // OK because a hop was just pushed.
            let hop = audit.hops.last_mut().expect("hop");
            let span =
                tracing::info_span!(target: "webgate", "request", hop = followed, url = %hop.url);
            let mut gone = false;
            let first = self
                .exchange(&current, deadline, hop, &mut gone)
                .instrument(span.clone())
                .await;
            let (resp, conn) = match first {
                Ok(x) => x,
                // The connection ended before the response began (a
                // server closing a kept-alive connection, or an h2 GOAWAY
                // that hyper acted on before taking the request): the GET
                // is repeated once, on a fresh lookup, vetting and
                // connection, within the same deadline.
                Err(_) if gone => {
                    span.in_scope(|| {
                        tracing::info!(
                            target: "webgate",
                            "connection ended before the response; retrying once"
                        );
                    });
                    audit.hops.push(HopAudit {
                        url: self.inner.audit.url(current.as_str()),
                        retry: true,
                        ..Default::default()
                    });
                    // OK because a hop was just pushed.
                    let hop = audit.hops.last_mut().expect("hop");
                    let mut again = false;
                    self.exchange(&current, deadline, hop, &mut again)
                        .instrument(span.clone())
                        .await?
                }
                Err(e) => return Err(e),
            };
            // OK because a hop was pushed above.
            let hop = audit.hops.last_mut().expect("hop");
            let status = resp.status().as_u16();
            hop.status = Some(status);
            progress::report(Progress::Head { status });
            let decision = span.in_scope(|| {
                tracing::info!(target: "webgate", status, "response head");
                let location = resp
                    .headers()
                    .get(LOCATION)
                    .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
                match next_hop(&current, status, location.as_deref(), followed, policy) {
                    Hop::Follow(next) => {
                        let to = self.inner.audit.url(next.as_str());
                        tracing::info!(target: "webgate", to = %to, "redirect followed");
                        hop.redirect = Some(RedirectAudit {
                            verdict: RedirectVerdict::Followed,
                            to: Some(to),
                            reason: None,
                        });
                        Some(Ok(next))
                    }
                    Hop::Refuse(e) => {
                        let reason = match &e {
                            FetchError::RedirectRefused { reason, .. } => Some(reason.id()),
                            _ => None,
                        };
                        tracing::info!(target: "webgate", reason, "redirect refused");
                        hop.redirect = Some(RedirectAudit {
                            verdict: RedirectVerdict::Refused,
                            to: None,
                            reason,
                        });
                        hop.failed_at = Some(FailedAt::Redirect);
                        Some(Err(e))
                    }
                    Hop::NotARedirect => None,
                }
            });
            match decision {
                Some(Ok(next)) => {
                    // The redirect's own body is never read.
                    drop((resp, conn));
                    current = next;
                    followed += 1;
                    progress::report(Progress::Redirect {
                        hop: followed,
                        to: current.display(),
                    });
                    continue;
                }
                Some(Err(e)) => return Err(e),
                None => {}
            }
            return self
                .read(
                    &current,
                    (resp, conn),
                    deadline,
                    call_deadline,
                    max_chars,
                    opts,
                    audit,
                )
                .instrument(span)
                .await;
        }
    }

    /// The robots.txt rule for `url` (the policy reads robots.txt): the
    /// origin's file from `memo`, or read now and kept there; a URL it
    /// does not allow is refused with the robots message.
    async fn robots_check(
        &self,
        url: &AdmittedUrl,
        memo: &RobotsMemo,
        audit: &mut FetchAudit,
    ) -> Result<(), FetchError> {
        let policy = &self.inner.policy;
        let origin = url.as_url().origin().ascii_serialization();
        let mut record = RobotsAudit {
            url: self.inner.audit.url(url.as_str()),
            verdict: RobotsVerdict::Unreachable,
            file: RobotsFile::Unreachable,
            remembered: false,
            hops: Vec::new(),
        };
        // Calls of one run that ask at once wait for one read: the one
        // that reads records the hops, the others record `remembered`.
        let got = match memo.claim(&origin).await {
            robots::Claimed::Read(f) => {
                record.remembered = true;
                Ok(f)
            }
            robots::Claimed::Mine(ticket) => {
                let read = self.read_robots_traced(&origin, &mut record.hops).await;
                ticket.settle(read.as_ref().ok().cloned());
                read
            }
            robots::Claimed::Unkept => self.read_robots_traced(&origin, &mut record.hops).await,
        };
        let file = match got {
            Ok(f) => f,
            Err(e) => {
                audit.robots.push(record);
                return Err(e);
            }
        };
        record.file = match *file {
            RobotsTxt::Rules(_) => RobotsFile::Rules,
            RobotsTxt::Unavailable => RobotsFile::Unavailable,
            RobotsTxt::Unreachable(_) => RobotsFile::Unreachable,
        };
        let agent = robots::product_token(&policy.user_agent);
        let verdict = file.verdict(agent, &robots::path_of(url.as_url()));
        let refusal = match verdict {
            robots::Verdict::Allowed => None,
            robots::Verdict::Disallowed => Some(RobotsRefusal::Disallowed),
            robots::Verdict::Unreachable(u) => Some(RobotsRefusal::Unreachable(u)),
        };
        record.verdict = match verdict {
            robots::Verdict::Allowed => RobotsVerdict::Allowed,
            robots::Verdict::Disallowed => RobotsVerdict::Disallowed,
            robots::Verdict::Unreachable(_) => RobotsVerdict::Unreachable,
        };
        tracing::info!(
            target: "webgate",
            verdict = record.verdict.as_str(),
            file = record.file.as_str(),
            remembered = record.remembered,
            "robots.txt"
        );
        audit.robots.push(record);
        match refusal {
            None => Ok(()),
            Some(refusal) => Err(FetchError::Robots {
                url: url.display(),
                refusal,
            }),
        }
    }

    /// [`Self::read_robots`] in its `robots.txt` span, the file made
    /// shareable (a run keeps it in its memo).
    async fn read_robots_traced(
        &self,
        origin: &str,
        hops: &mut Vec<HopAudit>,
    ) -> Result<Arc<RobotsTxt>, FetchError> {
        self.read_robots(origin, hops)
            .instrument(tracing::info_span!(target: "webgate", "robots.txt", %origin))
            .await
            .map(Arc::new)
    }

    /// Reads `origin`'s `/robots.txt` under the policy: the same lookup,
    /// vetting, dialling and hop rules as any request, every hop within
    /// one `request_timeout`, the body (any type, codings undone) up to
    /// [`robots::MAX_BYTES`]. What comes back decides as RFC 9309 says; a
    /// host that does not resolve, or only to blocked addresses, fails
    /// with the contract's own message (the page would fail the same way).
    async fn read_robots(
        &self,
        origin: &str,
        hops: &mut Vec<HopAudit>,
    ) -> Result<RobotsTxt, FetchError> {
        let policy = &self.inner.policy;
        let mut current = admit(&format!("{origin}/robots.txt"), policy)?;
        let deadline = deadline_after(policy.request_timeout);
        let mut followed = 0u32;
        loop {
            hops.push(HopAudit {
                url: self.inner.audit.url(current.as_str()),
                ..Default::default()
            });
            // OK because a hop was just pushed.
            let hop = hops.last_mut().expect("hop");
            let mut gone = false;
            let (resp, conn) = match self.exchange(&current, deadline, hop, &mut gone).await {
                Ok(x) => x,
                Err(e @ (FetchError::DnsFailed { .. } | FetchError::NoAllowedAddress { .. })) => {
                    return Err(e)
                }
                Err(FetchError::Timeout { .. }) => {
                    return Ok(RobotsTxt::Unreachable(Unreachable::Timeout))
                }
                Err(_) => return Ok(RobotsTxt::Unreachable(Unreachable::Network)),
            };
            let status = resp.status().as_u16();
            hop.status = Some(status);
            let location = resp
                .headers()
                .get(LOCATION)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            match next_hop(&current, status, location.as_deref(), followed, policy) {
                Hop::Follow(next) => {
                    hop.redirect = Some(RedirectAudit {
                        verdict: RedirectVerdict::Followed,
                        to: Some(self.inner.audit.url(next.as_str())),
                        reason: None,
                    });
                    drop((resp, conn));
                    current = next;
                    followed += 1;
                    continue;
                }
                // RFC 9309 §2.3.1.2: redirects that cannot be followed
                // leave the file unavailable, which allows everything (the
                // page's own request still meets every rule).
                Hop::Refuse(e) => {
                    hop.redirect = Some(RedirectAudit {
                        verdict: RedirectVerdict::Refused,
                        to: None,
                        reason: match &e {
                            FetchError::RedirectRefused { reason, .. } => Some(reason.id()),
                            _ => None,
                        },
                    });
                    return Ok(RobotsTxt::Unavailable);
                }
                Hop::NotARedirect => {}
            }
            if let Some(file) = RobotsTxt::from_status(status) {
                return Ok(file);
            }
            let Ok(codings) = body::head::codings(&all(resp.headers(), CONTENT_ENCODING)) else {
                hop.failed_at = Some(FailedAt::Body);
                return Ok(RobotsTxt::Unreachable(Unreachable::Network));
            };
            let Ok(mut decoder) = BodyDecoder::new(
                &codings,
                robots::MAX_BYTES.min(policy.body_cap),
                CapMode::Truncate,
            ) else {
                return Ok(RobotsTxt::Unreachable(Unreachable::Network));
            };
            let t = Instant::now();
            let read = http::pull(resp.into_body(), &mut decoder, deadline, |_| {}).await;
            hop.phases.body_ms = Some(ms(t.elapsed()));
            hop.body = Some(BodyAudit {
                bytes_received: decoder.received(),
                bytes_inflated: decoder.inflated(),
                ..Default::default()
            });
            let finished = read.and_then(|()| decoder.finish());
            if matches!(&finished, Ok(b) if !b.truncated) {
                self.release(conn);
            }
            return Ok(match finished {
                Ok(b) => RobotsTxt::parse(&b.bytes),
                Err(_) => {
                    hop.failed_at = Some(FailedAt::Body);
                    if Instant::now() >= deadline {
                        RobotsTxt::Unreachable(Unreachable::Timeout)
                    } else {
                        RobotsTxt::Unreachable(Unreachable::Network)
                    }
                }
            });
        }
    }

    /// One request: resolve, vet, dial, TLS, send, and wait for the head.
    /// `gone` is set when the connection ended before the response head
    /// in a way that a fresh connection may not repeat (see
    /// [`http::connection_gone`]).
    async fn exchange(
        &self,
        url: &AdmittedUrl,
        deadline: Instant,
        hop: &mut HopAudit,
        gone: &mut bool,
    ) -> Result<(Response<Incoming>, Lease), FetchError> {
        let inner = &self.inner;
        let timed_out = || FetchError::Timeout { url: url.display() };
        let failed = || FetchError::NetFailed {
            url: url.as_str().to_string(),
        };
        let host = url.host();

        progress::report(Progress::Resolving {
            host: host.to_string(),
        });
        let t = Instant::now();
        // A lookup has the connect limit's time: a DNS server that does not
        // answer is a failed lookup, not a request that timed out (unless
        // the request's own limit comes first).
        let lookup_by = deadline.min(
            t.checked_add(inner.policy.connect_timeout)
                .unwrap_or(deadline),
        );
        let answers = tokio::time::timeout_at(lookup_by, inner.resolver.resolve(host)).await;
        hop.phases.resolve_ms = Some(ms(t.elapsed()));
        let answers = answers
            .map_err(|_| {
                hop.failed_at = Some(FailedAt::Resolve);
                if lookup_by < deadline {
                    let cause = "no answer within the connect limit";
                    tracing::info!(target: "webgate", cause, "lookup failed");
                    hop.cause = Some(cause.to_string());
                    FetchError::DnsFailed {
                        host: host.to_string(),
                    }
                } else {
                    let cause = "no answer within the request limit";
                    tracing::info!(target: "webgate", cause, "lookup failed");
                    hop.cause = Some(cause.to_string());
                    timed_out()
                }
            })?
            .map_err(|e| {
                hop.failed_at = Some(FailedAt::Resolve);
                tracing::info!(target: "webgate", cause = %e, "lookup failed");
                hop.cause = Some(e.to_string());
                FetchError::DnsFailed {
                    host: host.to_string(),
                }
            })?;
        // Every address is judged; only the allowed ones are kept, in the
        // resolver's order.
        let mut vetted = Vec::new();
        for a in answers {
            let verdict = vet(a);
            match &verdict {
                Ok(_) => tracing::info!(target: "webgate", ip = %a, "address allowed"),
                Err(r) => tracing::info!(
                    target: "webgate",
                    ip = %a,
                    range = %r,
                    range_name = r.name(),
                    "address blocked"
                ),
            }
            hop.addresses.push(AddressAudit::new(
                a,
                verdict.as_ref().map(|_| ()).map_err(|r| *r),
            ));
            if let Ok(v) = verdict {
                vetted.push(v);
            }
        }
        if vetted.is_empty() {
            hop.failed_at = Some(FailedAt::Vet);
            return Err(FetchError::NoAllowedAddress {
                host: host.to_string(),
            });
        }

        let port = url.port();
        if inner.policy.connection_reuse {
            // Only this lookup's vetted addresses, under this host: a kept
            // connection to anything else is never asked for.
            let addrs: Vec<SocketAddr> = vetted
                .iter()
                .map(|v| SocketAddr::new(v.ip(), port))
                .collect();
            while let Some(conn) = inner.pool.take(host, &addrs) {
                tracing::info!(target: "webgate", addr = %conn.addr, "kept connection taken");
                match self.request_on(url, conn, true, deadline, hop).await {
                    Sent::Answered(x) => return Ok(*x),
                    // It closed while idle (the server's keep-alive ran
                    // out): the next one, or a fresh dial, in the same
                    // deadline.
                    Sent::Stale => {
                        hop.stale_connections += 1;
                        tracing::info!(target: "webgate", "kept connection had closed");
                    }
                    Sent::Failed(e, _) => return Err(e),
                }
            }
        }

        let connect_by = deadline.min(deadline_after(inner.policy.connect_timeout));
        let t = Instant::now();
        // Attempts staggered by the attempt delay, in the resolver's order,
        // all within the one connect limit (net::eyeballs).
        let race = eyeballs::race(
            inner.dialer.as_ref(),
            vetted,
            port,
            inner.policy.connect_attempt_delay,
            &mut hop.dials,
        );
        let stream = tokio::time::timeout_at(connect_by, race).await;
        hop.phases.connect_ms = Some(ms(t.elapsed()));
        let (addr, stream) = match stream {
            Ok(Ok(s)) => s,
            Ok(Err(())) => {
                hop.failed_at = Some(FailedAt::Connect);
                return Err(failed());
            }
            Err(_) => {
                hop.failed_at = Some(FailedAt::Connect);
                return Err(timed_out());
            }
        };

        progress::report(Progress::Connecting {
            host: host.to_string(),
        });
        let name = ServerName::try_from(host.to_string()).map_err(|_| failed())?;
        let t = Instant::now();
        let tls = tokio::time::timeout_at(deadline, inner.tls.connect(name, stream)).await;
        hop.phases.tls_ms = Some(ms(t.elapsed()));
        let tls = match tls {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                hop.failed_at = Some(FailedAt::Tls);
                tracing::info!(target: "webgate", error = %e, "tls handshake failed");
                hop.cause = Some(error_chain(&e));
                return Err(failed());
            }
            Err(_) => {
                hop.failed_at = Some(FailedAt::Tls);
                return Err(timed_out());
            }
        };
        let session = tls.get_ref().1;
        let tls_audit = TlsAudit {
            version: session
                .protocol_version()
                .map(|v| format!("{v:?}"))
                .unwrap_or_default(),
            alpn: session
                .alpn_protocol()
                .map(|p| String::from_utf8_lossy(p).into_owned()),
        };
        tracing::info!(
            target: "webgate",
            version = %tls_audit.version,
            alpn = ?tls_audit.alpn,
            "tls established"
        );
        hop.tls = Some(tls_audit.clone());
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
        let t = Instant::now();
        let shaken = tokio::time::timeout_at(deadline, conn::handshake(tls, h2)).await;
        let (sender, guard) = match shaken {
            Ok(Ok(x)) => x,
            Ok(Err(e)) => {
                hop.phases.head_ms = Some(ms(t.elapsed()));
                hop.failed_at = Some(FailedAt::Head);
                *gone = http::connection_gone(&e);
                tracing::info!(target: "webgate", error = %e, gone = *gone, "no response head");
                hop.cause = Some(error_chain(&e));
                return Err(failed());
            }
            Err(_) => {
                hop.phases.head_ms = Some(ms(t.elapsed()));
                hop.failed_at = Some(FailedAt::Head);
                return Err(timed_out());
            }
        };
        let conn = Conn {
            sender,
            _task: guard,
            addr,
            h2,
            tls: tls_audit,
        };
        match self.request_on(url, conn, false, deadline, hop).await {
            Sent::Answered(x) => Ok(*x),
            // Only a kept connection is ever stale; were a fresh one
            // reported so, it is a failed request, not a panic.
            Sent::Stale => Err(failed()),
            Sent::Failed(e, was_gone) => {
                *gone = was_gone;
                Err(e)
            }
        }
    }

    /// Sends the GET for `url` on `conn` and waits for the head. On a kept
    /// connection (`kept`), one that has closed, or ends before any
    /// response, is [`Sent::Stale`]: the request never reached a server
    /// that answered it, and a fresh connection may be tried.
    async fn request_on(
        &self,
        url: &AdmittedUrl,
        mut conn: Conn,
        kept: bool,
        deadline: Instant,
        hop: &mut HopAudit,
    ) -> Sent {
        let timed_out = || FetchError::Timeout { url: url.display() };
        let failed = || FetchError::NetFailed {
            url: url.as_str().to_string(),
        };
        let t = Instant::now();
        if kept {
            match tokio::time::timeout_at(deadline, conn.sender.ready()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Sent::Stale,
                Err(_) => {
                    hop.failed_at = Some(FailedAt::Head);
                    return Sent::Failed(timed_out(), false);
                }
            }
        }
        let Some(req) = http::request(
            Method::GET,
            url.as_url(),
            conn.h2,
            &self.inner.policy.user_agent,
            &[(
                ACCEPT_ENCODING,
                HeaderValue::from_static(body::ACCEPT_ENCODING),
            )],
            Bytes::new(),
        ) else {
            return Sent::Failed(failed(), false);
        };
        progress::report(Progress::Requesting { url: url.display() });
        let head = tokio::time::timeout_at(deadline, conn.sender.send(req)).await;
        hop.phases.head_ms = Some(ms(t.elapsed()));
        match head {
            Ok(Ok(resp)) => {
                if kept {
                    hop.reused = true;
                    hop.tls = Some(conn.tls.clone());
                    tracing::info!(target: "webgate", addr = %conn.addr, "connection reused");
                }
                // `Connection: close` is honoured: the connection goes
                // when the response has been read.
                let keep = !resp.headers().get_all(CONNECTION).iter().any(|v| {
                    v.to_str()
                        .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")))
                });
                let host = url.host().to_string();
                Sent::Answered(Box::new((resp, Lease { conn, host, keep })))
            }
            Ok(Err(e)) => {
                // A kept connection that fails before any response (closed
                // by the server's keep-alive, reset, cut without TLS
                // close_notify) answered nothing: a fresh one is tried.
                if kept {
                    tracing::info!(target: "webgate", error = %e, "kept connection failed");
                    return Sent::Stale;
                }
                let gone = http::connection_gone(&e);
                hop.failed_at = Some(FailedAt::Head);
                tracing::info!(target: "webgate", error = %e, gone, "no response head");
                hop.cause = Some(error_chain(&e));
                Sent::Failed(failed(), gone)
            }
            Err(_) => {
                hop.failed_at = Some(FailedAt::Head);
                Sent::Failed(timed_out(), false)
            }
        }
    }

    /// Gives a connection whose response was read to the end back to the
    /// pool, when the policy keeps connections.
    fn release(&self, lease: Lease) {
        if self.inner.policy.connection_reuse {
            self.inner.pool.put(lease);
        }
    }

    /// The response after the head: status, Content-Type, charset,
    /// Content-Length, then the body under the cap, then the text.
    #[allow(clippy::too_many_arguments)]
    async fn read(
        &self,
        url: &AdmittedUrl,
        (resp, conn): (Response<Incoming>, Lease),
        deadline: Instant,
        call_deadline: Option<Instant>,
        max_chars: usize,
        opts: FetchOptions,
        audit: &mut FetchAudit,
    ) -> Result<Fetched, FetchError> {
        let policy = &self.inner.policy;
        // OK because the caller pushed this request's hop.
        let hop = audit.hops.last_mut().expect("hop");
        let shown = url.display();
        let headers = resp.headers();
        let head = body::head::Head {
            status: resp.status().as_u16(),
            content_type: all(headers, CONTENT_TYPE),
            content_length: headers.get(CONTENT_LENGTH).map(|v| v.as_bytes()),
            content_encoding: all(headers, CONTENT_ENCODING),
        };
        let mut judged = BodyAudit::default();
        let plan = match body::head::judge(&head, policy.body_cap, &mut judged) {
            // A status refusal judged no body: the hop records none.
            Err(refusal @ body::head::HeadRefusal::Status(_)) => {
                hop.failed_at = Some(refusal.failed_at());
                return Err(refusal.into_error(shown, policy.body_cap));
            }
            judged => judged,
        };
        let body_audit = hop.body.insert(judged);
        let plan = match plan {
            Ok(plan) => plan,
            Err(refusal) => {
                hop.failed_at = Some(refusal.failed_at());
                match refusal {
                    body::head::HeadRefusal::DeclaredOverCap => tracing::info!(
                        target: "webgate",
                        declared = body_audit.declared_length,
                        "declared length over the cap"
                    ),
                    body::head::HeadRefusal::Codings => tracing::info!(
                        target: "webgate",
                        "unknown or too many content codings"
                    ),
                    _ => {}
                }
                return Err(refusal.into_error(shown, policy.body_cap));
            }
        };
        let unreadable = || FetchError::BodyRead { url: shown.clone() };
        tracing::info!(
            target: "webgate",
            class = body_audit.class.map(|c| c.as_str()),
            charset = plan.encoding.name(),
            encodings = ?body_audit.encodings,
            "body accepted for reading"
        );
        let mut decoder = BodyDecoder::new(&plan.codings, policy.body_cap, plan.mode)
            .map_err(|_| unreadable())?;
        let t = Instant::now();
        let mut reported = 0;
        let read = http::pull(resp.into_body(), &mut decoder, deadline, |d| {
            // Progress every BODY_REPORT_BYTES received.
            let steps = d.received() / progress::BODY_REPORT_BYTES;
            if steps > reported {
                reported = steps;
                progress::report(Progress::Body {
                    bytes: d.received(),
                });
            }
        })
        .await;
        body_audit.bytes_received = decoder.received();
        body_audit.bytes_inflated = decoder.inflated();
        progress::report(Progress::Body {
            bytes: decoder.received(),
        });
        let body = read.and_then(|()| decoder.finish());
        hop.phases.body_ms = Some(ms(t.elapsed()));
        // Read to the end: the connection may serve a later request.
        if matches!(&body, Ok(b) if !b.truncated) {
            self.release(conn);
        }
        let body = match body {
            Ok(b) => b,
            Err(f) => {
                hop.failed_at = Some(FailedAt::Body);
                if f == BodyFail::Cap {
                    body_audit.cap = Some(CapAction::Refused);
                }
                tracing::info!(
                    target: "webgate",
                    received = body_audit.bytes_received,
                    inflated = body_audit.bytes_inflated,
                    cap = f == BodyFail::Cap,
                    "body failed"
                );
                return Err(match f {
                    BodyFail::Cap => FetchError::BodyCap {
                        url: shown.clone(),
                        limit: policy.body_cap,
                    },
                    BodyFail::Unreadable => unreadable(),
                });
            }
        };
        if body.truncated {
            body_audit.cap = Some(CapAction::Truncated);
        }
        tracing::info!(
            target: "webgate",
            received = body_audit.bytes_received,
            inflated = body_audit.bytes_inflated,
            truncated_at_cap = body.truncated,
            "body read"
        );
        let t = Instant::now();
        let decoded = charset::decode_owned(body.bytes, plan.encoding);
        let (mut text, extraction, title, extract_cut) = match plan.class {
            MediaClass::Html => {
                progress::report(Progress::Extracting);
                let page = extract_html(
                    decoded,
                    url.as_url().clone(),
                    opts.raw,
                    policy,
                    call_deadline,
                )
                .await;
                // The whole call's limit passed while the page was being
                // made into text: the call answers with the time-limit
                // text, as it would have had it passed before the head.
                if call_deadline.is_some_and(|d| Instant::now() >= d) {
                    hop.failed_at = Some(FailedAt::Extract);
                    return Err(FetchError::Timeout { url: shown.clone() });
                }
                if let Some(why) = page.cut {
                    tracing::info!(target: "webgate", cut = why.as_str(), "extraction stopped early");
                }
                (page.text, page.extraction, page.title, page.cut)
            }
            MediaClass::Structured | MediaClass::Text => (decoded, Extraction::Plain, None, None),
        };
        let cut = extract_cut.is_some()
            || (!opts.whole && body::text::truncate_chars(&mut text, max_chars));
        audit.extract_ms = Some(ms(t.elapsed()));
        audit.extract_cut = extract_cut.map(extract::Cut::as_str);
        audit.extraction = Some(extraction.to_string());
        audit.truncated = Some(cut || body.truncated);
        audit.chars = Some(text.chars().count());
        tracing::info!(
            target: "webgate",
            extraction = %extraction,
            truncated = cut || body.truncated,
            "text ready"
        );
        Ok(Fetched {
            url: url.as_str().to_string(),
            truncated: cut || body.truncated,
            extraction,
            text,
            title,
            cut: extract_cut,
        })
    }
}

/// How a request on one connection ended.
enum Sent {
    /// The head arrived.
    Answered(Box<(Response<Incoming>, Lease)>),
    /// A kept connection had closed; nothing was answered.
    Stale,
    /// The request failed; whether the connection went away before any
    /// response (the GET may be repeated once on a fresh lookup).
    Failed(FetchError, bool),
}

/// Every value of one header, in order.
fn all(headers: &hyper::HeaderMap, name: HeaderName) -> Vec<&[u8]> {
    headers.get_all(name).iter().map(|v| v.as_bytes()).collect()
}

/// An error and its sources, `: `-joined (hyper's own text is often just
/// "connection error" with the detail one source down).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        out.push_str(": ");
        out.push_str(&s.to_string());
        next = s.source();
    }
    out
}

/// `now + limit`, or about thirty years from now when that does not fit in
/// an `Instant` (a limit of `Duration::MAX` means "no limit").
pub(crate) fn deadline_after(limit: std::time::Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(limit)
        .or_else(|| now.checked_add(std::time::Duration::from_secs(30 * 365 * 86_400)))
        .unwrap_or(now)
}

/// Turns an HTML page into text on a blocking thread (extraction is CPU
/// work: it must not hold up the runtime's other tasks), within the
/// policy's extraction limit. The limit is a bound, not a hint: the work
/// is told to stop a little before it ([`extract_margin`]) and returns
/// what it made; were it still running at the limit, the call answers
/// anyway (the page reads as empty, marked truncated) and the thread is
/// told to stop at its next look at the flag.
async fn extract_html(
    html: String,
    base: url::Url,
    raw: bool,
    policy: &Policy,
    call_deadline: Option<Instant>,
) -> extract::Page {
    // The whole call's limit, when set and nearer, bounds the extraction
    // too.
    let limit = call_deadline.map_or(policy.extract_timeout, |d| {
        policy
            .extract_timeout
            .min(d.saturating_duration_since(Instant::now()))
    });
    let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let options = extract::Options {
        deadline: std::time::Instant::now()
            .checked_add(limit.saturating_sub(extract_margin(limit))),
        cancel: Some(cancel.clone()),
        links: policy.links,
        comments: policy.comments,
        ..extract::Options::new(raw, extract::Style::Markdown)
    };
    let job = tokio::task::spawn_blocking(move || extract::extract(&html, &base, &options));
    answer_by(deadline_after(limit), cancel, job)
        .await
        .unwrap_or_else(|| extract::Page {
            text: String::new(),
            extraction: Extraction::RawHtml,
            title: None,
            truncated: true,
            cut: Some(extract::Cut::TimeLimit),
        })
}

/// How long before the extraction limit the work is told to stop, so
/// that what it made is back in time: a tenth of the limit, at most
/// 250 ms.
fn extract_margin(limit: Duration) -> Duration {
    (limit / 10).min(Duration::from_millis(250))
}

/// `job`'s answer if it comes by `deadline`; else `None`, with `cancel`
/// set so that the work stops soon after. A job that failed (a lost
/// thread) is `None` too.
async fn answer_by<T>(
    deadline: Instant,
    cancel: Arc<std::sync::atomic::AtomicBool>,
    job: tokio::task::JoinHandle<T>,
) -> Option<T> {
    match tokio::time::timeout_at(deadline, job).await {
        Ok(Ok(answer)) => Some(answer),
        Ok(Err(_)) => None,
        Err(_) => {
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            None
        }
    }
}

/// How long a fetch may take at most, all hops and the extraction
/// included: a bound for hosts that wrap calls in their own time-outs
/// (saturating: a policy of `Duration::MAX` limits gives `Duration::MAX`).
pub fn worst_case_duration(policy: &Policy) -> Duration {
    // With robots.txt read, each hop may first read its origin's file,
    // all of that file's hops within one more request limit.
    let per_hop = if policy.robots_txt { 2 } else { 1 };
    let hops = policy
        .request_timeout
        .saturating_mul(per_hop)
        .saturating_mul(policy.max_redirects.saturating_add(1))
        .saturating_add(policy.extract_timeout);
    // The whole call's limit, when set, bounds all of it.
    policy.call_timeout.map_or(hops, |c| c.min(hops))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}

    /// The extraction limit is a bound: a job still running at the
    /// deadline (here, one that never ends) is answered for, and told to
    /// stop. The paused clock runs the limit; no wall time is waited.
    #[tokio::test(start_paused = true)]
    async fn the_call_answers_by_its_deadline_whatever_the_work_does() {
        let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let job = tokio::spawn(std::future::pending::<()>());
        let deadline = Instant::now() + Duration::from_secs(10);
        let answer = answer_by(deadline, cancel.clone(), job).await;
        assert!(answer.is_none());
        assert_eq!(Instant::now(), deadline);
        assert!(cancel.load(std::sync::atomic::Ordering::Relaxed));
        // A job that answers in time is taken as it is, the flag unset.
        let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let job = tokio::spawn(async { 7 });
        let deadline = Instant::now() + Duration::from_secs(10);
        assert_eq!(answer_by(deadline, cancel.clone(), job).await, Some(7));
        assert!(!cancel.load(std::sync::atomic::Ordering::Relaxed));
    }

    #[test]
    fn the_work_stops_before_the_limit() {
        assert_eq!(
            extract_margin(Duration::from_secs(10)),
            Duration::from_millis(250)
        );
        assert_eq!(
            extract_margin(Duration::from_millis(500)),
            Duration::from_millis(50)
        );
        assert_eq!(extract_margin(Duration::MAX), Duration::from_millis(250));
    }

    /// Hosts spawn calls on multi-threaded runtimes: the futures must be Send.
    /// (Built with ring: a build without it has no crypto provider here.)
    #[cfg(feature = "ring")]
    #[test]
    fn futures_are_send() {
        let f = Fetcher::builder()
            .resolver(Arc::new(crate::net::StaticResolve::new(Default::default())))
            .build()
            .expect("fetcher");
        let args = serde_json::json!({"url": "https://example.com/"});
        assert_send(&f.call(&args));
        assert_send(&f.call_audited(&args));
        assert_send(&f.fetch_audited("https://example.com/", FetchOptions::default()));
    }
}
