//! What a response head decides before any body byte is read (contract
//! §7): the status rule, the Content-Type class, the charset, the cap
//! mode, a declared length over the cap, and the content codings.
//!
//! One pure function of the head and the cap, so the fetch loop only asks
//! and acts: it reads the body the [`HeadPlan`] describes, or turns the
//! [`HeadRefusal`] into the contract's message. The audit's body record
//! is filled here too, as far as the head got, because what was judged
//! and where judging stopped are the same facts.

use encoding_rs::Encoding;

use super::charset;
use super::content_type::{classify, MediaClass, TypeRefusal};
use super::decode::{parse_codings, BodyFail, CapMode, Coding};
use crate::audit::{BodyAudit, BodyClass, CapAction, FailedAt};
use crate::messages::FetchError;

/// The parts of a response head the decisions read, as the server sent
/// them (the IO loop copies them out of its HTTP library's head).
#[derive(Clone, Debug, Default)]
pub(crate) struct Head<'a> {
    /// The status code.
    pub status: u16,
    /// Every `Content-Type` value, in order.
    pub content_type: Vec<&'a [u8]>,
    /// The first `Content-Length` value.
    pub content_length: Option<&'a [u8]>,
    /// Every `Content-Encoding` value, in order.
    pub content_encoding: Vec<&'a [u8]>,
}

/// How to read a body the head allowed.
#[derive(Debug)]
pub(crate) struct HeadPlan {
    /// What the text becomes: extracted HTML, or verbatim text.
    pub class: MediaClass,
    /// The charset to decode with.
    pub encoding: &'static Encoding,
    /// Flat text is cut at the cap; HTML and structured bodies are
    /// all-or-nothing.
    pub mode: CapMode,
    /// The content codings to undo, in the order applied.
    pub codings: Vec<Coding>,
}

/// Why the head alone ends the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HeadRefusal {
    /// Not 2xx (redirects are judged before this, by the hop rule).
    Status(u16),
    /// No usable Content-Type, or one the contract refuses.
    Type(TypeRefusal),
    /// A charset label the decoder does not know (verbatim).
    Charset(String),
    /// An all-or-nothing body declared longer than the cap.
    DeclaredOverCap,
    /// An unknown content coding, or too many.
    Codings,
}

impl HeadRefusal {
    /// The phase the audit names for it.
    pub fn failed_at(&self) -> FailedAt {
        match self {
            HeadRefusal::Status(_) => FailedAt::Status,
            HeadRefusal::Type(_) => FailedAt::ContentType,
            HeadRefusal::Charset(_) => FailedAt::Charset,
            HeadRefusal::DeclaredOverCap | HeadRefusal::Codings => FailedAt::Body,
        }
    }

    /// The contract's message for `url` (its display form) under `cap`.
    pub fn into_error(self, url: String, cap: u64) -> FetchError {
        match self {
            HeadRefusal::Status(status) => FetchError::Status { url, status },
            HeadRefusal::Type(TypeRefusal::Missing) => FetchError::TypeMissing { url },
            HeadRefusal::Type(TypeRefusal::Refused(content_type)) => {
                FetchError::TypeRefused { content_type, url }
            }
            HeadRefusal::Charset(charset) => FetchError::CharsetUnknown { url, charset },
            HeadRefusal::DeclaredOverCap => FetchError::BodyCap { url, limit: cap },
            HeadRefusal::Codings => FetchError::BodyRead { url },
        }
    }
}

/// Judges a response head under the body cap, recording in `audit` what
/// was judged (declared length, class, charset, codings, the cap's
/// refusal) up to the first refusal.
pub(crate) fn judge(
    head: &Head<'_>,
    body_cap: u64,
    audit: &mut BodyAudit,
) -> Result<HeadPlan, HeadRefusal> {
    if !(200..300).contains(&head.status) {
        return Err(HeadRefusal::Status(head.status));
    }
    audit.declared_length = head
        .content_length
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    // Every Content-Type header, in order (Fetch's "extract a MIME type").
    let ct = match classify(&head.content_type) {
        Ok(ct) => ct,
        Err(r) => {
            audit.class = Some(match r {
                TypeRefusal::Missing => BodyClass::Missing,
                TypeRefusal::Refused(_) => BodyClass::Refused,
            });
            return Err(HeadRefusal::Type(r));
        }
    };
    audit.class = Some(match ct.class {
        MediaClass::Html => BodyClass::Html,
        MediaClass::Structured => BodyClass::Structured,
        MediaClass::Text => BodyClass::Text,
    });
    let Ok(encoding) = charset::encoding_for(ct.charset.as_deref()) else {
        return Err(HeadRefusal::Charset(ct.charset.unwrap_or_default()));
    };
    audit.charset = Some(encoding.name());
    let mode = if ct.class == MediaClass::Text {
        CapMode::Truncate
    } else {
        CapMode::Refuse
    };
    if mode == CapMode::Refuse && audit.declared_length.is_some_and(|n| n > body_cap) {
        audit.cap = Some(CapAction::Refused);
        return Err(HeadRefusal::DeclaredOverCap);
    }
    let codings = codings(&head.content_encoding).map_err(|_| HeadRefusal::Codings)?;
    audit.encodings = codings.iter().map(|c| c.as_str()).collect();
    Ok(HeadPlan {
        class: ct.class,
        encoding,
        mode,
        codings,
    })
}

/// The `Content-Encoding` values of a head, in order, as the decoder
/// reads them (a value that is not UTF-8 is no coding it knows).
pub(crate) fn codings(values: &[&[u8]]) -> Result<Vec<Coding>, BodyFail> {
    parse_codings(
        values
            .iter()
            .map(|v| std::str::from_utf8(v).unwrap_or("\u{fffd}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head<'a>(status: u16, pairs: &[(&str, &'a str)]) -> Head<'a> {
        let mut h = Head {
            status,
            ..Head::default()
        };
        for (k, v) in pairs {
            match *k {
                "content-type" => h.content_type.push(v.as_bytes()),
                "content-length" => h.content_length = Some(v.as_bytes()),
                "content-encoding" => h.content_encoding.push(v.as_bytes()),
                _ => unreachable!("{k}"),
            }
        }
        h
    }

    fn judged(status: u16, pairs: &[(&str, &str)]) -> (Result<HeadPlan, HeadRefusal>, BodyAudit) {
        let mut audit = BodyAudit::default();
        let r = judge(&head(status, pairs), 100, &mut audit);
        (r, audit)
    }

    #[test]
    fn the_status_comes_first() {
        let (r, audit) = judged(404, &[("content-type", "image/png")]);
        assert_eq!(r.unwrap_err(), HeadRefusal::Status(404));
        assert_eq!(audit, BodyAudit::default());
    }

    #[test]
    fn text_is_cut_and_html_refused_over_a_declared_cap() {
        let (r, audit) = judged(
            200,
            &[("content-type", "text/plain"), ("content-length", "500")],
        );
        assert_eq!(r.unwrap().mode, CapMode::Truncate);
        assert_eq!(audit.cap, None);
        let (r, audit) = judged(
            200,
            &[("content-type", "text/html"), ("content-length", "500")],
        );
        assert_eq!(r.unwrap_err(), HeadRefusal::DeclaredOverCap);
        assert_eq!(audit.cap, Some(CapAction::Refused));
        assert_eq!(audit.class, Some(BodyClass::Html));
        assert_eq!(audit.declared_length, Some(500));
        let (r, _) = judged(
            200,
            &[("content-type", "text/html"), ("content-length", "100")],
        );
        assert_eq!(r.unwrap().mode, CapMode::Refuse);
    }

    #[test]
    fn type_charset_and_codings_refusals_stop_where_they_are() {
        let (r, audit) = judged(200, &[]);
        assert_eq!(r.unwrap_err(), HeadRefusal::Type(TypeRefusal::Missing));
        assert_eq!(audit.class, Some(BodyClass::Missing));
        let (r, audit) = judged(200, &[("content-type", "text/html; charset=nope")]);
        assert_eq!(r.unwrap_err(), HeadRefusal::Charset("nope".into()));
        assert_eq!((audit.class, audit.charset), (Some(BodyClass::Html), None));
        let (r, audit) = judged(
            200,
            &[
                ("content-type", "text/html"),
                ("content-encoding", "gzip, x-nope"),
            ],
        );
        assert_eq!(r.unwrap_err(), HeadRefusal::Codings);
        assert_eq!(audit.charset, Some("UTF-8"));
        assert!(audit.encodings.is_empty());
        let (r, audit) = judged(
            200,
            &[("content-type", "text/html"), ("content-encoding", "gzip")],
        );
        assert_eq!(r.unwrap().codings, vec![Coding::Gzip]);
        assert_eq!(audit.encodings, vec!["gzip"]);
    }

    #[test]
    fn every_refusal_names_its_phase_and_message() {
        let url = || "https://a.example/".to_string();
        for (r, phase, id) in [
            (
                HeadRefusal::Status(500),
                FailedAt::Status,
                "fetch.http.status",
            ),
            (
                HeadRefusal::Type(TypeRefusal::Missing),
                FailedAt::ContentType,
                "fetch.type.missing",
            ),
            (
                HeadRefusal::DeclaredOverCap,
                FailedAt::Body,
                "fetch.body.cap",
            ),
            (HeadRefusal::Codings, FailedAt::Body, "fetch.body.read"),
        ] {
            assert_eq!(r.failed_at(), phase);
            assert_eq!(r.into_error(url(), 100).id(), id);
        }
    }
}
