//! Generates the gRPC server and client code from `../proto` at build time.
//!
//! The .proto files are parsed by `protox` (pure Rust), so building needs no
//! `protoc` binary on the machine.

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
    for file in files.iter().chain(["common.proto"].iter()) {
        println!("cargo:rerun-if-changed={}", proto_dir.join(file).display());
    }
    Ok(())
}
