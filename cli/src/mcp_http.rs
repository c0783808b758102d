//! `webgate mcp --http ADDR`: both tools over MCP's Streamable HTTP
//! transport, for one webgate that a team shares.
//!
//! The transport is the official SDK's (rmcp's `StreamableHttpService`),
//! served by hyper at the path `/mcp`; this file decides only who may
//! reach it and how much it holds:
//!
//! - **Who.** A loopback address serves the machine it runs on; any other
//!   address needs a bearer token (`--token-file`), and once a token is
//!   set every request must carry it (`Authorization: Bearer …`, compared
//!   in constant time), or it is answered 401. A request that carries an
//!   `Origin` header is refused (403) unless the origin is allowed
//!   (`--allow-origin`): MCP asks servers to check it, so that a web page
//!   cannot drive a local server through DNS rebinding. On loopback the
//!   `Host` header must name the loopback too (the SDK's check); elsewhere
//!   it must be one of `--allow-host` when any is given.
//! - **How much.** A request body is at most [`MAX_BODY`] (413 past it),
//!   at most [`MAX_CONNECTIONS`] connections are served at once (the
//!   listener waits for one to close), and at most `--max-sessions`
//!   sessions live at once (503 with Retry-After for a new one past it;
//!   an idle session ends after [`SESSION_IDLE`]).
//! - **Sessions.** Each MCP session is one agent run, as one stdio process
//!   is: its own budgets (`--fetch-budget`, `--search-budget`). The audit
//!   records of every session go to the one stderr, a line each.
//!   `--stateless` drops sessions: every request is served on its own (no
//!   `Mcp-Session-Id`, JSON replies), so any number of processes can sit
//!   behind any HTTP load balancer; budgets then bound each request only.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, AUTHORIZATION, RETRY_AFTER, WWW_AUTHENTICATE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;
use webgate::agent::Toolbox;

use crate::mcp::Server;

/// The path the transport is served at.
pub(crate) const PATH: &str = "/mcp";

/// The largest request body taken (a tool call is a few hundred bytes).
pub(crate) const MAX_BODY: usize = 1 << 20;

/// The most connections served at once.
pub(crate) const MAX_CONNECTIONS: usize = 4096;

/// How long a session may stay idle before it ends.
pub(crate) const SESSION_IDLE: Duration = Duration::from_secs(300);

/// What `--http` serves, as the options gave it.
pub(crate) struct HttpOptions {
    pub addr: SocketAddr,
    /// The bearer token (the token file's first line), if any.
    pub token: Option<String>,
    pub allow_origins: Vec<String>,
    pub allow_hosts: Vec<String>,
    pub stateless: bool,
    pub max_sessions: usize,
}

/// The set-up check: a non-loopback address needs a token, and a token
/// is long enough to guess at no better than chance.
pub(crate) fn check(o: &HttpOptions) -> Result<(), String> {
    match &o.token {
        None if !o.addr.ip().is_loopback() => Err(format!(
            "--http {} is not a loopback address: it needs --token-file (a bearer token every \
             request must carry)",
            o.addr
        )),
        Some(t) if t.len() < 16 => {
            Err("the token in --token-file must be at least 16 characters".to_string())
        }
        Some(t) if !t.bytes().all(|b| b.is_ascii_graphic()) => {
            Err("the token in --token-file must be printable ASCII without spaces".to_string())
        }
        _ => Ok(()),
    }
}

/// The token from a token file: its first line, without surrounding
/// blanks.
pub(crate) fn read_token(path: &std::path::Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read --token-file {}: {e}", path.display()))?;
    Ok(text.lines().next().unwrap_or("").trim().to_string())
}

/// Whether an `Authorization` header carries `token` as a bearer token.
/// Constant time in the token's bytes: a wrong guess says nothing of how
/// much of it was right.
pub(crate) fn authorized(header: Option<&HeaderValue>, token: &str) -> bool {
    let Some(given) = header.map(HeaderValue::as_bytes).and_then(|h| {
        h.strip_prefix(b"Bearer ")
            .or_else(|| h.strip_prefix(b"bearer "))
    }) else {
        return false;
    };
    let want = token.as_bytes();
    if given.len() != want.len() {
        return false;
    }
    given
        .iter()
        .zip(want)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

type Body = BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *r.status_mut() = status;
    r
}

/// What every request passes before the SDK sees it.
struct Gate {
    token: Option<String>,
    sessions: Arc<LocalSessionManager>,
    max_sessions: usize,
    stateless: bool,
    service: StreamableHttpService<Server, LocalSessionManager>,
}

impl Gate {
    async fn answer(&self, req: Request<Incoming>) -> Response<Body> {
        if req.uri().path() != PATH {
            return plain(StatusCode::NOT_FOUND, "not found: MCP is served at /mcp\n");
        }
        if let Some(token) = &self.token {
            if !authorized(req.headers().get(AUTHORIZATION), token) {
                let mut r = plain(
                    StatusCode::UNAUTHORIZED,
                    "unauthorized: this server needs its bearer token\n",
                );
                r.headers_mut()
                    .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return r;
            }
        }
        let opens_session = !self.stateless
            && req.method() == Method::POST
            && !req.headers().contains_key("mcp-session-id");
        if opens_session && self.sessions.sessions.read().await.len() >= self.max_sessions {
            let mut r = plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "too many sessions: try again later\n",
            );
            r.headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from_static("5"));
            return r;
        }
        self.service.handle(req).await
    }
}

/// Serves `toolbox` over Streamable HTTP until interrupted (Ctrl-C or
/// SIGTERM's default), one session per MCP session.
pub(crate) async fn serve(
    toolbox: Arc<Toolbox>,
    audit: bool,
    o: HttpOptions,
) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(o.addr)
        .await
        .map_err(|e| format!("mcp: cannot listen on {}: {e}", o.addr))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("mcp: cannot listen on {}: {e}", o.addr))?;
    let mut session = SessionConfig::default();
    session.keep_alive = Some(SESSION_IDLE);
    let mut manager = LocalSessionManager::default();
    manager.session_config = session;
    let sessions = Arc::new(manager);
    let mut config = StreamableHttpServerConfig::default();
    config.legacy_session_mode = !o.stateless;
    config.json_response = o.stateless;
    config.max_request_body_bytes = MAX_BODY;
    let config = if o.addr.ip().is_loopback() && o.allow_hosts.is_empty() {
        config
    } else if o.allow_hosts.is_empty() {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(o.allow_hosts.clone())
    }
    .with_allowed_origins(o.allow_origins.clone())
    .enforce_origin_validation();
    let stop = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        move || {
            Ok(crate::mcp::session(
                &toolbox,
                audit,
                crate::mcp_wire::Calls::default(),
            ))
        },
        sessions.clone(),
        config,
    );
    let gate = Arc::new(Gate {
        token: o.token,
        sessions,
        max_sessions: o.max_sessions,
        stateless: o.stateless,
        service,
    });
    eprintln!("webgate mcp: serving MCP over Streamable HTTP at http://{local}{PATH}");
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            break;
        };
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = tokio::signal::ctrl_c() => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => {
                // Replies are small writes: without this, Nagle's
                // algorithm and the client's delayed ACK hold each one
                // for tens of milliseconds on a kept-alive connection.
                let _ = stream.set_nodelay(true);
                stream
            }
            Err(e) => {
                // Out of descriptors, say: wait rather than spin.
                eprintln!("webgate mcp: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let gate = gate.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let gate = gate.clone();
                async move { Ok::<_, Infallible>(gate.answer(req).await) }
            });
            let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
            drop(slot);
        });
    }
    stop.cancel();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(addr: &str, token: Option<&str>) -> HttpOptions {
        HttpOptions {
            addr: addr.parse().unwrap(),
            token: token.map(str::to_string),
            allow_origins: vec![],
            allow_hosts: vec![],
            stateless: false,
            max_sessions: 1,
        }
    }

    #[test]
    fn only_loopback_goes_without_a_token() {
        assert!(check(&options("127.0.0.1:0", None)).is_ok());
        assert!(check(&options("[::1]:0", None)).is_ok());
        assert!(check(&options("0.0.0.0:8080", None)).is_err());
        assert!(check(&options("10.0.0.5:8080", None)).is_err());
        assert!(check(&options("0.0.0.0:8080", Some("0123456789abcdef"))).is_ok());
        assert!(check(&options("0.0.0.0:8080", Some("short"))).is_err());
        assert!(check(&options("0.0.0.0:8080", Some("0123456789 abcdef"))).is_err());
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        let t = "0123456789abcdef";
        let h = |s: &str| HeaderValue::from_str(s).unwrap();
        assert!(authorized(Some(&h("Bearer 0123456789abcdef")), t));
        assert!(!authorized(Some(&h("Bearer 0123456789abcdeF")), t));
        assert!(!authorized(Some(&h("Bearer 0123456789abcde")), t));
        assert!(!authorized(Some(&h("Basic 0123456789abcdef")), t));
        assert!(!authorized(None, t));
    }
}
