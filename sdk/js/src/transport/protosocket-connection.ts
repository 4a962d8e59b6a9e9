// One protosocket connection (jiffy-server's --protosocket-listen port) on
// node:net or node:tls: Get, Set and Delete commands pipelined on one
// socket, their answers matched by message id in whatever order they come.
//
// Why it exists: a finished node:http2 stream lives until the next full GC,
// so every gRPC call leaves garbage that scavenges must copy
// (docs/transport.md). Here a call is a promise and one small record that
// die young; everything else is owned by the connection and reused:
//
// - Commands are encoded (protosocket-codec.ts) straight into a 64 KiB
//   output buffer, in regions never rewritten once handed to the socket, and
//   written once per tick: the commands started in one turn of the event
//   loop go out in one write. A Set's value over 16 KiB is written as its
//   own chunk, uncopied.
// - Answers are cut from socket chunks in place (protosocket-framing.ts) and
//   read into one reusable reader.
// - Deadlines share one timer per connection, armed for the earliest one:
//   calls start in deadline order (the deadline is start + deadlineMs), so it
//   fires about once per deadlineMs and then checks every call in flight
//   (at most the in-flight cap). A call past its deadline fails with
//   DEADLINE_EXCEEDED and a cancel frame tells the server to drop it.
//
// The connection authenticates first (the token the gRPC calls send as
// `authorization`, under message id 0xDEADBEEF); commands follow at once
// without waiting for its answer, since the server reads them after it in
// order. A connection that breaks fails its calls with UNAVAILABLE (the
// client's retry policy resends the idempotent ones); the next call opens a
// new one. Failures are StatusErrors with the codes channel.ts lists, mapped
// to CacheErrors in errors.ts like every other call's.
import * as net from 'node:net';
import * as tls from 'node:tls';
import { StatusError } from './channel.js';
import { Status as Code } from '../status.js';
import {
  AUTH_MESSAGE_ID,
  Command,
  CommandLayout,
  type Field,
  Kind,
  MISS,
  ResponseReader,
  cancelFrameBytes,
  fieldBytes,
  writeCancel,
  writeCommand,
  writeTtl,
} from './protosocket-codec.js';
import { FrameDecoder } from './protosocket-framing.js';

/** Where and how a protosocket connection connects. */
export interface ProtosocketTarget {
  host: string;
  port: number;
  /** TLS when set (no ALPN: the port speaks only protosocket). */
  tls?: { ca?: Uint8Array; serverName?: string };
  /** Sent in the Authenticate command; the server without auth takes any. */
  token: string | undefined;
  /** TCP keepalive probes after this much idle time; 0 = off. */
  keepaliveTimeMs: number;
  /** Largest answer frame accepted. */
  maxReceiveMessageBytes: number;
}

/** The output buffer's size: many small commands per allocation. */
const OUT_BYTES = 64 << 10;
/** A Set's value at least this big is written as its own chunk, not copied. */
const SEPARATE_VALUE_BYTES = 16 << 10;
const NO_TIMER = -1;

/** One command waiting for its answer. */
interface PendingCall {
  readonly id: number;
  readonly command: number;
  readonly deadline: number;
  readonly resolve: (value: Uint8Array | undefined) => void;
  readonly reject: (error: StatusError) => void;
}

/** Someone waiting in connect() for the Authenticate answer. */
interface ConnectWaiter {
  resolve: () => void;
  reject: (error: StatusError) => void;
  timer: NodeJS.Timeout;
}

export class ProtosocketConnection extends FrameDecoder {
  private socket: net.Socket | undefined;
  /** TCP (and TLS) up on the current socket. */
  private connected = false;
  /** The Authenticate answer came back on the current socket: it speaks protosocket. */
  private answered = false;
  private lastError: Error | undefined;
  private closed = false;
  private readonly pending = new Map<number, PendingCall>();
  private nextId = 1;
  private connectWaiters: ConnectWaiter[] = [];

  private readonly layout = new CommandLayout();
  private readonly reader = new ResponseReader();
  private out: Buffer = Buffer.allocUnsafeSlow(OUT_BYTES);
  /** The region out[outStart, outEnd) is written but not yet handed to the socket. */
  private outStart = 0;
  private outEnd = 0;
  /** Regions and uncopied values waiting for the next flush, in order. */
  private chunks: Buffer[] = [];
  private flushScheduled = false;
  private readonly flushBound = (): void => this.flush();

  private timer: NodeJS.Timeout | undefined;
  private timerAt = NO_TIMER;
  private readonly sweepBound = (): void => this.sweep();

  constructor(private readonly target: ProtosocketTarget) {
    super(target.maxReceiveMessageBytes);
  }

  /** Calls waiting for an answer (the pool's measure of load). */
  get inFlight(): number {
    return this.pending.size;
  }

  isConnected(): boolean {
    return this.connected && this.socket !== undefined && !this.socket.destroyed;
  }

  /** Resolves once the server has answered the Authenticate command on a live connection. */
  connect(deadline: number): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    if (this.answered && this.isConnected()) return Promise.resolve();
    this.ensureSocket();
    this.scheduleFlush();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.connectWaiters = this.connectWaiters.filter((w) => w !== waiter);
        reject(new StatusError(Code.DEADLINE_EXCEEDED, `no protosocket connection to ${this.where()} before the deadline`));
      }, Math.max(0, deadline - Date.now()));
      const waiter: ConnectWaiter = { resolve, reject, timer };
      this.connectWaiters.push(waiter);
    });
  }

  /**
   * Sends one command and resolves with its answer: a Get's value (undefined
   * on a miss), or undefined for Set and Delete. `namespace` is the cache
   * name's UTF-8 bytes.
   */
  send(
    command: number,
    namespace: Buffer,
    key: Field,
    value: Field | undefined,
    ttlMs: number,
    deadline: number,
  ): Promise<Uint8Array | undefined> {
    return new Promise<Uint8Array | undefined>((resolve, reject) => {
      if (this.closed) {
        reject(closedError());
        return;
      }
      if (deadline <= Date.now()) {
        reject(deadlineError());
        return;
      }
      this.ensureSocket();
      let id = this.nextId++;
      if (id === AUTH_MESSAGE_ID) id = this.nextId++;
      const valueBytes = value === undefined ? 0 : fieldBytes(value);
      this.write(this.layout.plan(command, id, namespace.length, fieldBytes(key), valueBytes, ttlMs), namespace, key, value);
      this.pending.set(id, { id, command, deadline, resolve, reject });
      if (this.pending.size === 1) this.timer?.ref();
      if (this.timerAt === NO_TIMER || deadline < this.timerAt) this.arm(deadline);
      this.scheduleFlush();
    });
  }

  /** Fails calls in flight with CANCELLED and closes the connection. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.failAll(closedError());
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = NO_TIMER;
    this.socket?.destroy();
  }

  protected onFrame(buffer: Buffer, start: number, end: number): void {
    const reader = this.reader;
    reader.read(buffer, start, end);
    const id = reader.messageId;
    if (id === AUTH_MESSAGE_ID) {
      this.onAuthenticated();
      return;
    }
    const call = this.pending.get(id);
    if (call === undefined) return; // timed out and cancelled: its answer crossed the cancel
    this.pending.delete(id);
    if (this.pending.size === 0) this.timer?.unref();
    switch (reader.kind) {
      case Kind.GET:
        call.resolve(reader.value());
        return;
      case Kind.SET:
      case Kind.DELETE:
        call.resolve(undefined);
        return;
      case Kind.MISS:
        if (call.command === Command.GET) call.resolve(undefined);
        else call.reject(new StatusError(Code.NOT_FOUND, MISS));
        return;
      case Kind.ERROR:
        // The reason travels as gRPC's does, in the `err` trailer: errors.ts reads one place.
        call.reject(new StatusError(reader.errorCode, reader.errorMessage, reader.errorReason === '' ? {} : { err: reader.errorReason }));
        return;
      default:
        call.reject(new StatusError(Code.INTERNAL, `an answer of kind ${reader.kind} to command ${call.command}`));
    }
  }

  private onAuthenticated(): void {
    // Any answer will do, an error included: a bad token fails each call
    // with UNAUTHENTICATED, as a bad `authorization` header does over gRPC.
    this.answered = true;
    const waiters = this.connectWaiters;
    this.connectWaiters = [];
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
  }

  private ensureSocket(): void {
    if (this.socket !== undefined) return;
    const { host, port, tls: tlsOptions, keepaliveTimeMs } = this.target;
    let socket: net.Socket;
    if (tlsOptions === undefined) {
      socket = net.connect({ host, port, noDelay: true });
      socket.once('connect', () => this.onConnect(socket));
    } else {
      socket = tls.connect({
        host,
        port,
        ca: tlsOptions.ca === undefined ? undefined : Buffer.from(tlsOptions.ca),
        // SNI carries names only; an IP literal is checked against the certificate without it.
        servername: tlsOptions.serverName ?? (net.isIP(host) === 0 ? host : undefined),
      });
      socket.setNoDelay(true);
      socket.once('secureConnect', () => this.onConnect(socket));
    }
    if (keepaliveTimeMs > 0) socket.setKeepAlive(true, keepaliveTimeMs);
    // An idle connection does not keep the process alive; the deadline
    // timer does while calls are in flight.
    socket.unref();
    this.socket = socket;
    this.connected = false;
    this.answered = false;
    this.lastError = undefined;
    this.resetFrames();
    // Unflushed bytes belonged to the socket before: their calls have failed.
    this.outStart = this.outEnd;
    this.chunks.length = 0;
    socket.on('data', (chunk: Buffer) => this.onData(socket, chunk));
    socket.on('error', (error: Error) => {
      if (this.socket === socket) this.lastError = error;
    });
    socket.on('close', () => this.onClose(socket));
    const token = this.target.token ?? '';
    this.write(this.layout.plan(Command.AUTH, AUTH_MESSAGE_ID, 0, fieldBytes(token)), EMPTY, token, undefined);
  }

  private onConnect(socket: net.Socket): void {
    if (this.socket === socket) this.connected = true;
  }

  private onData(socket: net.Socket, chunk: Buffer): void {
    if (this.socket !== socket) return;
    try {
      this.pushChunk(chunk);
    } catch (error) {
      this.lastError = error as Error;
      this.drop(socket, new StatusError(Code.INTERNAL, `a malformed protosocket answer from ${this.where()}: ${(error as Error).message}`));
    } finally {
      this.reader.release();
    }
  }

  private onClose(socket: net.Socket): void {
    if (this.socket !== socket) return;
    const why = this.lastError?.message ?? 'the server closed the connection';
    this.drop(socket, new StatusError(Code.UNAVAILABLE, `protosocket connection to ${this.where()} lost: ${why}`));
  }

  /** Forgets `socket` and fails everything that depended on it. */
  private drop(socket: net.Socket, error: StatusError): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.connected = false;
    this.answered = false;
    socket.destroy();
    this.failAll(error);
  }

  private failAll(error: StatusError): void {
    const waiters = this.connectWaiters;
    this.connectWaiters = [];
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(error.code === Code.UNAVAILABLE ? new StatusError(Code.UNAVAILABLE, this.connectFailure()) : error);
    }
    const calls = [...this.pending.values()];
    this.pending.clear();
    this.timer?.unref();
    for (const call of calls) call.reject(error);
  }

  private connectFailure(): string {
    return `cannot connect to ${this.where()}: ${this.lastError?.message ?? 'connection closed'}`;
  }

  /** Encodes the planned command into the output (the value apart when large). */
  private write(layout: CommandLayout, namespace: Buffer, key: Field, value: Field | undefined): void {
    if (layout.valueBytes < SEPARATE_VALUE_BYTES) {
      this.reserve(layout.frameBytes);
      this.outEnd = writeCommand(this.out, this.outEnd, layout, namespace, key, value);
      return;
    }
    this.reserve(layout.headBytes);
    this.outEnd = writeCommand(this.out, this.outEnd, layout, namespace, key, value, false);
    this.cutSegment();
    this.chunks.push(typeof value === 'string' ? Buffer.from(value, 'utf8') : toBuffer(value!));
    this.reserve(layout.tailBytes - layout.valueBytes);
    this.outEnd = writeTtl(this.out, this.outEnd, layout);
  }

  /** Room for `bytes` more in the output buffer: a new buffer when this one is full. */
  private reserve(bytes: number): void {
    if (this.out.length - this.outEnd >= bytes) return;
    this.cutSegment();
    this.out = Buffer.allocUnsafeSlow(Math.max(OUT_BYTES, bytes));
    this.outStart = 0;
    this.outEnd = 0;
  }

  /** Moves the bytes written since the last cut to the chunk list. */
  private cutSegment(): void {
    if (this.outEnd > this.outStart) this.chunks.push(this.out.subarray(this.outStart, this.outEnd));
    this.outStart = this.outEnd;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    process.nextTick(this.flushBound);
  }

  /** Hands everything written this tick to the socket: one write, or a corked few. */
  private flush(): void {
    this.flushScheduled = false;
    this.cutSegment();
    const socket = this.socket;
    const chunks = this.chunks;
    if (socket === undefined || chunks.length === 0) {
      chunks.length = 0;
      return;
    }
    if (chunks.length === 1) {
      socket.write(chunks[0]!);
    } else {
      socket.cork();
      for (const chunk of chunks) socket.write(chunk);
      socket.uncork();
    }
    chunks.length = 0;
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.sweepBound, Math.max(0, at - Date.now()));
  }

  /** Fails the calls past their deadline, cancelling them; re-arms for the next. */
  private sweep(): void {
    this.timer = undefined;
    this.timerAt = NO_TIMER;
    const now = Date.now();
    let next = Infinity;
    for (const call of this.pending.values()) {
      if (call.deadline > now) {
        if (call.deadline < next) next = call.deadline;
        continue;
      }
      this.pending.delete(call.id);
      if (this.socket !== undefined) {
        this.reserve(cancelFrameBytes(call.id));
        this.outEnd = writeCancel(this.out, this.outEnd, call.id);
        this.scheduleFlush();
      }
      call.reject(deadlineError());
    }
    if (next !== Infinity) this.arm(next);
  }

  private where(): string {
    const { host, port } = this.target;
    return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
  }
}

const EMPTY = Buffer.alloc(0);

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function closedError(): StatusError {
  return new StatusError(Code.CANCELLED, 'channel closed by the client');
}

function deadlineError(): StatusError {
  return new StatusError(Code.DEADLINE_EXCEEDED, 'no protosocket answer before the deadline');
}
