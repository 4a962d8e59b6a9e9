// The HTTP/2 session behind one channel: opened on first use, TCP_NODELAY on
// the socket, TLS with ALPN h2 when asked, keepalive PINGs whose missing
// answer drops the connection, and a fresh session on the next use after the
// old one closed, errored or received GOAWAY.
//
// The session is unref'd: an idle channel does not keep the process alive,
// while each call's deadline timer (ref'd) keeps it alive until the call ends.

import * as http2 from 'node:http2';
import type { ClientHttp2Session } from 'node:http2';
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { ChannelTarget } from './channel.js';

/**
 * Per-stream receive window we advertise. The 64 KiB default makes a large
 * value wait one WINDOW_UPDATE round trip per 64 KiB.
 */
const STREAM_WINDOW_BYTES = 1 << 20;
/** Connection-wide receive window: room for several large responses at once. */
const CONNECTION_WINDOW_BYTES = 16 << 20;
/**
 * Node refuses new streams once a session buffers more than this many MB
 * (default 10). Requests of up to 8 MiB with many in flight pass that; the
 * in-flight cap above the channel is what bounds memory.
 */
const MAX_SESSION_MEMORY_MB = 1024;
/**
 * Streams opened on one session before the channel moves to a new one. A
 * client's stream ids are odd numbers below 2^31, so a session runs out after
 * ~1.07e9 requests (about 15 hours at 20,000 calls/s); past that node:http2
 * fails every new stream. The old session is closed gracefully.
 */
export const DEFAULT_MAX_STREAMS_PER_SESSION = 1_000_000_000;

export class Http2Connection {
  private session: ClientHttp2Session | undefined;
  /** The session's socket: destroying a session mid-TLS-handshake leaves it open. */
  private socket: net.Socket | undefined;
  private connected = false;
  /**
   * The peer's SETTINGS frame arrived: it speaks HTTP/2. `connect` fires on
   * the TCP (or TLS) connection alone, so a plaintext client "connects" to a
   * TLS server and learns otherwise only when its first call fails.
   */
  private answered = false;
  private lastError: Error | undefined;
  private pingInterval: NodeJS.Timeout | undefined;
  private pingTimeout: NodeJS.Timeout | undefined;
  private streamsOpened = 0;

  constructor(
    private readonly target: ChannelTarget,
    private readonly maxStreamsPerSession = DEFAULT_MAX_STREAMS_PER_SESSION,
  ) {}

  /** The live session, opening a new one when there is none. */
  get(): ClientHttp2Session {
    const session = this.session;
    if (session !== undefined && !session.closed && !session.destroyed) return session;
    return this.open();
  }

  /** The session for one more stream: a fresh one when this one's stream ids run out. */
  forRequest(): ClientHttp2Session {
    // Only a connected session is rotated: requests made while it connects
    // are held by node:http2 and would fail if it were closed under them.
    if (++this.streamsOpened > this.maxStreamsPerSession && this.isConnected() && this.session !== undefined) {
      const old = this.session;
      this.forget(old);
      old.close(); // calls in flight on it finish; new ones go to the next session
    }
    return this.get();
  }

  isConnected(): boolean {
    const session = this.session;
    return this.connected && session !== undefined && !session.closed && !session.destroyed;
  }

  /** Connected, and the peer answered in HTTP/2: calls can go. */
  isReady(): boolean {
    return this.answered && this.isConnected();
  }

  /** Why the last session failed, for error messages. */
  describeLastError(): string {
    return this.lastError?.message ?? 'connection closed';
  }

  close(): void {
    const session = this.session;
    const socket = this.socket;
    this.forget(session);
    session?.destroy();
    socket?.destroy();
  }

  private open(): ClientHttp2Session {
    const { host, port, tls: tlsOptions } = this.target;
    const hostInUrl = net.isIPv6(host) ? `[${host}]` : host;
    const authority = `${tlsOptions ? 'https' : 'http'}://${hostInUrl}:${port}`;
    const session = http2.connect(authority, {
      createConnection: () => this.openSocket(),
      maxSessionMemory: MAX_SESSION_MEMORY_MB,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW_BYTES },
    });
    this.session = session;
    this.connected = false;
    this.answered = false;
    this.lastError = undefined;
    this.streamsOpened = 1;
    session.unref();
    session.on('connect', () => this.onConnect(session));
    session.once('remoteSettings', () => {
      if (this.session === session) this.answered = true;
    });
    session.on('error', (error: Error) => {
      if (this.session === session) this.lastError = error;
    });
    session.on('goaway', () => this.forget(session));
    session.on('close', () => this.forget(session));
    return session;
  }

  private openSocket(): net.Socket {
    const { host, port, tls: tlsOptions } = this.target;
    if (tlsOptions === undefined) {
      this.socket = net.connect({ host, port, noDelay: true });
      return this.socket;
    }
    const socket = tls.connect({
      host,
      port,
      ca: tlsOptions.ca === undefined ? undefined : Buffer.from(tlsOptions.ca),
      // SNI carries names only; an IP literal is checked against the certificate without it.
      servername: tlsOptions.serverName ?? (net.isIP(host) === 0 ? host : undefined),
      ALPNProtocols: ['h2'],
    });
    socket.setNoDelay(true);
    this.socket = socket;
    return socket;
  }

  private onConnect(session: ClientHttp2Session): void {
    if (this.session !== session) return;
    this.connected = true;
    session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
    if (this.target.keepaliveTimeMs > 0) {
      this.pingInterval = setInterval(() => this.ping(session), this.target.keepaliveTimeMs);
      this.pingInterval.unref();
    }
  }

  private ping(session: ClientHttp2Session): void {
    if (this.pingTimeout !== undefined || session.destroyed) return;
    this.pingTimeout = setTimeout(() => {
      this.pingTimeout = undefined;
      this.lastError = new Error(`keepalive PING unanswered after ${this.target.keepaliveTimeoutMs} ms`);
      session.destroy(this.lastError);
    }, this.target.keepaliveTimeoutMs);
    this.pingTimeout.unref();
    session.ping(() => {
      clearTimeout(this.pingTimeout);
      this.pingTimeout = undefined;
    });
  }

  /** Stops using `session` for new calls; calls already on it run to their end. */
  private forget(session: ClientHttp2Session | undefined): void {
    if (session === undefined || this.session !== session) return;
    this.session = undefined;
    this.socket = undefined;
    this.connected = false;
    this.answered = false;
    clearInterval(this.pingInterval);
    clearTimeout(this.pingTimeout);
    this.pingInterval = undefined;
    this.pingTimeout = undefined;
  }
}
