//! robots.txt for a fetch whose policy reads it (RFC 9309): the rule
//! for one URL from its origin's file, kept in the run's memo, and the
//! read of that file: its own hops under the same lookup, vetting,
//! dialling and hop rules as any request, one request limit for all of
//! them, the body up to `robots::MAX_BYTES`. What a status, a failed
//! request, a refused redirect or a broken body mean is
//! `policy::robots`'s to say; this file fetches and asks.

use std::sync::Arc;

use hyper::header::{CONTENT_ENCODING, LOCATION};
use tokio::time::Instant;
use tracing::Instrument;

use super::Fetcher;
use crate::audit::{
    ms, BodyAudit, FailedAt, FetchAudit, HopAudit, RedirectAudit, RedirectVerdict, RobotsAudit,
    RobotsFile, RobotsVerdict,
};
use crate::body::{self, BodyDecoder, CapMode};
use crate::messages::FetchError;
use crate::net::deadline_after;
use crate::net::http::{self, header_values};
use crate::net::limit::Limit;
use crate::policy::robots::{self, RobotsMemo, RobotsTxt};
use crate::policy::{admit, next_hop, AdmittedUrl, Hop};

impl Fetcher {
    /// The robots.txt rule for `url` (the policy reads robots.txt): the
    /// origin's file from `memo`, or read now and kept there; a URL it
    /// does not allow is refused with the robots message.
    pub(super) async fn robots_check(
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
        match verdict {
            robots::Verdict::Allowed => Ok(()),
            robots::Verdict::Disallowed => Err(FetchError::RobotsDisallowed { url: url.display() }),
            robots::Verdict::Unreachable(why) => Err(FetchError::RobotsUnreachable {
                url: url.display(),
                why,
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
            let mut limit = Limit::at(deadline);
            let (resp, mut conn) = match self.exchange(&current, &mut limit, hop).await.answered() {
                Ok(x) => x,
                Err(e) => return RobotsTxt::after_failed_request(e),
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
                Hop::Refuse(e) => {
                    hop.redirect = Some(RedirectAudit {
                        verdict: RedirectVerdict::Refused,
                        to: None,
                        reason: e.redirect_reason(),
                    });
                    return Ok(RobotsTxt::after_refused_redirect());
                }
                Hop::NotARedirect => {}
            }
            if let Some(file) = RobotsTxt::from_status(status) {
                return Ok(file);
            }
            let Ok(codings) = body::head::codings(&header_values(resp.headers(), CONTENT_ENCODING))
            else {
                hop.failed_at = Some(FailedAt::Body);
                return Ok(RobotsTxt::after_failed_body(false));
            };
            let Ok(mut decoder) = BodyDecoder::new(
                &codings,
                robots::MAX_BYTES.min(policy.body_cap),
                CapMode::Truncate,
            ) else {
                return Ok(RobotsTxt::after_failed_body(false));
            };
            let t = Instant::now();
            let read = http::pull(
                resp.into_body(),
                &mut conn.conn.driver,
                &mut decoder,
                &mut limit,
                |_| {},
            )
            .await;
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
                    RobotsTxt::after_failed_body(Instant::now() >= deadline)
                }
            });
        }
    }
}
