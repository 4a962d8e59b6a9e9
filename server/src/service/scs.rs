//! `cache_client.Scs`: the dispatch of the data-plane calls. tonic wants
//! every call of the service in one `impl`; `build.rs` writes it from the
//! catalogue (`sdk/spec.json`), handing each call to the function of its
//! snake_case name in the module its row's `handler` names (`scalar.rs`,
//! `batch.rs`, `hash.rs`, `list.rs`, `dictionary.rs`, `set.rs`,
//! `sorted_set.rs`), where the handler is.

use tonic::Request;

use super::{Answer, DataPlane};
use crate::backend::Storage;
use crate::proto::cache_client::scs_server::Scs;
// The request and response messages of every call.
use crate::proto::cache_client::*;

include!(concat!(env!("OUT_DIR"), "/scs_dispatch.rs"));
