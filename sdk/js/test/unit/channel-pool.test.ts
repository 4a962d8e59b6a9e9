import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChannelPool } from '../../src/channel-pool.js';
import type { ChannelTarget } from '../../src/transport/channel.js';
import { fakeFactory } from '../support/fake-channel.js';

const target: ChannelTarget = { host: 'h', port: 1, keepaliveTimeMs: 0, keepaliveTimeoutMs: 1, maxReceiveMessageBytes: 1 };
const options = { deadline: Date.now() + 60_000, metadata: {} };

describe('ChannelPool', () => {
  test('makes N channels and counts the connected ones', async () => {
    const factory = fakeFactory(() => Promise.resolve(new Uint8Array()));
    const pool = new ChannelPool(factory, target, 3);
    assert.equal(factory.channels.length, 3);
    assert.equal(pool.connectedCount(), 0);
    await pool.connect(Date.now() + 1000);
    assert.equal(pool.connectedCount(), 3);
    pool.close();
    assert.ok(factory.channels.every((channel) => channel.closed));
  });

  test('spreads even load round robin', async () => {
    const factory = fakeFactory(() => Promise.resolve(new Uint8Array()));
    const pool = new ChannelPool(factory, target, 3);
    for (let i = 0; i < 9; i += 1) await pool.unary('/p', new Uint8Array(), options);
    assert.deepEqual(factory.channels.map((channel) => channel.calls.length), [3, 3, 3]);
  });

  test('sends to the channel with the fewest calls in flight', async () => {
    const releases: (() => void)[] = [];
    const factory = fakeFactory(
      () => new Promise<Uint8Array>((resolve) => releases.push(() => resolve(new Uint8Array()))),
    );
    const pool = new ChannelPool(factory, target, 2);
    const pending = Array.from({ length: 6 }, () => pool.unary('/p', new Uint8Array(), options));
    assert.deepEqual(factory.channels.map((channel) => channel.calls.length), [3, 3]);
    // Finish the three calls of channel 0; the next three calls all go there.
    const first = factory.channels[0]!;
    for (const [index] of releases.entries()) if (index % 2 === 0) releases[index]!();
    await Promise.all([pending[0], pending[2], pending[4]]);
    const more = Array.from({ length: 3 }, () => pool.unary('/p', new Uint8Array(), options));
    assert.equal(first.calls.length, 6);
    for (const release of releases) release();
    await Promise.all([...pending, ...more]);
  });
});
