// maxConcurrentRequests 'auto' against a real jiffy-server, slowed with the
// fault-injection header `delay-ms` (as in faults-headers.test.ts): the
// limit falls when the server turns slow, the queue stays bounded, and the
// limit rises again when the server recovers. The limiter is the same over
// either transport, so the default one carries the calls.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADAPTIVE } from '../../src/adaptive-limit.js';
import { DEFAULT_TRANSPORT } from '../../src/config.js';
import { CacheClient, type ChannelFactory } from '../../src/index.js';
import { channelFactoryFor } from '../../src/transport/index.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';

const CACHE = 'adaptive';
const { initialLimit, minLimit, streamsPerConnection } = ADAPTIVE;

/** The default transport's channels, sending `delay-ms: delay.ms` with every call while it is above 0. */
function delayable(delay: { ms: number }): ChannelFactory {
  const inner = channelFactoryFor(DEFAULT_TRANSPORT);
  // One merged record per record the client passes and delay: the
  // transports key their prebuilt per-call headers on its identity.
  const merged = new Map<number, WeakMap<object, Readonly<Record<string, string>>>>();
  const headers = (metadata: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
    if (delay.ms === 0) return metadata;
    let byRecord = merged.get(delay.ms);
    if (byRecord === undefined) merged.set(delay.ms, (byRecord = new WeakMap()));
    let found = byRecord.get(metadata);
    if (found === undefined) {
      found = Object.freeze({ ...metadata, 'delay-ms': String(delay.ms) });
      byRecord.set(metadata, found);
    }
    return found;
  };
  return (target) => {
    const channel = inner(target);
    return {
      connect: (deadline) => channel.connect(deadline),
      unary: (path, request, options) => channel.unary(path, request, { ...options, metadata: headers(options.metadata) }),
      serverStream: (path, request, options) => channel.serverStream(path, request, { ...options, metadata: headers(options.metadata) }),
      isConnected: () => channel.isConnected(),
      close: () => channel.close(),
    };
  };
}

/** Samples the client's limit and its queue every 5 ms. */
class Watch {
  readonly limits: number[] = [];
  readonly queued: number[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(client: CacheClient, limiterWaiting: () => number) {
    this.timer = setInterval(() => {
      this.limits.push(client.inFlightLimit());
      this.queued.push(limiterWaiting());
    }, 5);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

async function closedLoop(client: CacheClient, workers: number, ms: number): Promise<void> {
  const ends = Date.now() + ms;
  await Promise.all(
    Array.from({ length: workers }, async (_unused, number) => {
      while (Date.now() < ends) await client.get(CACHE, `k${number}`);
    }),
  );
}

/** `rate` gets a second for `ms`, each sent when due whatever the others do; all must answer. */
async function openLoop(client: CacheClient, rate: number, ms: number): Promise<void> {
  const calls: Promise<unknown>[] = [];
  const began = performance.now();
  for (let number = 0; number < (rate * ms) / 1000; number += 1) {
    const wait = began + (number * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    calls.push(client.get(CACHE, `k${number % 100}`));
  }
  await Promise.all(calls);
}

describe("maxConcurrentRequests 'auto' against a real server", () => {
  let server: RunningServer;

  before(async () => {
    server = await startServer(['--enable-fault-injection']);
  });

  after(async () => {
    await server?.stop();
  });

  test('the limit falls when the server slows, the queue stays bounded, and it rises when the server recovers', async () => {
    const delay = { ms: 0 };
    const client = await CacheClient.create({ endpoint: server.endpoint, maxConcurrentRequests: 'auto', channelFactory: delayable(delay) });
    // The queue in front of the cap: the runner's limiter is not public.
    const waiting = (): number => (client as unknown as { runner: { limiter: { waiting: number } } }).runner.limiter.waiting;
    try {
      await client.createCache(CACHE);
      const fast = new Watch(client, waiting);
      await closedLoop(client, 32, 1_500);
      fast.stop();
      const settled = fast.limits.at(-1)!;
      assert.ok(settled > minLimit, `it rose from its start: ${settled}`);

      delay.ms = 20; // 0 -> 20 ms a call; 400 calls/s need 8 in flight
      const slow = new Watch(client, waiting);
      await openLoop(client, 400, 2_000);
      slow.stop();
      assert.ok(Math.min(...slow.limits) <= Math.max(minLimit, Math.floor(settled / 2)), `${settled} -> ${Math.min(...slow.limits)}`);
      // The floor (4 in flight: 200 calls/s) fell behind until the limit
      // re-learnt the slower path and rose; the queue never held more than
      // half a second of calls and was empty at the end.
      assert.ok(Math.max(...slow.queued) < 200, `queue ${Math.max(...slow.queued)}`);
      assert.ok(slow.queued.at(-1)! <= 10);
      assert.ok(slow.limits.at(-1)! >= 8, `limit ${slow.limits.at(-1)}`);

      delay.ms = 0;
      const recovered = new Watch(client, waiting);
      await closedLoop(client, 32, 1_500);
      recovered.stop();
      assert.ok(Math.max(...recovered.limits) > Math.min(...slow.limits));
      const history = client.inFlightLimitHistory();
      assert.deepEqual(history[0], { atMs: 0, limit: initialLimit });
      assert.ok(history.every(({ limit }) => limit >= minLimit && limit <= streamsPerConnection));
    } finally {
      client.close();
    }
  });

  test('a fixed cap reports itself', async () => {
    const client = await CacheClient.create({ endpoint: server.endpoint, maxConcurrentRequests: 7 });
    try {
      assert.equal(client.inFlightLimit(), 7);
      assert.deepEqual(client.inFlightLimitHistory(), [{ atMs: 0, limit: 7 }]);
    } finally {
      client.close();
    }
  });
});
