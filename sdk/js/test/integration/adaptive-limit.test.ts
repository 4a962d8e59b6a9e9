// maxConcurrentRequests 'auto' against a real jiffy-server, slowed with the
// fault-injection header `delay-ms` (as in faults-headers.test.ts): the
// limit learns that the server turned slow (a slower path, not a queue:
// every call is held 20 ms whatever the limit) and rises to keep it busy, an
// open loop under it does not queue, and calls are fast again when the
// server recovers. Backing off from a queue is the unit tests'
// (test/unit/adaptive-limit.test.ts). The limiter is the same over either
// transport, so the default one carries the calls. The assertions are on
// the limit itself: how many calls it lets through a second depends on how
// busy the machine is, and is measured in bench/adaptive, not here.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ADAPTIVE, AdaptiveLimit } from '../../src/adaptive-limit.js';
import { routeOf } from '../../src/cache-client.js';
import { DEFAULT_TRANSPORT } from '../../src/config.js';
import { CacheClient, LimitExceededError, type ChannelFactory } from '../../src/index.js';
import { channelFactoryFor } from '../../src/transport/index.js';
import { withExtraHeaders } from '../../src/transport/extra-headers.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';

const CACHE = 'adaptive';
const { initialLimit, minLimit, streamsPerConnection } = ADAPTIVE;

/** The default transport's channels, sending `delay-ms: delay.ms` with every call while it is above 0. */
async function delayable(delay: { ms: number }): Promise<ChannelFactory> {
  const records = new Map<number, Readonly<Record<string, string>>>();
  const current = (): Readonly<Record<string, string>> | undefined => {
    if (delay.ms === 0) return undefined;
    let found = records.get(delay.ms);
    if (found === undefined) records.set(delay.ms, (found = Object.freeze({ 'delay-ms': String(delay.ms) })));
    return found;
  };
  return withExtraHeaders(await channelFactoryFor(DEFAULT_TRANSPORT), current);
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

/** `workers` callers, each with one get in flight, for `ms`; the calls answered. */
async function closedLoop(client: CacheClient, workers: number, ms: number): Promise<number> {
  const ends = Date.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_unused, number) => {
      while (Date.now() < ends) {
        await client.get(CACHE, `k${number}`);
        done += 1;
      }
    }),
  );
  return done;
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

  test('the limit learns a slower server and keeps it busy', async () => {
    const delay = { ms: 0 };
    const client = await CacheClient.create({ endpoint: server.endpoint, maxConcurrentRequests: 'auto', channelFactory: await delayable(delay) });
    // The queue in front of the cap: the runner's limiter is not public.
    const waiting = (): number => routeOf(client).runner.limiter.waiting;
    try {
      await client.createCache(CACHE);
      // 200 callers: more than the ceiling, so the limit is full.
      const fast = new Watch(client, waiting);
      await closedLoop(client, 200, 1_000);
      fast.stop();
      const settled = fast.limits.at(-1)!;
      assert.ok(settled > minLimit, `it rose from its start: ${settled}`);

      delay.ms = 20; // 0 -> 20 ms a call, whatever the limit
      // The slower path is learnt (cuts that do not lower the latency, or a
      // probe of the floor, tell it from queueing), and the limit rises to
      // keep it busy: 200 callers at 20 ms would fill 200.
      const slow = new Watch(client, waiting);
      const slowCalls = await closedLoop(client, 200, 1_500);
      slow.stop();
      assert.ok(slow.limits.at(-1)! >= streamsPerConnection / 2, `limit ${slow.limits.at(-1)}`);
      assert.ok(slowCalls > 0);

      // An open loop the limit does not hold back: nothing queues in the client.
      const steady = new Watch(client, waiting);
      await openLoop(client, 400, 1_000);
      steady.stop();
      assert.ok(Math.max(...steady.queued) <= 10, `queue ${Math.max(...steady.queued)}`);
      assert.ok(Math.min(...steady.limits) >= slow.limits.at(-1)! / 2);

      delay.ms = 0;
      const recovered = new Watch(client, waiting);
      const fastCalls = await closedLoop(client, 200, 1_000);
      recovered.stop();
      assert.ok(fastCalls > 0);
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

describe("maxConcurrentRequests 'auto' and a cache over its own limit", () => {
  let server: RunningServer;

  before(async () => {
    const config = join(await mkdtemp(join(tmpdir(), 'jiffy-limits-')), 'limits.toml');
    await writeFile(config, '[caches.throttled]\nmax-calls-per-second = 5\n');
    server = await startServer(['--enable-fault-injection', '--config', config]);
  });

  after(async () => {
    await server?.stop();
  });

  test("a throttled cache's refusals do not cut the limit; a server shedding load does", async (t) => {
    let drops = 0;
    const drop = Object.getOwnPropertyDescriptor(AdaptiveLimit.prototype, 'drop')!.value as (this: AdaptiveLimit) => void;
    t.mock.method(AdaptiveLimit.prototype, 'drop', function (this: AdaptiveLimit) {
      drops += 1;
      drop.call(this);
    });
    const shed = { on: false };
    const headers = Object.freeze({ 'return-error': 'resource-exhausted' });
    const channelFactory = withExtraHeaders(await channelFactoryFor(DEFAULT_TRANSPORT), () => (shed.on ? headers : undefined));
    const client = await CacheClient.create({ endpoint: server.endpoint, maxConcurrentRequests: 'auto', channelFactory });
    try {
      await client.createCache('throttled');
      // Cutting the client's limit for one cache's own refusals would queue
      // the calls to every other cache behind it.
      const outcomes = await Promise.allSettled(Array.from({ length: 60 }, () => client.get('throttled', 'k')));
      const throttled = outcomes.flatMap((o) => (o.status === 'rejected' && o.reason instanceof LimitExceededError ? [o.reason] : []));
      assert.ok(throttled.length >= 30, `${throttled.length} of 60 throttled`);
      assert.deepEqual(new Set(throttled.map((e) => e.reason)), new Set(['operations_rate_limit_exceeded']));
      assert.equal(drops, 0);

      await client.createCache(CACHE);
      shed.on = true;
      await assert.rejects(client.get(CACHE, 'k'), LimitExceededError);
      assert.equal(drops, 1);
    } finally {
      client.close();
    }
  });
});
