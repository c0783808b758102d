//! The page's row, the page-type classifier's input: the schema.org
//! types of its JSON-LD, `og:type`, the words of its URL path, counts of
//! articles, dates, code blocks and prices, a cart button, and the
//! figures of its chosen root; and what that row tells the other
//! decisions (a declared article, a product, a cart).

use super::super::dom::{Doc, Id, Kind};
use super::figures::Figures;
use super::json_ld::{json_ld, json_types, JSON_LD_BYTES};
use super::{flag, ln1, most_repeated_child, ratio};

feature_row! {
    /// What the page says of itself and of its chosen root, in the trainer's column order.
    PageRow {
        ld_article,
        ld_product,
        ld_discussion,
        ld_list,
        ld_docs,
        ld_service,
        ld_faq,
        ld_event,
        og_article,
        og_product,
        og_website,
        url_product,
        url_discussion,
        url_docs,
        url_list,
        url_article,
        url_depth,
        articles_log,
        times_log,
        pre_log,
        prices_log,
        headings_log,
        root_good_share,
        root_link_density,
        root_paras_log,
        root_items_log,
        root_repeated_log,
        root_heads_log,
        page_link_density,
        cart,
        paras_per_text,
    }
}

/// The names of the page's features, in order (the trainer's columns).
pub const PAGE_FEATURES: &[&str] = PageRow::NAMES;

/// The page's features (see the module header); `root` is the chosen one.
pub fn page(doc: &Doc, f: &Figures, url: &url::Url, root: Id) -> PageRow {
    let mut types = Vec::new();
    let mut og = String::new();
    let (mut articles, mut times, mut pres, mut prices, mut heads) = (0u32, 0u32, 0u32, 0u32, 0u32);
    let mut cart = false;
    let mut budget = 4096;
    let mut json_left = JSON_LD_BYTES;
    for id in 0..doc.nodes.len() {
        let n = &doc.nodes[id];
        match n.tag() {
            Some("script") => {
                if let Some(v) = json_ld(doc, id, &mut json_left) {
                    json_types(&v, &mut types, &mut budget);
                }
            }
            Some("meta")
                if n.attr("property")
                    .is_some_and(|p| p.eq_ignore_ascii_case("og:type")) =>
            {
                og = n.attr("content").unwrap_or("").to_ascii_lowercase();
            }
            Some("article") if !n.junk => articles += 1,
            Some("time") if !n.junk => times += 1,
            Some("pre") if !n.junk => pres += 1,
            Some("h1" | "h2" | "h3") if !n.junk => heads += 1,
            _ => {}
        }
        if let (Kind::Text(t), false) = (&n.kind, n.junk) {
            let b = t.as_bytes();
            prices += memchr::memchr_iter(b'$', b)
                .filter(|&i| b.get(i + 1).is_some_and(u8::is_ascii_digit))
                .count() as u32;
            if t.len() < 40 && !cart {
                cart = ["add to cart", "add to bag", "buy now"]
                    .iter()
                    .any(|p| contains_ignoring_case(b, p.as_bytes()));
            }
        }
    }
    let has = |names: &[&str]| flag(types.iter().any(|t| names.contains(&t.as_str())));
    let path = url.path().to_ascii_lowercase();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let segment = |names: &[&str]| {
        flag(segments.iter().any(|s| {
            names
                .iter()
                .any(|n| s == n || (s.starts_with(n) && s[n.len()..].starts_with('-')))
        }))
    };
    let body = doc.body();
    let good_body = f.good[body].max(1);
    let ln = |v: u32| ln1(f64::from(v));
    PageRow {
        ld_article: has(&[
            "article",
            "newsarticle",
            "blogposting",
            "reportagenewsarticle",
            "report",
            "analysisnewsarticle",
        ]),
        ld_product: has(&["product", "offer", "aggregaterating", "productgroup"]),
        ld_discussion: has(&[
            "qapage",
            "discussionforumposting",
            "question",
            "answer",
            "comment",
        ]),
        ld_list: has(&[
            "itemlist",
            "collectionpage",
            "searchresultspage",
            "offercatalog",
        ]),
        ld_docs: has(&["techarticle", "apireference", "softwaresourcecode", "howto"]),
        ld_service: has(&[
            "service",
            "localbusiness",
            "professionalservice",
            "softwareapplication",
        ]),
        ld_faq: has(&["faqpage"]),
        ld_event: has(&["recipe", "event", "course"]),
        og_article: flag(og == "article"),
        og_product: flag(og.contains("product")),
        og_website: flag(og == "website"),
        url_product: segment(&["product", "products", "p", "dp", "item", "pdp", "shop"]),
        url_discussion: segment(&[
            "t",
            "topic",
            "thread",
            "threads",
            "forum",
            "forums",
            "questions",
            "discussion",
            "community",
            "viewtopic.php",
            "showthread.php",
            "d",
        ]),
        url_docs: segment(&[
            "docs",
            "doc",
            "documentation",
            "api",
            "reference",
            "guide",
            "guides",
            "manual",
            "tutorial",
            "learn",
        ]),
        url_list: segment(&[
            "category",
            "categories",
            "collections",
            "collection",
            "c",
            "browse",
            "search",
            "list",
            "tag",
            "topics",
        ]),
        url_article: segment(&[
            "blog", "news", "article", "articles", "story", "posts", "post", "2020", "2021",
            "2022", "2023", "2024", "2025",
        ]),
        url_depth: segments.len() as f64 / 8.0,
        articles_log: ln(articles),
        times_log: ln(times),
        pre_log: ln(pres),
        prices_log: ln(prices),
        headings_log: ln(heads),
        root_good_share: ratio(f.good[root], good_body),
        root_link_density: doc.nodes[root].link_density(),
        root_paras_log: ln(f.paras[root]),
        root_items_log: ln(f.items[root]),
        root_repeated_log: ln(most_repeated_child(doc, f, root)),
        root_heads_log: ln(f.heads[root]),
        page_link_density: doc.nodes[body].link_density(),
        cart: flag(cart),
        paras_per_text: f64::from(f.paras[body]) * 100.0 / doc.nodes[body].text_len.max(1) as f64,
    }
}

/// Whether the page declares itself an article twice: a JSON-LD
/// `Article` (or `NewsArticle`, `BlogPosting`…) and `og:type` article.
/// Of the 1,678 benchmark pages 295 do, and 292 of those are articles;
/// either declaration alone is common on shop and forum pages.
pub fn declares_article(page: &PageRow) -> bool {
    page.ld_article == 1.0 && page.og_article == 1.0
}

/// Whether the page says it is a discussion: a JSON-LD
/// `DiscussionForumPosting` or `QAPage` (and their kin), or a URL whose
/// path names a thread or a forum.
pub fn declares_discussion(page: &PageRow) -> bool {
    page.ld_discussion == 1.0 || page.url_discussion == 1.0
}

/// What the page says to every unit: whether it declares a product
/// (JSON-LD or Open Graph) and whether it has a cart button. Reviews
/// and "customers also bought" are furniture on a shop's page and often
/// the content elsewhere.
pub fn unit_context(page: &PageRow) -> [f64; 2] {
    [page.ld_product.max(page.og_product), page.cart]
}

/// Whether `hay` holds `needle` (lower-case ASCII) in any ASCII case.
fn contains_ignoring_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `unit_context` reads the product declarations and the cart button
    /// by name.
    #[test]
    fn unit_context_reads_the_product_and_cart_features() {
        let mut row = PageRow {
            og_product: 1.0,
            ..PageRow::default()
        };
        assert_eq!(unit_context(&row), [1.0, 0.0]);
        row.cart = 1.0;
        assert_eq!(unit_context(&row), [1.0, 1.0]);
        // The values are in the names' order.
        let at = |name| PAGE_FEATURES.iter().position(|n| *n == name).unwrap();
        assert_eq!(row.values()[at("cart")], 1.0);
        assert_eq!(row.values()[at("og_product")], 1.0);
    }

    /// A page declares itself an article with both a JSON-LD article type
    /// and `og:type` article; either alone does not.
    #[test]
    fn declares_article_needs_both_declarations() {
        let og = r#"<meta property="og:type" content="article">"#;
        let ld = r#"<script type="application/ld+json">{"@type": "NewsArticle"}</script>"#;
        let url = url::Url::parse("https://a.example/x").expect("a url");
        for (head, want) in [
            (format!("{og}{ld}"), true),
            (og.to_string(), false),
            (ld.to_string(), false),
            (String::new(), false),
        ] {
            let html = format!("<head>{head}</head><body><p>Some words of the page.</p></body>");
            let doc = Doc::parse(&html);
            let f = Figures::of(&doc);
            let row = page(&doc, &f, &url, doc.body());
            assert_eq!(declares_article(&row), want, "{head}");
        }
    }
}
