//! The server secret that signs and verifies tokens.

use std::path::Path;
use std::sync::Arc;

/// HS256 is as strong as its key: below 32 bytes (256 bits) a secret is
/// weaker than the hash, so it is refused.
pub const MIN_SECRET_LEN: usize = 32;

/// Secret bytes; `Debug` never shows them (the configuration is logged).
#[derive(Clone)]
pub struct Secret(Arc<[u8]>);

impl Secret {
    /// The file's bytes, without leading or trailing whitespace (so a secret
    /// written by `openssl rand -base64 48 > FILE` works as it is).
    pub fn read(path: &Path) -> Result<Secret, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read --auth-secret-file {}: {e}", path.display()))?;
        Secret::from_bytes(bytes.trim_ascii()).map_err(|e| format!("{e} ({})", path.display()))
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Secret, String> {
        if bytes.len() < MIN_SECRET_LEN {
            return Err(format!(
                "--auth-secret-file holds {} bytes; a secret needs at least {MIN_SECRET_LEN} \
                 (make one with `openssl rand -base64 48`)",
                bytes.len()
            ));
        }
        Ok(Secret(bytes.into()))
    }

    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_secrets_are_refused_and_never_printed() {
        let err = Secret::from_bytes(b"short").unwrap_err();
        assert!(err.contains("at least 32"), "{err}");
        let secret = Secret::from_bytes(&[b'x'; 32]).unwrap();
        assert!(!format!("{secret:?}").contains("xxx"));
    }
}
