import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CallRunner } from '../../src/call-runner.js';
import { RPCS, type RpcName } from '../../src/rpcs.gen.js';
import { ChannelPool } from '../../src/channel-pool.js';
import { resolveKnobs } from '../../src/config.js';
import * as errors from '../../src/errors.js';
import { Status } from '../../src/status.js';
import { StatusError, type ChannelTarget } from '../../src/transport/channel.js';
import { fakeFactory, type Answer } from '../support/fake-channel.js';

const target: ChannelTarget = { host: 'h', port: 1, keepaliveTimeMs: 0, keepaliveTimeoutMs: 1, maxReceiveMessageBytes: 1 };

function setup(answer: Answer, knobs = {}) {
  const factory = fakeFactory(answer);
  const pool = new ChannelPool(factory, target, 1);
  const runner = new CallRunner(
    resolveKnobs({ retry: { maxAttempts: 3, initialBackoffMs: 1, maxBackoffMs: 2 }, ...knobs }),
    'h:1',
  );
  const attempts = (): number => factory.channels[0]!.calls.length;
  return { pool, runner, attempts };
}

const unavailable: Answer = () => Promise.reject(new StatusError(Status.UNAVAILABLE, 'down'));

describe('CallRunner', () => {
  test('retries an idempotent call up to maxAttempts on UNAVAILABLE', async () => {
    const { pool, runner, attempts } = setup(unavailable);
    await assert.rejects(runner.unary(pool, RPCS.Get, new Uint8Array(), {}), errors.ConnectionError);
    assert.equal(attempts(), 3);
  });

  for (const method of ['Increment', 'SetIf', 'SetIfNotExists', 'UpdateTtl']) {
    test(`never retries ${method}`, async () => {
      const { pool, runner, attempts } = setup(unavailable);
      await assert.rejects(runner.unary(pool, RPCS[method as RpcName], new Uint8Array(), {}), errors.ConnectionError);
      assert.equal(attempts(), 1);
    });
  }

  test('does not retry an answer from the server', async () => {
    const { pool, runner, attempts } = setup(() => Promise.reject(new StatusError(Status.INVALID_ARGUMENT, 'bad')));
    await assert.rejects(runner.unary(pool, RPCS.Set, new Uint8Array(), {}), errors.InvalidArgumentError);
    assert.equal(attempts(), 1);
  });

  test('succeeds when a retry does', async () => {
    let calls = 0;
    const { pool, runner } = setup(() => {
      calls += 1;
      return calls < 3 ? Promise.reject(new StatusError(Status.INTERNAL, 'reset')) : Promise.resolve(Uint8Array.of(7));
    });
    assert.deepEqual(await runner.unary(pool, RPCS.Get, new Uint8Array(), {}), Uint8Array.of(7));
  });

  test('stops retrying when the backoff would pass the deadline', async () => {
    const { pool, runner, attempts } = setup(unavailable, {
      deadlineMs: 50,
      retry: { maxAttempts: 10, initialBackoffMs: 200, maxBackoffMs: 200, jitter: 0 },
    });
    await assert.rejects(runner.unary(pool, RPCS.Get, new Uint8Array(), {}), errors.ConnectionError);
    assert.equal(attempts(), 1);
  });

  test('holds at most maxConcurrentRequests calls on the channel', async () => {
    let onWire = 0;
    let maxOnWire = 0;
    const { pool, runner } = setup(
      async () => {
        onWire += 1;
        maxOnWire = Math.max(maxOnWire, onWire);
        await new Promise((resolve) => setImmediate(resolve));
        onWire -= 1;
        return new Uint8Array();
      },
      { maxConcurrentRequests: 4 },
    );
    await Promise.all(Array.from({ length: 200 }, () => runner.unary(pool, RPCS.Get, new Uint8Array(), {})));
    assert.equal(maxOnWire, 4);
    assert.equal(runner.limiter.highWaterMark, 4);
  });

  test('control calls do not queue behind data calls at the cap', async () => {
    const pending: Array<() => void> = [];
    const { pool, runner } = setup(
      (path) =>
        path.startsWith('/cache_client.Scs/')
          ? new Promise<Uint8Array>((resolve) => pending.push(() => resolve(new Uint8Array())))
          : Promise.resolve(new Uint8Array([1])),
      { maxConcurrentRequests: 2 },
    );
    const gets = Array.from({ length: 5 }, () => runner.unary(pool, RPCS.Get, new Uint8Array(), {}));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(runner.limiter.inFlight, 2);
    const listed = await runner.unary(pool, RPCS.ListCaches, new Uint8Array(), {});
    assert.deepEqual([...listed], [1]);
    while (pending.length > 0) {
      pending.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(gets);
    assert.equal(runner.limiter.highWaterMark, 2);
  });

  test('after close, calls fail with ConnectionError without reaching a channel', async () => {
    const { pool, runner, attempts } = setup(() => Promise.resolve(new Uint8Array()));
    runner.close();
    await assert.rejects(runner.unary(pool, RPCS.Get, new Uint8Array(), {}), /client is closed/);
    assert.equal(attempts(), 0);
  });
});
