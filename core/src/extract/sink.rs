//! html5ever's tree builder feeding the flat view directly, behind a token
//! filter that bounds the work the builder may do.
//!
//! The sink: the builder's callbacks write [`Node`]s into one vector and
//! link them as siblings (first/last child, previous/next sibling), so
//! every insertion, removal and move is O(1) whatever the number of
//! siblings (foster parenting inserts before a table; the adoption agency
//! moves nodes about). Comments and processing instructions are never
//! stored. One pass at the end puts the vector in document order, in
//! place, and gives each node its parent and the end of its subtree.
//!
//! The filter, between the tokenizer and the builder, bounds three things
//! the HTML standard lets a page grow without input:
//!
//! - **Depth.** The builder scans its stack of open elements on most
//!   tokens, so a page nested N levels deep costs N² (100,000 levels:
//!   minutes). Browsers cap the tree's depth (Chromium at 512); here a
//!   start tag that would open an element deeper than [`MAX_DEPTH`] is
//!   dropped, with its end tag — its text still arrives, one level up.
//! - **Nodes.** Reconstruction of active formatting elements re-creates
//!   every formatting element left open for each new block (`<b x=0>…<b
//!   x=499>` then `<p>x</p>` repeated: 500 nodes per 8 bytes), and some
//!   end tags create elements (`</p>` with no `p` open). The tree holds at
//!   most [`Limits::nodes`] nodes (one per 10 bytes), far above any real
//!   page (the densest of 1,678 benchmark pages has one node per 15
//!   bytes; none uses more than half the budget).
//! - **Work.** Each token costs the builder about the depth of its stack
//!   per node the token makes; the filter charges that, and the charges
//!   may not pass [`Limits::work`] (eight units per byte; real pages use
//!   at most 3.2, a sixth of the budget).
//!
//! Past the node or work budget the builder is fed nothing more: the rest
//! of the page's text is kept, in order, as one text node where the
//! builder stopped (scripts, styles and titles still skipped), so the
//! result is honest. The filter stops the tokenizer at the next tag and
//! `tail` reads the rest in one linear scan. Attributes per tag are
//! bounded before the tokenizer (see `guard`).
//!
//! The filter also keeps the text of scripts and style sheets from the
//! builder (JSON-LD excepted): extraction never reads it, and it is a
//! third of a typical page's bytes. The tokenizer does not read it
//! either: the filter stops it after such a start tag, and
//! [`parse_with`] finds the text's end with the tail's scan and lets the
//! tokenizer go on at the end tag.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{local_name, Attribute, ExpandedName, LocalName, Namespace, QualName};

use super::dom::{Id, Kind, Node, NONE};
use super::streamed;
use super::tail::{Raw, Tail};
use super::work::Work;

/// The deepest element the tree keeps.
pub const MAX_DEPTH: usize = 512;

/// How far back a dropped start tag is looked for when an end tag comes:
/// bounded, so that end tags cannot make the search quadratic.
const DROPPED_LOOKBACK: usize = 64;

/// The id handed out for comments and processing instructions, which are
/// never stored: appending it does nothing.
const DISCARDED: Id = usize::MAX;

/// Bytes of page per node the tree may hold (see [`Limits::for_len`]).
pub const NODE_BYTES: usize = 16;

/// The budgets of one parse, from the length of the page.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Nodes the tree may hold.
    pub nodes: usize,
    /// Work units the builder may spend (a token costs the depth it is
    /// processed at, plus one, times one plus the nodes it makes).
    pub work: u64,
}

impl Limits {
    /// The budgets for a page of `len` bytes. Real pages hold at most
    /// one node per 14.7 bytes (the densest of the 2,920 pages of WCXB's
    /// development split and web-classics), and none comes near a node
    /// per 16 bytes beyond the first 8,192; a hostile page of tiny
    /// elements (`<a>x`, a node per 2 bytes) is held there, where the
    /// per-node work of the tree builder is what its time is made of.
    pub fn for_len(len: usize) -> Limits {
        Limits {
            nodes: len / NODE_BYTES + 8192,
            work: 8 * len as u64 + (1 << 20),
        }
    }

    /// [`Limits::for_len`] without its allowances for small pages, so
    /// that a fuzzer or a property test sees the budgets run out.
    pub fn small(len: usize) -> Limits {
        Limits {
            nodes: len / NODE_BYTES + 64,
            work: 8 * len as u64 + 1024,
        }
    }
}

/// What one parse spent, for tests and the fuzz target's work check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spent {
    /// Whether the deadline passed and the rest of the page was not read.
    pub late: bool,
    /// Nodes made (the tree keeps the reachable ones).
    pub nodes: usize,
    /// Work units charged.
    pub work: u64,
    /// Whether a budget ran out and the rest of the page became text.
    pub tail: bool,
}

/// The tree builder's handle on a node: its index, and for an element its
/// name. The builder asks for an element's name about three times per
/// node (scope checks walk its stack of open elements); carried in the
/// handle, the name is lent without a lookup, and cloning a handle copies
/// two atoms (interned, no allocation).
#[derive(Clone, Debug)]
pub struct Handle {
    id: Id,
    ns: Namespace,
    local: LocalName,
}

impl Handle {
    /// A node that is not an element (the document, a comment).
    fn other(id: Id) -> Handle {
        Handle {
            id,
            ns: ns_html(),
            local: local_name!(""),
        }
    }
}

/// A node's place among its siblings while the tree is built.
#[derive(Clone, Copy)]
struct Links {
    parent: u32,
    first: u32,
    last: u32,
    prev: u32,
    next: u32,
    /// Its depth when it was last appended (an estimate after moves).
    depth: u32,
}

const UNLINKED: Links = Links {
    parent: NONE,
    first: NONE,
    last: NONE,
    prev: NONE,
    next: NONE,
    depth: 0,
};

fn ix(id: u32) -> usize {
    id as usize
}

/// The sink: nodes in creation order until [`FlatSink::into_document_order`].
pub struct FlatSink {
    nodes: RefCell<Vec<Node>>,
    links: RefCell<Vec<Links>>,
    /// Template contents, by template element.
    templates: RefCell<HashMap<Id, Id>>,
    /// MathML annotation-xml integration points (rare).
    integration: RefCell<HashSet<Id>>,
    /// The element the builder inserts into next (best estimate).
    current: Cell<Id>,
    /// Children moved between parents (work the builder made us do).
    moved: Cell<u64>,
    /// The last element made, and whether it is in the HTML namespace.
    last_made: Cell<(Id, bool)>,
}

/// The attributes extraction reads; the rest (event handlers, most
/// `data-*`, inline JSON) are dropped as the element is made, which saves
/// keeping and freeing them.
fn kept_attribute(name: &LocalName) -> bool {
    matches!(
        &**name,
        "class"
            | "id"
            | "href"
            | "src"
            | "data-src"
            | "data-lazy-src"
            | "data-original"
            | "srcset"
            | "data-srcset"
            | "alt"
            | "width"
            | "height"
            | "start"
            | "itemprop"
            | "itemtype"
            | "role"
            | "type"
            | "hidden"
            | "aria-hidden"
            | "aria-modal"
            | "aria-controls"
            | "data-nosnippet"
            | "style"
    )
}

impl FlatSink {
    /// A sink for a page of `len` bytes: real pages run at about one node
    /// per 40 bytes, so the node list is sized once instead of regrown
    /// (and its entries copied) a dozen times.
    fn new(len: usize) -> Self {
        let cap = (len / 40).clamp(16, 1 << 20);
        let mut nodes = Vec::with_capacity(cap);
        nodes.push(Node::new(Kind::Other, Box::default()));
        let mut links = Vec::with_capacity(cap);
        links.push(UNLINKED);
        FlatSink {
            nodes: RefCell::new(nodes),
            links: RefCell::new(links),
            templates: RefCell::new(HashMap::new()),
            integration: RefCell::new(HashSet::new()),
            current: Cell::new(0),
            moved: Cell::new(0),
            last_made: Cell::new((0, true)),
        }
    }

    fn len(&self) -> usize {
        self.nodes.borrow().len()
    }

    fn push(&self, node: Node) -> Id {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(node);
        self.links.borrow_mut().push(UNLINKED);
        nodes.len() - 1
    }

    /// The depth of the element the next start tag would open under.
    fn current_depth(&self) -> usize {
        self.links.borrow()[self.current.get()].depth as usize
    }

    /// Takes `child` out of its parent's children, if it has a parent.
    fn detach(&self, child: Id) {
        let mut links = self.links.borrow_mut();
        let l = links[child];
        if l.parent == NONE {
            return;
        }
        match l.prev {
            NONE => links[ix(l.parent)].first = l.next,
            p => links[ix(p)].next = l.next,
        }
        match l.next {
            NONE => links[ix(l.parent)].last = l.prev,
            n => links[ix(n)].prev = l.prev,
        }
        let c = &mut links[child];
        (c.parent, c.prev, c.next) = (NONE, NONE, NONE);
    }

    /// Links the detached `child` under `parent`, before `before` or last.
    fn link(&self, parent: Id, child: Id, before: Option<Id>) {
        let mut links = self.links.borrow_mut();
        let (p, c) = (parent as u32, child as u32);
        let depth = links[parent].depth.saturating_add(1);
        match before {
            Some(b) => {
                let prev = links[b].prev;
                links[child] = Links {
                    parent: p,
                    prev,
                    next: b as u32,
                    depth,
                    ..links[child]
                };
                links[b].prev = c;
                match prev {
                    NONE => links[parent].first = c,
                    q => links[ix(q)].next = c,
                }
            }
            None => {
                let last = links[parent].last;
                links[child] = Links {
                    parent: p,
                    prev: last,
                    next: NONE,
                    depth,
                    ..links[child]
                };
                match last {
                    NONE => links[parent].first = c,
                    q => links[ix(q)].next = c,
                }
                links[parent].last = c;
            }
        }
    }

    /// Appends under `parent`, at the end or before `before` (text merges
    /// into a text node just before the insertion point). `inserting` says
    /// the builder is inserting (and will push) an element, rather than
    /// moving children around.
    fn append_at(
        &self,
        parent: Id,
        child: NodeOrText<Handle>,
        before: Option<Id>,
        inserting: bool,
    ) {
        let id = match child {
            NodeOrText::AppendText(t) => {
                let prev = {
                    let links = self.links.borrow();
                    match before {
                        Some(b) => links[b].prev,
                        None => links[parent].last,
                    }
                };
                if prev != NONE {
                    if let Kind::Text(s) = &mut self.nodes.borrow_mut()[ix(prev)].kind {
                        s.push_tendril(&t);
                        return;
                    }
                }
                self.push(Node::new(Kind::Text(t), Box::default()))
            }
            NodeOrText::AppendNode(n) if n.id == DISCARDED => return,
            NodeOrText::AppendNode(n) => {
                self.detach(n.id);
                n.id
            }
        };
        self.link(parent, id, before);
        let pushed = match &self.nodes.borrow()[id].kind {
            Kind::Element(name) => !is_void(name),
            _ => false,
        };
        if inserting && pushed {
            // Elements but void ones are pushed on the builder's stack as
            // they are inserted: this is where the next start tag goes.
            self.current.set(id);
        }
    }

    /// Puts the nodes reachable from the document in document order (every
    /// child after its parent, siblings in order), in place, each with its
    /// parent and the end of its subtree; drops the rest (template
    /// contents, removed nodes). Elements below [`MAX_DEPTH`] are unwrapped
    /// (their leaves kept in order, one level up): the start-tag filter
    /// keeps most pages within the cap, but the adoption agency moves
    /// whole subtrees under deeper parents (a fuzzer found misnested
    /// formatting tags reaching depth 649), and the cap must hold for
    /// every tree the walks see. A streamed segment's children take its
    /// placeholder's place, as the page's script would put them
    /// (`streamed`).
    fn into_document_order(self) -> Vec<Node> {
        let mut nodes = self.nodes.into_inner();
        let links = self.links.into_inner();
        let n = nodes.len();
        let mut new_id = vec![NONE; n];
        let placed = streamed::placements(&nodes, self.templates.into_inner().into_keys());
        // Segments whose children went to their placeholder: the hidden
        // shell left behind is not placed.
        let mut moved: HashSet<u32> = HashSet::new();
        enum Step {
            Visit { old: u32, depth: u32, parent: u32 },
            Close(u32),
        }
        let mut next = 0u32;
        let mut stack = vec![Step::Visit {
            old: 0,
            depth: 0,
            parent: NONE,
        }];
        let push_children = |stack: &mut Vec<Step>, old: u32, depth: u32, parent: u32| {
            let mut c = links[ix(old)].last;
            while c != NONE {
                stack.push(Step::Visit {
                    old: c,
                    depth,
                    parent,
                });
                c = links[ix(c)].prev;
            }
        };
        while let Some(step) = stack.pop() {
            match step {
                Step::Close(old) => nodes[ix(old)].end = next,
                Step::Visit { old, depth, parent } => {
                    if new_id[ix(old)] != NONE {
                        continue; // listed twice: a segment's child, or be safe
                    }
                    if let Some(placed) = &placed {
                        if moved.contains(&old) {
                            continue;
                        }
                        // A placeholder whose segment is not placed yet
                        // (not an ancestor, not met before): the
                        // segment's children instead, at its depth. Each
                        // segment moves once, so the walk stays linear.
                        if let Some(&seg) = placed.get(&old) {
                            if new_id[ix(seg)] == NONE && moved.insert(seg) {
                                push_children(&mut stack, seg, depth, parent);
                                continue;
                            }
                        }
                    }
                    let has_children = links[ix(old)].first != NONE;
                    if depth as usize > MAX_DEPTH && has_children {
                        // Unwrapped: its children take its place.
                        push_children(&mut stack, old, depth, parent);
                        continue;
                    }
                    new_id[ix(old)] = next;
                    nodes[ix(old)].parent = parent;
                    next += 1;
                    stack.push(Step::Close(old));
                    push_children(&mut stack, old, depth + 1, next - 1);
                }
            }
        }
        drop(links);
        let reachable = next as usize;
        for slot in new_id.iter_mut() {
            if *slot == NONE {
                *slot = next;
                next += 1;
            }
        }
        // The builder makes nodes in document order unless it moved some
        // (foster parenting, misnested formatting): usually nothing to do.
        if !new_id.iter().enumerate().all(|(i, &j)| i == ix(j)) {
            // Apply the permutation in place: follow each cycle with swaps.
            for i in 0..n {
                while ix(new_id[i]) != i {
                    let j = ix(new_id[i]);
                    nodes.swap(i, j);
                    new_id.swap(i, j);
                }
            }
        }
        nodes.truncate(reachable);
        nodes
    }
}

fn ns_html() -> Namespace {
    html5ever::ns!(html)
}

impl TreeSink for FlatSink {
    type Handle = Handle;
    type Output = Self;
    type ElemName<'a> = ExpandedName<'a>;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Handle {
        Handle::other(0)
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> ExpandedName<'a> {
        ExpandedName {
            ns: &target.ns,
            local: &target.local,
        }
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        // A `<meta>` keeps what it says (`og:type`, a description).
        let meta = name.local == local_name!("meta");
        // An `<a>` keeps its `name`: a comment mark (`comments`).
        let anchor = name.local == local_name!("a");
        let kept = |a: &Attribute| {
            kept_attribute(&a.name.local)
                || (meta && matches!(&*a.name.local, "property" | "name" | "content"))
                || (anchor && a.name.local == local_name!("name"))
        };
        // Counted first so that the kept list is allocated at its size:
        // collecting into the tokenizer's vector and shrinking it costs
        // a reallocation per element.
        let mut kept_attrs = Vec::with_capacity(attrs.iter().filter(|a| kept(a)).count());
        for a in attrs {
            if kept(&a) {
                kept_attrs.push((a.name.local, a.value));
            }
        }
        let attrs = kept_attrs.into_boxed_slice();
        let id = self.push(Node::new(Kind::Element(name.local.clone()), attrs));
        if flags.template {
            let contents = self.push(Node::new(Kind::Other, Box::default()));
            self.templates.borrow_mut().insert(id, contents);
        }
        if flags.mathml_annotation_xml_integration_point {
            self.integration.borrow_mut().insert(id);
        }
        self.last_made.set((id, name.ns == ns_html()));
        Handle {
            id,
            ns: name.ns,
            local: name.local,
        }
    }

    fn create_comment(&self, _text: StrTendril) -> Handle {
        Handle::other(DISCARDED)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> Handle {
        Handle::other(DISCARDED)
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        if parent.id != DISCARDED {
            self.append_at(parent.id, child, None, true);
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev: &Handle,
        child: NodeOrText<Handle>,
    ) {
        if self.links.borrow()[element.id].parent != NONE {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn pop(&self, node: &Handle) {
        // The builder popped `node`: it inserts into its parent next.
        if node.id == DISCARDED {
            return;
        }
        let parent = self.links.borrow()[node.id].parent;
        self.current
            .set(if parent == NONE { 0 } else { ix(parent) });
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        // The builder asks only about templates it created.
        Handle::other(*self.templates.borrow().get(&target.id).unwrap_or(&0))
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        x.id == y.id
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        if sibling.id == DISCARDED {
            return;
        }
        let parent = self.links.borrow()[sibling.id].parent;
        if parent != NONE {
            self.append_at(ix(parent), new_node, Some(sibling.id), true);
        }
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        if target.id == DISCARDED {
            return;
        }
        let mut nodes = self.nodes.borrow_mut();
        let node = &mut nodes[target.id];
        let mut all: Vec<(LocalName, StrTendril)> = node.attrs.to_vec();
        for a in attrs {
            if kept_attribute(&a.name.local) && !all.iter().any(|(n, _)| *n == a.name.local) {
                all.push((a.name.local, a.value));
            }
        }
        node.attrs = all.into_boxed_slice();
        node.refresh_class_id();
    }

    fn remove_from_parent(&self, target: &Handle) {
        if target.id != DISCARDED {
            self.detach(target.id);
        }
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        if node.id == DISCARDED || new_parent.id == DISCARDED {
            return;
        }
        let mut c = self.links.borrow()[node.id].first;
        while c != NONE {
            let next = self.links.borrow()[ix(c)].next;
            self.detach(ix(c));
            self.link(new_parent.id, ix(c), None);
            self.moved.set(self.moved.get() + 1);
            c = next;
        }
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Handle) -> bool {
        self.integration.borrow().contains(&handle.id)
    }
}

fn is_void(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("area")
            | local_name!("base")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("input")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
    )
}

/// Whether the raw text a start tag opens is never read: a style sheet,
/// or a script but JSON-LD (the one script extraction reads). A third of
/// a page's bytes are script and a tenth style: the tokenizer does not
/// read them (see [`parse_with`]), and the builder and the tree are
/// spared the text.
fn unread_raw_text(tag: &html5ever::tokenizer::Tag) -> bool {
    match tag.name {
        local_name!("style") => true,
        local_name!("script") => !tag.attrs.iter().any(|a| {
            a.name.local == local_name!("type") && super::lexicon::is_json_ld_type(&a.value)
        }),
        _ => false,
    }
}

/// Sits between the tokenizer and the tree builder: drops start tags
/// (and their end tags) that would open elements past [`MAX_DEPTH`],
/// charges each token's work, and past a budget stops feeding the
/// builder (see the module header).
struct Filter {
    builder: TreeBuilder<Handle, FlatSink>,
    dropped: RefCell<Vec<LocalName>>,
    limits: Limits,
    work: Cell<u64>,
    /// The start tag that put the tokenizer in a raw-text state, until its
    /// end tag comes (so that the tail knows to skip the rest of it).
    raw_until: RefCell<Option<LocalName>>,
    /// Inside a script or style whose text no one reads: its characters
    /// are not handed to the builder (see [`unread_raw_text`]).
    mute: Cell<bool>,
    /// Whether the muted element has its text child yet.
    muted_text: Cell<bool>,
    tail: RefCell<Option<Tail>>,
    /// Whether a budget ran out (the tail is taken at the end).
    tailed: Cell<bool>,
    /// A script or style sheet whose text no one reads has just opened:
    /// [`parse_with`] skips its text without the tokenizer.
    skip: RefCell<Option<LocalName>>,
    /// Whether such text is skipped so (else the tokenizer reads it).
    skip_raw: bool,
}

impl Filter {
    /// A token after a budget ran out. The first tag stops the tokenizer
    /// (a script result, which [`parse_with`] tells from the builder's by
    /// the tail): the tail reads the rest itself (see `tail`).
    fn tail_token(&self, tail: &mut Tail, token: Token) -> TokenSinkResult<Handle> {
        match token {
            Token::TagToken(tag) => {
                tail.tag(&tag);
                TokenSinkResult::Script(Handle::other(tail.parent))
            }
            Token::CharacterTokens(t) => {
                tail.chars(&t);
                TokenSinkResult::Continue
            }
            _ => TokenSinkResult::Continue,
        }
    }

    /// Text in a muted element: it keeps one (empty) text child, as it
    /// would have had one: the tree's shape, which the models read, stays
    /// the same.
    fn muted_text(&self) {
        if !self.muted_text.replace(true) {
            let sink = &self.builder.sink;
            sink.append_at(
                sink.current.get(),
                NodeOrText::AppendText(StrTendril::new()),
                None,
                false,
            );
        }
    }

    fn spent(&self) -> Spent {
        Spent {
            late: false,
            nodes: self.builder.sink.len(),
            work: self.work.get(),
            tail: self.tailed.get(),
        }
    }
}

impl TokenSink for Filter {
    type Handle = Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Handle> {
        if let Some(tail) = self.tail.borrow_mut().as_mut() {
            return self.tail_token(tail, token);
        }
        let sink = &self.builder.sink;
        let is_tag = matches!(token, Token::TagToken(_));
        let mut start_tag = None;
        let mut unread = false;
        let mut self_closing = false;
        let charged = match &token {
            Token::TagToken(tag) => {
                match tag.kind {
                    TagKind::StartTag
                        if !is_void(&tag.name) && sink.current_depth() >= MAX_DEPTH =>
                    {
                        self.dropped.borrow_mut().push(tag.name.clone());
                        return TokenSinkResult::Continue;
                    }
                    TagKind::EndTag => {
                        // In raw text the tokenizer's only end tag is the
                        // one that closes it.
                        self.mute.set(false);
                        let mut dropped = self.dropped.borrow_mut();
                        let from = dropped.len().saturating_sub(DROPPED_LOOKBACK);
                        if let Some(i) = dropped[from..].iter().rposition(|n| *n == tag.name) {
                            dropped.remove(from + i);
                            return TokenSinkResult::Continue;
                        }
                        if self.raw_until.borrow().as_ref() == Some(&tag.name) {
                            *self.raw_until.borrow_mut() = None;
                        }
                    }
                    TagKind::StartTag => {
                        unread = unread_raw_text(tag);
                        start_tag = Some(tag.name.clone());
                        self_closing = tag.self_closing;
                    }
                }
                true
            }
            Token::CharacterTokens(_) | Token::NullCharacterToken if self.mute.get() => {
                self.muted_text();
                return TokenSinkResult::Continue;
            }
            Token::CharacterTokens(_) | Token::NullCharacterToken => true,
            _ => false,
        };
        let depth = sink.current_depth() as u64;
        let (made, moved) = (sink.len(), sink.moved.get());
        let result = self.builder.process_token(token, line_number);
        // A self-closing foreign element (`<path/>`) is inserted but never
        // pushed: the builder goes on inserting into its parent.
        let (last, html) = sink.last_made.get();
        if self_closing && !html && sink.current.get() == last {
            let parent = sink.links.borrow()[last].parent;
            if parent != NONE {
                sink.current.set(ix(parent));
            }
        }
        if charged {
            let made = (sink.len() - made) as u64 + (sink.moved.get() - moved);
            self.work.set(self.work.get() + (depth + 1) * (1 + made));
        }
        let mut skip = None;
        if let Some(name) = start_tag {
            if matches!(
                result,
                TokenSinkResult::RawData(_) | TokenSinkResult::Script(_)
            ) {
                if unread && self.skip_raw {
                    skip = Some(name.clone());
                }
                *self.raw_until.borrow_mut() = Some(name);
                self.mute.set(unread);
                self.muted_text.set(false);
            }
        }
        if sink.len() > self.limits.nodes || self.work.get() > self.limits.work {
            self.tailed.set(true);
            let raw = match (self.raw_until.borrow_mut().take(), &result) {
                (Some(name), _) => Raw::Skip(name),
                (None, TokenSinkResult::Plaintext) => Raw::Plaintext,
                (None, _) => Raw::Markup,
            };
            *self.tail.borrow_mut() = Some(Tail::new(sink.current.get(), raw));
            if is_tag {
                // A tag was the last token: the tail reads on from here.
                return TokenSinkResult::Script(Handle::other(sink.current.get()));
            }
        }
        if skip.is_some() {
            // Stopped right after the start tag, the tokenizer holds
            // nothing back; it goes on at the end tag, in the data state.
            *self.skip.borrow_mut() = skip;
            return TokenSinkResult::Script(Handle::other(sink.current.get()));
        }
        result
    }

    fn end(&self) {
        if let Some(tail) = self.tail.borrow_mut().take() {
            if !tail.text.is_empty() {
                let sink = &self.builder.sink;
                sink.append_at(
                    tail.parent,
                    NodeOrText::AppendText(StrTendril::from(tail.text)),
                    None,
                    false,
                );
            }
        }
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// What the tokenizer was given and has not read, taken out of `input`:
/// where it begins in `html` (`html[..pos]` was given) and its pieces. The
/// tokenizer stopped at a tag's end, where it holds nothing back: what it
/// has not read is what is left in `input` (the tests and the fuzz
/// targets check it; the callers stay safe without it).
fn unread(input: &BufferQueue, html: &str, pos: usize) -> (usize, Vec<StrTendril>) {
    let mut queued = Vec::new();
    while let Some(t) = input.pop_front() {
        queued.push(t);
    }
    let from = pos.saturating_sub(queued.iter().map(|t| t.len()).sum::<usize>());
    debug_assert!(
        queued
            .iter()
            .scan(from, |at, t| {
                let same = html.get(*at..*at + t.len()) == Some(&**t);
                *at += t.len();
                Some(same)
            })
            .all(|same| same),
        "the input left is the page's text from {from}"
    );
    (from, queued)
}

/// Where skipping unread raw text by the scan gives another tree than the
/// tokenizer reading it (`None`: nowhere): held by a property test and by
/// the extraction fuzz target. With `small`, the budgets are
/// [`Limits::small`], so that the tail is reached.
pub fn skip_differs(html: &str, small: bool) -> Option<String> {
    let limits = if small {
        Limits::small(html.len())
    } else {
        Limits::for_len(html.len())
    };
    let work = Work::unbounded();
    let (a, spent_a) = parse_skipping(html, limits, &work, true);
    let (b, spent_b) = parse_skipping(html, limits, &work, false);
    // Each node's kind, text, attributes, place and sums.
    let shape = |n: &Node| {
        format!(
            "{:?} {:?} {} {} {} {}",
            n.kind, n.attrs, n.parent, n.end, n.text_len, n.junk
        )
    };
    if spent_a != spent_b {
        return Some(format!("spent {spent_a:?}, the tokenizer {spent_b:?}"));
    }
    if a.len() != b.len() {
        return Some(format!("{} nodes, the tokenizer {}", a.len(), b.len()));
    }
    let i = a.iter().zip(&b).position(|(x, y)| shape(x) != shape(y))?;
    Some(format!(
        "node {i}: {}, the tokenizer {}",
        shape(&a[i]),
        shape(&b[i])
    ))
}

/// How much of the page the tokenizer is given at a time: the deadline is
/// looked at between pieces.
const PIECE: usize = 64 * 1024;

/// [`parse`] within the given budgets and, when given, a deadline: the
/// page is fed in pieces and, once the deadline has passed, the rest is
/// not read (`Spent::late`). Returns what it spent.
pub fn parse_with(html: &str, limits: Limits, work: &Work) -> (Vec<Node>, Spent) {
    parse_skipping(html, limits, work, true)
}

/// [`parse_with`], skipping unread raw text by the scan (`skip_raw`) or
/// through the tokenizer (a test holds the two to one tree).
fn parse_skipping(html: &str, limits: Limits, work: &Work, skip_raw: bool) -> (Vec<Node>, Spent) {
    let html = super::guard::bound_attributes(html);
    let opts = TreeBuilderOpts {
        // `<noscript>` is read as markup, as a reader without scripts
        // sees it: some pages carry their whole content there.
        scripting_enabled: false,
        ..TreeBuilderOpts::default()
    };
    let builder = TreeBuilder::new(FlatSink::new(html.len()), opts);
    let tokenizer = Tokenizer::new(
        Filter {
            builder,
            dropped: RefCell::new(Vec::new()),
            limits,
            work: Cell::new(0),
            raw_until: RefCell::new(None),
            mute: Cell::new(false),
            muted_text: Cell::new(false),
            tail: RefCell::new(None),
            tailed: Cell::new(false),
            skip: RefCell::new(None),
            skip_raw,
        },
        TokenizerOpts::default(),
    );
    let input = BufferQueue::default();
    // `html[..pos]` has been given to the tokenizer, and paid for.
    let mut pos = 0;
    let mut late = false;
    // Where the tail reads on, once it has stopped the tokenizer.
    let mut stopped = None;
    'pieces: while pos < html.len() {
        let mut cut = (pos + PIECE).min(html.len());
        while !html.is_char_boundary(cut) {
            cut += 1;
        }
        if !work.spend(cut - pos) {
            late = true;
            break;
        }
        input.push_back(StrTendril::from_slice(&html[pos..cut]));
        pos = cut;
        loop {
            match tokenizer.feed(&input) {
                html5ever::TokenizerResult::Done => break,
                html5ever::TokenizerResult::Script(_) => {
                    // The tail's stop, at a tag, past a budget: the rest
                    // is read without the tokenizer (see `tail`).
                    if tokenizer.sink.tail.borrow().is_some() {
                        let (from, _) = unread(&input, &html, pos);
                        stopped = Some(from);
                        break 'pieces;
                    }
                    // The filter's stop after a script or style sheet
                    // whose text no one reads opened: its text is skipped
                    // by one scan, and the tokenizer goes on at its end
                    // tag. A third of a page's bytes are such text, which
                    // the tokenizer read a character at a time.
                    let skip = tokenizer.sink.skip.borrow_mut().take();
                    if let Some(name) = skip {
                        let (from, queued) = unread(&input, &html, pos);
                        let end = super::tail::raw_text_end(html.as_bytes(), from, &name)
                            .unwrap_or(html.len());
                        if end > from {
                            tokenizer.sink.muted_text();
                        }
                        if end <= pos {
                            // The rest of what was given, from the end tag.
                            let mut skipped = end - from;
                            for mut t in queued {
                                let n = t.len().min(skipped);
                                skipped -= n;
                                if n < t.len() {
                                    // `n` is at most a piece (64 KiB) and
                                    // ends before a `<`: the cut cannot
                                    // fail. Were it to, the tokenizer
                                    // would read the tendril whole.
                                    let n = u32::try_from(n).unwrap_or(u32::MAX);
                                    let cut = t.try_pop_front(n);
                                    debug_assert!(cut.is_ok(), "a cut inside a character");
                                    input.push_back(t);
                                }
                            }
                        } else {
                            if !work.spend(end - pos) {
                                late = true;
                                break 'pieces;
                            }
                            pos = end;
                        }
                    }
                    // Otherwise the builder asks the caller to run a
                    // script: none is run, parsing continues.
                }
                // An encoding result asks to switch decoders: the text is
                // already decoded, by the declared charset only (contract
                // §7), so parsing continues.
                _ => {}
            }
        }
    }
    if let Some(from) = stopped {
        let foreign = tokenizer
            .sink
            .builder
            .adjusted_current_node_present_but_not_in_html_namespace();
        if let Some(tail) = tokenizer.sink.tail.borrow_mut().as_mut() {
            // What the tokenizer was given and did not read is paid for.
            late = !html
                .get(from..)
                .is_some_and(|rest| tail.read(rest, pos - from, foreign, work));
        }
    }
    tokenizer.end();
    let mut spent = tokenizer.sink.spent();
    spent.late = late;
    // The builder's own units count toward the extraction's work (the
    // fuzz target holds their sum to a multiple of the page's length).
    work.spend(usize::try_from(spent.work).unwrap_or(usize::MAX));
    (tokenizer.sink.builder.sink.into_document_order(), spent)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's text nodes, in document order, and whether it tailed.
    fn texts(html: &str, nodes: usize) -> (Vec<String>, bool) {
        let limits = Limits {
            nodes,
            work: u64::MAX,
        };
        let (nodes, spent) = parse_with(html, limits, &Work::unbounded());
        let texts = nodes
            .iter()
            .filter_map(|n| match &n.kind {
                Kind::Text(t) if !t.is_empty() => Some(t.to_string()),
                _ => None,
            })
            .collect();
        (texts, spent.tail)
    }

    /// Pieces of pages around scripts and style sheets.
    const PIECES: &[&str] = &[
        "<script>",
        "<script type=\"application/ld+json\">",
        "<SCRIPT a='>'>",
        "</script>",
        "</script >",
        "</scripts>",
        "<style>",
        "</style>",
        "</STYLE/>",
        "<!--",
        "-->",
        "<!--<script>",
        "</script -->",
        "x",
        "<p>",
        "</p>",
        "<div>",
        "</div>",
        "<table>",
        "<td>",
        "<svg>",
        "</svg>",
        "<title>",
        "</title>",
        "<textarea>",
        "&amp;",
        "\r\n",
        "\0",
        "<",
        "</",
        ">",
        "{\"a\":1}",
        " ",
        "<template>",
        "</template>",
        "<noscript>",
        "<select>",
        "<frameset>",
        "<math>",
        "<iframe>",
        "</iframe>",
        "<head>",
        "</head>",
        "<body>",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        #[test]
        fn skipped_raw_text_makes_the_same_tree(
            parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..48)
        ) {
            let page = parts.concat();
            for small in [false, true] {
                let differs = skip_differs(&page, small);
                proptest::prop_assert!(differs.is_none(), "{:?}", differs);
            }
        }
    }

    #[test]
    fn skipped_raw_text_is_charged_to_the_work_meter() {
        // Skipped without the tokenizer, a long script's text still
        // counts: the meter stops the parse before the text after it.
        let page = format!("<body><script>{}</script>after", "x".repeat(4 * PIECE));
        let work = Work::new(None, None, 2 * PIECE as u64);
        let (nodes, spent) = parse_with(&page, Limits::for_len(page.len()), &work);
        assert!(spent.late);
        assert!(!nodes
            .iter()
            .any(|n| matches!(&n.kind, Kind::Text(t) if t.contains("after"))));
    }

    #[test]
    fn past_the_node_budget_the_rest_is_one_text() {
        let page = format!(
            "<body>{}<script>x</script>y&amp;z<div>w</div><style>s</style>&#65;",
            "<p>a</p>".repeat(20)
        );
        let (texts, tail) = texts(&page, 24);
        assert!(tail);
        // The paragraphs past the budget are lines of the one text.
        let last = texts.last().unwrap();
        assert!(
            last.starts_with("a\na\n") && last.ends_with("a\ny&z\nw\nA"),
            "{last:?}"
        );
        assert_eq!(texts.concat().matches('a').count(), 20, "{texts:?}");
    }

    #[test]
    fn a_budget_run_out_inside_raw_text_skips_it() {
        // The budget runs out at the script's start tag: its text is
        // skipped by the tail, which reads on after its end tag.
        let page = format!(
            "<body>{}<script>x<p>q</p></script>after",
            "<b>a</b>".repeat(8)
        );
        for nodes in 8..20 {
            let (texts, tail) = texts(&page, nodes);
            assert!(tail, "{nodes}");
            let all = texts.concat();
            assert!(
                !all.contains('x') && !all.contains('q'),
                "{nodes}: {texts:?}"
            );
            assert!(all.ends_with("after"), "{nodes}: {texts:?}");
        }
    }

    #[test]
    fn a_budget_run_out_on_text_reads_on_to_the_next_tag() {
        // Text after the last tag the builder took goes to the tail
        // through the tokenizer; the next tag stops it.
        let page = format!("<body>{}long text<i>more</i> end", "<b>a</b>".repeat(8));
        for nodes in 8..20 {
            let (texts, _) = texts(&page, nodes);
            assert!(
                texts.concat().ends_with("long textmore end"),
                "{nodes}: {texts:?}"
            );
        }
    }
}
