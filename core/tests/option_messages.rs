//! The golden test of the agent layer's texts (contract §11 and §12):
//! every template of `vectors/option-messages.tsv` is produced by exactly
//! one variant, letter for letter, and every variant's id is in the file.
//! None of these texts appears with the default options.

use std::collections::BTreeMap;

use webgate::internals::messages::*;
use webgate::messages::*;
use webgate::tool::Outcome;

fn tsv() -> BTreeMap<String, (String, String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/option-messages.tsv");
    let text = std::fs::read_to_string(path).expect("vectors/option-messages.tsv");
    let mut out = BTreeMap::new();
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 5, "{line:?}");
        let prev = out.insert(
            cols[0].to_string(),
            (
                cols[2].to_string(),
                cols[3].to_string(),
                cols[4].replace("\\n", "\n"),
            ),
        );
        assert!(prev.is_none(), "duplicate id {}", cols[0]);
    }
    out
}

/// (id, text, class, kind) for every variant, rendered with placeholders.
fn samples() -> Vec<(&'static str, String, String, String)> {
    let s = |x: &str| x.to_string();
    let mut v = Vec::new();
    let errors = [
        OptionError::Offset,
        OptionError::OffsetPastEnd {
            offset: 7,
            total: 5,
        },
        OptionError::BlockPage { url: s("{url}") },
        OptionError::SearchBudget { limit: 8 },
        OptionError::FetchBudget { limit: 3 },
        OptionError::NumResults,
        OptionError::Recency,
        OptionError::Site,
        OptionError::SearchUnavailable,
    ];
    for e in errors {
        let o = Outcome::from(e.clone());
        v.push((
            e.id(),
            e.to_string()
                .replace("offset 7 ", "offset {offset} ")
                .replace("(5 characters)", "({total} characters)")
                .replace("budget (8)", "budget ({limit})")
                .replace("budget (3)", "budget ({limit})"),
            o.class.as_str().to_string(),
            o.kind.map(|k| k.to_string()).unwrap_or_default(),
        ));
    }
    let notes = [
        Note::Truncated {
            not_returned: 11,
            next_offset: None,
        },
        Note::Truncated {
            not_returned: 11,
            next_offset: Some(22),
        },
        Note::Thin { chars: 33 },
        Note::NotRead {
            reason: s("{reason}"),
        },
        Note::SearchBudgetSpent { limit: 8 },
        Note::FetchBudgetSpent { limit: 3 },
    ];
    for n in notes {
        v.push((
            n.id(),
            n.to_string()
                .replace("11", "{not_returned}")
                .replace("22", "{next_offset}")
                .replace("33", "{chars}")
                .replace("budget is 8)", "budget is {limit})")
                .replace("budget is 3)", "budget is {limit})"),
            s("note"),
            s(""),
        ));
    }
    v.push((
        "option.envelope.header",
        EnvelopeHeader {
            source: "{source}",
            tag: "{tag}",
        }
        .to_string(),
        s("envelope"),
        s(""),
    ));
    v.push((
        "option.envelope.open",
        EnvelopeOpen("{tag}").to_string(),
        s("envelope"),
        s(""),
    ));
    v.push((
        "option.envelope.close",
        EnvelopeClose("{tag}").to_string(),
        s("envelope"),
        s(""),
    ));
    v.push((
        "option.envelope.source.page",
        EnvelopeSource::Page { url: "{url}" }.to_string(),
        s("envelope"),
        s(""),
    ));
    v.push((
        "option.envelope.source.search",
        EnvelopeSource::Search { query: "{query}" }.to_string(),
        s("envelope"),
        s(""),
    ));
    v.push((
        "option.paging.marker",
        PagingMarker {
            not_returned: 1,
            total: 2,
            next_offset: 3,
        }
        .to_string()
        .replace("truncated 1 of 2", "truncated {not_returned} of {total}")
        .replace("offset=3", "offset={next_offset}"),
        s("marker"),
        s(""),
    ));
    v.push((
        "option.search.no_results",
        NoResults("{query}").to_string(),
        s("ok"),
        s(""),
    ));
    for (id, a) in [
        (
            "option.action.searched",
            Action::Searched { query: "{query}" },
        ),
        ("option.action.searched_the_web", Action::SearchedTheWeb),
        ("option.action.opened", Action::Opened { url: "{url}" }),
        ("option.action.tried_to_open", Action::TriedToOpen),
    ] {
        v.push((id, a.to_string(), s("summary"), s("")));
    }
    let domain = FetchError::Url(Refusal::Domain { host: s("{host}") });
    v.push((
        domain.id(),
        domain.to_string(),
        domain.class().as_str().to_string(),
        domain.kind().map(|k| k.to_string()).unwrap_or_default(),
    ));
    let hop = HopRefusal::Rule(Refusal::Domain { host: s("{host}") });
    v.push((hop.id(), hop.to_string(), s("reason"), s("")));
    use webgate::internals::robots::Unreachable;
    for e in [
        FetchError::RobotsDisallowed { url: s("{url}") },
        FetchError::RobotsUnreachable {
            url: s("{url}"),
            why: Unreachable::Timeout,
        },
    ] {
        v.push((
            e.id(),
            e.to_string().replace("(timed out)", "({reason})"),
            e.class().as_str().to_string(),
            e.kind().map(|k| k.to_string()).unwrap_or_default(),
        ));
    }
    for why in [
        Unreachable::Status(503),
        Unreachable::Timeout,
        Unreachable::Network,
    ] {
        let r = why;
        v.push((
            r.id(),
            r.to_string().replace("503", "{status}"),
            s("reason"),
            s(""),
        ));
    }
    let note = Note::ReadThrough {
        url: s("{url}"),
        reader: s("{reader}"),
        why: ReaderWhy::BlockPage,
    };
    v.push((
        note.id(),
        note.to_string()
            .replace("(a verification or block page)", "({why})"),
        s("note"),
        s(""),
    ));
    let note = Note::Empty {
        why: EmptyWhy::NoText,
    };
    v.push((
        note.id(),
        note.to_string()
            .replace("(it shows nothing that reads as text)", "({why})"),
        s("note"),
        s(""),
    ));
    for why in [EmptyWhy::NoText, EmptyWhy::TimeLimit] {
        v.push((why.id(), why.to_string(), s("reason"), s("")));
    }
    for why in [
        ReaderWhy::BlockPage,
        ReaderWhy::Thin(44),
        ReaderWhy::Status(403),
    ] {
        v.push((
            why.id(),
            why.to_string()
                .replace("44", "{chars}")
                .replace("403", "{status}"),
            s("reason"),
            s(""),
        ));
    }
    v
}

#[test]
fn every_option_text_is_in_the_file_letter_for_letter() {
    let file = tsv();
    let samples = samples();
    for (id, text, class, kind) in &samples {
        let (fclass, fkind, template) = file
            .get(*id)
            .unwrap_or_else(|| panic!("{id} is not in vectors/option-messages.tsv"));
        assert_eq!(text, template, "{id}");
        assert_eq!((class, kind), (fclass, fkind), "{id}");
    }
    for id in file.keys() {
        assert!(
            samples.iter().any(|(i, ..)| i == id),
            "{id} in the file has no sample"
        );
    }
}
