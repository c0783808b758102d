//! Content-Type classes (contract §7): from the header only, never
//! sniffed, parsed as browsers parse it.
//!
//! A value is parsed by the WHATWG MIME Sniffing standard's "parse a MIME
//! type" (§4.4), so every form a browser reads as HTML is HTML here
//! (`text/html; charset=`, `text/html; foo`, `text/html; charset = x`); when
//! a response has several Content-Type headers (or one with commas), Fetch's
//! "extract a MIME type" decides (§3.1.5: the last that parses wins; its
//! charset may come from an earlier header of the same essence). Header
//! bytes are read as the standards read them, one code point per byte. A
//! value that does not parse is refused like an unsupported type, with the
//! value verbatim; no value, or only blank ones, means the type is missing.

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
#[non_exhaustive]
pub enum TypeRefusal {
    /// No Content-Type header, or only blank ones.
    Missing,
    /// Not text, or not parsable: the header value, trimmed, verbatim.
    Refused(String),
}

/// A MIME type: lower-case type and subtype, parameters in order (names
/// lower case, the first of each name kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MimeType {
    /// The type, lower case.
    pub kind: String,
    /// The subtype, lower case.
    pub subtype: String,
    /// The parameters, in order.
    pub params: Vec<(String, String)>,
}

fn is_http_whitespace(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\t' | ' ')
}

fn is_token(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn is_quoted_string_token(c: char) -> bool {
    c == '\t' || (' '..='~').contains(&c) || ('\u{80}'..='\u{ff}').contains(&c)
}

fn all(s: &str, f: fn(char) -> bool) -> bool {
    !s.is_empty() && s.chars().all(f)
}

/// Fetch's "collect an HTTP quoted string" from `s`, which starts with
/// `"`: the value (extract-value) or the string as written, and the rest.
fn quoted_string(s: &str, extract: bool) -> (String, &str) {
    let mut value = String::new();
    let mut chars = s.char_indices().skip(1);
    let mut end = s.len();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, d)) => {
                    if !extract {
                        value.push('\\');
                    }
                    value.push(d);
                }
                None => {
                    value.push('\\');
                    end = s.len();
                    break;
                }
            },
            '"' => {
                end = i + 1;
                break;
            }
            c => value.push(c),
        }
    }
    if extract {
        (value, &s[end..])
    } else {
        (s[..end].to_string(), &s[end..])
    }
}

impl MimeType {
    /// The MIME Sniffing standard's "parse a MIME type"; `None` on failure.
    pub fn parse(input: &str) -> Option<MimeType> {
        let input = input.trim_matches(is_http_whitespace);
        let (kind, rest) = input.split_once('/')?;
        if !all(kind, is_token) {
            return None;
        }
        let (subtype, mut rest) = match rest.find(';') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let subtype = subtype.trim_end_matches(is_http_whitespace);
        if !all(subtype, is_token) {
            return None;
        }
        let mut mime = MimeType {
            kind: kind.to_ascii_lowercase(),
            subtype: subtype.to_ascii_lowercase(),
            params: Vec::new(),
        };
        // `rest` is empty or starts with `;`.
        while let Some(r) = rest.strip_prefix(';') {
            let r = r.trim_start_matches(is_http_whitespace);
            let end = r.find([';', '=']).unwrap_or(r.len());
            let name = r[..end].to_ascii_lowercase();
            let r = &r[end..];
            if r.starts_with(';') {
                rest = r;
                continue;
            }
            let Some(r) = r.strip_prefix('=') else {
                break; // the end of the input
            };
            let (value, r) = if r.starts_with('"') {
                let (v, r) = quoted_string(r, true);
                // Anything after the closing quote, up to `;`, is dropped.
                (v, &r[r.find(';').unwrap_or(r.len())..])
            } else {
                let end = r.find(';').unwrap_or(r.len());
                let v = r[..end].trim_end_matches(is_http_whitespace);
                if v.is_empty() {
                    rest = &r[end..];
                    continue;
                }
                (v.to_string(), &r[end..])
            };
            rest = r;
            if all(&name, is_token)
                && value.chars().all(is_quoted_string_token)
                && !mime.params.iter().any(|(n, _)| *n == name)
            {
                mime.params.push((name, value));
            }
        }
        Some(mime)
    }

    /// `type/subtype`.
    pub fn essence(&self) -> String {
        format!("{}/{}", self.kind, self.subtype)
    }

    /// A parameter's value by (lower-case) name.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The standard's "serialize a MIME type".
    pub fn serialize(&self) -> String {
        let mut out = self.essence();
        for (name, value) in &self.params {
            out.push(';');
            out.push_str(name);
            out.push('=');
            if all(value, is_token) {
                out.push_str(value);
            } else {
                out.push('"');
                for c in value.chars() {
                    if matches!(c, '"' | '\\') {
                        out.push('\\');
                    }
                    out.push(c);
                }
                out.push('"');
            }
        }
        out
    }
}

/// Fetch's "getting, decoding, and splitting" of one header's combined
/// value: split on commas outside quoted strings, each part trimmed of
/// tabs and spaces.
fn split_values(combined: &str) -> Vec<String> {
    let mut values = Vec::new();
    let mut rest = combined;
    let mut value = String::new();
    loop {
        let end = rest.find(['"', ',']).unwrap_or(rest.len());
        value.push_str(&rest[..end]);
        rest = &rest[end..];
        if rest.starts_with('"') {
            let (q, r) = quoted_string(rest, false);
            value.push_str(&q);
            rest = r;
            if !rest.is_empty() {
                continue;
            }
        }
        values.push(value.trim_matches(['\t', ' ']).to_string());
        value.clear();
        // What is left starts with the comma that ended this value.
        match rest.strip_prefix(',') {
            Some(r) => rest = r,
            None => return values,
        }
    }
}

/// Header bytes as the standards read them: one code point per byte.
fn isomorphic(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// Fetch's "extract a MIME type" from every value of the Content-Type
/// header, in order; `None` when none parses.
pub fn extract(values: &[&[u8]]) -> Option<MimeType> {
    let combined = values
        .iter()
        .map(|v| isomorphic(v))
        .collect::<Vec<_>>()
        .join(", ");
    let (mut charset, mut essence, mut mime): (Option<String>, Option<String>, Option<MimeType>) =
        (None, None, None);
    for value in split_values(&combined) {
        let Some(mut m) = MimeType::parse(&value) else {
            continue;
        };
        if m.essence() == "*/*" {
            continue;
        }
        if essence.as_deref() != Some(&m.essence()) {
            charset = m.param("charset").map(str::to_string);
            essence = Some(m.essence());
        } else if m.param("charset").is_none() {
            if let Some(c) = &charset {
                m.params.push(("charset".into(), c.clone()));
            }
        }
        mime = Some(m);
    }
    mime
}

/// Classifies the values of a response's Content-Type headers (none: the
/// header is absent).
pub fn classify(values: &[&[u8]]) -> Result<ContentType, TypeRefusal> {
    let shown: Vec<String> = values
        .iter()
        .map(|v| {
            String::from_utf8_lossy(v)
                .trim_matches([' ', '\t'])
                .to_string()
        })
        .collect();
    if shown
        .iter()
        .all(|v| v.trim_matches(is_http_whitespace).is_empty())
    {
        return Err(TypeRefusal::Missing);
    }
    let refuse = || TypeRefusal::Refused(shown.join(", ").trim_matches([' ', '\t']).to_string());
    let mime = extract(values).ok_or_else(refuse)?;
    let class = match (mime.kind.as_str(), mime.subtype.as_str()) {
        ("text", "html") | ("application", "xhtml+xml") => MediaClass::Html,
        ("application", "json" | "xml") | ("text", "xml") => MediaClass::Structured,
        ("application", s) if s.ends_with("+json") || s.ends_with("+xml") => MediaClass::Structured,
        ("text", _) => MediaClass::Text,
        _ => return Err(refuse()),
    };
    // A charset written as bytes above 0x7F is read back as UTF-8 for the
    // label lookup and the message (labels are ASCII; anything else is an
    // unknown label either way).
    let charset = mime.param("charset").map(|c| {
        let bytes: Vec<u8> = c.chars().map(|ch| ch as u32 as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    });
    Ok(ContentType { class, charset })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(v: &str) -> Result<(MediaClass, Option<String>), TypeRefusal> {
        classify(&[v.as_bytes()]).map(|c| (c.class, c.charset))
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
        assert_eq!(classify(&[]), Err(TypeRefusal::Missing));
        assert_eq!(class("   "), Err(TypeRefusal::Missing));
        assert_eq!(class(""), Err(TypeRefusal::Missing));
    }

    /// What browsers read as HTML is HTML (issue #19: real PHP sites send
    /// `charset=` with no value).
    #[test]
    fn forms_browsers_accept() {
        for s in [
            "text/html; charset=",
            "text/html; charset",
            "text/html; foo",
            "text/html; charset = utf-8",
            "text/html; charset=\"utf-8",
            "text/html;;",
        ] {
            assert_eq!(class(s).unwrap().0, MediaClass::Html, "{s:?}");
        }
        assert_eq!(
            class("text/html; charset=\"utf-8").unwrap().1,
            Some("utf-8".into())
        );
        assert_eq!(class("text/html; charset = utf-8").unwrap().1, None);
    }

    #[test]
    fn unparsable_values_are_refused() {
        for s in [
            "html",
            "text/",
            "/html",
            "text html",
            "text/html(;x=1",
            "bogus/bogus/;",
        ] {
            assert!(matches!(class(s), Err(TypeRefusal::Refused(_))), "{s:?}");
        }
    }

    /// Several headers: the last that parses wins, a charset carried over
    /// from an earlier one of the same essence (Fetch's examples).
    #[test]
    fn several_headers() {
        let c = |vs: &[&str]| {
            let b: Vec<&[u8]> = vs.iter().map(|v| v.as_bytes()).collect();
            classify(&b).map(|c| (c.class, c.charset))
        };
        assert_eq!(c(&["text/plain", "text/html"]).unwrap().0, MediaClass::Html);
        assert_eq!(
            c(&["text/html;charset=gbk", "text/html"]).unwrap(),
            (MediaClass::Html, Some("gbk".into()))
        );
        assert_eq!(
            c(&["text/html;charset=gbk", "text/plain"]).unwrap(),
            (MediaClass::Text, None)
        );
        assert_eq!(c(&["text/html", "*/*"]).unwrap().0, MediaClass::Html);
        assert_eq!(
            c(&["text/html, x/x"]),
            Err(TypeRefusal::Refused("text/html, x/x".into()))
        );
        assert_eq!(
            c(&["text/html;x=\"a,b\""]).unwrap().0,
            MediaClass::Html,
            "a comma inside quotes does not split"
        );
        assert_eq!(c(&["", " "]), Err(TypeRefusal::Missing));
        assert_eq!(c(&["", "text/plain"]).unwrap().0, MediaClass::Text);
    }
}
