//! Generates, at build time, the gRPC server and client code from `../proto`
//! and the catalogue of calls from `../sdk/spec.json`.
//!
//! The .proto files are parsed by `protox` (pure Rust), so building needs no
//! `protoc` binary on the machine. The protosocket messages
//! (`proto/protosocket/`) are generated apart, into their own directory:
//! their `common` package is not the gRPC protocol's `common`, and they
//! have no services.
//!
//! The catalogue's rows become `OUT_DIR/catalogue.rs`, which `src/rpcs.rs`
//! includes; what `proto/` declares becomes `OUT_DIR/proto_rpcs.rs`, which
//! its tests hold the catalogue to.
//!
//! The Redis store's Lua scripts (`src/backend/redis/lua/`) become
//! `OUT_DIR/lua_scripts.rs`, which `src/backend/redis/scripts.rs` includes:
//! see [`lua_scripts`] for the header each file starts with.

use std::fmt::Write as _;
use std::path::PathBuf;

use prost::Message;
use serde::Deserialize;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let proto_dir = manifest_dir.join("../proto");
    let files = [
        "cacheclient.proto",
        "controlclient.proto",
        "cacheping.proto",
        "cachepubsub.proto",
        "leaderboard.proto",
        "admin.proto",
        "token.proto",
        "auth.proto",
        "webhook.proto",
    ];
    let descriptors = protox::compile(files, [&proto_dir])?;
    // The same descriptors, encoded, for the reflection service.
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("jiffy_descriptors.bin"),
        descriptors.encode_to_vec(),
    )?;
    let mut declared = String::new();
    let mut methods = Vec::new();
    for file in &descriptors.file {
        for service in &file.service {
            for method in &service.method {
                let path = format!("/{}.{}/{}", file.package(), service.name(), method.name());
                writeln!(declared, "    ({path:?}, {}),", method.server_streaming())?;
                methods.push(Method {
                    path,
                    input: message_name(method.input_type()),
                    output: message_name(method.output_type()),
                    streaming: method.server_streaming(),
                });
            }
        }
    }
    tonic_prost_build::configure()
        // Values arrive as `Bytes` so batches can be handed on without copying.
        .bytes(".")
        // Answers are encoded into room of their size (src/service/codec.rs).
        .codec_path("crate::service::codec::SizedCodec")
        .compile_fds(descriptors)?;
    let protosocket_files = ["protosocket/cache.proto", "protosocket/common.proto"];
    let protosocket_out = out_dir.join("protosocket");
    std::fs::create_dir_all(&protosocket_out)?;
    let protosocket = protox::compile(protosocket_files, [&proto_dir])?;
    let unary = protosocket
        .file
        .iter()
        .flat_map(|file| &file.message_type)
        .find(|message| message.name() == "Unary")
        .ok_or("proto/protosocket/cache.proto declares no Unary")?;
    let commands: Vec<&str> = unary
        .field
        .iter()
        .filter(|field| field.oneof_index.is_some())
        .map(|field| field.name())
        .collect();
    std::fs::write(
        out_dir.join("proto_rpcs.rs"),
        format!(
            "/// Every `rpc` of `proto/` (path, answers a stream), as `protox` reads them.\n\
             pub const DECLARED: &[(&str, bool)] = &[\n{declared}];\n\
             /// The commands of `Unary` in `proto/protosocket/cache.proto`.\n\
             pub const PROTOSOCKET_DECLARED: &[&str] = &{commands:?};\n"
        ),
    )?;
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(false)
        .bytes(".")
        .out_dir(&protosocket_out)
        .compile_fds(protosocket)?;

    let spec_path = manifest_dir.join("../sdk/spec.json");
    let spec: Spec = serde_json::from_str(&std::fs::read_to_string(&spec_path)?)?;
    std::fs::write(out_dir.join("catalogue.rs"), catalogue(&spec)?)?;
    for (file, service, server_trait) in DISPATCHED {
        std::fs::write(
            out_dir.join(file),
            dispatch(&spec, &methods, service, server_trait)?,
        )?;
    }

    let all = files
        .iter()
        .chain(&["common.proto"])
        .chain(&protosocket_files);
    for file in all {
        println!("cargo:rerun-if-changed={}", proto_dir.join(file).display());
    }
    println!("cargo:rerun-if-changed={}", spec_path.display());

    let lua_dir = manifest_dir.join("src/backend/redis/lua");
    std::fs::write(out_dir.join("lua_scripts.rs"), lua_scripts(&lua_dir)?)?;
    // A directory is watched whole: a new script rebuilds the table.
    println!("cargo:rerun-if-changed={}", lua_dir.display());
    Ok(())
}

/// One static `redis::Script` per script of `lua/`, as Rust source, named
/// after its file (`list_fetch.lua` -> `LIST_FETCH`).
///
/// Each `.lua` file's first line says what it is:
/// - `-- prelude`: a shared head, not run alone; scripts name it to have it
///   prepended;
/// - `-- script: read_prelude item_prelude`: a script, run after the
///   preludes it names (file names without `.lua`), in that order;
/// - `-- script`: a script that runs alone.
///
/// Also `SCRIPTS` and `PRELUDES`, what the headers declare, for the test
/// that holds them to the directory.
fn lua_scripts(dir: &std::path::Path) -> Result<String, Box<dyn std::error::Error>> {
    let mut stems = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|extension| extension == "lua") {
            let stem = path.file_stem().and_then(|stem| stem.to_str());
            let stem = stem.ok_or_else(|| format!("{}: not UTF-8", path.display()))?;
            stems.push(stem.to_string());
        }
    }
    // The order of the directory is the file system's: sorted, the output
    // is the same on every machine.
    stems.sort();
    let mut statics = String::new();
    let mut scripts = String::new();
    let mut preludes = Vec::new();
    for stem in &stems {
        let source = std::fs::read_to_string(dir.join(format!("{stem}.lua")))?;
        let header = source.lines().next().unwrap_or_default().trim_end();
        if header == "-- prelude" {
            preludes.push(stem.as_str());
            continue;
        }
        let parts: Vec<&str> = match header.strip_prefix("-- script") {
            Some("") => Vec::new(),
            Some(list) if list.starts_with(": ") => list[2..].split_whitespace().collect(),
            _ => {
                return Err(format!(
                    "lua/{stem}.lua: the first line is {header:?}, not `-- prelude`, \
                     `-- script` or `-- script: <preludes>`"
                )
                .into())
            }
        };
        let sources: Vec<String> = parts
            .iter()
            .chain([&stem.as_str()])
            .map(|part| {
                format!(
                    "        include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \
                     \"/src/backend/redis/lua/{part}.lua\")),\n"
                )
            })
            .collect();
        writeln!(
            statics,
            "/// `lua/{stem}.lua`{}.\n\
             pub static {}: LazyLock<Script> = LazyLock::new(|| {{\n\
             \x20   Script::new(concat!(\n{}    ))\n}});",
            if parts.is_empty() {
                String::new()
            } else {
                format!(", after {}", parts.join(", "))
            },
            stem.to_uppercase(),
            sources.concat()
        )?;
        writeln!(scripts, "    ({stem:?}, &{parts:?}),")?;
    }
    Ok(format!(
        "// Generated by server/build.rs from the headers of src/backend/redis/lua/.\n\n\
         {statics}\n\
         /// Every script of `lua/` and the preludes its header names, in order.\n\
         #[cfg(test)]\n\
         pub const SCRIPTS: &[(&str, &[&str])] = &[\n{scripts}];\n\n\
         /// Every file of `lua/` whose header says it is a prelude.\n\
         #[cfg(test)]\n\
         pub const PRELUDES: &[&str] = &{preludes:?};\n"
    ))
}

/// The part of `sdk/spec.json` the server reads (its `about` says what each
/// field means).
#[derive(Deserialize)]
struct Spec {
    services: Vec<Service>,
    rpcs: Vec<Row>,
}

#[derive(Deserialize)]
struct Service {
    name: String,
    /// None: a standard service from the tonic crates.
    proto: Option<String>,
}

#[derive(Deserialize)]
struct Row {
    rpc: String,
    service: String,
    access: String,
    idempotent: bool,
    streaming: bool,
    transports: Vec<String>,
    served: bool,
    /// For the services of [`DISPATCHED`]: the module of `src/service/`
    /// that serves it.
    handler: Option<String>,
}

/// One `rpc` of `proto/`, as the dispatch needs it.
struct Method {
    path: String,
    input: String,
    output: String,
    streaming: bool,
}

/// `.cache_client._GetRequest` -> `GetRequest`: the Rust type prost makes.
fn message_name(full: &str) -> String {
    let name = full.rsplit('.').next().unwrap_or(full);
    name.trim_start_matches('_').to_string()
}

/// `RPCS`, `STANDARD_SERVICES` and `PROTOSOCKET_COMMANDS`, as Rust source.
fn catalogue(spec: &Spec) -> Result<String, Box<dyn std::error::Error>> {
    let mut rows = String::new();
    let mut protosocket = String::new();
    for row in &spec.rpcs {
        if !spec
            .services
            .iter()
            .any(|service| service.name == row.service)
        {
            return Err(format!("{}: no service {}", row.rpc, row.service).into());
        }
        let access = match row.access.as_str() {
            "data_read" => "DataRead",
            "data_write" => "DataWrite",
            "control" => "Control",
            "topic_read" => "TopicRead",
            "topic_write" => "TopicWrite",
            "any_token" => "AnyToken",
            "public" => "Public",
            "message_token" => "MessageToken",
            other => return Err(format!("{}: access {other:?}", row.rpc).into()),
        };
        let path = format!("/{}/{}", row.service, row.rpc);
        writeln!(
            rows,
            "    Rpc {{ path: {path:?}, name: {:?}, access: Access::{access}, idempotent: {}, \
             streaming: {}, served: {} }},",
            row.rpc, row.idempotent, row.streaming, row.served
        )?;
        for transport in &row.transports {
            match transport.as_str() {
                "grpc" => {}
                "protosocket" => {
                    writeln!(protosocket, "    ({:?}, {path:?}),", snake_case(&row.rpc))?
                }
                other => return Err(format!("{}: transport {other:?}", row.rpc).into()),
            }
        }
    }
    let standard: Vec<&str> = spec
        .services
        .iter()
        .filter(|service| service.proto.is_none())
        .map(|service| service.name.as_str())
        .collect();
    Ok(format!(
        "// Generated by server/build.rs from sdk/spec.json: edit that file.\n\n\
         /// Every call, in the order of `sdk/spec.json`.\n\
         pub static RPCS: &[Rpc] = &[\n{rows}];\n\n\
         /// The services of the catalogue that come from the tonic crates (health,\n\
         /// reflection), not from `proto/`.\n\
         pub const STANDARD_SERVICES: &[&str] = &{standard:?};\n\n\
         /// The commands of the protosocket port that are calls, by their name in\n\
         /// `proto/protosocket/cache.proto`, and the path of the call each is, whose\n\
         /// metrics series (with `transport=\"protosocket\"`) and auth class it takes.\n\
         pub static PROTOSOCKET_COMMANDS: &[(&str, &str)] = &[\n{protosocket}];\n"
    ))
}

/// The services served by `DataPlane` whose dispatch is generated: the
/// file written into `OUT_DIR` (which `src/service/` includes), the
/// service, and its tonic server trait.
const DISPATCHED: [(&str, &str, &str); 2] = [
    ("scs_dispatch.rs", "cache_client.Scs", "Scs"),
    (
        "leaderboard_dispatch.rs",
        "leaderboard.Leaderboard",
        "Leaderboard",
    ),
];

/// The impl of a service's tonic trait (`Scs`, `Leaderboard`), as Rust
/// source: every call handed to the function of its name in the module its
/// row names (`handler`), so a new call needs its row and its handler, not
/// a forwarder written by hand. tonic wants the whole service in one impl.
fn dispatch(
    spec: &Spec,
    methods: &[Method],
    service: &str,
    server_trait: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let mut out = format!(
        "// Generated by server/build.rs from sdk/spec.json: edit that file.\n\n\
         #[tonic::async_trait]\n\
         impl<S: Storage + Clone> {server_trait} for DataPlane<S> {{\n",
    );
    for row in spec.rpcs.iter().filter(|row| row.service == service) {
        let handler = row
            .handler
            .as_deref()
            .ok_or_else(|| format!("{}: a {service} call names no handler", row.rpc))?;
        let path = format!("/{}/{}", row.service, row.rpc);
        let method = methods
            .iter()
            .find(|method| method.path == path)
            .ok_or_else(|| format!("{path}: not in proto/"))?;
        let function = snake_case(&row.rpc);
        let answer = if method.streaming {
            let stream = format!("{}Stream", row.rpc);
            writeln!(out, "    type {stream} = super::{handler}::{stream};")?;
            format!("Self::{stream}")
        } else {
            method.output.clone()
        };
        writeln!(
            out,
            "    async fn {function}(&self, request: Request<{}>) -> Answer<{answer}> {{\n\
             \x20       super::{handler}::{function}(self, request).await\n    }}",
            method.input
        )?;
    }
    out.push_str("}\n");
    Ok(out)
}

/// `ListPushFront` -> `list_push_front`: the protosocket protocol's names.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (index, c) in name.char_indices() {
        if c.is_ascii_uppercase() && index > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}
