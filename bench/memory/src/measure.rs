//! What the benchmark reads from the servers: a process's resident memory
//! once it has settled, and jiffy-server's own figures from its metrics.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Readings this far apart, at most this many, while memory still moves.
const SETTLE_INTERVAL: Duration = Duration::from_millis(500);
const SETTLE_READINGS: usize = 40;
/// Two readings within this fraction of each other have settled.
const SETTLED: f64 = 0.002;
/// The first reading comes no sooner than this after a fill: a jiffy-server
/// worker gives its cache of freed blocks back within two seconds of its
/// last call (`thread_cache.rs`), after memory may already look settled.
/// Both servers wait alike.
const FIRST_READING_AFTER: Duration = Duration::from_secs(3);

/// VmRSS of `pid` in bytes, from /proc/PID/status.
pub fn resident_bytes(pid: u32) -> Result<u64, String> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib * 1024)
        .ok_or_else(|| format!("no VmRSS in {path}"))
}

/// VmRSS of `pid` once two readings [`SETTLE_INTERVAL`] apart agree within
/// [`SETTLED`], the first [`FIRST_READING_AFTER`] the call: after a fill,
/// the allocator's background purge and the server's last writes come to
/// rest first.
pub async fn settled_resident_bytes(pid: u32) -> Result<u64, String> {
    tokio::time::sleep(FIRST_READING_AFTER).await;
    let mut last = resident_bytes(pid)?;
    for _ in 0..SETTLE_READINGS {
        tokio::time::sleep(SETTLE_INTERVAL).await;
        let now = resident_bytes(pid)?;
        if (now as f64 - last as f64).abs() <= last as f64 * SETTLED {
            return Ok(now);
        }
        last = now;
    }
    Ok(last)
}

/// jiffy-server's figures from one scrape of its metrics.
pub struct JiffyFigures {
    pub items: f64,
    /// `jiffy_memory_bytes`: what the store charges against --max-memory.
    pub charged: f64,
    pub evictions: f64,
    /// `jiffy_allocator_allocated_bytes` and `..._resident_bytes`; `None`
    /// from a server built before them.
    pub allocated: Option<f64>,
    pub allocator_resident: Option<f64>,
    /// `jiffy_allocator_thread_cache_bytes`, from a server that has it.
    pub thread_cache: Option<f64>,
}

impl JiffyFigures {
    pub async fn scrape(metrics: SocketAddr) -> Result<JiffyFigures, String> {
        let text = http_get_metrics(metrics).await?;
        let read = |name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
                .and_then(|value| value.trim().parse::<f64>().ok())
                .ok_or_else(|| format!("{name} not in the metrics of {metrics}"))
        };
        Ok(JiffyFigures {
            items: read("jiffy_items")?,
            charged: read("jiffy_memory_bytes")?,
            evictions: read("jiffy_evictions_total")?,
            allocated: read("jiffy_allocator_allocated_bytes").ok(),
            allocator_resident: read("jiffy_allocator_resident_bytes").ok(),
            thread_cache: read("jiffy_allocator_thread_cache_bytes").ok(),
        })
    }
}

/// The body of `GET /metrics`. HTTP/1.0 by hand: one request to a local
/// port whose answer ends with the connection, which an HTTP client
/// library would add a dependency tree for.
async fn http_get_metrics(addr: SocketAddr) -> Result<String, String> {
    let failed = |e: std::io::Error| format!("scraping {addr}: {e}");
    let mut stream = tokio::net::TcpStream::connect(addr).await.map_err(failed)?;
    stream
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n")
        .await
        .map_err(failed)?;
    let mut response = String::new();
    stream.read_to_string(&mut response).await.map_err(failed)?;
    match response.split_once("\r\n\r\n") {
        Some((head, body))
            if head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200") =>
        {
            Ok(body.to_owned())
        }
        _ => Err(format!(
            "scraping {addr}: {}",
            response.lines().next().unwrap_or("")
        )),
    }
}
