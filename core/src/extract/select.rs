//! Which part of the page is its content, in three decisions, each a
//! small model over the features of `features` (trained on the WCXB
//! development split and the article-extraction benchmark, see
//! `bench/train/`):
//!
//! 1. **The root.** Every element holding a twentieth of the page's text
//!    is a candidate; a ranker picks one. It reads how much content text
//!    a candidate holds and of what kind, its name and tag, readability's
//!    score, and how its children repeat: so a thread's posts, a grid's
//!    tiles or a document's sections are taken whole, not their best one.
//!    A candidate inside a window over the page (a dialog, a block kept
//!    out of search snippets) or the site's furniture (navigation, a
//!    footer, the page header) is never the root, however it ranks.
//!    On a page that is not an article, a root that is one of a run of
//!    siblings alike in look and build (one post of a thread the ranker
//!    did not take whole) gives way to the run's parent; on a page
//!    that says it is a discussion, a question followed by a container
//!    of answers gives way to the parent of both.
//! 2. **The page type.** A page that declares itself an article twice
//!    (JSON-LD and Open Graph) is one; otherwise a classifier says
//!    whether the page is an article (news, a blog post). Articles keep
//!    the article rules of `prune` (bylines, captions, related links, a
//!    title repeated as a heading); other pages, where a link-dense row
//!    or a price is the content, go to the third decision instead.
//! 3. **The units kept.** Inside the root, every block with text of its
//!    own is kept or dropped by a classifier that reads its shape, link
//!    share, the boxes and names above it, and the article rules' own
//!    verdict. A block inside the site's furniture or a window over the
//!    page is dropped whatever the classifier says, and so is a quotation
//!    of text the root already showed.

use super::comments;
use super::dom::{Doc, Id};
use super::features::{self, Figures};
use super::model::logit;
use super::model_data::{PAGE, ROOT, UNIT};
use super::prune::Pruner;
use super::signals::{is_furniture, is_modal, is_unlikely, is_window};

/// A page is an article when it says so twice (see
/// `features::declares_article`), or when the classifier gives at least
/// this.
const ARTICLE: f64 = 0.7;

/// A unit is kept when the classifier gives at least this.
const KEEP: f64 = 0.4;

/// The most units scored on one page (each costs a walk of every tree);
/// past it the rest are kept. The most of any of the 1,678 benchmark
/// pages is 2,600; a page of a million one-word paragraphs stays cheap.
pub const MAX_SCORED: usize = 4_000;

/// What to render.
pub enum Choice {
    /// An article: the root, with the article rules, and the reader
    /// comments of the page (see `comments`).
    Article { root: Id, comments: Comments },
    /// Another kind of page: the root, without the text of these nodes,
    /// and the reader comments of the page.
    Other {
        root: Id,
        dropped: Vec<bool>,
        comments: Comments,
    },
}

/// The reader comments of a page: none when they are its content (a
/// thread's replies), which the root keeps.
#[derive(Debug, Default)]
pub struct Comments {
    /// Inside the root: left out of its text.
    pub inside: Vec<Id>,
    /// After the root, in the page: never in its text.
    pub after: Vec<Id>,
    /// Whether they are a product's reviews by its customers (a page
    /// that declares a product), not readers' comments.
    pub reviews: bool,
}

/// What [`choose`] reads before it decides anything about units, and
/// what the training rows are made from (`training_rows` in `mod.rs`):
/// one path, so that the models learn from the very rows they score.
pub struct Plan {
    /// The page's figures (every candidate's row reads them).
    pub figures: Figures,
    off: OffLimits,
    /// The candidate the ranker put first, never one inside a window over
    /// the page or the site's furniture (the body when there is nothing
    /// else).
    pub ranked: Id,
    /// The page's row, read by the page model and, in part, by every
    /// unit's.
    pub page: features::PageRow,
    /// The root whose units the unit model scores when the page is not
    /// an article: the ranked root widened to its run of posts
    /// ([`run_around`]), or, on a page that declares a discussion, with
    /// the replies after it ([`replies_after`]).
    pub units_root: Id,
}

/// The [`Plan`] for `doc`, found at `url`.
pub fn plan(doc: &Doc, url: &url::Url) -> Plan {
    let figures = Figures::of(doc);
    let off = off_limits(doc);
    let ranked = root_outside(doc, &figures, &off.root);
    let page = features::page(doc, &figures, url, ranked);
    let mut units_root = run_around(doc, ranked, &off.root);
    if units_root == ranked && features::declares_discussion(&page) {
        units_root = replies_after(doc, ranked, &off.root);
    }
    Plan {
        figures,
        off,
        ranked,
        page,
        units_root,
    }
}

fn root_outside(doc: &Doc, f: &Figures, off: &[bool]) -> Id {
    // (A candidate off limits is not scored: `best` would pass it over.)
    let scored = features::candidates(doc, f)
        .into_iter()
        .filter(|&(id, _)| !off[id])
        .map(|(id, x)| (id, ROOT.score(&x)));
    best(scored, off).unwrap_or(doc.body())
}

/// The best-scored candidate not off limits.
fn best(scored: impl IntoIterator<Item = (Id, f64)>, off: &[bool]) -> Option<Id> {
    scored
        .into_iter()
        .filter(|&(id, _)| !off[id])
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(id, _)| id)
}

/// How far above the root a member of a run is looked for: a post's
/// text sits a level or three below the element that repeats.
const RUN_LEVELS: usize = 3;

/// The parent of the run of siblings that `root`, or one of its
/// [`RUN_LEVELS`] nearest ancestors, belongs to; else `root`.
///
/// The ranker takes a thread's posts whole when it has seen pages like
/// it, and one post when it has not (held out, a travel forum's longest
/// reply instead of its ten). Readability's answer is to add siblings
/// alike to the top candidate; here a sibling counts when it has the
/// same tag and class, and children of mostly the same looks (a post's
/// header, body and footer), and the run is taken when such siblings
/// hold half the member's text or more. Built alike is what tells a
/// thread from a shop's page sections (`shopify-section` after
/// `shopify-section`, each a different block) and a collection's
/// content blocks; articles never climb (`choose`), because the article
/// after an article on an endless news page is built exactly like it.
///
/// Measured on the WCXB development split: in sample two pages move
/// (a service page +0.09, a forum page −0.008); held out one forum page
/// goes from 0.39 to 0.96 (forum 0.771 → 0.776) and nothing else moves;
/// the news pages are unchanged either way. Without the build test a
/// product and a collection page lose 0.22 and 0.11, and with articles
/// climbing too the news set falls from 0.980 to 0.976 (two pages held
/// out take in the next story). With the build test none of the 181
/// news pages moves whether articles climb or not: articles are spared
/// because the build test cannot tell the next story from a post.
///
/// Linear: at most `RUN_LEVELS + 1` parents' children are read, with
/// their own children once each.
fn run_around(doc: &Doc, root: Id, off: &[bool]) -> Id {
    let body = doc.body();
    let mut member = root;
    for _ in 0..=RUN_LEVELS {
        let Some(parent) = doc.parent(member) else {
            break;
        };
        if parent == body || off[parent] {
            break;
        }
        let look = features::look(doc, member);
        if !look.1.is_empty() {
            let build = child_looks(doc, member);
            let alike: usize = doc
                .children(parent)
                .filter(|&c| {
                    c != member
                        && features::look(doc, c) == look
                        && mostly_shared(&build, &child_looks(doc, c))
                })
                .map(|c| doc.nodes[c].text_len)
                .sum();
            if 2 * alike >= doc.nodes[member].text_len && alike > 0 {
                return parent;
            }
        }
        member = parent;
    }
    root
}

/// How far above the root the post that replies follow is looked for:
/// a question's text sits four to six levels below the element it
/// shares with its answers.
const THREAD_LEVELS: usize = 6;

/// The least text of a reply, characters.
const REPLY_TEXT: usize = 80;

/// On a page that says it is a discussion, the parent of the post
/// `root` is in (up to [`THREAD_LEVELS`] up) when a later sibling of
/// that post holds a run of replies (see [`holds_replies`]) with half
/// the post's text or more; else `root`.
///
/// Threads often keep the question in one container and the answers in
/// the next (`MessageList` then `CommentsWrap`; an `article` then a
/// `post-comments` block), and a ranker that has not seen the site
/// takes the question alone. Only on discussion pages (a JSON-LD
/// `DiscussionForumPosting` or `QAPage`, a thread's URL): elsewhere a
/// run after the root is a product's reviews, an article's related
/// stories, a forum index's side lists (the same rule on every page
/// that is not an article moved 12 pages in sample, 11 down).
///
/// Measured on the WCXB development split: in sample one page moves,
/// 4316 forum 1.00 → 0.11 (its reference keeps the question without
/// its replies); held out, same fold models, one page moves, 2201 forum
/// 0.35 → 0.83 (a question and its eleven answers), forum 0.774 →
/// 0.779. News unchanged.
///
/// Linear: the later siblings read at each level lie outside the member
/// read at the level before, and [`holds_replies`] reads three levels
/// of each.
fn replies_after(doc: &Doc, root: Id, off: &[bool]) -> Id {
    let body = doc.body();
    let mut member = root;
    for _ in 0..THREAD_LEVELS {
        let Some(parent) = doc.parent(member) else {
            break;
        };
        if parent == body || off[parent] {
            break;
        }
        let need = doc.nodes[member].text_len.div_ceil(2);
        let later = doc.children(parent).skip_while(|&c| c != member).skip(1);
        for s in later {
            if holds_replies(doc, s, need) {
                return parent;
            }
        }
        member = parent;
    }
    root
}

/// Whether `id`, or an element up to two levels inside it, has three
/// or more children alike in look and build, each of [`REPLY_TEXT`]
/// characters or more, holding `need` characters together.
fn holds_replies(doc: &Doc, id: Id, need: usize) -> bool {
    let mut level = vec![id];
    for _ in 0..3 {
        let mut next = Vec::new();
        for &e in &level {
            if doc.nodes[e].text_len < need {
                continue;
            }
            let kids: Vec<Id> = doc
                .children(e)
                .filter(|&c| doc.nodes[c].tag().is_some())
                .collect();
            let long: Vec<Id> = kids
                .iter()
                .copied()
                .filter(|&c| doc.nodes[c].text_len >= REPLY_TEXT)
                .collect();
            if let Some(&first) = long.first() {
                let look = features::look(doc, first);
                let build = child_looks(doc, first);
                let alike: Vec<Id> = long
                    .iter()
                    .copied()
                    .filter(|&c| {
                        features::look(doc, c) == look
                            && mostly_shared(&build, &child_looks(doc, c))
                    })
                    .collect();
                let text: usize = alike.iter().map(|&c| doc.nodes[c].text_len).sum();
                if alike.len() >= 3 && text >= need {
                    return true;
                }
            }
            next.extend(kids);
        }
        level = next;
    }
    false
}

/// The distinct looks of an element's child elements, sorted.
fn child_looks(doc: &Doc, id: Id) -> Vec<features::Look<'_>> {
    let mut looks: Vec<_> = doc
        .children(id)
        .filter(|&c| doc.nodes[c].tag().is_some())
        .map(|c| features::look(doc, c))
        .collect();
    looks.sort_unstable();
    looks.dedup();
    looks
}

/// Whether two sorted sets of looks share half their union or more.
fn mostly_shared(a: &[features::Look<'_>], b: &[features::Look<'_>]) -> bool {
    let (mut i, mut j, mut both) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let all = a.len() + b.len() - both;
    all > 0 && 2 * both >= all
}

/// Per node, whether it lies inside a region that is never the page's
/// content, as declared by the page itself (tags, landmark roles, window
/// attributes) rather than learnt: the models can put a cookie notice's
/// prose or a header's menu first on a page unlike those they learnt
/// from, and the page comes back as that.
struct OffLimits {
    /// Never the root: inside a window over the page ([`is_window`]) or
    /// the site's furniture ([`is_furniture`]).
    root: Vec<bool>,
    /// Never a kept unit: inside the site's furniture or a modal window
    /// ([`is_modal`]); a side sheet can hold a product's whole
    /// description.
    unit: Vec<bool>,
}

/// Marks [`OffLimits`] in one pass in document order (a subtree is a run
/// of ids). A region holding half the page's text is the page shown in a
/// window or a site that marks up its content oddly, and stays; unless it
/// is a window named as boilerplate (a consent manager's window lists
/// hundreds of vendors and can outweigh a short thread): then it holds
/// neither the root nor a kept unit. Measured, the units' half: one WCXB
/// forum page, a thread of ten short posts under a consent manager's
/// 13,700 characters of purposes (0.16 → 0.48); nothing else on WCXB,
/// web-classics or the news pages moves.
fn off_limits(doc: &Doc) -> OffLimits {
    let half = doc.nodes[doc.body()].text_len / 2;
    let n = doc.nodes.len();
    let (mut root, mut unit) = (vec![false; n], vec![false; n]);
    let (mut root_until, mut unit_until) = (0, 0);
    for (id, node) in doc.nodes.iter().enumerate() {
        if id < root_until {
            root[id] = true;
        }
        if id < unit_until {
            unit[id] = true;
        }
        if root[id] && unit[id] {
            continue;
        }
        let small = node.text_len < half;
        let furniture = small && is_furniture(doc, id);
        if !root[id] && (furniture || (is_window(node) && (small || is_unlikely(doc, id)))) {
            root_until = doc.end(id);
            root[id] = true;
        }
        // (A window named as boilerplate holds no unit however long it
        // is, as it holds no root: a consent manager's window over a
        // short thread lists hundreds of vendors in prose.)
        if !unit[id] && (furniture || (is_modal(node) && (small || is_unlikely(doc, id)))) {
            unit_until = doc.end(id);
            unit[id] = true;
        }
    }
    OffLimits { root, unit }
}

/// The three decisions for `doc`, found at `url`.
pub fn choose(doc: &Doc, url: &url::Url, rules: &Pruner) -> Choice {
    let Plan {
        off,
        ranked: root,
        page,
        units_root,
        ..
    } = plan(doc, url);
    // Reader comments are not the page's text, unless the page says it
    // is a discussion, its host is a forum, or they are most of what the
    // root holds (see `comments`). On a page that declares a product,
    // its customers' reviews are to it what readers' comments are to a
    // story; comments there (questions and answers) stay.
    let discussion = features::declares_discussion(&page) || comments::forum_host(url);
    let product = features::unit_context(&page)[0] == 1.0;
    let reviews = product && !discussion;
    let is_region: comments::IsRegion = if reviews {
        comments::is_review_region
    } else {
        comments::is_comment_region
    };
    let comments_in = |root: Id, article: bool| {
        let found = comments::regions_of(doc, root, is_region);
        // An article whose comments are plain paragraphs after a mark
        // (`<a name="comments">`): what follows the mark goes. The mark
        // comes after an article's worth of text (`after_mark`), so the
        // region tests below hold by construction; and whether the
        // comments are built like the story says nothing here: they are
        // paragraphs like its own.
        if found.is_empty() && article && !discussion && !product {
            let rest = comments::after_mark(doc, root);
            if !rest.is_empty() {
                return Comments {
                    inside: rest,
                    after: comments::regions_after(doc, root, is_region),
                    reviews,
                };
            }
        }
        let content = discussion
            || (!found.is_empty()
                && (!comments::after_the_body(doc, root, &found)
                    || comments::are_the_content(doc, root, &found)
                    || comments::posts_alike(doc, root, &found)));
        if content {
            return Comments::default();
        }
        Comments {
            inside: found,
            after: comments::regions_after(doc, root, is_region),
            reviews,
        }
    };
    if features::declares_article(&page) || PAGE.score(&page.values()) >= logit(ARTICLE) {
        // Out of a comment region, and out of a thread of comments
        // longer than the story above it (`comments::above_thread`).
        let root = if discussion {
            root
        } else if product {
            comments::outside(doc, root)
        } else {
            comments::above_thread(doc, comments::outside(doc, root))
        };
        return Choice::Article {
            root,
            comments: comments_in(root, true),
        };
    }
    let root = units_root;
    let comments = comments_in(root, false);
    let n = doc.nodes.len();
    let (mut dropped, mut own_text) = (vec![false; n], vec![false; n]);
    let mut scored = 0;
    features::units(doc, root, rules, features::unit_context(&page), |unit| {
        scored += 1;
        // A quotation repeating what the page already showed (a reply
        // quoting a post, a reply's one-line preview of its parent) goes
        // whatever the classifier says: the text is there once already.
        if !off.unit[unit.id] && !unit.quoted_repeat && UNIT.score(&unit.x) >= logit(KEEP) {
            return scored < MAX_SCORED;
        }
        own_text[unit.id] = true;
        // A dropped block goes whole (its images too) when nothing with
        // text of its own lies inside it.
        if unit.leaf && unit.id != root {
            dropped[unit.id] = true;
        }
        scored < MAX_SCORED
    });
    features::text_units(doc, root, |text, unit| {
        if own_text[unit] {
            dropped[text] = true;
        }
    });
    Choice::Other {
        root,
        dropped,
        comments,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compiled trees give the scores the trainer computed for the
    /// same rows (a row each of the training data, written beside the
    /// trees by `bench/train/train.py`). Here, where the models are used,
    /// so that `model` (the evaluator) never imports its data.
    /// Each compiled model reads the columns inference writes: the names
    /// it was trained on (the trainer writes them into `model_data.rs`)
    /// are the row types' names, in order.
    #[test]
    fn the_models_read_the_rows_inference_builds() {
        assert_eq!(ROOT.names, features::CandidateRow::NAMES);
        assert_eq!(UNIT.names, features::UnitRow::NAMES);
        assert_eq!(PAGE.names, features::PageRow::NAMES);
        for m in [&ROOT, &UNIT, &PAGE] {
            let most = m.nodes.iter().map(|n| n.0).max().unwrap_or(-1);
            assert!(
                most < m.names.len() as i8,
                "a tree reads a column past the row"
            );
        }
    }

    /// The models say where they come from: the trainer, the settings it
    /// ran with (tidy holds them to the script), the thresholds this file
    /// applies among them, and corpora with pages and a digest each.
    #[test]
    fn the_models_carry_their_provenance() {
        let p = &super::super::model_data::PROVENANCE;
        assert_eq!(p.trainer, "bench/train/train.py");
        assert!(
            p.settings.iter().any(|l| l.contains("seed=")),
            "{:?}",
            p.settings
        );
        let thresholds = format!("ARTICLE, KEEP = {ARTICLE:?}, {KEEP:?}");
        assert!(p.settings.contains(&thresholds.as_str()), "{thresholds}");
        assert!(!p.lightgbm.is_empty());
        assert!(!p.corpora.is_empty());
        for (name, file, pages, digest) in p.corpora {
            assert!(
                !name.is_empty() && file.contains('/') && *pages > 0,
                "{name}"
            );
            assert!(digest.len() == 16 && digest.bytes().all(|b| b.is_ascii_hexdigit()));
        }
    }

    #[test]
    fn compiled_trees_agree_with_the_trainer() {
        for (model, x, want) in super::super::model_data::CHECKS {
            let m = match *model {
                "root" => &ROOT,
                "unit" => &UNIT,
                _ => &PAGE,
            };
            let got = m.score(x);
            assert!((got - want).abs() < 1e-4, "{model}: {got} against {want}");
        }
    }

    /// Dialogs, modal windows and snippet-less blocks are windows, with
    /// everything inside them; a window holding half the page is not.
    #[test]
    fn windows_over_the_page() {
        let prose = "A sentence long enough to count as text of the page. ".repeat(8);
        let html = format!(
            "<body><div role=dialog id=d><p id=dp>{prose}</p></div>\
             <div aria-modal=TRUE id=m><p>{prose}</p></div>\
             <div data-nosnippet id=n><p>{prose}</p></div>\
             <div role=dialogue id=x><p>{prose}</p></div>\
             <main id=page><p>{prose}{prose}{prose}{prose}{prose}{prose}{prose}{prose}</p></main></body>"
        );
        let doc = Doc::parse(&html);
        let w = off_limits(&doc).root;
        for v in ["d", "dp", "m", "n"] {
            assert!(w[doc.with_id(v)], "{v} is in a window");
        }
        for v in ["x", "page"] {
            assert!(!w[doc.with_id(v)], "{v} is not in a window");
        }
        // Units: a side sheet (a dialog alone) can hold the description.
        let u = off_limits(&doc).unit;
        for v in ["m", "n"] {
            assert!(u[doc.with_id(v)], "{v}'s units go");
        }
        for v in ["d", "dp", "x", "page"] {
            assert!(!u[doc.with_id(v)], "{v}'s units stay");
        }
        // The page itself inside a modal wrapper stays eligible.
        let html =
            format!("<body><div aria-modal=true id=w><p>{prose}</p></div><p>Close</p></body>");
        let doc = Doc::parse(&html);
        assert!(!off_limits(&doc).root[doc.with_id("w")]);
        assert!(!off_limits(&doc).unit[doc.with_id("w")]);
        // Unless it is named as boilerplate: then neither its root nor
        // its units (a consent manager's prose outweighs a short thread).
        let html = html.replace("id=w", "id=w class=consent-sdk");
        let doc = Doc::parse(&html);
        assert!(off_limits(&doc).root[doc.with_id("w")]);
        assert!(off_limits(&doc).unit[doc.with_id("w")]);
    }

    /// Navigation, footers, the page header and landmark roles are the
    /// site's furniture; a header inside the main content, an `aside`,
    /// and a region only named like furniture are not; furniture holding
    /// half the page's text is not either.
    #[test]
    fn the_sites_furniture() {
        let line = "A sentence long enough to count as text of the page. ";
        let prose = line.repeat(8);
        let html = format!(
            "<body><header id=h><ul id=menu><li>{line}</ul></header>\
             <nav id=n>{line}</nav><div role=navigation id=rn>{line}</div>\
             <div role=banner id=rb>{line}</div><div role=search id=rs>{line}</div>\
             <main id=page><header id=mh><h1>{line}</h1></header><p>{prose}{prose}</p></main>\
             <aside id=a>{line}</aside><div class=comments id=c><p>{prose}</p></div>\
             <footer id=f><p id=fp>{line}</p></footer></body>"
        );
        let doc = Doc::parse(&html);
        let off = off_limits(&doc);
        for v in ["h", "menu", "n", "rn", "rb", "rs", "f", "fp"] {
            assert!(off.root[doc.with_id(v)], "{v} is furniture");
        }
        for v in ["page", "mh", "a", "c"] {
            assert!(!off.root[doc.with_id(v)], "{v} is not furniture");
        }
        // Units inside furniture are never kept either.
        for v in ["h", "menu", "n", "rn", "rb", "rs", "f", "fp"] {
            assert!(off.unit[doc.with_id(v)], "{v} is furniture");
        }
        for v in ["page", "mh", "a", "c"] {
            assert!(!off.unit[doc.with_id(v)], "{v} is not furniture");
        }
        let html = format!("<body><footer id=f><p>{prose}</p></footer><p>Top</p></body>");
        let doc = Doc::parse(&html);
        let off = off_limits(&doc);
        assert!(!off.root[doc.with_id("f")] && !off.unit[doc.with_id("f")]);
    }

    /// The ranker's choice is made among the candidates left eligible:
    /// with every node off limits but one post of a thread, that post is
    /// the root, though the ranker prefers the thread.
    #[test]
    fn the_root_is_chosen_among_eligible_candidates() {
        let posts: String = (0..8)
            .map(|i| {
                format!(
                    "<div class=post id=p{i}><p>Post {i}: did you try the other payment \
                     module? It worked for me after a restart of the shop.</p></div>"
                )
            })
            .collect();
        let doc = Doc::parse(&format!("<body><div id=thread>{posts}</div></body>"));
        let f = Figures::of(&doc);
        let post = doc.with_id("p7");
        assert_ne!(
            root_outside(&doc, &f, &off_limits(&doc).root),
            post,
            "the ranker alone takes the thread"
        );
        let mut off = vec![true; doc.nodes.len()];
        off[post] = false;
        assert_eq!(root_outside(&doc, &f, &off), post);
    }

    /// One post of a thread gives way to the thread: its siblings share
    /// its look and its build and hold half its text or more. Siblings
    /// alike only in name (page sections of different blocks), too
    /// little text beside the root, or a parent that is the body or off
    /// limits leave the root where it is.
    #[test]
    fn a_post_gives_way_to_its_thread() {
        let line = "Did you try the other payment module? It worked for me after a restart. ";
        let post = |i: usize| {
            format!(
                "<article class=reply><header class=meta>User {i} wrote:</header>\
                 <div class=body id=b{i}><p>{line}</p></div><footer>Reply</footer></article>"
            )
        };
        let posts: String = (0..4).map(post).collect();
        let doc = Doc::parse(&format!(
            "<body><div><section id=thread>{posts}</section></div></body>"
        ));
        let none = vec![false; doc.nodes.len()];
        let thread = doc.with_id("thread");
        assert_eq!(run_around(&doc, doc.with_id("b2"), &none), thread);
        assert_eq!(run_around(&doc, thread, &none), thread);
        // Off limits, the thread is not taken.
        let mut off = none.clone();
        off[thread] = true;
        assert_eq!(run_around(&doc, doc.with_id("b2"), &off), doc.with_id("b2"));
        // Nor is the body.
        let doc = Doc::parse(&format!("<body>{posts}</body>"));
        let none = vec![false; doc.nodes.len()];
        assert_eq!(
            run_around(&doc, doc.with_id("b2"), &none),
            doc.with_id("b2")
        );

        // Sections alike in name, built of different blocks.
        let prose = line.repeat(4);
        let html = format!(
            "<body><main><div id=m>\
             <section class=block id=d><h2>About</h2><p>{prose}</p></section>\
             <section class=block><ul><li>{line}</li></ul><form><button>Buy</button></form></section>\
             <section class=block><table><tr><td>{prose}</td></tr></table></section>\
             </div></main></body>"
        );
        let doc = Doc::parse(&html);
        let none = vec![false; doc.nodes.len()];
        assert_eq!(run_around(&doc, doc.with_id("d"), &none), doc.with_id("d"));

        // A long post beside short replies.
        let html = format!(
            "<body><main><div id=t><div class=post id=p><p>{}</p></div>\
             <div class=post><p>Thanks!</p></div></div></main></body>",
            line.repeat(10)
        );
        let doc = Doc::parse(&html);
        let none = vec![false; doc.nodes.len()];
        assert_eq!(run_around(&doc, doc.with_id("p"), &none), doc.with_id("p"));
    }

    /// An article never gives way to a run: on an endless news page the
    /// next story is built exactly like the first.
    #[test]
    fn an_article_does_not_take_the_next_story() {
        let para = "The council voted on Tuesday to close the old bridge to traffic. ";
        let story = |i: usize, n: usize| {
            format!(
                "<article class=story><header class=head><h1>Story {i}</h1><p class=byline>By A. Writer</p></header>\
                 <div class=text id=s{i}>{}</div><footer>Share</footer></article>",
                (0..n).map(|_| format!("<p>{}</p>", para.repeat(3))).collect::<String>()
            )
        };
        let html = format!(
            "<html><head><meta property=og:type content=article>\
             <script type=application/ld+json>{{\"@type\":\"NewsArticle\"}}</script></head>\
             <body><div class=page><nav><a href=/>Home</a></nav><main><div class=feed id=feed>{}{}</div></main></div></body></html>",
            story(0, 12),
            story(1, 6)
        );
        let doc = Doc::parse(&html);
        let ranked = plan(&doc, &url::Url::parse("https://news.example/").unwrap()).ranked;
        let off = off_limits(&doc).root;
        assert_ne!(
            run_around(&doc, ranked, &off),
            ranked,
            "the ranker's root is one story of a run"
        );
        let url = url::Url::parse("https://news.example/2024/bridge").unwrap();
        match choose(&doc, &url, &Pruner::new(&doc)) {
            Choice::Article { root: r, .. } => assert_eq!(r, ranked),
            Choice::Other { .. } => panic!("a page declaring an article twice is one"),
        }
    }

    /// The training rows are the rows inference scores: on a run of
    /// stories the unit rows come from the run (`Plan::units_root`), as
    /// `choose` reads them on a page that is not an article, not from
    /// the one story the ranker put first.
    #[test]
    fn training_rows_read_the_units_inference_scores() {
        let para = "The council voted on Tuesday to close the old bridge to traffic. ";
        let story = |i: usize, n: usize| {
            format!(
                "<article class=story><header class=head><h1>Story {i}</h1></header>\
                 <div class=text>{}</div><footer>Share</footer></article>",
                (0..n)
                    .map(|_| format!("<p>{}</p>", para.repeat(3)))
                    .collect::<String>()
            )
        };
        let html = format!(
            "<body><main><div class=feed>{}{}</div></main></body>",
            story(0, 12),
            story(1, 6)
        );
        let url = url::Url::parse("https://news.example/feed").unwrap();
        let doc = Doc::parse(&html);
        let p = plan(&doc, &url);
        assert_ne!(
            p.units_root, p.ranked,
            "the ranker's root is one story of a run"
        );
        let rows = super::super::training_rows(&html, &url);
        assert!(
            rows.units.iter().any(|(_, t)| t.contains("Story 1")),
            "the run's units, not only the ranked story's"
        );
    }

    /// A question gives way to the parent it shares with the answers
    /// that follow it in another container, however deep the question's
    /// text; not to a few short replies, to answers before it, or past
    /// the body or an off-limits parent.
    #[test]
    fn a_question_gives_way_to_its_answers() {
        let line = "Did you try the other payment module? It worked for me after a restart. ";
        let answer = |i: usize| {
            format!(
                "<div class=answer><div class=who>User {i}</div>                 <div class=text><p>{line}{line}</p></div></div>"
            )
        };
        let answers: String = (0..4).map(answer).collect();
        let question = format!(
            "<div class=item><div class=head>Asked today</div><div class=wrap>             <div class=body><div class=message id=q><p>{}</p></div></div></div></div>",
            line.repeat(3)
        );
        let page = |after: &str| {
            Doc::parse(&format!(
                "<body><div class=frame><main id=main><div class=list>{question}</div>\
                 <div class=comments><h2>Answers</h2><div class=all>{after}</div></div></main></div></body>"
            ))
        };
        // What the question's post gives way to, nothing off limits.
        let from_q =
            |doc: &Doc| replies_after(doc, doc.with_id("q"), &vec![false; doc.nodes.len()]);
        let doc = page(&answers);
        let none = vec![false; doc.nodes.len()];
        let q = doc.with_id("q");
        assert_eq!(replies_after(&doc, q, &none), doc.with_id("main"));
        // Off limits, the shared parent is not taken.
        let mut off = none.clone();
        off[doc.with_id("main")] = true;
        assert_eq!(replies_after(&doc, q, &off), q);
        // Two answers are no run; nor are answers under half the text.
        let doc = page(&(0..2).map(answer).collect::<String>());
        assert_eq!(from_q(&doc), doc.with_id("q"));
        let short: String = (0..4)
            .map(|i| {
                format!("<div class=answer><p>Same here, thanks a lot for this ({i}).</p></div>")
            })
            .collect();
        let doc = page(&short);
        assert_eq!(from_q(&doc), doc.with_id("q"));
        // Answers before the question are not its answers.
        let doc = Doc::parse(&format!(
            "<body><div><main id=main><div class=all>{answers}</div>{question}</main></div></body>"
        ));
        assert_eq!(from_q(&doc), doc.with_id("q"));
        // The body is never taken.
        let doc = Doc::parse(&format!(
            "<body>{question}<div class=all>{answers}</div></body>"
        ));
        assert_ne!(from_q(&doc), doc.body());
    }

    /// The best-scored candidate outside every window wins, whatever
    /// score a window's candidates have.
    #[test]
    fn the_best_candidate_outside_windows_wins() {
        let prose = "We use cookies to improve your experience and analyse traffic. ".repeat(4);
        let html = format!(
            "<body><div id=overlay><div role=dialog id=d><p id=p>{prose}</p></div></div>\
             <div id=thread><p>{prose}</p><p>{prose}</p><p>{prose}</p></div></body>"
        );
        let doc = Doc::parse(&html);
        let w = off_limits(&doc).root;
        let [overlay, d, p, thread] = ["overlay", "d", "p", "thread"].map(|v| doc.with_id(v));
        let scored = [(d, 3.0), (p, 2.5), (thread, 1.0), (overlay, 0.5)];
        assert_eq!(best(scored, &w), Some(thread));
        assert_eq!(best([(d, 3.0), (overlay, 4.0)], &w), Some(overlay));
        assert_eq!(best([(d, 3.0), (p, 2.0)], &w), None);
    }
}
