//! Generates the gRPC server and client code from `../proto` at build time.
//!
//! The .proto files are parsed by `protox` (pure Rust), so building needs no
//! `protoc` binary on the machine. The protosocket messages
//! (`proto/protosocket/`) are generated apart, into their own directory:
//! their `common` package is not the gRPC protocol's `common`, and they
//! have no services.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let files = [
        "cacheclient.proto",
        "controlclient.proto",
        "cacheping.proto",
        "cachepubsub.proto",
    ];
    let descriptors = protox::compile(files, [&proto_dir])?;
    // The same descriptors, encoded, for the reflection service.
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("jiffy_descriptors.bin"),
        descriptors.encode_to_vec(),
    )?;
    tonic_prost_build::configure()
        // Values arrive as `Bytes` so batches can be handed on without copying.
        .bytes(".")
        .compile_fds(descriptors)?;
    let protosocket_files = ["protosocket/cache.proto", "protosocket/common.proto"];
    let protosocket_out = out_dir.join("protosocket");
    std::fs::create_dir_all(&protosocket_out)?;
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(false)
        .bytes(".")
        .out_dir(&protosocket_out)
        .compile_fds(protox::compile(protosocket_files, [&proto_dir])?)?;
    let all = files
        .iter()
        .chain(&["common.proto"])
        .chain(&protosocket_files);
    for file in all {
        println!("cargo:rerun-if-changed={}", proto_dir.join(file).display());
    }
    Ok(())
}
