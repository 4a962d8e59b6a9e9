//! The query string of a call: the item's key (`key`, or `key_base64` for
//! a binary one), `ttl_seconds`, and `token`; a presigned set's
//! `ttl_milliseconds`.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use bytes::Bytes;

use crate::error::Error;

/// Base64 with the URL-safe alphabet, padded or not (the key is in a URL).
const KEY_BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The parameters the API reads; any other is ignored, as Momento does.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Query {
    pub key: Option<String>,
    pub key_base64: Option<String>,
    pub ttl_seconds: Option<String>,
    pub token: Option<String>,
    /// A presigned set's TTL, as the URL gives it; the signed one rules.
    pub ttl_milliseconds: Option<String>,
}

impl Query {
    /// The parameters of `query` (percent-decoded); a repeated one keeps
    /// its first value.
    pub fn parse(query: Option<&str>) -> Query {
        let mut parsed = Query::default();
        for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
            let slot = match &*name {
                "key" => &mut parsed.key,
                "key_base64" => &mut parsed.key_base64,
                "ttl_seconds" => &mut parsed.ttl_seconds,
                "token" => &mut parsed.token,
                "ttl_milliseconds" => &mut parsed.ttl_milliseconds,
                _ => continue,
            };
            slot.get_or_insert_with(|| value.into_owned());
        }
        parsed
    }

    /// The item's key: exactly one of `key` and `key_base64`.
    pub fn key(&self) -> Result<Bytes, Error> {
        match (&self.key, &self.key_base64) {
            (Some(key), None) => Ok(Bytes::copy_from_slice(key.as_bytes())),
            (None, Some(encoded)) => KEY_BASE64.decode(encoded).map(Bytes::from).map_err(|e| {
                Error::InvalidArgument(format!("key_base64 is not URL-safe base64: {e}"))
            }),
            (Some(_), Some(_)) => Err(Error::InvalidArgument(
                "give the key as `key` or as `key_base64`, not both".into(),
            )),
            (None, None) => Err(Error::InvalidArgument(
                "the key is missing: give it as the `key` query parameter, or `key_base64` for a binary key".into(),
            )),
        }
    }

    /// `ttl_seconds` in milliseconds: required by a PUT.
    pub fn ttl_milliseconds(&self) -> Result<u64, Error> {
        let Some(text) = &self.ttl_seconds else {
            return Err(Error::InvalidArgument(
                "ttl_seconds is missing: a PUT gives the item's time to live in seconds".into(),
            ));
        };
        let seconds: u64 = text.parse().map_err(|_| {
            Error::InvalidArgument(format!(
                "ttl_seconds `{text}` is not a whole number of seconds"
            ))
        })?;
        Ok(seconds.saturating_mul(1000))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_percent_decoded_and_others_ignored() {
        let query = Query::parse(Some("key=a%20b%2Fc&ttl_seconds=60&token=t%2B&value=x"));
        assert_eq!(query.key(), Ok(Bytes::from_static(b"a b/c")));
        assert_eq!(query.ttl_milliseconds(), Ok(60_000));
        assert_eq!(query.token.as_deref(), Some("t+"));
    }

    #[test]
    fn a_binary_key_is_url_safe_base64_with_or_without_padding() {
        for encoded in ["_-8", "_-8=", "ZXhhbXBsZV9rZXk"] {
            let query = Query::parse(Some(&format!("key_base64={encoded}")));
            assert!(query.key().is_ok(), "{encoded}");
        }
        let query = Query::parse(Some("key_base64=_-8"));
        assert_eq!(query.key(), Ok(Bytes::from_static(&[0xff, 0xef])));
        assert!(Query::parse(Some("key_base64=%%%")).key().is_err());
    }

    #[test]
    fn the_key_is_given_exactly_once() {
        assert!(Query::parse(None).key().is_err());
        assert!(Query::parse(Some("key=a&key_base64=YQ")).key().is_err());
        assert_eq!(
            Query::parse(Some("key=a&key=b")).key(),
            Ok(Bytes::from_static(b"a"))
        );
    }

    #[test]
    fn ttl_seconds_is_required_and_whole() {
        assert!(Query::parse(Some("key=a")).ttl_milliseconds().is_err());
        assert!(Query::parse(Some("ttl_seconds=1.5"))
            .ttl_milliseconds()
            .is_err());
        assert!(Query::parse(Some("ttl_seconds=-1"))
            .ttl_milliseconds()
            .is_err());
        assert_eq!(
            Query::parse(Some("ttl_seconds=0")).ttl_milliseconds(),
            Ok(0)
        );
    }
}
