//! The gRPC side of jiffy-server the load clients need before their load:
//! a connection, and the cache every call names.

use jiffy_server::proto::control_client::{
    scs_control_client::ScsControlClient, CreateCacheRequest,
};
use tonic::{transport::Channel, Code};

/// `HOST:PORT` as a URI tonic accepts; a full `http://` URI is kept.
pub fn uri(endpoint: &str) -> String {
    if endpoint.contains("://") {
        endpoint.to_string()
    } else {
        format!("http://{endpoint}")
    }
}

/// One HTTP/2 connection to `uri`, open before it returns, with Nagle off
/// (as the SDKs set it) so that a small call is not held back.
pub async fn connect(uri: &str) -> Result<Channel, String> {
    let endpoint = Channel::from_shared(uri.to_string())
        .map_err(|e| format!("--endpoint {uri}: {e}"))?
        .tcp_nodelay(true);
    endpoint.connect().await.map_err(|error| {
        // tonic says only "transport error"; the cause is in the chain.
        let mut message = format!("connecting to {uri}: {error}");
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            message += &format!(": {cause}");
            source = cause.source();
        }
        message
    })
}

/// Creates the cache `name`; one that exists already is fine.
pub async fn create_cache(channel: Channel, name: &str) -> Result<(), String> {
    let request = CreateCacheRequest {
        cache_name: name.to_string(),
    };
    match ScsControlClient::new(channel).create_cache(request).await {
        Ok(_) => Ok(()),
        Err(status) if status.code() == Code::AlreadyExists => Ok(()),
        Err(status) => Err(format!("CreateCache {name:?}: {status}")),
    }
}
