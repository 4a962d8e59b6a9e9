// A Channel carried directly on node:http2: gRPC's wire format (5-byte
// message prefix, `grpc-timeout`, status in trailers) spoken without
// @grpc/grpc-js in between. It exists because the per-call machinery of a
// general-purpose gRPC stack (interceptor chains, call objects, a status
// Error built at the end of every call) costs more client CPU than the
// request itself; see docs/transport.md for the measurements.
//
// What it does not do: compression, client-side load balancing, name
// resolution beyond what net.connect does, retries other than re-sending a
// stream the server refused unprocessed (REFUSED_STREAM), which is always safe.

import type { ClientHttp2Stream, OutgoingHttpHeaders } from 'node:http2';
import type { CallOptions, Channel, ChannelFactory, ChannelTarget, OpenStream, StreamListener } from './channel.js';
import { StatusError } from './channel.js';
import { Http2Call, type CallOwner } from './http2-call.js';
import { Http2Connection } from './http2-connection.js';
import { frameMessage } from './http2-framing.js';
import { Code, encodeGrpcTimeout } from './http2-status.js';
import { Http2StreamCall, type StreamOwner } from './http2-stream.js';

/** Headers every call sends; per-call values are written over a copy. */
const BASE_HEADERS: Readonly<OutgoingHttpHeaders> = {
  ':method': 'POST',
  'content-type': 'application/grpc',
  te: 'trailers',
};

export class Http2Channel implements Channel, CallOwner, StreamOwner {
  private readonly connection: Http2Connection;
  private readonly inFlight = new Set<Http2Call>();
  private readonly streams = new Set<Http2StreamCall>();
  private closed = false;
  /**
   * Request headers for the metadata object seen last. Callers pass the same
   * metadata object call after call, so the object is built once and only
   * `:path` and `grpc-timeout` are rewritten; node:http2 copies the headers
   * before request() returns, so reusing the object is safe.
   */
  private headers: OutgoingHttpHeaders = { ...BASE_HEADERS };
  private headersFor: Readonly<Record<string, string>> | undefined;

  constructor(
    private readonly target: ChannelTarget,
    /** Streams per connection before moving to a new one (stream ids run out). */
    maxStreamsPerSession?: number,
  ) {
    this.connection = new Http2Connection(target, maxStreamsPerSession);
  }

  /** Resolves once the server has sent its SETTINGS: it speaks HTTP/2 on this connection. */
  connect(deadline: number): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    if (this.connection.isReady()) return Promise.resolve();
    const session = this.connection.get();
    return new Promise<void>((resolve, reject) => {
      const finish = (error?: StatusError): void => {
        clearTimeout(timer);
        session.off('remoteSettings', onConnect);
        session.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onConnect = (): void => finish();
      const onClose = (): void =>
        finish(new StatusError(Code.UNAVAILABLE, `cannot connect to ${this.where()}: ${this.connection.describeLastError()}`));
      const timer = setTimeout(
        () => finish(new StatusError(Code.DEADLINE_EXCEEDED, `no connection to ${this.where()} before the deadline`)),
        Math.max(0, deadline - Date.now()),
      );
      session.once('remoteSettings', onConnect);
      session.once('close', onClose);
    });
  }

  unary(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array> {
    return new Promise<Buffer>((resolve, reject) => this.start(path, request, options, false, resolve, reject));
  }

  serverStream(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array[]> {
    return new Promise<Buffer[]>((resolve, reject) => this.start(path, request, options, true, resolve, reject));
  }

  openStream(path: string, request: Uint8Array, metadata: Readonly<Record<string, string>>, listener: StreamListener): OpenStream {
    const call = new Http2StreamCall(this, frameMessage(request), this.target.maxReceiveMessageBytes, listener);
    if (this.closed) {
      queueMicrotask(() => call.fail(closedError()));
      return call;
    }
    let stream: ClientHttp2Stream;
    try {
      // No grpc-timeout: the stream has no deadline.
      stream = this.connection.forRequest().request({ ...BASE_HEADERS, ...metadata, ':path': path });
    } catch (error) {
      const lost = !this.connection.isConnected();
      const details = error instanceof Error ? error.message : String(error);
      queueMicrotask(() => call.fail(new StatusError(lost ? Code.UNAVAILABLE : Code.INTERNAL, details)));
      return call;
    }
    this.streams.add(call);
    call.attach(stream);
    return call;
  }

  streamEnded(stream: Http2StreamCall): void {
    this.streams.delete(stream);
  }

  isConnected(): boolean {
    return this.connection.isConnected();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of [...this.streams]) stream.fail(closedError());
    for (const call of [...this.inFlight]) call.cancel(closedError());
    this.connection.close();
  }

  callSettled(call: Http2Call): void {
    this.inFlight.delete(call);
  }

  reissue(call: Http2Call): boolean {
    if (this.closed) return false;
    this.inFlight.add(call);
    return this.send(call);
  }

  private start(
    path: string,
    request: Uint8Array,
    options: CallOptions,
    streaming: boolean,
    resolve: (value: Buffer & Buffer[]) => void,
    reject: (error: StatusError) => void,
  ): void {
    if (this.closed) {
      reject(closedError());
      return;
    }
    const call = new Http2Call(
      this,
      path,
      frameMessage(request),
      options.deadline,
      options.metadata,
      this.target.maxReceiveMessageBytes,
      streaming,
      resolve,
      reject,
    );
    if (!call.armDeadline()) return;
    this.inFlight.add(call);
    this.send(call);
  }

  /** Opens a stream for `call` on the live session; false if that failed. */
  private send(call: Http2Call): boolean {
    let stream: ClientHttp2Stream;
    try {
      stream = this.connection.forRequest().request(this.requestHeaders(call));
    } catch (error) {
      // A session torn down between get() and request(), or a header Node rejects.
      const lost = !this.connection.isConnected();
      const details = error instanceof Error ? error.message : String(error);
      call.fail(new StatusError(lost ? Code.UNAVAILABLE : Code.INTERNAL, details));
      return false;
    }
    call.attach(stream);
    return true;
  }

  private requestHeaders(call: Http2Call): OutgoingHttpHeaders {
    if (this.headersFor !== call.metadata) {
      this.headers = { ...BASE_HEADERS, ...call.metadata };
      this.headersFor = call.metadata;
    }
    const headers = this.headers;
    headers[':path'] = call.path;
    headers['grpc-timeout'] = encodeGrpcTimeout(call.deadline - Date.now());
    return headers;
  }

  private where(): string {
    return `${this.target.host}:${this.target.port}`;
  }
}

function closedError(): StatusError {
  return new StatusError(Code.CANCELLED, 'channel closed by the client');
}

/** A Channel on node:http2: one HTTP/2 connection, reopened on the next call after it is lost. */
export const createHttp2Channel: ChannelFactory = (target) => new Http2Channel(target);
