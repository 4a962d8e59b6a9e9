// Retries and deadlines against injected faults (jiffy-server
// --enable-fault-injection), on both transports. The fault headers are per
// request; the client's public `channelFactory` option lets a test wrap the
// real transport so that every call carries them, while the calls still take
// the client's real path (cap, deadline, retries, error translation). The
// server counts every attempt in `jiffy_request_duration_seconds_count{rpc}`.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { AlreadyExistsError, CacheClient, ConnectionError, TimeoutError, type CacheClientOptions, type ChannelFactory } from '../../src/index.js';
import type { TransportName } from '../../src/config.js';
import { channelFactoryFor } from '../../src/transport/index.js';
import { withExtraHeaders } from '../../src/transport/extra-headers.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const CACHE = 'faults';
// Timer granularity between the client's clock and the deadline it sends.
const CLOCK_SLACK_MS = 10;
// How far past its deadline a call may end on a busy machine and still count as not hanging.
const HANG_MARGIN_MS = 1_000;
const FAST_RETRY = { maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 50 };

/** The transport's channels, with `headers` (and a request-id of their own) added to every call. */
async function withFaultHeaders(transport: TransportName, headers: Record<string, string>): Promise<ChannelFactory> {
  const extra = Object.freeze({ 'request-id': randomUUID(), ...headers });
  return withExtraHeaders(await channelFactoryFor(transport), () => extra);
}

for (const transport of TRANSPORTS) {
  describe(`fault headers over ${transport}`, () => {
    let server: RunningServer;

    before(async () => {
      server = await startServer(['--enable-fault-injection']);
    });

    after(async () => {
      await server?.stop();
    });

    async function attempts(rpc: string): Promise<number> {
      return (await server.metric(`jiffy_request_duration_seconds_count{rpc="${rpc}",transport="grpc"}`)) ?? 0;
    }

    async function clientWith(headers: Record<string, string>, options: CacheClientOptions = {}): Promise<CacheClient> {
      const client = await CacheClient.create({
        endpoint: server.endpoint,
        transport,
        retry: FAST_RETRY,
        channelFactory: await withFaultHeaders(transport, headers),
        ...options,
      });
      await client.createCache(CACHE).catch((err: unknown) => {
        if (!(err instanceof AlreadyExistsError)) throw err; // else made by an earlier test
      });
      return client;
    }

    test('a Get failing twice succeeds on the third attempt', async () => {
      const client = await clientWith({ 'return-error': 'unavailable', 'error-rpcs': 'get', 'error-count': '2' });
      const before = await attempts('Get');
      try {
        await client.set(CACHE, 'k', 'v');
        assert.equal(await client.getString(CACHE, 'k'), 'v');
      } finally {
        client.close();
      }
      assert.equal((await attempts('Get')) - before, 3);
    });

    test('an Increment is never retried', async () => {
      const headers = { 'return-error': 'unavailable', 'error-rpcs': 'increment', 'error-count': '2' };
      const client = await clientWith(headers, { retry: { ...FAST_RETRY, maxAttempts: 5 } });
      const before = await attempts('Increment');
      const key = randomUUID();
      try {
        await assert.rejects(client.increment(CACHE, key), ConnectionError);
        assert.equal((await attempts('Increment')) - before, 1);
        await assert.rejects(client.increment(CACHE, key), ConnectionError);
        assert.equal((await attempts('Increment')) - before, 2);
        assert.equal(await client.increment(CACHE, key), 1); // neither failed call was applied
      } finally {
        client.close();
      }
      assert.equal((await attempts('Increment')) - before, 3);
    });

    test('a delay past the deadline is a TimeoutError at the deadline', async () => {
      const deadlineMs = 1_000;
      const client = await clientWith({ 'delay-ms': '5000', 'delay-rpcs': 'get' }, { deadlineMs });
      try {
        const started = performance.now();
        const error = await client.get(CACHE, 'k').then(
          () => assert.fail('a held call should not succeed'),
          (err: unknown) => err,
        );
        const took = performance.now() - started;
        assert.ok(error instanceof TimeoutError, `expected TimeoutError, got ${String(error)}`);
        assert.equal(error.status, 'DEADLINE_EXCEEDED');
        assert.ok(took >= deadlineMs - CLOCK_SLACK_MS, `ended ${took} ms in, before its deadline`);
        assert.ok(took < deadlineMs + HANG_MARGIN_MS, `ended ${took} ms in, long past its deadline`);
      } finally {
        client.close();
      }
    });

    test('retries with backoff stay inside the deadline', async () => {
      const deadlineMs = 1_000;
      // Up to 20 attempts of 150 ms each plus backoff would take ~5 s: the
      // deadline must cut them short.
      const headers = { 'return-error': 'unavailable', 'error-rpcs': 'get', 'delay-ms': '150', 'delay-rpcs': 'get' };
      const retry = { maxAttempts: 20, initialBackoffMs: 50, maxBackoffMs: 200, jitter: 0 };
      const client = await clientWith(headers, { deadlineMs, retry });
      const before = await attempts('Get');
      try {
        const started = performance.now();
        const error = await client.get(CACHE, 'k').then(
          () => assert.fail('every attempt fails'),
          (err: unknown) => err,
        );
        const took = performance.now() - started;
        assert.ok(error instanceof ConnectionError || error instanceof TimeoutError, String(error));
        assert.ok(took < deadlineMs + HANG_MARGIN_MS, `ended ${took} ms in, long past its deadline`);
      } finally {
        client.close();
      }
      const sent = (await attempts('Get')) - before;
      assert.ok(sent >= 2 && sent < 20, `${sent} attempts`);
    });
  });
}
