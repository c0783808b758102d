//! html5ever's tree builder feeding the flat view directly.
//!
//! Why not markup5ever_rcdom: a reference-counted tree per node, then a
//! copy into the flat view, held the page twice (a million sibling
//! elements peaked near 800 MB). Here the tree builder's callbacks write
//! [`Node`]s into one vector; nodes the builder moves (foster parenting,
//! the adoption agency) are moved by index, and one pass at the end puts
//! the vector in document order, in place.
//!
//! Why a depth cap: html5ever's tree builder scans its stack of open
//! elements on many start tags, so a page nested N levels deep costs N²
//! (100,000 levels: minutes). Browsers cap the tree's depth (Chromium at
//! 512); here a start tag that would open an element deeper than
//! [`MAX_DEPTH`] is dropped, with its matching end tag, before the tree
//! builder sees it — its text and children still arrive, one level up.
//! The builder's stack then stays short and parsing stays linear.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{local_name, Attribute, ExpandedName, LocalName, Namespace, QualName};

use super::dom::{Id, Kind, Node};

/// The deepest element the tree keeps.
pub const MAX_DEPTH: usize = 512;

/// How far back a dropped start tag is looked for when an end tag comes:
/// bounded, so that end tags cannot make the search quadratic.
const DROPPED_LOOKBACK: usize = 64;

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

/// The sink: nodes in creation order until [`FlatSink::into_document_order`].
pub struct FlatSink {
    nodes: RefCell<Vec<Node>>,
    /// Per node: its depth when it was appended.
    depth: RefCell<Vec<u32>>,
    /// Template contents, by template element.
    templates: RefCell<Vec<(Id, Id)>>,
    /// MathML annotation-xml integration points (rare).
    integration: RefCell<Vec<Id>>,
    /// The element the builder inserts into next (best estimate).
    current: Cell<Id>,
}

/// The attributes extraction reads; the rest (event handlers, `data-*`,
/// `srcset`, inline JSON) are dropped as the element is made, which saves
/// keeping and freeing them.
fn kept_attribute(name: &LocalName) -> bool {
    matches!(
        &**name,
        "class"
            | "id"
            | "href"
            | "src"
            | "alt"
            | "start"
            | "itemprop"
            | "hidden"
            | "aria-hidden"
            | "style"
    )
}

fn text_node(t: StrTendril) -> Node {
    Node::new(Kind::Text(t), Vec::new())
}

impl FlatSink {
    /// A sink for a page of `len` bytes: real pages run at about one node
    /// per 40 bytes, so the node list is sized once instead of regrown
    /// (and its large entries copied) a dozen times.
    fn new(len: usize) -> Self {
        let cap = (len / 40).clamp(16, 1 << 20);
        let mut nodes = Vec::with_capacity(cap);
        nodes.push(Node::new(Kind::Other, Vec::new()));
        let mut depth = Vec::with_capacity(cap);
        depth.push(0);
        FlatSink {
            nodes: RefCell::new(nodes),
            depth: RefCell::new(depth),
            templates: RefCell::new(Vec::new()),
            integration: RefCell::new(Vec::new()),
            current: Cell::new(0),
        }
    }

    fn push(&self, node: Node) -> Id {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(node);
        self.depth.borrow_mut().push(0);
        nodes.len() - 1
    }

    /// The depth of the element the next start tag would open under.
    fn current_depth(&self) -> usize {
        self.depth.borrow()[self.current.get()] as usize
    }

    fn detach(&self, child: Id) {
        let mut nodes = self.nodes.borrow_mut();
        if let Some(p) = nodes[child].parent.take() {
            let kids = &mut nodes[p].children;
            if let Some(i) = kids.iter().rposition(|&k| k == child) {
                kids.remove(i);
            }
        }
    }

    fn set_depth(&self, node: Id, parent: Id) {
        let mut d = self.depth.borrow_mut();
        d[node] = d[parent].saturating_add(1);
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
                {
                    let mut nodes = self.nodes.borrow_mut();
                    let kids = &nodes[parent].children;
                    let pos = match before {
                        Some(b) => kids.iter().position(|&k| k == b).unwrap_or(kids.len()),
                        None => kids.len(),
                    };
                    let prev = pos.checked_sub(1).map(|i| kids[i]);
                    if let Some(prev) = prev {
                        if let Kind::Text(s) = &mut nodes[prev].kind {
                            s.push_tendril(&t);
                            return;
                        }
                    }
                }
                self.push(text_node(t))
            }
            NodeOrText::AppendNode(n) => {
                self.detach(n.id);
                n.id
            }
        };
        let is_element = {
            let mut nodes = self.nodes.borrow_mut();
            nodes[id].parent = Some(parent);
            let kids = &mut nodes[parent].children;
            match before.and_then(|b| kids.iter().position(|&k| k == b)) {
                Some(i) => kids.insert(i, id),
                None => kids.push(id),
            }
            matches!(nodes[id].kind, Kind::Element(_))
        };
        self.set_depth(id, parent);
        if is_element && inserting {
            // Elements are pushed on the builder's stack as they are
            // inserted: this is where the next start tag goes.
            self.current.set(id);
        }
    }

    /// Puts the nodes reachable from the document in document order (every
    /// child after its parent, siblings in order), in place; drops the rest
    /// (template contents, removed nodes).
    fn into_document_order(self) -> Vec<Node> {
        let mut nodes = self.nodes.into_inner();
        let n = nodes.len();
        let mut new_id = vec![usize::MAX; n];
        let mut next = 0;
        let mut stack = vec![(0usize, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            if new_id[id] != usize::MAX {
                continue; // a node listed twice (cannot happen; be safe)
            }
            new_id[id] = next;
            next += 1;
            if depth == MAX_DEPTH {
                flatten_below(&mut nodes, id);
            }
            stack.extend(nodes[id].children.iter().rev().map(|&c| (c, depth + 1)));
        }
        let reachable = next;
        for slot in new_id.iter_mut() {
            if *slot == usize::MAX {
                *slot = next;
                next += 1;
            }
        }
        // The builder makes nodes in document order unless it moved some
        // (foster parenting, misnested formatting): usually nothing to do.
        if new_id.iter().enumerate().all(|(i, &j)| i == j) {
            nodes.truncate(reachable);
            return nodes;
        }
        for node in nodes.iter_mut() {
            node.parent = node.parent.map(|p| new_id[p]);
            for c in node.children.iter_mut() {
                *c = new_id[*c];
            }
        }
        // Apply the permutation in place: follow each cycle with swaps.
        let mut target = new_id;
        for i in 0..n {
            while target[i] != i {
                let j = target[i];
                nodes.swap(i, j);
                target.swap(i, j);
            }
        }
        nodes.truncate(reachable);
        nodes
    }
}

/// Unwraps every element below `top`, a node at the deepest level the
/// tree keeps: its leaves (text, childless elements) become `top`'s
/// children, in document order, and the elements between are left
/// unreachable. The start-tag filter keeps most pages within the cap, but
/// the adoption agency moves whole subtrees under deeper parents (a fuzzer
/// found misnested formatting tags reaching depth 649); this pass makes
/// the cap hold for every tree the walks see, the way a dropped start tag
/// does: the text stays, one level up.
fn flatten_below(nodes: &mut [Node], top: Id) {
    if nodes[top]
        .children
        .iter()
        .all(|&c| nodes[c].children.is_empty())
    {
        return;
    }
    let mut leaves = Vec::new();
    let mut stack: Vec<Id> = std::mem::take(&mut nodes[top].children);
    stack.reverse();
    while let Some(id) = stack.pop() {
        let kids = std::mem::take(&mut nodes[id].children);
        if kids.is_empty() {
            nodes[id].parent = Some(top);
            leaves.push(id);
        } else {
            nodes[id].parent = None;
            stack.extend(kids.iter().rev());
        }
    }
    nodes[top].children = leaves;
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
        let attrs = attrs
            .into_iter()
            .filter(|a| kept_attribute(&a.name.local))
            .map(|a| (a.name.local, a.value))
            .collect();
        let id = self.push(Node::new(Kind::Element(name.local.clone()), attrs));
        if flags.template {
            let contents = self.push(Node::new(Kind::Other, Vec::new()));
            self.templates.borrow_mut().push((id, contents));
        }
        if flags.mathml_annotation_xml_integration_point {
            self.integration.borrow_mut().push(id);
        }
        Handle {
            id,
            ns: name.ns,
            local: name.local,
        }
    }

    fn create_comment(&self, _text: StrTendril) -> Handle {
        Handle::other(self.push(Node::new(Kind::Other, Vec::new())))
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> Handle {
        Handle::other(self.push(Node::new(Kind::Other, Vec::new())))
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        self.append_at(parent.id, child, None, true);
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev: &Handle,
        child: NodeOrText<Handle>,
    ) {
        if self.nodes.borrow()[element.id].parent.is_some() {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn pop(&self, node: &Handle) {
        // The builder popped `node`: it inserts into its parent next.
        let parent = self.nodes.borrow()[node.id].parent.unwrap_or(0);
        self.current.set(parent);
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        let contents = self
            .templates
            .borrow()
            .iter()
            .rev()
            .find(|(t, _)| *t == target.id)
            .map(|&(_, c)| c)
            // The builder asks only about templates it created.
            .unwrap_or(0);
        Handle::other(contents)
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        x.id == y.id
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        let Some(parent) = self.nodes.borrow()[sibling.id].parent else {
            return;
        };
        self.append_at(parent, new_node, Some(sibling.id), true);
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        let mut nodes = self.nodes.borrow_mut();
        let node = &mut nodes[target.id];
        for a in attrs {
            if kept_attribute(&a.name.local) && node.attr(&a.name.local).is_none() {
                node.attrs.push((a.name.local, a.value));
            }
        }
        node.refresh_class_id();
    }

    fn remove_from_parent(&self, target: &Handle) {
        self.detach(target.id);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        let kids = std::mem::take(&mut self.nodes.borrow_mut()[node.id].children);
        for k in kids {
            self.nodes.borrow_mut()[k].parent = None;
            // Only the index is read when a node is appended.
            self.append_at(
                new_parent.id,
                NodeOrText::AppendNode(Handle::other(k)),
                None,
                false,
            );
        }
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Handle) -> bool {
        self.integration.borrow().contains(&handle.id)
    }
}

/// Sits between the tokenizer and the tree builder and drops start tags
/// (and their end tags) that would open elements past [`MAX_DEPTH`].
struct DepthCap {
    builder: TreeBuilder<Handle, FlatSink>,
    dropped: RefCell<Vec<LocalName>>,
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

impl TokenSink for DepthCap {
    type Handle = Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Handle> {
        if let Token::TagToken(tag) = &token {
            match tag.kind {
                TagKind::StartTag
                    if !is_void(&tag.name) && self.builder.sink.current_depth() >= MAX_DEPTH =>
                {
                    self.dropped.borrow_mut().push(tag.name.clone());
                    return TokenSinkResult::Continue;
                }
                TagKind::EndTag => {
                    let mut dropped = self.dropped.borrow_mut();
                    let from = dropped.len().saturating_sub(DROPPED_LOOKBACK);
                    if let Some(i) = dropped[from..].iter().rposition(|n| *n == tag.name) {
                        dropped.remove(from + i);
                        return TokenSinkResult::Continue;
                    }
                }
                TagKind::StartTag => {}
            }
        }
        self.builder.process_token(token, line_number)
    }

    fn end(&self) {
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// Parses `html` into flat nodes in document order (node 0 the document).
pub fn parse(html: &str) -> Vec<Node> {
    let builder = TreeBuilder::new(FlatSink::new(html.len()), TreeBuilderOpts::default());
    let tokenizer = Tokenizer::new(
        DepthCap {
            builder,
            dropped: RefCell::new(Vec::new()),
        },
        TokenizerOpts::default(),
    );
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    // A script result asks the caller to run a script, an encoding result
    // to switch decoders (the text is already decoded, by the declared
    // charset only, contract §7): neither applies, so parsing continues.
    while !matches!(tokenizer.feed(&input), html5ever::TokenizerResult::Done) {}
    tokenizer.end();
    tokenizer.sink.builder.sink.into_document_order()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(name: &str) -> Node {
        Node::new(Kind::Element(LocalName::from(name)), Vec::new())
    }

    fn text(t: &str) -> Node {
        Node::new(Kind::Text(StrTendril::from_slice(t)), Vec::new())
    }

    /// Links `children` under `parent`, in order.
    fn link(nodes: &mut [Node], parent: Id, children: &[Id]) {
        for &c in children {
            nodes[c].parent = Some(parent);
        }
        nodes[parent].children = children.to_vec();
    }

    #[test]
    fn flattening_keeps_every_leaf_in_order_one_level_below() {
        // 0 top: [1 "a", 2 b: [3 i: [4 "b", 5 br], 6 "c"], 7 "d"]
        let mut nodes = vec![
            element("div"),
            text("a"),
            element("b"),
            element("i"),
            text("b"),
            element("br"),
            text("c"),
            text("d"),
        ];
        link(&mut nodes, 0, &[1, 2, 7]);
        link(&mut nodes, 2, &[3, 6]);
        link(&mut nodes, 3, &[4, 5]);
        flatten_below(&mut nodes, 0);
        assert_eq!(nodes[0].children, [1, 4, 5, 6, 7]);
        for &leaf in &nodes[0].children {
            assert_eq!(nodes[leaf].parent, Some(0));
        }
        // The unwrapped elements hang nowhere (dropped as unreachable).
        for gone in [2, 3] {
            assert_eq!(nodes[gone].parent, None);
            assert!(nodes[gone].children.is_empty());
        }
    }
}
