//! Minting tokens: the permissions of a request read and checked, which
//! token may mint which, and the claims of what is minted.
//!
//! - Only a super user, or a `token create` token of role `admin`, may
//!   mint. An `admin` token mints only permissions within its caches.
//! - A minted token never exceeds its minter. A super user may mint any
//!   explicit permissions but not another super user, as on Momento, where
//!   only a console session mints those; here only an `admin` token over
//!   all caches (the root `token create` makes) does.
//! - Requests are refused INVALID_ARGUMENT for no permissions, an empty or
//!   repeated list, a role of none, a bad cache name or a token id over 64
//!   characters. Function permissions are accepted and grant nothing: the
//!   server has no functions.

use std::collections::HashSet;

use tonic::Status;

use super::claims::{CacheScope, Claims, Refresh, Role, Scope};
use super::permissions::{CacheRole, Items, Permission, Permissions, TopicRole, Topics};
use crate::limits::check_cache_name;
use crate::proto::permission_messages as wire;
use wire::permissions_type::{
    cache_item_selector, cache_permissions, cache_selector, topic_permissions, topic_selector,
    CacheSelector,
};

/// The longest `token_id`, as the official SDKs check it.
pub const MAX_TOKEN_ID_CHARS: usize = 64;

/// The permissions of a request, checked.
pub fn permissions(permissions: Option<&wire::Permissions>) -> Result<Permissions, Status> {
    use wire::permissions::Kind;
    match permissions.and_then(|permissions| permissions.kind.as_ref()) {
        None => Err(invalid("the request carries no permissions")),
        Some(Kind::SuperUser(_)) => Ok(Permissions::SuperUser),
        Some(Kind::Explicit(explicit)) => {
            if explicit.permissions.is_empty() {
                return Err(invalid("the list of permissions is empty"));
            }
            let mut seen = HashSet::new();
            let mut list = Vec::with_capacity(explicit.permissions.len());
            for permission in &explicit.permissions {
                let Some(permission) = one(permission)? else {
                    continue;
                };
                // Two permissions over the same items or topics conflict or
                // repeat each other: refused, as Momento refuses them.
                let target = match &permission {
                    Permission::Cache { caches, items, .. } => {
                        format!("cache {caches:?} {items:?}")
                    }
                    Permission::Topic { caches, topics, .. } => {
                        format!("topic {caches:?} {topics:?}")
                    }
                };
                if !seen.insert(target) {
                    return Err(invalid(
                        "two permissions name the same caches and items or topics",
                    ));
                }
                list.push(permission);
            }
            Ok(Permissions::Explicit(list))
        }
    }
}

/// One permission of a request; `None` for a function permission, which
/// grants nothing here (the server has no functions). Momento's
/// `AllDataReadWrite` preset carries one.
fn one(permission: &wire::PermissionsType) -> Result<Option<Permission>, Status> {
    use wire::permissions_type::Kind;
    match &permission.kind {
        Some(Kind::CachePermissions(cache)) => {
            let role = match wire::CacheRole::try_from(cache.role) {
                Ok(wire::CacheRole::CacheReadWrite) => CacheRole::ReadWrite,
                Ok(wire::CacheRole::CacheReadOnly) => CacheRole::ReadOnly,
                Ok(wire::CacheRole::CacheWriteOnly) => CacheRole::WriteOnly,
                _ => return Err(invalid("a cache permission needs a role")),
            };
            let caches = match &cache.cache {
                Some(cache_permissions::Cache::AllCaches(_)) => CacheScope::All,
                Some(cache_permissions::Cache::CacheSelector(selector)) => named(selector)?,
                None => return Err(invalid("a cache permission needs its caches")),
            };
            let items = match &cache.cache_item {
                None | Some(cache_permissions::CacheItem::AllItems(_)) => Items::All,
                Some(cache_permissions::CacheItem::ItemSelector(selector)) => {
                    match &selector.kind {
                        Some(cache_item_selector::Kind::Key(key)) => Items::Key(key.to_vec()),
                        Some(cache_item_selector::Kind::KeyPrefix(prefix)) => {
                            Items::Prefix(prefix.to_vec())
                        }
                        None => return Err(invalid("an item selector needs a key or a prefix")),
                    }
                }
            };
            Ok(Some(Permission::Cache {
                role,
                caches,
                items,
            }))
        }
        Some(Kind::TopicPermissions(topic)) => {
            let role = match wire::TopicRole::try_from(topic.role) {
                Ok(wire::TopicRole::TopicReadWrite) => TopicRole::PublishSubscribe,
                Ok(wire::TopicRole::TopicReadOnly) => TopicRole::SubscribeOnly,
                Ok(wire::TopicRole::TopicWriteOnly) => TopicRole::PublishOnly,
                _ => return Err(invalid("a topic permission needs a role")),
            };
            let caches = match &topic.cache {
                Some(topic_permissions::Cache::AllCaches(_)) => CacheScope::All,
                Some(topic_permissions::Cache::CacheSelector(selector)) => named(selector)?,
                None => return Err(invalid("a topic permission needs its caches")),
            };
            let topics = match &topic.topic {
                None | Some(topic_permissions::Topic::AllTopics(_)) => Topics::All,
                Some(topic_permissions::Topic::TopicSelector(selector)) => match &selector.kind {
                    Some(topic_selector::Kind::TopicName(name)) => Topics::Name(name.clone()),
                    Some(topic_selector::Kind::TopicNamePrefix(prefix)) => {
                        Topics::Prefix(prefix.clone())
                    }
                    None => return Err(invalid("a topic selector needs a name or a prefix")),
                },
            };
            Ok(Some(Permission::Topic {
                role,
                caches,
                topics,
            }))
        }
        Some(Kind::FunctionPermissions(_)) => Ok(None),
        None => Err(invalid("a permission needs a cache or topic permission")),
    }
}

fn named(selector: &CacheSelector) -> Result<CacheScope, Status> {
    match &selector.kind {
        Some(cache_selector::Kind::CacheName(name)) => {
            check_cache_name(name).map_err(|e| invalid(&e.to_string()))?;
            Ok(CacheScope::Names(vec![name.clone()]))
        }
        None => Err(invalid("a cache selector needs a cache name")),
    }
}

/// A `token_id`, checked: at most [`MAX_TOKEN_ID_CHARS`] characters.
pub fn token_id(token_id: &str) -> Result<Option<String>, Status> {
    if token_id.chars().count() > MAX_TOKEN_ID_CHARS {
        return Err(invalid(&format!(
            "token_id must be at most {MAX_TOKEN_ID_CHARS} characters, not {}",
            token_id.chars().count()
        )));
    }
    Ok((!token_id.is_empty()).then(|| token_id.to_owned()))
}

/// Whether `minter` may mint a token of `minted`: PERMISSION_DENIED
/// naming why not.
pub fn may_mint(rpc: &str, minter: &Claims, minted: &Permissions) -> Result<(), Status> {
    let refused = |why: String| Err(Status::permission_denied(format!("{rpc}: {why}")));
    match (&minter.scope, minted) {
        (
            Scope::Role {
                caches: CacheScope::All,
                role: Role::Admin,
            },
            _,
        ) => Ok(()),
        (
            Scope::Role {
                role: Role::Admin, ..
            },
            Permissions::SuperUser,
        )
        | (
            Scope::Permissions {
                perms: Permissions::SuperUser,
            },
            Permissions::SuperUser,
        ) => refused("only an `admin` token over all caches may mint a super-user token".into()),
        (
            Scope::Permissions {
                perms: Permissions::SuperUser,
            },
            Permissions::Explicit(_),
        ) => Ok(()),
        (
            Scope::Role {
                caches: scope,
                role: Role::Admin,
            },
            Permissions::Explicit(list),
        ) => {
            for permission in list {
                let (Permission::Cache { caches, .. } | Permission::Topic { caches, .. }) =
                    permission;
                let within = match caches {
                    CacheScope::Names(names) => names.iter().all(|name| scope.allows(name)),
                    CacheScope::All | CacheScope::Prefix(_) => false,
                };
                if !within {
                    return refused(format!(
                        "a permission over caches {caches} is beyond the minting token's caches ({scope})"
                    ));
                }
            }
            Ok(())
        }
        _ => refused(
            "only a super-user token or an `admin` token may mint tokens; this one may not".into(),
        ),
    }
}

/// The claims of a minted token, with a fresh random `jti`.
pub fn claims(perms: Permissions, sub: Option<String>, iat: u64, exp: u64) -> Claims {
    Claims {
        sub,
        iat,
        exp,
        jti: Some(nonce()),
        scope: Scope::Permissions { perms },
    }
}

/// The claims of the refresh token of `api`, an api token made to last
/// `valid_for` seconds (`None`: for ever).
///
/// It expires with `api`: RefreshApiToken needs the api token still valid
/// (as Momento's, whose SDKs' tests expect an expired api key's refresh to
/// fail AUTHENTICATION_ERROR), so a refresh token is of no use after it,
/// and one of an api token that never expires never does either. It
/// names `api` by its `jti`, so it renews that token and no other.
pub fn refresh_claims(api: &Claims, valid_for: Option<u64>) -> Claims {
    let Scope::Permissions { perms } = &api.scope else {
        unreachable!("a refresh token is made for a minted api token");
    };
    Claims {
        sub: api.sub.clone(),
        iat: api.iat,
        exp: api.exp,
        jti: Some(nonce()),
        scope: Scope::Refresh {
            refresh: Refresh {
                perms: perms.clone(),
                key: api.jti.clone(),
                valid_for,
            },
        },
    }
}

/// The permissions and lifetime `refresh` renews `api` with, if it is
/// `api`'s refresh token; INVALID_ARGUMENT naming why not.
pub fn renews<'a>(
    api: &'a Claims,
    refresh: &Claims,
) -> Result<(&'a Permissions, Option<u64>), Status> {
    let (Scope::Permissions { perms }, Scope::Refresh { refresh: renews }) =
        (&api.scope, &refresh.scope)
    else {
        return Err(invalid(
            "RefreshApiToken takes an api token made by GenerateApiToken and the refresh token that came with it",
        ));
    };
    let bound = api.jti.is_some() && renews.key == api.jti;
    if !bound || *perms != renews.perms || api.sub != refresh.sub {
        return Err(invalid(
            "the refresh token is not the one of this api token",
        ));
    }
    Ok((perms, renews.valid_for))
}

/// A token id no other mint shares: 128 random bits, base64url.
fn nonce() -> String {
    use base64::Engine;
    use ring::rand::{SecureRandom, SystemRandom};
    let mut bytes = [0u8; 16];
    SystemRandom::new()
        .fill(&mut bytes)
        .expect("the operating system's random source is readable");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn invalid(why: &str) -> Status {
    Status::invalid_argument(why.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::permissions::tests::claims as with_perms;
    use wire::permissions_type::{All, CachePermissions, Kind, TopicPermissions, TopicSelector};

    fn cache(role: wire::CacheRole, name: Option<&str>) -> wire::PermissionsType {
        let cache = match name {
            Some(name) => cache_permissions::Cache::CacheSelector(CacheSelector {
                kind: Some(cache_selector::Kind::CacheName(name.into())),
            }),
            None => cache_permissions::Cache::AllCaches(All {}),
        };
        wire::PermissionsType {
            kind: Some(Kind::CachePermissions(CachePermissions {
                role: role.into(),
                cache: Some(cache),
                cache_item: None,
            })),
        }
    }

    fn explicit(list: Vec<wire::PermissionsType>) -> wire::Permissions {
        wire::Permissions {
            kind: Some(wire::permissions::Kind::Explicit(
                wire::ExplicitPermissions { permissions: list },
            )),
        }
    }

    #[test]
    fn requests_are_read_and_bad_ones_refused() {
        let read = permissions(Some(&explicit(vec![cache(
            wire::CacheRole::CacheReadOnly,
            Some("c"),
        )])))
        .unwrap();
        assert_eq!(
            read,
            Permissions::Explicit(vec![Permission::Cache {
                role: CacheRole::ReadOnly,
                caches: CacheScope::Names(vec!["c".into()]),
                items: Items::All
            }])
        );
        let topic = wire::PermissionsType {
            kind: Some(Kind::TopicPermissions(TopicPermissions {
                role: wire::TopicRole::TopicWriteOnly.into(),
                cache: Some(topic_permissions::Cache::AllCaches(All {})),
                topic: Some(topic_permissions::Topic::TopicSelector(TopicSelector {
                    kind: Some(topic_selector::Kind::TopicNamePrefix("t-".into())),
                })),
            })),
        };
        assert!(permissions(Some(&explicit(vec![topic]))).is_ok());
        // A function permission (AllDataReadWrite carries one) grants nothing.
        let function = wire::PermissionsType {
            kind: Some(Kind::FunctionPermissions(Default::default())),
        };
        let with_function = explicit(vec![
            function,
            cache(wire::CacheRole::CacheReadOnly, Some("c")),
        ]);
        assert_eq!(permissions(Some(&with_function)).unwrap(), read);
        let refused = [
            None,
            Some(explicit(vec![])),
            Some(explicit(vec![cache(
                wire::CacheRole::CachePermitNone,
                None,
            )])),
            Some(explicit(vec![
                cache(wire::CacheRole::CacheReadOnly, Some("c")),
                cache(wire::CacheRole::CacheReadWrite, Some("c")),
            ])),
            Some(explicit(vec![cache(
                wire::CacheRole::CacheReadOnly,
                Some("bad name!"),
            )])),
        ];
        for request in refused {
            let status = permissions(request.as_ref()).unwrap_err();
            assert_eq!(status.code(), tonic::Code::InvalidArgument, "{request:?}");
        }
        assert!(token_id(&"x".repeat(64)).is_ok() && token_id(&"x".repeat(65)).is_err());
        assert_eq!(token_id("").unwrap(), None);
    }

    #[test]
    fn only_super_users_and_admins_mint_and_never_beyond_themselves() {
        let root = Claims::with_role(None, 0, u64::MAX, CacheScope::All, Role::Admin);
        let team = Claims::with_role(
            None,
            0,
            u64::MAX,
            CacheScope::Prefix("team-".into()),
            Role::Admin,
        );
        let writer = Claims::with_role(None, 0, u64::MAX, CacheScope::All, Role::Write);
        let super_user = with_perms(Permissions::SuperUser);
        let all_data = with_perms(Permissions::Explicit(vec![Permission::Cache {
            role: CacheRole::ReadWrite,
            caches: CacheScope::All,
            items: Items::All,
        }]));
        let on = |cache: Option<&str>| {
            Permissions::Explicit(vec![Permission::Cache {
                role: CacheRole::ReadOnly,
                caches: cache.map_or(CacheScope::All, |c| CacheScope::Names(vec![c.into()])),
                items: Items::All,
            }])
        };
        assert!(may_mint("m", &root, &Permissions::SuperUser).is_ok());
        assert!(may_mint("m", &super_user, &on(None)).is_ok());
        assert!(may_mint("m", &super_user, &Permissions::SuperUser).is_err());
        assert!(may_mint("m", &team, &on(Some("team-a"))).is_ok());
        assert!(may_mint("m", &team, &on(Some("other"))).is_err());
        assert!(may_mint("m", &team, &on(None)).is_err());
        assert!(may_mint("m", &team, &Permissions::SuperUser).is_err());
        for weak in [&writer, &all_data] {
            let status = may_mint("m", weak, &on(Some("c"))).unwrap_err();
            assert_eq!(status.code(), tonic::Code::PermissionDenied);
        }
    }

    #[test]
    fn every_mint_is_unique_and_its_refresh_token_renews_it_alone() {
        let perms = Permissions::SuperUser;
        let first = claims(perms.clone(), None, 7, 100);
        let second = claims(perms, None, 7, 100);
        assert_ne!(first.jti, second.jti, "same permissions, same second");
        assert_eq!(first.jti.as_ref().map(String::len), Some(22));
        let refresh = refresh_claims(&first, Some(93));
        assert_eq!(refresh.exp, first.exp, "it expires with its api token");
        assert_ne!(refresh.jti, first.jti);
        assert_eq!(renews(&first, &refresh).unwrap().1, Some(93));
        let other = renews(&second, &refresh).unwrap_err();
        assert_eq!(other.code(), tonic::Code::InvalidArgument);
        assert!(other.message().contains("not the one of this api token"));
        // A refresh token given as the api token, or an api token as the
        // refresh token.
        assert!(renews(&refresh, &refresh).is_err() && renews(&first, &second).is_err());
        let never = claims(Permissions::SuperUser, None, 7, u64::MAX);
        assert_eq!(refresh_claims(&never, None).exp, u64::MAX);
    }
}
