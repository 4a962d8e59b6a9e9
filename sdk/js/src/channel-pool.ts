// N channels to one endpoint; each call goes to the channel with the fewest
// calls in flight, the rule of both SDKs (sdk/spec.json, `channels`; the
// Python SDK went round robin until it adopted this one). Round robin sends a
// call to a channel however far behind it is: a connection slowed by a lost
// packet, a busy server thread or a full HTTP/2 window keeps getting 1/N of
// the calls, and they queue behind it. Counting calls in flight steers new
// calls away from it for an increment and a decrement per call. It also
// keeps each connection under the server's ~100 streams when the cap allows
// more. The scan starts one further each call, so ties rotate (round robin
// when the load is even).
//
// A channel whose connection dropped reconnects on its next call (both
// transports do this themselves); the pool never replaces channels.
import type { CallOptions, Channel, ChannelFactory, ChannelTarget, OpenStream, StreamListener } from './transport/channel.js';

export class ChannelPool {
  private readonly channels: Channel[];
  private readonly inFlight: number[];
  private next = 0;

  constructor(factory: ChannelFactory, target: ChannelTarget, count: number) {
    this.channels = Array.from({ length: count }, () => factory(target));
    this.inFlight = new Array<number>(count).fill(0);
  }

  get size(): number {
    return this.channels.length;
  }

  /** Channels holding an open connection now. */
  connectedCount(): number {
    return this.channels.reduce((n, channel) => n + (channel.isConnected() ? 1 : 0), 0);
  }

  /** Connects every channel; rejects with the first failure. */
  async connect(deadline: number): Promise<void> {
    await Promise.all(this.channels.map((channel) => channel.connect(deadline)));
  }

  unary(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array> {
    const index = this.pick();
    this.inFlight[index]! += 1;
    return this.channels[index]!.unary(path, request, options).finally(() => {
      this.inFlight[index]! -= 1;
    });
  }

  serverStream(path: string, request: Uint8Array, options: CallOptions): Promise<Uint8Array[]> {
    const index = this.pick();
    this.inFlight[index]! += 1;
    return this.channels[index]!.serverStream(path, request, options).finally(() => {
      this.inFlight[index]! -= 1;
    });
  }

  /**
   * A stream read as it arrives (a subscription) on the least-loaded channel.
   * It is not counted in flight: it lasts for hours and is mostly idle, and
   * counting it would steer calls away from its channel for good.
   */
  openStream(path: string, request: Uint8Array, metadata: Readonly<Record<string, string>>, listener: StreamListener): OpenStream {
    return this.channels[this.pick()]!.openStream(path, request, metadata, listener);
  }

  close(): void {
    for (const channel of this.channels) channel.close();
  }

  /** Index of the least-loaded channel, scanning from a rotating start. */
  pick(): number {
    const count = this.channels.length;
    if (count === 1) return 0;
    const start = this.next;
    this.next = start + 1 === count ? 0 : start + 1;
    let best = start;
    let bestLoad = this.inFlight[start]!;
    for (let step = 1; step < count && bestLoad > 0; step += 1) {
      const index = (start + step) % count;
      const load = this.inFlight[index]!;
      if (load < bestLoad) {
        best = index;
        bestLoad = load;
      }
    }
    return best;
  }
}
