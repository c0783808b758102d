//! The page's title, as the first line of what a model reads.
//!
//! A reader's first question is what the page is; the text alone often
//! does not say, because a page's headline is laid out apart from its
//! body and extraction may leave it out. So the text starts with one
//! title line, chosen from what the page says of itself:
//!
//! 1. the main heading, when it is the title: an `<h1>` that says most
//!    of what the `<title>` or `og:title` says without the site's name,
//!    and little else (at least half of the title's words are in the
//!    heading: a section's label such as "Reviews" under "Reviews of our
//!    yoga classes" is not the title; and at least half of the heading's
//!    words are in the title: a slogan such as "Business messaging that
//!    scales without slowing you down" under "Business Text Messaging"
//!    is not either), and which is not the site's name (a logo set as
//!    the page's first `<h1>`); of several, the one that agrees most.
//!    A heading that agrees in other words (each has words the other
//!    lacks, and no segment of the title is the heading or holds it:
//!    "Investing in Cloud Computing Stocks" under "Best Cloud Computing
//!    Stocks of 2025") is the headline, not the line: the title it agrees
//!    with most is the line, and the heading follows it (see "The
//!    headline under the line"). A page names itself in both wordings,
//!    its `<title>` for search and sharing, its heading for readers, and
//!    a reader who knows one should find it; neither is the title said
//!    twice. Not a paraphrase: a title whose words beyond the heading's
//!    name the site, left in it without a separator to cut it at
//!    ("Atomic Habits: …: Amazon.com: Books"), or one cut short inside
//!    its last word. On WCXB dev this changes 87 pages' first lines
//!    (titles 93.7% to 95.4%: article 94.6% to 96.7%, listing 94.9% to
//!    97.0%, collection 94.9% to 97.4%, documentation 93.4% to 94.5%,
//!    service 83.6% to 85.5%; text F1 0.880 to 0.879, the heading's
//!    line costing precision on the pages whose reference has one
//!    wording); on web-classics four (F1 unchanged at three places), on
//!    the 181 news pages none. Asking instead that the heading say at
//!    least 75% of the title's words to be it, without the tests for a
//!    segment, the site's name and a title cut short, showed the site's
//!    name or a tagline in about 30 more lines ("… - Realize your
//!    potential.", "… | Bold.org", "Garnix Blog: …"). When a
//!    segment of the `<title>` or `og:title` is that heading said whole,
//!    with a word or two more that are not the site's name ("8 Recent
//!    Trends in Photography" for the heading "Recent Trends in
//!    Photography", "Project Management Certificate" for "Project
//!    Management"), the segment is the line, and the heading in the text
//!    counts as a repeat. When no `<h1>` agrees, the heading that leads
//!    the chosen content (`lead`: the one above the story, or the
//!    story's own first) is the line when a segment of the `<title>` or
//!    `og:title` says it word for word: that segment is the page's, even
//!    where the site's name was guessed to be it ("San Bernardino County
//!    Sun - USC has imposing challenge" over "USC has imposing
//!    challenge"; "Opinion | Republicans Are Following Trump to
//!    Nowhere");
//! 2. else, on a page that declares itself an article (`og:type`
//!    article), its one headline `<h1>` inside an `<article>`, however
//!    differently the `<title>` is worded for search engines;
//! 3. else `og:title`, without a segment that names the site;
//! 4. else the JSON-LD `headline` (or the `name` of the article, product,
//!    page, … it describes);
//! 5. else the `<title>`, without its site-name segment;
//! 6. else, on a page that names itself nowhere (pages saved without
//!    their `<head>`, as older corpora keep them), the heading that leads
//!    its content, else its one headline: the only `<h1>` of three words
//!    or more that is not the site's name.
//!    On web-classics this names 49 more pages (184 of its 1,423 have
//!    no `<title>`), "Sun open-source license could mean Solaris-Linux
//!    barrier" and also a blog's name set as its heading, which is what
//!    such a page calls itself; F1 unchanged (0.950), since the line
//!    stands for the heading the text drops as a repeat.
//!
//! On the site's home page (the path `/`, no query but tracking
//! parameters) the site is what the
//! page is about, so its name is not a suffix to drop: when the line
//! chosen is a run of the `<title>`'s words, the `<title>` whole is the
//! line ("Example | Professional therapy with a licensed therapist",
//! not its second half; "Home - The Example Blog", not "Home"). On WCXB
//! dev this shows 15 more of the 75 home pages' titles as their
//! references give them and loses none (titles 89.9% to 91.1%, service
//! 76.4% to 81.8%, collection 86.3% to 90.6%; F1 -0.001 on listing and
//! service for the brand's words).
//!
//! Measured on the WCXB development split (pages whose reference has a
//! title): the heading's share of the title's words, the second test of
//! rule 1, took the title shown from 87.2% to 88.9% (service 67% to 72%,
//! collection 79% to 85%, listing 85% to 90%) with F1 unchanged; asking
//! for 70% or 90% of the words instead moves articles down more than it
//! moves services up (88.8%, 88.2%). The fuller wording and the
//! article's headline took it on to 89.8% (article 91.0% to 92.1%,
//! product 89.9% to 90.8%, documentation unchanged), F1 unchanged: the
//! references name a page by its `<title>` about as often as by its
//! heading, so a heading shown where the `<title>` says more misses. A
//! fuller segment of up to five more words gained nothing more; without
//! the test for the site's name it reached 90.3%, but lines then carried
//! the site's name and breadcrumbs ("Amazon.com: …", "TFH Online
//! Forum-…"); preferring the `<title>` to an agreeing heading lost a
//! tenth of the articles (91% to 81%). Asking that half of the
//! heading's words be the title's (before, half of the shorter one's
//! words in the other) took it to 90.0% (service 72.7% to 76.4%, listing
//! 91.9% to 93.9%, article 92.1% to 91.3%); 40% or 30% of them moved
//! pages one at a time either way.
//!
//! The headline under the line. When the line is not the page's headline
//! (rules 3 to 5: the `<title>` is worded for search engines, the `<h1>`
//! for readers: "Top 11 SEO Strategies for 2025" and "11 SEO Strategies
//! for 2025 to Boost Rankings and Stay Ahead"), and the page has one
//! headline (an `<h1>` of three words or more that is not the site's
//! name) that the text does not say in its first lines, the headline
//! follows the line, as a `## ` heading in markdown ([`headline`]). Both
//! name the page, and a reader of the page sees the headline first. It
//! must share a word of substance with the line (four letters or more)
//! and say more than the line's own words: a banner ("Return to
//! Nationwide Website"), a promotion's box or a cookie notice set as an
//! `<h1>` shares none. Here the page's one headline is the one text of
//! its `<h1>`s of three words or more, else of two (copies of one
//! heading count once; a shop's "All Sheets" under "Sheets for Every
//! Bed"). On WCXB dev this
//! shows 32 more pages' titles as their references give them, and 29
//! pages gain a line the reference does not name (titles 91.1% to
//! 93.3%; article 91.3% to 94.1%, product 92.4% to 94.1%, collection
//! 90.6% to 94.9%; text F1 unchanged at three places but for article
//! 0.959 to 0.958); web-classics' older pages rarely declare a
//! title apart from their heading, and no page there changes. The
//! misses left are paraphrases the other way round (the line is the
//! headline, the reference the `<title>`'s other wording) and references
//! that keep the site's name ("Sudo - ArchWiki"): showing the `<title>`
//! under a headline that says nearly the same would be the title twice.
//! After a site's tagline the headline needs no word in common: a
//! `<title>` that leads with the site's name ("Reddit - The heart of the
//! internet", the same on every thread) leaves the tagline as the line,
//! and the thread's own heading is the only place the text names it.
//! On WCXB dev this shows two forum threads' titles (forum 97.3% to
//! 99.1%, titles 93.4% to 93.5%) and changes no other page; on
//! web-classics it changes one page, a banner ("NEXT RACE - 16th March")
//! under "Planet-F1 News - from planet-f1.com"; F1 unchanged on both.
//! Where the page has no such `<h1>` (or its only one is a teaser, a
//! link to another story), the headline is the heading that leads the
//! chosen content (`lead`). Under a `<title>` of four words or fewer
//! the heading that leads the content needs no word in common: such a
//! line names the site or the section ("Brandon Sun Online", "Feed
//! Article", "Sportal > Golf > News"), and the story's headline is the
//! only place the text names it; a line declared for the story
//! (`og:title`, JSON-LD) still needs one. The line said again with a
//! date or a byline ("Suicide Bomber Kills 30 At Iraq Funeral Last
//! Update: 1/01 1:10 pm") is not shown. With the rules of this
//! paragraph and of rule 1 and 6 for the heading that leads the content:
//! on web-classics 153 pages change (F1 summed over them +1.03; overall
//! 0.951, gnews 0.970 to 0.971), the news pages whose headline (their
//! reference's first line) is in the first 600 characters go from 537 to
//! 569 of 606 (portal 61 to 64 of 70), and pages without a title line
//! from 156 to 105 of 1,423; on WCXB dev 25 pages change (titles 93.5%
//! to 93.7%, F1 unchanged at three places, +0.045 summed); on the 181
//! news pages one ("Opinion | …" loses its section). Preferring a page's
//! one unlinked `<h1>` to the heading that leads the content on a page
//! without a `<title>` named more blogs and firms than stories ("Oxford
//! Social Struggles", "Financial Times FT.com"): F1 summed -0.011.
//!
//! A main heading that says part of the line is the title said again,
//! like one that says it whole: "Quickstart" under "Quickstart — Flask
//! Documentation (3.1.x)", "Marathon Training" under "Marathon Training
//! for All Skill Levels" (an `<h1>` whose words are a run of the line's,
//! when the line comes from rules 3 to 5), so the text's line that says
//! it is dropped. On WCXB dev this drops 33 such headings (documentation
//! pages and shop categories most), F1 and titles unchanged at three
//! places; on web-classics two ("Union" under "Union@Everything2.com").
//! Tried and not kept: a heading that is the first segment of the
//! `<title>` shown with the segments after it ("Functions - JavaScript",
//! "Sudo - ArchWiki") showed 5 more titles, but carried a site's name or
//! a forum's category into about 90 lines ("… - Help", "| by Brian Jenney").
//!
//! What decides is the page, never the words of its URL; the only uses
//! of the URL are to recognise the site's name in a title segment and
//! whether the page is the site's home page. The line
//! is shown once: a heading of the text that says the same words is
//! dropped ([`drop_repeat`]).
//!
//! Bounded: at most [`MAX_HEADINGS`] headings of at most [`HEADING_CHARS`]
//! characters each are read, and titles are already cut to
//! [`super::dom::TITLE_CHARS`].

use url::Url;

use super::dom::{Doc, Id};
use super::invisible;
use super::links;
use super::render::{self, Style};
use super::repeats;
use super::work::Work;

/// How many `<h1>`s are weighed.
const MAX_HEADINGS: usize = 8;

/// The longest `<h1>` that may be the title (characters of text): a
/// heading longer than a paragraph is not a headline.
pub(super) const HEADING_CHARS: usize = 300;

/// How many words a title segment may add to the main heading and be
/// shown in its place: the heading's words said whole ("8 Recent Trends
/// in Photography" for the heading "Recent Trends in Photography"), not
/// a second title around it.
const FULLER_WORDS: usize = 2;

/// The longest title line (characters): a `<title>` longer than this is
/// broken markup (an unclosed `<title>` swallows the page), not a title.
const TITLE_LINE: usize = 300;

/// What a repeated title's line may hold beyond twice the title's
/// length: a link's target (`## [Title](https://…)`).
const TARGET_ROOM: usize = 600;

/// The shortest word that counts as one in common between the headline
/// and the line (or the story, see `lead`): shorter ones are mostly
/// "the", "for", "and".
pub(super) const KIN_CHARS: usize = 4;

/// The most words of a line that names the site or the section rather
/// than the story ("Brandon Sun Online", "Feed Article", "SuperSoccer"):
/// under such a line the heading that leads the content is shown without
/// a word in common ([`headline`]).
const NAME_WORDS: usize = 4;

/// How many lines of the text are looked at for a heading that repeats
/// the title.
const REPEAT_LINES: usize = 40;

/// The lower-case words (letters and digits) of `s`, read as the text
/// shows it (a soft hyphen or a zero-width space inside a word does not
/// split it: see `invisible`).
pub(super) fn words(s: &str) -> Vec<String> {
    invisible::strip(s)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `part` is a run of `whole`'s words, and fewer of them ("Marathon
/// Training" in "Marathon Training for All Skill Levels").
fn part_of(part: &[String], whole: &[String]) -> bool {
    !part.is_empty() && part.len() < whole.len() && whole.windows(part.len()).any(|w| w == part)
}

/// The share of `a`'s distinct words found in `b`.
fn coverage(a: &[String], b: &[String]) -> f64 {
    let mut distinct: Vec<&String> = a.iter().collect();
    distinct.sort();
    distinct.dedup();
    if distinct.is_empty() {
        return 0.0;
    }
    distinct.iter().filter(|w| b.contains(w)).count() as f64 / distinct.len() as f64
}

/// The separators between a title's segments (`Headline | Site`).
fn segments(title: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = title;
    'outer: loop {
        for (i, c) in rest.char_indices() {
            let sep = matches!(c, '|' | '·' | '•' | '»' | '«')
                || (matches!(c, '-' | '–' | '—' | ':' | '/')
                    && rest[..i].ends_with(' ')
                    && rest[i + c.len_utf8()..].starts_with(' '));
            if sep {
                out.push(rest[..i].trim());
                rest = &rest[i + c.len_utf8()..];
                continue 'outer;
            }
        }
        out.push(rest.trim());
        break;
    }
    out.retain(|s| !s.is_empty());
    out
}

/// What names the site: `og:site_name`, and the labels of the page's
/// host (`www.example.co.uk` → `example`), folded to their letters.
struct Site {
    name: Option<Vec<String>>,
    labels: Vec<String>,
    /// The host's letters and digits without `www.` ("boldorg" for
    /// `bold.org`): a segment that is the host written out ("Bold.org",
    /// "Amazon.com") names the site.
    host: String,
}

impl Site {
    fn of(site_name: Option<&str>, base: &Url) -> Site {
        let labels = base
            .host_str()
            .unwrap_or("")
            .split('.')
            .filter(|l| l.len() > 3 && *l != "www")
            .map(str::to_lowercase)
            .collect();
        let host = base.host_str().unwrap_or("");
        Site {
            name: site_name.map(words).filter(|w| !w.is_empty()),
            labels,
            host: words(host.strip_prefix("www.").unwrap_or(host)).concat(),
        }
    }

    /// Whether `segment` names the site.
    fn names(&self, segment: &str) -> bool {
        let w = words(segment);
        if w.is_empty() {
            return false;
        }
        if self.name.as_ref().is_some_and(|n| *n == w) {
            return true;
        }
        let joined: String = w.concat();
        if joined == self.host {
            return true;
        }
        joined.len() > 3
            && self
                .labels
                .iter()
                .any(|l| *l == joined || l.contains(&joined))
    }

    /// Whether any of `words` names the site (a word of its name, or a
    /// label of its host).
    fn mentioned(&self, words: &[String]) -> bool {
        words.iter().any(|w| {
            self.name.as_ref().is_some_and(|n| n.contains(w))
                || (w.len() > 2 && self.labels.iter().any(|l| l.contains(w.as_str())))
        })
    }

    /// Whether the words of `title` that `heading` lacks name the site:
    /// all of its declared name, a label of its host ("Amazon.com:
    /// Books"), or two words that make one ("CR Maids" on crmaids.com).
    /// Stricter than [`Site::mentioned`]: a word inside a label ("maids")
    /// is a page's word as often as the site's.
    fn named_beside(&self, title: &[String], heading: &[String]) -> bool {
        let own = |w: &String| !heading.contains(w);
        self.name
            .as_ref()
            .is_some_and(|n| n.iter().all(|w| own(w) && title.contains(w)))
            || title.iter().any(|w| own(w) && self.labels.contains(w))
            || title
                .windows(2)
                .any(|p| (own(&p[0]) || own(&p[1])) && self.labels.contains(&p.concat()))
    }

    /// `title` without the segments that name the site; the first segment
    /// of what is left when the rest is not the site's either but the
    /// first says enough (two words or more).
    fn strip(&self, title: &str) -> String {
        let parts = segments(title);
        if parts.len() <= 1 {
            return one_line(title);
        }
        let kept: Vec<&str> = parts.iter().copied().filter(|p| !self.names(p)).collect();
        if kept.is_empty() {
            return one_line(parts[0]);
        }
        if kept.len() < parts.len() {
            return one_line(&span(title, &kept));
        }
        // No segment is the site by name: the last, when short, usually is.
        let last = kept[kept.len() - 1];
        let rest = &kept[..kept.len() - 1];
        if words(last).len() <= 4 && rest.iter().map(|p| words(p).len()).sum::<usize>() >= 2 {
            return one_line(&span(title, rest));
        }
        one_line(title)
    }
}

/// The segments `kept` of `title` as the page wrote them: from the first
/// to the last with the page's own separators between, when they are
/// one run ("Online Math Tutors | State Certified", not "Online Math
/// Tutors - State Certified"); else joined with ` - `.
fn span(title: &str, kept: &[&str]) -> String {
    let at = |s: &str| s.as_ptr() as usize - title.as_ptr() as usize;
    let (Some(first), Some(last)) = (kept.first(), kept.last()) else {
        return String::new();
    };
    let whole = &title[at(first)..at(last) + last.len()];
    if segments(whole).len() == kept.len() {
        whole.to_string()
    } else {
        kept.join(" - ")
    }
}

/// `line` without a separator left at either end (`/ Creative Agency
/// Portfolio`, `| Nuts & Volts Magazine` when a template left the
/// headline before it empty); a mark that starts a word stays
/// (`/r/rust`, `-40 degrees`).
fn tidy(line: String) -> String {
    const SEPARATORS: &[char] = &['|', '·', '•', '»', '«', '-', '–', '—', ':', '/'];
    let mut t = line.as_str();
    loop {
        let before = t;
        if let Some(rest) = t.strip_prefix(SEPARATORS) {
            if rest.starts_with(char::is_whitespace) || rest.is_empty() {
                t = rest.trim_start();
            }
        }
        if let Some(rest) = t.strip_suffix(SEPARATORS) {
            if rest.ends_with(char::is_whitespace) || rest.is_empty() {
                t = rest.trim_end();
            }
        }
        if t.len() == before.len() {
            break;
        }
    }
    if t.len() == line.len() {
        line
    } else {
        t.to_string()
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the page declares in its `<head>`: `og:title` and
/// `og:site_name`.
fn meta(doc: &Doc) -> (Option<String>, Option<String>, bool) {
    let (mut og, mut site, mut article) = (None, None, false);
    for n in &doc.nodes {
        if n.tag() != Some("meta") {
            continue;
        }
        let Some(p) = n.attr("property").or_else(|| n.attr("name")) else {
            continue;
        };
        let content = n.attr("content").map(one_line).filter(|c| !c.is_empty());
        if p.eq_ignore_ascii_case("og:type") {
            article |= content
                .as_deref()
                .is_some_and(|c| c.eq_ignore_ascii_case("article"));
        }
        if og.is_none() && p.eq_ignore_ascii_case("og:title") {
            og = content.map(|c| c.chars().take(super::dom::TITLE_CHARS).collect());
        } else if site.is_none() && p.eq_ignore_ascii_case("og:site_name") {
            site = content.map(|c| c.chars().take(super::dom::TITLE_CHARS).collect());
        }
    }
    (og, site, article)
}

/// The visible `<h1>`s short enough to be a headline, in order, with
/// their text as rendered (inline elements set apart as a reader sees
/// them).
fn headings(doc: &Doc, base: &Url) -> Vec<(Id, String)> {
    let mut out = Vec::new();
    let mut id = 0;
    while id < doc.nodes.len() && out.len() < MAX_HEADINGS {
        let n = &doc.nodes[id];
        if n.junk {
            id = doc.end(id);
            continue;
        }
        if n.tag() == Some("h1") && (1..=HEADING_CHARS).contains(&n.text_len) {
            let text = heading_text(doc, id, base, None);
            if !text.is_empty() {
                out.push((id, text));
            }
            id = doc.end(id);
            continue;
        }
        id += 1;
    }
    out
}

/// A heading's text as one line, as rendered (inline elements set apart
/// as a reader sees them; what `drops` says left out), without a
/// permalink mark after it (Sphinx's `¶`, rustdoc's `§`: the heading's
/// link to itself, not its words).
pub(super) fn heading_text(doc: &Doc, id: Id, base: &Url, drops: render::Drops) -> String {
    let text = render::render(
        doc,
        &[id],
        base,
        Style::Plain.into(),
        drops,
        &Work::unbounded(),
    )
    .text;
    one_line(text.trim_end().trim_end_matches(['¶', '§']))
}

/// Whether the heading is mostly links: a row of them ("previous |
/// January 11 - January 17 | next", "Overview · Learning · Hearing"), or
/// one to another page than `base` (a teaser's title). A blog post's
/// title linked to the post itself is its own.
pub(super) fn linked(doc: &Doc, id: Id, base: &Url) -> bool {
    let n = &doc.nodes[id];
    if n.link_len * 2 <= n.text_len {
        return false;
    }
    if n.link_len < n.text_len {
        return true;
    }
    let href = (id..doc.end(id)).find_map(|i| {
        let a = &doc.nodes[i];
        (a.tag() == Some("a")).then(|| a.attr("href")).flatten()
    });
    let Some(target) = href.and_then(|h| base.join(h).ok()) else {
        return false;
    };
    target[..url::Position::AfterQuery] != base[..url::Position::AfterQuery]
}

/// The title line, and the main heading it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Title {
    /// What the first line says.
    pub line: String,
    /// The `<h1>` that is the title or says part of it, when one is: a
    /// line of the text that says its words is the title said again.
    pub heading: Option<String>,
    /// The page's headline when the line is not it: its one `<h1>`,
    /// worded apart from what the page calls itself.
    pub headline: Option<String>,
    /// The line is what follows the site's name in a title that leads
    /// with it ("Reddit - The heart of the internet"): the site's tagline
    /// as often as the page's name, so the headline is shown under it
    /// without a word in common ([`headline`]).
    pub tagline: bool,
    /// The headline is the heading that leads the chosen content (see
    /// `lead`): its place says it is the page's, so it is shown under the
    /// line without a word in common ([`headline`]).
    pub leads: bool,
}

impl Title {
    fn line(line: String) -> Title {
        Title {
            line,
            heading: None,
            headline: None,
            tagline: false,
            leads: false,
        }
    }
}

/// The page's title line (see the module header); `None` when the page
/// says nothing of its title.
pub fn title(doc: &Doc, base: &Url, lead: Option<&str>) -> Option<Title> {
    let t = titled(doc, base, lead)?;
    // (Without what shows nothing, as the text has it: see `invisible`.)
    let line = tidy(match invisible::strip(&t.line) {
        std::borrow::Cow::Borrowed(_) => t.line,
        std::borrow::Cow::Owned(s) => s,
    });
    (!words(&line).is_empty()).then_some(Title { line, ..t })
}

/// [`title`] before its line is tidied.
fn titled(doc: &Doc, base: &Url, lead: Option<&str>) -> Option<Title> {
    let chosen = chosen(doc, base, lead)?;
    // On the site's home page the site is the page's subject: its name
    // is not a suffix to drop. The `<title>` whole is the line when the
    // line chosen is a run of its words ("BetterHelp | Professional
    // Therapy With A Licensed Therapist", not its second half).
    // (A shop's home page reached from a search result carries
    // `?srsltid=…`: tracking parameters do not make it another page,
    // nor does a session.)
    let page = links::without_visitor(base.clone());
    let home = page.path() == "/" && page.query().is_none();
    let whole = one_line(&doc.title);
    if !home || whole.is_empty() || whole.chars().count() > TITLE_LINE {
        return Some(chosen);
    }
    if !part_of(&words(&chosen.line), &words(&whole)) {
        return Some(chosen);
    }
    // The text's heading that said the shorter line is still its repeat;
    // the site's name is the subject here, so what follows it is no
    // tagline to explain.
    let heading = chosen.heading.or(Some(chosen.line));
    Some(Title {
        line: whole,
        heading,
        headline: chosen.headline,
        tagline: false,
        leads: chosen.leads,
    })
}

/// The title line by the rules of the module header, before the home
/// page's.
fn chosen(doc: &Doc, base: &Url, lead: Option<&str>) -> Option<Title> {
    let (og, site_name, og_article) = meta(doc);
    let site = Site::of(site_name.as_deref(), base);
    let usable = |t: &String| !t.is_empty() && t.chars().count() <= TITLE_LINE;
    let page_title = Some(one_line(&doc.title)).filter(usable);
    let og = og.filter(usable);
    // The main heading, when it agrees with what the page calls itself
    // (without the site's name): most of the shorter's words in the
    // other, and most of the title's words in the heading.
    let refs: Vec<(String, Vec<String>)> = [page_title.as_deref(), og.as_deref()]
        .into_iter()
        .flatten()
        .map(|t| site.strip(t))
        .map(|t| {
            let w = words(&t);
            (t, w)
        })
        .filter(|(_, w)| !w.is_empty())
        .collect();
    // A heading that is a segment of the title other than its first, or
    // that names the site, is the site's name set as a heading.
    let site_segment = |h: &str| {
        site.names(h)
            || page_title.as_deref().is_some_and(|t| {
                let w = words(h);
                segments(t).iter().skip(1).any(|s| words(s) == w)
            })
    };
    let mut best: Option<(f64, String, usize)> = None;
    let all = headings(doc, base);
    for (_, h) in all.iter().cloned() {
        if site_segment(&h) {
            continue;
        }
        let w = words(&h);
        // The title it agrees with most (of two alike, the `<title>`).
        let (score, r) = refs
            .iter()
            .enumerate()
            .map(|(i, (_, r))| (coverage(&w, r).min(coverage(r, &w)), i))
            .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
        if score >= 0.5 && best.as_ref().is_none_or(|(s, ..)| score > *s) {
            best = Some((score, h, r));
        }
    }
    if let Some((_, h, r)) = best
        .as_ref()
        .filter(|b| paraphrase(&b.1, &refs[b.2].0, &site))
    {
        // The heading agrees with the title in other words: the title
        // is the line, and the heading is shown under it.
        return Some(Title {
            line: refs[*r].0.clone(),
            heading: None,
            headline: Some(h.clone()),
            tagline: false,
            leads: false,
        });
    }
    if let Some((_, h, _)) = best {
        // The heading is the title; shown in the page's own fuller
        // wording when a segment of its title says it whole.
        let fuller = [page_title.as_deref(), og.as_deref()]
            .into_iter()
            .flatten()
            .flat_map(segments)
            .find(|t| says_whole(t, &h, &site))
            .map(one_line);
        return Some(Title {
            line: fuller.unwrap_or_else(|| h.clone()),
            heading: Some(h),
            headline: None,
            tagline: false,
            leads: false,
        });
    }
    // The heading that leads the content, when the page's title says it
    // as one of its segments ("San Bernardino County Sun - USC has
    // imposing challenge" over "USC has imposing challenge"): the
    // segment the site's name was guessed to be is the page's.
    let lead = lead.filter(|l| !site.names(l));
    if let Some(l) = lead {
        let w = words(l);
        let said = [page_title.as_deref(), og.as_deref()]
            .into_iter()
            .flatten()
            .flat_map(segments)
            .any(|s| words(s) == w);
        if said {
            return Some(Title {
                line: l.to_string(),
                heading: Some(l.to_string()),
                headline: None,
                tagline: false,
                leads: false,
            });
        }
    }
    // A page that says it is an article: its one headline is its title,
    // in whatever words its `<title>` is worded for search engines.
    let heads: Vec<&(Id, String)> = all
        .iter()
        .filter(|(_, h)| !site_segment(h) && words(h).len() >= 3)
        .collect();
    if let [(id, h)] = heads.as_slice() {
        if og_article && doc.in_article(*id) {
            return Some(Title::line(h.clone()));
        }
    }
    // The headline to show under a line worded apart from it: the one
    // text of the page's `<h1>`s of three words or more (a phone and a
    // desktop copy of one heading are one); else of two ("All Sheets"
    // over a shop's sheets). A shorter one says no more than the line
    // (see [`headline`]).
    // (Not a heading that is mostly links: a teaser's title, a row of
    // links; see `lead`.)
    let mut texts: Vec<&String> = all
        .iter()
        .filter(|(id, _)| !linked(doc, *id, base))
        .map(|(_, h)| h)
        .filter(|h| !site_segment(h) && words(h).len() >= 2)
        .collect();
    texts.sort_unstable();
    texts.dedup();
    let long: Vec<&String> = texts
        .iter()
        .copied()
        .filter(|h| words(h).len() >= 3)
        .collect();
    let one = match (long.as_slice(), texts.as_slice()) {
        ([h], _) | ([], [h]) => Some(String::clone(h)),
        _ => None,
    };
    // Whether a title leads with the site's name, followed by more.
    let site_led = |t: &str| {
        let parts = segments(t);
        parts.len() >= 2 && site.names(parts[0])
    };
    // A main heading that says part of the line ("Quickstart" under
    // "Quickstart — Flask Documentation (3.1.x)", "Marathon Training"
    // under "Marathon Training for All Skill Levels") is the title said
    // again: the text's line that says it is a repeat.
    let says_part = |line: &str| {
        let lw = words(line);
        all.iter()
            .map(|(_, h)| h)
            .filter(|h| !site_segment(h))
            .find(|h| part_of(&words(h), &lw))
            .cloned()
    };
    // `declared`: the line is what the page declares for sharing or
    // search (`og:title`, JSON-LD), worded for the story; a `<title>` is
    // as often the site's or the section's.
    // The headline: the one `<h1>`, else the heading that leads the
    // content. Under a `<title>` (not a line declared for the story) the
    // heading that leads the content is shown without a word in common.
    let headline = one.or_else(|| lead.map(str::to_string));
    let with = |line: String, tagline: bool, declared: bool| {
        let heading = says_part(&line);
        let headline = headline.clone();
        let leads = !declared && headline.is_some() && headline.as_deref() == lead;
        Title {
            headline: if heading.is_some() { None } else { headline },
            leads: heading.is_none() && leads,
            heading,
            line,
            tagline,
        }
    };
    if let Some(og) = og {
        let t = site.strip(&og);
        if !t.is_empty() {
            return Some(with(t, site_led(&og), true));
        }
    }
    if let Some(h) =
        super::features::declared_headline(doc).filter(|h| h.chars().count() <= TITLE_LINE)
    {
        return Some(with(one_line(&h), false, true));
    }
    if let Some(t) = page_title.as_deref() {
        let line = site.strip(t);
        if !line.is_empty() {
            return Some(with(line, site_led(t), false));
        }
    }
    // A page that names itself nowhere (no `<title>`, as pages saved
    // without their head are): the heading that leads its content is its
    // title; else its one headline.
    let only = match heads.as_slice() {
        [(_, h)] => Some(h.as_str()),
        _ => None,
    };
    lead.or(only).map(|h| Title {
        line: h.to_string(),
        heading: Some(h.to_string()),
        headline: None,
        tagline: false,
        leads: false,
    })
}

/// Whether `segment` is `heading` with at most [`FULLER_WORDS`] words
/// more around it, none of them the site's ("8 Recent Trends in
/// Photography" for "Recent Trends in Photography"; not "Amazon.com:
/// Wireless Headphones" for "Wireless Headphones" on amazon.com).
fn says_whole(segment: &str, heading: &str, site: &Site) -> bool {
    let (w, h) = (words(segment), words(heading));
    (h.len() + 1..=h.len() + FULLER_WORDS).contains(&w.len())
        && (0..=w.len() - h.len()).any(|at| {
            w[at..at + h.len()] == h[..]
                && !site.mentioned(&w[..at])
                && !site.mentioned(&w[at + h.len()..])
        })
}

/// Whether `heading`, which agrees with `title` (the `<title>` or
/// `og:title` without the site's name), says it in other words: each
/// has words the other lacks ("Investing in Cloud Computing Stocks" and
/// "Best Cloud Computing Stocks of 2025"), and no segment of the title
/// is the heading or inside it. Not a paraphrase: a title whose words
/// beyond the heading's name the site ("…: Amazon.com: Books", "Latest
/// Trends with CR Maids" on crmaids.com: the site's name where it was
/// not cut off as a segment), nor one cut short in its last word ("how
/// to set up your monitor, laptop, and k").
fn paraphrase(heading: &str, title: &str, site: &Site) -> bool {
    let h = words(heading);
    let mut t = words(title);
    if site.named_beside(&t, &h) {
        return false;
    }
    let own = |w: &String| !h.contains(w);
    if t.last()
        .is_some_and(|l| own(l) && h.iter().any(|w| w.starts_with(l.as_str())))
    {
        t.pop();
    }
    coverage(&t, &h) < 1.0
        && std::iter::once(title).chain(segments(title)).all(|s| {
            let s = words(s);
            coverage(&h, &s) < 1.0 && coverage(&s, &h) < 1.0
        })
}

/// `text` without the first of its first [`REPEAT_LINES`] lines that says
/// the title's words again (a heading, a bold line, a linked heading),
/// and without the blank line after it.
pub fn drop_repeat(text: String, title: &Title) -> String {
    let want = words(&title.line);
    let heading = title
        .heading
        .as_deref()
        .map(words)
        .filter(|h| !h.is_empty());
    if want.is_empty() {
        return text;
    }
    let longest = title
        .line
        .len()
        .max(title.heading.as_ref().map_or(0, String::len));
    let Some((start, end)) = saying(&text, longest, |plain| {
        says_words(plain, &want) || heading.as_ref().is_some_and(|h| says_words(plain, h))
    }) else {
        return text;
    };
    let mut rest = end;
    // The line break after it, and a blank line.
    for _ in 0..2 {
        if text[rest..].starts_with('\n') {
            rest += 1;
        }
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    out.push_str(&text[rest..]);
    out.trim().to_string()
}

/// The page's headline to show under the title line: its one `<h1>`
/// when the line was not it and `text` (after the line) does not say it
/// in its first [`REPEAT_LINES`] lines.
pub fn headline<'t>(text: &str, title: &'t Title) -> Option<&'t str> {
    let h = title.headline.as_deref()?;
    let want = words(h);
    let line = words(&title.line);
    // Shown when it names the page's subject in other words: a word of
    // substance in common with the line ("Top 11 SEO Strategies for
    // 2025" and "11 SEO Strategies for 2025 to Boost Rankings"), not a
    // banner or a box with nothing in common ("Return to Nationwide
    // Website", "A message from our sponsor"), and not the line's own
    // words again ("Affordable Movers" under "Affordable Movers |
    // Low-Cost Moving Company"). After a site's tagline ("Reddit - The
    // heart of the internet" on every thread) the thread's own heading
    // is the page's name and need share nothing with it.
    let kin = title.tagline
        || (title.leads && line.len() <= NAME_WORDS)
        || want
            .iter()
            .any(|w| w.chars().count() >= KIN_CHARS && line.contains(w));
    // Nor the line again with a date or a byline beside it, as a block
    // that leads the content may hold them ("Suicide Bomber Kills 30 At
    // Iraq Funeral Last Update: 1/01 1:10 pm").
    let again = title.leads && line.iter().all(|w| want.contains(w));
    if !kin || again || want.iter().all(|w| line.contains(w)) {
        return None;
    }
    saying(text, h.len(), |plain| says_words(plain, &want))
        .is_none()
        .then_some(h)
}

/// Where the first of `text`'s first [`REPEAT_LINES`] lines is that
/// `says` holds of (read without link markup), as its start and end.
fn saying(text: &str, len: usize, says: impl Fn(&str) -> bool) -> Option<(usize, usize)> {
    // A line much longer than what it must say cannot say only that (a
    // link's target aside): most lines stop at this test.
    let longest = len * 2 + TARGET_ROOM;
    let mut start = 0;
    // A line's words without link markup (`repeats` reads the same).
    let mut plain = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i >= REPEAT_LINES {
            break;
        }
        let end = start + line.len();
        if !line.trim().is_empty() && line.len() <= longest {
            repeats::fold_into(line, true, &mut plain);
            if says(&plain) {
                return Some((start, end));
            }
        }
        start = end + 1;
    }
    None
}

/// Whether `plain`'s words are `want` ([`words`] of it, compared as they
/// are read: most lines differ at their first word, and none is copied).
fn says_words(plain: &str, want: &[String]) -> bool {
    let mut found = plain
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    // (`str::to_lowercase` writes a word's last `Σ` as `ς`, which
    // lowering char by char does not.)
    want.iter().all(|w| {
        found.next().is_some_and(|f| {
            f.chars().flat_map(char::to_lowercase).eq(w.chars())
                || (f.contains('Σ') && f.to_lowercase() == *w)
        })
    }) && found.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(html: &str, url: &str) -> Option<String> {
        title(&Doc::parse(html), &Url::parse(url).unwrap(), None).map(|t| t.line)
    }

    /// The title line keeps the page's own separators between the
    /// segments it keeps, and loses one left at either end.
    #[test]
    fn a_title_line_reads_as_the_page_wrote_it() {
        let at = "https://www.example.com/tutoring/math";
        // What shows nothing is not in the line either.
        assert_eq!(
            t("<title>Ch&shy;arg&#xfeff;ing &#x200b;guide</title>", at).as_deref(),
            Some("Charging guide")
        );
        assert_eq!(
            t(
                "<title>Online Math Tutors | State Certified | Example</title>",
                at
            )
            .as_deref(),
            Some("Online Math Tutors | State Certified")
        );
        assert_eq!(
            t(
                "<title>Online Math Tutors | State Certified | K12 Tutoring</title>",
                at
            )
            .as_deref(),
            Some("Online Math Tutors | State Certified")
        );
        assert_eq!(
            t("<title>Example | Math | Example</title><p>x</p>", at).as_deref(),
            Some("Math")
        );
        assert_eq!(
            t("<h1>/ Creative Agency Portfolio</h1><p>x</p>", at).as_deref(),
            Some("Creative Agency Portfolio")
        );
        assert_eq!(
            t("<title> | Nuts & Volts Magazine</title>", at).as_deref(),
            Some("Nuts & Volts Magazine")
        );
        assert_eq!(
            t("<title>/r/rust -</title>", at).as_deref(),
            Some("/r/rust")
        );
        assert_eq!(
            t("<title>-40 degrees</title>", at).as_deref(),
            Some("-40 degrees")
        );
        assert_eq!(t("<title> | </title>", at), None);
    }

    /// The page's one headline, worded apart from the line its
    /// `<title>` gives, follows the line; a banner, the line's own words
    /// or a headline the text already says do not.
    #[test]
    fn the_headline_follows_a_title_worded_apart() {
        let base = Url::parse("https://www.example.com/blog/seo").unwrap();
        let of = |h1: &str| {
            let page = format!(
                "<title>Top 11 SEO Strategies for 2025 | Example</title><h1>{h1}</h1><p>Text.</p>"
            );
            title(&Doc::parse(&page), &base, None).unwrap()
        };
        let t = of("11 SEO Strategies for 2025 to Boost Rankings and Stay Ahead");
        assert_eq!(t.line, "Top 11 SEO Strategies for 2025");
        assert_eq!(
            headline("Search engines change.", &t),
            Some("11 SEO Strategies for 2025 to Boost Rankings and Stay Ahead")
        );
        // The text says it already (as its first heading, linked).
        assert_eq!(
            headline(
                "## [11 SEO Strategies for 2025 to Boost Rankings and Stay Ahead](https://www.example.com/x)\n\nText.",
                &t
            ),
            None
        );
        // Nothing of substance in common: a banner, not the headline.
        assert_eq!(
            headline("Text.", &of("Return to the Example Website")),
            None
        );
        // The line's own words again: no headline, and the text's
        // heading that says them is the title's repeat.
        let again = title(
            &Doc::parse(
                "<title>Affordable New Jersey Movers | Economical Low-Cost Moving Company in NJ</title>\
                 <h1>Affordable New Jersey Movers</h1>",
            ),
            &base,
            None,
        )
        .unwrap();
        assert_eq!(again.headline, None);
        assert_eq!(
            again.heading.as_deref(),
            Some("Affordable New Jersey Movers")
        );
        assert_eq!(headline("Text.", &again), None);
        // A phone and a desktop copy of one heading are one headline, and
        // a category's two words are one ("All Sheets").
        let shop = title(
            &Doc::parse(
                "<title>Sheets for Every Bed | Soft & Durable | Example</title>\
                 <h1>All Sheets</h1><h1>All  Sheets</h1>",
            ),
            &base,
            None,
        )
        .unwrap();
        assert_eq!(shop.line, "Sheets for Every Bed | Soft & Durable");
        assert_eq!(headline("Text.", &shop), Some("All Sheets"));
        // A headline of three words or more goes before one of two.
        let both = title(
            &Doc::parse(
                "<title>Sheets for Every Bed | Soft & Durable | Example</title>\
                 <h1>Bed Linen</h1><h1>Percale Sheets in cotton and linen</h1>",
            ),
            &base,
            None,
        )
        .unwrap();
        assert_eq!(
            headline("Text.", &both),
            Some("Percale Sheets in cotton and linen")
        );
        // Several headings: none is the page's one headline.
        let two = title(
            &Doc::parse(
                "<title>Top 11 SEO Strategies for 2025</title><h1>Eleven SEO Strategies</h1>\
                 <h1>More SEO reading for you</h1>",
            ),
            &base,
            None,
        )
        .unwrap();
        assert_eq!(headline("Text.", &two), None);
    }

    #[test]
    fn a_heading_that_says_part_of_the_line_is_its_repeat() {
        let base = Url::parse("https://flask.example.org/en/stable/quickstart/").unwrap();
        let page = "<title>Quickstart — Flask Documentation (3.1.x)</title>\
                    <h1>Quickstart<a href=\"#quickstart\">¶</a></h1><p>Eager to get started?</p>";
        let t = title(&Doc::parse(page), &base, None).unwrap();
        assert_eq!(t.line, "Quickstart — Flask Documentation (3.1.x)");
        assert_eq!(t.heading.as_deref(), Some("Quickstart"));
        assert_eq!(
            drop_repeat("# Quickstart¶\n\nEager to get started?".into(), &t),
            "Eager to get started?"
        );
        // A heading with words of its own is not part of the line: it
        // stays, and follows the line as the headline when it is not in
        // the text's first lines.
        let page = "<title>Marathon Training for All Skill Levels</title>\
                    <h1>Marathon Training Programs</h1><p>Text.</p>";
        let t = title(&Doc::parse(page), &base, None).unwrap();
        assert_eq!(t.heading, None);
        assert_eq!(headline("Text.", &t), Some("Marathon Training Programs"));
    }

    #[test]
    fn the_headline_follows_a_sites_tagline() {
        // A title that leads with the site's name leaves its tagline,
        // the same on every thread: the thread's heading follows it,
        // though they share no word.
        let base = Url::parse("https://www.reddit.com/r/castiron/comments/1/pans/").unwrap();
        let page = "<title>Reddit - The heart of the internet</title>\
                    <h1>Enameled Cast Iron Pan and Metal</h1><p>Text.</p>";
        let t = title(&Doc::parse(page), &base, None).unwrap();
        assert_eq!(t.line, "The heart of the internet");
        assert_eq!(
            headline("Text.", &t),
            Some("Enameled Cast Iron Pan and Metal")
        );
        // The page's own name first and the site's after: a heading with
        // nothing in common is still a banner.
        let page = "<title>The heart of the internet - Reddit</title>\
                    <h1>Return to the main website</h1><p>Text.</p>";
        let t = title(&Doc::parse(page), &base, None).unwrap();
        assert_eq!(headline("Text.", &t), None);
        // On the home page the title is said whole: no tagline.
        let home = Url::parse("https://www.reddit.com/").unwrap();
        let page = "<title>Reddit - The heart of the internet</title>\
                    <h1>Popular communities today</h1><p>Text.</p>";
        let t = title(&Doc::parse(page), &home, None).unwrap();
        assert_eq!(t.line, "Reddit - The heart of the internet");
        assert_eq!(headline("Text.", &t), None);
    }

    #[test]
    fn a_repeat_is_its_words_in_any_case() {
        let want = words("Ο ΧΡΟΝΟΣ του Κόσμου");
        assert!(says_words("ο χρονος ΤΟΥ κόσμου", &want));
        assert!(says_words("  Ο ΧΡΟΝΟΣ — του Κόσμου! ", &want));
        assert!(!says_words("Ο ΧΡΟΝΟΣ του Κόσμου τώρα", &want));
        assert!(!says_words("Ο ΧΡΟΝΟΣ του", &want));
    }

    #[test]
    fn a_home_page_keeps_the_site_in_its_title() {
        let page = "<title>Example | Professional therapy with a licensed therapist</title>\
                    <h1>Professional therapy with a licensed therapist</h1><p>Text.</p>";
        let doc = Doc::parse(page);
        let home = title(&doc, &Url::parse("https://www.example.com/").unwrap(), None).unwrap();
        assert_eq!(
            home.line,
            "Example | Professional therapy with a licensed therapist"
        );
        // The heading that said the shorter line is still the repeat.
        assert_eq!(
            home.heading.as_deref(),
            Some("Professional therapy with a licensed therapist")
        );
        // Below the home page, the site's name is a suffix again.
        assert_eq!(
            t(page, "https://www.example.com/therapy").as_deref(),
            Some("Professional therapy with a licensed therapist")
        );
        assert_eq!(
            t(
                "<title>Home - The Example Blog</title><p>Posts.</p>",
                "https://blog.example.org/"
            )
            .as_deref(),
            Some("Home - The Example Blog")
        );
        // A search result's tracking parameter leaves it the home page;
        // a query of its own makes it another page.
        let shop = "<title>Art Supplies | Example Art Materials</title><h1>Art Supplies</h1>";
        assert_eq!(
            t(shop, "https://www.example.com/?srsltid=AfmBOo").as_deref(),
            Some("Art Supplies | Example Art Materials")
        );
        assert_eq!(
            t(shop, "https://www.example.com/?q=paint").as_deref(),
            Some("Art Supplies")
        );
        // A heading that is not part of the `<title>` stays the line.
        assert_eq!(
            t(
                "<title>Example – The best new products</title><h1>Top products launching today</h1>\
                 <meta property=og:title content='Top products launching today'>",
                "https://www.example.com/"
            )
            .as_deref(),
            Some("Top products launching today")
        );
    }

    #[test]
    fn the_main_heading_when_it_is_the_title() {
        let base = "https://news.example.com/a/b";
        // The h1 says the title's words (some of them): it is the title.
        assert_eq!(
            t("<title>Storm hits the coast | Example News</title><h1>Storm hits the <em>whole</em> coast</h1>", base).as_deref(),
            Some("Storm hits the whole coast")
        );
        // A logo h1 (the site's name) is passed over for the headline.
        assert_eq!(
            t("<title>Certificate vs Certification | Stanford Online</title><h1>Stanford Online</h1><h1>Certificate vs Certification</h1>", base).as_deref(),
            Some("Certificate vs Certification")
        );
        // An h1 that says something else is not the title: og:title is.
        assert_eq!(
            t("<title>X</title><meta property=og:title content='The real headline'><h1>Welcome</h1>", base).as_deref(),
            Some("The real headline")
        );
        // An h1 that says only part of the title (a section's label) is
        // not the title: the page's title is, without the site's name.
        assert_eq!(
            t("<title>Reviews of our yoga classes and retreats | Yoga Loft</title><h1>Reviews</h1>", base).as_deref(),
            Some("Reviews of our yoga classes and retreats")
        );
        assert_eq!(
            t(
                "<title>Shop Furniture Online | Example</title><h1>Furniture</h1>",
                base
            )
            .as_deref(),
            Some("Shop Furniture Online")
        );
        // A slogan that shares some of the title's words is not the
        // title either.
        assert_eq!(
            t(
                "<title>Business Text Messaging | Example</title>\
                 <h1>Business messaging that scales without slowing you down</h1>",
                base
            )
            .as_deref(),
            Some("Business Text Messaging")
        );
        // Of several that agree, the one that agrees most (and the title
        // says it whole).
        let doc = Doc::parse("<title>Cleaning costs in San Diego, California</title><h1>Cleaning Seattle</h1><h1>Cleaning costs in San Diego</h1>");
        assert_eq!(
            title(&doc, &Url::parse(base).unwrap(), None),
            Some(Title {
                line: "Cleaning costs in San Diego, California".into(),
                heading: Some("Cleaning costs in San Diego".into()),
                headline: None,
                tagline: false,
                leads: false,
            })
        );
    }

    /// A heading that agrees with the title in other words follows it:
    /// the title is the line, the heading is shown under it.
    #[test]
    fn a_heading_in_other_words_follows_the_title() {
        let base = Url::parse("https://www.example.com/invest/cloud").unwrap();
        let of = |html: &str, base: &Url| title(&Doc::parse(html), base, None).unwrap();
        let t = of(
            "<title>Best Cloud Computing Stocks of 2025 | Example</title>\
             <h1>Investing in Cloud Computing Stocks</h1><p>Text.</p>",
            &base,
        );
        assert_eq!(t.line, "Best Cloud Computing Stocks of 2025");
        assert_eq!(t.heading, None);
        assert_eq!(
            headline("Text.", &t),
            Some("Investing in Cloud Computing Stocks")
        );
        // Where the title's own words are the site's name, left in it
        // (no separator to cut it at), the heading is the title.
        let shop = Url::parse("https://www.amazon.com/dp/0735211299").unwrap();
        let t = of(
            "<title>Atomic Habits: Tiny Changes: Amazon.com: Books</title>\
             <h1>Atomic Habits: Tiny Changes Hardcover</h1>",
            &shop,
        );
        assert_eq!(t.line, "Atomic Habits: Tiny Changes Hardcover");
        assert_eq!(t.headline, None);
        // So it is where they are the site's name in two words, or its
        // declared name.
        let maids = Url::parse("https://crmaids.example/blog/trends").unwrap();
        let t = of(
            "<title>Keeping Your Home Spotless: Latest Trends with CR Maids</title>\
             <h1>Keeping Your Home Spotless: Top Cleaning Trends</h1>",
            &maids,
        );
        assert_eq!(t.line, "Keeping Your Home Spotless: Top Cleaning Trends");
        let t = of(
            "<meta property=og:site_name content='Bright Homes'>\
             <title>Keeping Your Home Spotless: Latest Trends by Bright Homes</title>\
             <h1>Keeping Your Home Spotless: Top Cleaning Trends</h1>",
            &base,
        );
        assert_eq!(t.line, "Keeping Your Home Spotless: Top Cleaning Trends");
        // So it is where the title was cut short inside its last word.
        let t = of(
            "<meta property=og:title content='How to set up your monitor, laptop, and k'>\
             <h1>How to set up your monitor, laptop, and keyboard (checklist)</h1>",
            &base,
        );
        assert_eq!(
            t.line,
            "How to set up your monitor, laptop, and keyboard (checklist)"
        );
        assert_eq!(t.headline, None);
    }

    #[test]
    fn a_page_without_a_title_is_named_by_its_one_headline() {
        let base = "https://www.example.com/news/1";
        // No `<title>`, no og:title, no JSON-LD: the one headline.
        let doc = Doc::parse(
            "<table><tr><td><h1>Council approves the new bridge</h1><p>Text.</p></td></tr></table>",
        );
        assert_eq!(
            title(&doc, &Url::parse(base).unwrap(), None),
            Some(Title {
                line: "Council approves the new bridge".into(),
                heading: Some("Council approves the new bridge".into()),
                headline: None,
                tagline: false,
                leads: false,
            })
        );
        // Two headlines, or one of two words (a section's label, the
        // site's name), say nothing certain: no line.
        assert_eq!(
            t(
                "<h1>Council approves the bridge</h1><h1>Storm hits the coast</h1>",
                base
            ),
            None
        );
        assert_eq!(t("<h1>Latest News</h1><p>Text.</p>", base), None);
        // A page that has a `<title>` keeps it.
        assert_eq!(
            t(
                "<title>Bridge vote</title><h1>Council approves the new bridge</h1>",
                base
            )
            .as_deref(),
            Some("Bridge vote")
        );
    }

    #[test]
    fn titles_lose_the_site_name() {
        let base = "https://www.example.com/p";
        assert_eq!(
            t("<title>Best tax software of 2025 | Example</title>", base).as_deref(),
            Some("Best tax software of 2025")
        );
        assert_eq!(
            t("<meta property=og:site_name content='The Daily'><title>The Daily — Floods in the valley</title>", base).as_deref(),
            Some("Floods in the valley")
        );
        // A short last segment is taken for the site's name.
        assert_eq!(
            t("<title>Floods in the valley - Daily Herald</title>", base).as_deref(),
            Some("Floods in the valley")
        );
        // The host written out in words is the site's name, however
        // many times it is said.
        assert_eq!(
            t(
                "<title>Technology Podcasts | Podcast Example | Podcast Example</title>",
                "https://podcast.example/category/technology"
            )
            .as_deref(),
            Some("Technology Podcasts")
        );
        // A dash inside a word or without spaces is no separator.
        assert_eq!(
            t("<title>Long-distance movers in 2025</title>", base).as_deref(),
            Some("Long-distance movers in 2025")
        );
        assert_eq!(t("<p>no title at all</p>", base), None);
    }

    #[test]
    fn the_same_page_at_any_url_has_the_same_title() {
        let html =
            "<title>A plain page</title><article><h1>A plain page</h1><p>Text.</p></article>";
        for url in [
            "https://example.com/",
            "https://example.com/article",
            "https://example.com/2024/05/news/story",
        ] {
            assert_eq!(t(html, url).as_deref(), Some("A plain page"), "{url}");
        }
    }

    #[test]
    fn a_repeated_heading_is_dropped_once() {
        let text = "Home > News\n\n## [Storm hits](https://a.example/s)\n\nThe storm came.\n\n## Storm hits";
        assert_eq!(
            drop_repeat(text.into(), &Title::line("Storm hits".into())),
            "Home > News\n\nThe storm came.\n\n## Storm hits"
        );
        assert_eq!(
            drop_repeat(
                "**Storm: hits**\n\nText".into(),
                &Title::line("Storm hits".into())
            ),
            "Text"
        );
        assert_eq!(
            drop_repeat("Other\n\nText".into(), &Title::line("Storm hits".into())),
            "Other\n\nText"
        );
    }

    #[test]
    fn the_heading_said_whole() {
        let page = "<title>8 Recent Trends in Photography - Flatworld Solutions</title>\
                    <h1>Recent Trends in Photography</h1><p>Text.</p>";
        let doc = Doc::parse(page);
        let got = title(
            &doc,
            &Url::parse("https://www.flatworldsolutions.com/x").unwrap(),
            None,
        );
        assert_eq!(
            got,
            Some(Title {
                line: "8 Recent Trends in Photography".into(),
                heading: Some("Recent Trends in Photography".into()),
                headline: None,
                tagline: false,
                leads: false,
            })
        );
        // The heading in the text is the title said again.
        let text = "# Recent Trends in Photography\n\nText.";
        assert_eq!(drop_repeat(text.into(), &got.unwrap()), "Text.");
        // Words that name the site are not more of the title.
        assert_eq!(
            t(
                "<title>Amazon.com: Wireless Headphones</title><h1>Wireless Headphones</h1>",
                "https://www.amazon.com/dp/1"
            )
            .as_deref(),
            Some("Wireless Headphones")
        );
        // Nor is a second title around the heading.
        assert_eq!(
            t(
                "<title>Average Cost of Online College [2025]: Yearly Tuition + Fees</title>\
                 <h1>Average Cost of Online College</h1>",
                "https://www.example.org/cost"
            )
            .as_deref(),
            Some("Average Cost of Online College")
        );
    }

    #[test]
    fn a_headings_permalink_mark_is_not_its_title() {
        assert_eq!(
            t(
                "<title>Logging HOWTO — Python 3.14 documentation</title>\
                 <h1>Logging HOWTO<a class=headerlink href='#logging-howto'>¶</a></h1>",
                "https://docs.python.org/3/howto/logging.html"
            )
            .as_deref(),
            Some("Logging HOWTO")
        );
    }

    #[test]
    fn an_articles_one_headline() {
        let page = |og_type: &str| {
            format!(
                "<meta property=og:type content={og_type}>\
                 <title>Best Apps to Learn a Language in 2025 – Top 10 Picks</title>\
                 <article><h1>Top 10: Best Language Learning App (tested by experts)</h1>\
                 <p>Text.</p></article>"
            )
        };
        let base = "https://www.example.com/apps";
        assert_eq!(
            t(&page("article"), base).as_deref(),
            Some("Top 10: Best Language Learning App (tested by experts)")
        );
        // A page that does not say it is an article: its `<title>`.
        assert_eq!(
            t(&page("website"), base).as_deref(),
            Some("Best Apps to Learn a Language in 2025")
        );
    }
}
