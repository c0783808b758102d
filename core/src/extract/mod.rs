//! HTML to text (contract §8): html5ever parses the page (`guard`,
//! `sink`, `dom`), `select` picks the main content, `render` writes
//! markdown or plain text, `title` puts the page's title first.
//!
//! The header logic lives here too (`extract_metered`): with `raw`
//! false the selected content is rendered, unless it is under 100 bytes
//! after trimming, when the whole document is rendered instead
//! (`raw-html`).
//!
//! **Architecture Invariant:** every walk over the tree is iterative; a
//! page nested 100,000 levels deep cannot overflow the stack.

mod backlinks;
mod columns;
mod comments;
mod dom;
mod features;
mod guard;
mod invisible;
mod lead;
mod lexicon;
mod links;
mod model;
mod model_data;
mod mojibake;
mod notice;
mod parse;
mod prune;
mod readability;
mod render;
mod repeats;
mod rows;
mod select;
mod signals;
mod sink;
mod streamed;
mod tables;
mod tail;
mod title;
mod unclosed;
mod visibility;
mod work;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use url::Url;

use work::Work;

use crate::messages::Extraction;

use crate::policy::{Comments, Links};
pub use links::{SESSION_PARAMETERS, TRACKING_PARAMETERS};
pub use render::Style;

/// An article shorter than this (bytes, after trimming) is not trusted:
/// the whole document is rendered instead.
pub(crate) const MIN_ARTICLE_BYTES: usize = 100;

/// A rendered page and what else the parse learnt about it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Page {
    /// The text.
    pub text: String,
    /// How it was made.
    pub extraction: Extraction,
    /// The page's title, as the text's first line shows it (see
    /// `title.rs`: the main heading when it is the title, else
    /// `og:title`, the JSON-LD headline, or the `<title>` without the
    /// site's name); `None` when the page declares none.
    pub title: Option<String>,
    /// Whether the text stopped early (see `cut`): it is what came before.
    pub truncated: bool,
    /// Why the text stopped early, when it did.
    pub cut: Option<Cut>,
}

/// Why an extraction's text stopped before the end of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cut {
    /// The output budget (four times the page's size, plus 64 KiB) was
    /// spent.
    OutputBudget,
    /// The extraction's time limit passed, or its caller stopped waiting.
    TimeLimit,
}

impl Cut {
    /// The word the audit record shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Cut::OutputBudget => "output budget",
            Cut::TimeLimit => "time limit",
        }
    }
}

/// How to extract a page.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// Render the whole document, not the main content (`raw: true`).
    pub raw: bool,
    /// Markdown or plain text.
    pub style: Style,
    /// How markdown shows links (plain text never shows their targets).
    pub links: Links,
    /// Whether reader comments under an article are shown (after it).
    pub comments: Comments,
    /// Past this instant parsing stops reading the page and rendering
    /// stops writing; the text made so far comes back with `truncated`
    /// set. Without a hostile page the work is linear and an 8 MiB page
    /// takes well under a second; the deadline is the host's bound on a
    /// slow machine.
    pub deadline: Option<Instant>,
    /// Set by the caller that stopped waiting (the async side of a fetch
    /// at the call's deadline): the work stops at its next look, within
    /// `work::CHECK_EVERY` units.
    pub cancel: Option<Arc<AtomicBool>>,
    /// At most this many units of work (`None`: no bound but the
    /// deadline). Tests and the fuzz target use it to see a loop that is
    /// not linear as a failure rather than as a slow run.
    pub work_budget: Option<u64>,
}

impl Options {
    /// The default options with `raw` and `style` as given.
    pub fn new(raw: bool, style: Style) -> Options {
        Options {
            raw,
            style,
            ..Options::default()
        }
    }
}

/// Extracts `html`, found at `base`, as `options` say: the one entry
/// point, the text `web_fetch` returns with its title and how it was
/// made. Never fails; the worst case is empty text. Links resolve against
/// `base`.
pub fn extract(html: &str, base: &Url, options: &Options) -> Page {
    let work = Work::new(
        options.deadline,
        options.cancel.clone(),
        options.work_budget.unwrap_or(u64::MAX),
    );
    extract_metered(html, base, options, &work)
}

/// The heading kept comments come under, after the page's text: a
/// product's reviews by customers under `Reviews`.
fn comments_heading(style: Style, reviews: bool) -> &'static str {
    match (style, reviews) {
        (Style::Markdown, false) => "## Comments",
        (Style::Plain, false) => "Comments",
        (Style::Markdown, true) => "## Reviews",
        (Style::Plain, true) => "Reviews",
    }
}

/// What [`extract`] prints for `html` at `url` with default options, as
/// plain text and as markdown: how the tests of the rules that leave
/// furniture out read what a model gets, in either style.
#[cfg(test)]
fn printed(html: &str, url: &str) -> [String; 2] {
    let base = Url::parse(url).expect("a test URL");
    [Style::Plain, Style::Markdown]
        .map(|style| extract(html, &base, &Options::new(false, style)).text)
}

/// [`extract`] on a meter the caller reads afterwards.
fn extract_metered(html: &str, base: &Url, options: &Options, work: &Work) -> Page {
    let (raw, style) = (options.raw, options.style);
    let (doc, late) = dom::Doc::parse_within(html, work);
    // What extraction chooses, before the title: the heading that leads
    // the chosen content may be the page's headline (see `lead`).
    let rules = (!raw).then(|| prune::Pruner::new(&doc));
    let choice = rules
        .as_ref()
        .map(|rules| match select::choose(&doc, base, rules) {
            select::Choice::Article { root, comments } => (root, comments, true, Vec::new()),
            select::Choice::Other {
                root,
                dropped,
                comments,
            } => (root, comments, false, dropped),
        });
    // What is left out of the chosen content whichever way it was
    // chosen: reader comments inside it, and the page's furniture that
    // sits in its text.
    let mut left_out = vec![false; if raw { 0 } else { doc.nodes.len() }];
    if let Some((root, comments, article, _)) = &choice {
        for &c in &comments.inside {
            left_out[c] = true;
        }
        // In an article's text, a column of other stories' headlines
        // (`columns`).
        if *article {
            columns::mark(&doc, *root, &mut left_out);
        }
        // A site's menu set as one line of links and bars (`rows`), its
        // links back up the page (`backlinks`) and its copyright notice
        // (`notice`).
        rows::mark(&doc, *root, &mut left_out);
        backlinks::mark(&doc, *root, &mut left_out);
        notice::mark(&doc, *root, &mut left_out);
    }
    let drops = |id: dom::Id| match (&choice, &rules) {
        (Some((_, _, article, dropped)), Some(rules)) => {
            left_out[id]
                || if *article {
                    rules.drops(id)
                } else {
                    dropped[id]
                }
        }
        _ => false,
    };
    let lead = choice
        .as_ref()
        .and_then(|(root, ..)| lead::lead(&doc, *root, Some(&drops), base));
    let title = title::title(&doc, base, lead.as_deref());
    // The text starts with the title, said once (see `title`).
    let titled = |text: String| match &title {
        Some(t) => {
            let rest = title::drop_repeat(text, t);
            let mut out = String::with_capacity(t.line.len() + rest.len() + 4);
            if style == Style::Markdown {
                out.push_str("# ");
            }
            out.push_str(&t.line);
            if let Some(h) = title::headline(&rest, t) {
                out.push_str("\n\n");
                if style == Style::Markdown {
                    out.push_str("## ");
                }
                out.push_str(h);
            }
            if !rest.is_empty() {
                out.push_str("\n\n");
                out.push_str(&rest);
            }
            out
        }
        None => text,
    };
    let page = |r: render::Rendered, extraction| {
        let cut = if late || work.stopped() {
            Some(Cut::TimeLimit)
        } else {
            r.truncated.then_some(Cut::OutputBudget)
        };
        let mut text = titled(r.text);
        // With links as references, each URL once, numbered, after the
        // text.
        if !r.refs.is_empty() {
            text.push('\n');
            for (i, url) in r.refs.iter().enumerate() {
                text.push_str(&format!("\n[{}]: {url}", i + 1));
            }
        }
        Page {
            text,
            extraction,
            title: title.as_ref().map(|t| t.line.clone()),
            truncated: cut.is_some(),
            cut,
        }
    };
    let look = |body_images| render::Look {
        style,
        links: options.links,
        body_images,
    };
    let render_more = |roots: &[dom::Id], drops: render::Drops, body_images, refs| {
        render::render_titled(
            &doc,
            roots,
            base,
            look(body_images),
            drops,
            work,
            title.as_ref().map(|t| t.line.as_str()),
            refs,
        )
    };
    let render_as = |roots: &[dom::Id], drops: render::Drops, body_images| {
        render_more(roots, drops, body_images, Vec::new())
    };
    let render = |roots: &[dom::Id], drops: render::Drops| render_as(roots, drops, raw);
    // Whether a rendering is long enough to be what extraction chose:
    // measured as plain text in either style (`Rendered::enough`), so
    // that markdown's URLs never make a choice plain text would not.
    let reviews = choice.as_ref().is_some_and(|c| c.1.reviews);
    let enough = |r: &render::Rendered, parts: &[(&[dom::Id], render::Drops)]| match r
        .enough(style, MIN_ARTICLE_BYTES)
    {
        render::Enough::Yes => true,
        render::Enough::No => false,
        render::Enough::AsPlain => {
            let plain = render::Look {
                style: Style::Plain,
                links: options.links,
                body_images: false,
            };
            // The parts joined as the text joins them: kept comments
            // after their heading (`Comments` between blank lines).
            let len: usize = parts
                .iter()
                .enumerate()
                .map(|(i, (roots, drops))| {
                    let n = render::render(&doc, roots, base, plain, *drops, work)
                        .text
                        .len();
                    match (i, n) {
                        (0, _) | (_, 0) => n,
                        _ => n + comments_heading(Style::Plain, reviews).len() + 4,
                    }
                })
                .sum();
            len >= MIN_ARTICLE_BYTES
        }
    };
    // What extraction chose is shown once (`repeats`); a raw rendering
    // shows the page as it is.
    let deduplicated = |r: render::Rendered| render::Rendered {
        text: repeats::drop_repeated(r.text, style == Style::Markdown, work),
        ..r
    };
    let body = doc.body();
    if let Some((root, comments, article, _)) = &choice {
        let (root, article) = (*root, *article);
        let mut r = render_as(&[root], Some(&drops), article || raw);
        let chosen = [root];
        let mut parts: Vec<(&[dom::Id], render::Drops)> = vec![(&chosen, Some(&drops))];
        let shown: Vec<dom::Id> = comments
            .inside
            .iter()
            .chain(&comments.after)
            .copied()
            .collect();
        if options.comments == Comments::Keep && !shown.is_empty() {
            // After the page's text, under their own heading; numbered on
            // from its references.
            let c = render_more(&shown, None, true, std::mem::take(&mut r.refs));
            r.refs = c.refs;
            if !c.text.is_empty() {
                let heading = comments_heading(style, comments.reviews);
                r.text = format!("{}\n\n{heading}\n\n{}", r.text, c.text);
                r.truncated |= c.truncated;
                r.targets += c.targets;
                parts.push((&shown, None));
            }
        }
        if enough(&r, &parts) {
            return page(deduplicated(r), Extraction::Readability);
        }
        // Too little to trust: the document instead, but not its
        // navigation, site header, footer and asides, when enough is left.
        let boxes = |id| signals::is_box(&doc, id);
        let whole = [body];
        let r = render(&whole, Some(&boxes));
        if enough(&r, &[(&whole, Some(&boxes))]) {
            return page(deduplicated(r), Extraction::RawHtml);
        }
    }
    page(render(&[body], None), Extraction::RawHtml)
}

/// The units of work extracting `html` takes in the parse and after it
/// (the parse's own budget is checked apart, in `parse_spent`), for the
/// fuzz target's check that work stays a bounded multiple of the page's
/// length.
pub(crate) fn work_spent(html: &str, raw: bool) -> (u64, u64) {
    let base = Url::parse("https://a.example/").expect("a valid URL");
    let work = Work::unbounded();
    extract_metered(html, &base, &Options::new(raw, Style::Markdown), &work);
    let parse = Work::unbounded();
    dom::Doc::parse_within(html, &parse);
    (parse.spent(), work.spent().saturating_sub(parse.spent()))
}

/// The deepest element the parsed tree keeps (see `sink`).
pub(crate) const MAX_TREE_DEPTH: usize = sink::MAX_DEPTH;

/// The depth of the deepest node of the tree `html` parses to.
pub(crate) fn tree_depth(html: &str) -> usize {
    let doc = dom::Doc::parse(html);
    // Document order: a parent's depth is known before its children's.
    let mut depth = vec![0usize; doc.nodes.len()];
    for id in 0..doc.nodes.len() {
        if let Some(p) = doc.parent(id) {
            depth[id] = depth[p] + 1;
        }
    }
    depth.into_iter().max().unwrap_or(0)
}

/// Where skipping the text of scripts and style sheets gives another
/// tree than the tokenizer reading it (see `sink::skip_differs`).
pub(crate) fn skip_differs(html: &str, small: bool) -> Option<String> {
    sink::skip_differs(html, small)
}

/// What parsing `html` spent against its budgets: (nodes made, work
/// units, the budgets' nodes and work, whether the rest became text).
/// With `small`, the budgets are the production formula without its
/// allowances for small pages (so that a fuzzer sees them at work).
pub(crate) fn parse_spent(html: &str, small: bool) -> (usize, u64, usize, u64, bool) {
    let limits = if small {
        sink::Limits::small(html.len())
    } else {
        sink::Limits::for_len(html.len())
    };
    let (_, spent) = sink::parse_with(html, limits, &Work::unbounded());
    (
        spent.nodes,
        spent.work,
        limits.nodes,
        limits.work,
        spent.tail,
    )
}

/// Parses into the flat view only; the node count.
pub(crate) fn parse_only(html: &str) -> usize {
    dom::Doc::parse(html).nodes.len()
}

/// The rows the selection models are trained on (see `bench/train/`):
/// per candidate root its features and plain text; per unit of the
/// model's root its features and text; the page's features.
pub(crate) fn training_rows(html: &str, base: &Url) -> TrainingRows {
    let doc = dom::Doc::parse(html);
    // The path `select::choose` takes: the same candidates, the same
    // page row, the units of the same root.
    let plan = select::plan(&doc, base);
    let candidates = features::candidates(&doc, &plan.figures)
        .into_iter()
        .map(|(id, x)| {
            let text = render::render(
                &doc,
                &[id],
                base,
                Style::Plain.into(),
                None,
                &Work::unbounded(),
            )
            .text;
            (x.to_vec(), text)
        })
        .collect();
    let root = plan.units_root;
    let rules = prune::Pruner::new(&doc);
    let mut rows = Vec::new();
    features::units(
        &doc,
        root,
        &rules,
        features::unit_context(&plan.page),
        |u| {
            rows.push((u.id, u.x.to_vec()));
            rows.len() < select::MAX_SCORED
        },
    );
    let mut texts: std::collections::HashMap<dom::Id, String> = Default::default();
    features::text_units(&doc, root, |t, u| {
        if let dom::Kind::Text(s) = &doc.nodes[t].kind {
            let text = texts.entry(u).or_default();
            text.push_str(s);
            text.push(' ');
        }
    });
    let units = rows
        .into_iter()
        .map(|(id, x)| (x, texts.remove(&id).unwrap_or_default()))
        .collect();
    TrainingRows {
        candidates,
        units,
        page: plan.page.values().to_vec(),
    }
}

/// The names of the features of candidates, units and pages, in order.
pub(crate) const FEATURE_NAMES: [&[&str]; 3] = [
    features::CANDIDATE_FEATURES,
    features::UNIT_FEATURES,
    features::PAGE_FEATURES,
];

/// See [`training_rows`].
pub(crate) struct TrainingRows {
    pub candidates: Vec<(Vec<f64>, String)>,
    pub units: Vec<(Vec<f64>, String)>,
    pub page: Vec<f64>,
}
