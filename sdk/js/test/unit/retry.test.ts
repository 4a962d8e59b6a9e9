import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IDEMPOTENT_METHODS, backoffMs, isRetryableStatus } from '../../src/retry.js';
import { Status } from '../../src/status.js';

const policy = { maxAttempts: 5, initialBackoffMs: 10, maxBackoffMs: 100, jitter: 0.5 };

describe('retry eligibility', () => {
  test('idempotent calls only', () => {
    for (const method of ['Get', 'GetBatch', 'Set', 'SetBatch', 'Delete', 'KeysExist', 'ItemGetTtl', 'ItemGetType', 'ListCaches', 'Ping']) {
      assert.ok(IDEMPOTENT_METHODS.has(method), method);
    }
    for (const method of ['SetIf', 'SetIfNotExists', 'Increment', 'UpdateTtl', 'CreateCache', 'DeleteCache', 'FlushCache']) {
      assert.equal(IDEMPOTENT_METHODS.has(method), false, method);
    }
  });

  test('on UNAVAILABLE and INTERNAL only', () => {
    const retryable = Object.entries(Status).filter(([, code]) => isRetryableStatus(code)).map(([name]) => name);
    assert.deepEqual(retryable.sort(), ['INTERNAL', 'UNAVAILABLE']);
  });
});

describe('backoffMs', () => {
  test('doubles from the initial backoff without jitter', () => {
    const noJitter = { ...policy, jitter: 0 };
    assert.deepEqual([1, 2, 3, 4].map((n) => backoffMs(n, noJitter)), [10, 20, 40, 80]);
  });

  test('never exceeds maxBackoffMs', () => {
    for (let retry = 1; retry < 40; retry += 1) {
      assert.ok(backoffMs(retry, policy, () => 0) <= policy.maxBackoffMs);
    }
    assert.equal(backoffMs(30, policy, () => 0), 100);
  });

  test('jitter removes at most its share', () => {
    assert.equal(backoffMs(1, policy, () => 0), 10);
    assert.equal(backoffMs(1, policy, () => 1), 5);
    assert.equal(backoffMs(10, policy, () => 1), 50);
  });
});
