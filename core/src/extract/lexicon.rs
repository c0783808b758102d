//! The words of the web, with no document in sight: the class and id
//! fragments that mark boilerplate, content, metadata, reviews and quotes
//! (read in one pass by an Aho–Corasick automaton into [`ClassFlags`]),
//! the block-level tags, and the one script type extraction reads. A
//! leaf: every layer of extraction reads it, and it reads none of them.
//!
//! Every word is a name pages use for a role; none names a site.

use std::sync::OnceLock;

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

/// Class/id fragments that name reviews and ratings: on a product page
/// they are what buyers said, not what the page sells.
const REVIEWS: &[&str] = &["review", "rating", "testimonial"];

/// Class/id fragments that name a quotation of another text: a quoted
/// post, or a preview clamped to a few lines (`line-clamp-1`, the CSS
/// utility that cuts a reply's copy of its parent to one line).
const QUOTES: &[&str] = &["quote", "line-clamp"];

/// What an element's class and id say, worked out on first use and kept
/// (matching the word lists is the costly part of scoring; every rule
/// asks these same questions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassFlags(u8);

impl ClassFlags {
    pub const NEGATIVE: u8 = 1;
    pub const POSITIVE: u8 = 2;
    /// Named as a boilerplate region (`UNLIKELY`).
    pub const ASIDE: u8 = 4;
    /// Also holds a content word, which overrules `ASIDE`.
    pub const CONTENT: u8 = 8;
    /// Named as metadata (`META`, or the words "date" / "time").
    pub const META: u8 = 16;
    /// Negative without counting "header" (a box header is not one).
    pub const NEGATIVE_BUT_HEADER: u8 = 32;
    /// Named as reviews or ratings (`REVIEWS`).
    pub const REVIEW: u8 = 64;
    /// Named as a quotation or a clamped preview (`QUOTES`).
    pub const QUOTE: u8 = 128;

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
        // Whole tokens: every one of these words is two to six letters,
        // so only tokens of those lengths are compared.
        for token in class_id.as_bytes().split(|b| !b.is_ascii_alphanumeric()) {
            if !(2..=6).contains(&token.len()) {
                continue;
            }
            if matches!(token, b"date" | b"time") {
                f |= Self::META;
            }
            if NEGATIVE_TOKENS.iter().any(|t| t.as_bytes() == token) {
                f |= Self::NEGATIVE | Self::NEGATIVE_BUT_HEADER;
            }
        }
        ClassFlags(f)
    }

    pub fn has(self, bit: u8) -> bool {
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
        let lists: [(&[&str], u8); 7] = [
            (NEGATIVE, ClassFlags::NEGATIVE),
            (POSITIVE, ClassFlags::POSITIVE),
            (UNLIKELY, ClassFlags::ASIDE),
            (CONTENT_WORDS, ClassFlags::CONTENT),
            (
                META,
                ClassFlags::META | ClassFlags::NEGATIVE | ClassFlags::NEGATIVE_BUT_HEADER,
            ),
            (REVIEWS, ClassFlags::REVIEW),
            (QUOTES, ClassFlags::QUOTE),
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

/// Whether a script's `type` declares JSON-LD, the one script text
/// extraction reads (the sink keeps it; `features::json_ld` parses it).
pub fn is_json_ld_type(t: &str) -> bool {
    t.trim().eq_ignore_ascii_case("application/ld+json")
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
        if has(REVIEWS) {
            f |= ClassFlags::REVIEW;
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
            "customer-reviews star-rating",
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
            .chain(REVIEWS)
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
