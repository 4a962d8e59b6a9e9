// protosocketEndpoint against a real jiffy-server started with
// --protosocket-listen: which calls go over which port (the server's
// metrics count them by transport), answers matched by id under load,
// errors, limits, the in-flight cap, a killed server, eager connect; auth
// and TLS are in protosocket-auth-tls.test.ts. Deadlines and cancels use a
// fake protosocket server that never answers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CacheClient,
  CacheNotFoundError,
  ConnectionError,
  InvalidArgumentError,
  LimitExceededError,
  TimeoutError,
} from '../../src/index.js';
import { MAX_PROTOSOCKET_VALUE_BYTES } from '../../src/protosocket-calls.js';
import { Status } from '../../src/status.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { startFakeProtosocket } from '../support/fake-protosocket.js';

/** Requests the server answered for `rpc` over `transport` ('grpc' or 'protosocket'), all codes. */
async function served(server: RunningServer, rpc: string, transport: string): Promise<number> {
  let total = 0;
  for (const line of (await server.metrics()).split('\n')) {
    if (!line.startsWith('jiffy_requests_total{')) continue;
    if (line.includes(`rpc="${rpc}"`) && line.includes(`transport="${transport}"`)) total += Number(line.split(' ').at(-1));
  }
  return total;
}

interface SpecCall {
  rpc: string;
  js: string | null;
}
const SPEC_CALLS = (JSON.parse(readFileSync(new URL('../../../spec.json', import.meta.url), 'utf8')) as { calls: SpecCall[] }).calls;
/** The protocol's commands, and the client methods sdk/spec.json says send them. */
const PROTOSOCKET_RPCS = ['Get', 'Set', 'Delete'];
const PROTOSOCKET_METHODS = SPEC_CALLS.filter((call) => PROTOSOCKET_RPCS.includes(call.rpc) && call.js !== null);

describe('protosocket', () => {
  let server: RunningServer;
  let client: CacheClient;
  const cache = 'ps';

  before(async () => {
    server = await startServer([], { protosocket: true });
    client = await CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: server.protosocketEndpoint });
    await client.createCache(cache);
  });

  after(async () => {
    client?.close();
    await server?.stop();
  });

  test('hit, miss, set, get and delete go over protosocket; other calls over http2 on the same client', async () => {
    const before = {
      get: await served(server, 'Get', 'protosocket'),
      set: await served(server, 'Set', 'protosocket'),
      delete: await served(server, 'Delete', 'protosocket'),
    };
    await client.set(cache, 'k', 'hello', { ttlMs: 60_000 });
    assert.equal(await client.getString(cache, 'k'), 'hello');
    assert.deepEqual(await client.get(cache, Buffer.from('k')), Buffer.from('hello'));
    assert.equal(await client.get(cache, 'absent'), undefined);
    await client.set(cache, Buffer.from([0, 255]), new Uint8Array([1, 2, 3]));
    assert.deepEqual([...(await client.get(cache, Buffer.from([0, 255])))!], [1, 2, 3]);
    await client.set(cache, 'empty', '');
    assert.equal(await client.getString(cache, 'empty'), '');
    await client.delete(cache, 'k');
    assert.equal(await client.get(cache, 'k'), undefined);
    assert.equal(await served(server, 'Get', 'protosocket'), before.get + 6);
    assert.equal(await served(server, 'Set', 'protosocket'), before.set + 3);
    assert.equal(await served(server, 'Delete', 'protosocket'), before.delete + 1);
    assert.equal(await served(server, 'Get', 'grpc'), 0);

    // The rest stay on gRPC, and see what protosocket wrote.
    await client.set(cache, 'n', '41');
    assert.equal(await client.increment(cache, 'n'), 42);
    assert.deepEqual(await client.keysExist(cache, ['n', 'k']), [true, false]);
    assert.ok((await client.getTtl(cache, 'n'))! > 0);
    assert.equal(await client.getString(cache, 'n'), '42');
    assert.equal(await served(server, 'Increment', 'grpc'), 1);
    assert.equal(await served(server, 'Set', 'grpc'), 0);
  });

  test('the calls sdk/spec.json lists for Get, Set and Delete are the ones sent over protosocket', async () => {
    assert.deepEqual(PROTOSOCKET_METHODS.map((call) => call.js).sort(), ['delete', 'get', 'getString', 'set']);
    const calls: Record<string, () => Promise<unknown>> = {
      get: () => client.get(cache, 'spec'),
      getString: () => client.getString(cache, 'spec'),
      set: () => client.set(cache, 'spec', 'v'),
      delete: () => client.delete(cache, 'spec'),
    };
    for (const { rpc, js } of PROTOSOCKET_METHODS) {
      const before = [await served(server, rpc, 'protosocket'), await served(server, rpc, 'grpc')];
      await calls[js!]!();
      assert.deepEqual([await served(server, rpc, 'protosocket'), await served(server, rpc, 'grpc')], [before[0]! + 1, before[1]], js!);
    }
  });

  test('many concurrent calls, answered in any order, each get its own answer', async () => {
    const many = await CacheClient.create({
      endpoint: server.endpoint,
      protosocketEndpoint: server.protosocketEndpoint,
      maxConcurrentRequests: 0,
      channels: 2,
    });
    try {
      const count = 3_000;
      // Values of varied sizes, so that answers span and share socket chunks.
      const value = (i: number): string => `v${i}-`.padEnd(1 + ((i * 7919) % 20_000), String.fromCharCode(97 + (i % 26)));
      await Promise.all(Array.from({ length: count }, (_unused, i) => many.set(cache, `m${i}`, value(i))));
      const got = await Promise.all(Array.from({ length: count }, (_unused, i) => many.getString(cache, `m${i}`)));
      for (let i = 0; i < count; i++) assert.equal(got[i], value(i), `key m${i}`);
    } finally {
      many.close();
    }
  });

  test('a missing cache is CacheNotFoundError, not a miss', async () => {
    await assert.rejects(client.get('no-such-cache', 'k'), CacheNotFoundError);
    await assert.rejects(client.set('no-such-cache', 'k', 'v'), (err: Error) => {
      assert.ok(err instanceof CacheNotFoundError);
      assert.match(err.message, /^Set failed: NOT_FOUND: cache `no-such-cache` does not exist; create it first/);
      return true;
    });
    await assert.rejects(client.delete('no-such-cache', 'k'), CacheNotFoundError);
  });

  test('the largest value round-trips; a larger one is LimitExceededError, before it is sent', async () => {
    const largest = Buffer.alloc(MAX_PROTOSOCKET_VALUE_BYTES, 7);
    await client.set(cache, 'large', largest);
    assert.ok(Buffer.from((await client.get(cache, 'large'))!).equals(largest));
    const sets = await served(server, 'Set', 'protosocket');
    await assert.rejects(client.set(cache, 'large', Buffer.alloc(MAX_PROTOSOCKET_VALUE_BYTES + 1)), (err: Error) => {
      assert.ok(err instanceof LimitExceededError);
      assert.match(err.message, /over the 4194279 bytes a protosocket Get can return/);
      return true;
    });
    assert.equal(await served(server, 'Set', 'protosocket'), sets);
  });

  test('a Get of a value stored over gRPC too large for protosocket is LimitExceededError', async () => {
    const grpcOnly = await CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: null });
    try {
      await grpcOnly.set(cache, 'huge', Buffer.alloc(4_500_000, 1));
    } finally {
      grpcOnly.close();
    }
    await assert.rejects(client.get(cache, 'huge'), LimitExceededError);
    assert.equal(await client.getString(cache, 'empty'), '', 'the connection still works');
  });

  test('bad arguments are refused before anything is sent', async () => {
    await assert.rejects(client.get(cache, 42 as unknown as string), InvalidArgumentError);
    await assert.rejects(client.set(cache, 'k', null as unknown as string), InvalidArgumentError);
    await assert.rejects(client.set(cache, 'k', 'v', { ttlMs: 0 }), InvalidArgumentError);
  });

  for (const cap of [5, 'auto'] as const) {
    test(`the in-flight cap (${cap}) holds over protosocket`, async () => {
      const capped = await CacheClient.create({
        endpoint: server.endpoint,
        protosocketEndpoint: server.protosocketEndpoint,
        maxConcurrentRequests: cap,
      });
      try {
        await Promise.all(Array.from({ length: 2_000 }, (_unused, i) => capped.set(cache, `c${i % 50}`, 'v')));
        const limit = cap === 'auto' ? 100 : cap; // 'auto' stays under 100 per channel
        assert.ok(capped.inFlightHighWaterMark <= limit, `high water ${capped.inFlightHighWaterMark}`);
        assert.ok(capped.inFlightHighWaterMark >= Math.min(limit, 4));
      } finally {
        capped.close();
      }
    });
  }

  test('close() fails calls in flight with ConnectionError and later calls at once', async () => {
    const closing = await CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: server.protosocketEndpoint });
    const calls = Array.from({ length: 200 }, (_unused, i) => closing.set(cache, `x${i}`, 'v').then(() => 'ok', (err: Error) => err));
    closing.close();
    for (const outcome of await Promise.all(calls)) {
      if (outcome !== 'ok') assert.ok(outcome instanceof ConnectionError, String(outcome));
    }
    await assert.rejects(closing.get(cache, 'k'), ConnectionError);
  });
});

describe('protosocket: a server killed mid-flight', () => {
  let server: RunningServer;

  before(async () => {
    server = await startServer([], { protosocket: true });
  });

  after(async () => {
    await server?.stop();
  });

  test('calls fail with ConnectionError, then the same client reconnects after a restart', async () => {
    const client = await CacheClient.create({
      endpoint: server.endpoint,
      protosocketEndpoint: server.protosocketEndpoint,
      deadlineMs: 3_000,
      retry: { maxAttempts: 2, initialBackoffMs: 5, maxBackoffMs: 20 },
    });
    try {
      await client.createCache('k');
      await client.set('k', 'key', 'before');
      let done = 0;
      const flood = Array.from({ length: 2_000 }, (_unused, i) =>
        client.set('k', `f${i}`, 'v').then(
          () => {
            done += 1;
            return undefined;
          },
          (err: Error) => err,
        ),
      );
      while (done < 100) await sleep(1);
      const killedAt = Date.now();
      await server.kill();
      const failures = (await Promise.all(flood)).filter((outcome) => outcome !== undefined);
      assert.ok(failures.length > 0, 'some calls were in flight or queued when the server died');
      for (const failure of failures) assert.ok(failure instanceof ConnectionError, String(failure));
      assert.ok(Date.now() - killedAt < 3_000, 'the calls failed fast, not at their deadline');
      await assert.rejects(client.get('k', 'key'), ConnectionError);

      await server.restart();
      const deadline = Date.now() + 15_000;
      for (;;) {
        try {
          await client.createCache('k');
          break;
        } catch (err) {
          if (!(err instanceof ConnectionError) || Date.now() > deadline) throw err;
          await sleep(50);
        }
      }
      await client.set('k', 'key', 'after');
      assert.equal(await client.getString('k', 'key'), 'after');
    } finally {
      client.close();
    }
  });
});

describe('protosocket: deadlines and cancels (a server that never answers)', () => {
  test('a call past its deadline is TimeoutError, and a cancel for its id is sent', async () => {
    const grpc = await startServer();
    const fake = await startFakeProtosocket();
    try {
      const client = await CacheClient.create({
        endpoint: grpc.endpoint,
        protosocketEndpoint: fake.endpoint,
        deadlineMs: 300,
        apiKey: 'the-token',
      });
      try {
        const started = Date.now();
        await assert.rejects(client.get('c', 'slow'), (err: Error) => {
          assert.ok(err instanceof TimeoutError, String(err));
          assert.match(err.message, /^Get failed: DEADLINE_EXCEEDED/);
          return true;
        });
        const took = Date.now() - started;
        assert.ok(took >= 290 && took < 1_500, `took ${took} ms`);
        const deadline = Date.now() + 2_000;
        while (fake.cancels.length === 0 && Date.now() < deadline) await sleep(5);
        const get = fake.commands.find((command) => command.kind === 'get');
        assert.ok(get, 'the Get reached the server');
        assert.deepEqual(fake.cancels, [get.id]);
        assert.deepEqual(fake.tokens, ['the-token'], 'the Authenticate carried the API key');
      } finally {
        client.close();
      }
    } finally {
      fake.close();
      await grpc.stop();
    }
  });
});

describe('protosocket: the reason of a CommandError', () => {
  test('arrives as the error\'s reason, with its advice, as the err trailer does over gRPC', async () => {
    const grpc = await startServer();
    const fake = await startFakeProtosocket({
      failWith: { code: Status.RESOURCE_EXHAUSTED, message: 'no room', reason: 'item_size_limit_exceeded' },
    });
    try {
      const client = await CacheClient.create({ endpoint: grpc.endpoint, protosocketEndpoint: fake.endpoint });
      try {
        await assert.rejects(client.set('c', 'k', 'v'), (err: Error) => {
          assert.ok(err instanceof LimitExceededError, String(err));
          assert.equal(err.reason, 'item_size_limit_exceeded');
          assert.match(err.message, /^Set failed: RESOURCE_EXHAUSTED: no room: .*--max-value-size/);
          return true;
        });
      } finally {
        client.close();
      }
    } finally {
      fake.close();
      await grpc.stop();
    }
  });
});

describe('protosocket: eager connect', () => {
  let server: RunningServer;

  before(async () => {
    server = await startServer([], { protosocket: true });
  });

  after(async () => {
    await server?.stop();
  });

  test('a refused port fails create() with ConnectionError within about a second', async () => {
    const started = Date.now();
    await assert.rejects(
      CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: '127.0.0.1:1' }),
      (err: Error) => {
        assert.ok(err instanceof ConnectionError);
        assert.match(err.message, /cannot connect to 127\.0\.0\.1:1: connection refused/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 3_000);
  });

  test('an unknown host fails at once', async () => {
    const started = Date.now();
    await assert.rejects(CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: 'no-such-host.invalid:9' }), /unknown host/);
    assert.ok(Date.now() - started < 3_000);
  });

  test('the gRPC port given as the protosocket port says so', async () => {
    await assert.rejects(
      CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: server.endpoint, eagerConnectTimeoutMs: 5_000 }),
      /protosocketEndpoint/,
    );
  });

  test('a malformed protosocketEndpoint names the option', async () => {
    await assert.rejects(CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: 'host-without-port' }), InvalidArgumentError);
    await assert.rejects(CacheClient.create({ endpoint: server.endpoint, protosocketEndpoint: 'https://h:1' }), InvalidArgumentError);
  });

  test('lazy (eagerConnectTimeoutMs: 0) connects on the first call', async () => {
    const client = await CacheClient.create({
      endpoint: server.endpoint,
      protosocketEndpoint: server.protosocketEndpoint,
      eagerConnectTimeoutMs: 0,
    });
    try {
      await client.createCache('lazy');
      await client.set('lazy', 'k', 'v');
      assert.equal(await client.getString('lazy', 'k'), 'v');
    } finally {
      client.close();
    }
  });
});
