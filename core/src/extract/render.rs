//! Rendering the chosen subtrees as markdown or plain text.
//!
//! An explicit stack replaces recursion: `Enter` pushes a frame for the
//! constructs that must see their whole content before writing it (links,
//! headings, quotes, list items, code blocks, table cells), `Exit` folds
//! the frame into its parent. Whitespace collapses outside `pre`; blank
//! lines never run together.

use url::Url;

use super::article::{is_block, is_boilerplate};
use super::dom::{Doc, Id, Kind};

/// Markdown (the tool's output) or plain text (no syntax, no link targets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Markdown.
    Markdown,
    /// Plain text.
    Plain,
}

/// An output buffer with pending separators.
#[derive(Default)]
struct Buf {
    out: String,
    /// 0 nothing, 1 newline, 2 blank line, owed before the next text.
    brk: u8,
    space: bool,
    pre: bool,
    /// Whitespace came before the first character written.
    lead_space: bool,
}

impl Buf {
    fn flush_sep(&mut self) {
        if !self.out.is_empty() {
            match self.brk {
                0 => {
                    if self.space {
                        self.out.push(' ');
                    }
                }
                1 => self.out.push('\n'),
                _ => self.out.push_str("\n\n"),
            }
        }
        self.brk = 0;
        self.space = false;
    }

    fn text(&mut self, s: &str) {
        if self.pre {
            if !s.is_empty() {
                self.flush_sep();
                self.out.push_str(s);
            }
            return;
        }
        for c in s.chars() {
            if c.is_whitespace() {
                self.space = true;
                if self.out.is_empty() {
                    self.lead_space = true;
                }
            } else {
                self.flush_sep();
                self.out.push(c);
            }
        }
    }

    /// Literal output (markup) that glues to what follows.
    fn raw(&mut self, s: &str) {
        self.flush_sep();
        self.out.push_str(s);
    }

    fn block(&mut self) {
        self.brk = 2;
        self.space = false;
    }

    fn line(&mut self) {
        self.brk = self.brk.max(1);
        self.space = false;
    }

    /// A `<br>`: a line break, and a second one with no text between
    /// ends the paragraph (pages write paragraphs as `text<br><br>text`).
    fn br(&mut self) {
        self.brk = (self.brk + 1).min(2);
        self.space = false;
    }
}

enum FrameKind {
    Plain,
    Link(Option<String>),
    Wrap(&'static str),
    Heading(usize),
    Quote,
    Item(String),
    Pre,
    Cell,
    Table(Vec<Vec<String>>),
}

struct Frame {
    kind: FrameKind,
    buf: Buf,
}

enum Step {
    Enter(Id),
    Exit(Id),
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn link_target(base: &Url, href: &str) -> Option<String> {
    let u = base.join(href.trim()).ok()?;
    matches!(u.scheme(), "http" | "https" | "mailto" | "ftp").then(|| u.to_string())
}

/// Renders `roots` (in order) as one text. With `prune`, boilerplate
/// inside them is dropped as well.
pub fn render(doc: &Doc, roots: &[Id], base: &Url, style: Style, prune: bool) -> String {
    let md = style == Style::Markdown;
    let mut frames: Vec<Frame> = vec![Frame {
        kind: FrameKind::Plain,
        buf: Buf::default(),
    }];
    let mut list_counters: Vec<Option<u64>> = Vec::new();
    let mut stack: Vec<Step> = roots.iter().rev().map(|&r| Step::Enter(r)).collect();
    fn top(frames: &mut [Frame]) -> &mut Buf {
        // OK because the root frame is never popped.
        &mut frames.last_mut().expect("root frame").buf
    }
    let in_pre = |frames: &Vec<Frame>| frames.iter().any(|f| matches!(f.kind, FrameKind::Pre));

    while let Some(step) = stack.pop() {
        match step {
            Step::Enter(id) => {
                let node = &doc.nodes[id];
                if node.junk {
                    continue;
                }
                let tag = match &node.kind {
                    Kind::Text(t) => {
                        top(&mut frames).text(t);
                        continue;
                    }
                    Kind::Other => {
                        stack.extend(node.children.iter().rev().map(|&c| Step::Enter(c)));
                        continue;
                    }
                    Kind::Element(t) => t.as_ref(),
                };
                if prune && is_boilerplate(doc, id) {
                    continue;
                }
                let pre = in_pre(&frames);
                let kind = match tag {
                    "a" => Some(FrameKind::Link(
                        node.attr("href").and_then(|h| link_target(base, h)),
                    )),
                    "strong" | "b" if !pre => Some(FrameKind::Wrap("**")),
                    "em" | "i" if !pre => Some(FrameKind::Wrap("*")),
                    "code" | "kbd" | "samp" | "tt" if !pre => Some(FrameKind::Wrap("`")),
                    "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                        Some(FrameKind::Heading(usize::from(tag.as_bytes()[1] - b'0')))
                    }
                    "blockquote" => Some(FrameKind::Quote),
                    "li" => {
                        let marker = match list_counters.last_mut() {
                            Some(Some(n)) => {
                                *n += 1;
                                format!("{}. ", *n - 1)
                            }
                            _ => "- ".to_string(),
                        };
                        Some(FrameKind::Item(marker))
                    }
                    "pre" => Some(FrameKind::Pre),
                    "td" | "th" => Some(FrameKind::Cell),
                    "table" => Some(FrameKind::Table(Vec::new())),
                    _ => None,
                };
                match tag {
                    "br" => {
                        if pre {
                            top(&mut frames).text("\n");
                        } else {
                            top(&mut frames).br();
                        }
                        continue;
                    }
                    "hr" => {
                        let b = top(&mut frames);
                        b.block();
                        if md {
                            b.raw("---");
                            b.block();
                        }
                        continue;
                    }
                    "img" => {
                        let alt = node.attr("alt").map(one_line).unwrap_or_default();
                        if md && !alt.is_empty() {
                            if let Some(src) = node.attr("src").and_then(|s| link_target(base, s)) {
                                let alt = alt.replace(['[', ']'], "");
                                top(&mut frames).raw(&format!("![{alt}]({src})"));
                            }
                        }
                        continue;
                    }
                    "ul" | "ol" | "menu" => {
                        let start = node
                            .attr("start")
                            .and_then(|s| s.trim().parse::<u64>().ok())
                            .unwrap_or(1);
                        list_counters.push((tag == "ol").then_some(start));
                        list_break(&mut frames);
                    }
                    // An item's separators are the item frame's own.
                    "li" => {}
                    "tr" => {
                        if let Some(FrameKind::Table(rows)) = frames
                            .iter_mut()
                            .rev()
                            .find(|f| matches!(f.kind, FrameKind::Table(_)))
                            .map(|f| &mut f.kind)
                        {
                            rows.push(Vec::new());
                        }
                    }
                    t if is_block(t) => top(&mut frames).block(),
                    _ => {}
                }
                if let Some(kind) = kind {
                    let pre_buf = matches!(kind, FrameKind::Pre) || pre;
                    frames.push(Frame {
                        kind,
                        buf: Buf {
                            pre: pre_buf,
                            ..Buf::default()
                        },
                    });
                }
                stack.push(Step::Exit(id));
                stack.extend(node.children.iter().rev().map(|&c| Step::Enter(c)));
            }
            Step::Exit(id) => {
                let tag = doc.nodes[id].tag().unwrap_or("");
                let framed = matches!(
                    tag,
                    "a" | "h1"
                        | "h2"
                        | "h3"
                        | "h4"
                        | "h5"
                        | "h6"
                        | "blockquote"
                        | "li"
                        | "pre"
                        | "td"
                        | "th"
                        | "table"
                ) || (!frames.last().is_some_and(|f| f.buf.pre)
                    && matches!(
                        tag,
                        "strong" | "b" | "em" | "i" | "code" | "kbd" | "samp" | "tt"
                    ));
                if matches!(tag, "ul" | "ol" | "menu") {
                    list_counters.pop();
                    list_break(&mut frames);
                    continue;
                }
                if !framed || frames.len() < 2 {
                    if is_block(tag) {
                        top(&mut frames).block();
                    }
                    continue;
                }
                // OK because frames.len() >= 2 was checked above.
                let f = frames.pop().expect("frame");
                if let FrameKind::Cell = f.kind {
                    let mut cell = one_line(&f.buf.out);
                    if md {
                        cell = cell.replace('|', "\\|");
                    }
                    let table = frames.iter_mut().rev().find_map(|fr| match &mut fr.kind {
                        FrameKind::Table(rows) => Some(rows),
                        _ => None,
                    });
                    match table {
                        Some(rows) => match rows.last_mut() {
                            Some(r) => r.push(cell),
                            None => rows.push(vec![cell]),
                        },
                        None => {
                            let b = top(&mut frames);
                            b.text(&cell);
                            b.space = true;
                        }
                    }
                    continue;
                }
                let parent = top(&mut frames);
                fold(f, parent, md);
            }
        }
    }
    let mut out = std::mem::take(&mut frames[0].buf.out);
    // Frames left open (malformed nesting cannot happen with html5ever,
    // but stay safe) are folded in order.
    while frames.len() > 1 {
        let f = frames.pop().expect("frame");
        out.push_str(&f.buf.out);
    }
    out.trim().to_string()
}

/// A list inside a list item sits on the next line; elsewhere a list is a
/// block of its own.
fn list_break(frames: &mut [Frame]) {
    // OK because the root frame is never popped.
    let f = frames.last_mut().expect("root frame");
    if matches!(f.kind, FrameKind::Item(_)) {
        f.buf.line();
    } else {
        f.buf.block();
    }
}

fn fold(f: Frame, parent: &mut Buf, md: bool) {
    let (lead, trail) = (f.buf.lead_space, f.buf.space);
    let inner = f.buf.out;
    match f.kind {
        FrameKind::Plain => parent.text(&inner),
        FrameKind::Link(target) => {
            let text = one_line(&inner);
            if text.is_empty() {
                // Whitespace inside an empty link still separates words.
                if !inner.is_empty() {
                    parent.space = true;
                }
                return;
            }
            // Space at the link's edges belongs to the sentence around it.
            if lead {
                parent.space = true;
            }
            match target {
                Some(t) if md => parent.raw(&format!("[{text}]({t})")),
                _ => parent.text(&text),
            }
            if trail {
                parent.space = true;
            }
        }
        FrameKind::Wrap(mark) => {
            let text = inner.trim();
            if text.is_empty() {
                return;
            }
            if lead {
                parent.space = true;
            }
            if md && !text.contains('\n') {
                parent.raw(&format!("{mark}{text}{mark}"));
            } else {
                parent.text(&inner);
            }
            if trail {
                parent.space = true;
            }
        }
        FrameKind::Heading(level) => {
            let text = one_line(&inner);
            if text.is_empty() {
                return;
            }
            parent.block();
            if md {
                parent.raw(&format!("{} {text}", "#".repeat(level)));
            } else {
                parent.raw(&text);
            }
            parent.block();
        }
        FrameKind::Quote => {
            let text = inner.trim();
            if text.is_empty() {
                return;
            }
            parent.block();
            if md {
                let quoted: Vec<String> = text
                    .lines()
                    .map(|l| {
                        if l.is_empty() {
                            ">".to_string()
                        } else {
                            format!("> {l}")
                        }
                    })
                    .collect();
                parent.raw(&quoted.join("\n"));
            } else {
                parent.raw(text);
            }
            parent.block();
        }
        FrameKind::Item(marker) => {
            let text = inner.trim();
            if text.is_empty() {
                return;
            }
            parent.line();
            if md {
                let pad = " ".repeat(marker.len());
                let mut lines = text.lines();
                let mut s = format!("{marker}{}", lines.next().unwrap_or(""));
                for l in lines {
                    s.push('\n');
                    if !l.is_empty() {
                        s.push_str(&pad);
                        s.push_str(l);
                    }
                }
                parent.raw(&s);
            } else {
                parent.raw(text);
            }
            parent.line();
        }
        FrameKind::Pre => {
            let text = inner.trim_matches('\n');
            if text.trim().is_empty() {
                return;
            }
            parent.block();
            if md {
                let mut fence = "```".to_string();
                while text.contains(&fence) {
                    fence.push('`');
                }
                parent.raw(&format!("{fence}\n{text}\n{fence}"));
            } else {
                parent.raw(text);
            }
            parent.block();
        }
        // Cells are placed by the caller, in their table's rows.
        FrameKind::Cell => parent.text(&inner),
        FrameKind::Table(rows) => {
            let rows: Vec<Vec<String>> = rows
                .into_iter()
                .filter(|r| r.iter().any(|c| !c.is_empty()))
                .collect();
            // Text directly inside the table (a caption) comes first.
            parent.block();
            parent.text(&inner);
            if rows.is_empty() {
                return;
            }
            parent.block();
            if md {
                let cols = rows.iter().map(Vec::len).max().unwrap_or(1);
                let line = |r: &[String]| {
                    let mut cells: Vec<&str> = r.iter().map(String::as_str).collect();
                    cells.resize(cols, "");
                    format!("| {} |", cells.join(" | "))
                };
                let mut out = vec![line(&rows[0]), format!("|{}", " --- |".repeat(cols))];
                out.extend(rows[1..].iter().map(|r| line(r)));
                parent.raw(&out.join("\n"));
            } else {
                let out: Vec<String> = rows.iter().map(|r| r.join(" ")).collect();
                parent.raw(&out.join("\n"));
            }
            parent.block();
        }
    }
}
