//! Adapters for the search APIs people run: the Brave Search API, SearXNG
//! and Tavily. Each maps its API into the same rows and the same
//! `web_search:` failure families, and honours `count` by trimming when
//! the API cannot. [`configure`] picks one from host settings and says in
//! one sentence why search is not offered when it cannot.

use std::sync::Arc;

use hyper::header::{HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use hyper::Method;
use serde_json::{json, Value};
use url::Url;

use super::client::{json_body, results, Client};
use super::gateway::{bearer, endpoint, Gateway};
use super::{rows_from_results, Provider, Report};
use crate::args::{Freshness, SafeSearch, SearchArgs};
use crate::messages::{SearchError, SearchRow, SetupError};
use crate::net::{BoxFuture, TlsSettings};
use crate::policy::Policy;

/// Whether `url`'s host is `domain` or one of its subdomains.
fn host_matches(url: &str, domain: &str) -> bool {
    let Some(host) = Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
    else {
        return false;
    };
    let d = domain.trim().trim_end_matches('.').to_ascii_lowercase();
    let host = host.trim_end_matches('.');
    host == d || host.ends_with(&format!(".{d}"))
}

/// Applies include/exclude domains to rows (APIs treat `site:` as a hint)
/// and trims to `count`.
fn post_filter(mut rows: Vec<SearchRow>, args: &SearchArgs) -> Vec<SearchRow> {
    if let Some(inc) = args.include_domains.as_ref().filter(|l| !l.is_empty()) {
        rows.retain(|r| inc.iter().any(|d| host_matches(&r.url, d)));
    }
    if let Some(exc) = &args.exclude_domains {
        rows.retain(|r| !exc.iter().any(|d| host_matches(&r.url, d)));
    }
    if let Some(c) = args.count {
        rows.truncate(c as usize);
    }
    rows
}

/// The query with `site:` / `-site:` operators for APIs without domain lists.
fn query_with_sites(args: &SearchArgs) -> String {
    let mut q = args.query.clone();
    if let Some(inc) = args.include_domains.as_ref().filter(|l| !l.is_empty()) {
        let sites: Vec<String> = inc.iter().map(|d| format!("site:{d}")).collect();
        q.push_str(&format!(" ({})", sites.join(" OR ")));
    }
    for d in args.exclude_domains.iter().flatten() {
        q.push_str(&format!(" -site:{d}"));
    }
    q
}

fn time_range(f: Freshness) -> &'static str {
    match f {
        Freshness::Day => "day",
        Freshness::Week => "week",
        Freshness::Month => "month",
        Freshness::Year => "year",
    }
}

/// Renames keys of each result object, so the shared row reader applies.
fn remap(results: &[Value], renames: &[(&str, &str)]) -> Vec<Value> {
    results
        .iter()
        .map(|r| match r.as_object() {
            Some(o) => {
                let mut o = o.clone();
                for (from, to) in renames {
                    if let Some(v) = o.remove(*from) {
                        o.insert((*to).to_string(), v);
                    }
                }
                Value::Object(o)
            }
            None => r.clone(),
        })
        .collect()
}

/// The Brave Search API (`X-Subscription-Token`).
pub struct Brave {
    endpoint: Url,
    key: String,
    client: Client,
}

impl Brave {
    /// The public API's web search endpoint.
    pub const DEFAULT_ENDPOINT: &'static str = "https://api.search.brave.com/res/v1/web/search";

    /// Brave at `endpoint` with a subscription token.
    pub fn new(endpoint_url: &str, key: String, client: Client) -> Result<Self, SetupError> {
        Ok(Brave {
            endpoint: endpoint(endpoint_url)?,
            key,
            client,
        })
    }
}

impl Provider for Brave {
    fn name(&self) -> &'static str {
        "brave"
    }

    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
        report: &'a Report,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>> {
        Box::pin(async move {
            let mut url = self.endpoint.clone();
            {
                let mut q = url.query_pairs_mut();
                q.append_pair("q", &query_with_sites(args));
                if let Some(c) = args.count {
                    q.append_pair("count", &c.to_string());
                }
                if let Some(f) = args.freshness {
                    q.append_pair("freshness", f.as_str());
                }
                if let Some(c) = &args.country {
                    q.append_pair("country", c);
                }
                if let Some(l) = &args.search_lang {
                    q.append_pair("search_lang", l);
                }
                if let Some(s) = args.safesearch {
                    q.append_pair("safesearch", s.as_str());
                }
            }
            let mut token = HeaderValue::from_str(&self.key).map_err(|_| SearchError::Request)?;
            token.set_sensitive(true);
            let headers = [
                (ACCEPT, HeaderValue::from_static("application/json")),
                (HeaderName::from_static("x-subscription-token"), token),
            ];
            let v = self
                .client
                .json(Method::GET, &url, &headers, None, report)
                .await?;
            if !v.is_object() {
                return Err(SearchError::Malformed);
            }
            // Brave leaves out `web` when nothing matched.
            let results = match v.get("web") {
                None => Vec::new(),
                Some(web) => web
                    .get("results")
                    .and_then(Value::as_array)
                    .ok_or(SearchError::Malformed)?
                    .clone(),
            };
            // `profile.name` is the site's name.
            let results: Vec<Value> = results
                .into_iter()
                .map(|mut r| {
                    let name = r.pointer("/profile/name").cloned();
                    if let (Some(o), Some(n)) = (r.as_object_mut(), name) {
                        o.insert("site_name".into(), n);
                    }
                    r
                })
                .collect();
            Ok(post_filter(rows_from_results(&results)?, args))
        })
    }
}

/// A SearXNG instance (`/search?format=json`).
pub struct Searxng {
    endpoint: Url,
    client: Client,
}

impl Searxng {
    /// The instance at `base` (its root, or its `/search` URL).
    pub fn new(base: &str, client: Client) -> Result<Self, SetupError> {
        let mut u = endpoint(base)?;
        if !u.path().ends_with("/search") {
            let path = format!("{}/search", u.path().trim_end_matches('/'));
            u.set_path(&path);
        }
        Ok(Searxng {
            endpoint: u,
            client,
        })
    }
}

/// What a 403 from SearXNG nearly always means.
const SEARXNG_FORBIDDEN: &str =
    "the SearXNG instance refused format=json; allow it by adding json to search.formats in its settings.yml";

impl Provider for Searxng {
    fn name(&self) -> &'static str {
        "searxng"
    }

    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
        report: &'a Report,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>> {
        Box::pin(async move {
            let mut url = self.endpoint.clone();
            {
                let mut q = url.query_pairs_mut();
                q.append_pair("q", &query_with_sites(args));
                q.append_pair("format", "json");
                if let Some(f) = args.freshness {
                    q.append_pair("time_range", time_range(f));
                }
                if let Some(l) = &args.search_lang {
                    q.append_pair("language", l);
                }
                if let Some(s) = args.safesearch {
                    let level = match s {
                        SafeSearch::Off => "0",
                        SafeSearch::Moderate => "1",
                        SafeSearch::Strict => "2",
                    };
                    q.append_pair("safesearch", level);
                }
            }
            let headers = [(ACCEPT, HeaderValue::from_static("application/json"))];
            let body = match self
                .client
                .exchange(Method::GET, &url, &headers, None, report)
                .await?
            {
                Ok(b) => b,
                Err(r) if r.code == 403 => {
                    return Err(SearchError::Status {
                        code: 403,
                        body: SEARXNG_FORBIDDEN.to_string(),
                        retry_after: r.retry_after,
                    })
                }
                Err(r) => return Err(r.into_error(self.client.policy.search_error_cut)),
            };
            let v = json_body(&body)?;
            let results = results(&v)?;
            let results = remap(
                results,
                &[
                    ("description", "_description"),
                    ("content", "description"),
                    ("publishedDate", "age"),
                ],
            );
            Ok(post_filter(rows_from_results(&results)?, args))
        })
    }
}

/// The Tavily search API (bearer key, native domain lists).
pub struct Tavily {
    endpoint: Url,
    key: String,
    client: Client,
}

impl Tavily {
    /// The public API's search endpoint.
    pub const DEFAULT_ENDPOINT: &'static str = "https://api.tavily.com/search";

    /// Tavily at `endpoint` with an API key.
    pub fn new(endpoint_url: &str, key: String, client: Client) -> Result<Self, SetupError> {
        Ok(Tavily {
            endpoint: endpoint(endpoint_url)?,
            key,
            client,
        })
    }
}

impl Provider for Tavily {
    fn name(&self) -> &'static str {
        "tavily"
    }

    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
        report: &'a Report,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>> {
        Box::pin(async move {
            let mut req = json!({"query": args.query});
            if let Some(c) = args.count {
                req["max_results"] = json!(c);
            }
            if let Some(f) = args.freshness {
                req["time_range"] = json!(time_range(f));
            }
            if let Some(d) = &args.include_domains {
                req["include_domains"] = json!(d);
            }
            if let Some(d) = &args.exclude_domains {
                req["exclude_domains"] = json!(d);
            }
            if let Some(c) = &args.country {
                req["country"] = json!(c);
            }
            let headers = [
                (CONTENT_TYPE, HeaderValue::from_static("application/json")),
                (ACCEPT, HeaderValue::from_static("application/json")),
                (AUTHORIZATION, bearer(&self.key)?),
            ];
            let v = self
                .client
                .json(
                    Method::POST,
                    &self.endpoint,
                    &headers,
                    Some(req.to_string().into()),
                    report,
                )
                .await?;
            let results = results(&v)?;
            let results = remap(
                results,
                &[
                    ("description", "_description"),
                    ("content", "description"),
                    ("published_date", "age"),
                ],
            );
            Ok(post_filter(rows_from_results(&results)?, args))
        })
    }
}

/// Host settings for search (for the CLI: `WEBGATE_SEARCH_PROVIDER`,
/// `WEBGATE_SEARCH_ENDPOINT`, `WEBGATE_SEARCH_KEY`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchSettings {
    /// `gateway` (default), `brave`, `searxng` or `tavily`.
    pub provider: Option<String>,
    /// The endpoint (required for gateway and searxng).
    pub endpoint: Option<String>,
    /// The key (required for brave and tavily; optional for gateway).
    pub key: Option<String>,
}

/// The provider the settings describe, over an HTTP client that holds to
/// `policy` and trusts `tls`'s roots, or one sentence saying why search is
/// not offered.
pub fn configure(
    s: &SearchSettings,
    policy: Policy,
    tls: &TlsSettings,
) -> Result<Arc<dyn Provider>, SetupError> {
    configure_with(s, Client::new(policy, tls)?)
}

/// [`configure`] over a client the caller made (the CLI's, which answers
/// `--resolve` and `--connect-to`; the vectors', which reach the simulated
/// network).
pub fn configure_with(s: &SearchSettings, client: Client) -> Result<Arc<dyn Provider>, SetupError> {
    let nonempty = |o: &Option<String>| {
        o.as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let (endpoint, key) = (nonempty(&s.endpoint), nonempty(&s.key));
    let kind = nonempty(&s.provider)
        .unwrap_or_else(|| "gateway".into())
        .to_ascii_lowercase();
    Ok(match kind.as_str() {
        "gateway" => {
            let e = endpoint.ok_or(SetupError::NoGatewayEndpoint)?;
            Arc::new(Gateway::new(&e, key, client)?)
        }
        "brave" => {
            let k = key.ok_or(SetupError::NoKey("brave"))?;
            let e = endpoint.as_deref().unwrap_or(Brave::DEFAULT_ENDPOINT);
            Arc::new(Brave::new(e, k, client)?)
        }
        "searxng" => {
            let e = endpoint.ok_or(SetupError::NoInstance)?;
            Arc::new(Searxng::new(&e, client)?)
        }
        "tavily" => {
            let k = key.ok_or(SetupError::NoKey("tavily"))?;
            let e = endpoint.as_deref().unwrap_or(Tavily::DEFAULT_ENDPOINT);
            Arc::new(Tavily::new(e, k, client)?)
        }
        other => return Err(SetupError::UnknownProvider(other.to_string())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_match_hosts_and_subdomains() {
        assert!(host_matches(
            "https://docs.rust-lang.org/x",
            "rust-lang.org"
        ));
        assert!(host_matches("https://RUST-lang.org./", "rust-lang.org"));
        assert!(!host_matches("https://notrust-lang.org/", "rust-lang.org"));
        assert!(!host_matches("not a url", "rust-lang.org"));
    }

    #[test]
    fn not_configured_says_why() {
        let why = |p: &str| {
            configure(
                &SearchSettings {
                    provider: Some(p.into()),
                    ..Default::default()
                },
                Default::default(),
                &Default::default(),
            )
            .err()
            .unwrap()
            .to_string()
        };
        assert!(why("gateway").contains("WEBGATE_SEARCH_ENDPOINT"));
        assert!(why("brave").contains("WEBGATE_SEARCH_KEY"));
        assert!(why("searxng").contains("instance URL"));
        assert!(why("tavily").contains("API key"));
        assert!(why("bing").contains("unknown search provider"));
    }
}
