// A server stream on one HTTP/2 stream, read as it arrives (Subscribe):
// each message goes to the listener as soon as it is deframed, then the end
// once. Unlike Http2Call it keeps nothing and has no deadline; a stream
// lives for as long as its reader wants. Subscriptions are few and long, so
// plain closures per stream are fine here.

import type { ClientHttp2Stream, Http2Session, IncomingHttpHeaders } from 'node:http2';
import { constants as h2 } from 'node:http2';
import { type OpenStream, StatusError, type StreamListener } from './channel.js';
import { MessageDeframer } from './http2-framing.js';
import {
  Code,
  RstCode,
  grpcCodeForHttpStatus,
  grpcCodeForRstCode,
  readGrpcStatus,
  statusErrorFromTrailers,
} from './http2-status.js';

/** Headers as one string per name, without the pseudo-headers. */
function plainHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    plain[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return plain;
}

/** What a stream needs from its channel. */
export interface StreamOwner {
  /** The stream is over: stop tracking it for close(). */
  streamEnded(stream: Http2StreamCall): void;
}

export class Http2StreamCall extends MessageDeframer implements OpenStream {
  private stream: ClientHttp2Stream | undefined;
  private session: Http2Session | undefined;
  private ended = false;
  private httpStatus = 0;
  /** grpc-status once seen (in trailers, or in headers for trailers-only). */
  private grpcStatus = -1;
  private statusHeaders: IncomingHttpHeaders | undefined;

  constructor(
    private readonly owner: StreamOwner,
    private readonly framedRequest: Buffer,
    maxReceiveMessageBytes: number,
    private readonly listener: StreamListener,
  ) {
    super(maxReceiveMessageBytes);
  }

  /** Binds the call to the HTTP/2 stream that carries it and sends the request. */
  attach(stream: ClientHttp2Stream): void {
    this.stream = stream;
    this.session = stream.session;
    stream.on('response', (headers: IncomingHttpHeaders) => {
      this.httpStatus = Number(headers[':status'] ?? 0);
      this.readStatus(headers);
      if (this.listener.onHeaders !== undefined && !this.ended) this.listener.onHeaders(plainHeaders(headers));
    });
    stream.on('data', (chunk: Buffer) => {
      if (this.ended) return;
      const error = this.push(chunk);
      if (error !== undefined) this.failAndReset(new StatusError(error.code, error.details));
    });
    stream.on('trailers', (headers: IncomingHttpHeaders) => this.readStatus(headers));
    stream.on('end', () => this.complete());
    // The reason reaches the call through 'close' (rstCode, session state);
    // listening here keeps an unhandled 'error' event from throwing.
    stream.on('error', () => undefined);
    stream.on('close', () => this.closedWithoutStatus(stream));
    stream.end(this.framedRequest);
  }

  protected onMessage(message: Buffer): void {
    if (!this.ended) this.listener.onMessage(message);
  }

  cancel(): void {
    if (this.ended) return;
    this.ended = true;
    this.owner.streamEnded(this);
    this.reset();
  }

  pause(): void {
    this.stream?.pause();
  }

  resume(): void {
    this.stream?.resume();
  }

  /** Ends the stream with `error`, telling the listener (once). */
  fail(error: StatusError): void {
    if (this.ended) return;
    this.ended = true;
    this.owner.streamEnded(this);
    this.listener.onEnd(error);
  }

  private failAndReset(error: StatusError): void {
    this.fail(error);
    this.reset();
  }

  private reset(): void {
    const stream = this.stream;
    if (stream !== undefined && !stream.destroyed) stream.close(h2.NGHTTP2_CANCEL);
  }

  private readStatus(headers: IncomingHttpHeaders): void {
    const status = readGrpcStatus(headers);
    if (status !== undefined) {
      this.grpcStatus = status;
      this.statusHeaders = headers;
    }
  }

  /** The response ended; without a grpc-status, 'close' says why. */
  private complete(): void {
    const status = this.grpcStatus;
    if (this.ended || status === -1) return;
    if (status !== Code.OK) {
      this.fail(statusErrorFromTrailers(status, this.statusHeaders ?? {}));
    } else if (!this.deframerIdle) {
      this.fail(new StatusError(Code.INTERNAL, 'response ended in the middle of a message'));
    } else {
      this.ended = true;
      this.owner.streamEnded(this);
      this.listener.onEnd(undefined);
    }
  }

  private closedWithoutStatus(stream: ClientHttp2Stream): void {
    if (this.ended) return;
    const rst = stream.rstCode ?? RstCode.NO_ERROR;
    const http = this.httpStatus;
    if (this.session === undefined || this.session.destroyed) {
      this.fail(new StatusError(Code.UNAVAILABLE, 'connection lost during the stream'));
    } else if (rst !== RstCode.NO_ERROR) {
      this.fail(new StatusError(grpcCodeForRstCode(rst), `stream reset by the server (HTTP/2 code ${rst})`));
    } else if (http !== 200 && http !== 0) {
      this.fail(new StatusError(grpcCodeForHttpStatus(http), `HTTP status ${http} without grpc-status`));
    } else {
      this.fail(new StatusError(Code.INTERNAL, 'response ended without grpc-status'));
    }
  }
}
