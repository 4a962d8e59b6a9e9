import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { Limiter } from '../../src/limiter.js';

const timeout = (): Error => new Error('queue timeout');

describe('Limiter', () => {
  test('takes slots without waiting below the cap', () => {
    const limiter = new Limiter(2);
    assert.ok(limiter.tryAcquire());
    assert.ok(limiter.tryAcquire());
    assert.equal(limiter.tryAcquire(), false);
    assert.equal(limiter.inFlight, 2);
  });

  test('a cap of 0 never refuses', () => {
    const limiter = new Limiter(0);
    for (let i = 0; i < 10_000; i += 1) assert.ok(limiter.tryAcquire());
    assert.equal(limiter.highWaterMark, 10_000);
  });

  test('waiters get slots in FIFO order and the bound holds', async () => {
    const limiter = new Limiter(3);
    const order: number[] = [];
    const running: Promise<void>[] = [];
    let maxSeen = 0;
    for (let i = 0; i < 50; i += 1) {
      running.push(
        limiter.acquire(Date.now() + 60_000, timeout).then(async () => {
          order.push(i);
          maxSeen = Math.max(maxSeen, limiter.inFlight);
          await new Promise((resolve) => setImmediate(resolve));
          limiter.release();
        }),
      );
    }
    await Promise.all(running);
    assert.deepEqual(order, Array.from({ length: 50 }, (_u, i) => i));
    assert.equal(maxSeen, 3);
    assert.equal(limiter.highWaterMark, 3);
    assert.equal(limiter.inFlight, 0);
    assert.equal(limiter.waiting, 0);
  });

  test('tryAcquire does not jump the queue', async () => {
    const limiter = new Limiter(1);
    assert.ok(limiter.tryAcquire());
    const waiter = limiter.acquire(Date.now() + 60_000, timeout);
    limiter.release();
    // The slot went to the waiter, not to a newcomer.
    assert.equal(limiter.tryAcquire(), false);
    await waiter;
    assert.equal(limiter.inFlight, 1);
  });

  test('a waiter gives up at its deadline and is skipped afterwards', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000 });
    try {
      const limiter = new Limiter(1);
      assert.ok(limiter.tryAcquire());
      const outcomes: string[] = [];
      limiter.acquire(1_000 + 50, timeout).then(
        () => outcomes.push('first got a slot'),
        (err: Error) => outcomes.push(`first: ${err.message}`),
      );
      const second = limiter.acquire(1_000 + 500, timeout).then(() => outcomes.push('second got a slot'));
      mock.timers.tick(60);
      assert.equal(limiter.waiting, 1);
      limiter.release();
      assert.equal(limiter.inFlight, 1);
      return second.then(() => {
        assert.deepEqual(outcomes, ['first: queue timeout', 'second got a slot']);
      });
    } finally {
      mock.timers.reset();
    }
  });

  test('rejectAll fails every waiter', async () => {
    const limiter = new Limiter(1);
    limiter.tryAcquire();
    const waiters = [limiter.acquire(Date.now() + 60_000, timeout), limiter.acquire(Date.now() + 60_000, timeout)];
    limiter.rejectAll(new Error('closed'));
    for (const waiter of waiters) await assert.rejects(waiter, /closed/);
    assert.equal(limiter.waiting, 0);
  });
});
