//! Progress of one call, for hosts that show it (MCP's progress
//! notifications): the fetch reports each phase as it starts — lookup,
//! connection, request, response head, every redirect followed, body
//! bytes as they arrive, extraction — and a search reports its request.
//!
//! Why a task-local and not a parameter: the reports come from deep in the
//! one IO loop, which decides nothing from them; threading a callback
//! through every step would widen every signature for a side channel. A
//! call outside [`observed`] reports to no one, at the cost of one
//! task-local look-up per phase.

use std::future::Future;
use std::sync::Arc;

use crate::messages::Progress;

/// What receives the reports ([`crate::messages::Progress`], each with
/// its one-line text as `Display`) of one call. It runs on the call's task:
/// keep it short (queue the report, do not wait on IO).
pub type Observer = Arc<dyn Fn(Progress) + Send + Sync>;

tokio::task_local! {
    static OBSERVER: Observer;
}

/// Runs `call` with `observer` receiving its progress reports.
pub async fn observed<F: Future>(observer: Observer, call: F) -> F::Output {
    OBSERVER.scope(observer, call).await
}

/// Reports `p` to the call's observer, if it has one.
pub(crate) fn report(p: Progress) {
    let _ = OBSERVER.try_with(|o| o(p));
}

/// Body bytes between two reports (the last report is the whole count).
pub(crate) const BODY_REPORT_BYTES: u64 = 256 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn reports_reach_the_observer_only_inside_its_scope() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        report(Progress::Extracting);
        rt.block_on(observed(
            Arc::new(move |p| s.lock().unwrap().push(p.to_string())),
            async { report(Progress::Extracting) },
        ));
        report(Progress::Extracting);
        assert_eq!(seen.lock().unwrap().len(), 1);
    }
}
