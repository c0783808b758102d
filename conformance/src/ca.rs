//! A test certificate authority made at start-up. Its root goes to the
//! fetcher through the host-side TLS setting (`TlsSettings::add_root`);
//! servers present leaf certificates it signs for the vector's names, or,
//! when a vector asks, a wrong name, an expired one, or a self-signed one.

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// What certificate a server presents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CertKind {
    /// Signed by the test CA for the server's names.
    Valid,
    /// Signed by the test CA for `wrong.invalid` only.
    WrongName,
    /// Signed by the test CA, valid names, expired a year ago.
    Expired,
    /// Self-signed for the right names (no chain to a trusted root).
    SelfSigned,
}

/// The CA: its root certificate and its signing key.
pub struct TestCa {
    root: CertificateDer<'static>,
    issuer: Issuer<'static, KeyPair>,
}

impl std::fmt::Debug for TestCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TestCa")
    }
}

impl TestCa {
    /// A TLS server configuration for `names` with a leaf of this `kind`,
    /// offering these ALPN protocols (the servers of the simulator, the
    /// loopback server and the hostile servers all start here).
    pub fn server_config(
        &self,
        names: &[String],
        kind: CertKind,
        alpn: &[&[u8]],
    ) -> Result<rustls::ServerConfig, String> {
        let (chain, key) = self.leaf(names, kind);
        // ring, as the client's default (see `core/src/net/tls.rs` for why
        // its deprecation in rustls 0.23.48 is allowed).
        #[allow(deprecated)]
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let mut cfg = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| e.to_string())?;
        cfg.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Ok(cfg)
    }

    /// A fresh CA.
    pub fn new() -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "webgate conformance test CA");
        let key = KeyPair::generate().expect("CA key");
        let cert = params.self_signed(&key).expect("CA certificate");
        TestCa {
            root: cert.der().clone(),
            issuer: Issuer::new(params, key),
        }
    }

    /// The root to trust.
    pub fn root(&self) -> CertificateDer<'static> {
        self.root.clone()
    }

    /// The root as PEM text (for `--ca-file`).
    pub fn root_pem(&self) -> String {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(self.root.as_ref());
        let lines: Vec<&str> = b64
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).unwrap_or(""))
            .collect();
        format!(
            "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
            lines.join("\n")
        )
    }

    /// A leaf certificate chain and key for `names`.
    pub fn leaf(
        &self,
        names: &[String],
        kind: CertKind,
    ) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
        let names: Vec<String> = match kind {
            CertKind::WrongName => vec!["wrong.invalid".to_string()],
            _ => names.to_vec(),
        };
        let mut params = CertificateParams::new(names).expect("leaf params");
        if kind == CertKind::Expired {
            let now = time::OffsetDateTime::now_utc();
            params.not_before = now - time::Duration::days(730);
            params.not_after = now - time::Duration::days(365);
        }
        let key = KeyPair::generate().expect("leaf key");
        let cert = match kind {
            CertKind::SelfSigned => params.self_signed(&key),
            _ => params.signed_by(&key, &self.issuer),
        }
        .expect("leaf certificate");
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        (vec![cert.der().clone()], key)
    }
}

impl TestCa {
    /// A leaf for `names` as PEM text: (certificate, PKCS#8 key), for
    /// real server software (`cargo xtask interop`).
    pub fn leaf_pem(&self, names: &[String]) -> (String, String) {
        let params = CertificateParams::new(names.to_vec()).expect("leaf params");
        let key = KeyPair::generate().expect("leaf key");
        let cert = params
            .signed_by(&key, &self.issuer)
            .expect("leaf certificate");
        (cert.pem(), key.serialize_pem())
    }
}

impl Default for TestCa {
    fn default() -> Self {
        TestCa::new()
    }
}
