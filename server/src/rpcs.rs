//! The catalogue of RPCs: every call declared in `proto/`, with the facts the
//! layers around the handlers need. Metrics (the `rpc` label), auth (the
//! token a call needs) and fault injection (the names its headers use) all
//! read this one table, so adding a call is one row here and its handler.
//! A test checks the table against the `.proto` files, both ways.
//!
//! A path that is not in the table is no call of ours: it counts as
//! `unknown` in the metrics, needs only a valid token, and answers
//! UNIMPLEMENTED naming the path.

use std::sync::LazyLock;

use hashbrown::HashMap;

/// What a call touches, which decides the token it needs (`auth::layer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reads items of the cache named by the `cache` header: a `read` token
    /// whose scope includes that cache.
    DataRead,
    /// Writes items of the cache named by the `cache` header: a `write` token
    /// whose scope includes that cache.
    DataWrite,
    /// Creates, deletes or flushes the cache named in the message: an `admin`
    /// token; the handler checks the scope, as only it decodes the message.
    Control,
    /// Subscribes to a topic of the cache named in the message: a `read`
    /// token; the handler checks the scope (the official SDKs' topic
    /// clients send no `cache` header).
    TopicRead,
    /// Publishes to a topic of the cache named in the message: a `write`
    /// token; the handler checks the scope.
    TopicWrite,
    /// Any valid token: Ping, and ListCaches, which lists only the caches in
    /// the token's scope.
    AnyToken,
    /// No token at all: the gRPC health service, which load balancers and
    /// orchestrators call without credentials. It tells only whether the
    /// server serves.
    Public,
}

/// One call of the catalogue.
#[derive(Debug)]
pub struct Rpc {
    /// The gRPC path, `/package.Service/Method`.
    pub path: &'static str,
    /// The method: the `rpc` label of the metrics, and the name messages use.
    pub name: &'static str,
    pub access: Access,
    /// Safe to send again after a lost answer: the same call twice leaves
    /// what once leaves. The official SDKs retry only these (on UNAVAILABLE
    /// and INTERNAL), and so do ours.
    pub idempotent: bool,
    /// Has a handler. One that has none yet answers UNIMPLEMENTED naming
    /// itself; its metrics series appear when it is first called.
    pub served: bool,
}

/// Rows of `Name: access, idempotent, served;` grouped by service.
macro_rules! catalogue {
    ($($service:literal {
        $($name:ident: $access:ident, $idempotent:literal, $served:literal;)*
    })*) => {
        &[$($(Rpc {
            path: concat!("/", $service, "/", stringify!($name)),
            name: stringify!($name),
            access: Access::$access,
            idempotent: $idempotent,
            served: $served,
        },)*)*]
    };
}

/// Every RPC, grouped as `proto/` declares them.
pub static RPCS: &[Rpc] = catalogue! {
    //  name:                   access,     idempotent, served;
    "cache_client.Scs" {
        Get:                    DataRead,   true,       true;
        GetBatch:               DataRead,   true,       true;
        Set:                    DataWrite,  true,       true;
        SetBatch:               DataWrite,  true,       true;
        SetIf:                  DataWrite,  false,      true;
        SetIfNotExists:         DataWrite,  false,      true;
        Delete:                 DataWrite,  true,       true;
        KeysExist:              DataRead,   true,       true;
        Increment:              DataWrite,  false,      true;
        UpdateTtl:              DataWrite,  false,      true;
        ItemGetTtl:             DataRead,   true,       true;
        ItemGetType:            DataRead,   true,       true;

        GetWithHash:            DataRead,   true,       true;
        SetIfHash:              DataWrite,  false,      true;

        DictionaryGet:          DataRead,   true,       true;
        DictionaryFetch:        DataRead,   true,       true;
        DictionarySet:          DataWrite,  true,       true;
        DictionaryIncrement:    DataWrite,  false,      true;
        DictionaryDelete:       DataWrite,  true,       true;
        DictionaryLength:       DataRead,   true,       true;

        SetFetch:               DataRead,   true,       true;
        SetSample:              DataRead,   true,       true;
        SetUnion:               DataWrite,  true,       true;
        SetDifference:          DataWrite,  true,       true;
        SetContains:            DataRead,   true,       true;
        SetLength:              DataRead,   true,       true;
        SetPop:                 DataWrite,  false,      true;

        ListPushFront:          DataWrite,  false,      true;
        ListPushBack:           DataWrite,  false,      true;
        ListPopFront:           DataWrite,  false,      true;
        ListPopBack:            DataWrite,  false,      true;
        // By index: a second erase of the same ranges removes other values.
        ListErase:              DataWrite,  false,      true;
        // All occurrences of a value: twice removes nothing more.
        ListRemove:             DataWrite,  true,       true;
        ListFetch:              DataRead,   true,       true;
        ListLength:             DataRead,   true,       true;
        ListConcatenateFront:   DataWrite,  false,      true;
        ListConcatenateBack:    DataWrite,  false,      true;
        ListRetain:             DataWrite,  false,      true;

        SortedSetPut:           DataWrite,  true,       true;
        SortedSetFetch:         DataRead,   true,       true;
        SortedSetGetScore:      DataRead,   true,       true;
        SortedSetRemove:        DataWrite,  true,       true;
        SortedSetIncrement:     DataWrite,  false,      true;
        SortedSetGetRank:       DataRead,   true,       true;
        SortedSetLength:        DataRead,   true,       true;
        SortedSetLengthByScore: DataRead,   true,       true;
        // The destination may be one of its sources: a repeat weighs it again.
        SortedSetUnionStore:    DataWrite,  false,      true;
    }
    "control_client.ScsControl" {
        // A repeat after a lost answer reports ALREADY_EXISTS or NOT_FOUND
        // for the client's own success; a second flush would also erase
        // what others wrote after the first.
        CreateCache:            Control,    false,      true;
        DeleteCache:            Control,    false,      true;
        ListCaches:             AnyToken,   true,       true;
        FlushCache:             Control,    false,      true;
    }
    "cache_client.Ping" {
        Ping:                   AnyToken,   true,       true;
    }
    "cache_client.pubsub.Pubsub" {
        // Twice is two messages, each numbered.
        Publish:                TopicWrite, false,      true;
        // Opening a stream changes nothing; a client comes back with its
        // resume point.
        Subscribe:              TopicRead,  true,       true;
    }
    // The standard services, from their crates rather than `proto/`.
    "grpc.health.v1.Health" {
        Check:                  Public,     true,       true;
        Watch:                  Public,     true,       true;
    }
    "grpc.reflection.v1.ServerReflection" {
        ServerReflectionInfo:   AnyToken,   true,       true;
    }
};

/// The commands of the protosocket port: each field of the `command` oneof
/// of `Unary` in `proto/protosocket/cache.proto`, and the call of the
/// catalogue it is, whose metrics series (with `transport="protosocket"`)
/// and auth class it takes. `auth` is no call: it sets up the connection
/// (`protosocket::auth`). A test checks this table against the file.
pub static PROTOSOCKET_COMMANDS: &[(&str, Option<&str>)] = &[
    ("auth", None),
    ("get", Some("/cache_client.Scs/Get")),
    ("set", Some("/cache_client.Scs/Set")),
    ("delete", Some("/cache_client.Scs/Delete")),
];

/// The call of the catalogue a protosocket command is.
pub fn protosocket_call(command: &str) -> Option<&'static Rpc> {
    PROTOSOCKET_COMMANDS
        .iter()
        .find(|(name, _)| *name == command)
        .and_then(|(_, path)| find((*path)?))
}

/// The services of the catalogue that come from the tonic crates (health,
/// reflection), not from `proto/`.
pub const STANDARD_SERVICES: [&str; 2] = [
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
];

/// Positions in [`RPCS`] by path. A hash of the path per call, which the
/// metrics layer needs anyway; foldhash keeps it to a few nanoseconds.
static BY_PATH: LazyLock<HashMap<&'static str, usize>> = LazyLock::new(|| {
    RPCS.iter()
        .enumerate()
        .map(|(index, rpc)| (rpc.path, index))
        .collect()
});

/// The position of the call at `path` in [`RPCS`].
pub fn index(path: &str) -> Option<usize> {
    BY_PATH.get(path).copied()
}

/// The services of `proto/` the catalogue lists (`cache_client.Scs`, ...),
/// in its order: the names the health service answers for.
pub fn proto_services() -> Vec<&'static str> {
    let mut services: Vec<&'static str> = Vec::new();
    for rpc in RPCS {
        let service = rpc.path[1..].split('/').next().unwrap_or_default();
        if !STANDARD_SERVICES.contains(&service) && !services.contains(&service) {
            services.push(service);
        }
    }
    services
}

/// The call at `path`, if it is one of the catalogue.
pub fn find(path: &str) -> Option<&'static Rpc> {
    index(path).map(|index| &RPCS[index])
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;

    /// Every `rpc` of the .proto files under `proto/`, as its gRPC path.
    fn declared_paths() -> BTreeSet<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
        let mut paths = BTreeSet::new();
        let mut pending = vec![dir];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|ext| ext == "proto") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    paths.extend(rpcs_of(&text));
                }
            }
        }
        paths
    }

    /// The paths of one .proto file's `rpc`s: `package`, `service` and `rpc`
    /// each open a line of their own in our files.
    fn rpcs_of(text: &str) -> Vec<String> {
        let mut paths = Vec::new();
        let mut package = "";
        let mut service = "";
        for line in text.lines().map(str::trim) {
            let word = |keyword: &str| {
                line.strip_prefix(keyword)
                    .and_then(|rest| rest.split([' ', ';', '{', '(']).next())
            };
            if let Some(name) = word("package ") {
                package = name;
            } else if let Some(name) = word("service ") {
                service = name;
            } else if let Some(name) = word("rpc ") {
                assert!(!service.is_empty(), "rpc {name} outside a service");
                let prefix = if package.is_empty() {
                    String::new()
                } else {
                    format!("{package}.")
                };
                paths.push(format!("/{prefix}{service}/{name}"));
            }
        }
        paths
    }

    #[test]
    fn the_catalogue_is_what_proto_declares() {
        let declared = declared_paths();
        let standard = |path: &str| {
            STANDARD_SERVICES
                .iter()
                .any(|service| path.starts_with(&format!("/{service}/")))
        };
        let catalogued: BTreeSet<String> = RPCS
            .iter()
            .map(|rpc| rpc.path.to_owned())
            .filter(|path| !standard(path))
            .collect();
        let standard_rows = RPCS.iter().filter(|rpc| standard(rpc.path)).count();
        assert_eq!(
            catalogued.len() + standard_rows,
            RPCS.len(),
            "a path is listed twice"
        );
        let missing: Vec<_> = declared.difference(&catalogued).collect();
        let extra: Vec<_> = catalogued.difference(&declared).collect();
        assert!(
            missing.is_empty(),
            "declared in proto/, not catalogued: {missing:?}"
        );
        assert!(
            extra.is_empty(),
            "catalogued, not declared in proto/: {extra:?}"
        );
    }

    /// The fields of `Unary`'s `command` oneof are the commands the table
    /// lists, each a served call of the catalogue (but `auth`).
    #[test]
    fn the_protosocket_commands_are_what_proto_declares() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto/protosocket/cache.proto");
        let text = std::fs::read_to_string(path).unwrap();
        let unary = text.split("message Unary {").nth(1).unwrap();
        let unary = &unary[..unary.find("\n}").unwrap()];
        let declared: BTreeSet<&str> = unary
            .lines()
            .map(str::trim)
            .filter(|line| line.ends_with(';') && line.contains(" = "))
            .filter_map(|line| line.split_whitespace().nth(1))
            .collect();
        let listed: BTreeSet<&str> = PROTOSOCKET_COMMANDS.iter().map(|(name, _)| *name).collect();
        assert_eq!(declared, listed);
        for (name, path) in PROTOSOCKET_COMMANDS {
            match path {
                Some(path) => assert!(find(path).is_some_and(|rpc| rpc.served), "{name}"),
                None => assert_eq!(*name, "auth"),
            }
        }
        assert_eq!(protosocket_call("get").unwrap().name, "Get");
        assert!(protosocket_call("auth").is_none());
    }

    #[test]
    fn the_parser_reads_packages_services_and_rpcs() {
        let text = "package a.b;\nservice S {\n  rpc One (_R) returns (_A) {}\n  \
                    rpc Two(_R) returns (stream _A) {}\n}\nservice T {\n  rpc Three (_R) returns (_A);\n}\n";
        assert_eq!(rpcs_of(text), ["/a.b.S/One", "/a.b.S/Two", "/a.b.T/Three"]);
    }

    #[test]
    fn paths_find_their_rows() {
        for (position, rpc) in RPCS.iter().enumerate() {
            assert_eq!(index(rpc.path), Some(position));
            assert_eq!(rpc.path.rsplit('/').next(), Some(rpc.name));
        }
        assert_eq!(
            find("/cache_client.Scs/ItemGetTtl").unwrap().name,
            "ItemGetTtl"
        );
        assert!(
            find("/cache_client.Scs/get").is_none(),
            "paths are case-sensitive"
        );
        assert!(find("/control_client.ScsControl/CreateSigningKey").is_none());
    }

    /// The SDKs' spec (`sdk/spec.json`) resends exactly the calls this
    /// catalogue says are safe to send twice, and offers every call of
    /// `proto/`. Read as text (one call per line), so the server needs no
    /// JSON parser for a test.
    #[test]
    fn the_sdk_spec_retries_what_the_catalogue_calls_idempotent() {
        let spec =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk/spec.json"))
                .unwrap();
        let field = |line: &str, name: &str| -> Option<String> {
            let start = line.find(&format!("\"{name}\": "))? + name.len() + 4;
            let rest = &line[start..];
            let end = rest.find([',', '}'])?;
            Some(rest[..end].trim().trim_matches('"').to_owned())
        };
        let mut offered = BTreeSet::new();
        for line in spec.lines().filter(|line| line.contains("\"rpc\": ")) {
            let name = field(line, "rpc").unwrap();
            let retry = field(line, "retry").unwrap() == "true";
            let rpc = RPCS
                .iter()
                .find(|rpc| rpc.name == name)
                .unwrap_or_else(|| panic!("sdk/spec.json names {name}, not a call of ours"));
            assert_eq!(retry, rpc.idempotent, "{name}: retry in sdk/spec.json");
            offered.insert(name);
        }
        let ours = RPCS
            .iter()
            .filter(|rpc| {
                !STANDARD_SERVICES
                    .iter()
                    .any(|s| rpc.path.starts_with(&format!("/{s}/")))
            })
            .map(|rpc| rpc.name.to_owned())
            .collect::<BTreeSet<_>>();
        assert_eq!(
            offered, ours,
            "calls of the catalogue the SDKs do not offer"
        );
    }

    /// The README's list of served calls and its table of roles name every
    /// served call, and claim none that is not served.
    #[test]
    fn the_readme_names_what_is_served() {
        let readme =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
                .unwrap();
        let section = |start: &str, end: &str| {
            let from = readme.find(start).unwrap_or_else(|| panic!("no `{start}`"));
            let rest = &readme[from..];
            let to = rest
                .find(end)
                .unwrap_or_else(|| panic!("no `{end}` after `{start}`"));
            words(&rest[..to])
        };
        let served_list = section("- `cache_client.Scs`:", "\n\n");
        let role = |role: &str| section(&format!("| `{role}` |"), "\n");
        let (read, write, admin) = (role("read"), role("write"), role("admin"));
        let any_role = section("Every role may", ";");
        let public = section("Health checks (", ";");
        for rpc in RPCS {
            let listed = served_list.contains(rpc.name);
            assert_eq!(
                listed, rpc.served,
                "{}: in the README's list of served calls",
                rpc.name
            );
            let in_role = match rpc.access {
                Access::DataRead => read.contains(rpc.name),
                Access::DataWrite => write.contains(rpc.name),
                Access::Control => admin.contains(rpc.name),
                Access::TopicRead => read.contains(rpc.name),
                Access::TopicWrite => write.contains(rpc.name),
                Access::AnyToken => any_role.contains(rpc.name),
                Access::Public => public.contains(rpc.name),
            };
            assert_eq!(
                in_role, rpc.served,
                "{}: in the README's table of roles",
                rpc.name
            );
        }
    }

    fn words(text: &str) -> BTreeSet<&str> {
        text.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|word| !word.is_empty())
            .collect()
    }
}
