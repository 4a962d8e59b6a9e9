// A Channel over @grpc/grpc-js: one grpc.Client, one TCP connection.
//
// `grpc.use_local_subchannel_pool` gives each client its own subchannel, so
// N channels are N connections (without it grpc-js shares one connection
// between every client to the same target, and more channels add nothing).
// Messages cross as bytes: the client encodes protobuf itself, so the
// serializers here are identities on Buffers.
import * as grpc from '@grpc/grpc-js';
import {
  type CallOptions,
  type Channel,
  type ChannelFactory,
  type ChannelTarget,
  type OpenStream,
  StatusError,
  type StreamListener,
} from './channel.js';
import { SDK_NAME, SDK_VERSION } from '../version.js';

const STATUS_UNAVAILABLE = 14;
const STATUS_DEADLINE_EXCEEDED = 4;
const STATUS_INTERNAL = 13;

// Reconnect quickly after a server restart: grpc-js defaults start at 1 s and
// grow to 120 s, far longer than a cache caller wants to wait.
const INITIAL_RECONNECT_BACKOFF_MS = 100;
const MAX_RECONNECT_BACKOFF_MS = 2_000;

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function identity(bytes: Buffer): Buffer {
  return bytes;
}

/** Metadata (response headers or trailers) as one string per name. */
function recordOf(metadata: grpc.Metadata | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (metadata === undefined) return record;
  for (const [key, value] of Object.entries(metadata.getMap())) {
    record[key] = typeof value === 'string' ? value : value.toString('utf8');
  }
  return record;
}

function statusErrorOf(err: grpc.ServiceError | Error): StatusError {
  if ('code' in err && typeof err.code === 'number') {
    return new StatusError(err.code, err.details ?? err.message, recordOf(err.metadata));
  }
  return new StatusError(STATUS_INTERNAL, err.message);
}

function channelOptions(target: ChannelTarget): grpc.ChannelOptions {
  const options: grpc.ChannelOptions = {
    'grpc.use_local_subchannel_pool': 1,
    'grpc.max_receive_message_length': target.maxReceiveMessageBytes,
    'grpc.primary_user_agent': `${SDK_NAME}/${SDK_VERSION}`,
    'grpc.initial_reconnect_backoff_ms': INITIAL_RECONNECT_BACKOFF_MS,
    'grpc.max_reconnect_backoff_ms': MAX_RECONNECT_BACKOFF_MS,
    // The client retries idempotent calls itself; grpc-js must not add its own.
    'grpc.enable_retries': 0,
  };
  if (target.keepaliveTimeMs > 0) {
    options['grpc.keepalive_time_ms'] = target.keepaliveTimeMs;
    options['grpc.keepalive_timeout_ms'] = target.keepaliveTimeoutMs;
    options['grpc.keepalive_permit_without_calls'] = 1;
  }
  if (target.tls?.serverName !== undefined) {
    options['grpc.ssl_target_name_override'] = target.tls.serverName;
  }
  return options;
}

class GrpcJsChannel implements Channel {
  private readonly client: grpc.Client;
  // Per record of headers, the grpc.Metadata built from it: the client keeps
  // one record per cache, so this builds one Metadata per cache, not per call.
  private readonly metadataCache = new WeakMap<object, grpc.Metadata>();
  private readonly calls = new Set<grpc.Call>();
  private closed = false;

  constructor(target: ChannelTarget) {
    const credentials =
      target.tls === undefined
        ? grpc.credentials.createInsecure()
        : grpc.credentials.createSsl(target.tls.ca === undefined ? null : toBuffer(target.tls.ca));
    this.client = new grpc.Client(`${target.host}:${target.port}`, credentials, channelOptions(target));
  }

  /**
   * Resolves once the channel is READY; rejects with UNAVAILABLE as soon as
   * it is in TRANSIENT_FAILURE (client.waitForReady would wait through the
   * failures until the deadline, hiding a refused port for the whole
   * eagerConnectTimeoutMs), DEADLINE_EXCEEDED when `deadline` passes first.
   */
  connect(deadline: number): Promise<void> {
    const channel = this.client.getChannel();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const state = channel.getConnectivityState(true);
        if (state === grpc.connectivityState.READY) resolve();
        else if (state === grpc.connectivityState.TRANSIENT_FAILURE || state === grpc.connectivityState.SHUTDOWN) {
          reject(new StatusError(STATUS_UNAVAILABLE, `cannot connect to ${channel.getTarget()}`));
        } else {
          channel.watchConnectivityState(state, deadline, (err) => {
            if (err === undefined || err === null) check();
            else reject(new StatusError(STATUS_DEADLINE_EXCEEDED, `no connection to ${channel.getTarget()} before the deadline`));
          });
        }
      };
      check();
    });
  }

  unary(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(new StatusError(1, 'channel closed'));
    return new Promise((resolve, reject) => {
      const call = this.client.makeUnaryRequest<Uint8Array, Buffer>(
        path,
        toBuffer,
        identity,
        request,
        this.metadataFor(options.metadata),
        { deadline: options.deadline },
        (err, response) => {
          this.calls.delete(call);
          if (err !== null) reject(statusErrorOf(err));
          else resolve(response ?? Buffer.alloc(0));
        },
      );
      this.calls.add(call);
    });
  }

  serverStream(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array[]> {
    if (this.closed) return Promise.reject(new StatusError(1, 'channel closed'));
    return new Promise((resolve, reject) => {
      const messages: Uint8Array[] = [];
      const call = this.client.makeServerStreamRequest<Uint8Array, Buffer>(
        path,
        toBuffer,
        identity,
        request,
        this.metadataFor(options.metadata),
        { deadline: options.deadline },
      );
      this.calls.add(call);
      call.on('data', (message: Buffer) => messages.push(message));
      call.on('error', (err: grpc.ServiceError) => {
        this.calls.delete(call);
        reject(statusErrorOf(err));
      });
      call.on('status', (status: grpc.StatusObject) => {
        this.calls.delete(call);
        if (status.code === grpc.status.OK) resolve(messages);
      });
    });
  }

  openStream(path: string, request: Uint8Array, metadata: Readonly<Record<string, string>>, listener: StreamListener): OpenStream {
    let ended = false;
    const end = (error: StatusError | undefined): void => {
      if (ended) return;
      ended = true;
      listener.onEnd(error);
    };
    if (this.closed) {
      queueMicrotask(() => end(new StatusError(1, 'channel closed')));
      const nothing = (): void => undefined;
      return {
        cancel: () => {
          ended = true;
        },
        pause: nothing,
        resume: nothing,
      };
    }
    // No deadline: the stream lasts as long as its reader wants.
    const call = this.client.makeServerStreamRequest<Uint8Array, Buffer>(path, toBuffer, identity, request, this.metadataFor(metadata), {});
    this.calls.add(call);
    if (listener.onHeaders !== undefined) {
      const onHeaders = listener.onHeaders.bind(listener);
      call.on('metadata', (headers: grpc.Metadata) => {
        if (!ended) onHeaders(recordOf(headers));
      });
    }
    call.on('data', (message: Buffer) => {
      if (!ended) listener.onMessage(message);
    });
    call.on('error', (err: grpc.ServiceError) => {
      this.calls.delete(call);
      end(statusErrorOf(err));
    });
    call.on('status', (status: grpc.StatusObject) => {
      this.calls.delete(call);
      if (status.code === grpc.status.OK) end(undefined);
    });
    return {
      cancel: () => {
        ended = true;
        this.calls.delete(call);
        call.cancel();
      },
      pause: () => call.pause(),
      resume: () => call.resume(),
    };
  }

  isConnected(): boolean {
    return !this.closed && this.client.getChannel().getConnectivityState(false) === grpc.connectivityState.READY;
  }

  close(): void {
    this.closed = true;
    for (const call of this.calls) call.cancel();
    this.calls.clear();
    this.client.close();
  }

  private metadataFor(headers: Readonly<Record<string, string>>): grpc.Metadata {
    let metadata = this.metadataCache.get(headers);
    if (metadata === undefined) {
      metadata = new grpc.Metadata();
      for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
      this.metadataCache.set(headers, metadata);
    }
    return metadata;
  }
}

export const createGrpcJsChannel: ChannelFactory = (target) => new GrpcJsChannel(target);
