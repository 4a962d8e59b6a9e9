//! Why a connection closed: both ports (`listener`, `protosocket`) end
//! their connections with one, and `metrics` counts them by it.

/// Why a connection was closed, as the `reason` label shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseReason {
    /// The client closed it, or it ended without error.
    ClientClosed,
    /// TLS and the HTTP/2 preface were not done within `--handshake-timeout`.
    HandshakeTimeout,
    /// TLS failed, or the client closed before its preface.
    HandshakeFailed,
    /// At `--max-connections`, dropped while in its handshake for a new one.
    Evicted,
    /// At `--max-connections` with none in a handshake: closed at once.
    OverLimit,
    /// Answers waited `--send-timeout` without progress.
    SendTimeout,
    /// GOAWAY ENHANCE_YOUR_CALM: too many streams reset (reset floods).
    EnhanceYourCalm,
    /// Any other HTTP/2 error (a malformed frame, an oversized header...).
    ProtocolError,
    /// A keepalive ping went unanswered for `--keepalive-timeout`.
    KeepaliveTimeout,
    /// The server shut down.
    Shutdown,
    /// It held the most of the in-flight bytes when they ran out.
    InFlightLimit,
    /// Protosocket: no command read or running for `--idle-timeout`.
    IdleTimeout,
    /// Protosocket: bytes that are no frame (a bad length or message), or a
    /// frame cut short by the end of the stream or `--request-timeout`.
    BadFrame,
}

impl CloseReason {
    pub const ALL: [CloseReason; 13] = [
        CloseReason::ClientClosed,
        CloseReason::HandshakeTimeout,
        CloseReason::HandshakeFailed,
        CloseReason::Evicted,
        CloseReason::OverLimit,
        CloseReason::SendTimeout,
        CloseReason::EnhanceYourCalm,
        CloseReason::ProtocolError,
        CloseReason::KeepaliveTimeout,
        CloseReason::Shutdown,
        CloseReason::InFlightLimit,
        CloseReason::IdleTimeout,
        CloseReason::BadFrame,
    ];

    pub fn label(self) -> &'static str {
        match self {
            CloseReason::ClientClosed => "client_closed",
            CloseReason::HandshakeTimeout => "handshake_timeout",
            CloseReason::HandshakeFailed => "handshake_failed",
            CloseReason::Evicted => "evicted_in_handshake",
            CloseReason::OverLimit => "max_connections",
            CloseReason::SendTimeout => "send_timeout",
            CloseReason::EnhanceYourCalm => "enhance_your_calm",
            CloseReason::ProtocolError => "protocol_error",
            CloseReason::KeepaliveTimeout => "keepalive_timeout",
            CloseReason::Shutdown => "shutdown",
            CloseReason::InFlightLimit => "in_flight_limit",
            CloseReason::IdleTimeout => "idle_timeout",
            CloseReason::BadFrame => "bad_frame",
        }
    }
}
