//! Content-Type classes (contract §7): from the header only, never sniffed.
//!
//! The value is parsed as RFC 9110 `media-type`: `type "/" subtype` and
//! `;`-separated parameters whose values are tokens or quoted strings.
//! Anything that does not parse is refused like an unsupported type, with
//! the header value verbatim.

/// What the body will be turned into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MediaClass {
    /// `text/html`, `application/xhtml+xml`: extraction.
    Html,
    /// JSON and XML: returned verbatim, all-or-nothing under the cap.
    Structured,
    /// Any other `text/*`: returned verbatim, cut at the cap.
    Text,
}

impl MediaClass {
    /// The lower-case name used in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaClass::Html => "html",
            MediaClass::Structured => "structured",
            MediaClass::Text => "text",
        }
    }
}

/// A parsed Content-Type that can be returned as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentType {
    /// The class.
    pub class: MediaClass,
    /// The `charset` parameter, unquoted, verbatim; `None` when absent.
    pub charset: Option<String>,
}

/// Why a Content-Type was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeRefusal {
    /// No Content-Type header.
    Missing,
    /// Not text, or not parsable: the header value, trimmed, verbatim.
    Refused(String),
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn token(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !is_tchar(c)).unwrap_or(s.len());
    s.split_at(end)
}

fn ows(s: &str) -> &str {
    s.trim_start_matches([' ', '\t'])
}

/// Parses `type/subtype *(OWS ";" OWS [name=value])`; `None` when it does
/// not parse. Returns the lower-case essence and the parameters.
fn parse(value: &str) -> Option<(String, Vec<(String, String)>)> {
    let (ty, rest) = token(value);
    let rest = rest.strip_prefix('/')?;
    let (sub, mut rest) = token(rest);
    if ty.is_empty() || sub.is_empty() {
        return None;
    }
    let essence = format!("{}/{}", ty.to_ascii_lowercase(), sub.to_ascii_lowercase());
    let mut params = Vec::new();
    loop {
        rest = ows(rest);
        if rest.is_empty() {
            break;
        }
        rest = ows(rest.strip_prefix(';')?);
        if rest.is_empty() || rest.starts_with(';') {
            continue; // empty parameter, as browsers tolerate
        }
        let (name, r) = token(rest);
        if name.is_empty() {
            return None;
        }
        let r = r.strip_prefix('=')?;
        let (val, r) = if let Some(q) = r.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = q.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '"' => {
                        end = Some(i + 1);
                        break;
                    }
                    '\\' => out.push(chars.next()?.1),
                    c => out.push(c),
                }
            }
            (out, &q[end?..])
        } else {
            let (v, r) = token(r);
            if v.is_empty() {
                return None;
            }
            (v.to_string(), r)
        };
        params.push((name.to_ascii_lowercase(), val));
        rest = r;
    }
    Some((essence, params))
}

/// Classifies a Content-Type header value (`None` when the header is absent).
pub fn classify(header: Option<&str>) -> Result<ContentType, TypeRefusal> {
    let Some(raw) = header else {
        return Err(TypeRefusal::Missing);
    };
    let value = raw.trim_matches([' ', '\t']);
    let refuse = || TypeRefusal::Refused(value.to_string());
    let (essence, params) = parse(value).ok_or_else(refuse)?;
    let (ty, sub) = essence.split_once('/').ok_or_else(refuse)?;
    let class = match (ty, sub) {
        ("text", "html") | ("application", "xhtml+xml") => MediaClass::Html,
        ("application", "json" | "xml") | ("text", "xml") => MediaClass::Structured,
        ("application", s) if s.ends_with("+json") || s.ends_with("+xml") => MediaClass::Structured,
        ("text", _) => MediaClass::Text,
        _ => return Err(refuse()),
    };
    // The first charset parameter wins, as in the WHATWG MIME sniffing rules.
    let charset = params
        .into_iter()
        .find(|(n, _)| n == "charset")
        .map(|(_, v)| v);
    Ok(ContentType { class, charset })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(v: &str) -> Result<(MediaClass, Option<String>), TypeRefusal> {
        classify(Some(v)).map(|c| (c.class, c.charset))
    }

    #[test]
    fn classes() {
        assert_eq!(class("text/html").unwrap().0, MediaClass::Html);
        assert_eq!(
            class("TEXT/HTML; Charset=UTF-8").unwrap(),
            (MediaClass::Html, Some("UTF-8".into()))
        );
        assert_eq!(class("application/xhtml+xml").unwrap().0, MediaClass::Html);
        for s in [
            "application/json",
            "application/xml",
            "text/xml",
            "application/ld+json",
            "application/atom+xml",
        ] {
            assert_eq!(class(s).unwrap().0, MediaClass::Structured, "{s}");
        }
        for s in [
            "text/plain",
            "text/csv",
            "text/markdown",
            "text/css",
            "text/javascript",
        ] {
            assert_eq!(class(s).unwrap().0, MediaClass::Text, "{s}");
        }
    }

    #[test]
    fn refused_types_keep_the_value_verbatim() {
        for s in [
            "application/pdf",
            "image/svg+xml",
            "image/png",
            "application/octet-stream",
            "application/javascript",
            "video/mp4",
            "application/zip",
        ] {
            assert_eq!(class(s), Err(TypeRefusal::Refused(s.into())));
        }
        assert_eq!(
            class("  Application/PDF ; x=1 "),
            Err(TypeRefusal::Refused("Application/PDF ; x=1".into()))
        );
        assert_eq!(classify(None), Err(TypeRefusal::Missing));
    }

    #[test]
    fn unparsable_values_are_refused() {
        for s in [
            "",
            "html",
            "text/",
            "/html",
            "text/html; charset",
            "text/html; charset=\"utf-8",
            "text/html;=x",
            "text html",
            "text/html; charset=a b",
        ] {
            assert!(matches!(class(s), Err(TypeRefusal::Refused(_))), "{s:?}");
        }
    }

    #[test]
    fn parameters_quoted_and_spaced() {
        assert_eq!(
            class("text/plain;charset=\"ISO-8859-1\"").unwrap().1,
            Some("ISO-8859-1".into())
        );
        assert_eq!(class("text/plain ;\tcharset = x").ok(), None);
        assert_eq!(
            class("text/plain; format=flowed; charset=koi8-r")
                .unwrap()
                .1,
            Some("koi8-r".into())
        );
        assert_eq!(
            class("text/plain; charset=\"a\\\"b\"").unwrap().1,
            Some("a\"b".into())
        );
        assert_eq!(class("text/plain;").unwrap().1, None);
        assert_eq!(
            class("text/plain; charset=one; charset=two").unwrap().1,
            Some("one".into())
        );
    }
}
