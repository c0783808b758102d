//! Properties of URL admission and the redirect rule over generated URLs.

use proptest::prelude::*;
use url::Url;
use webgate::internals::redirect::{next_hop, Hop};
use webgate::messages::Refusal;
use webgate::policy::{admit, Policy};

fn host() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9-]{0,10}(\\.[a-z]{2,6}){1,2}".prop_map(|s| s),
        any::<u32>().prop_map(|v| std::net::Ipv4Addr::from(v).to_string()),
        any::<u32>().prop_map(|v| v.to_string()),
        any::<u32>().prop_map(|v| format!("0x{v:x}")),
        (any::<u8>(), any::<u32>()).prop_map(|(a, b)| format!("{a}.{}", b & 0xff_ffff)),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| format!("0{a:o}.0.0.{b}")),
        any::<u128>().prop_map(|v| format!("[{}]", std::net::Ipv6Addr::from(v))),
        any::<u32>().prop_map(|v| format!("[::ffff:{}]", std::net::Ipv4Addr::from(v))),
        "[a-zA-Z0-9.%_~-]{0,12}",
        Just("ｅｘａｍｐｌｅ．ｃｏｍ".to_string()),
        Just("bücher.example".to_string()),
    ]
}

fn url() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            Just("https"),
            Just("HTTPS"),
            Just("http"),
            Just("ftp"),
            Just("file"),
            Just("data")
        ],
        prop_oneof![Just(""), Just("u@"), Just("u:p@"), Just(":p@"), Just("@")],
        host(),
        prop_oneof![
            Just(String::new()),
            (0u32..70000).prop_map(|p| format!(":{p}")),
            Just(":443".into()),
            Just(":80".into())
        ],
        "(/[a-zA-Z0-9._~%-]{0,8}){0,3}",
        prop_oneof![Just(String::new()), "\\?[a-z=&]{0,8}".prop_map(|s| s)],
        prop_oneof![Just(String::new()), "#[a-z]{0,5}".prop_map(|s| s)],
    )
        .prop_map(|(s, ui, h, p, path, q, f)| format!("{s}://{ui}{h}{p}{path}{q}{f}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5_000))]

    /// The verdict of a URL equals the verdict of its own serialization.
    #[test]
    fn verdict_is_stable_under_reserialization(s in url()) {
        let p = Policy::default();
        let first = admit(&s, &p);
        if let Ok(parsed) = Url::parse(&s) {
            let again = admit(parsed.as_str(), &p);
            prop_assert_eq!(first.map(|u| u.as_str().to_string()), again.map(|u| u.as_str().to_string()));
        } else {
            prop_assert_eq!(first.unwrap_err(), Refusal::Invalid);
        }
    }

    /// What admission lets through is https, without userinfo, on an
    /// allowed port, with a DNS-name host and no fragment.
    #[test]
    fn admitted_urls_keep_every_rule(s in url()) {
        if let Ok(u) = admit(&s, &Policy::default()) {
            let url = u.as_url();
            prop_assert_eq!(url.scheme(), "https");
            prop_assert!(url.username().is_empty() && url.password().is_none());
            prop_assert!([80, 443].contains(&u.port()));
            prop_assert!(matches!(url.host(), Some(url::Host::Domain(_))));
            prop_assert!(url.fragment().is_none());
            prop_assert!(!u.host().is_empty());
        }
    }

    /// Any string at all: no panic.
    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        let _ = admit(&s, &Policy::default());
    }

    /// A followed redirect target passes admission on its own.
    #[test]
    fn followed_targets_are_admissible(loc in url(), followed in 0u32..7) {
        let p = Policy::default();
        let cur = admit("https://start.example/a/b?q", &p).unwrap();
        match next_hop(&cur, 302, Some(&loc), followed, &p) {
            Hop::Follow(next) => {
                prop_assert!(followed < 5);
                prop_assert_eq!(admit(next.as_str(), &p).map(|u| u.as_str().to_string()), Ok(next.as_str().to_string()));
            }
            Hop::Refuse(e) => prop_assert!(e.to_string().starts_with("redirect from https://start.example/a/b to ")),
            Hop::NotARedirect => prop_assert!(Url::parse("https://start.example/a/b?q").unwrap().join(&loc).is_err()),
        }
    }
}
