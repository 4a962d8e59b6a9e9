//! Where webhooks may POST: `--webhook-allow`. Without it only loopback
//! addresses, so a token holder cannot make the server call the internal
//! network it sits in (cloud metadata endpoints, databases, admin ports).
//!
//! A destination is checked when a webhook is put (the URL's host is
//! resolved and every address must be allowed) and again at every
//! connection: [`AllowedResolver`] is the HTTP client's resolver, and it
//! hands the connector only allowed addresses, so a name whose DNS changed
//! since the put (or changes between a check and the connect) is refused.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::future::BoxFuture;
use hyper_util::client::legacy::connect::dns::Name;
use ipnet::IpNet;

/// What `--webhook-allow` lets webhooks reach, beside loopback.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowList {
    /// Address blocks (`10.1.0.0/16`, `203.0.113.7/32`, `::/0`).
    nets: Vec<IpNet>,
    /// Host names allowed whatever they resolve to (`hooks.example.com`),
    /// lowercase: the operator trusts the name, not only its addresses.
    hosts: Vec<String>,
}

impl AllowList {
    /// Parses a comma-separated list of CIDR blocks, addresses and host
    /// names; `*` allows every address.
    pub fn parse(text: &str) -> Result<AllowList, String> {
        let mut list = AllowList::default();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if entry == "*" {
                list.nets.push("0.0.0.0/0".parse().expect("valid"));
                list.nets.push("::/0".parse().expect("valid"));
            } else if let Ok(net) = entry.parse::<IpNet>() {
                list.nets.push(net);
            } else if let Ok(ip) = entry.parse::<IpAddr>() {
                list.nets.push(IpNet::from(ip));
            } else if entry
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
            {
                list.hosts.push(entry.to_ascii_lowercase());
            } else {
                return Err(format!(
                    "--webhook-allow: {entry:?} is neither an address block (10.0.0.0/8), an address nor a host name"
                ));
            }
        }
        Ok(list)
    }

    fn allows_host(&self, host: &str) -> bool {
        self.hosts
            .iter()
            .any(|allowed| allowed.eq_ignore_ascii_case(host))
    }

    /// Loopback, or inside a block of the list.
    pub fn allows_ip(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        ip.is_loopback() || self.nets.iter().any(|net| net.contains(&ip))
    }

    /// The addresses of `host` that may be called: all of them for a host
    /// named in the list, else those [`Self::allows_ip`] allows. An error
    /// names the flag when none is left.
    pub async fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let found: Vec<SocketAddr> = tokio::net::lookup_host((host, port)).await?.collect();
        let named = self.allows_host(host);
        let allowed: Vec<SocketAddr> = found
            .iter()
            .copied()
            .filter(|address| named || self.allows_ip(address.ip()))
            .collect();
        if allowed.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "{host} resolves to {}, which --webhook-allow does not allow (only loopback without it)",
                    describe(&found)
                ),
            ));
        }
        Ok(allowed)
    }
}

fn describe(addresses: &[SocketAddr]) -> String {
    if addresses.is_empty() {
        return "no address".to_owned();
    }
    let ips: Vec<String> = addresses.iter().map(|a| a.ip().to_string()).collect();
    ips.join(", ")
}

/// The HTTP client's resolver: only allowed addresses reach the connector.
#[derive(Clone)]
pub struct AllowedResolver(pub Arc<AllowList>);

impl tower::Service<Name> for AllowedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = std::io::Error;
    type Future = BoxFuture<'static, std::io::Result<Self::Response>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let list = self.0.clone();
        // The connector sets the URL's port on each address it is given.
        Box::pin(async move { Ok(list.resolve(name.as_str(), 0).await?.into_iter()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_allows_loopback_only() {
        let list = AllowList::default();
        assert!(list.allows_ip("127.0.0.1".parse().unwrap()));
        assert!(list.allows_ip("::1".parse().unwrap()));
        assert!(list.allows_ip("::ffff:127.0.0.1".parse().unwrap()));
        for internal in ["10.0.0.1", "169.254.169.254", "192.168.1.1", "8.8.8.8"] {
            assert!(!list.allows_ip(internal.parse().unwrap()), "{internal}");
        }
    }

    #[test]
    fn blocks_addresses_and_names_parse() {
        let list = AllowList::parse("10.1.0.0/16, 203.0.113.7 ,Hooks.Example.com").unwrap();
        assert!(list.allows_ip("10.1.2.3".parse().unwrap()));
        assert!(!list.allows_ip("10.2.0.1".parse().unwrap()));
        assert!(list.allows_ip("203.0.113.7".parse().unwrap()));
        assert!(list.allows_host("hooks.example.com"));
        assert!(!list.allows_host("example.com"));
        assert!(AllowList::parse("*")
            .unwrap()
            .allows_ip("8.8.8.8".parse().unwrap()));
        assert!(AllowList::parse("http://x").is_err());
    }

    #[tokio::test]
    async fn resolving_refuses_what_is_not_allowed() {
        let list = AllowList::default();
        assert_eq!(list.resolve("127.0.0.1", 80).await.unwrap().len(), 1);
        let refused = list.resolve("10.0.0.1", 80).await.unwrap_err();
        assert_eq!(refused.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(refused.to_string().contains("--webhook-allow"), "{refused}");
        let allowed = AllowList::parse("10.0.0.0/8").unwrap();
        assert!(allowed.resolve("10.0.0.1", 80).await.is_ok());
    }
}
