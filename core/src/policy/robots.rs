//! robots.txt (RFC 9309), for hosts that switch on [`Policy::robots_txt`]:
//! how a fetched file, or the status that came instead of one, decides
//! whether a URL may be fetched by this agent.
//!
//! Pure: the IO loop fetches `/robots.txt` of the URL's origin and hands
//! the status and the first [`MAX_BYTES`] of the body here; the verdict
//! comes back. What RFC 9309 fixes and this follows:
//!
//! - A 2xx body is parsed; a 4xx ("unavailable") allows everything; a 5xx,
//!   a network failure or a time-out ("unreachable") disallows everything.
//! - Groups are one or more `user-agent` lines and the rules after them;
//!   every group naming the agent's product token (case-insensitively) is
//!   merged, and only when none does are the `*` groups used. Rules before
//!   the first `user-agent` line belong to no group.
//! - The rule with the longest pattern that matches the path (and query)
//!   decides; on a tie `allow` wins; no match allows. `*` matches any run
//!   of octets and a final `$` anchors the end. Non-ASCII octets in a
//!   pattern are percent-encoded and `%xx` escapes upper-cased before the
//!   comparison (URLs here are already encoded by the URL parser).
//! - Content past the first 500 KiB is not read.
//!
//! Also read, as Google's parser does: a byte order mark (or a part of
//! one) at the start is skipped, and a line with a space instead of its
//! colon (`disallow /`) counts. The cases are Google's published test
//! cases (`vectors/robots.toml`).
//!
//! Matching is linear: a pattern is cut at its `*`s and each piece is
//! found left-most after the one before (which is exact for `*`-only
//! patterns), so a rule costs the length of the path plus its own.
//!
//! [`Policy::robots_txt`]: crate::policy::Policy::robots_txt

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use crate::messages::FetchError;

/// The most of a robots.txt body that is read (RFC 9309 §2.5: at least
/// 500 kibibytes).
pub const MAX_BYTES: u64 = 500 * 1024;

/// How many origins one run remembers (a run that reads more fetches the
/// others' robots.txt again).
pub const MEMO_ORIGINS: usize = 64;

/// What an origin's robots.txt says, once fetched (or failed to be).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RobotsTxt {
    /// A file was read: its groups.
    Rules(Rules),
    /// 4xx, or a redirect chain that could not be followed: everything is
    /// allowed (RFC 9309 §2.3.1.3).
    Unavailable,
    /// 5xx, a network failure or a time-out: everything is disallowed
    /// (§2.3.1.4).
    Unreachable(Unreachable),
}

/// Why a robots.txt could not be read (defined with the message that
/// names it, on the ground floor, so that `messages` imports nothing
/// from the policy).
pub use crate::messages::Unreachable;

/// The verdict for one URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// The URL may be fetched.
    Allowed,
    /// A rule disallows it.
    Disallowed,
    /// The file could not be read, which disallows everything.
    Unreachable(Unreachable),
}

impl RobotsTxt {
    /// What a response status alone decides; `None` for a 2xx, whose body
    /// is then parsed with [`RobotsTxt::parse`]. Redirects are followed by
    /// the caller before this is asked.
    pub fn from_status(status: u16) -> Option<RobotsTxt> {
        match status {
            200..=299 => None,
            // A redirect that was not followed (no Location, 304) says no
            // more than a 4xx does.
            300..=499 => Some(RobotsTxt::Unavailable),
            _ => Some(RobotsTxt::Unreachable(Unreachable::Status(status))),
        }
    }

    /// What a request for the file that got no response decides (RFC
    /// 9309 §2.3.1.4): a timeout or a broken connection leaves the file
    /// unreachable (everything disallowed); a host that does not resolve,
    /// or only to blocked addresses, fails as the page itself would, with
    /// the contract's own message (`Err`).
    pub fn after_failed_request(e: FetchError) -> Result<RobotsTxt, FetchError> {
        match e {
            FetchError::DnsFailed { .. } | FetchError::NoAllowedAddress { .. } => Err(e),
            FetchError::Timeout { .. } => Ok(RobotsTxt::Unreachable(Unreachable::Timeout)),
            _ => Ok(RobotsTxt::Unreachable(Unreachable::Network)),
        }
    }

    /// A redirect that cannot be followed (RFC 9309 §2.3.1.2) leaves the
    /// file unavailable, which allows everything (the page's own request
    /// still meets every rule).
    pub fn after_refused_redirect() -> RobotsTxt {
        RobotsTxt::Unavailable
    }

    /// A body that could not be read: unreachable, by the deadline when
    /// it had passed (`timed_out`), else by the network.
    pub fn after_failed_body(timed_out: bool) -> RobotsTxt {
        RobotsTxt::Unreachable(if timed_out {
            Unreachable::Timeout
        } else {
            Unreachable::Network
        })
    }

    /// Parses a body (the first [`MAX_BYTES`] are read; the rest ignored).
    pub fn parse(body: &[u8]) -> RobotsTxt {
        RobotsTxt::Rules(Rules::parse(body))
    }

    /// Whether `agent` may fetch `path` (the URL's path and `?query`).
    pub fn verdict(&self, agent: &str, path: &str) -> Verdict {
        match self {
            RobotsTxt::Rules(r) if r.allows(agent, path) => Verdict::Allowed,
            RobotsTxt::Rules(_) => Verdict::Disallowed,
            RobotsTxt::Unavailable => Verdict::Allowed,
            RobotsTxt::Unreachable(u) => Verdict::Unreachable(*u),
        }
    }
}

/// The product token of a `User-Agent` value: its leading run of letters,
/// `_` and `-` (`harness-webfetch/0.0` → `harness-webfetch`), which is
/// what a robots.txt names.
pub fn product_token(user_agent: &str) -> &str {
    let end = user_agent
        .find(|c: char| !is_token_char(c))
        .unwrap_or(user_agent.len());
    &user_agent[..end]
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '-'
}

/// The parsed groups of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    groups: Vec<Group>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Group {
    /// Product tokens, lower-cased; `*` for the global group.
    agents: Vec<String>,
    rules: Vec<Rule>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    allow: bool,
    /// The pattern, normalized (see [`normalize`]); never empty.
    pattern: String,
}

impl Rules {
    fn parse(body: &[u8]) -> Rules {
        let body = &body[..body.len().min(MAX_BYTES as usize)];
        let body = skip_bom(body);
        let mut groups: Vec<Group> = Vec::new();
        // Whether the last line that counted was a rule: a `user-agent`
        // line after one starts a new group, after another joins it.
        let mut after_rule = true;
        for line in body.split(|&b| b == b'\n' || b == b'\r') {
            let Some((key, value)) = split_line(line) else {
                continue;
            };
            if key.eq_ignore_ascii_case(b"user-agent") {
                if after_rule || groups.is_empty() {
                    groups.push(Group::default());
                }
                after_rule = false;
                let value = String::from_utf8_lossy(value);
                let agent = if value.starts_with('*') {
                    "*".to_string()
                } else {
                    product_token(&value).to_ascii_lowercase()
                };
                // OK because a group was pushed above when there was none.
                groups.last_mut().expect("group").agents.push(agent);
            } else {
                let allow = if key.eq_ignore_ascii_case(b"allow") {
                    true
                } else if key.eq_ignore_ascii_case(b"disallow") {
                    false
                } else {
                    // `sitemap` and the rest are other records: they
                    // neither end a group nor hold a rule.
                    continue;
                };
                after_rule = true;
                let Some(group) = groups.last_mut() else {
                    continue;
                };
                // An empty value matches nothing (`disallow:` allows all).
                if !value.is_empty() {
                    group.rules.push(Rule {
                        allow,
                        pattern: normalize(value),
                    });
                }
            }
        }
        Rules { groups }
    }

    fn allows(&self, agent: &str, path: &str) -> bool {
        let agent = agent.to_ascii_lowercase();
        let named = |a: &str| !agent.is_empty() && a == agent;
        let specific = self
            .groups
            .iter()
            .any(|g| g.agents.iter().any(|a| named(a)));
        let applies = |g: &&Group| {
            g.agents
                .iter()
                .any(|a| if specific { named(a) } else { a == "*" })
        };
        let mut best_allow = None::<usize>;
        let mut best_disallow = None::<usize>;
        for rule in self.groups.iter().filter(applies).flat_map(|g| &g.rules) {
            if matches(&rule.pattern, path) {
                let best = if rule.allow {
                    &mut best_allow
                } else {
                    &mut best_disallow
                };
                let len = rule.pattern.len();
                *best = Some(best.map_or(len, |b| b.max(len)));
            }
        }
        match (best_allow, best_disallow) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(d)) => a >= d,
        }
    }
}

/// A byte order mark, or a leading part of one, is not part of the file.
fn skip_bom(body: &[u8]) -> &[u8] {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let n = body.iter().zip(BOM).take_while(|(a, b)| a == b).count();
    &body[n..]
}

/// A line's key and value: comment cut, whitespace trimmed, split at the
/// first colon (or, when there is none, at whitespace between exactly two
/// words). `None` for a blank line or one without a value separator.
fn split_line(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let line = match line.iter().position(|&b| b == b'#') {
        Some(i) => &line[..i],
        None => line,
    };
    let line = line.trim_ascii();
    if line.is_empty() {
        return None;
    }
    if let Some(i) = line.iter().position(|&b| b == b':') {
        return Some((line[..i].trim_ascii(), line[i + 1..].trim_ascii()));
    }
    let i = line.iter().position(|b| b.is_ascii_whitespace())?;
    let (key, value) = (&line[..i], line[i..].trim_ascii());
    // `disallow /` but not `disallow / foo`: one word each side.
    (!value.iter().any(u8::is_ascii_whitespace)).then_some((key, value))
}

/// Octets outside US-ASCII percent-encoded, and `%xx` escapes in upper
/// case (RFC 9309 §2.2.2), so a pattern compares with an encoded URL.
fn normalize(value: &[u8]) -> String {
    let mut out = String::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        let b = value[i];
        if b == b'%'
            && i + 2 < value.len()
            && value[i + 1].is_ascii_hexdigit()
            && value[i + 2].is_ascii_hexdigit()
        {
            out.push('%');
            out.push(value[i + 1].to_ascii_uppercase() as char);
            out.push(value[i + 2].to_ascii_uppercase() as char);
            i += 3;
            continue;
        }
        if b.is_ascii() {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
        i += 1;
    }
    out
}

/// Whether `pattern` (normalized, non-empty) matches `path` from its start.
pub(crate) fn matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let mut pieces = pattern.split('*');
    // OK because `split` yields at least one piece.
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = path.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        // No `*`: a prefix, or with `$` the whole path.
        return !anchored || rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(i) => rest = &rest[i + piece.len()..],
            None => return false,
        }
    }
    if anchored {
        // The last piece must end the path, after everything before it.
        rest.len() >= last.len() && rest.ends_with(last)
    } else {
        rest.contains(last)
    }
}

/// The path a URL is judged by: its path and `?query`, never the fragment
/// (`/` when empty).
pub fn path_of(url: &url::Url) -> String {
    let path = match url.path() {
        "" => "/",
        p => p,
    };
    match url.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    }
}

/// The robots.txt files one run has read, by origin (`https://host:port`):
/// a run reads an origin's file once, even when its calls run at once
/// (the first to ask reads it; the others wait for that read). Nothing
/// outlives the run that owns it (a [`crate::agent::Run`], or one direct
/// fetch).
///
/// The waiting is plain `std::task` wakers, so this stays free of any
/// runtime: `RobotsMemo::claim` is a future the IO loop awaits.
#[derive(Debug, Default)]
pub struct RobotsMemo {
    files: Mutex<HashMap<String, Entry>>,
}

/// One origin in the memo.
#[derive(Debug)]
enum Entry {
    Read(Arc<RobotsTxt>),
    /// A call is reading it; these calls wait.
    Reading(Vec<Waker>),
}

/// What `RobotsMemo::claim` gives.
pub(crate) enum Claimed<'a> {
    /// The file this run read before.
    Read(Arc<RobotsTxt>),
    /// Nobody has it: this call reads it and hands it over (or drops the
    /// ticket, and the next call in line reads it instead).
    Mine(ReadTicket<'a>),
    /// The memo is full: this call reads the file for itself.
    Unkept,
}

impl RobotsMemo {
    /// An empty memo.
    pub fn new() -> Self {
        RobotsMemo::default()
    }

    fn files(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The file read for `origin` in this run, if any.
    pub fn get(&self, origin: &str) -> Option<Arc<RobotsTxt>> {
        match self.files().get(origin) {
            Some(Entry::Read(f)) => Some(Arc::clone(f)),
            _ => None,
        }
    }

    /// Keeps what was read for `origin` (up to `MEMO_ORIGINS` origins);
    /// calls waiting for it get it.
    pub fn put(&self, origin: &str, file: Arc<RobotsTxt>) {
        let mut files = self.files();
        if files.len() < MEMO_ORIGINS || files.contains_key(origin) {
            if let Some(Entry::Reading(waiters)) =
                files.insert(origin.to_string(), Entry::Read(file))
            {
                waiters.into_iter().for_each(Waker::wake);
            }
        }
    }

    /// The file of `origin`, once no other call of this run is reading
    /// it; or the ticket to read it.
    pub(crate) fn claim<'a>(&'a self, origin: &'a str) -> Claim<'a> {
        Claim { memo: self, origin }
    }

    /// Ends a read: the file kept (and handed to the waiting calls), or
    /// the origin let go so that the first waiting call reads it.
    fn settle(&self, origin: &str, file: Option<Arc<RobotsTxt>>) {
        let mut files = self.files();
        let old = match file {
            Some(f) => files.insert(origin.to_string(), Entry::Read(f)),
            // A file `put` meanwhile stays.
            None if matches!(files.get(origin), Some(Entry::Reading(_))) => files.remove(origin),
            None => None,
        };
        if let Some(Entry::Reading(waiters)) = old {
            waiters.into_iter().for_each(Waker::wake);
        }
    }
}

/// The future of `RobotsMemo::claim`.
pub(crate) struct Claim<'a> {
    memo: &'a RobotsMemo,
    origin: &'a str,
}

impl<'a> Future for Claim<'a> {
    type Output = Claimed<'a>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Claimed<'a>> {
        let mut files = self.memo.files();
        let full = files.len() >= MEMO_ORIGINS;
        match files.get_mut(self.origin) {
            Some(Entry::Read(f)) => Poll::Ready(Claimed::Read(Arc::clone(f))),
            Some(Entry::Reading(waiters)) => {
                if !waiters.iter().any(|w| w.will_wake(cx.waker())) {
                    waiters.push(cx.waker().clone());
                }
                Poll::Pending
            }
            None if full => Poll::Ready(Claimed::Unkept),
            None => {
                files.insert(self.origin.to_string(), Entry::Reading(Vec::new()));
                Poll::Ready(Claimed::Mine(ReadTicket {
                    memo: self.memo,
                    origin: self.origin.to_string(),
                    settled: false,
                }))
            }
        }
    }
}

/// The right to read one origin's file for the run; dropped unsettled
/// (the call failed or was cancelled), it lets the next call read it.
pub(crate) struct ReadTicket<'a> {
    memo: &'a RobotsMemo,
    origin: String,
    settled: bool,
}

impl ReadTicket<'_> {
    /// Hands over what the read gave: a file to keep, or `None` (the read
    /// failed, and failures are not remembered).
    pub(crate) fn settle(mut self, file: Option<Arc<RobotsTxt>>) {
        self.settled = true;
        self.memo.settle(&self.origin, file);
    }
}

impl Drop for ReadTicket<'_> {
    fn drop(&mut self) {
        if !self.settled {
            self.memo.settle(&self.origin, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A waker that counts its wakes.
    struct Count(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn waker() -> (Arc<Count>, Waker) {
        let c = Arc::new(Count(Default::default()));
        (Arc::clone(&c), Waker::from(c))
    }

    fn woken(c: &Count) -> usize {
        c.0.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// One poll of a claim (a claim keeps no state of its own: polling a
    /// new one later is polling the same).
    fn poll<'a>(memo: &'a RobotsMemo, origin: &'a str, cx: &mut Context<'_>) -> Poll<Claimed<'a>> {
        std::pin::pin!(memo.claim(origin)).poll(cx)
    }

    fn ticket<'a>(memo: &'a RobotsMemo, origin: &'a str, cx: &mut Context<'_>) -> ReadTicket<'a> {
        match poll(memo, origin, cx) {
            Poll::Ready(Claimed::Mine(t)) => t,
            _ => panic!("this claim should read the file"),
        }
    }

    /// The first claim reads; a second waits, is woken when the file is
    /// handed over, and gets it; a later one gets it at once.
    #[test]
    fn calls_at_once_wait_for_one_read() {
        let memo = RobotsMemo::new();
        let (count, w) = waker();
        let cx = &mut Context::from_waker(&w);
        let first = ticket(&memo, "https://a.example", cx);
        assert!(poll(&memo, "https://a.example", cx).is_pending());
        assert!(poll(&memo, "https://a.example", cx).is_pending());
        assert_eq!(woken(&count), 0);
        assert!(memo.get("https://a.example").is_none());
        first.settle(Some(Arc::new(RobotsTxt::Unavailable)));
        assert_eq!(woken(&count), 1, "one wake for the waiting call");
        for _ in 0..2 {
            let got = poll(&memo, "https://a.example", cx);
            assert!(matches!(got, Poll::Ready(Claimed::Read(_))));
        }
    }

    /// A read that fails, or a call dropped while reading, lets the next
    /// call in line read the file itself; a file put meanwhile stays.
    #[test]
    fn a_failed_or_dropped_read_passes_the_turn() {
        for settle in [true, false] {
            let memo = RobotsMemo::new();
            let (count, w) = waker();
            let cx = &mut Context::from_waker(&w);
            let first = ticket(&memo, "o", cx);
            assert!(poll(&memo, "o", cx).is_pending());
            if settle {
                first.settle(None);
            } else {
                drop(first);
            }
            assert_eq!(woken(&count), 1);
            assert!(matches!(
                poll(&memo, "o", cx),
                Poll::Ready(Claimed::Mine(_))
            ));
        }
        let memo = RobotsMemo::new();
        let (_, w) = waker();
        let cx = &mut Context::from_waker(&w);
        let first = ticket(&memo, "o", cx);
        memo.put("o", Arc::new(RobotsTxt::Unavailable));
        first.settle(None);
        assert!(memo.get("o").is_some());
    }

    /// Past [`MEMO_ORIGINS`] origins a call reads for itself; an origin
    /// already kept is still handed out.
    #[test]
    fn a_full_memo_keeps_what_it_has() {
        let memo = RobotsMemo::new();
        for i in 0..MEMO_ORIGINS {
            memo.put(&format!("o{i}"), Arc::new(RobotsTxt::Unavailable));
        }
        let (_, w) = waker();
        let cx = &mut Context::from_waker(&w);
        assert!(matches!(
            poll(&memo, "other", cx),
            Poll::Ready(Claimed::Unkept)
        ));
        assert!(matches!(
            poll(&memo, "o3", cx),
            Poll::Ready(Claimed::Read(_))
        ));
        assert!(memo.get("other").is_none());
    }

    #[test]
    fn product_tokens() {
        assert_eq!(product_token("harness-webfetch/0.0"), "harness-webfetch");
        assert_eq!(product_token("Foo_Bar-baz 1"), "Foo_Bar-baz");
        assert_eq!(product_token("/x"), "");
    }

    #[test]
    fn normalizing_encodes_and_uppercases() {
        assert_eq!(normalize("á".as_bytes()), "%C3%A1");
        assert_eq!(normalize(b"%aa"), "%AA");
        assert_eq!(normalize(b"/a/b/c"), "/a/b/c");
        assert_eq!(normalize(b"%a"), "%a");
    }

    #[test]
    fn statuses() {
        assert_eq!(RobotsTxt::from_status(200), None);
        assert_eq!(RobotsTxt::from_status(404), Some(RobotsTxt::Unavailable));
        assert_eq!(
            RobotsTxt::from_status(503),
            Some(RobotsTxt::Unreachable(Unreachable::Status(503)))
        );
    }

    #[test]
    fn paths() {
        let u = url::Url::parse("https://a.example/a/b?c=d#frag").expect("url");
        assert_eq!(path_of(&u), "/a/b?c=d");
        let u = url::Url::parse("https://a.example").expect("url");
        assert_eq!(path_of(&u), "/");
    }

    /// A pattern of many `*`s against a long path: left-most pieces make
    /// this one pass (a backtracking matcher would not finish).
    #[test]
    fn many_stars() {
        let pattern = "/".to_string() + &"a*".repeat(50_000) + "b$";
        let path = "/".to_string() + &"a".repeat(100_000);
        assert!(!matches(&pattern, &path));
        assert!(matches(&pattern, &(path + "b")));
    }
}
