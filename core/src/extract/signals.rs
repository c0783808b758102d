//! What an element's place and names say about it, over the document:
//! the class weight, the boilerplate boxes of a page (navigation,
//! headers outside the content, footers, asides, regions named as
//! boilerplate), windows over the page; and the text shapes of dates, ad
//! labels and titles. The word lists themselves are `lexicon`'s.
//!
//! Every signal reads structure, names and text shapes; none names a site.

use super::dom::{Doc, Id, Node};
use super::lexicon::ClassFlags;

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
pub fn is_unlikely(doc: &Doc, id: Id) -> bool {
    let f = doc.nodes[id].class_flags();
    f.has(ClassFlags::ASIDE) && !f.has(ClassFlags::CONTENT)
}

/// A boilerplate box: the site's furniture ([`is_furniture`]), an aside,
/// or a region named as boilerplate (`UNLIKELY`, with no content word).
pub fn is_box(doc: &Doc, id: Id) -> bool {
    let node = &doc.nodes[id];
    match node.tag() {
        None => false,
        Some("aside") => true,
        Some("header") => !doc.in_main(id),
        Some(_) => {
            is_furniture(doc, id)
                || is_unlikely(doc, id)
                || node.attr("role") == Some("complementary")
        }
    }
}

/// The site's furniture, by tag or landmark role alone: navigation, a
/// footer, a header outside the main content, a banner, a search region.
/// Names are not read: a thread can sit in a `comments` wrapper, content
/// in a `sidebar`-named column.
pub fn is_furniture(doc: &Doc, id: Id) -> bool {
    let node = &doc.nodes[id];
    match (node.tag(), node.attr("role")) {
        (None, _) => false,
        (Some("nav" | "footer"), _) => true,
        (Some("header"), _) if !doc.in_main(id) => true,
        (_, role) => matches!(
            role,
            Some("navigation" | "banner" | "contentinfo" | "search")
        ),
    }
}

/// A window over the page: a dialog (`role="dialog"`) or a modal
/// window ([`is_modal`]): cookie notices, sign-up prompts, banners.
pub fn is_window(node: &Node) -> bool {
    is_modal(node) || (node.tag().is_some() && node.attr("role") == Some("dialog"))
}

/// A window that takes the page over: `role="alertdialog"`,
/// `aria-modal="true"`, or a block the site keeps out of search
/// snippets (`data-nosnippet`). A dialog that is none of these is a side
/// sheet beside a usable page, and shops open a product's description
/// in one.
pub fn is_modal(node: &Node) -> bool {
    node.tag().is_some()
        && (node.attr("role") == Some("alertdialog")
            || node
                .attr("aria-modal")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
            || node.attr("data-nosnippet").is_some())
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
    pub fn new(title: &str) -> Title {
        let folded = title.to_lowercase();
        let words = words(&folded).map(str::to_string).collect();
        Title { folded, words }
    }

    /// Whether a heading repeats the title (both folded): readability's
    /// test, most of the heading's text is made of title words. Headings
    /// reword titles ("Skyrim (skyrim) run speed" for "Skyrim run
    /// speed"), so containment alone misses them.
    pub fn repeated_by(&self, heading: &str) -> bool {
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
pub fn is_ad_label(text: &str) -> bool {
    matches!(
        text.trim_matches(|c: char| !c.is_alphanumeric()),
        "advertisement"
            | "advertisements"
            | "advert"
            | "ad"
            | "ads"
            | "sponsored"
            | "sponsored links"
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
/// beside a number (so a text without a digit is `(0, 0)`).
pub fn date_words(text: &str) -> (usize, usize) {
    // Every date has a digit; most short texts have none and need no
    // reading word by word (their `rest` is then not wanted).
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return (0, 0);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An ad slot's label, folded as the pruner folds it, in the page's
    /// language or with its punctuation; not words that only begin so.
    #[test]
    fn ad_labels() {
        for label in [
            "advertisement",
            "- advertisement -",
            "sponsored links",
            "anzeige",
            "広告",
        ] {
            assert!(is_ad_label(label), "{label}");
        }
        for text in [
            "advertising",
            "sponsored by the city",
            "ads and more",
            "linked",
        ] {
            assert!(!is_ad_label(text), "{text}");
        }
    }
}
