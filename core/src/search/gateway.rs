//! The Gateway provider (the default): one POST of the accepted arguments
//! as JSON to the host's endpoint, with the host's key as a bearer token;
//! the answer is `{"results": [rows]}`.

use hyper::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use hyper::Method;
use url::Url;

use super::client::{results, Client};
use super::{rows_from_results, Provider, Report};
use crate::args::SearchArgs;
use crate::messages::{SearchError, SearchRow, SetupError};
use crate::net::BoxFuture;

/// The gateway provider.
pub struct Gateway {
    endpoint: Url,
    key: Option<String>,
    client: Client,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is never printed.
        f.debug_struct("Gateway")
            .field("endpoint", &self.endpoint.as_str())
            .finish_non_exhaustive()
    }
}

/// Parses a provider endpoint: an http or https URL with a host.
pub(crate) fn endpoint(s: &str) -> Result<Url, SetupError> {
    let u = Url::parse(s).map_err(|source| SetupError::EndpointNotUrl {
        endpoint: s.to_string(),
        source,
    })?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
        return Err(SetupError::EndpointScheme(u.to_string()));
    }
    Ok(u)
}

/// `Bearer {key}`, marked sensitive so it never shows in debug output.
pub(crate) fn bearer(key: &str) -> Result<HeaderValue, SearchError> {
    let mut v =
        HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| SearchError::Request)?;
    v.set_sensitive(true);
    Ok(v)
}

impl Gateway {
    /// A gateway at `endpoint` with an optional key.
    pub fn new(
        endpoint_url: &str,
        key: Option<String>,
        client: Client,
    ) -> Result<Self, SetupError> {
        Ok(Gateway {
            endpoint: endpoint(endpoint_url)?,
            key,
            client,
        })
    }
}

impl Provider for Gateway {
    fn name(&self) -> &'static str {
        "gateway"
    }

    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
        report: &'a Report,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>> {
        Box::pin(async move {
            let mut headers = vec![
                (CONTENT_TYPE, HeaderValue::from_static("application/json")),
                (ACCEPT, HeaderValue::from_static("application/json")),
            ];
            if let Some(k) = &self.key {
                headers.push((AUTHORIZATION, bearer(k)?));
            }
            let body = args.to_json().to_string().into();
            let v = self
                .client
                .json(Method::POST, &self.endpoint, &headers, Some(body), report)
                .await?;
            let results = results(&v)?;
            rows_from_results(results)
        })
    }
}
