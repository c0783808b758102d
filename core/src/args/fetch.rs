//! `web_fetch` arguments (contract §2): `url`, then `max_chars`, then `raw`;
//! other fields are ignored.

use serde_json::Value;

use super::whole_non_negative;
use crate::messages::FetchArgError;
use crate::policy::Policy;

/// Accepted `web_fetch` arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchArgs {
    /// The `url` argument, not yet admitted.
    pub url: String,
    /// The character budget: the argument, lowered to the policy's limit.
    pub max_chars: usize,
    /// Render the whole document instead of the main article.
    pub raw: bool,
}

/// Checks the arguments in the contract's order.
pub fn parse_fetch_args(args: &Value, policy: &Policy) -> Result<FetchArgs, FetchArgError> {
    let obj = args.as_object().ok_or(FetchArgError::MissingUrl)?;
    let url = match obj.get("url") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(FetchArgError::MissingUrl),
    };
    let max_chars = match obj.get("max_chars") {
        None | Some(Value::Null) => policy.max_chars,
        Some(Value::Number(n)) => match whole_non_negative(n) {
            Some(v) if v >= 1 => {
                policy.max_chars_for(Some(usize::try_from(v).unwrap_or(usize::MAX)))
            }
            _ => return Err(FetchArgError::MaxChars),
        },
        Some(_) => return Err(FetchArgError::MaxChars),
    };
    let raw = match obj.get("raw") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(FetchArgError::Raw),
    };
    Ok(FetchArgs {
        url,
        max_chars,
        raw,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<FetchArgs, FetchArgError> {
        parse_fetch_args(&v, &Policy::default())
    }

    #[test]
    fn url_must_be_a_string_in_an_object() {
        for v in [
            json!(null),
            json!([]),
            json!("https://a.example/"),
            json!({}),
            json!({"url": null}),
            json!({"url": 5}),
            json!({"URL": "x"}),
        ] {
            assert_eq!(parse(v.clone()), Err(FetchArgError::MissingUrl), "{v}");
        }
        // The url is not judged here: admission does that.
        assert_eq!(parse(json!({"url": ""})).unwrap().url, "");
    }

    #[test]
    fn max_chars_whole_numbers_are_accepted_and_lowered() {
        assert_eq!(parse(json!({"url": "u"})).unwrap().max_chars, 40_000);
        assert_eq!(
            parse(json!({"url": "u", "max_chars": null}))
                .unwrap()
                .max_chars,
            40_000
        );
        assert_eq!(
            parse(json!({"url": "u", "max_chars": 5000}))
                .unwrap()
                .max_chars,
            5000
        );
        assert_eq!(
            parse(json!({"url": "u", "max_chars": 5000.0}))
                .unwrap()
                .max_chars,
            5000
        );
        assert_eq!(
            parse(json!({"url": "u", "max_chars": 1}))
                .unwrap()
                .max_chars,
            1
        );
        assert_eq!(
            parse(json!({"url": "u", "max_chars": 40001}))
                .unwrap()
                .max_chars,
            40_000
        );
        assert_eq!(
            parse(json!({"url": "u", "max_chars": 1e300}))
                .unwrap()
                .max_chars,
            40_000
        );
        assert_eq!(
            parse(json!({"url": "u", "max_chars": u64::MAX}))
                .unwrap()
                .max_chars,
            40_000
        );
    }

    #[test]
    fn max_chars_anything_else_is_refused() {
        for m in [
            json!(0),
            json!(-1),
            json!(0.5),
            json!(1.5),
            json!(-0.0),
            json!("5"),
            json!(true),
            json!([5]),
            json!({}),
        ] {
            assert_eq!(
                parse(json!({"url": "u", "max_chars": m})),
                Err(FetchArgError::MaxChars),
                "{m}"
            );
        }
    }

    #[test]
    fn raw_is_a_boolean_or_absent() {
        assert!(!parse(json!({"url": "u", "raw": null})).unwrap().raw);
        assert!(parse(json!({"url": "u", "raw": true})).unwrap().raw);
        for r in [json!(1), json!("true"), json!([])] {
            assert_eq!(
                parse(json!({"url": "u", "raw": r})),
                Err(FetchArgError::Raw)
            );
        }
    }

    #[test]
    fn checks_run_in_order_and_other_fields_are_ignored() {
        assert_eq!(
            parse(json!({"max_chars": 0, "raw": 1})),
            Err(FetchArgError::MissingUrl)
        );
        assert_eq!(
            parse(json!({"url": "u", "max_chars": 0, "raw": 1})),
            Err(FetchArgError::MaxChars)
        );
        assert!(parse(json!({"url": "u", "offset": "x", "extra": [1]})).is_ok());
    }
}
