"""Generated protobuf modules (scripts/generate_proto.py); do not edit by hand."""
