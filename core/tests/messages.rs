//! The golden test: every template of `vectors/messages.tsv` is produced by
//! exactly one variant of the crate's message types, letter for letter, and
//! every variant's id is in the file.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use webgate::internals::messages::*;
use webgate::messages::*;

fn tsv() -> BTreeMap<String, (String, String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/messages.tsv");
    let text = std::fs::read_to_string(path).expect("vectors/messages.tsv");
    let mut out = BTreeMap::new();
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 5, "{line:?}");
        let template = cols[4].replace("\\n", "\n");
        let prev = out.insert(
            cols[0].to_string(),
            (cols[2].to_string(), cols[3].to_string(), template),
        );
        assert!(prev.is_none(), "duplicate id {}", cols[0]);
    }
    out
}

/// One rendered sample: its id, its text, the placeholder values it used,
/// and (for tool outcomes) its class and kind.
type Sample = (
    &'static str,
    String,
    Vec<(&'static str, String)>,
    Option<(Class, Option<ErrorKind>)>,
);

fn samples() -> Vec<Sample> {
    let s = |x: &str| x.to_string();
    let lit = IpAddr::from([127, 0, 0, 1]);
    let mut v: Vec<Sample> = Vec::new();
    let fetch = [
        (FetchError::Args(FetchArgError::MissingUrl), vec![]),
        (FetchError::Args(FetchArgError::MaxChars), vec![]),
        (FetchError::Args(FetchArgError::Raw), vec![]),
        (FetchError::Url(Refusal::Invalid), vec![]),
        (
            FetchError::Url(Refusal::Scheme {
                scheme: s("{scheme}"),
            }),
            vec![],
        ),
        (FetchError::Url(Refusal::Userinfo), vec![]),
        (
            FetchError::Url(Refusal::Port { port: 8443 }),
            vec![("{port}", s("8443"))],
        ),
        (
            FetchError::Url(Refusal::IpLiteral { address: lit }),
            vec![("{address}", s("127.0.0.1"))],
        ),
        (FetchError::NoAllowedAddress { host: s("{host}") }, vec![]),
        (FetchError::DnsFailed { host: s("{host}") }, vec![]),
        (
            FetchError::Status {
                url: s("{url}"),
                status: 404,
            },
            vec![("{status}", s("404"))],
        ),
        (
            FetchError::TypeRefused {
                content_type: s("{content_type}"),
                url: s("{url}"),
            },
            vec![],
        ),
        (FetchError::TypeMissing { url: s("{url}") }, vec![]),
        (
            FetchError::CharsetUnknown {
                url: s("{url}"),
                charset: s("{charset}"),
            },
            vec![],
        ),
        (
            FetchError::BodyCap {
                url: s("{url}"),
                limit: 8_388_608,
            },
            vec![("{limit}", s("8388608"))],
        ),
        (FetchError::BodyRead { url: s("{url}") }, vec![]),
        (FetchError::NetFailed { url: s("{url}") }, vec![]),
        (FetchError::Timeout { url: s("{url}") }, vec![]),
        (
            FetchError::RedirectRefused {
                from: s("{from}"),
                to: s("{to}"),
                reason: HopRefusal::Downgrade,
            },
            vec![("{reason}", s("refusing https to http downgrade"))],
        ),
    ];
    for (e, fill) in fetch {
        v.push((e.id(), e.to_string(), fill, Some((e.class(), e.kind()))));
    }
    let reasons = [
        (
            "fetch.redirect.reason.limit",
            HopRefusal::Limit { hops: 5 },
            vec![],
        ),
        (
            "fetch.redirect.reason.downgrade",
            HopRefusal::Downgrade,
            vec![],
        ),
        (
            "fetch.redirect.reason.scheme",
            HopRefusal::Rule(Refusal::Scheme {
                scheme: s("{scheme}"),
            }),
            vec![],
        ),
        (
            "fetch.redirect.reason.userinfo",
            HopRefusal::Rule(Refusal::Userinfo),
            vec![],
        ),
        (
            "fetch.redirect.reason.port",
            HopRefusal::Rule(Refusal::Port { port: 22 }),
            vec![("{port}", s("22"))],
        ),
        (
            "fetch.redirect.reason.ip_literal",
            HopRefusal::Rule(Refusal::IpLiteral { address: lit }),
            vec![("{address}", s("127.0.0.1"))],
        ),
    ];
    for (id, r, fill) in reasons {
        v.push((id, r.to_string(), fill, None));
    }
    let ok = FetchOk {
        url: "{url}",
        truncated: true,
        extraction: Extraction::Plain,
        text: "{text}",
    };
    v.push((
        "fetch.ok",
        ok.to_string(),
        vec![("{truncated}", s("true")), ("{extraction}", s("plain"))],
        Some((Class::Ok, None)),
    ));
    v.push((
        "fetch.ok.extraction.readability",
        Extraction::Readability.to_string(),
        vec![],
        None,
    ));
    v.push((
        "fetch.ok.extraction.raw_html",
        Extraction::RawHtml.to_string(),
        vec![],
        None,
    ));
    v.push((
        "fetch.ok.extraction.plain",
        Extraction::Plain.to_string(),
        vec![],
        None,
    ));
    v.push((
        "fetch.description",
        FETCH_DESCRIPTION.to_string(),
        vec![],
        None,
    ));
    let search = [
        (SearchError::Args(SearchArgError::Invalid), vec![]),
        (SearchError::Args(SearchArgError::QueryEmpty), vec![]),
        (SearchError::Args(SearchArgError::QueryLong), vec![]),
        (SearchError::Args(SearchArgError::Count), vec![]),
        (SearchError::Args(SearchArgError::Country), vec![]),
        (SearchError::Args(SearchArgError::SearchLang), vec![]),
        (SearchError::Args(SearchArgError::IncludeLen), vec![]),
        (SearchError::Args(SearchArgError::ExcludeLen), vec![]),
        (SearchError::Args(SearchArgError::IncludeHost), vec![]),
        (SearchError::Args(SearchArgError::ExcludeHost), vec![]),
        (
            SearchError::EmptyUrl { index: 3 },
            vec![("{index}", s("3"))],
        ),
        (SearchError::TooBig { limit: 262_144 }, vec![]),
        (SearchError::NotUtf8, vec![]),
        (SearchError::Malformed, vec![]),
        (
            // A Retry-After never shows in the text.
            SearchError::Status {
                code: 503,
                body: s("{body}"),
                retry_after: Some(std::time::Duration::from_secs(30)),
            },
            vec![("{code}", s("503"))],
        ),
        (
            SearchError::StatusEmpty {
                code: 500,
                retry_after: None,
            },
            vec![("{code}", s("500"))],
        ),
        (
            SearchError::StatusUnread {
                code: 502,
                retry_after: Some(std::time::Duration::ZERO),
            },
            vec![("{code}", s("502"))],
        ),
        (SearchError::Request, vec![]),
        (SearchError::Read, vec![]),
    ];
    for (e, fill) in search {
        v.push((
            e.id(),
            e.to_string(),
            fill,
            Some((Class::Hard, Some(e.kind()))),
        ));
    }
    let rows = [SearchRow {
        title: s("T"),
        url: s("https://a.example/"),
        description: s("D"),
        ..Default::default()
    }];
    let ok = SearchOk {
        query: "q \"x\"",
        rows: &rows,
    };
    v.push((
        "search.ok",
        ok.to_string(),
        vec![
            ("{query}", s(r#""q \"x\"""#)),
            (
                "{rows}",
                s(r#"{"title":"T","url":"https://a.example/","description":"D"}"#),
            ),
        ],
        Some((Class::Ok, None)),
    ));
    v.push((
        "search.description",
        SEARCH_DESCRIPTION.to_string(),
        vec![],
        None,
    ));
    v.push((
        "tool.failure",
        ToolFailure(&FetchError::Url(Refusal::Userinfo)).to_string(),
        vec![("{message}", s("url must not contain userinfo"))],
        None,
    ));
    v
}

fn class_name(c: Class) -> &'static str {
    c.as_str()
}

#[test]
fn every_template_is_produced_exactly() {
    let table = tsv();
    let samples = samples();
    let mut seen = BTreeSet::new();
    for (id, text, fill, class) in &samples {
        assert!(seen.insert(*id), "two samples claim {id}");
        let (want_class, want_kind, template) = table
            .get(*id)
            .unwrap_or_else(|| panic!("{id} is not in messages.tsv"));
        let mut expected = template.clone();
        for (k, val) in fill {
            assert!(expected.contains(k), "{id}: template has no {k}");
            expected = expected.replace(k, val);
        }
        assert_eq!(text, &expected, "{id}");
        if let Some((c, k)) = class {
            assert_eq!(class_name(*c), want_class, "{id}: class");
            assert_eq!(
                k.map(|k| k.to_string()).unwrap_or_default(),
                *want_kind,
                "{id}: kind"
            );
        }
    }
    let missing: Vec<_> = table
        .keys()
        .filter(|k| !seen.contains(k.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "ids with no producing variant: {missing:?}"
    );
}

#[test]
fn no_two_ids_share_a_text_unless_the_contract_does() {
    let table = tsv();
    let mut by_text: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (id, (_, _, t)) in &table {
        by_text.entry(t.clone()).or_default().push(id.clone());
    }
    for ids in by_text.values().filter(|ids| ids.len() > 1) {
        // The only shared texts are an admission rule used both on the url
        // argument and as a redirect reason: one variant serves both.
        assert_eq!(ids.len(), 2, "{ids:?}");
        let suffix = |id: &str| id.rsplit('.').next().unwrap().to_string();
        assert_eq!(suffix(&ids[0]), suffix(&ids[1]), "{ids:?}");
    }
}
