//! The response of a fetch after its head: the head judged as a whole
//! (`body::head::judge`: status, class, charset, declared length,
//! codings), the body pulled into the decoder under the cap and the
//! deadline, the connection given back when it was read to the end, the
//! bytes decoded, HTML extracted on a blocking thread within the
//! extraction limit (a bound: the call answers by it), and the text cut
//! at `max_chars`.

use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::Response;
use tokio::time::Instant;

use super::{FetchOptions, Fetched, Fetcher};
use crate::audit::{ms, BodyAudit, CapAction, FailedAt, FetchAudit};
use crate::body::{self, charset, BodyDecoder, BodyFail, MediaClass};
use crate::extract;
use crate::messages::{Extraction, FetchError, Progress};
use crate::net::deadline_after;
use crate::net::http::{self, header_values};
use crate::net::limit::Limit;
use crate::net::pool::Lease;
use crate::policy::{AdmittedUrl, Policy};
use crate::progress;

impl Fetcher {
    /// The response after the head: status, Content-Type, charset,
    /// Content-Length, then the body under the cap, then the text.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn read(
        &self,
        url: &AdmittedUrl,
        (resp, mut conn): (Response<Incoming>, Lease),
        limit: &mut Limit,
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
            content_type: header_values(headers, CONTENT_TYPE),
            content_length: headers.get(CONTENT_LENGTH).map(|v| v.as_bytes()),
            content_encoding: header_values(headers, CONTENT_ENCODING),
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
        let read = http::pull(
            resp.into_body(),
            &mut conn.conn.driver,
            &mut decoder,
            limit,
            |d| {
                // Progress every BODY_REPORT_BYTES received.
                let steps = d.received() / progress::BODY_REPORT_BYTES;
                if steps > reported {
                    reported = steps;
                    progress::report(Progress::Body {
                        bytes: d.received(),
                    });
                }
            },
        )
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
