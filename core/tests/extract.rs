//! Extraction on hostile and pathological pages: deep nesting, a million
//! siblings, one huge text node, arbitrary bytes; script and style text
//! never reaches the output; every rendering rule on a small fixture.

use proptest::prelude::*;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use url::Url;

use webgate::extract::{extract, Cut, Options, Style};
use webgate::messages::Extraction;
use webgate::policy::{Comments, Links};

fn base() -> Url {
    Url::parse("https://a.example/dir/page").unwrap()
}

/// The text of `html` at `base` as `web_fetch` renders it, and how it was
/// made (the one entry point, [`extract`], with default options).
fn render_as(html: &str, base: &url::Url, raw: bool, style: Style) -> (String, Extraction) {
    let page = extract(html, base, &Options::new(raw, style));
    (page.text, page.extraction)
}

fn md(html: &str, raw: bool) -> String {
    render_as(html, &base(), raw, Style::Markdown).0
}

/// No walk of ours recurses, and the tree builder's depth is capped: a
/// page nested 100,000 levels deep renders on a small stack, its text in
/// order, and the tree it builds is at most `MAX_DEPTH` deep (so the
/// builder's stack scans stay short and parsing stays linear).
#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 100_000;
    let html = format!(
        "<p>start</p>{}<p>deep text here</p>{}<p>end</p>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    assert!(
        webgate::internals::fuzzing::tree_depth(&html)
            <= webgate::internals::fuzzing::MAX_TREE_DEPTH + 4
    );
    // Run on a thread with a small stack: any recursion proportional to
    // depth would overflow it.
    let t = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || md(&html, true))
        .unwrap();
    assert_eq!(t.join().unwrap(), "start\n\ndeep text here\n\nend");
    for html in [
        format!(
            "{}x{}",
            "<b><i>".repeat(depth / 2),
            "</i></b>".repeat(depth / 2)
        ),
        format!("{}x", "<span>".repeat(depth)),
        format!("{}x", "<table><tr><td>".repeat(depth / 3)),
        format!("{}x", "<ul><li>".repeat(depth / 2)),
    ] {
        assert!(
            webgate::internals::fuzzing::tree_depth(&html)
                <= webgate::internals::fuzzing::MAX_TREE_DEPTH + 4
        );
        let t = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || md(&html, true))
            .unwrap();
        assert!(t.join().unwrap().contains('x'));
    }
}

/// Below the cap, nothing is flattened: 400 levels keep their structure.
#[test]
fn ordinary_depth_is_untouched() {
    let html = format!(
        "{}<blockquote>q</blockquote>{}",
        "<div>".repeat(400),
        "</div>".repeat(400)
    );
    assert!(webgate::internals::fuzzing::tree_depth(&html) > 400);
    assert_eq!(md(&html, true), "> q");
}

/// Every fixture of `vectors/rendering/`: the page and its expected
/// renderings, letter for letter. With `WEBGATE_BLESS` set, the expected
/// files are rewritten from what the code renders now (review the diff).
#[test]
fn rendering_fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/rendering");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("vectors/rendering")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut checked = 0;
    for name in &names {
        let Some(stem) = name.strip_suffix(".html") else {
            let stem = name.split('.').next().unwrap();
            assert!(
                name == "README.md" || names.contains(&format!("{stem}.html")),
                "{name} has no {stem}.html"
            );
            continue;
        };
        let html = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(
            names.contains(&format!("{stem}.md")),
            "{name} has no {stem}.md"
        );
        for (suffix, raw, style) in [
            ("md", true, Style::Markdown),
            ("txt", true, Style::Plain),
            ("readability.md", false, Style::Markdown),
            ("readability.txt", false, Style::Plain),
        ] {
            let Ok(want) = std::fs::read_to_string(dir.join(format!("{stem}.{suffix}"))) else {
                continue;
            };
            let got = render_as(&html, &base(), raw, style).0;
            if std::env::var_os("WEBGATE_BLESS").is_some() {
                std::fs::write(dir.join(format!("{stem}.{suffix}")), format!("{got}\n")).unwrap();
                continue;
            }
            assert_eq!(format!("{got}\n"), want, "{stem}.{suffix}");
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} fixtures checked");
}

#[test]
fn many_siblings() {
    let html = format!("<body>{}</body>", "<span>a</span>".repeat(200_000));
    let (text, _) = render_as(&html, &base(), true, Style::Plain);
    assert_eq!(text.len(), 200_000);
}

#[test]
fn one_huge_text_node() {
    let html = format!("<p>{}</p>", "word ".repeat(8 << 20 >> 3));
    let (text, _) = render_as(&html, &base(), false, Style::Plain);
    assert_eq!(text.len(), (8 << 20 >> 3) * 5 - 1);
}

#[test]
fn rendering_rules() {
    let cases: &[(&str, &str)] = &[
        ("<h2>Title <em>x</em></h2><p>para</p>", "## Title *x*\n\npara"),
        ("<p>a <strong>b</strong> <code>c()</code> <b>d</b> <i>e</i></p>", "a **b** `c()` **d** *e*"),
        ("<pre>  fn x() {\n    y\n  }</pre>", "```\n  fn x() {\n    y\n  }\n```"),
        ("<pre>a ``` b</pre>", "````\na ``` b\n````"),
        ("<ol start=3><li>x</li><li>y<ul><li>z</li></ul></li></ol>", "3. x\n4. y\n   - z"),
        ("<blockquote><p>q1</p><p>q2</p></blockquote>", "> q1\n>\n> q2"),
        ("<a href='/x?y#z'>link</a> <a href='javascript:alert(1)'>js</a>", "[link](https://a.example/x?y#z) js"),
        ("<img src='i.png' alt='alt text'><img src='j.png'>", "![alt text](https://a.example/dir/i.png)"),
        ("<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2|3</td></tr></table>", "| A | B |\n| --- | --- |\n| 1 | 2\\|3 |"),
        ("<p>line<br>break</p><hr><p>after</p>", "line\nbreak\n\n---\n\nafter"),
        ("<p>a&amp;b &lt;c&gt; &eacute;</p>", "a&b <c> é"),
        ("<p>  spaced \n\n  out  </p>\n\n\n<p>next</p>", "spaced out\n\nnext"),
        // Inline elements that touch: apart when each side is a word.
        ("<p><span>2026</span><span>1h 54m</span><span>R</span></p>", "2026 1h 54mR"),
        ("<p><a href='/a'>Home</a><a href='/b'>About</a></p>", "[Home](https://a.example/a) [About](https://a.example/b)"),
        ("<p><span>Size</span><!-- --><span>XL</span> <span>12</span><span>.99</span></p>", "Size XL 12.99"),
        ("<h2><span>H</span><span>i</span></h2><p><b>W</b>ord</p>", "## Hi\n\n**W**ord"),
        ("<pre><span>ab</span><span>cd</span></pre>", "```\nabcd\n```"),
        // Code right after code is two spans, set apart (run together,
        // the two backticks between them open a longer code span).
        ("<p>Press <kbd>Ctrl</kbd>+<kbd>F</kbd><kbd>TAB</kbd>: <code>U+00DF</code><code>0x C3 9F</code></p>", "Press `Ctrl`+`F` `TAB`: `U+00DF` `0x C3 9F`"),
        // The same emphasis right after itself is one run.
        ("<p><b>F</b><b>O</b> and <b>a</b> <b>b</b> and <i>x</i><i>y</i></p>", "**FO** and **a** **b** and *xy*"),
        // Space and breaks at an inline element's edges are the
        // sentence's: a bold space, a label's line break, a link's.
        ("<p>a link for<strong> </strong><a href='/x'><strong>easy</strong></a>.</p>", "a link for [**easy**](https://a.example/x)."),
        ("<p><strong>Label<br></strong>Text after.</p>", "**Label**\nText after."),
        ("<p>A<a href='/y'><br>b</a></p>", "A\n[b](https://a.example/y)"),
        ("<ul><li><b><p>x</p></b></li><li><a href='/z'><div>card</div></a></li></ul>", "- **x**\n- [card](https://a.example/z)"),
        // A highlighter's class names inside code name no region.
        ("<pre><span class='hljs-comment'># note</span>\nrun</pre><p><code>ls <span class='comment'>-la</span></code></p>", "```\n# note\nrun\n```\n\n`ls -la`"),
        ("<p>vis</p><p hidden>h</p><p aria-hidden='true'>h</p><p style='display: none'>h</p><script>s</script><style>s</style><noscript>n</noscript><template>t</template><svg><text>s</text></svg><iframe>f</iframe><form><input value=v><p>f</p></form>", "vis"),
    ];
    for (html, want) in cases {
        assert_eq!(md(html, true), *want, "{html}");
    }
    // Code beside other inline text is a word of its own too.
    assert_eq!(
        md("<p>Run <span>then</span><code>make</code></p>", true),
        "Run then `make`"
    );
    // Plain text sets code after code apart too.
    assert_eq!(
        render_as(
            "<p><kbd>F</kbd><kbd>TAB</kbd> <code>U+00DF</code><code>0x C3 9F</code></p>",
            &base(),
            true,
            Style::Plain
        )
        .0,
        "F TAB U+00DF 0x C3 9F"
    );
}

/// The host's link setting: inline (the default; a target already shown
/// is not shown again, the later link is its text), references (`[n]`
/// in the text, each URL once after it, images numbered too) and none
/// (the text of links, no image).
#[test]
fn links_inline_as_references_or_not_at_all() {
    let html = "<p>See <a href='/a?utm_source=x&amp;k=1'>one</a>, <a href='/b'>two</a> and \
                <a href='/a?k=1'>one again</a>.</p><p><img src='/pic.jpg' alt='A red kite over the hill'></p>";
    let with = |links: Links| {
        let mut o = Options::new(true, Style::Markdown);
        o.links = links;
        extract(html, &base(), &o).text
    };
    assert_eq!(
        with(Links::Inline),
        "See [one](https://a.example/a?k=1), [two](https://a.example/b) and \
         one again.\n\n![A red kite over the hill](https://a.example/pic.jpg)"
    );
    assert_eq!(
        with(Links::References),
        "See [one][1], [two][2] and [one again][1].\n\n![A red kite over the hill][3]\n\n\
         [1]: https://a.example/a?k=1\n[2]: https://a.example/b\n[3]: https://a.example/pic.jpg"
    );
    assert_eq!(with(Links::None), "See one, two and one again.");
    assert_eq!(Links::default(), Links::Inline);
    for l in [Links::Inline, Links::References, Links::None] {
        assert_eq!(l.as_str().parse::<Links>(), Ok(l));
    }
}

/// Every tracking parameter of the documented list leaves the URLs shown;
/// other parameters stay as written, in order.
#[test]
fn tracking_parameters_leave_every_url_shown() {
    for t in webgate::extract::TRACKING_PARAMETERS {
        let key = t.replace('*', "campaign");
        let html = format!("<p><a href='/x?a=1&amp;{key}=v&amp;b=%20'>x</a></p>");
        assert_eq!(
            md(&html, true),
            "[x](https://a.example/x?a=1&b=%20)",
            "{key}"
        );
        let upper = key.to_ascii_uppercase();
        let html = format!("<p><a href='/x?{upper}=v'>x</a></p>");
        assert_eq!(md(&html, true), "[x](https://a.example/x)", "{upper}");
    }
    // Names that can be a page's own parameters stay, as do names that
    // only begin like a listed one.
    for key in ["tag", "ref", "sr", "qid", "utm", "ref_x", "linkcodes"] {
        let html = format!("<p><a href='/x?{key}=v'>x</a></p>");
        assert_eq!(
            md(&html, true),
            format!("[x](https://a.example/x?{key}=v)"),
            "{key}"
        );
    }
}

/// A link to the page it is on shows as its text, when the page's own
/// address carries tracking parameters too (a visitor who came from a
/// campaign): the page is compared as fetched and as shown.
#[test]
fn a_link_to_the_page_itself_is_its_text() {
    let base = Url::parse("https://a.example/dir/page?utm_source=feed").unwrap();
    let html = "<p><a href=''>this page</a>, <a href='/dir/page'>itself</a>, \
                <a href='/dir/page?p=2'>next</a></p>";
    assert_eq!(
        render_as(html, &base, true, Style::Markdown).0,
        "this page, itself, [next](https://a.example/dir/page?p=2)"
    );
}

/// A visitor's session leaves every URL shown, by its name in the query
/// (any case) and in Java's path form; names that are also a page's own
/// parameters, or an image's signature, stay.
#[test]
fn sessions_leave_every_url_shown() {
    for key in webgate::extract::SESSION_PARAMETERS {
        for key in [key.to_string(), key.to_ascii_uppercase()] {
            let html = format!("<p><a href='/x?a=1&amp;{key}=0A1B2C3D4E5F&amp;b=2'>x</a></p>");
            assert_eq!(md(&html, true), "[x](https://a.example/x?a=1&b=2)", "{key}");
        }
    }
    for (href, shown) in [
        (
            "/shop/cart.do;jsessionid=0A1B2C3D4E5F?item=4",
            "/shop/cart.do?item=4",
        ),
        ("/app;JSESSIONID=0A1B;v=2/list", "/app/list"),
        ("/app;version=2", "/app;version=2"),
        ("/story?sid=46", "/story?sid=46"),
        (
            "/pic.jpg?w=100&s=561345912104bf6f3e6358e5858672c1",
            "/pic.jpg?w=100&s=561345912104bf6f3e6358e5858672c1",
        ),
    ] {
        let html = format!("<p><a href='{href}'>x</a></p>");
        assert_eq!(
            md(&html, true),
            format!("[x](https://a.example{shown})"),
            "{href}"
        );
    }
}

/// Text a reader never sees as such: escaped markup in a `<noscript>`,
/// soft hyphens; and text it does: MathML's tokens, a formula image's alt.
#[test]
fn noscript_markup_soft_hyphens_and_formulas() {
    let prose = "Body text of the page, long enough to be read as the page's own words. ".repeat(3);
    let escaped = "&lt;div class=\"lazy\"&gt;&lt;img src=\"https://cdn.example/a.jpg\" alt=\"a long description of the picture\"&gt;&lt;/div&gt;".repeat(3);
    let html = format!("<body><p>{prose}</p><noscript>{escaped}</noscript></body>");
    let text = render_as(&html, &base(), true, Style::Plain).0;
    assert!(!text.contains('<'), "{text}");
    assert_eq!(
        render_as(
            "<p>Ex&shy;tra&shy;or&shy;di&shy;nary</p>",
            &base(),
            true,
            Style::Plain
        )
        .0,
        "Extraordinary"
    );
    // Zero-width spaces, a byte-order mark inside a word, a joiner alone
    // in an empty paragraph and in an emphasis of nothing go; a joiner
    // inside an emoji sequence stays.
    assert_eq!(
        render_as(
            "<p>&#x200b;How to ch&#xfeff;arge it<b>&zwj;</b></p><p>&zwj;</p><p>Coder 👩&zwj;💻</p>",
            &base(),
            true,
            Style::Markdown
        )
        .0,
        "How to charge it\n\nCoder 👩\u{200d}💻"
    );
    assert_eq!(
        render_as(
            "<p>Area <math><mi>A</mi><mo>=</mo><mi>r</mi><annotation encoding='application/x-tex'>A=r</annotation></math> here.</p>",
            &base(),
            true,
            Style::Plain
        )
        .0,
        "Area A=r here."
    );
    assert_eq!(
        render_as(
            "<p>So <img class='mwe-math-fallback-image-inline' alt='{\\displaystyle E=mc^{2}}' src='f.svg'> holds.</p>",
            &base(),
            true,
            Style::Markdown
        )
        .0,
        "So {\\displaystyle E=mc^{2}} holds."
    );
}

/// An unclosed `<title>` swallows the page as its text: that is no title.
#[test]
fn a_title_that_swallowed_the_page_is_no_title() {
    let html = format!(
        "<html><head><title>News {}</head><body><p>x</p></body></html>",
        "word ".repeat(100)
    );
    let page = extract(&html, &base(), &Options::new(true, Style::Markdown));
    assert_eq!(page.title, None);
}

/// A news story's text, long enough to be an article.
fn story() -> String {
    "The council voted on Tuesday to reopen the old bridge to cyclists, after a year of repairs and two public meetings. ".repeat(6)
}

/// The markdown of `html` with the host's `comments` setting.
fn markdown_with(html: &str, comments: Comments) -> String {
    let mut o = Options::new(false, Style::Markdown);
    o.comments = comments;
    extract(html, &base(), &o).text
}

/// A reader's comment on [`story`].
fn comment() -> String {
    "I cross that bridge every day and this is great news for everyone who rides to work. "
        .repeat(2)
}

/// Reader comments under an article are left out by default; the host
/// may keep them, after the article under a heading of their own (their
/// links numbered on from the article's); a forum's replies stay.
#[test]
fn comments_under_an_article() {
    let (story, comment) = (story(), comment());
    let html = format!(
        "<html><head><title>Bridge reopens</title><meta property='og:type' content='article'>\
         <script type='application/ld+json'>{{\"@type\":\"NewsArticle\"}}</script></head><body>\
         <article><h1>Bridge reopens</h1><p>{story} <a href='/council'>council</a></p></article>\
         <section id='comments'><h2>3 Comments</h2><ol class='commentlist'>\
         <li class='comment'><p>{comment} <a href='/rides'>rides</a></p></li>\
         <li class='comment'><p>{comment}</p></li></ol></section></body></html>"
    );
    let page = |comments: Comments, links: Links| {
        let mut o = Options::new(false, Style::Markdown);
        o.comments = comments;
        o.links = links;
        extract(&html, &base(), &o).text
    };
    let dropped = page(Comments::Drop, Links::Inline);
    assert!(
        dropped.starts_with("# Bridge reopens\n\nThe council"),
        "{dropped}"
    );
    assert!(!dropped.contains("I cross that bridge"), "{dropped}");
    let kept = page(Comments::Keep, Links::References);
    let at = kept.find("## Comments").expect(&kept);
    assert!(kept[at..].contains("I cross that bridge"), "{kept}");
    assert!(
        kept[..at].contains("[council][1]") && kept[at..].contains("[rides][2]"),
        "{kept}"
    );
    assert!(
        kept.ends_with("[1]: https://a.example/council\n[2]: https://a.example/rides"),
        "{kept}"
    );
    // A forum lays its first post out as it lays the replies, and marks
    // both as comments: they are its content.
    let reply = |n: usize| {
        format!(
            "<div class=post itemtype='https://schema.org/Comment'><p>Reply {n}: {}</p></div>",
            "I would pick the canister filter for a tank of that size, and clean it monthly. "
                .repeat(4)
        )
    };
    let thread = format!(
        "<html><head><title>Which filter?</title></head><body><div class=thread>\
         <div class=post><p>{story}</p></div>{}{}{}</div></body></html>",
        reply(1),
        reply(2),
        reply(3)
    );
    let text = extract(&thread, &base(), &Options::new(false, Style::Plain)).text;
    assert!(text.contains("Reply 3"), "{text}");
}

/// A page in another language names its comments in that language
/// (`Kommentare`, `commentaires`): they are left out as English-named
/// ones are, from inside the story's own box too.
#[test]
fn comments_named_in_another_language() {
    let story = "Die Brücke über den Fluss ist nach zwei Jahren Bauzeit wieder offen, \
                 und der Stadtrat feierte am Morgen mit den ersten Radfahrern. "
        .repeat(4);
    let comment = "Ich fahre jeden Tag über diese Brücke, endlich wieder ohne Umweg. ".repeat(2);
    for name in [
        "kommentare",
        "leserKommentare",
        "commentaires",
        "lista-comentarios",
    ] {
        let html = format!(
            "<html><head><title>Brücke wieder offen</title>\
             <meta property='og:type' content='article'></head><body>\
             <div class=artikel><h1>Brücke wieder offen</h1><p>{story}</p>\
             <div class={name}><h2>3 Kommentare</h2>\
             <div class=eintrag><p>{comment}</p></div><div class=eintrag><p>{comment}</p></div>\
             </div></div></body></html>"
        );
        let dropped = markdown_with(&html, Comments::Drop);
        assert!(dropped.contains("Stadtrat feierte"), "{name}: {dropped}");
        assert!(!dropped.contains("jeden Tag"), "{name}: {dropped}");
        let kept = markdown_with(&html, Comments::Keep);
        let at = kept.find("## Comments").expect(&kept);
        assert!(kept[at..].contains("jeden Tag"), "{name}: {kept}");
    }
}

/// On a page that declares a product, its customers' reviews after its
/// description are left out as comments are, and kept under `Reviews`
/// when the host keeps comments; the same section on a page that sells
/// nothing stays, and so do a buyer's guide's reviews of each product.
#[test]
fn reviews_under_a_product() {
    let description = "The pack carries a day's gear on the trail, with a padded back panel, \
                       two stretch pockets for bottles and a lid that opens wide. "
        .repeat(4);
    let review = "Great pack for day hikes, comfortable and roomy, five stars from me. ".repeat(2);
    let page = |head: &str, reviews: &str| {
        format!(
            "<html><head><title>Trail 25 Pack</title>{head}</head><body><main>\
             <h1>Trail 25 Pack</h1><div class=details><p>{description}</p>\
             <ul><li>Weight: 2 lb</li><li>Volume: 25 l</li></ul></div>\
             <div class={reviews}><h2>Reviews</h2><div class=review><p>{review}</p></div>\
             <div class=review><p>Too small for me. {review}</p></div></div></main></body></html>"
        )
    };
    let product = "<script type='application/ld+json'>{\"@type\":\"Product\",\"name\":\"Trail 25 Pack\"}</script>";
    let shop = page(product, "product-reviews");
    let dropped = markdown_with(&shop, Comments::Drop);
    assert!(dropped.contains("padded back panel"), "{dropped}");
    assert!(!dropped.contains("five stars"), "{dropped}");
    let kept = markdown_with(&shop, Comments::Keep);
    let at = kept.find("## Reviews").expect(&kept);
    assert!(kept[at..].contains("five stars"), "{kept}");
    assert!(!kept.contains("## Comments"), "{kept}");
    // No product declared: the section is the page's.
    let plain = markdown_with(&page("", "product-reviews"), Comments::Drop);
    assert!(plain.contains("five stars"), "{plain}");
    // One product's review in a guide is named in the singular.
    let guide = markdown_with(&page(product, "trail-pack-review"), Comments::Drop);
    assert!(guide.contains("five stars"), "{guide}");
}

/// Older pages set comments as plain paragraphs, built like the story's,
/// after a mark (`<a name="comments"></a>`): what follows the mark is
/// left out (and kept, under its heading, when the host asks). A mark
/// repeated after each post of an archive page, and a heading's anchor
/// that merely has the word in it, cut nothing.
#[test]
fn comments_after_a_mark_under_an_article() {
    let (story, comment) = (story(), comment());
    let page = |body: &str| {
        format!(
            "<html><head><title>Bridge reopens</title>\
             <script type='application/ld+json'>{{\"@type\":\"NewsArticle\"}}</script></head><body>\
             <div class=main><h1>Bridge reopens</h1>{body}</div></body></html>"
        )
    };
    let marked = page(&format!(
        "<p class=story>{story}</p><p><a href='#comments'>Read comments</a></p>\
         <a name='comments'></a><div class=hd>Comments</div>\
         <p class=story>{comment}</p><p class=story>Posted by a reader. {comment}</p>"
    ));
    let dropped = markdown_with(&marked, Comments::Drop);
    assert!(dropped.contains("The council voted"), "{dropped}");
    assert!(!dropped.contains("I cross that bridge"), "{dropped}");
    let kept = markdown_with(&marked, Comments::Keep);
    let at = kept.find("## Comments").expect(&kept);
    assert!(kept[at..].contains("I cross that bridge"), "{kept}");
    // Each comment marked apart (`comment-41`, `comment-40`): cut at the
    // first.
    let each = marked
        .replace("<a name='comments'></a>", "<a name='comment-41'></a>")
        .replace(
            "<p class=story>Posted",
            "<a name='comment-40'></a><p class=story>Posted",
        );
    assert!(!markdown_with(&each, Comments::Drop).contains("I cross that bridge"));
    // An archive: two posts, each with its own mark and comments.
    let archive = page(&format!(
        "<p class=story>{story}</p><a name='comments'></a><p class=story>{comment}</p>\
         <h2>Second post</h2><p class=story>{story}</p><a name='comments'></a><p>{comment}</p>"
    ));
    let all = markdown_with(&archive, Comments::Drop);
    assert!(
        all.contains("Second post") && all.contains("I cross that bridge"),
        "{all}"
    );
    // A section's anchor named from its heading's words.
    let section = marked.replace("name='comments'", "id='scraping-comments'");
    assert!(markdown_with(&section, Comments::Drop).contains("I cross that bridge"));
}

#[test]
fn plain_text_has_no_markup() {
    let html = "<h1>T</h1><p><a href='/x'>link</a> <b>bold</b></p><ul><li>i</li></ul><img alt='a' src='x'>";
    let (t, _) = render_as(html, &base(), true, Style::Plain);
    assert_eq!(t, "T\n\nlink bold\n\ni");
}

#[test]
fn header_logic() {
    let long = format!(
        "<article><p>{}</p></article>",
        "Sentence with words, commas, and more. ".repeat(5)
    );
    assert_eq!(
        render_as(&long, &base(), false, Style::Markdown).1,
        Extraction::Readability
    );
    assert_eq!(
        render_as(&long, &base(), true, Style::Markdown).1,
        Extraction::RawHtml
    );
    assert_eq!(
        render_as("<p>short</p>", &base(), false, Style::Markdown).1,
        Extraction::RawHtml
    );
    assert_eq!(
        render_as("", &base(), false, Style::Markdown),
        (String::new(), Extraction::RawHtml)
    );
}

fn html_soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<div>".to_string()),
        Just("</div>".to_string()),
        Just("<p>".to_string()),
        Just("<table><tr><td>".to_string()),
        Just("<li>".to_string()),
        Just("<pre>".to_string()),
        Just("<a href='x'>".to_string()),
        Just("</a>".to_string()),
        Just("<script>SECRET_SCRIPT</script>".to_string()),
        Just("<style>SECRET_STYLE{}</style>".to_string()),
        Just("<!-- c -->".to_string()),
        "[a-z ,.]{0,40}",
        // Free text without `<`: a stray `<` would rightly turn the next
        // `<script>` into text, as a browser would.
        "[^<]{0,30}",
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Any input renders (no panic), and script or style text never shows.
    #[test]
    fn any_page_renders_without_script_text(html in html_soup(), raw in any::<bool>()) {
        for style in [Style::Markdown, Style::Plain] {
            let (t, _) = render_as(&html, &base(), raw, style);
            prop_assert!(!t.contains("SECRET_SCRIPT") && !t.contains("SECRET_STYLE"));
        }
    }

    #[test]
    fn any_bytes_render(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        let html = String::from_utf8_lossy(&bytes);
        let _ = render_as(&html, &base(), false, Style::Markdown);
    }
}

#[test]
fn a_meta_charset_does_not_stop_the_parse() {
    // html5ever reports the declared encoding and pauses; parsing must go on.
    let html = "<html><head><meta charset=\"utf-8\">\n<meta name=x></head><body><p>hello world</p></body></html>";
    let base = url::Url::parse("https://a.example/").unwrap();
    let (text, _) = render_as(html, &base, true, Style::Markdown);
    assert_eq!(text.trim(), "hello world");
}

/// Past its deadline extraction stops reading and writing, and says the
/// text is cut and why: a deadline already passed stops the parse at its
/// first look at the clock, so nothing of the page is read.
#[test]
fn a_passed_deadline_returns_what_was_made_marked_truncated() {
    let html = format!("<body>{}</body>", "<p>some words here</p>".repeat(400_000));
    let mut options = Options::new(false, Style::Markdown);
    options.deadline = Some(std::time::Instant::now());
    let page = extract(&html, &base(), &options);
    assert!(page.truncated);
    assert_eq!(page.cut, Some(Cut::TimeLimit));
    assert!(page.text.len() < 1_000_000, "{} bytes", page.text.len());
    let whole = extract(&html, &base(), &Options::new(false, Style::Markdown));
    assert!(!whole.truncated);
    assert_eq!(whole.cut, None);
    assert!(whole.text.len() > page.text.len());
}

/// The caller's flag stops the work too (the async side sets it when it
/// stops waiting at the call's deadline).
#[test]
fn a_set_cancel_flag_stops_the_work() {
    let html = format!("<body>{}</body>", "<p>some words here</p>".repeat(100_000));
    let flag = Arc::new(AtomicBool::new(true));
    let mut options = Options::new(false, Style::Markdown);
    options.cancel = Some(flag);
    let page = extract(&html, &base(), &options);
    assert_eq!(page.cut, Some(Cut::TimeLimit));
    assert!(page.text.is_empty(), "{}", page.text.len());
}

/// Every long loop of the rendering spends the work meter, so a budget of
/// units stops it wherever it is: inside one huge `<pre>`, inside a run
/// of links, in the repeat filter. What was written before comes back,
/// marked as cut by the time limit (a budget stands in for the clock).
#[test]
fn a_work_budget_stops_rendering_inside_long_loops() {
    let size = 1 << 20;
    for html in [
        format!("<pre>{}</pre>", "line of code\n".repeat(size / 13)),
        format!("<p>{}</p>", "<a href='/x'>link</a> ".repeat(size / 22)),
        format!(
            "<div>{}</div>",
            "<p>A paragraph of words. </p>".repeat(size / 29)
        ),
    ] {
        let whole = extract(&html, &base(), &Options::new(true, Style::Markdown));
        assert_eq!(whole.cut, None);
        // Enough for the parse, and half of what the rest takes.
        let (parse, rest) = webgate::internals::fuzzing::extraction_work(&html, true);
        let budget = parse + rest / 2;
        let mut options = Options::new(true, Style::Markdown);
        options.work_budget = Some(budget);
        let cut = extract(&html, &base(), &options);
        assert_eq!(cut.cut, Some(Cut::TimeLimit), "{}", &html[..20]);
        assert!(cut.text.len() < whole.text.len(), "{}", &html[..20]);
    }
}

/// A code block that is one long run of backticks: its fence is found by
/// one count of the longest run (it was one search of the whole text per
/// fence length tried: 100 KB took 27 s, a megabyte would take hours).
#[test]
fn a_fence_around_a_megabyte_of_backticks_is_one_count() {
    let run = 1 << 20;
    let html = format!("<pre>{}</pre>", "`".repeat(run));
    let text = md(&html, true);
    let fence = "`".repeat(run + 1);
    assert_eq!(text, format!("{fence}\n{}\n{fence}", "`".repeat(run)));
    // Inline code: one longer than the longest run inside, padded where
    // the content starts or ends with a backtick (CommonMark).
    assert_eq!(md("<p><code>a``b`c</code></p>", true), "```a``b`c```");
    assert_eq!(md("<p><code>`x</code></p>", true), "`` `x ``");
    assert_eq!(md("<pre>a ` b `` c</pre>", true), "```\na ` b `` c\n```");
}

/// When the output budget runs out inside a block, the block comes out
/// cut, not as nothing: a 100 KB `<pre>` of one-character lines inside six
/// quotes (whose markers cost more than the budget allows) still gives
/// what fits, marked as cut by the output budget.
#[test]
fn a_block_over_the_output_budget_comes_out_cut_not_empty() {
    let html = format!(
        "{}<pre>{}</pre>{}",
        "<blockquote>".repeat(6),
        "a\n".repeat(50_000),
        "</blockquote>".repeat(6)
    );
    let page = extract(&html, &base(), &Options::new(true, Style::Markdown));
    assert_eq!(page.cut, Some(Cut::OutputBudget));
    assert!(page.truncated);
    assert!(
        page.text.len() > html.len(),
        "{} bytes from {}",
        page.text.len(),
        html.len()
    );
    assert!(
        page.text.starts_with("> > > > > > ```\n> > > > > > a\n"),
        "{}",
        &page.text[..40]
    );
    // The budget: four times the page, plus 64 KiB.
    assert!(page.text.len() <= 4 * html.len() + 64 * 1024);
}

/// The bound a host may wrap a call in: every hop and the extraction,
/// saturating instead of overflowing on host values.
#[test]
fn worst_case_duration_covers_every_hop_and_the_extraction() {
    use std::time::Duration;
    use webgate::policy::Policy;
    let p = Policy::default();
    assert_eq!(p.worst_case_duration(), Duration::from_secs(20 * 6 + 10));
    let mut p = Policy::default();
    p.request_timeout = Duration::MAX;
    p.max_redirects = u32::MAX;
    assert_eq!(p.worst_case_duration(), Duration::MAX);
}

/// The words of a markdown text without its link targets, images and
/// list numbers: what its plain text says.
fn words_without_targets(md: &str) -> Vec<String> {
    let mut out = String::new();
    for line in md.lines() {
        // An ordered item's number is markdown's, not the text's.
        let t = line.trim_start_matches([' ', '>']);
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let line = match t[digits..].strip_prefix(". ") {
            Some(rest) if digits > 0 => rest,
            _ => line,
        };
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let mut kept = &rest[..i];
            // An image (`![alt](src)`) is markdown's alone.
            if let Some(j) = kept.rfind("![") {
                kept = &kept[..j];
            }
            out.push_str(kept);
            out.push(' ');
            rest = &rest[i + 2..];
            rest = &rest[rest.find(')').map_or(rest.len(), |j| j + 1)..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Markdown and plain text choose the same content: a chosen block that
/// is short but full of links is as short in markdown as in text (its
/// URLs do not make it long enough to stand alone), so both fall back to
/// the page around it, and every fixture says the same words either way.
#[test]
fn markdown_and_text_choose_the_same_content() {
    let links: String = (1..=4)
        .map(|i| format!("<a href='/a/very/long/path/to/a/page/number/{i}/of/the/site'>p{i}</a> "))
        .collect();
    let html = format!(
        "<body><div class='nav'>Menu</div><article><p>See {links}</p></article>\
         <div><p>A paragraph beside the article, which the fallback keeps.</p></div></body>"
    );
    let (text, how_text) = render_as(&html, &base(), false, Style::Plain);
    let (md, how_md) = render_as(&html, &base(), false, Style::Markdown);
    assert_eq!(how_text, how_md, "{text}\n---\n{md}");
    assert!(md.contains("fallback keeps"), "{md}");
    assert_eq!(words_without_targets(&md), words_without_targets(&text));
    // Kept comments count as the text joins them, after their heading:
    // an article of 68 bytes with 23 of comments is long enough in text
    // (103 bytes with the heading) and so in markdown.
    let html =
        "<html><head><title>Bridge reopens</title><meta property='og:type' content='article'>\
        <script type='application/ld+json'>{\"@type\":\"NewsArticle\"}</script></head><body>\
        <nav><a href='/a'>Home</a> <a href='/b'>News</a></nav><article><h1>Bridge reopens</h1>\
        <p>The council voted to reopen the bridge on Monday after the r \
        <a href='/council/a/long/path/to/the/council/page'>council</a></p></article>\
        <section id='comments'><h2>3 Comments</h2><ol class='commentlist'>\
        <li class='comment'><p>Great news.</p></li></ol></section>\
        <footer>Footer text of the site here, with more words.</footer></body></html>";
    let kept = |style| {
        let mut o = Options::new(false, style);
        o.comments = Comments::Keep;
        extract(html, &base(), &o)
    };
    let (text, md) = (kept(Style::Plain), kept(Style::Markdown));
    assert_eq!(text.extraction, Extraction::Readability, "{}", text.text);
    assert_eq!(md.extraction, Extraction::Readability, "{}", md.text);
    assert_eq!(
        words_without_targets(&md.text),
        words_without_targets(&text.text)
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/rendering");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let html = std::fs::read_to_string(&path).unwrap();
        for comments in [Comments::Drop, Comments::Keep] {
            let as_style = |style| {
                let mut o = Options::new(false, style);
                o.comments = comments;
                extract(&html, &base(), &o).text
            };
            assert_eq!(
                words_without_targets(&as_style(Style::Markdown)),
                words_without_targets(&as_style(Style::Plain)),
                "{} {comments:?}",
                path.display()
            );
        }
    }
}

/// Link targets show other scripts' letters as themselves, as an address
/// bar does; what means something in a URL or could mislead stays
/// encoded, and the shown form parses back to the same URL.
#[test]
fn link_targets_show_letters_not_percent_codes() {
    let cases = [
        ("/wiki/M%C3%BCnchen", "https://a.example/wiki/München"),
        (
            "/wiki/m%C3%BCnchen?q=%E6%9D%B1%E4%BA%AC#%D0%AF",
            "https://a.example/wiki/münchen?q=東京#Я",
        ),
        // Spaces, reserved ASCII, a non-breaking space, an en dash, a
        // right-to-left override, a zero-width space, a lone byte.
        (
            "/a%20b%2Fc%C2%A0d%E2%80%93e%E2%80%AEf%E2%80%8Bg%C3h%Z1",
            "https://a.example/a%20b%2Fc%C2%A0d%E2%80%93e%E2%80%AEf%E2%80%8Bg%C3h%Z1",
        ),
        // The host is never decoded.
        (
            "https://xn--mnchen-3ya.example/%C3%BC",
            "https://xn--mnchen-3ya.example/ü",
        ),
        ("mailto:j%C3%BCrgen@a.example", "mailto:jürgen@a.example"),
    ];
    for (href, shown) in cases {
        let got = md(&format!("<p><a href='{href}'>x</a></p>"), true);
        assert_eq!(got, format!("[x]({shown})"), "{href}");
        let original = base().join(href).unwrap();
        assert_eq!(base().join(shown).unwrap(), original, "{href}");
    }
    // Lower-case hex is read as well (it parses back upper-cased, the
    // same URL to every server).
    assert_eq!(
        md("<p><a href='/m%c3%bcnchen'>x</a></p>", true),
        "[x](https://a.example/münchen)"
    );
}

/// Upper-cases every `%xx` escape: two URLs that differ only there name
/// the same resource.
fn escapes_upper(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut left = 0;
    for c in s.chars() {
        if c == '%' {
            left = 2;
            out.push(c);
        } else if left > 0 {
            left -= 1;
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Whatever a link's `href` holds (escapes whole or broken, letters of
    /// any script, reserved characters), the target shown parses back to
    /// the URL the page linked (tracking parameters aside: none here).
    #[test]
    fn a_shown_target_is_the_linked_url(
        href in proptest::string::string_regex(
            "(/|https://b\\.example/|mailto:)([a-zA-Z0-9/?#=&.~-]|%[0-9a-fA-F]{2}|%[0-9a-fA-FzZ]{0,2}|[üЯ東\u{202e}\u{200b}\u{a0} ])*"
        ).unwrap()
    ) {
        let escaped = href.replace('&', "&amp;").replace('"', "&quot;");
        let shown = md(&format!("<p><a href=\"{escaped}\">x</a></p>"), true);
        if let Some(target) = shown.strip_prefix("[x](").and_then(|t| t.strip_suffix(')')) {
            let linked = base().join(href.trim()).unwrap();
            let back = base().join(target).unwrap();
            prop_assert_eq!(escapes_upper(back.as_str()), escapes_upper(linked.as_str()));
        }
    }
}

/// The page's one headline, worded apart from its `<title>`, follows the
/// title line: a `## ` heading in markdown, a line in plain text; the
/// structured title stays the line.
#[test]
fn the_headline_follows_a_title_worded_apart() {
    let html = "<html><head><title>Top 11 SEO Strategies for 2025 | Example</title></head><body>\
                <header><h1>11 SEO Strategies for 2025 to Boost Rankings and Stay Ahead</h1></header>\
                <article><p>Search engines change every year, and so must the pages that want \
                to be found by them. This article goes through what works now and what no \
                longer does, with examples from real sites and the numbers behind them.</p>\
                <p>First, understand what the searcher wants before anything else.</p></article></body></html>";
    let page = extract(html, &base(), &Options::new(false, Style::Markdown));
    assert!(
        page.text.starts_with(
            "# Top 11 SEO Strategies for 2025\n\n## 11 SEO Strategies for 2025 to Boost Rankings and Stay Ahead\n\n"
        ),
        "{}",
        page.text
    );
    assert_eq!(
        page.title.as_deref(),
        Some("Top 11 SEO Strategies for 2025")
    );
    let plain = extract(html, &base(), &Options::new(false, Style::Plain)).text;
    assert!(
        plain.starts_with(
            "Top 11 SEO Strategies for 2025\n\n11 SEO Strategies for 2025 to Boost Rankings and Stay Ahead\n\nSearch engines"
        ),
        "{plain}"
    );
}

/// A rule inside a list item is a break there (the item's marker sets it
/// apart already), not an item that starts with `---`; a rule between
/// blocks stays one.
#[test]
fn a_rule_inside_a_list_item_is_a_break() {
    let html = "<ul><li><hr><h4>One</h4><p>Text one.</p></li>\
                <li><hr><p>Text two.</p><hr><p>More.</p></li></ul><hr><p>After.</p>";
    assert_eq!(
        md(html, true),
        "- #### One\n\n  Text one.\n- Text two.\n\n  More.\n\n---\n\nAfter."
    );
}

/// A link whose text is its own address shows it once, as an autolink
/// (also when the address gained the root's `/`); a link whose text
/// only names a site keeps both.
#[test]
fn a_link_whose_text_is_its_address_shows_it_once() {
    let html = "<p>See <a href='https://x.example'>https://x.example</a>, \
                <a href='https://x.example/a_b?q=1'>https://x.example/a_b?q=1</a> \
                and <a href='https://x.example/c'>x.example/c</a>.</p>";
    assert_eq!(
        md(html, true),
        "See <https://x.example/>, <https://x.example/a_b?q=1> and \
         [x.example/c](https://x.example/c)."
    );
}
