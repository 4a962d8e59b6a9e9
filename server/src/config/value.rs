//! The kinds of value a setting takes, and how each is read from a flag or
//! an environment variable (clap), read from the TOML file (serde) and
//! shown as a default (`--help`, the README).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use bytesize::ByteSize;
use clap::builder::{BoolishValueParser, ValueParser};
use clap::{ArgAction, ValueEnum};
use serde::{Deserialize, Deserializer};

use super::LogFormat;

/// A value one setting holds.
pub trait Value: Clone + Send + Sync + 'static {
    /// How clap reads it from a flag or an environment variable.
    fn parser() -> ValueParser;
    /// How serde reads it from the TOML file.
    fn from_toml<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
    /// As `--help` and the README show a default.
    fn show(&self) -> String;
}

/// What a field of [`super::Settings`] is: `Option<V>` for a setting with a
/// value (absent until a source gives it), `bool` for a switch.
pub trait Field: Default {
    /// The value once a default fills an absent one.
    type Value;
    fn action() -> ArgAction;
    fn parser() -> ValueParser;
    fn from_toml<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
    /// This source's value, or else the fallback's.
    fn or(self, fallback: Self) -> Self;
}

impl<V: Value> Field for Option<V> {
    type Value = V;
    fn action() -> ArgAction {
        ArgAction::Set
    }
    fn parser() -> ValueParser {
        V::parser()
    }
    fn from_toml<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        V::from_toml(deserializer).map(Some)
    }
    fn or(self, fallback: Self) -> Self {
        self.or(fallback)
    }
}

/// A switch is on when any source turns it on.
impl Field for bool {
    type Value = bool;
    fn action() -> ArgAction {
        ArgAction::SetTrue
    }
    fn parser() -> ValueParser {
        BoolishValueParser::new().into()
    }
    fn from_toml<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <bool as Deserialize>::deserialize(deserializer)
    }
    fn or(self, fallback: Self) -> Self {
        self || fallback
    }
}

/// serde's `deserialize_with` for every field of [`super::Settings`].
pub fn deserialize<'de, D: Deserializer<'de>, F: Field>(deserializer: D) -> Result<F, D::Error> {
    F::from_toml(deserializer)
}

/// Durations take humantime forms: `500ms`, `30s`, `7days`.
impl Value for Duration {
    fn parser() -> ValueParser {
        ValueParser::new(humantime::parse_duration)
    }
    fn from_toml<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        humantime_serde::deserialize(deserializer)
    }
    fn show(&self) -> String {
        humantime::format_duration(*self).to_string()
    }
}

/// Listen addresses, in the forms of [`parse_listen`].
impl Value for SocketAddr {
    fn parser() -> ValueParser {
        ValueParser::new(parse_listen)
    }
    fn from_toml<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <String as Deserialize>::deserialize(deserializer)?;
        parse_listen(&text).map_err(serde::de::Error::custom)
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

/// Sizes (`64MiB`, `512KiB`, `1GB`), counts, paths, text and the log
/// format: clap's and serde's own readers.
macro_rules! plain_values {
    ($($ty:ty => $show:expr),* $(,)?) => {$(
        impl Value for $ty {
            fn parser() -> ValueParser {
                clap::value_parser!($ty).into()
            }
            fn from_toml<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <$ty as Deserialize>::deserialize(deserializer)
            }
            fn show(&self) -> String {
                let show: fn(&$ty) -> String = $show;
                show(self)
            }
        }
    )*};
}

plain_values! {
    ByteSize => |size| size.display().iec().to_string(),
    LogFormat => |format| {
        let name = format.to_possible_value().map(|value| value.get_name().to_owned());
        name.unwrap_or_default()
    },
    usize => ToString::to_string,
    u32 => ToString::to_string,
    String => Clone::clone,
    PathBuf => |path| path.display().to_string(),
}

/// A listen address: `IP:PORT`, `[IPv6]:PORT`, `localhost:PORT` (the IPv4
/// loopback, without asking a resolver) or `:PORT` (every IPv4 interface).
/// Host names other than localhost are refused: a listener binds an
/// address, and a name can stand for several.
pub fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    let (host, port) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("`{text}` is not HOST:PORT (e.g. 127.0.0.1:8080 or :8080)"))?;
    let port: u16 = port
        .parse()
        .map_err(|_| format!("`{port}` in `{text}` is not a port number (0 to 65535)"))?;
    let ip = match host {
        "" => std::net::Ipv4Addr::UNSPECIFIED.into(),
        "localhost" => std::net::Ipv4Addr::LOCALHOST.into(),
        host => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|_| {
                format!("`{host}` in `{text}` is not an IP address, `localhost`, or empty (every interface)")
            })?,
    };
    Ok(SocketAddr::new(ip, port))
}
