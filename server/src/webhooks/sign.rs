//! Signing secrets and signatures, as Momento signs webhook deliveries: the
//! `momento-signature` header is the lowercase hex HMAC SHA3-256 of the raw
//! body, keyed with the webhook's secret (its UTF-8 bytes). A receiver
//! checks it with the official SDKs' `validateWebhookRequest`, or with
//! ours (`validate_webhook_request` / `validateWebhookRequest`).

use base64::Engine;
use hmac::{Hmac, Mac};
use ring::rand::{SecureRandom, SystemRandom};
use sha3::Sha3_256;

/// Bytes of randomness in a secret (256 bits, the HMAC's own size).
const SECRET_BYTES: usize = 32;

/// A fresh secret: 32 random bytes, base64url without padding (43
/// characters, safe in headers, JSON and environment variables).
pub fn new_secret() -> String {
    let mut bytes = [0u8; SECRET_BYTES];
    SystemRandom::new()
        .fill(&mut bytes)
        .expect("the system's random source");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The `momento-signature` of `body` under `secret`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha3_256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any size");
    mac.update(body);
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_the_hmac_sha3_256_of_the_body_in_hex() {
        // The value Node's crypto.createHmac('SHA3-256', 'secret')
        // .update('{"text":"hi"}').digest('hex') gives.
        let signed = signature("secret", br#"{"text":"hi"}"#);
        assert_eq!(
            signed,
            "a5e5edbd1fdbac0768fc9e72d41e8888db4a83395007be37b929ad5c9a59c9dd"
        );
        assert_ne!(signed, signature("secret2", br#"{"text":"hi"}"#));
        assert_ne!(signed, signature("secret", br#"{"text":"ho"}"#));
    }

    #[test]
    fn secrets_are_fresh_and_header_safe() {
        let (a, b) = (new_secret(), new_secret());
        assert_ne!(a, b);
        assert_eq!(a.len(), 43);
        assert!(a
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
    }
}
