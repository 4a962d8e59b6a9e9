//! `cache_client.Ping`: answers at once; SDKs use it to open a channel eagerly.

use tonic::{Request, Response, Status};

use crate::proto::cache_client::ping_server::Ping;
use crate::proto::cache_client::{PingRequest, PingResponse};

#[derive(Clone, Copy, Default)]
pub struct PingService;

#[tonic::async_trait]
impl Ping for PingService {
    async fn ping(&self, _request: Request<PingRequest>) -> Result<Response<PingResponse>, Status> {
        Ok(Response::new(PingResponse {}))
    }
}
