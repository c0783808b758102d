//! Main-article selection: readability's candidate scoring (text density,
//! commas, link density, class and id signals) over the flat view, then
//! precision-first pruning of boilerplate inside the chosen subtree.
//!
//! Scoring: every paragraph (a `<p>`-like element, or loose text cut at
//! block children and at `<br><br>`) adds to its parent, grandparent and
//! great-grandparent. Regions named as boilerplate (comment threads,
//! related stories, footers, `<nav>`/`<aside>`) and `<article>`s nested
//! side by side in another article take no part, unless they hold an
//! `<article>`/`<main>` themselves (then the name is a layout wrapper's)
//! or nothing else is left. The best candidate climbs to a parent that
//! holds most of its score and takes its close siblings along.
//!
//! Pruning, inside what was chosen: named boilerplate, nested articles,
//! a heading that rewords the page title, metadata lines (bylines, date
//! lines, microdata author and dates, elements named as metadata), ad-slot
//! labels, paragraphs that are one link (not a written-out URL), and the
//! short label that introduces a dropped block.
//!
//! Every rule reads structure, names and text shapes; none names a site.

use std::sync::OnceLock;

use super::dom::{Doc, Id, Kind, Node};

/// Class/id fragments that mark boilerplate wherever they appear in a
/// class or id ("commentlist", "share-tools", "site-footer"), with the
/// metadata words of [`META`].
const NEGATIVE: &[&str] = &[
    "comment",
    "footer",
    "sidebar",
    "widget",
    "share",
    "sharing",
    "social",
    "related",
    "recommend",
    "promo",
    "sponsor",
    "advert",
    "banner",
    "cookie",
    "consent",
    "newsletter",
    "subscri",
    "signup",
    "breadcrumb",
    "pagination",
    "pager",
    "masthead",
    "popup",
    "modal",
    "outbrain",
    "taboola",
    "disqus",
    "toolbar",
    "login",
    "trending",
    "most-popular",
    "mostpopular",
    "recirc",
    "caption",
    "credit",
    "readmore",
    "read-more",
    "more-from",
    "moreon",
    "paywall",
    "donate",
    "follow",
    "skip",
    "shopping",
    "gdpr",
    "community",
    "replies",
    "remark",
    "rss",
    "skyscraper",
    "shoutbox",
    "combx",
    "supplemental",
    "agegate",
    "tags",
    "tool",
    "nav",
    "menu",
    "header",
    "masthead",
    "print",
];

/// Class/id tokens that mark boilerplate only as whole words ("ad", not
/// "head" or "shadow").
const NEGATIVE_TOKENS: &[&str] = &[
    "ad", "ads", "adv", "date", "hid", "hidden", "also", "more", "jump", "rail", "extra",
];

/// Class/id fragments that mark content.
const POSITIVE: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "main",
    "post",
    "text",
    "blog",
    "story",
    "hentry",
    "prose",
    "markdown",
    "richtext",
    "rich-text",
    "column",
];

/// Fragments that mark a whole region to drop inside the article, however
/// much text it holds (a long comment thread is still comments), unless a
/// content word is there too.
const UNLIKELY: &[&str] = &[
    "comment",
    "disqus",
    "related",
    "recommend",
    "outbrain",
    "taboola",
    "share",
    "social",
    "newsletter",
    "subscri",
    "footer",
    "sidebar",
    "promo",
    "sponsor",
    "advert",
    "banner",
    "cookie",
    "consent",
    "breadcrumb",
    "pagination",
    "popup",
    "modal",
    "recirc",
    "trending",
    "most-popular",
    "replies",
    "community",
    "shoutbox",
    "agegate",
    "gdpr",
];

/// Words that overrule a boilerplate region's name: "content-sidebar"
/// may still hold the article.
const CONTENT_WORDS: &[&str] = &["article", "content", "main", "body", "story"];

/// Class/id fragments that name an element's metadata role; they count
/// as boilerplate words too (see [`NEGATIVE`]).
const META: &[&str] = &[
    "meta",
    "byline",
    "dateline",
    "timestamp",
    "author",
    "published",
    "updated",
    "posted",
];

/// What an element's class and id say, worked out on first use and kept
/// (matching the word lists is the costly part of scoring; every rule
/// asks these same questions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassFlags(u8);

impl ClassFlags {
    const NEGATIVE: u8 = 1;
    const POSITIVE: u8 = 2;
    /// Named as a boilerplate region (`UNLIKELY`).
    const ASIDE: u8 = 4;
    /// Also holds a content word, which overrules `ASIDE`.
    const CONTENT: u8 = 8;
    /// Named as metadata (`META`, or the words "date" / "time").
    const META: u8 = 16;
    /// Negative without counting "header" (a box header is not one).
    const NEGATIVE_BUT_HEADER: u8 = 32;

    /// Reads a lower-case `class id` string in one pass through an
    /// Aho–Corasick automaton of every fragment list (calling
    /// `str::contains` once per fragment per element cost more than
    /// html5ever's own tree building).
    pub fn of(class_id: &str) -> ClassFlags {
        if class_id.is_empty() {
            return ClassFlags(0);
        }
        let dfa = fragment_automaton();
        let mut f = 0;
        let mut state = 0usize;
        for &b in class_id.as_bytes() {
            state = match trie_edge(b) {
                Some(edge) => usize::from(dfa[state].next[edge]),
                None => 0,
            };
            f |= dfa[state].bits;
        }
        for token in class_id.split(|c: char| !c.is_ascii_alphanumeric()) {
            if matches!(token, "date" | "time") {
                f |= Self::META;
            }
            if NEGATIVE_TOKENS.contains(&token) {
                f |= Self::NEGATIVE | Self::NEGATIVE_BUT_HEADER;
            }
        }
        ClassFlags(f)
    }

    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

/// One automaton state: the next state per letter or `-`, and the flags
/// of every fragment that ends here (its own and, through the failure
/// links, those of the fragments that are its suffixes).
struct State {
    next: [u16; TRIE_EDGES],
    bits: u8,
}

/// a–z and `-`: every byte the fragment lists use; any other byte ends
/// every match and returns to the start.
const TRIE_EDGES: usize = 27;

fn trie_edge(b: u8) -> Option<usize> {
    match b {
        b'a'..=b'z' => Some(usize::from(b - b'a')),
        b'-' => Some(26),
        _ => None,
    }
}

/// Every fragment list in one automaton, built on first use: a trie of
/// the fragments, then (breadth first) each state's failure link, its
/// missing transitions filled from the failure state's.
fn fragment_automaton() -> &'static [State] {
    static DFA: OnceLock<Vec<State>> = OnceLock::new();
    DFA.get_or_init(|| {
        let empty = || State {
            next: [0; TRIE_EDGES],
            bits: 0,
        };
        let mut dfa = vec![empty()];
        let lists: [(&[&str], u8); 5] = [
            (NEGATIVE, ClassFlags::NEGATIVE),
            (POSITIVE, ClassFlags::POSITIVE),
            (UNLIKELY, ClassFlags::ASIDE),
            (CONTENT_WORDS, ClassFlags::CONTENT),
            (
                META,
                ClassFlags::META | ClassFlags::NEGATIVE | ClassFlags::NEGATIVE_BUT_HEADER,
            ),
        ];
        for (list, bit) in lists {
            for &frag in list {
                // "header" alone does not make a box header boilerplate.
                let bit = if bit == ClassFlags::NEGATIVE && frag != "header" {
                    bit | ClassFlags::NEGATIVE_BUT_HEADER
                } else {
                    bit
                };
                let mut node = 0;
                for b in frag.bytes() {
                    let edge = trie_edge(b).expect("fragments are a-z and -");
                    if dfa[node].next[edge] == 0 {
                        dfa.push(empty());
                        dfa[node].next[edge] =
                            u16::try_from(dfa.len() - 1).expect("a small automaton");
                    }
                    node = usize::from(dfa[node].next[edge]);
                }
                dfa[node].bits |= bit;
            }
        }
        // The root is never a child, so 0 in a trie edge means "none".
        let mut fail = vec![0usize; dfa.len()];
        let mut queue = std::collections::VecDeque::new();
        for edge in 0..TRIE_EDGES {
            let child = usize::from(dfa[0].next[edge]);
            if child != 0 {
                queue.push_back(child);
            }
        }
        while let Some(u) = queue.pop_front() {
            for edge in 0..TRIE_EDGES {
                let v = usize::from(dfa[u].next[edge]);
                let via_fail = dfa[fail[u]].next[edge];
                if v == 0 {
                    dfa[u].next[edge] = via_fail;
                } else {
                    fail[v] = usize::from(via_fail);
                    dfa[v].bits |= dfa[fail[v]].bits;
                    queue.push_back(v);
                }
            }
        }
        dfa
    })
}

/// The class/id weight of a node: −25, 0, +25 (or 0 when both).
pub fn class_weight(doc: &Doc, id: Id) -> i32 {
    let f = doc.nodes[id].class_flags();
    let mut w = 0;
    if f.has(ClassFlags::NEGATIVE) {
        w -= 25;
    }
    if f.has(ClassFlags::POSITIVE) {
        w += 25;
    }
    w
}

/// A region that is boilerplate by its name alone.
fn is_unlikely(doc: &Doc, id: Id) -> bool {
    let f = doc.nodes[id].class_flags();
    f.has(ClassFlags::ASIDE) && !f.has(ClassFlags::CONTENT)
}

fn tag_base(tag: &str) -> f64 {
    match tag {
        "article" => 10.0,
        "main" | "div" | "section" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" | "header" | "footer" | "nav" | "aside" => {
            -5.0
        }
        _ => 0.0,
    }
}

/// Elements whose text is scored as a paragraph.
fn is_paragraph(doc: &Doc, id: Id) -> bool {
    let n = &doc.nodes[id];
    match n.tag() {
        Some("p" | "pre" | "td" | "blockquote" | "li" | "dd") => true,
        // A div holding only inline content is a paragraph in disguise.
        Some("div" | "section") => doc.children(id).all(|c| match &doc.nodes[c].kind {
            Kind::Element(t) => !is_block(t),
            _ => true,
        }),
        _ => false,
    }
}

/// Block-level elements for layout purposes.
pub fn is_block(tag: &str) -> bool {
    matches!(
        tag,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "aside"
            | "header"
            | "footer"
            | "nav"
            | "ul"
            | "ol"
            | "li"
            | "dl"
            | "dt"
            | "dd"
            | "table"
            | "thead"
            | "tbody"
            | "tfoot"
            | "tr"
            | "td"
            | "th"
            | "blockquote"
            | "pre"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "hr"
            | "figure"
            | "figcaption"
            | "address"
            | "details"
            | "summary"
            | "caption"
            | "center"
            | "body"
            | "html"
            | "fieldset"
            | "hgroup"
            | "menu"
    )
}

/// Readability's paragraph scores, summed into the candidates that hold
/// the paragraphs; `shut` regions take no part.
fn score_candidates(doc: &Doc, shut: &mut Shut) -> (Vec<f64>, Vec<bool>) {
    let n = doc.nodes.len();
    let mut score = vec![0.0f64; n];
    let mut is_candidate = vec![false; n];
    // Each paragraph scores its parent, grandparent and great-grandparent.
    // Loose text directly inside a block (text separated by <br> or empty
    // divs) is a paragraph of that block, as readability wraps it in <p>.
    let add = |start: Option<Id>, s: f64, score: &mut Vec<f64>, is_candidate: &mut Vec<bool>| {
        let mut anc = start;
        for level in 0..3 {
            let Some(a) = anc else { break };
            if doc.nodes[a].tag().is_none() {
                break;
            }
            if !is_candidate[a] {
                is_candidate[a] = true;
                score[a] +=
                    tag_base(doc.nodes[a].tag().unwrap_or("")) + f64::from(class_weight(doc, a));
            }
            score[a] += s / [1.0, 2.0, 3.0][level];
            anc = doc.parent(a);
        }
    };
    let para_score =
        |len: usize, commas: usize| 1.0 + commas.min(20) as f64 + (len / 100).min(3) as f64;
    for (id, node) in doc.nodes.iter().enumerate() {
        if node.junk || node.text_len < 25 || shut.get(doc, id) {
            continue;
        }
        if is_paragraph(doc, id) {
            add(
                doc.parent(id),
                para_score(node.text_len, node.commas),
                &mut score,
                &mut is_candidate,
            );
            continue;
        }
        let Some(tag) = node.tag() else { continue };
        if !is_block(tag) || matches!(tag, "body" | "html") {
            continue;
        }
        // Loose text is cut into paragraphs where a browser shows one
        // ends: at a block child, or at two line breaks in a row (pages
        // that write paragraphs as `text<br><br>text`).
        let (mut loose, mut commas) = (0, 0);
        let mut breaks = 0;
        let mut segments = Vec::new();
        for c in doc.children(id) {
            let k = &doc.nodes[c];
            if k.junk {
                continue;
            }
            let tag = k.tag();
            let ends = match tag {
                Some("br") => {
                    breaks += 1;
                    breaks >= 2
                }
                Some(t) => is_block(t),
                // Whitespace between two breaks keeps them a pair.
                None => {
                    if k.text_len > 0 && !is_blank(doc, c) {
                        breaks = 0;
                    }
                    false
                }
            };
            if tag.is_some_and(|t| t != "br") {
                breaks = 0;
            }
            if ends {
                segments.push((loose, commas));
                (loose, commas, breaks) = (0, 0, 0);
                continue;
            }
            if tag.is_some_and(is_block) {
                continue;
            }
            loose += k.text_len;
            commas += k.commas;
        }
        segments.push((loose, commas));
        for (loose, commas) in segments {
            if loose >= 25 {
                add(
                    Some(id),
                    para_score(loose, commas),
                    &mut score,
                    &mut is_candidate,
                );
            }
        }
    }
    (score, is_candidate)
}

/// Which nodes lie in a region named as boilerplate (see [`select`]),
/// worked out only for the nodes asked about and their ancestors: most
/// of a page (menus, short labels) never holds a paragraph, and its class
/// words need not be read.
struct Shut {
    /// Per node: 0 not yet known, 1 open, 2 shut. Empty: nothing is shut.
    state: Vec<u8>,
    holds_article: Vec<bool>,
    chain: Vec<Id>,
}

impl Shut {
    fn new(holds_article: Vec<bool>) -> Shut {
        Shut {
            state: vec![0; holds_article.len()],
            holds_article,
            chain: Vec::new(),
        }
    }

    /// Nothing is shut (the retry when shutting left no candidate).
    fn off() -> Shut {
        Shut {
            state: Vec::new(),
            holds_article: Vec::new(),
            chain: Vec::new(),
        }
    }

    fn get(&mut self, doc: &Doc, id: Id) -> bool {
        if self.state.is_empty() {
            return false;
        }
        // Up to the nearest known ancestor, then down again.
        self.chain.clear();
        let mut above = false;
        let mut cur = Some(id);
        while let Some(c) = cur {
            match self.state[c] {
                1 => break,
                2 => {
                    above = true;
                    break;
                }
                _ => {
                    self.chain.push(c);
                    cur = doc.parent(c);
                }
            }
        }
        for i in (0..self.chain.len()).rev() {
            let c = self.chain[i];
            above = above || self.own(doc, c);
            self.state[c] = if above { 2 } else { 1 };
        }
        above
    }

    /// Whether the node itself is named or built as boilerplate.
    fn own(&self, doc: &Doc, id: Id) -> bool {
        match doc.nodes[id].tag() {
            None | Some("body" | "html") => false,
            _ if self.holds_article[id] => false,
            Some(t) => {
                matches!(t, "nav" | "aside" | "footer")
                    || is_unlikely(doc, id)
                    || doc.is_nested_article(id)
            }
        }
    }
}

/// Chooses the subtrees to render: the best-scoring candidate and the
/// siblings that score close to it, in document order.
pub fn select(doc: &Doc) -> Vec<Id> {
    let n = doc.nodes.len();
    // Regions named as boilerplate (comment threads, related stories,
    // footers) neither score nor stand as candidates, as readability
    // strips its unlikely candidates first: a long comment thread must not
    // outscore a short article. Only when that leaves nothing to choose
    // are they scored after all.
    // A name is weaker evidence than structure: a region that holds an
    // `<article>` or `<main>` is a layout wrapper whatever its class says
    // ("container penci_sidebar"). Not an `<article>` named as what it
    // is not (`<article class="comment-body">`, one comment of a thread).
    let mut holds_article = vec![false; n];
    for id in (0..n).rev() {
        let node = &doc.nodes[id];
        if holds_article[id]
            || (matches!(node.tag(), Some("article" | "main"))
                && !node.class_flags().has(ClassFlags::ASIDE))
        {
            holds_article[id] = true;
            if let Some(p) = doc.parent(id) {
                holds_article[p] = true;
            }
        }
    }
    let mut shut = Shut::new(holds_article);
    let (score, is_candidate) = match score_candidates(doc, &mut shut) {
        scored if (0..n).any(|i| scored.1[i] && !shut.get(doc, i)) => scored,
        _ => {
            shut = Shut::off();
            score_candidates(doc, &mut shut)
        }
    };
    let final_score = |id: Id| score[id] * (1.0 - doc.nodes[id].link_density());
    let top = (0..n)
        .filter(|&i| is_candidate[i] && !doc.nodes[i].junk && !shut.get(doc, i))
        .max_by(|&a, &b| final_score(a).total_cmp(&final_score(b)));
    let Some(mut top) = top else {
        return vec![doc.body()];
    };
    // A candidate that holds only part of the article (one of several
    // equal sections) gives way to a parent that holds most of the text.
    while let Some(p) = doc.parent(top) {
        let pn = &doc.nodes[p];
        if pn.tag().is_none() || pn.tag() == Some("body") || pn.junk {
            break;
        }
        if is_candidate[p] && final_score(p) >= final_score(top) * 0.75 && pn.link_density() < 0.35
        {
            top = p;
        } else {
            break;
        }
    }
    let best = final_score(top);
    // A wrapper that holds nothing but the candidate stands for it, so
    // that the candidate's real siblings (further sections of the same
    // article) are looked at below.
    while let Some(p) = doc.parent(top) {
        let pn = &doc.nodes[p];
        if pn.tag().is_none() || matches!(pn.tag(), Some("body" | "html")) || pn.junk {
            break;
        }
        let texty = doc
            .children(p)
            .filter(|&c| !doc.nodes[c].junk && doc.nodes[c].text_len > 0)
            .count();
        if texty != 1 {
            break;
        }
        top = p;
    }
    let top_score = best;
    let threshold = (top_score * 0.2).max(10.0);
    let Some(parent) = doc.parent(top) else {
        return vec![top];
    };
    let mut out = Vec::new();
    for sib in doc.children(parent) {
        let s = &doc.nodes[sib];
        if sib == top {
            out.push(sib);
            continue;
        }
        if s.junk || s.tag().is_none() {
            continue;
        }
        let bonus = if same_class(&doc.nodes[top], s) {
            top_score * 0.2
        } else {
            0.0
        };
        let close = is_candidate[sib] && final_score(sib) + bonus >= threshold;
        let para = s.tag() == Some("p") && s.text_len > 80 && s.link_density() < 0.25;
        if (close || para) && class_weight(doc, sib) >= 0 {
            out.push(sib);
        }
    }
    out
}

/// Two elements with the same non-empty class (or id): readability's
/// bonus for a sibling styled like the article.
fn same_class(a: &Node, b: &Node) -> bool {
    fn key(n: &Node) -> (&str, &str) {
        (n.attr("class").unwrap_or(""), n.attr("id").unwrap_or(""))
    }
    key(a) != ("", "") && key(a) == key(b)
}

/// A text node of whitespace only.
fn is_blank(doc: &Doc, id: Id) -> bool {
    matches!(&doc.nodes[id].kind, Kind::Text(t) if t.trim().is_empty())
}

/// The page title, folded once for every heading compared with it.
pub struct Title {
    folded: String,
    words: std::collections::HashSet<String>,
}

fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

impl Title {
    fn new(title: &str) -> Title {
        let folded = title.to_lowercase();
        let words = words(&folded).map(str::to_string).collect();
        Title { folded, words }
    }

    /// Whether a heading repeats the title (both folded): readability's
    /// test, most of the heading's text is made of title words. Headings
    /// reword titles ("Skyrim (skyrim) run speed" for "Skyrim run
    /// speed"), so containment alone misses them.
    fn repeated_by(&self, heading: &str) -> bool {
        if self.folded.is_empty() {
            return false;
        }
        if self.folded.contains(heading) || heading.contains(&self.folded) {
            return true;
        }
        let (mut total, mut unmatched) = (0, 0);
        for w in words(heading) {
            total += w.len();
            if !self.words.contains(w) {
                unmatched += w.len();
            }
        }
        total > 0 && (unmatched as f64) / (total as f64) < 0.25
    }
}

/// The label an ad slot carries when its ad did not load.
fn is_ad_label(text: &str) -> bool {
    matches!(
        text.trim_matches(|c: char| !c.is_alphanumeric()),
        "advertisement"
            | "advertisements"
            | "advert"
            | "ad"
            | "ads"
            | "sponsored"
            | "anzeige"
            | "werbung"
            | "publicité"
            | "publicidad"
            | "pubblicità"
            | "publicidade"
            | "реклама"
            | "広告"
    )
}

/// The longest text (characters) a metadata line may have.
const META_LINE: usize = 100;

/// A short element that states when and by whom, not what: microdata
/// marking it as the author or a date, or a line that is a date with a
/// few words around it ("Updated on: November 19, 2019 / 10:07 AM / CBS
/// News"), or a byline ("By Reuters").
fn is_metadata(pr: &Pruner, id: Id, tag: &str) -> bool {
    let doc = pr.doc;
    let n = &doc.nodes[id];
    if let Some(prop) = n.attr("itemprop") {
        let prop = prop.to_ascii_lowercase();
        if [
            "author",
            "datepublished",
            "datemodified",
            "datecreated",
            "publisher",
        ]
        .iter()
        .any(|p| prop.split_ascii_whitespace().any(|w| w == *p))
        {
            return true;
        }
    }
    if !matches!(
        tag,
        "p" | "div"
            | "span"
            | "li"
            | "ul"
            | "time"
            | "small"
            | "header"
            | "address"
            | "em"
            | "strong"
    ) {
        return false;
    }
    let Some(text) = pr.folded(id) else {
        return false;
    };
    if text.is_empty() {
        return false;
    }
    if tag == "time" {
        return true;
    }
    // A sentence is text, however short and dated ("By then it was
    // over." "On March 3, 2020, the company filed.").
    if text.ends_with(['.', '!', '?', '。', '！', '？']) {
        return false;
    }
    let words = text.split_whitespace().count();
    if (text.starts_with("by ") || text.starts_with("posted by ")) && words <= 6 {
        return true;
    }
    let (dates, rest) = date_words(&text);
    // A quoted post's attribution ("— Name (@handle) October 9, 2018")
    // belongs to the quote.
    dates > 0 && rest <= 6 && !doc.in_blockquote(id)
}

/// A numeric date: day, month and year in some order with one
/// separator kind (`2019-11-20`, `20.11.2019`, `11/20/19`, `2019年11月20日`),
/// not a phone number (`02-751-1500`).
fn is_numeric_date(w: &str) -> bool {
    let parts: Vec<&str> = w
        .split(['-', '.', '/', '年', '月', '日'])
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() != 3 || !parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let year = |p: &str| p.len() == 4 && matches!(p.parse::<u32>(), Ok(1900..=2100));
    let small = |p: &str| (1..=2).contains(&p.len());
    (year(parts[0]) && small(parts[1]) && small(parts[2]))
        || (small(parts[0]) && small(parts[1]) && (year(parts[2]) || parts[2].len() == 2))
}

const MONTHS: &[&str] = &[
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Counts the words of a line that belong to a date or a time (`2019-11-20`,
/// `20.11.2019`, `2019年11月20日`, `Nov. 20, 2019`, `9:28`, `pm`) and the
/// others; a line counts as dated only with a numeric date or a month name
/// beside a number.
fn date_words(text: &str) -> (usize, usize) {
    let mut dates = 0;
    let mut rest = 0;
    let mut month = false;
    let mut number = false;
    for raw in text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '|' | '(' | ')' | '·' | '•' | '／'))
    {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if w.is_empty() {
            continue;
        }
        let digits = w.chars().filter(char::is_ascii_digit).count();
        if is_numeric_date(w) {
            dates += 1;
        } else if MONTHS.contains(&w) {
            month = true;
        } else if digits > 0
            && w.chars()
                .all(|c| c.is_ascii_digit() || matches!(c, ':' | 'h'))
        {
            number = true;
        } else if matches!(
            w,
            "am" | "pm"
                | "utc"
                | "gmt"
                | "et"
                | "est"
                | "edt"
                | "pst"
                | "pdt"
                | "at"
                | "on"
                | "updated"
                | "published"
                | "posted"
        ) {
        } else if w.ends_with("st") || w.ends_with("nd") || w.ends_with("rd") || w.ends_with("th") {
            if w.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                number = true;
            } else {
                rest += 1;
            }
        } else {
            rest += 1;
        }
    }
    if month && number {
        dates += 1;
    }
    (dates, rest)
}

/// The pruning rules inside what was chosen, with what they need to
/// know about the page worked out once: the folded title, and a budget
/// for the rules that read a short element's text (each reads at most a
/// few nodes per character, and all of them together at most a few per
/// node of the page, so nested short elements cannot make it quadratic).
pub struct Pruner<'a> {
    doc: &'a Doc,
    title: Title,
    fold_budget: std::cell::Cell<usize>,
}

impl<'a> Pruner<'a> {
    /// The rules for `doc`.
    pub fn new(doc: &'a Doc) -> Pruner<'a> {
        Pruner {
            doc,
            title: Title::new(&doc.title),
            fold_budget: std::cell::Cell::new(4 * doc.nodes.len() + 4096),
        }
    }

    /// Whether a subtree is boilerplate to drop (share bars, link lists,
    /// related-story boxes, comment sections, captions, and a heading
    /// that only repeats the page title, as readability drops it).
    pub fn drops(&self, id: Id) -> bool {
        self.is_dropped(id) || self.is_label_of_dropped(id)
    }

    /// The text of a short element, whitespace collapsed and case folded;
    /// `None` when reading it would take more than a few nodes per
    /// character, or the page's budget for such reads is spent.
    fn folded(&self, id: Id) -> Option<String> {
        let doc = self.doc;
        let (end, n) = (doc.end(id), &doc.nodes[id]);
        let limit = (4 * n.text_len + 32).min(self.fold_budget.get());
        if end - id > limit {
            self.fold_budget
                .set(self.fold_budget.get().saturating_sub(limit));
            return None;
        }
        self.fold_budget.set(self.fold_budget.get() - (end - id));
        let mut out = String::new();
        let mut i = id;
        while i < end {
            let k = &doc.nodes[i];
            if k.junk {
                i = doc.end(i);
                continue;
            }
            if let Kind::Text(t) = &k.kind {
                for w in t.split_whitespace() {
                    if !out.is_empty() {
                        out.push(' ');
                    }
                    out.push_str(w);
                }
            }
            i += 1;
        }
        Some(out.to_lowercase())
    }

    /// A short label that only introduces what follows ("You may also
    /// like…", "Related:"), when what follows is dropped.
    fn is_label_of_dropped(&self, id: Id) -> bool {
        let doc = self.doc;
        let n = &doc.nodes[id];
        if n.text_len == 0 || n.text_len >= 40 || n.link_len > 0 {
            return false;
        }
        if !matches!(
            n.tag(),
            Some("p" | "div" | "span" | "strong" | "h2" | "h3" | "h4" | "h5" | "h6")
        ) {
            return false;
        }
        let Some(text) = self.folded(id) else {
            return false;
        };
        if !(text.ends_with(':') || text.ends_with("...") || text.ends_with('…')) {
            return false;
        }
        let Some(parent) = doc.parent(id) else {
            return false;
        };
        // The next sibling with text. Labels are short and their scans
        // stop at the next sibling with text, so scans never overlap.
        let (mut c, end) = (doc.end(id), doc.end(parent));
        while c < end {
            let k = &doc.nodes[c];
            if !k.junk && k.text_len > 0 {
                return k.tag().is_some() && self.is_dropped(c);
            }
            c = doc.end(c);
        }
        false
    }

    /// The rules of [`Pruner::drops`] that look at the element alone.
    fn is_dropped(&self, id: Id) -> bool {
        let doc = self.doc;
        let n = &doc.nodes[id];
        let Some(tag) = n.tag() else { return false };
        if matches!(tag, "nav" | "aside" | "footer" | "figcaption")
            || is_unlikely(doc, id)
            || doc.is_nested_article(id)
        {
            return true;
        }
        if matches!(tag, "h1" | "h2") && n.text_len < 300 {
            if let Some(h) = self.folded(id) {
                if !h.is_empty() && self.title.repeated_by(&h) {
                    return true;
                }
            }
        }
        if n.text_len <= META_LINE && is_metadata(self, id, tag) {
            return true;
        }
        if n.text_len <= 20 && self.folded(id).is_some_and(|t| is_ad_label(&t)) {
            return true;
        }
        // A paragraph that is one link and little else ("Related: <a>…</a>",
        // a teaser's headline) points away from the article; not a source
        // named in a few words ("[ The Verge ]") or a URL written out.
        if tag == "p" && (25..150).contains(&n.text_len) && n.link_density() >= 0.7 {
            if let Some(text) = self.folded(id) {
                if !(text.contains("http://") || text.contains("https://") || text.contains("www."))
                {
                    return true;
                }
            }
        }
        let weight = class_weight(doc, id);
        let ld = n.link_density();
        match tag {
            "div" | "section" | "ul" | "ol" | "header" | "table" | "figure" | "span" | "p"
            | "time" | "address" => {
                if weight < 0 && (ld > 0.2 || n.text_len < 400) {
                    return true;
                }
                // A short element named as metadata ("post-meta",
                // "content__meta-timestamp") is dropped even when a content
                // word in the same name cancels the weight. Only metadata
                // names: "boxout__header" heads a box of the article.
                if n.text_len < 150
                    && (n.class_flags().has(ClassFlags::META)
                        || (n.class_flags().has(ClassFlags::NEGATIVE_BUT_HEADER)
                            && !doc.holds_heading(id)))
                {
                    return true;
                }
                if matches!(tag, "div" | "section" | "ul" | "ol" | "header") {
                    // Lists of links with little prose of their own.
                    if ld > 0.5 && n.text_len < 1000 {
                        return true;
                    }
                    if tag == "header" && n.text_len < 200 && ld > 0.3 {
                        return true;
                    }
                }
                false
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flags the plain way: every fragment looked for with `contains`.
    fn naive(class_id: &str) -> ClassFlags {
        let has = |words: &[&str]| words.iter().any(|w| class_id.contains(w));
        let tokens: Vec<&str> = class_id
            .split(|c: char| !c.is_ascii_alphanumeric())
            .collect();
        let negative_token = tokens.iter().any(|t| NEGATIVE_TOKENS.contains(t));
        let mut f = 0;
        if has(NEGATIVE) || has(META) || negative_token {
            f |= ClassFlags::NEGATIVE;
        }
        let mut negative_words = NEGATIVE.iter().chain(META);
        if negative_words.any(|w| *w != "header" && class_id.contains(w)) || negative_token {
            f |= ClassFlags::NEGATIVE_BUT_HEADER;
        }
        if has(POSITIVE) {
            f |= ClassFlags::POSITIVE;
        }
        if has(UNLIKELY) {
            f |= ClassFlags::ASIDE;
        }
        if has(CONTENT_WORDS) {
            f |= ClassFlags::CONTENT;
        }
        if has(META) || tokens.iter().any(|t| matches!(*t, "date" | "time")) {
            f |= ClassFlags::META;
        }
        ClassFlags(f)
    }

    /// The automaton agrees with plain substring search, on real class
    /// strings and on strings glued from fragments (overlaps, suffixes
    /// of one fragment that start another: "commentsharing", "postmeta").
    #[test]
    fn class_flags_match_substring_search() {
        let mut cases: Vec<String> = [
            "",
            "post-meta entry-content-meta",
            "comment first",
            "commentsharing",
            "postmeta",
            "container penci_sidebar",
            "article-boxout__header",
            "main-article-body",
            "ad-slot",
            "shadow head",
            "mostpopularrecirc",
            "x_readmore-from",
            "ÜBER-header ñ comment",
            "submasthead",
            "date time-stamp",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let all: Vec<&str> = NEGATIVE
            .iter()
            .chain(POSITIVE)
            .chain(UNLIKELY)
            .chain(META)
            .chain(NEGATIVE_TOKENS)
            .copied()
            .collect();
        // Deterministic glue: fragment pairs, cut and joined three ways.
        for (i, a) in all.iter().enumerate() {
            let b = all[(i * 7 + 3) % all.len()];
            let cut = &a[..a.len() / 2];
            cases.push(format!("{a}{b}"));
            cases.push(format!("{cut}{b}"));
            cases.push(format!("x{a} {cut}-{b}_y"));
        }
        for case in &cases {
            assert_eq!(ClassFlags::of(case), naive(case), "{case:?}");
        }
    }
}
