// A Channel that answers from a script, for unit tests of the pool, the
// runner and the client without a server.
import type { CallOptions, Channel, ChannelFactory, ChannelTarget } from '../../src/transport/channel.js';

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
