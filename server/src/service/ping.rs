//! `cache_client.Ping`: answers at once; SDKs use it to open a channel eagerly,
//! and read from its answer whether the protosocket port is on.

use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status};

use crate::proto::cache_client::ping_server::Ping;
use crate::proto::cache_client::{PingRequest, PingResponse};

/// The answer's header naming the protosocket port: an SDK cannot guess
/// the port, and the Momento service never sends this header, so its
/// presence is what tells a client it may carry Get, Set and Delete there.
pub const PROTOSOCKET_PORT_HEADER: &str = "jiffy-protosocket-port";

#[derive(Clone, Copy, Default)]
pub struct PingService {
    /// The port `--protosocket-listen` bound (the real one, also after `:0`),
    /// advertised in every answer; `None` when the port is off.
    protosocket_port: Option<u16>,
}

impl PingService {
    pub fn new(protosocket_port: Option<u16>) -> Self {
        PingService { protosocket_port }
    }
}

#[tonic::async_trait]
impl Ping for PingService {
    async fn ping(&self, _request: Request<PingRequest>) -> Result<Response<PingResponse>, Status> {
        let mut response = Response::new(PingResponse {});
        if let Some(port) = self.protosocket_port {
            response
                .metadata_mut()
                .insert(PROTOSOCKET_PORT_HEADER, MetadataValue::from(port));
        }
        Ok(response)
    }
}
