//! Generates the gRPC server and client code from `../proto` at build time.
//!
//! The .proto files are parsed by `protox` (pure Rust), so building needs no
//! `protoc` binary on the machine.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let files = [
        "cacheclient.proto",
        "controlclient.proto",
        "cacheping.proto",
    ];
    let descriptors = protox::compile(files, [&proto_dir])?;
    tonic_prost_build::configure()
        // Values arrive as `Bytes` so batches can be handed on without copying.
        .bytes(".")
        .compile_fds(descriptors)?;
    for file in files.iter().chain(["common.proto"].iter()) {
        println!("cargo:rerun-if-changed={}", proto_dir.join(file).display());
    }
    Ok(())
}
