//! TLS: the rustls acceptor `--tls-cert` and `--tls-key` make, with the ring crypto provider
//! (no aws-lc, nothing to build in C).
//!
//! What it guarantees: the certificate chain and the private key are read from PEM files
//! (the key in PKCS#8, PKCS#1 or SEC1 form, as `openssl` and PostgreSQL's own setups write
//! them) and checked to belong together before the server starts; any problem is an
//! `io::Error` naming the file. TLS 1.2 and 1.3 are offered, with rustls's safe defaults and
//! no client certificates. The server negotiates TLS the way PostgreSQL does (an SSLRequest
//! answered `S`; also PostgreSQL 17's direct TLS with the `postgresql` ALPN protocol), see
//! [`crate::socket`].

use std::io;
use std::path::Path;
use std::sync::Arc;

use pgwire::tokio::TlsAcceptor;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::crypto::ring::default_provider;

/// The ALPN protocol name PostgreSQL 17's direct TLS negotiation asks for.
const POSTGRESQL_ALPN: &[u8] = b"postgresql";

/// A TLS acceptor serving the certificate chain in `certificate` with the key in `key` (both
/// PEM files).
pub fn acceptor_from_pem_files(certificate: &Path, key: &Path) -> io::Result<TlsAcceptor> {
    let invalid = |path: &Path, what: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {what}", path.display()),
        )
    };
    let certificate_pem = std::fs::read(certificate)?;
    let chain = CertificateDer::pem_slice_iter(&certificate_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| invalid(certificate, &format!("not a PEM certificate ({error})")))?;
    if chain.is_empty() {
        return Err(invalid(certificate, "no certificate in the file"));
    }
    let key_pem = std::fs::read(key)?;
    let private_key = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|error| invalid(key, &format!("not a PEM private key ({error})")))?;
    let mut config = ServerConfig::builder_with_provider(Arc::new(default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|error| io::Error::other(error.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, private_key)
        .map_err(|error| invalid(key, &format!("does not fit the certificate ({error})")))?;
    config.alpn_protocols = vec![POSTGRESQL_ALPN.to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
