//! Momento's permission model, and the one place that decides what a token
//! may do.
//!
//! A minted token carries either *super user* (everything, control plane
//! and minting included) or a list of explicit permissions, each a cache
//! permission or a topic permission:
//!
//! - a cache permission: a role (read-write; read-only; write-only, which
//!   can neither read nor make writes whose answer depends on what is
//!   stored), over all caches or one, over all items, one key or a key
//!   prefix (for a collection, its name is the key);
//! - a topic permission: a role (publish and subscribe; subscribe only;
//!   publish only), over all caches or one, over all topics, one topic or
//!   a topic name prefix.
//!
//! A call is allowed when some permission allows it; a batch, when every
//! key it names is. `token create`'s tokens (a role over some caches) are
//! read through the same checks: `read` is read-only and subscribe-only,
//! `write` read-write and publish-subscribe, `admin` also creates, deletes
//! and flushes the caches of its scope and may mint tokens within it.

use serde::{Deserialize, Serialize};

use super::claims::{CacheScope, Claims, Role, Scope};

/// The rights of a minted token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Permissions {
    SuperUser,
    Explicit(Vec<Permission>),
}

/// One explicit permission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Permission {
    Cache {
        role: CacheRole,
        caches: CacheScope,
        items: Items,
    },
    Topic {
        role: TopicRole,
        caches: CacheScope,
        topics: Topics,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheRole {
    ReadWrite,
    ReadOnly,
    WriteOnly,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopicRole {
    PublishSubscribe,
    SubscribeOnly,
    PublishOnly,
}

/// The items of a cache a permission reaches, by key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Items {
    All,
    Key(Vec<u8>),
    Prefix(Vec<u8>),
}

/// The topics of a cache a permission reaches, by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topics {
    All,
    Name(String),
    Prefix(String),
}

/// What a data call does to the items it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOp {
    Read,
    Write,
    /// A write whose answer depends on what is stored (SetIf, Increment,
    /// a pop, ...): it reads as it writes, so it needs both.
    ReadWrite,
}

impl CacheOp {
    fn name(self) -> &'static str {
        match self {
            CacheOp::Read => "read",
            CacheOp::Write => "write",
            CacheOp::ReadWrite => "read-write (the call reads as it writes)",
        }
    }
}

/// The writes that answer from what was stored, or decide by it: a
/// write-only token may not make them.
const READS_AS_IT_WRITES: &[&str] = &[
    "SetIf",
    "SetIfNotExists",
    "SetIfHash",
    "Increment",
    "DictionaryIncrement",
    "SetPop",
    "ListPopFront",
    "ListPopBack",
    "SortedSetIncrement",
    "SortedSetUnionStore",
];

impl CacheOp {
    /// The op of a data call, from its catalogue name and whether it writes.
    pub fn of(rpc: &str, writes: bool) -> CacheOp {
        match (writes, READS_AS_IT_WRITES.contains(&rpc)) {
            (false, _) => CacheOp::Read,
            (true, false) => CacheOp::Write,
            (true, true) => CacheOp::ReadWrite,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopicOp {
    Publish,
    Subscribe,
}

/// What a role grants or an op needs, as (reading, writing): subscribing
/// reads a topic, publishing writes it.
type Sides = (bool, bool);

/// Whether a role of `has` sides allows an op that `needs` these.
fn covers(has: Sides, needs: Sides) -> bool {
    (has.0 || !needs.0) && (has.1 || !needs.1)
}

impl CacheRole {
    fn sides(self) -> Sides {
        match self {
            CacheRole::ReadWrite => (true, true),
            CacheRole::ReadOnly => (true, false),
            CacheRole::WriteOnly => (false, true),
        }
    }
}

impl CacheOp {
    fn needs(self) -> Sides {
        match self {
            CacheOp::Read => (true, false),
            CacheOp::Write => (false, true),
            CacheOp::ReadWrite => (true, true),
        }
    }
}

impl TopicRole {
    fn sides(self) -> Sides {
        match self {
            TopicRole::PublishSubscribe => (true, true),
            TopicRole::SubscribeOnly => (true, false),
            TopicRole::PublishOnly => (false, true),
        }
    }
}

impl TopicOp {
    fn needs(self) -> Sides {
        match self {
            TopicOp::Subscribe => (true, false),
            TopicOp::Publish => (false, true),
        }
    }
}

impl Items {
    pub fn allows(&self, key: &[u8]) -> bool {
        match self {
            Items::All => true,
            Items::Key(only) => only.as_slice() == key,
            Items::Prefix(prefix) => key.starts_with(prefix),
        }
    }
}

impl Topics {
    pub fn allows(&self, topic: &str) -> bool {
        match self {
            Topics::All => true,
            Topics::Name(only) => only == topic,
            Topics::Prefix(prefix) => topic.starts_with(prefix.as_str()),
        }
    }
}

/// How much of a cache a data call may touch, before its keys are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Every item: no key needs checking.
    Everything,
    /// Some keys only: each key of the call must be checked.
    SomeKeys,
    /// No item at all.
    Nothing,
}

/// A `token create` role read as cache and topic roles.
fn legacy_cache_role(role: Role) -> CacheRole {
    match role {
        Role::Read => CacheRole::ReadOnly,
        Role::Write | Role::Admin => CacheRole::ReadWrite,
    }
}

fn legacy_topic_role(role: Role) -> TopicRole {
    match role {
        Role::Read => TopicRole::SubscribeOnly,
        Role::Write | Role::Admin => TopicRole::PublishSubscribe,
    }
}

/// One permission, borrowed from a token: how both kinds of token are read.
#[derive(Clone, Copy)]
enum Rule<'a> {
    Cache(CacheRole, &'a CacheScope, &'a Items),
    Topic(TopicRole, &'a CacheScope, &'a Topics),
}

static ALL_ITEMS: Items = Items::All;
static ALL_TOPICS: Topics = Topics::All;

impl<'a> From<&'a Permission> for Rule<'a> {
    fn from(permission: &'a Permission) -> Self {
        match permission {
            Permission::Cache {
                role,
                caches,
                items,
            } => Rule::Cache(*role, caches, items),
            Permission::Topic {
                role,
                caches,
                topics,
            } => Rule::Topic(*role, caches, topics),
        }
    }
}

impl Claims {
    /// The token's permissions, or `None` for a super user. `token
    /// create`'s tokens read as one cache and one topic permission. No
    /// allocation: this runs on every call.
    fn rules(&self) -> Option<impl Iterator<Item = Rule<'_>>> {
        let (legacy, explicit): ([Option<Rule<'_>>; 2], &[Permission]) = match &self.scope {
            Scope::Permissions {
                perms: Permissions::SuperUser,
            } => return None,
            Scope::Permissions {
                perms: Permissions::Explicit(list),
            } => ([None, None], list),
            Scope::Role { caches, role } => (
                [
                    Some(Rule::Cache(legacy_cache_role(*role), caches, &ALL_ITEMS)),
                    Some(Rule::Topic(legacy_topic_role(*role), caches, &ALL_TOPICS)),
                ],
                &[],
            ),
            // Refused by the verifier before any call; grants nothing.
            Scope::Refresh { .. } => ([None, None], &[]),
        };
        Some(
            legacy
                .into_iter()
                .flatten()
                .chain(explicit.iter().map(Rule::from)),
        )
    }

    /// The item selectors of the permissions that allow `op` on `cache`,
    /// or `None` for a super user.
    fn items_for<'a>(
        &'a self,
        op: CacheOp,
        cache: &'a str,
    ) -> Option<impl Iterator<Item = &'a Items> + 'a> {
        Some(self.rules()?.filter_map(move |rule| match rule {
            Rule::Cache(role, caches, items)
                if covers(role.sides(), op.needs()) && caches.allows(cache) =>
            {
                Some(items)
            }
            _ => None,
        }))
    }

    /// How much of `cache` a data call doing `op` may touch.
    pub fn reach(&self, op: CacheOp, cache: &str) -> Reach {
        let Some(items) = self.items_for(op, cache) else {
            return Reach::Everything;
        };
        let mut reach = Reach::Nothing;
        for items in items {
            if *items == Items::All {
                return Reach::Everything;
            }
            reach = Reach::SomeKeys;
        }
        reach
    }

    /// Whether a data call doing `op` may touch `key` of `cache`.
    pub fn allows_key(&self, op: CacheOp, cache: &str, key: &[u8]) -> bool {
        match self.items_for(op, cache) {
            None => true,
            Some(mut items) => items.any(|items| items.allows(key)),
        }
    }

    /// Whether the token may `op` the topic `topic` of `cache`.
    pub fn allows_topic(&self, op: TopicOp, cache: &str, topic: &str) -> bool {
        let Some(mut rules) = self.rules() else {
            return true;
        };
        rules.any(|rule| match rule {
            Rule::Topic(role, caches, topics) => {
                covers(role.sides(), op.needs()) && caches.allows(cache) && topics.allows(topic)
            }
            Rule::Cache(..) => false,
        })
    }

    pub fn is_super_user(&self) -> bool {
        self.scope
            == Scope::Permissions {
                perms: Permissions::SuperUser,
            }
    }

    /// Whether the token may create, delete and flush `cache`: a super
    /// user, or an `admin` token whose caches include it.
    pub fn allows_control(&self, cache: &str) -> bool {
        match &self.scope {
            Scope::Permissions {
                perms: Permissions::SuperUser,
            } => true,
            Scope::Role {
                caches,
                role: Role::Admin,
            } => caches.allows(cache),
            _ => false,
        }
    }

    /// Whether ListCaches shows `cache`: the token has some right on it.
    pub fn sees_cache(&self, cache: &str) -> bool {
        let Some(mut rules) = self.rules() else {
            return true;
        };
        rules.any(|rule| match rule {
            Rule::Cache(_, caches, _) | Rule::Topic(_, caches, _) => caches.allows(cache),
        })
    }

    /// Why a data call was refused, naming what the token lacks.
    pub fn data_denial(&self, rpc: &str, op: CacheOp, cache: &str, key: Option<&[u8]>) -> String {
        if let Scope::Role { caches, role } = &self.scope {
            // `token create`'s tokens keep their messages: role, then scope.
            let needed = if op == CacheOp::Read {
                Role::Read
            } else {
                Role::Write
            };
            if *role < needed {
                return format!(
                    "{rpc} needs a `{}` token; this one is `{}`",
                    needed.name(),
                    role.name()
                );
            }
            if !caches.allows(cache) {
                return super::denial(rpc, cache);
            }
        }
        match key {
            Some(key) => format!(
                "{rpc} on key `{}` of cache `{cache}`: the token grants no {} permission on that key",
                shown(key),
                op.name()
            ),
            None => format!(
                "{rpc} on cache `{cache}`: the token grants no {} permission on it",
                op.name()
            ),
        }
    }

    /// Why a topic call was refused, naming what the token lacks.
    pub fn topic_denial(&self, rpc: &str, op: TopicOp, cache: &str, topic: &str) -> String {
        if let Scope::Role { caches, role } = &self.scope {
            let needed = match op {
                TopicOp::Subscribe => Role::Read,
                TopicOp::Publish => Role::Write,
            };
            if *role < needed {
                return format!(
                    "{rpc} needs a `{}` token; this one is `{}`",
                    needed.name(),
                    role.name()
                );
            }
            if !caches.allows(cache) {
                return super::denial(rpc, cache);
            }
        }
        let what = match op {
            TopicOp::Publish => "publish",
            TopicOp::Subscribe => "subscribe",
        };
        format!("{rpc} on topic `{topic}` of cache `{cache}`: the token grants no {what} permission on it")
    }
}

/// A key in a message: as text when it is printable, else in hex, and
/// at most 64 bytes of it.
fn shown(key: &[u8]) -> String {
    let head = &key[..key.len().min(64)];
    let more = if key.len() > head.len() { "..." } else { "" };
    match std::str::from_utf8(head) {
        Ok(text) if !text.chars().any(char::is_control) => format!("{text}{more}"),
        _ => format!("0x{}{more}", hex(head)),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    pub(crate) fn claims(perms: Permissions) -> Claims {
        Claims {
            sub: None,
            iat: 0,
            exp: u64::MAX,
            jti: None,
            scope: Scope::Permissions { perms },
        }
    }

    fn cache_perm(role: CacheRole, caches: CacheScope, items: Items) -> Permission {
        Permission::Cache {
            role,
            caches,
            items,
        }
    }

    #[test]
    fn write_only_neither_reads_nor_writes_conditionally() {
        let token = claims(Permissions::Explicit(vec![cache_perm(
            CacheRole::WriteOnly,
            CacheScope::All,
            Items::All,
        )]));
        assert_eq!(
            token.reach(CacheOp::of("Set", true), "c"),
            Reach::Everything
        );
        assert_eq!(token.reach(CacheOp::of("Get", false), "c"), Reach::Nothing);
        for conditional in ["SetIfNotExists", "Increment", "ListPopFront"] {
            assert_eq!(
                token.reach(CacheOp::of(conditional, true), "c"),
                Reach::Nothing
            );
        }
    }

    #[test]
    fn keys_and_prefixes_reach_only_their_items() {
        let token = claims(Permissions::Explicit(vec![
            cache_perm(
                CacheRole::ReadOnly,
                CacheScope::All,
                Items::Key(b"cow".to_vec()),
            ),
            cache_perm(
                CacheRole::ReadWrite,
                CacheScope::Names(vec!["one".into()]),
                Items::Prefix(b"pet-".to_vec()),
            ),
        ]));
        assert_eq!(token.reach(CacheOp::Read, "two"), Reach::SomeKeys);
        assert!(token.allows_key(CacheOp::Read, "two", b"cow"));
        assert!(!token.allows_key(CacheOp::Read, "two", b"cows"));
        assert!(!token.allows_key(CacheOp::Read, "two", b"pet-fish"));
        assert!(token.allows_key(CacheOp::Write, "one", b"pet-fish"));
        assert!(!token.allows_key(CacheOp::Write, "one", b"cow"));
        assert_eq!(token.reach(CacheOp::Write, "two"), Reach::Nothing);
        let denial = token.data_denial("Set", CacheOp::Write, "one", Some(b"cow"));
        assert!(
            denial.contains("`cow`") && denial.contains("write"),
            "{denial}"
        );
    }

    #[test]
    fn role_tokens_read_as_before() {
        let reader = Claims::with_role(
            None,
            0,
            u64::MAX,
            CacheScope::Names(vec!["a".into()]),
            Role::Read,
        );
        assert_eq!(reader.reach(CacheOp::Read, "a"), Reach::Everything);
        assert_eq!(reader.reach(CacheOp::Read, "b"), Reach::Nothing);
        assert_eq!(reader.reach(CacheOp::Write, "a"), Reach::Nothing);
        assert!(reader.allows_topic(TopicOp::Subscribe, "a", "t"));
        assert!(!reader.allows_topic(TopicOp::Publish, "a", "t"));
        assert!(!reader.allows_control("a"));
        let denial = reader.data_denial("Set", CacheOp::Write, "a", None);
        assert!(denial.contains("`write`"), "{denial}");
        let admin = Claims::with_role(None, 0, u64::MAX, CacheScope::All, Role::Admin);
        assert!(admin.allows_control("x") && admin.allows_topic(TopicOp::Publish, "x", "t"));
    }

    #[test]
    fn a_refresh_token_grants_nothing() {
        let refresh = Claims {
            sub: None,
            iat: 0,
            exp: u64::MAX,
            jti: None,
            scope: Scope::Refresh {
                refresh: super::super::claims::Refresh {
                    perms: Permissions::SuperUser,
                    key: None,
                    valid_for: None,
                },
            },
        };
        assert_eq!(refresh.reach(CacheOp::Read, "c"), Reach::Nothing);
        assert!(!refresh.allows_topic(TopicOp::Subscribe, "c", "t"));
        assert!(!refresh.allows_control("c") && !refresh.sees_cache("c"));
    }

    #[test]
    fn claims_round_trip_through_json() {
        let token = claims(Permissions::Explicit(vec![
            cache_perm(
                CacheRole::WriteOnly,
                CacheScope::Names(vec!["c".into()]),
                Items::Prefix(vec![0, 255]),
            ),
            Permission::Topic {
                role: TopicRole::PublishOnly,
                caches: CacheScope::All,
                topics: Topics::Name("t".into()),
            },
        ]));
        let json = serde_json::to_string(&token).unwrap();
        assert_eq!(serde_json::from_str::<Claims>(&json).unwrap(), token);
        let legacy = r#"{"iat":1,"exp":2,"caches":"all","role":"write"}"#;
        let read: Claims = serde_json::from_str(legacy).unwrap();
        assert_eq!(
            read,
            Claims::with_role(None, 1, 2, CacheScope::All, Role::Write)
        );
    }

    // The property: a token never grants more than it says.

    const CACHES: &[&str] = &["a", "b"];
    const KEYS: &[&[u8]] = &[b"", b"k", b"ka", b"kb", b"x"];
    const TOPICS: &[&str] = &["", "t", "ta", "u"];

    fn cache_scope() -> impl Strategy<Value = CacheScope> {
        prop_oneof![
            Just(CacheScope::All),
            prop::sample::select(CACHES).prop_map(|c| CacheScope::Names(vec![c.to_owned()])),
        ]
    }

    fn permission() -> impl Strategy<Value = Permission> {
        let items = prop_oneof![
            Just(Items::All),
            prop::sample::select(KEYS).prop_map(|k| Items::Key(k.to_vec())),
            prop::sample::select(KEYS).prop_map(|k| Items::Prefix(k.to_vec())),
        ];
        let topics = prop_oneof![
            Just(Topics::All),
            prop::sample::select(TOPICS).prop_map(|t| Topics::Name(t.to_owned())),
            prop::sample::select(TOPICS).prop_map(|t| Topics::Prefix(t.to_owned())),
        ];
        let cache_role = prop::sample::select(vec![
            CacheRole::ReadWrite,
            CacheRole::ReadOnly,
            CacheRole::WriteOnly,
        ]);
        let topic_role = prop::sample::select(vec![
            TopicRole::PublishSubscribe,
            TopicRole::SubscribeOnly,
            TopicRole::PublishOnly,
        ]);
        prop_oneof![
            (cache_role, cache_scope(), items).prop_map(|(role, caches, items)| {
                Permission::Cache {
                    role,
                    caches,
                    items,
                }
            }),
            (topic_role, cache_scope(), topics).prop_map(|(role, caches, topics)| {
                Permission::Topic {
                    role,
                    caches,
                    topics,
                }
            }),
        ]
    }

    /// Whether `permission` by itself says `op` on `key` of `cache`, read
    /// off the permission field by field.
    fn says_item(permission: &Permission, op: CacheOp, cache: &str, key: &[u8]) -> bool {
        let Permission::Cache {
            role,
            caches,
            items,
        } = permission
        else {
            return false;
        };
        let role_says = match op {
            CacheOp::Read => *role != CacheRole::WriteOnly,
            CacheOp::Write => *role != CacheRole::ReadOnly,
            CacheOp::ReadWrite => *role == CacheRole::ReadWrite,
        };
        let cache_says =
            *caches == CacheScope::All || *caches == CacheScope::Names(vec![cache.to_owned()]);
        let key_says = match items {
            Items::All => true,
            Items::Key(only) => only == key,
            Items::Prefix(prefix) => key.len() >= prefix.len() && key[..prefix.len()] == prefix[..],
        };
        role_says && cache_says && key_says
    }

    fn says_topic(permission: &Permission, op: TopicOp, cache: &str, topic: &str) -> bool {
        let Permission::Topic {
            role,
            caches,
            topics,
        } = permission
        else {
            return false;
        };
        let role_says = match op {
            TopicOp::Subscribe => *role != TopicRole::PublishOnly,
            TopicOp::Publish => *role != TopicRole::SubscribeOnly,
        };
        let cache_says =
            *caches == CacheScope::All || *caches == CacheScope::Names(vec![cache.to_owned()]);
        let topic_says = match topics {
            Topics::All => true,
            Topics::Name(only) => only == topic,
            Topics::Prefix(prefix) => topic.get(..prefix.len()) == Some(prefix.as_str()),
        };
        role_says && cache_says && topic_says
    }

    proptest! {
        /// Random permission sets against random calls: a call is allowed
        /// exactly when one of the permissions says so for each of its
        /// keys, and what `reach` tells before the keys are known agrees.
        #[test]
        fn a_token_never_grants_more_than_it_says(
            permissions in prop::collection::vec(permission(), 0..5),
            op in prop::sample::select(vec![CacheOp::Read, CacheOp::Write, CacheOp::ReadWrite]),
            topic_op in prop::sample::select(vec![TopicOp::Publish, TopicOp::Subscribe]),
            cache in prop::sample::select(CACHES),
            keys in prop::collection::vec(prop::sample::select(KEYS), 1..4),
            topic in prop::sample::select(TOPICS),
        ) {
            let token = claims(Permissions::Explicit(permissions.clone()));
            let said = |key: &[u8]| permissions.iter().any(|p| says_item(p, op, cache, key));
            let allowed = keys.iter().all(|key| token.allows_key(op, cache, key));
            prop_assert_eq!(allowed, keys.iter().all(|key| said(key)));
            match token.reach(op, cache) {
                Reach::Everything => prop_assert!(KEYS.iter().all(|key| said(key))),
                Reach::Nothing => prop_assert!(KEYS.iter().all(|key| !said(key))),
                Reach::SomeKeys => {}
            }
            let topic_said = permissions.iter().any(|p| says_topic(p, topic_op, cache, topic));
            prop_assert_eq!(token.allows_topic(topic_op, cache, topic), topic_said);
            prop_assert!(!token.allows_control(cache));
            let seen = permissions.iter().any(|p| match p {
                Permission::Cache { caches, .. } | Permission::Topic { caches, .. } => caches.allows(cache),
            });
            prop_assert_eq!(token.sees_cache(cache), seen);
        }
    }
}
