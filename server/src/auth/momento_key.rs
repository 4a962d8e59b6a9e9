//! Momento v1 keys: a jiffy token wrapped the way the official Momento SDKs
//! read a key, base64 of JSON `{"api_key": <token>, "endpoint": <host>}`.
//!
//! The SDKs send `api_key` in the `authorization` header, which the server
//! verifies as any token, and derive where to connect from `endpoint`:
//! `cache.<host>` and `control.<host>` (the Rust SDK also `token.<host>`
//! and, for its protosocket client, `api.cache.<host>`), on port 443 with
//! TLS, unless endpoints are overridden in code.
//!
//! The Python and JavaScript SDKs take a key for v1 only if it is standard
//! base64 with padding (they decode and encode it again and compare); the
//! Rust SDK decodes it as URL-safe base64 with padding. A key readable by
//! all three uses neither `+ /` nor `- _`: the standard encoding of JSON
//! whose bytes are ASCII other than `> ? ~` and DEL has none of them (a
//! sextet of 62 or 63 needs the low six bits of a byte set, or bits above
//! ASCII). A token is a JWT (base64url and dots) and the host is checked
//! by [`parse_endpoint`], so [`wrap`] always gives such a key.

use std::net::{IpAddr, SocketAddr};

use base64::Engine;
use serde::Serialize;

/// The host named for a loopback `--listen`: the SDKs derive
/// `cache.localhost` and `control.localhost`, which resolve to this
/// machine (RFC 6761), as the loopback address does.
pub const LOOPBACK_ENDPOINT: &str = "localhost";

/// The host minted tokens and keys name: `--public-endpoint` if given,
/// else what the server knows of how it is reached, from `listen`: a
/// loopback address is [`LOOPBACK_ENDPOINT`], another IPv4 address itself,
/// and every interface (or an IPv6 address, which is no DNS name) the
/// machine's host name.
pub fn public_endpoint(given: Option<&str>, listen: SocketAddr) -> Result<String, String> {
    if let Some(host) = given {
        return parse_endpoint(host).map_err(|e| format!("--public-endpoint: {e}"));
    }
    Ok(match listen.ip() {
        ip if ip.is_loopback() => LOOPBACK_ENDPOINT.to_owned(),
        IpAddr::V4(ip) if !ip.is_unspecified() => ip.to_string(),
        _ => host_name(),
    })
}

/// This machine's name, or [`LOOPBACK_ENDPOINT`] when it has none that
/// makes DNS names.
fn host_name() -> String {
    gethostname::gethostname()
        .into_string()
        .ok()
        .and_then(|name| parse_endpoint(&name).ok())
        .unwrap_or_else(|| LOOPBACK_ENDPOINT.to_owned())
}

#[derive(Serialize)]
struct V1Key<'a> {
    api_key: &'a str,
    endpoint: &'a str,
}

/// The v1 key carrying `token`, naming `endpoint`.
pub fn wrap(token: &str, endpoint: &str) -> String {
    let json = serde_json::to_vec(&V1Key {
        api_key: token,
        endpoint,
    })
    .expect("two strings always serialize");
    base64::engine::general_purpose::STANDARD.encode(json)
}

/// The token inside a v1 key; `None` for anything else (a bare token).
/// The SDKs unwrap their key themselves; a caller of the HTTP API sends
/// the key as it was given, as Momento's HTTP API accepts it.
pub fn token_of(key: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Wrapped {
        api_key: String,
    }
    let json = base64::engine::general_purpose::STANDARD.decode(key).ok()?;
    serde_json::from_slice::<Wrapped>(&json)
        .ok()
        .map(|wrapped| wrapped.api_key)
}

/// A host name for `--public-endpoint` and `--momento-endpoint`: letters, digits, `-` and `.`, as
/// the SDKs put it after `cache.` and `control.` to make DNS names.
pub fn parse_endpoint(host: &str) -> Result<String, String> {
    let fits = !host.is_empty()
        && host.len() <= 253
        && !host.starts_with(['.', '-'])
        && !host.ends_with('.')
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    if !fits {
        return Err(format!(
            "`{host}` is not a host name (letters, digits, `-` and `.`, e.g. jiffy.example.com); \
             the SDKs connect to cache.HOST and control.HOST"
        ));
    }
    Ok(host.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unwrap(key: &str) -> serde_json::Value {
        let json = base64::engine::general_purpose::STANDARD
            .decode(key)
            .unwrap();
        serde_json::from_slice(&json).unwrap()
    }

    #[test]
    fn a_key_carries_the_token_and_the_host() {
        let key = wrap("a.b-c_d", "jiffy.example.com");
        let json = unwrap(&key);
        assert_eq!(json["api_key"], "a.b-c_d");
        assert_eq!(json["endpoint"], "jiffy.example.com");
        assert_eq!(json.as_object().unwrap().len(), 2);
    }

    #[test]
    fn the_token_is_read_back_out_of_a_key_and_nothing_else() {
        assert_eq!(
            token_of(&wrap("a.b-c_d", "localhost")).as_deref(),
            Some("a.b-c_d")
        );
        assert_eq!(token_of("a.b-c_d"), None);
        assert_eq!(token_of("e30="), None);
    }

    #[test]
    fn host_names_only() {
        for good in ["localhost", "jiffy.example.com", "a-1.b2"] {
            assert_eq!(parse_endpoint(good).as_deref(), Ok(good));
        }
        for bad in [
            "",
            ".x",
            "-x",
            "x.",
            "x:443",
            "https://x",
            "a b",
            "x/y",
            "é.com",
        ] {
            assert!(parse_endpoint(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_endpoint_is_what_the_listen_address_says_unless_given() {
        let at = |text: &str| public_endpoint(None, text.parse().unwrap()).unwrap();
        assert_eq!(at("127.0.0.1:8080"), "localhost");
        assert_eq!(at("[::1]:8080"), "localhost");
        assert_eq!(at("10.1.2.3:8080"), "10.1.2.3");
        let name = host_name();
        assert_eq!(parse_endpoint(&name), Ok(name.clone()));
        assert_eq!(at("0.0.0.0:8080"), name);
        assert_eq!(at("[::]:8080"), name);
        assert_eq!(at("[fd00::1]:8080"), name);
        let given = public_endpoint(Some("jiffy.example.com"), "0.0.0.0:1".parse().unwrap());
        assert_eq!(given.as_deref(), Ok("jiffy.example.com"));
        let bad = public_endpoint(Some("x:443"), "0.0.0.0:1".parse().unwrap()).unwrap_err();
        assert!(bad.starts_with("--public-endpoint: "), "{bad}");
    }

    proptest! {
        /// Any token of the JWT alphabet and any accepted host make a key
        /// that every SDK reads: standard and URL-safe base64 at once.
        #[test]
        fn every_sdk_reads_every_key(
            token in "[A-Za-z0-9_-]{1,40}(\\.[A-Za-z0-9_-]{1,40}){2}",
            host in "[a-z0-9]([a-z0-9.-]{0,30}[a-z0-9])?",
        ) {
            let host = parse_endpoint(&host).unwrap();
            let key = wrap(&token, &host);
            prop_assert!(!key.contains(['+', '/', '-', '_']), "{}", key);
            let json = unwrap(&key);
            let url_safe = base64::engine::general_purpose::URL_SAFE.decode(&key).unwrap();
            prop_assert_eq!(url_safe, serde_json::to_vec(&json).unwrap());
            prop_assert_eq!(json["api_key"].as_str(), Some(token.as_str()));
        }
    }
}
