//! TLS settings: rustls with the webpki-roots store; extra roots only from
//! the host (a test CA, a corporate root), never from a prompt. SNI is the
//! host; ALPN offers `h2` then `http/1.1`. The crypto provider is ring
//! (feature `ring`, on by default) unless the host hands its own (for
//! example aws-lc-rs, through its own rustls dependency): the choice
//! changes the primitives, never the verification, which stays rustls's
//! webpki check against these roots.

use std::sync::Arc;

use rustls::crypto::CryptoProvider;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};

use crate::messages::SetupError;

/// The host-side TLS settings.
#[derive(Clone, Debug, Default)]
pub struct TlsSettings {
    extra_roots: Vec<CertificateDer<'static>>,
    provider: Option<Arc<CryptoProvider>>,
}

impl TlsSettings {
    /// Uses this rustls crypto provider instead of ring (required when
    /// the `ring` feature is off).
    pub fn crypto_provider(&mut self, provider: Arc<CryptoProvider>) {
        self.provider = Some(provider);
    }

    /// Also trusts `root` (DER), beside the webpki-roots store.
    pub fn add_root(&mut self, root: CertificateDer<'static>) {
        self.extra_roots.push(root);
    }

    /// Also trusts every certificate of a PEM file's text.
    pub fn add_pem_roots(&mut self, pem: &[u8]) -> Result<usize, SetupError> {
        use rustls::pki_types::pem::PemObject;
        let mut n = 0;
        for c in CertificateDer::pem_slice_iter(pem) {
            self.extra_roots
                .push(c.map_err(|e| SetupError::PemCertificate(format!("{e:?}")))?);
            n += 1;
        }
        if n == 0 {
            return Err(SetupError::NoPemCertificate);
        }
        Ok(n)
    }

    /// The rustls client configuration.
    pub(crate) fn client_config(&self) -> Result<Arc<ClientConfig>, SetupError> {
        let mut roots = RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        for r in &self.extra_roots {
            roots.add(r.clone()).map_err(SetupError::Root)?;
        }
        let provider = match &self.provider {
            Some(p) => Arc::clone(p),
            // rustls 0.23.48 marks ring's provider deprecated (it has no
            // post-quantum key exchange); ring stays the default here for
            // its pure build (no C toolchain), and a host that wants
            // aws-lc-rs passes its provider. Allowed so that a vendor's
            // `-D warnings` build stays green across the 0.23 series.
            #[cfg(feature = "ring")]
            #[allow(deprecated)]
            None => Arc::new(rustls::crypto::ring::default_provider()),
            #[cfg(not(feature = "ring"))]
            None => return Err(SetupError::NoCryptoProvider),
        };
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(SetupError::Tls)?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }
}
