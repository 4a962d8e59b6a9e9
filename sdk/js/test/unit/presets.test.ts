// v1 of every preset is frozen forever: these values may never change.
// A new measurement goes into latest(), never into v1().
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inRegion, lambda, laptop, lowLatency, presetByName } from '../../src/presets.js';

const V1 = {
  laptop: {
    channels: 2,
    maxConcurrentRequests: 100,
    deadlineMs: 15_000,
    keepaliveTimeMs: 30_000,
    keepaliveTimeoutMs: 10_000,
    retry: { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 1_000, jitter: 0.5 },
    eagerConnectTimeoutMs: 30_000,
    defaultTtlMs: 60_000,
  },
  in_region: {
    channels: 2,
    maxConcurrentRequests: 50,
    deadlineMs: 5_000,
    keepaliveTimeMs: 30_000,
    keepaliveTimeoutMs: 10_000,
    retry: { maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 500, jitter: 0.5 },
    eagerConnectTimeoutMs: 10_000,
    defaultTtlMs: 60_000,
  },
  low_latency: {
    channels: 2,
    maxConcurrentRequests: 2,
    deadlineMs: 1_000,
    keepaliveTimeMs: 30_000,
    keepaliveTimeoutMs: 5_000,
    retry: { maxAttempts: 2, initialBackoffMs: 5, maxBackoffMs: 50, jitter: 0.5 },
    eagerConnectTimeoutMs: 5_000,
    defaultTtlMs: 60_000,
  },
  lambda: {
    channels: 1,
    maxConcurrentRequests: 20,
    deadlineMs: 5_000,
    keepaliveTimeMs: 0,
    keepaliveTimeoutMs: 10_000,
    retry: { maxAttempts: 3, initialBackoffMs: 10, maxBackoffMs: 500, jitter: 0.5 },
    eagerConnectTimeoutMs: 3_000,
    defaultTtlMs: 60_000,
  },
};

describe('presets', () => {
  for (const preset of [laptop, inRegion, lowLatency, lambda]) {
    test(`${preset.name}.v1() has its frozen values`, () => {
      assert.deepEqual(preset.v1(), V1[preset.name]);
    });

    test(`${preset.name}.v1() cannot be modified by a caller`, () => {
      const knobs = preset.v1();
      assert.ok(Object.isFrozen(knobs) && Object.isFrozen(knobs.retry));
      assert.throws(() => {
        (knobs as { channels: number }).channels = 99;
      }, TypeError);
      assert.equal(preset.v1().channels, V1[preset.name].channels);
    });

    test(`${preset.name}.latest() sets every knob`, () => {
      assert.deepEqual(Object.keys(preset.latest()).sort(), Object.keys(V1[preset.name]).sort());
    });
  }

  test('presetByName takes snake_case, camelCase and kebab-case names', () => {
    assert.equal(presetByName('in_region'), inRegion);
    assert.equal(presetByName('inRegion'), inRegion);
    assert.equal(presetByName('low-latency'), lowLatency);
    assert.equal(presetByName('lambda'), lambda);
    assert.throws(() => presetByName('fast'), /known presets: laptop, in_region, low_latency, lambda/);
  });
});
