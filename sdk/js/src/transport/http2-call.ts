// One gRPC call on one HTTP/2 stream: reads the response headers, the
// length-prefixed messages and the trailers, and settles the caller's
// promise exactly once.
//
// Kept lean because it runs for every request: the call object is its own
// deframer, the stream's listeners are shared module-level functions that
// find their call through a symbol on the stream (no closures per call), a
// success builds no Error, and a message that fits in one DATA chunk is never
// copied.

import type { ClientHttp2Stream, Http2Session, IncomingHttpHeaders } from 'node:http2';
import { constants as h2 } from 'node:http2';
import { StatusError } from './channel.js';
import { MessageDeframer } from './http2-framing.js';
import {
  Code,
  RstCode,
  grpcCodeForHttpStatus,
  grpcCodeForRstCode,
  readGrpcStatus,
  statusErrorFromTrailers,
} from './http2-status.js';

const CALL = Symbol('jiffy.http2Call');

type CallStream = ClientHttp2Stream & { [CALL]?: Http2Call };

/** What a call needs from its channel. */
export interface CallOwner {
  /** The call has settled: forget it (stop tracking it for close()). */
  callSettled(call: Http2Call): void;
  /**
   * The server refused the stream without processing it (REFUSED_STREAM):
   * start it again on a live connection. False when that is not possible.
   */
  reissue(call: Http2Call): boolean;
}

/** Largest delay setTimeout accepts; longer deadlines re-arm the timer. */
const MAX_TIMER_MS = 2_147_483_647;

export class Http2Call extends MessageDeframer {
  /** The framed request, kept so a refused stream can be sent again. */
  readonly framedRequest: Buffer;
  /** Whether a REFUSED_STREAM has already been retried once. */
  reissued = false;
  stream: CallStream | undefined;
  /** The session the stream belongs to, to tell a lost connection from a reset stream. */
  private session: Http2Session | undefined;
  private settled = false;
  private timer: NodeJS.Timeout | undefined;
  private httpStatus = 0;
  /** grpc-status once seen (in trailers, or in headers for trailers-only). */
  private grpcStatus = -1;
  private statusHeaders: IncomingHttpHeaders | undefined;
  private messages: Buffer[] | undefined;
  private single: Buffer | undefined;
  private messageCount = 0;

  constructor(
    private readonly owner: CallOwner,
    readonly path: string,
    framedRequest: Buffer,
    readonly deadline: number,
    readonly metadata: Readonly<Record<string, string>>,
    maxReceiveMessageBytes: number,
    streaming: boolean,
    private readonly resolve: (value: Buffer & Buffer[]) => void,
    private readonly reject: (error: StatusError) => void,
  ) {
    super(maxReceiveMessageBytes);
    this.framedRequest = framedRequest;
    if (streaming) this.messages = [];
  }

  /** Starts the deadline timer; false (and the call failed) if it has passed. */
  armDeadline(): boolean {
    const remaining = this.deadline - Date.now();
    if (remaining <= 0) {
      this.fail(new StatusError(Code.DEADLINE_EXCEEDED, 'deadline passed before the call was sent'));
      return false;
    }
    this.timer = setTimeout(onDeadline, Math.min(remaining, MAX_TIMER_MS), this);
    return true;
  }

  /** Binds the call to the stream that carries it and sends the request. */
  attach(stream: ClientHttp2Stream): void {
    const s = stream as CallStream;
    this.stream = s;
    this.session = stream.session;
    s[CALL] = this;
    s.on('response', onResponse);
    s.on('data', onData);
    s.on('trailers', onTrailers);
    s.on('end', onEnd);
    s.on('error', onError);
    s.on('close', onClose);
    s.end(this.framedRequest);
  }

  protected onMessage(message: Buffer): void {
    this.messageCount++;
    if (this.messages !== undefined) this.messages.push(message);
    else this.single = message;
  }

  /** Fails the call (if still open) and resets its stream with CANCEL. */
  cancel(error: StatusError): void {
    if (this.settled) return;
    this.fail(error);
    const stream = this.stream;
    if (stream !== undefined && !stream.destroyed) stream.close(h2.NGHTTP2_CANCEL);
  }

  fail(error: StatusError): void {
    if (this.settled) return;
    this.settle();
    this.reject(error);
  }

  private settle(): void {
    this.settled = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    // node:http2 streams outlive their requests until a full GC (young-gen
    // collections keep them, see docs/transport.md); cutting the link keeps
    // this call and its response buffers out of what they drag along.
    if (this.stream !== undefined) this.stream[CALL] = undefined;
    this.owner.callSettled(this);
  }

  /**
   * The response ended. With a grpc-status, judge status, framing and
   * message count now; without one, wait for 'close', which tells a lost
   * connection or a reset (node:http2 ends the stream in those cases too)
   * from a server that just sent no status.
   */
  private complete(): void {
    const status = this.grpcStatus;
    if (this.settled || status === -1) return;
    if (status !== Code.OK) {
      this.fail(statusErrorFromTrailers(status, this.statusHeaders ?? {}));
      return;
    }
    if (!this.deframerIdle) {
      this.fail(new StatusError(Code.INTERNAL, 'response ended in the middle of a message'));
      return;
    }
    if (this.messages !== undefined) {
      this.settle();
      this.resolve(this.messages as Buffer & Buffer[]);
      return;
    }
    if (this.messageCount !== 1) {
      this.fail(new StatusError(Code.INTERNAL, `unary response carried ${this.messageCount} messages`));
      return;
    }
    this.settle();
    this.resolve(this.single as Buffer & Buffer[]);
  }

  /** The stream closed with the call still open: no status came. Say why. */
  private closedWithoutStatus(stream: ClientHttp2Stream): void {
    if (this.settled) return;
    const rst = stream.rstCode ?? RstCode.NO_ERROR;
    if (rst === RstCode.REFUSED_STREAM && !this.reissued) {
      // Not processed by the server, so sending it again cannot apply it twice.
      this.reissued = true;
      (stream as CallStream)[CALL] = undefined; // its listeners now ignore it
      if (this.owner.reissue(this)) return;
    }
    const http = this.httpStatus;
    if (this.session === undefined || this.session.destroyed) {
      this.fail(new StatusError(Code.UNAVAILABLE, 'connection lost during the call'));
    } else if (rst !== RstCode.NO_ERROR) {
      this.fail(new StatusError(grpcCodeForRstCode(rst), `stream reset by the server (HTTP/2 code ${rst})`));
    } else if (http !== 200 && http !== 0) {
      this.fail(new StatusError(grpcCodeForHttpStatus(http), `HTTP status ${http} without grpc-status`));
    } else {
      this.fail(new StatusError(Code.INTERNAL, 'response ended without grpc-status'));
    }
  }

  static onResponseHeaders(call: Http2Call, headers: IncomingHttpHeaders): void {
    call.httpStatus = Number(headers[':status'] ?? 0);
    const status = readGrpcStatus(headers);
    if (status !== undefined) {
      // Trailers-only: the status arrived in the only headers block.
      call.grpcStatus = status;
      call.statusHeaders = headers;
    }
  }

  static onTrailerHeaders(call: Http2Call, headers: IncomingHttpHeaders): void {
    const status = readGrpcStatus(headers);
    if (status !== undefined) {
      call.grpcStatus = status;
      call.statusHeaders = headers;
    }
  }

  static onEnded(call: Http2Call): void {
    call.complete();
  }

  static onClosed(call: Http2Call, stream: ClientHttp2Stream): void {
    call.closedWithoutStatus(stream);
  }
}

// Stream listeners, shared by every call: `this` is the stream.

function onResponse(this: CallStream, headers: IncomingHttpHeaders): void {
  const call = this[CALL];
  if (call !== undefined) Http2Call.onResponseHeaders(call, headers);
}

function onData(this: CallStream, chunk: Buffer): void {
  const call = this[CALL];
  if (call === undefined) return;
  const error = call.push(chunk);
  if (error !== undefined) call.cancel(new StatusError(error.code, error.details));
}

function onTrailers(this: CallStream, headers: IncomingHttpHeaders): void {
  const call = this[CALL];
  if (call !== undefined) Http2Call.onTrailerHeaders(call, headers);
}

function onEnd(this: CallStream): void {
  const call = this[CALL];
  if (call !== undefined) Http2Call.onEnded(call);
}

function onError(this: CallStream): void {
  // The reason reaches the call through 'close' (rstCode, session state);
  // listening here keeps an unhandled 'error' event from throwing.
}

function onClose(this: CallStream): void {
  const call = this[CALL];
  if (call !== undefined) Http2Call.onClosed(call, this);
}

function onDeadline(call: Http2Call): void {
  if (call.deadline - Date.now() > 1) {
    call.armDeadline(); // a deadline longer than one timer can hold
    return;
  }
  call.cancel(new StatusError(Code.DEADLINE_EXCEEDED, 'deadline exceeded'));
}
