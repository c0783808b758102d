//! The agent layer: what a host puts between these tools and a model.
//!
//! - `envelope`: the untrusted envelope of contract §11.
//! - `descriptor`: tool names, descriptions and schemas a host binds.
//! - The peer systems' options of contract §12, each off by default in
//!   [`AgentOptions`] so that the contract's texts never change unless a
//!   host asks: `paging` by offset, result notes, `block`-page
//!   detection, failure notes, per-run budgets, one-line action summaries,
//!   `offer` (fetch only when a URL is in play), search aliases and a
//!   numbered list (`search_view`), `approval` rules, and the
//!   `reader` fallback. Domain allow and deny lists and robots.txt are
//!   part of the [`crate::policy::Policy`], since they must hold on every
//!   redirect hop.
//!
//! [`Toolbox`] puts them together over a [`Fetcher`] and a [`Searcher`];
//! a [`Run`] is one agent run (one budget).

pub(crate) mod approval;
pub(crate) mod block;
pub(crate) mod descriptor;
pub(crate) mod envelope;
pub(crate) mod offer;
pub(crate) mod paging;
pub(crate) mod reader;
pub(crate) mod search_view;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::args::parse_fetch_args;
use crate::args::parse_search_args;
use crate::audit::Record;
use crate::body::text::truncate_chars;
use crate::fetch::Refused;
use crate::fetch::{FetchOptions, Fetched, Fetcher};
use crate::messages::text::{Action, EnvelopeSource, SearchOk};
use crate::messages::{Class, EmptyWhy, FetchError, Note, OptionError, SearchError, SearchRow};
use crate::policy::admission::display_form;
use crate::policy::robots::RobotsMemo;
use crate::search::Searcher;
use crate::tool::Outcome;

pub use approval::ApprovalRule;
pub use descriptor::{ToolDescriptor, ToolKind};
pub use offer::offer_fetch;

/// A page shorter than this (characters) gets the thin-page note.
pub(crate) const THIN_PAGE_CHARS: usize = 600;

/// The peer systems' budget of searches per run.
pub(crate) const DEFAULT_SEARCH_BUDGET: u32 = 8;

/// Which options are on. `Default` is all off: the contract's behaviour,
/// text for text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentOptions {
    /// Wrap ok and soft results in the untrusted envelope.
    pub envelope: bool,
    /// Accept `offset` and return long texts as head + marker + tail.
    pub paging: bool,
    /// Truncation and thin-page notes in the envelope header.
    pub result_notes: bool,
    /// Report block and verification pages as failures.
    pub block_detection: bool,
    /// A note on every failed fetch that the page was not read.
    pub failure_notes: bool,
    /// Searches per run; the tool is withdrawn when spent.
    pub search_budget: Option<u32>,
    /// Fetches per run; likewise.
    pub fetch_budget: Option<u32>,
    /// Accept `num_results`, `recency` and `site`.
    pub search_aliases: bool,
    /// Render search results as a numbered list instead of JSON.
    pub numbered_search: bool,
    /// The name the fetch tool is shown under (default `web_fetch`).
    pub fetch_name: Option<String>,
    /// The fetch tool's shown description (default: the contract's).
    pub fetch_description: Option<String>,
    /// The name the search tool is shown under (default `web_search`).
    pub search_name: Option<String>,
    /// The search tool's shown description (default: the contract's).
    pub search_description: Option<String>,
    /// A reader service's URL prefix, such as `https://r.jina.ai/`: an
    /// HTML page the direct fetch could not use is fetched once more as
    /// the prefix followed by its URL, under the same policy, counted in
    /// the fetch budget and the audit record (see `reader`). The service
    /// sees every URL sent to it; never on unless the host sets it.
    pub reader_prefix: Option<String>,
}

impl AgentOptions {
    /// Every option on, with the peers' defaults (a budget of 8 searches,
    /// no fetch budget).
    pub fn all() -> Self {
        AgentOptions {
            envelope: true,
            paging: true,
            result_notes: true,
            block_detection: true,
            failure_notes: true,
            search_budget: Some(DEFAULT_SEARCH_BUDGET),
            fetch_budget: None,
            search_aliases: true,
            numbered_search: true,
            ..Default::default()
        }
    }
}

/// What a fetch returned (peer `001`'s metadata). A host reads it as
/// data through [`ToolReply::structured`], as it reads the audit record
/// as JSON, so the fields can grow without a new API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct FetchMeta {
    /// The URL as requested.
    pub(crate) url: String,
    /// The final URL, after redirects.
    pub(crate) resolved_url: String,
    /// The page's title, when it has one.
    pub(crate) title: Option<String>,
    /// Where the returned text starts, in characters.
    pub(crate) offset: usize,
    /// Where to continue, when paging left text out.
    pub(crate) next_offset: Option<usize>,
    /// Whether anything was left out.
    pub(crate) truncated: bool,
    /// Characters of page text returned.
    pub(crate) returned_length: usize,
    /// The whole page text's length in characters.
    pub(crate) total_length: usize,
}

/// One call's answer, ready for a model and for the host.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolReply {
    /// The tool that ran.
    pub tool: ToolKind,
    /// The tool's own outcome: class, kind, id and exact text.
    pub outcome: Outcome,
    /// What the model is handed: the text, in the envelope when that
    /// option is on (ok and soft); the exact message of a hard failure.
    pub model_text: String,
    /// Notes for the model (already in the envelope header when it is on).
    pub notes: Vec<Note>,
    /// Fetch metadata, on a successful fetch (public as
    /// [`ToolReply::structured`]).
    pub(crate) meta: Option<FetchMeta>,
    /// Search rows, on a successful search.
    pub rows: Option<Vec<SearchRow>>,
    /// One line saying what the call did.
    pub summary: String,
    /// The query of a search that reached the provider.
    pub query: Option<String>,
    /// The call's audit record: every call of a known tool has one, a
    /// call refused before the network too (its arguments, its URL, a
    /// spent budget, no provider), with the message id that refused it.
    pub audit: Option<Record>,
}

impl ToolReply {
    /// True for a hard failure (a tool error).
    pub fn is_error(&self) -> bool {
        self.outcome.class == Class::Hard
    }

    /// The result as data, for hosts that read structure rather than
    /// text (MCP's `structuredContent`): it follows the descriptor's
    /// `output_schema`. `None` for a hard failure, whose text is the
    /// whole answer. Nothing in it is sanitized for a model: it carries
    /// the values themselves, for the host's code.
    pub fn structured(&self) -> Option<Value> {
        if self.is_error() {
            return None;
        }
        let mut out = serde_json::Map::new();
        out.insert("outcome".into(), self.outcome.class.as_str().into());
        out.insert("id".into(), self.outcome.id.into());
        // What a page or a provider wrote (a redirect's target, a title, a
        // search row) goes under `untrusted` only, its control characters
        // escaped as the texts outside the envelope escape them: a host
        // hands it to a model only quoted, as the envelope quotes the text.
        let mut untrusted = serde_json::Map::new();
        if let Some(m) = &self.meta {
            out.insert("url".into(), m.url.as_str().into());
            out.insert("offset".into(), m.offset.into());
            if let Some(next) = m.next_offset {
                out.insert("next_offset".into(), next.into());
            }
            out.insert("truncated".into(), m.truncated.into());
            out.insert("returned_length".into(), m.returned_length.into());
            out.insert("total_length".into(), m.total_length.into());
            untrusted.insert("resolved_url".into(), escaped(&m.resolved_url).into());
            if let Some(t) = &m.title {
                untrusted.insert("title".into(), escaped(t).into());
            }
        }
        if let (Some(query), Some(rows)) = (&self.query, &self.rows) {
            out.insert("query".into(), query.as_str().into());
            untrusted.insert(
                "results".into(),
                rows.iter()
                    .map(|r| {
                        let mut v = search_view::row_value(r);
                        escape_strings(&mut v);
                        v
                    })
                    .collect(),
            );
        }
        if !untrusted.is_empty() {
            out.insert("untrusted".into(), Value::Object(untrusted));
        }
        Some(Value::Object(out))
    }
}

/// `s` with its control characters escaped (`messages::escape_char`): it
/// cannot break the line or the order of what a host puts around it.
fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        // OK because writing to a String cannot fail.
        let _ = crate::messages::shown::escape_char(&mut out, c);
    }
    out
}

/// Every string inside `v`, escaped as [`escaped`] does.
fn escape_strings(v: &mut Value) {
    match v {
        Value::String(s) => *s = escaped(s),
        Value::Array(a) => a.iter_mut().for_each(escape_strings),
        Value::Object(m) => m.values_mut().for_each(escape_strings),
        _ => {}
    }
}

/// The tools and the options a host chose.
#[derive(Clone, Debug)]
pub struct Toolbox {
    fetcher: Fetcher,
    searcher: Option<Searcher>,
    options: AgentOptions,
}

impl Toolbox {
    /// `web_fetch`, and `web_search` when a provider is configured.
    pub fn new(fetcher: Fetcher, searcher: Option<Searcher>, options: AgentOptions) -> Self {
        Toolbox {
            fetcher,
            searcher,
            options,
        }
    }

    /// The options in force.
    pub fn options(&self) -> &AgentOptions {
        &self.options
    }

    /// Every tool offered (search only with a provider), as shown.
    pub fn descriptors(&self) -> Vec<ToolDescriptor> {
        let o = &self.options;
        let mut fetch = ToolDescriptor::fetch(self.fetcher.policy().max_chars, o.paging);
        if let Some(n) = &o.fetch_name {
            fetch = fetch.named(n);
        }
        if let Some(d) = &o.fetch_description {
            fetch = fetch.described(d);
        }
        let mut out = vec![fetch];
        if self.searcher.is_some() {
            let mut search = ToolDescriptor::search(o.search_aliases);
            if let Some(n) = &o.search_name {
                search = search.named(n);
            }
            if let Some(d) = &o.search_description {
                search = search.described(d);
            }
            out.push(search);
        }
        out
    }

    /// A new run, with fresh budgets.
    pub fn start_run(self: &Arc<Self>) -> Run {
        Run {
            toolbox: Arc::clone(self),
            searches: AtomicU32::new(0),
            fetches: AtomicU32::new(0),
            robots: RobotsMemo::new(),
        }
    }
}

/// A tool name the toolbox does not offer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTool(pub String);

impl std::error::Error for UnknownTool {}

impl std::fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown tool: {}", self.0)
    }
}

/// One agent run: the budgets are counted here. Calls may run concurrently.
#[derive(Debug)]
pub struct Run {
    toolbox: Arc<Toolbox>,
    searches: AtomicU32,
    fetches: AtomicU32,
    /// The robots.txt files this run read (when the policy reads them).
    robots: RobotsMemo,
}

/// Takes one unit of a budget; `Err` when it is already spent. The ticket
/// gives the unit back when dropped before [`Ticket::keep`]: a call whose
/// future is dropped mid-flight (an MCP client's cancel) spends nothing.
fn take(counter: &AtomicU32, limit: Option<u32>) -> Result<Ticket<'_>, u32> {
    let Some(limit) = limit else {
        return Ok(Ticket {
            counter: None,
            last: false,
        });
    };
    let mut used = counter.load(Ordering::SeqCst);
    loop {
        if used >= limit {
            return Err(limit);
        }
        match counter.compare_exchange(used, used + 1, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => {
                return Ok(Ticket {
                    counter: Some(counter),
                    last: used + 1 == limit,
                })
            }
            Err(now) => used = now,
        }
    }
}

/// One unit of a budget, held while the call runs.
struct Ticket<'a> {
    /// The budget's counter; `None` without a budget or once kept.
    counter: Option<&'a AtomicU32>,
    /// This unit was the budget's last.
    last: bool,
}

impl Ticket<'_> {
    /// The call ran to its end: the unit stays spent.
    fn keep(mut self) {
        self.counter = None;
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.counter {
            c.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Run {
    /// The tools still offered in this run (a spent budget withdraws its
    /// tool).
    pub fn tools(&self) -> Vec<ToolDescriptor> {
        let o = &self.toolbox.options;
        let spent =
            |c: &AtomicU32, l: Option<u32>| l.is_some_and(|l| c.load(Ordering::SeqCst) >= l);
        self.toolbox
            .descriptors()
            .into_iter()
            .filter(|d| match d.kind {
                ToolKind::Fetch => !spent(&self.fetches, o.fetch_budget),
                ToolKind::Search => !spent(&self.searches, o.search_budget),
            })
            .collect()
    }

    /// Calls the tool shown as `name`.
    pub async fn call(&self, name: &str, args: &Value) -> Result<ToolReply, UnknownTool> {
        let kind = self
            .toolbox
            .descriptors()
            .into_iter()
            .find(|d| d.name == name)
            .map(|d| d.kind)
            .ok_or_else(|| UnknownTool(name.to_string()))?;
        Ok(match kind {
            ToolKind::Fetch => self.fetch(args).await,
            ToolKind::Search => self.search(args).await,
        })
    }

    /// `web_fetch` with the options.
    pub async fn fetch(&self, args: &Value) -> ToolReply {
        let started = tokio::time::Instant::now();
        let tb = &self.toolbox;
        let o = &tb.options;
        let mut notes = Vec::new();
        let requested = args.get("url").and_then(Value::as_str).map(str::to_string);
        // What the header and the summary show of the URL: its display
        // form when it parses (query and fragment as messages show them),
        // and either way through `Shown` (escaped, bounded), since the
        // argument is the model's, possibly talked into by a page.
        let requested = requested.map(|r| match url::Url::parse(&r) {
            Ok(u) => display_form(&u),
            Err(_) => r,
        });
        let summary = match &requested {
            Some(url) => Action::Opened { url }.to_string(),
            None => Action::TriedToOpen.to_string(),
        };
        let finish = |outcome: Outcome, notes: Vec<Note>, meta: Option<FetchMeta>| {
            self.reply(
                ToolKind::Fetch,
                outcome,
                notes,
                meta,
                None,
                summary.clone(),
                |_| EnvelopeSource::Page {
                    url: requested.as_deref().unwrap_or(""),
                },
            )
        };
        // Every call has a record, a refused one too: the attempts a host
        // most wants to see (a private address, a metadata URL) are the
        // ones refused before the network.
        let url_arg = args.get("url").and_then(Value::as_str);
        let refused = |outcome: Outcome, notes: Vec<Note>, why: Refused| {
            let record = tb.fetcher.refused_record(url_arg, why, &outcome, started);
            let mut r = finish(outcome, notes, None);
            r.audit = Some(Record::fetch(record));
            r
        };
        let a = match parse_fetch_args(args, tb.fetcher.policy()) {
            Ok(a) => a,
            Err(e) => return refused(FetchError::from(e).into(), notes, Refused::Arguments),
        };
        let offset = if o.paging {
            match args.get("offset") {
                None | Some(Value::Null) => 0,
                Some(v) => match whole_number(v) {
                    Some(n) => n,
                    None => return refused(OptionError::Offset.into(), notes, Refused::Arguments),
                },
            }
        } else {
            0
        };
        // A URL the admission rules refuse never reaches the network, so
        // it spends no budget: the fetch budget counts calls that went as
        // far as the lookup.
        let admitted = crate::policy::admission::admit(&a.url, tb.fetcher.policy());
        let audit;
        let fetched = match admitted {
            Err(r) => {
                let e = FetchError::Url(r);
                let record = tb.fetcher.refused_record(
                    url_arg,
                    Refused::Admission,
                    &Outcome::from(e.clone()),
                    started,
                );
                audit = Some(Record::fetch(record));
                Err(e)
            }
            Ok(page) => match take(&self.fetches, o.fetch_budget) {
                Err(limit) => {
                    return refused(
                        OptionError::FetchBudget { limit }.into(),
                        notes,
                        Refused::Other,
                    )
                }
                Ok(ticket) => {
                    if ticket.last {
                        notes.push(Note::FetchBudgetSpent {
                            limit: o.fetch_budget.unwrap_or_default(),
                        });
                    }
                    let opts = FetchOptions {
                        max_chars: Some(a.max_chars),
                        raw: a.raw,
                        whole: true,
                    };
                    let (mut r, mut record) = tb
                        .fetcher
                        .fetch_audited_with(&a.url, opts, &self.robots)
                        .await;
                    ticket.keep();
                    if let (Some(prefix), Some(why)) = (&o.reader_prefix, reader::unusable(&r)) {
                        self.read_through(
                            prefix,
                            why,
                            &page,
                            opts,
                            &mut r,
                            &mut record,
                            &mut notes,
                        )
                        .await;
                    }
                    audit = Some(Record::fetch(record));
                    r
                }
            },
        };
        let finish_audited = |outcome: Outcome, notes: Vec<Note>, meta: Option<FetchMeta>| {
            let mut r = finish(outcome, notes, meta);
            r.audit = audit.clone();
            r
        };
        let f = match fetched {
            Ok(f) => f,
            Err(e) => {
                let outcome = Outcome::from(e);
                if o.failure_notes {
                    notes.push(Note::NotRead {
                        reason: outcome.text.clone(),
                    });
                }
                return finish_audited(outcome, notes, None);
            }
        };
        if o.block_detection && block::is_block_page(&f.text) {
            let url = url::Url::parse(&f.url)
                .map(|u| display_form(&u))
                .unwrap_or_else(|_| f.url.clone());
            let outcome = Outcome::from(OptionError::BlockPage { url });
            if o.failure_notes {
                notes.push(Note::NotRead {
                    reason: outcome.text.clone(),
                });
            }
            return finish_audited(outcome, notes, None);
        }
        let total = f.text.chars().count();
        let (text, cut, next_offset, returned, not_returned) = if o.paging {
            match paging::page(&f.text, offset, a.max_chars) {
                Ok(p) => (
                    p.text,
                    p.next_offset.is_some(),
                    p.next_offset,
                    p.returned_length,
                    p.not_returned,
                ),
                Err(e) => return finish_audited(e.into(), notes, None),
            }
        } else {
            let mut t = f.text.clone();
            let cut = truncate_chars(&mut t, a.max_chars);
            let returned = if cut { a.max_chars } else { total };
            (t, cut, None, returned, total - returned)
        };
        let done = Fetched {
            url: f.url.clone(),
            truncated: cut || f.truncated,
            extraction: f.extraction,
            text,
            title: f.title.clone(),
            cut: f.cut,
        };
        if o.result_notes {
            if cut {
                notes.push(Note::Truncated {
                    not_returned,
                    next_offset,
                });
            } else if f.text.trim().is_empty() {
                // Nothing to read: say why, so that the model does not
                // take an empty page for one that says nothing.
                // (The output budget, four times the page, cannot be
                // spent before any text is written.)
                let why = match f.cut {
                    Some(crate::extract::Cut::TimeLimit) => EmptyWhy::TimeLimit,
                    _ => EmptyWhy::NoText,
                };
                notes.push(Note::Empty { why });
            } else if total < THIN_PAGE_CHARS && !f.truncated {
                notes.push(Note::Thin { chars: total });
            }
        }
        let meta = FetchMeta {
            url: a.url.clone(),
            resolved_url: f.url,
            title: f.title,
            offset,
            next_offset,
            truncated: done.truncated,
            returned_length: returned,
            total_length: total,
        };
        finish_audited(Outcome::ok("fetch.ok", done.render()), notes, Some(meta))
    }

    /// The reader fallback: the page once more through the host's reader,
    /// on one more unit of the fetch budget (none left: no fallback). Its
    /// record joins the call's; its text replaces the direct result only
    /// when [`reader::better`], with the note saying where it came from.
    #[allow(clippy::too_many_arguments)]
    async fn read_through(
        &self,
        prefix: &str,
        why: crate::messages::ReaderWhy,
        page: &crate::policy::AdmittedUrl,
        opts: FetchOptions,
        direct: &mut Result<Fetched, FetchError>,
        record: &mut crate::audit::FetchAudit,
        notes: &mut Vec<Note>,
    ) {
        let o = &self.toolbox.options;
        let Ok(ticket) = take(&self.fetches, o.fetch_budget) else {
            return;
        };
        if ticket.last {
            notes.push(Note::FetchBudgetSpent {
                limit: o.fetch_budget.unwrap_or_default(),
            });
        }
        let url = reader::reader_url(prefix, page.as_str());
        tracing::info!(target: "webgate", reason = why.id(), "fetching through the reader");
        let (r, reader_record) = self
            .toolbox
            .fetcher
            .fetch_audited_with(&url, opts, &self.robots)
            .await;
        ticket.keep();
        record.reader = Some(Box::new(reader_record));
        match r {
            Ok(f) if reader::better(&f, direct) => {
                notes.insert(
                    0,
                    Note::ReadThrough {
                        url: page.display(),
                        reader: prefix.to_string(),
                        why,
                    },
                );
                *direct = Ok(f);
            }
            _ => tracing::info!(target: "webgate", "the reader gave nothing better"),
        }
    }

    /// `web_search` with the options. Without a provider, the call is a
    /// hard failure saying so.
    pub async fn search(&self, args: &Value) -> ToolReply {
        let started = tokio::time::Instant::now();
        let tb = &self.toolbox;
        let o = &tb.options;
        let mut notes = Vec::new();
        let fail = |outcome: Outcome, notes: Vec<Note>, summary: String| {
            self.reply(
                ToolKind::Search,
                outcome,
                notes,
                None,
                None,
                summary,
                |_| EnvelopeSource::Search { query: "" },
            )
        };
        let unknown = Action::SearchedTheWeb.to_string();
        let Some(searcher) = &tb.searcher else {
            let outcome = Outcome::from(OptionError::SearchUnavailable);
            let record = crate::audit::SearchAudit::unavailable(&outcome);
            let mut r = fail(outcome, notes, unknown);
            r.audit = Some(Record::search(record));
            return r;
        };
        // Every call has a record, a refused one too.
        let refused = |outcome: Outcome, notes: Vec<Note>, summary: String, args: bool| {
            let record = searcher.refused_record(&outcome, args, started);
            let mut r = fail(outcome, notes, summary);
            r.audit = Some(Record::search(record));
            r
        };
        let args = if o.search_aliases {
            match search_view::apply_aliases(args) {
                Ok(a) => a,
                Err(e) => return refused(e.into(), notes, unknown, true),
            }
        } else {
            args.clone()
        };
        let accepted = match parse_search_args(&args) {
            Ok(a) => a,
            Err(e) => return refused(SearchError::from(e).into(), notes, unknown, true),
        };
        let summary = Action::Searched {
            query: &accepted.query,
        }
        .to_string();
        let ticket = match take(&self.searches, o.search_budget) {
            Err(limit) => {
                return refused(
                    OptionError::SearchBudget { limit }.into(),
                    notes,
                    summary,
                    false,
                )
            }
            Ok(t) => t,
        };
        if ticket.last {
            notes.push(Note::SearchBudgetSpent {
                limit: o.search_budget.unwrap_or_default(),
            });
        }
        let query = accepted.query.clone();
        crate::progress::report(crate::messages::Progress::Searching);
        let (found, record) = searcher.search_recorded(&accepted).await;
        ticket.keep();
        let record = Some(Record::search(record));
        match found {
            Ok(rows) => {
                let text = if o.numbered_search {
                    search_view::numbered(&query, &rows)
                } else {
                    SearchOk {
                        query: &query,
                        rows: &rows,
                    }
                    .to_string()
                };
                let mut r = self.reply(
                    ToolKind::Search,
                    Outcome::ok("search.ok", text),
                    notes,
                    None,
                    Some(rows),
                    summary,
                    |_| EnvelopeSource::Search { query: &query },
                );
                r.query = Some(query.clone());
                r.audit = record;
                r
            }
            Err(e) => {
                let mut r = fail(e.into(), notes, summary);
                r.audit = record;
                r
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn reply<'s>(
        &self,
        tool: ToolKind,
        outcome: Outcome,
        notes: Vec<Note>,
        meta: Option<FetchMeta>,
        rows: Option<Vec<SearchRow>>,
        summary: String,
        source: impl FnOnce(&Outcome) -> EnvelopeSource<'s>,
    ) -> ToolReply {
        let model_text = if self.toolbox.options.envelope && outcome.class != Class::Hard {
            envelope::wrap(&outcome.text, source(&outcome), &notes)
        } else if let Some(n) = notes.iter().find(|n| matches!(n, Note::ReadThrough { .. })) {
            // Where a text came from is never left to the host to show:
            // without the envelope, the reader's note leads the text.
            format!("{n}\n\n{}", outcome.text)
        } else {
            outcome.text.clone()
        };
        ToolReply {
            tool,
            outcome,
            model_text,
            notes,
            meta,
            rows,
            summary,
            query: None,
            audit: None,
        }
    }
}

/// A JSON whole number ≥ 0 (5 and 5.0 alike), as the contract reads them.
fn whole_number(v: &Value) -> Option<usize> {
    if let Some(n) = v.as_u64() {
        return usize::try_from(n).ok();
    }
    let f = v.as_f64()?;
    (f.fract() == 0.0 && f >= 0.0 && f <= usize::MAX as f64).then_some(f as usize)
}
