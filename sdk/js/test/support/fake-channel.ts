// A Channel that answers from a script, for unit tests of the pool, the
// runner and the client without a server.
import assert from 'node:assert/strict';
import { fromBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import type {
  CallOptions,
  Channel,
  ChannelFactory,
  ChannelTarget,
  OpenStream,
  StreamListener,
} from '../../src/transport/channel.js';
import { StatusError } from '../../src/transport/channel.js';
import { CacheClient } from '../../src/index.js';

export type Answer = (path: string, request: Uint8Array, options: CallOptions) => Promise<Uint8Array>;

export class FakeChannel implements Channel {
  readonly calls: { path: string; metadata: Readonly<Record<string, string>> }[] = [];
  connected = false;
  closed = false;

  constructor(
    readonly target: ChannelTarget,
    private readonly answer: Answer,
  ) {}

  connect(): Promise<void> {
    this.connected = true;
    return Promise.resolve();
  }

  unary(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array> {
    this.calls.push({ path, metadata: options.metadata });
    return this.answer(path, request, options);
  }

  async serverStream(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array[]> {
    return [await this.unary(path, request, options)];
  }

  /**
   * A stream whose first message is the answer (a rejection ends it), then
   * messages pushed with `streams[i].push()`; it stays open until cancelled.
   */
  readonly streams: FakeStream[] = [];

  openStream(path: string, request: Uint8Array, metadata: Readonly<Record<string, string>>, listener: StreamListener): OpenStream {
    const stream = new FakeStream(listener);
    this.streams.push(stream);
    this.unary(path, request, { deadline: Infinity, metadata }).then(
      (message) => stream.push(message),
      (err: unknown) => stream.end(err instanceof StatusError ? err : new StatusError(2, String(err))),
    );
    return stream;
  }

  isConnected(): boolean {
    return this.connected && !this.closed;
  }

  close(): void {
    this.closed = true;
  }
}

/** A factory that keeps every channel it makes, for inspection. */
export function fakeFactory(answer: Answer): ChannelFactory & { channels: FakeChannel[] } {
  const channels: FakeChannel[] = [];
  const factory = (target: ChannelTarget): Channel => {
    const channel = new FakeChannel(target, answer);
    channels.push(channel);
    return channel;
  };
  return Object.assign(factory, { channels });
}

/** One call a fake channel was sent. */
export interface SentCall {
  path: string;
  request: Uint8Array;
  metadata: Readonly<Record<string, string>> | undefined;
}

/** A factory whose channels record every call and answer `answer`. */
export class RecordingFactory {
  readonly calls: SentCall[] = [];
  /** What every call is answered, until changed. */
  answer = new Uint8Array();
  readonly factory = fakeFactory((path, request, options) => {
    this.calls.push({ path, request, metadata: options.metadata });
    return Promise.resolve(this.answer);
  });

  /** The one request `call` sent, decoded. */
  async request<Desc extends DescMessage>(schema: Desc, call: () => Promise<unknown>): Promise<MessageShape<Desc>> {
    const before = this.calls.length;
    await call();
    assert.equal(this.calls.length, before + 1, 'one request');
    return fromBinary(schema, this.calls.at(-1)!.request);
  }

  /** A client with `apiKey` whose every call this factory records (no protosocket port). */
  client(apiKey: string): Promise<CacheClient> {
    return CacheClient.create({
      endpoint: '127.0.0.1:1',
      apiKey,
      channelFactory: this.factory,
      eagerConnectTimeoutMs: 0,
      protosocketEndpoint: null,
    });
  }
}

/** One fake server stream: the test pushes messages and ends it. */
export class FakeStream implements OpenStream {
  cancelled = false;
  paused = false;
  private ended = false;

  constructor(private readonly listener: StreamListener) {}

  push(message: Uint8Array): void {
    if (!this.ended && !this.cancelled) this.listener.onMessage(message);
  }

  end(error?: StatusError): void {
    if (this.ended || this.cancelled) return;
    this.ended = true;
    this.listener.onEnd(error);
  }

  cancel(): void {
    this.cancelled = true;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }
}
