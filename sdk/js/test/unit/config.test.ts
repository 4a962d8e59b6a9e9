import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULTS, DEFAULT_TRANSPORT, resolveKnobs } from '../../src/config.js';
import { InvalidArgumentError } from '../../src/errors.js';

describe('resolveKnobs', () => {
  test('fills every knob from DEFAULTS', () => {
    const knobs = resolveKnobs({});
    assert.deepEqual(knobs, { ...DEFAULTS, retry: { ...DEFAULTS.retry } });
    assert.equal(knobs.transport, DEFAULT_TRANSPORT);
  });

  test('keeps given knobs and merges a partial retry policy', () => {
    const knobs = resolveKnobs({ channels: 5, maxConcurrentRequests: 0, retry: { maxAttempts: 1 }, transport: 'http2' });
    assert.equal(knobs.channels, 5);
    assert.equal(knobs.maxConcurrentRequests, 0);
    assert.equal(knobs.transport, 'http2');
    assert.deepEqual(knobs.retry, { ...DEFAULTS.retry, maxAttempts: 1 });
  });

  test('DEFAULTS cannot be changed', () => {
    assert.ok(Object.isFrozen(DEFAULTS));
    assert.ok(Object.isFrozen(DEFAULTS.retry));
  });

  for (const [options, option] of [
    [{ channels: 0 }, 'channels'],
    [{ channels: 1.5 }, 'channels'],
    [{ maxConcurrentRequests: -1 }, 'maxConcurrentRequests'],
    [{ deadlineMs: 0 }, 'deadlineMs'],
    [{ defaultTtlMs: -5 }, 'defaultTtlMs'],
    [{ keepaliveTimeMs: -1 }, 'keepaliveTimeMs'],
    [{ eagerConnectTimeoutMs: -1 }, 'eagerConnectTimeoutMs'],
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
    [{ retry: { jitter: 2 } }, 'retry.jitter'],
    [{ retry: { initialBackoffMs: 100, maxBackoffMs: 10 } }, 'retry'],
    [{ transport: 'h3' }, 'transport'],
  ] as const) {
    test(`rejects a bad ${option}, naming it`, () => {
      assert.throws(() => resolveKnobs(options as never), (err: Error) => err instanceof InvalidArgumentError && err.message.includes(`\`${option}\``));
    });
  }
});
