//! The public extraction benchmarks, loaded and scored in process:
//! the article-extraction benchmark (181 news pages, 4-token shingles,
//! `../shared/tools/score_extraction.py`) and the WCXB development split
//! (1,497 pages of seven types, bag of words, `../shared/tools/
//! score_wcxb.py`), and web-classics in WCXB's shape. Shared by the
//! core's extraction benchmark, its quality floor test and the trainer's
//! row dump (`core/examples/extract_training.rs`), so that all read the
//! same figures the reference scripts print. A crate of the workspace,
//! never published: the core takes it as a dev-dependency by path.

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The stratified samples of both benchmarks committed under
/// `bench/quality/` (see its README): what the floor test reads, so that
/// it runs on any clone.
pub fn quality_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../quality")
        .join(name)
}

/// `../shared/data/<name>` beside the workspace: the whole benchmarks,
/// for the benchmark and the trainer.
pub fn shared_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(name)
}

fn gunzip(path: &Path) -> Vec<u8> {
    let gz = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut raw = Vec::new();
    flate2::read::MultiGzDecoder::new(gz.as_slice())
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    raw
}

/// One page of a benchmark.
pub struct Page {
    pub id: String,
    pub url: String,
    /// As `webgate extract` reads a file: UTF-8, invalid bytes replaced.
    pub html: String,
    /// The WCXB page type (`"article"` for the news benchmark).
    pub page_type: String,
    /// The reference main content, plain text.
    pub truth: String,
    /// The reference main content as markdown (WCXB only).
    pub truth_markdown: String,
    /// Snippets that must appear, and boilerplate that must not (WCXB).
    pub with: Vec<String>,
    pub without: Vec<String>,
    /// The page's title as the reference gives it (WCXB; empty when none).
    pub title: String,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The WCXB development split, in file order.
pub fn wcxb_pages(dir: &Path) -> Vec<Page> {
    let raw = gunzip(&dir.join("ground-truth.jsonl.gz"));
    let mut out = Vec::new();
    for line in BufReader::new(raw.as_slice()).lines() {
        let line = line.expect("a line");
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).expect("a JSON line");
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let id = s("id");
        let html = gunzip(&dir.join("html").join(format!("{id}.html.gz")));
        let url = match s("url") {
            u if u.is_empty() => "https://example.com/".to_string(),
            u => u,
        };
        out.push(Page {
            id,
            url,
            html: String::from_utf8_lossy(&html).into_owned(),
            page_type: s("page_type"),
            truth: s("main_content"),
            truth_markdown: s("main_content_markdown"),
            with: strings(v.get("with")),
            without: strings(v.get("without")),
            title: s("title"),
        });
    }
    out
}

/// The article-extraction benchmark, by id.
pub fn article_pages(dir: &Path) -> Vec<Page> {
    let text = std::fs::read_to_string(dir.join("ground-truth.json")).expect("ground truth");
    let gt: Value = serde_json::from_str(&text).expect("ground truth JSON");
    let mut out = Vec::new();
    for (id, v) in gt.as_object().expect("an object") {
        let url = v
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or("https://example.invalid/")
            .to_string();
        let html = gunzip(&dir.join("html").join(format!("{id}.html.gz")));
        out.push(Page {
            id: id.clone(),
            url,
            html: String::from_utf8_lossy(&html).into_owned(),
            page_type: "article".into(),
            truth: v
                .get("articleBody")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            truth_markdown: String::new(),
            with: Vec::new(),
            without: Vec::new(),
            title: String::new(),
        });
    }
    out
}

/// Python's `\w` in Unicode mode: general categories L* and N*, and `_`
/// (not combining marks, which Rust's `is_alphanumeric` would take).
pub fn is_word(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory as G};
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::DecimalNumber
            | G::LetterNumber
            | G::OtherNumber
    )
}

/// `\w+` tokens, as the reference scripts find them.
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_word(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

// ---- WCXB: bag of words ------------------------------------------------

/// WCXB's per-page (precision, recall, F1): lower-cased `\w+` tokens as
/// a bag of words.
pub fn word_f1(pred: &str, truth: &str) -> (f64, f64, f64) {
    let (p, r) = (pred.to_lowercase(), truth.to_lowercase());
    let (p, r) = (tokens(&p), tokens(&r));
    if r.is_empty() {
        return if p.is_empty() {
            (1.0, 1.0, 1.0)
        } else {
            (0.0, 0.0, 0.0)
        };
    }
    if p.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mut bag: HashMap<&str, i64> = HashMap::new();
    for t in &r {
        *bag.entry(t).or_insert(0) += 1;
    }
    let mut overlap = 0usize;
    for t in &p {
        if let Some(n) = bag.get_mut(t) {
            if *n > 0 {
                *n -= 1;
                overlap += 1;
            }
        }
    }
    let (pp, rr) = (
        overlap as f64 / p.len() as f64,
        overlap as f64 / r.len() as f64,
    );
    let f = if pp + rr > 0.0 {
        2.0 * pp * rr / (pp + rr)
    } else {
        0.0
    };
    (pp, rr, f)
}

/// The share of `snippets` found in `text` (case and whitespace folded);
/// `None` when there are none.
pub fn snippet_share(text: &str, snippets: &[String]) -> Option<f64> {
    if snippets.is_empty() {
        return None;
    }
    let fold = |s: &str| {
        s.to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let low = fold(text);
    let found = snippets.iter().filter(|s| low.contains(&fold(s))).count();
    Some(found as f64 / snippets.len() as f64)
}

/// The markdown structure the WCXB scorer counts: fenced code blocks,
/// table separator rows, list items, ATX headings.
pub fn structure(md: &str) -> [usize; 4] {
    let mut fences = 0;
    let (mut tables, mut items, mut heads) = (0, 0, 0);
    for l in md.lines() {
        let t = l.trim_start();
        if t.starts_with("```") {
            fences += 1;
        }
        if is_table_rule(l) {
            tables += 1;
        }
        if is_list_item(t) {
            items += 1;
        }
        let hashes = l.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&hashes)
            && l[hashes..].starts_with(|c: char| c.is_whitespace())
            && l[hashes..].trim_start().chars().next().is_some()
        {
            heads += 1;
        }
    }
    [fences / 2, tables, items, heads]
}

/// The names of [`structure`]'s counts, in order.
pub const STRUCTURE: [&str; 4] = ["code blocks", "tables", "list items", "headings"];

/// `^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$`
fn is_table_rule(l: &str) -> bool {
    let s = l.trim();
    let s = s.strip_prefix('|').unwrap_or(s);
    let s = s.strip_suffix('|').unwrap_or(s);
    let cells: Vec<&str> = s.split('|').collect();
    cells.len() >= 2
        && cells.iter().all(|c| {
            let c = c.trim();
            let c = c.strip_prefix(':').unwrap_or(c);
            let c = c.strip_suffix(':').unwrap_or(c);
            c.len() >= 3 && c.bytes().all(|b| b == b'-')
        })
}

/// `^\s*([-*+]|\d+[.)])\s+\S` on a line already trimmed at the start.
fn is_list_item(t: &str) -> bool {
    let rest = if let Some(r) = t.strip_prefix(['-', '*', '+']) {
        r
    } else {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        match t[digits..].strip_prefix(['.', ')']) {
            Some(r) => r,
            None => return false,
        }
    };
    rest.starts_with(|c: char| c.is_whitespace()) && !rest.trim().is_empty()
}

/// Whether the first 600 characters of `output` show `title`: its words,
/// lower case, in a row.
pub fn shows_title(output: &str, title: &str) -> bool {
    let head: String = output.chars().take(600).collect::<String>().to_lowercase();
    let title = title.to_lowercase();
    let want = tokens(&title).join(" ");
    !want.is_empty() && tokens(&head).join(" ").contains(&want)
}

/// The WCXB figures of one extractor over a set of pages.
#[derive(Default)]
pub struct WcxbScore {
    /// Per page type: (pages, sum P, sum R, sum F1, with (sum, n), without (sum, n)).
    pub by_type: BTreeMap<String, TypeSums>,
    /// Structure kept: per kind (kept, in the truth).
    pub kept: [(usize, usize); 4],
}

/// Sums of one page type.
#[derive(Default, Clone, Copy)]
pub struct TypeSums {
    pub pages: usize,
    pub p: f64,
    pub r: f64,
    pub f: f64,
    pub with: (f64, usize),
    pub without: (f64, usize),
    /// The F1 of the markdown as printed (URLs, markup and all), summed
    /// over the pages that had one.
    pub md_f: f64,
    /// Pages whose markdown was scored.
    pub md_pages: usize,
    /// Of the pages whose reference has a title, (those whose output
    /// shows it in its first 600 characters, those pages).
    pub titled: (usize, usize),
}

impl TypeSums {
    fn add(&mut self, o: &TypeSums) {
        self.pages += o.pages;
        self.p += o.p;
        self.r += o.r;
        self.f += o.f;
        self.md_f += o.md_f;
        self.md_pages += o.md_pages;
        self.titled.0 += o.titled.0;
        self.titled.1 += o.titled.1;
        self.with.0 += o.with.0;
        self.with.1 += o.with.1;
        self.without.0 += o.without.0;
        self.without.1 += o.without.1;
    }

    /// (F1, P, R) means.
    pub fn means(&self) -> (f64, f64, f64) {
        let n = self.pages.max(1) as f64;
        (self.f / n, self.p / n, self.r / n)
    }

    /// The mean F1 of the markdown as printed.
    pub fn md_mean(&self) -> f64 {
        self.md_f / self.md_pages.max(1) as f64
    }

    /// The share of titled pages whose output shows the title.
    pub fn title_rate(&self) -> f64 {
        self.titled.0 as f64 / self.titled.1.max(1) as f64
    }

    pub fn with_rate(&self) -> f64 {
        self.with.0 / self.with.1.max(1) as f64
    }

    pub fn without_rate(&self) -> f64 {
        self.without.0 / self.without.1.max(1) as f64
    }
}

impl WcxbScore {
    /// Scores one page: its plain text and, when there is one, its markdown.
    pub fn add(&mut self, page: &Page, text: &str, markdown: Option<&str>) -> f64 {
        let (p, r, f) = word_f1(text, &page.truth);
        let t = self.by_type.entry(page.page_type.clone()).or_default();
        t.pages += 1;
        t.p += p;
        t.r += r;
        t.f += f;
        if let Some(w) = snippet_share(text, &page.with) {
            t.with.0 += w;
            t.with.1 += 1;
        }
        if let Some(w) = snippet_share(text, &page.without) {
            t.without.0 += w;
            t.without.1 += 1;
        }
        if let Some(md) = markdown {
            t.md_f += word_f1(md, &page.truth).2;
            t.md_pages += 1;
            if !page.title.trim().is_empty() {
                t.titled.1 += 1;
                if shows_title(md, &page.title) {
                    t.titled.0 += 1;
                }
            }
            let (want, got) = (structure(&page.truth_markdown), structure(md));
            for k in 0..4 {
                self.kept[k].0 += want[k].min(got[k]);
                self.kept[k].1 += want[k];
            }
        }
        f
    }

    /// Every page type together.
    pub fn overall(&self) -> TypeSums {
        let mut all = TypeSums::default();
        for t in self.by_type.values() {
            all.add(t);
        }
        all
    }

    /// The table the reference script prints, plus the structure line.
    pub fn report(&self, name: &str) -> String {
        let md = self.by_type.values().any(|t| t.md_pages > 0);
        let titles = self.by_type.values().any(|t| t.titled.1 > 0);
        let mut out = format!(
            "{name}\n{:<14} {:>5} {:>6} {:>6} {:>6} {:>6} {:>8}{}{}\n",
            "type",
            "pages",
            "F1",
            "P",
            "R",
            "with",
            "without",
            if md { "  md F1" } else { "" },
            if titles { "  title" } else { "" }
        );
        let row = |label: &str, t: &TypeSums| {
            let (f, p, r) = t.means();
            let md_col = if md {
                format!(" {:6.3}", t.md_mean())
            } else {
                String::new()
            };
            let title_col = if titles {
                format!(" {:6.3}", t.title_rate())
            } else {
                String::new()
            };
            // A set without snippets shows none (not a rate of zero).
            let rate = |(_, n): (f64, usize), v: f64, w: usize| {
                if n == 0 {
                    format!("{:>w$}", "-")
                } else {
                    format!("{v:w$.3}")
                }
            };
            format!(
                "{label:<14} {:>5} {f:6.3} {p:6.3} {r:6.3} {} {}{md_col}{title_col}\n",
                t.pages,
                rate(t.with, t.with_rate(), 6),
                rate(t.without, t.without_rate(), 8)
            )
        };
        for (ty, t) in &self.by_type {
            out.push_str(&row(ty, t));
        }
        out.push_str(&row("overall", &self.overall()));
        if self.kept.iter().any(|k| k.1 > 0) {
            let parts: Vec<String> = STRUCTURE
                .iter()
                .zip(self.kept)
                .map(|(n, (g, w))| {
                    format!("{n} {g}/{w} ({:.0}%)", 100.0 * g as f64 / w.max(1) as f64)
                })
                .collect();
            out.push_str(&format!("markdown structure kept: {}\n", parts.join(", ")));
        }
        out
    }
}

// ---- The article-extraction benchmark: 4-token shingles ---------------

fn shingles(text: &str) -> HashMap<Vec<&str>, usize> {
    let t = tokens(text);
    let mut m = HashMap::new();
    let n = 4;
    let count = if t.len() >= n { t.len() - n + 1 } else { 1 };
    for i in 0..count {
        let g: Vec<&str> = t[i..(i + n).min(t.len())].to_vec();
        if !g.is_empty() {
            *m.entry(g).or_insert(0) += 1;
        }
    }
    m
}

/// (true positives, false positives, false negatives) of one page,
/// normalised to sum to one.
pub fn page_counts(truth: &str, pred: &str) -> (f64, f64, f64) {
    let (t, p) = (shingles(truth), shingles(pred));
    let (mut tp, mut fp, mut fnn) = (0.0, 0.0, 0.0);
    for k in t.keys().chain(p.keys().filter(|k| !t.contains_key(*k))) {
        let a = *t.get(k).unwrap_or(&0) as f64;
        let b = *p.get(k).unwrap_or(&0) as f64;
        tp += a.min(b);
        fp += (b - a).max(0.0);
        fnn += (a - b).max(0.0);
    }
    let total = tp + fp + fnn;
    if total > 0.0 {
        (tp / total, fp / total, fnn / total)
    } else {
        (tp, fp, fnn)
    }
}

/// (F1, precision, recall) of predictions against the truth, by id.
pub fn article_score(
    truth: &BTreeMap<String, String>,
    pred: &HashMap<String, String>,
) -> (f64, f64, f64) {
    let (mut ps, mut rs) = (Vec::new(), Vec::new());
    for (k, t) in truth {
        let p = pred.get(k).map(String::as_str).unwrap_or("");
        let (tp, fp, fnn) = page_counts(t, p);
        if tp + fp > 0.0 {
            ps.push(if fp == 0.0 && fnn == 0.0 {
                1.0
            } else if tp == 0.0 && fp == 0.0 {
                0.0
            } else {
                tp / (tp + fp)
            });
        }
        if tp + fnn > 0.0 {
            rs.push(if fp == 0.0 && fnn == 0.0 {
                1.0
            } else if tp == 0.0 && fnn == 0.0 {
                0.0
            } else {
                tp / (tp + fnn)
            });
        }
    }
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let (p, r) = (mean(&ps), mean(&rs));
    let f1 = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    (f1, p, r)
}
