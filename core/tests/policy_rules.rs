//! The admission rules (contract §3) and the redirect-hop rule (§6),
//! rule by rule, with the exact texts the contract gives.

mod admission {
    use url::Url;
    use webgate::internals::policy::display_form;
    use webgate::messages::Refusal;
    use webgate::policy::{admit, Policy};

    fn verdict(s: &str) -> Result<String, String> {
        admit(s, &Policy::default())
            .map(|u| u.as_str().to_string())
            .map_err(|r| r.to_string())
    }

    #[test]
    fn rule_1_unparsable() {
        for s in [
            "",
            "example.com",
            "/path",
            "https://",
            "https://exa mple.com/",
            "https://1.2.3.4.5/",
            "https://[::1/",
        ] {
            assert_eq!(verdict(s), Err("invalid url".into()), "{s:?}");
        }
    }

    #[test]
    fn rule_2_scheme_before_host_rules() {
        assert_eq!(
            verdict("http://example.com/"),
            Err("scheme not allowed: http".into())
        );
        assert_eq!(
            verdict("HTTP://example.com/"),
            Err("scheme not allowed: http".into())
        );
        assert_eq!(
            verdict("ftp://u:p@127.0.0.1:21/"),
            Err("scheme not allowed: ftp".into())
        );
        assert_eq!(
            verdict("data:text/plain,hi"),
            Err("scheme not allowed: data".into())
        );
        assert_eq!(
            verdict("mailto:a@b.c"),
            Err("scheme not allowed: mailto".into())
        );
        assert_eq!(
            verdict("javascript:alert(1)"),
            Err("scheme not allowed: javascript".into())
        );
        assert_eq!(
            verdict("file:///etc/passwd"),
            Err("scheme not allowed: file".into())
        );
    }

    #[test]
    fn rule_3_userinfo_before_port_and_host() {
        assert_eq!(
            verdict("https://user@example.com/"),
            Err("url must not contain userinfo".into())
        );
        assert_eq!(
            verdict("https://:pw@example.com/"),
            Err("url must not contain userinfo".into())
        );
        assert_eq!(
            verdict("https://u:p@127.0.0.1:8080/"),
            Err("url must not contain userinfo".into())
        );
        // An empty userinfo section is no userinfo once parsed.
        assert!(verdict("https://@example.com/").is_ok());
    }

    #[test]
    fn rule_4_port() {
        assert_eq!(
            verdict("https://example.com:8443/"),
            Err("port not allowed: 8443".into())
        );
        assert_eq!(
            verdict("https://127.0.0.1:22/"),
            Err("port not allowed: 22".into())
        );
        assert_eq!(
            verdict("https://example.com:0/"),
            Err("port not allowed: 0".into())
        );
        assert!(verdict("https://example.com:80/").is_ok());
        assert_eq!(
            verdict("https://example.com:443/").unwrap(),
            "https://example.com/"
        );
    }

    #[test]
    fn rule_5_ip_literals_in_every_notation() {
        for (s, a) in [
            ("https://127.0.0.1/", "127.0.0.1"),
            ("https://0177.0.0.1/", "127.0.0.1"),
            ("https://0x7f.1/", "127.0.0.1"),
            ("https://2130706433/", "127.0.0.1"),
            ("https://127.1/", "127.0.0.1"),
            ("https://８.８.８.８/", "8.8.8.8"),
            ("https://[::1]/", "::1"),
            ("https://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
            ("https://[::127.0.0.1]/", "::7f00:1"),
            ("https://93.184.216.34/", "93.184.216.34"),
        ] {
            assert_eq!(
                verdict(s),
                Err(format!("ip literal host not allowed: {a}")),
                "{s}"
            );
        }
    }

    #[test]
    fn admitted_urls_drop_the_fragment_and_keep_the_query() {
        let u = admit("https://Example.COM/a/b?q=1#frag", &Policy::default()).unwrap();
        assert_eq!(u.as_str(), "https://example.com/a/b?q=1");
        assert_eq!(u.host(), "example.com");
        assert_eq!(u.port(), 443);
        assert_eq!(u.display(), "https://example.com/a/b");
    }

    #[test]
    fn idn_hosts_serialize_as_punycode() {
        let u = admit("https://bücher.example/", &Policy::default()).unwrap();
        assert_eq!(u.host(), "xn--bcher-kva.example");
    }

    #[test]
    fn display_form_shows_non_default_ports_only() {
        let d = |s: &str| display_form(&Url::parse(s).unwrap());
        assert_eq!(
            d("https://u:p@example.com:443/x?y#z"),
            "https://example.com/x"
        );
        assert_eq!(d("https://example.com:80/x"), "https://example.com:80/x");
        assert_eq!(d("http://127.0.0.1/"), "http://127.0.0.1/");
        assert_eq!(d("http://example.com:80/"), "http://example.com/");
        assert_eq!(d("https://[::ffff:127.0.0.1]/"), "https://[::ffff:7f00:1]/");
        assert_eq!(d("data:text/plain,hi"), "data:text/plain,hi");
    }

    #[test]
    fn ports_follow_the_policy() {
        let mut p = Policy::default();
        p.ports = vec![443];
        assert_eq!(
            admit("https://example.com:80/", &p).unwrap_err(),
            Refusal::Port { port: 80 }
        );
    }
}

mod redirect {
    use webgate::internals::redirect::{next_hop, Hop};
    use webgate::policy::{admit, AdmittedUrl, Policy};

    fn from(s: &str) -> AdmittedUrl {
        admit(s, &Policy::default()).unwrap()
    }

    fn hop(cur: &str, loc: &str, followed: u32) -> Result<String, String> {
        match next_hop(&from(cur), 302, Some(loc), followed, &Policy::default()) {
            Hop::Follow(u) => Ok(u.as_str().to_string()),
            Hop::Refuse(e) => Err(e.to_string()),
            Hop::NotARedirect => Err("not a redirect".into()),
        }
    }

    #[test]
    fn relative_locations_resolve_and_drop_the_fragment() {
        assert_eq!(
            hop("https://a.example/x/y?q", "../z?k=v#f", 0),
            Ok("https://a.example/z?k=v".into())
        );
        assert_eq!(
            hop("https://a.example/", "//b.example/p", 0),
            Ok("https://b.example/p".into())
        );
    }

    #[test]
    fn five_hops_are_followed_and_the_sixth_is_refused() {
        assert!(hop("https://a.example/", "/n", 4).is_ok());
        assert_eq!(
            hop("https://a.example/4", "/5", 5),
            Err("redirect from https://a.example/4 to https://a.example/5 refused: redirect limit of 5 hops reached".into())
        );
    }

    #[test]
    fn the_limit_is_checked_before_the_downgrade() {
        let e = hop("https://a.example/", "http://127.0.0.1/", 5).unwrap_err();
        assert!(e.ends_with("redirect limit of 5 hops reached"), "{e}");
    }

    #[test]
    fn downgrade_before_admission_rules() {
        assert_eq!(
            hop("https://a.example/p?q=1", "http://127.0.0.1:8080/x?y", 0),
            Err("redirect from https://a.example/p to http://127.0.0.1:8080/x refused: refusing https to http downgrade".into())
        );
    }

    #[test]
    fn admission_rules_on_the_target() {
        assert_eq!(
            hop("https://a.example/", "ftp://b.example/", 0).unwrap_err(),
            "redirect from https://a.example/ to ftp://b.example/ refused: scheme not allowed: ftp"
        );
        assert_eq!(
            hop("https://a.example/", "https://u:p@b.example/", 0).unwrap_err(),
            "redirect from https://a.example/ to https://b.example/ refused: url must not contain userinfo"
        );
        assert_eq!(
            hop("https://a.example/", "https://b.example:8443/", 0).unwrap_err(),
            "redirect from https://a.example/ to https://b.example:8443/ refused: port not allowed: 8443"
        );
        assert_eq!(
            hop("https://a.example/", "https://[::ffff:127.0.0.1]/", 0).unwrap_err(),
            "redirect from https://a.example/ to https://[::ffff:7f00:1]/ refused: ip literal host not allowed: ::ffff:127.0.0.1"
        );
    }

    #[test]
    fn unparsable_or_missing_location_is_not_a_redirect() {
        let cur = from("https://a.example/");
        let p = Policy::default();
        assert_eq!(next_hop(&cur, 302, None, 0, &p), Hop::NotARedirect);
        assert_eq!(
            next_hop(&cur, 302, Some("https://exa mple.com/"), 0, &p),
            Hop::NotARedirect
        );
        assert_eq!(next_hop(&cur, 200, Some("/x"), 0, &p), Hop::NotARedirect);
        assert_eq!(next_hop(&cur, 304, Some("/x"), 0, &p), Hop::NotARedirect);
        for s in [301, 302, 303, 307, 308] {
            assert!(matches!(
                next_hop(&cur, s, Some("/x"), 0, &p),
                Hop::Follow(_)
            ));
        }
    }
}
