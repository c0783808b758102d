//! Reader comments under an article are not the article.
//!
//! A news story or a blog post often carries its readers' comments below
//! it, sometimes ten times its own length: a reader of the story does not
//! want them, and a model that reads them takes a stranger's opinion for
//! the page's. A forum thread or a Q&A page is the other way round: its
//! replies are its content.
//!
//! A **comment region** is an element named for comments (a class or id
//! word `comment`, `comments`, `commentlist`, `comments…`, `disqus…` or
//! WordPress's `respond`; not `commentary`, nor a feature such as
//! `commentOnSelection`; or the word in another language a page names
//! them in, `Kommentare`, `commentaires`, `comentarios`, `reacties`, …,
//! see [`OTHER_TONGUES`]), or one marked up as schema.org `Comment` or
//! `UserComments`. The comment regions inside the chosen root that come
//! after its body (not a field spread through a listing's items) are
//! left out, unless the page says it is a discussion (in its
//! JSON-LD or the path of its URL), its host names a forum, the text
//! outside the comments is too short to be an article (a thread under a
//! one-line question), or it is a post built as the comments are (a
//! forum marks its replies as comments and lays the first post out the
//! same way): then they are the content. A root chosen inside a
//! comment region (the longest text on the page was its comments) climbs
//! out of it first; so does an article's root that is a thread of them
//! (three quarters of its text in comment regions), up to the story
//! above it ([`above_thread`]). Measured: one web-classics page (a blog post under
//! 108 comment cells, 0.06 → 0.31: the story is back; its reference
//! keeps the comments), one WCXB forum page (a story's byline and a
//! fortune line gone, 0.017 down), the 181 news pages unchanged. A
//! page that is not an article (a listing, a thread) does not climb: on
//! three WCXB forum pages a climb took in the forum's navigation.
//!
//! A page that declares a product (JSON-LD or Open Graph) has its
//! customers' **reviews** where a story has comments: a **review
//! region** is an element named for a section of them (a class or id
//! word that starts or ends with `reviews`: `product-reviews`,
//! `customerReviews`; not `previews`, nor a publisher's
//! `editorialReviews`), and such regions after the description are left
//! out on the same terms, and kept under `Reviews` when the host keeps
//! comments. Strangers' opinions are not the product's description, and
//! a page of forty reviews buries it. The plural is the test: a buyer's
//! guide names each product's review in the singular
//! (`bosch-dishwasher-review`), and those are its content. Comment
//! regions on a product's page (its questions and answers) stay.
//! Measured on the WCXB development split: 7 product pages change
//! (4 sites), F1 summed +0.82, product 0.689 → 0.696; one goes down
//! (−0.023, a page whose reference keeps its reviews, where three pages
//! of the same shop's do not). The references of its product pages keep
//! 10% of the text in review-named sections; web-classics and the 181
//! news pages declare no product and do not change.
//!
//! Older pages name no region: the comments are paragraphs like the
//! story's after a **comment mark**, an empty `<a name="comments">` or
//! `<div id="comments">` (see [`after_mark`]). When an article's root
//! names no region, what follows the first mark inside it is left out,
//! on the same terms save the build test (the comments are built like
//! the story by definition). Measured: web-classics' L3S-GN1 news
//! 0.9656 → 0.9694 (eight pages up, a newspaper's comments from 0.18 to
//! 0.96); its CleanEval pages, whose references keep comments, 0.9354 →
//! 0.9328 (four blogs); the WCXB pages and the 181 news pages unchanged.
//!
//! Linear: one pass over the root's subtree, skipping what a region
//! already covers, and a bounded climb.

use super::dom::{Doc, Id};

/// How far up a root climbs to leave a comment region.
const CLIMB: usize = 12;

/// The article text outside the comments (characters) under which the
/// comments are the content.
const MIN_ARTICLE: usize = 500;

/// Whether `word` starts with `prefix`, in any ASCII case.
fn starts_ci(word: &str, prefix: &str) -> bool {
    word.len() >= prefix.len()
        && word.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The word for comments in the other languages pages most often name
/// their sections in, anywhere in a class or id word: German, Danish,
/// Norwegian and Swedish `kommentar` (`Kommentare`, `leserkommentare`,
/// `kommentarer`), French `commentaire`, Spanish and Portuguese
/// `comentario`, Polish, Czech, Slovak, Croatian and Indonesian
/// `komentar` (`komentarze`, `komentare`), Dutch `reactie`
/// (`reacties`). None of them is in an English word, so a compound
/// (`leserkommentare`, `listacomentarios`) names comments too. Not
/// Italian's `commenti`: English pages abbreviate a comment's item so
/// (web-classics 0220, a BBC page of listeners' views, whose root then
/// climbed out of them into the site's navigation: 0.925 → 0.908).
const OTHER_TONGUES: [&[u8]; 5] = [
    b"kommentar",
    b"commentaire",
    b"comentario",
    b"komentar",
    b"reactie",
];

/// Whether `word` holds one of [`OTHER_TONGUES`] in any ASCII case: one
/// pass over its bytes, each stem tried where its first letter is.
fn holds_other_tongue(word: &[u8]) -> bool {
    (0..word.len()).any(|i| {
        let first = word[i] | 0x20;
        OTHER_TONGUES.iter().any(|stem| {
            stem[0] == first
                && word.len() - i >= stem.len()
                && word[i..i + stem.len()].eq_ignore_ascii_case(stem)
        })
    })
}

/// Whether a class or id word names comments (any ASCII case), in
/// English or in another language ([`OTHER_TONGUES`]).
fn names_comments(word: &str) -> bool {
    ["comment", "commentlist", "respond"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
        || starts_ci(word, "comments")
        || starts_ci(word, "disqus")
        // (Each stem is seven letters or more.)
        || (word.len() >= 7 && holds_other_tongue(word.as_bytes()))
}

/// Words that, beside a comment word, name the thing commented on
/// (`comment-article`, `comments-main-story`): not a comment region.
fn names_content(word: &str) -> bool {
    ["article", "story", "main", "content"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
}

/// The words of a class or id value (`comment-list` → `comment`, `list`;
/// `disqus_thread` stays one word).
fn words(value: &str) -> impl Iterator<Item = &str> {
    value.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
}

/// Whether element `id` is a comment region (see the module header).
/// Every element of the page is asked: its attributes are read once,
/// without a copy.
pub fn is_comment_region(doc: &Doc, id: Id) -> bool {
    let n = &doc.nodes[id];
    let named = |v: &str| words(v).any(names_comments) && !words(v).any(names_content);
    n.attrs.iter().any(|(name, value)| match &**name {
        "class" | "id" => named(value),
        "itemtype" => {
            let t = value.trim_end();
            ["/comment", "/usercomments"].iter().any(|s| {
                t.len() >= s.len()
                    && t.as_bytes()[t.len() - s.len()..].eq_ignore_ascii_case(s.as_bytes())
            })
        }
        _ => false,
    })
}

/// Whether a class or id word names a section of reviews (`reviews`,
/// `reviews_tab`, `customerReviews`), any ASCII case: the plural, which
/// a buyer's guide's review of one product (`bosch-dishwasher-review`)
/// is not; nor `previews`.
fn names_reviews(word: &str) -> bool {
    let ends =
        word.len() >= 7 && word.as_bytes()[word.len() - 7..].eq_ignore_ascii_case(b"reviews");
    (starts_ci(word, "reviews") || ends) && !starts_ci(word, "previews")
}

/// Whether element `id` holds customers' reviews: a class or id names a
/// section of them ([`names_reviews`]), and no word of it names an
/// editorial review (a publisher's description of a book is set as
/// `editorialReviews`).
pub fn is_review_region(doc: &Doc, id: Id) -> bool {
    let n = &doc.nodes[id];
    let named =
        |v: &str| words(v).any(names_reviews) && !words(v).any(|w| starts_ci(w, "editorial"));
    n.attrs.iter().any(|(name, value)| match &**name {
        "class" | "id" => named(value),
        _ => false,
    })
}

/// The value of the attribute by which element `id` marks where comments
/// start without holding them: an element without text whose `id` (or,
/// on `<a>`, `name`) starts with a word that names comments, as in
/// `<a name="comments"></a>` or an empty `<div id="comments">` that a
/// script fills. Older pages set their comments as plain paragraphs
/// after such a mark, built like the story's own.
fn comment_mark(doc: &Doc, id: Id) -> Option<&str> {
    let n = &doc.nodes[id];
    let tag = n.tag()?;
    if n.text_len > 0 {
        return None;
    }
    n.attrs.iter().find_map(|(name, value)| {
        let named = &**name == "id" || (&**name == "name" && tag == "a");
        // The name starts with the comment word: a heading's anchor
        // named from its words (`scraping-comments`) marks a section.
        let mut w = words(value);
        let first = w.next().is_some_and(names_comments);
        (named && first && !w.any(names_content)).then_some(&**value)
    })
}

/// When `root` holds a comment mark (see [`comment_mark`]) after at least
/// [`MIN_ARTICLE`] characters of text, what follows the first such mark
/// inside `root`, as the outermost subtrees after it in document order
/// (its later siblings, then its parent's, up to `root`'s children).
///
/// Nothing when the same mark comes again later in `root`: a name meant
/// to be the page's one is then a post's template repeated, an archive
/// page of several posts each followed by its own comments (marks that
/// differ, `comment-4155` then `comment-4144`, mark each comment of one
/// thread).
///
/// Linear: one pass over `root`'s subtree, then each subtree after the
/// mark is listed once.
pub fn after_mark(doc: &Doc, root: Id) -> Vec<Id> {
    let end = doc.end(root);
    let (mut id, mut text) = (root + 1, 0usize);
    let mut mark: Option<(Id, &str)> = None;
    while id < end {
        let n = &doc.nodes[id];
        if n.junk {
            id = doc.end(id);
            continue;
        }
        if n.tag().is_none() {
            text += n.text_len;
        } else if let Some(value) = comment_mark(doc, id) {
            match mark {
                Some((_, first)) if first.eq_ignore_ascii_case(value) => return Vec::new(),
                None if text >= MIN_ARTICLE => mark = Some((id, value)),
                _ => {}
            }
        }
        id += 1;
    }
    let Some((mark, _)) = mark else {
        return Vec::new();
    };
    let mut after = Vec::new();
    let mut at = mark;
    while at != root {
        let Some(parent) = doc.parent(at) else { break };
        let mut c = doc.end(at);
        while c < doc.end(parent) {
            after.push(c);
            c = doc.end(c);
        }
        at = parent;
    }
    after
}

/// Whether the regions come after the body of `root`, as comments under
/// an article do: less text lies outside them after the first one than
/// before it (a listing's `Comments:` field on every item is spread
/// through the items).
pub fn after_the_body(doc: &Doc, root: Id, regions: &[Id]) -> bool {
    let Some(&first) = regions.first() else {
        return false;
    };
    let (mut before, mut after) = (0usize, 0usize);
    let mut next = regions.iter().copied().peekable();
    let mut id = root + 1;
    let end = doc.end(root);
    while id < end {
        if next.peek() == Some(&id) {
            next.next();
            id = doc.end(id);
            continue;
        }
        let n = &doc.nodes[id];
        if n.junk {
            id = doc.end(id);
            continue;
        }
        if n.tag().is_none() {
            if id < first {
                before += n.text_len;
            } else {
                after += n.text_len;
            }
        }
        id += 1;
    }
    after < before
}

/// `root`, or, when it lies in a comment region (at most [`CLIMB`]
/// levels up), the parent of the outermost such region.
pub fn outside(doc: &Doc, root: Id) -> Id {
    let mut out = root;
    let mut at = Some(root);
    for _ in 0..CLIMB {
        let Some(id) = at else { break };
        if id == doc.body() {
            break;
        }
        if is_comment_region(doc, id) {
            if let Some(p) = doc.parent(id) {
                out = p;
            }
        }
        at = doc.parent(id);
    }
    out
}

/// `root`, or, when it is a thread of comments (their text is at least
/// [`THREAD_SHARE`] percent of its own), its nearest ancestor (at most [`CLIMB`] levels up)
/// that holds an article's worth of text outside the comments: the story
/// above a thread longer than itself. `root` when no ancestor does.
pub fn above_thread(doc: &Doc, root: Id) -> Id {
    let outside = |id: Id| {
        let all = doc.nodes[id].text_len;
        let comments: usize = regions(doc, id)
            .iter()
            .map(|&r| doc.nodes[r].text_len)
            .sum();
        (all, all.saturating_sub(comments))
    };
    let (all, own) = outside(root);
    if all == 0 || (all - own) * 100 < all * THREAD_SHARE {
        return root;
    }
    let mut at = root;
    for _ in 0..CLIMB {
        let Some(p) = doc.parent(at).filter(|_| at != doc.body()) else {
            break;
        };
        if outside(p).1 >= own + MIN_ARTICLE {
            return p;
        }
        at = p;
    }
    root
}

/// The share of a root's text (percent) its comments hold at least when
/// the root is a thread of them ([`above_thread`]).
const THREAD_SHARE: usize = 75;

/// Which elements are regions: [`is_comment_region`] for readers'
/// comments, [`is_review_region`] for a product's reviews.
pub type IsRegion = fn(&Doc, Id) -> bool;

/// The outermost comment regions inside `root` (not `root` itself), in
/// document order.
pub fn regions(doc: &Doc, root: Id) -> Vec<Id> {
    regions_of(doc, root, is_comment_region)
}

/// The outermost regions of the kind `is_region` finds inside `root`
/// (not `root` itself), in document order.
pub fn regions_of(doc: &Doc, root: Id, is_region: IsRegion) -> Vec<Id> {
    outermost(doc, root + 1, doc.end(root), is_region)
}

/// The outermost regions of the kind `is_region` finds in the page's
/// body after `root` (where a story's comments sit when the story alone
/// was chosen), in document order.
pub fn regions_after(doc: &Doc, root: Id, is_region: IsRegion) -> Vec<Id> {
    let body = doc.body();
    outermost(doc, doc.end(root).max(body + 1), doc.end(body), is_region)
}

/// The outermost regions (comment or review regions, as `is_region`
/// says) with text among the nodes `from..end`, in one pass: a region
/// found, or a junk subtree, is stepped over whole.
fn outermost(doc: &Doc, from: Id, end: Id, is_region: IsRegion) -> Vec<Id> {
    let mut found = Vec::new();
    let mut id = from;
    while id < end {
        let n = &doc.nodes[id];
        if n.junk {
            id = doc.end(id);
            continue;
        }
        if is_region(doc, id) && n.text_len > 0 {
            found.push(id);
            id = doc.end(id);
            continue;
        }
        id += 1;
    }
    found
}

/// Whether the comments are the content of `root`: the text outside them
/// is too short to be an article (a question, a one-line post).
pub fn are_the_content(doc: &Doc, root: Id, regions: &[Id]) -> bool {
    let all = doc.nodes[root].text_len;
    let comments: usize = regions.iter().map(|&r| doc.nodes[r].text_len).sum();
    all.saturating_sub(comments) < MIN_ARTICLE
}

/// The shortest text (characters) of an element outside the comments
/// that counts as a post built like them.
const POST_TEXT: usize = 100;

/// Whether the text outside the comments is a post built as they are: an
/// element outside every region, with text of its own, whose tag and class
/// are those of a region (a forum marks every reply as a schema.org
/// `Comment` and lays the opening post out the same way; a story's body is
/// built apart from its comments).
pub fn posts_alike(doc: &Doc, root: Id, regions: &[Id]) -> bool {
    let look = |id: Id| {
        let n = &doc.nodes[id];
        (n.tag().unwrap_or(""), n.attr("class").unwrap_or(""))
    };
    let looks: Vec<(&str, &str)> = regions.iter().map(|&r| look(r)).collect();
    let mut next = regions.iter().copied().peekable();
    let mut id = root + 1;
    let end = doc.end(root);
    while id < end {
        if next.peek() == Some(&id) {
            next.next();
            id = doc.end(id);
            continue;
        }
        let n = &doc.nodes[id];
        if n.junk {
            id = doc.end(id);
            continue;
        }
        if n.tag().is_some() && n.text_len >= POST_TEXT && looks.contains(&look(id)) {
            return true;
        }
        id += 1;
    }
    false
}

/// Words of a host name that say the site is a forum (`forum.example`,
/// `examplecommunity.org`, `answers.example.com`): its pages are threads,
/// whatever a page model makes of one.
const FORUM_HOSTS: &[&str] = &["forum", "community", "discuss", "answers", "boards", "bbs"];

/// Whether the page's host says it is a forum (see [`FORUM_HOSTS`]).
pub fn forum_host(url: &url::Url) -> bool {
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    host.split('.')
        .rev()
        .skip(1)
        .any(|label| FORUM_HOSTS.iter().any(|w| label.contains(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_names_comments() {
        let doc = Doc::parse(
            "<div id=a class='comment-list'>x</div><div id=b class=commentsContainer>x</div>\
             <div id=c class=commentary>x</div><div id=d class=commentOnSelection>x</div>\
             <section id=comments>x</section><div id=f class=disqus_thread>x</div>\
             <div id=g itemtype='https://schema.org/Comment'>x</div><div id=h class=respond>x</div>\
             <div id=i class=comments-body>x</div><div id=j class=comment-article>x</div>\
             <div id=k class=Kommentare>x</div><div id=l class='box leserKommentare'>x</div>\
             <div id=m class=kommentarer>x</div><div id=n class=commentaires>x</div>\
             <div id=o class=lista-comentarios>x</div><div id=p class=komentarze>x</div>\
             <div id=q class=reacties>x</div><div id=r class=commenti>x</div>\
             <div id=s class=icon-commenting>x</div><div id=t class=interactie>x</div>",
        );
        for (id, want) in [
            ("a", true),
            ("b", true),
            ("c", false),
            ("d", false),
            ("comments", true),
            ("f", true),
            ("g", true),
            ("h", true),
            ("i", true),
            ("j", false),
            ("k", true),
            ("l", true),
            ("m", true),
            ("n", true),
            ("o", true),
            ("p", true),
            ("q", true),
            ("r", false),
            ("s", false),
            ("t", false),
        ] {
            assert_eq!(is_comment_region(&doc, doc.with_id(id)), want, "{id}");
        }
    }

    /// Customers' reviews by their names (plural: a section of them); not
    /// one product's editorial review in a buyer's guide
    /// (`bosch-dishwasher-review`), a preview, or a publisher's
    /// description (`editorialReviews`).
    #[test]
    fn what_names_reviews() {
        let doc = Doc::parse(
            "<div id=a class='product-reviews'>x</div><div id=b class=pipf-seo-reviews>x</div>\
             <div id=customerReviews>x</div><div id=d class=reviews_tab>x</div>\
             <div id=bosch-dishwasher-review>x</div><div id=f class=previews>x</div>\
             <div id=editorialReviews>x</div><div id=h class='editorial reviews'>x</div>\
             <div id=i class=overview>x</div>",
        );
        for (id, want) in [
            ("a", true),
            ("b", true),
            ("customerReviews", true),
            ("d", true),
            ("bosch-dishwasher-review", false),
            ("f", false),
            ("editorialReviews", false),
            ("h", false),
            ("i", false),
        ] {
            assert_eq!(is_review_region(&doc, doc.with_id(id)), want, "{id}");
        }
    }

    #[test]
    fn a_first_post_built_like_the_replies_makes_a_thread() {
        let post = "A post with enough words in it to be a post of the thread. ".repeat(3);
        let thread = Doc::parse(&format!(
            "<div id=t><div class=post><p>{post}</p></div>\
             <div class=post itemtype='https://schema.org/Comment'><p>{post}</p></div>\
             <div class=post itemtype='https://schema.org/Comment'><p>{post}</p></div></div>"
        ));
        let t = thread.with_id("t");
        let found = regions(&thread, t);
        assert_eq!(found.len(), 2);
        assert!(posts_alike(&thread, t, &found));
        let story = Doc::parse(&format!(
            "<div id=t><div class=story><p>{post}</p></div>\
             <div class=post itemtype='https://schema.org/Comment'><p>{post}</p></div></div>"
        ));
        let t = story.with_id("t");
        assert!(!posts_alike(&story, t, &regions(&story, t)));
    }

    #[test]
    fn comments_come_after_the_body() {
        let story = Doc::parse(
            "<div id=t><p>The story, at some length.</p><div class=comments><p>Nice.</p></div>\
             <p>Footer</p></div>",
        );
        let t = story.with_id("t");
        assert!(after_the_body(&story, t, &regions(&story, t)));
        let listing = Doc::parse(
            "<div id=t><p>Paper one</p><p class=list-comments>Comments: 10 pages</p>\
             <p>Paper two, a longer title</p><p class=list-comments>Comments: 4 figures</p></div>",
        );
        let t = listing.with_id("t");
        assert!(!after_the_body(&listing, t, &regions(&listing, t)));
    }

    #[test]
    fn forum_hosts() {
        for (u, forum) in [
            ("https://www.warriorforum.com/a/1-b.html", true),
            ("https://community.example.org/t/1", true),
            ("https://answers.example.com/q", true),
            ("https://news.example.com/forum-of-ideas", false),
            ("https://example.com/", false),
        ] {
            assert_eq!(forum_host(&url::Url::parse(u).unwrap()), forum, "{u}");
        }
    }

    #[test]
    fn a_root_inside_the_comments_climbs_out() {
        let doc = Doc::parse(
            "<div id=page><article id=story><p>Story.</p></article>\
             <div class=comments id=c><div id=list><p id=one>First!</p></div></div></div>",
        );
        assert_eq!(outside(&doc, doc.with_id("one")), doc.with_id("page"));
        assert_eq!(outside(&doc, doc.with_id("story")), doc.with_id("story"));
        assert_eq!(regions(&doc, doc.with_id("page")), vec![doc.with_id("c")]);
    }

    #[test]
    fn comments_that_are_most_of_a_short_post_are_its_content() {
        let long = "A reply with something to say about the question above. ".repeat(20);
        let thread = Doc::parse(&format!(
            "<div id=t><p>Help?</p><div class=comments id=c><p>{long}</p></div></div>"
        ));
        let t = thread.with_id("t");
        assert!(are_the_content(&thread, t, &regions(&thread, t)));
        // However long the comments, an article of its own length stays
        // the article.
        let story = "The story itself, told at length, with facts and quotes. ".repeat(10);
        let article = Doc::parse(&format!(
            "<div id=t><p>{story}</p><div class=comments id=c><p>{long}{long}{long}</p></div></div>"
        ));
        let t = article.with_id("t");
        assert!(!are_the_content(&article, t, &regions(&article, t)));
    }

    #[test]
    fn a_thread_longer_than_its_story_climbs_to_the_story() {
        let story = "<p>The story, told at length in words of its own. </p>".repeat(14);
        let reply = "<p class=from>From: a reader</p>\
                     <p class=comment>A reply of some length, longer than the line that names its writer.</p>";
        let thread = reply.repeat(40);
        let page = Doc::parse(&format!(
            "<div id=page><div id=story>{story}</div><div id=thread>{thread}</div></div>"
        ));
        let thread = page.with_id("thread");
        assert_eq!(above_thread(&page, thread), page.with_id("page"));
        // The story's own root stays, as does a thread with no story
        // above it (a forum's page, a thread alone).
        assert_eq!(
            above_thread(&page, page.with_id("story")),
            page.with_id("story")
        );
        let alone = Doc::parse(&format!(
            "<div id=page><p>Replies</p><div id=thread>{}</div></div>",
            reply.repeat(40)
        ));
        let thread = alone.with_id("thread");
        assert_eq!(above_thread(&alone, thread), thread);
    }
}
