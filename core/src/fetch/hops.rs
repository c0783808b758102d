//! The hop loop of one fetch: the URL admitted, then hop by hop:
//! robots.txt when the policy reads it, one exchange under the hop's
//! deadline (the request limit, or the whole call's when nearer; one
//! retry when the connection was gone before any response), the hop rule
//! on the status and `Location`, until a response that is read. It
//! decides nothing itself: `admit` and `next_hop` do, and it records what
//! they said.

use hyper::header::LOCATION;
use tracing::Instrument;

use super::exchange::Sent;
use super::{FetchOptions, Fetched, Fetcher};
use crate::audit::{FailedAt, FetchAudit, HopAudit, RedirectAudit, RedirectVerdict};
use crate::messages::{FetchError, Progress};
use crate::net::deadline_after;
use crate::net::limit::Limit;
use crate::policy::robots::RobotsMemo;
use crate::policy::{admit, next_hop, Hop};
use crate::progress;

impl Fetcher {
    /// The fetch itself, writing its decisions into `audit`.
    pub(super) async fn fetch_into(
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
        let max_chars = policy.max_chars_for(opts.max_chars);
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
                // Boxed: the check is as large as a whole exchange, and a
                // fetch without it should not carry its room (every fetch
                // in flight holds its future).
                let check = Box::pin(self.robots_check(&current, memo, audit));
                match call_deadline {
                    Some(d) => tokio::time::timeout_at(d, check)
                        .await
                        .unwrap_or_else(|_| {
                            Err(FetchError::Timeout {
                                url: current.display(),
                            })
                        })?,
                    None => check.await?,
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
            // The hop's limit as one timer, for every wait of the hop.
            let mut limit = Limit::at(deadline);
            let first = self
                .exchange(&current, &mut limit, hop)
                .instrument(span.clone())
                .await;
            let (resp, conn) = match first {
                Sent::Answered(x) => *x,
                // The connection ended before the response began (a
                // server closing a kept-alive connection, or an h2 GOAWAY
                // that hyper acted on before taking the request): the GET
                // is repeated once, on a fresh lookup, vetting and
                // connection, within the same deadline.
                Sent::Gone(_) => {
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
                    self.exchange(&current, &mut limit, hop)
                        .instrument(span.clone())
                        .await
                        .answered()?
                }
                Sent::Failed(e) => return Err(e),
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
                        let reason = e.redirect_reason();
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
                    &mut limit,
                    call_deadline,
                    max_chars,
                    opts,
                    audit,
                )
                .instrument(span)
                .await;
        }
    }
}
