//! What a token grants: a role and the caches it reaches.

use serde::{Deserialize, Serialize};

pub use super::permissions::Permissions;
use crate::limits::check_cache_name;

/// Rights, each including the ones before it: `write` can read, `admin` can
/// also create, delete and flush caches.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Read,
    Write,
    Admin,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Read => "read",
            Role::Write => "write",
            Role::Admin => "admin",
        }
    }
}

/// The caches a token reaches. On the wire: `"all"`, `{"names": [..]}` or
/// `{"prefix": ".."}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    All,
    Names(Vec<String>),
    Prefix(String),
}

impl CacheScope {
    pub fn allows(&self, cache: &str) -> bool {
        match self {
            CacheScope::All => true,
            CacheScope::Names(names) => names.iter().any(|name| name == cache),
            CacheScope::Prefix(prefix) => cache.starts_with(prefix.as_str()),
        }
    }

    /// The `--caches` forms: `all`, `prefix:team-`, or `a,b,c`.
    pub fn parse(text: &str) -> Result<CacheScope, String> {
        let text = text.trim();
        if text == "all" {
            return Ok(CacheScope::All);
        }
        if let Some(prefix) = text.strip_prefix("prefix:") {
            if prefix.is_empty() {
                return Err("`prefix:` needs a prefix; for every cache say `all`".into());
            }
            // A prefix is the start of a valid name, so it obeys the same rules.
            check_cache_name(prefix).map_err(|e| e.to_string())?;
            return Ok(CacheScope::Prefix(prefix.to_owned()));
        }
        let names: Vec<String> = text
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect();
        if names.is_empty() {
            return Err("--caches needs `all`, `prefix:NAME-START` or a list `a,b,c`".into());
        }
        for name in &names {
            check_cache_name(name).map_err(|e| e.to_string())?;
        }
        Ok(CacheScope::Names(names))
    }
}

impl std::fmt::Display for CacheScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CacheScope::All => f.write_str("all"),
            CacheScope::Names(names) => f.write_str(&names.join(",")),
            CacheScope::Prefix(prefix) => write!(f, "prefix:{prefix}"),
        }
    }
}

/// The claims of a token. `exp` and `iat` are seconds since the Unix epoch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// Who the token is for, as told to `token create --subject`, or the
    /// `token_id` of a minted token: subscribers see it on every message
    /// published with the token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub: Option<String>,
    pub iat: u64,
    pub exp: u64,
    /// A random id of each minted token: two mints of the same permissions
    /// in the same second differ, and a refresh token names the one api
    /// token it renews. `token create` tokens carry none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jti: Option<String>,
    /// What the token grants, beside the fields above in the JSON.
    #[serde(flatten)]
    pub scope: Scope,
}

/// What a token grants: a role over some caches (`token create`), or
/// Momento's permissions (minted by the token and auth services).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scope {
    /// `token create`'s tokens: `{"caches": .., "role": ..}`.
    Role { caches: CacheScope, role: Role },
    /// A minted token: `{"perms": ..}`.
    Permissions { perms: Permissions },
    /// A refresh token: `{"refresh": ..}`. It renews an api token of the
    /// same permissions and grants nothing else: the verifier refuses it
    /// as a token for calls.
    Refresh { refresh: Refresh },
}

/// What a refresh token renews.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refresh {
    pub perms: Permissions,
    /// The `jti` of the one api token it renews: another key's refresh
    /// token is refused, whatever its permissions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// How long each api token it makes is valid, in seconds; `None` for
    /// tokens that never expire.
    pub valid_for: Option<u64>,
}

impl Claims {
    /// A `token create` token: `role` over `caches`.
    pub fn with_role(
        sub: Option<String>,
        iat: u64,
        exp: u64,
        caches: CacheScope,
        role: Role,
    ) -> Self {
        Claims {
            sub,
            iat,
            exp,
            jti: None,
            scope: Scope::Role { caches, role },
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_parse_and_match() {
        assert!(CacheScope::parse("all").unwrap().allows("anything"));
        let names = CacheScope::parse("a, b").unwrap();
        assert!(names.allows("a") && names.allows("b") && !names.allows("ab"));
        let prefix = CacheScope::parse("prefix:team-").unwrap();
        assert!(prefix.allows("team-x") && !prefix.allows("team") && !prefix.allows("x-team-"));
        assert!(CacheScope::parse("prefix:").is_err());
        assert!(CacheScope::parse(",").is_err());
        assert!(CacheScope::parse("bad name!").is_err());
    }

    #[test]
    fn roles_include_the_lesser_ones() {
        assert!(Role::Admin > Role::Write && Role::Write > Role::Read);
    }
}
