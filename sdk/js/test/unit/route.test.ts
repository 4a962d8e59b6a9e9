// The route below CacheClient: which transport each call takes, and the
// fallbacks of protosocketEndpoint 'auto', with fake channels and a fake set
// of protosocket connections.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CallRunner } from '../../src/call-runner.js';
import { ChannelPool } from '../../src/channel-pool.js';
import { encode } from '../../src/collections/common.js';
import { resolveKnobs } from '../../src/config.js';
import { LimitExceededError, Reason } from '../../src/errors.js';
import * as scs from '../../src/gen/cacheclient_pb.js';
import type { ProtosocketCalls } from '../../src/protosocket-calls.js';
import { Route } from '../../src/route.js';
import * as scalars from '../../src/scalars.js';
import { Status } from '../../src/status.js';
import { type ChannelTarget, StatusError } from '../../src/transport/channel.js';
import { fakeFactory } from '../support/fake-channel.js';

const target: ChannelTarget = { host: 'h', port: 1, keepaliveTimeMs: 0, keepaliveTimeoutMs: 1, maxReceiveMessageBytes: 1 << 20 };
const FROM_GRPC = new TextEncoder().encode('from gRPC');
const FROM_PROTOSOCKET = new TextEncoder().encode('from protosocket');

/** What the fake protosocket connections do with a command. */
type Behaviour = 'answer' | 'too-large-to-read';

function setup(behaviour: Behaviour = 'answer') {
  const factory = fakeFactory((path) =>
    Promise.resolve(path.endsWith('/Get') ? encode(scs._GetResponseSchema, { result: scs.ECacheResult.Hit, cacheBody: FROM_GRPC }) : new Uint8Array()),
  );
  const pool = new ChannelPool(factory, target, 1);
  const knobs = resolveKnobs({});
  const runner = new CallRunner(knobs, 'h:1');
  const route = new Route({ knobs, runner, dataPool: pool, controlPool: pool, authorization: undefined, target: 'h:1' });
  const overProtosocket: string[] = [];
  // The parts of ProtosocketCalls the route uses; failures pass through the
  // runner as the real ones do, so they arrive mapped.
  const protosocket = {
    address: 'h:2',
    fits: (operation: scalars.KeyOperation<unknown>) => operation.value === undefined || operation.value.length <= 4,
    send(_cacheName: string, operation: scalars.KeyOperation<unknown>) {
      overProtosocket.push(operation.rpc.method);
      return runner.run(operation.rpc, () =>
        behaviour === 'answer'
          ? Promise.resolve(operation.rpc.method === 'Get' ? FROM_PROTOSOCKET : undefined)
          : // The reason alone says it: the message is no longer read.
            Promise.reject(new StatusError(Status.RESOURCE_EXHAUSTED, 'too large', { err: Reason.ANSWER_TOO_LARGE_FOR_PROTOSOCKET })),
      );
    },
    close() {},
  } as unknown as ProtosocketCalls;
  const overGrpc = (): string[] => factory.channels[0]!.calls.map((call) => call.path.split('/').at(-1)!);
  return { route, protosocket, overProtosocket, overGrpc };
}

describe('Route', () => {
  test('without protosocket every call goes over gRPC', async () => {
    const { route, overGrpc } = setup();
    assert.equal(route.transport, 'grpc');
    assert.equal(route.protosocketAddress, undefined);
    assert.deepEqual(await route.send('c', scalars.get('k')), FROM_GRPC);
    await route.send('c', scalars.set('k', 'v', 1_000));
    assert.deepEqual(overGrpc(), ['Get', 'Set']);
  });

  test('the calls whose row lists protosocket go there; the others over gRPC', async () => {
    const { route, protosocket, overProtosocket, overGrpc } = setup();
    route.useProtosocket(protosocket);
    assert.equal(route.transport, 'protosocket');
    assert.equal(route.protosocketAddress, 'h:2');
    assert.deepEqual(await route.send('c', scalars.get('k')), FROM_PROTOSOCKET);
    await route.send('c', scalars.set('k', 'v', 1_000));
    await route.send('c', scalars.remove('k'));
    await route.send('c', scalars.keysExist(['k']));
    await route.send('c', scalars.setIfAbsent('k', 'v', 1_000n));
    assert.deepEqual(overProtosocket, ['Get', 'Set', 'Delete']);
    assert.deepEqual(overGrpc(), ['KeysExist', 'SetIfNotExists']);
  });

  test("under 'auto', a Get protosocket cannot answer is read over gRPC", async () => {
    const { route, protosocket, overProtosocket, overGrpc } = setup('too-large-to-read');
    route.useAuto(() => assert.fail('no port to open'));
    route.useProtosocket(protosocket);
    assert.deepEqual(await route.send('c', scalars.get('k')), FROM_GRPC);
    assert.deepEqual(overProtosocket, ['Get']);
    assert.deepEqual(overGrpc(), ['Get']);
  });

  test("with a protosocket endpoint given, the same failure rejects", async () => {
    const { route, protosocket, overGrpc } = setup('too-large-to-read');
    route.useProtosocket(protosocket);
    await assert.rejects(route.send('c', scalars.get('k')), (err: Error) => {
      assert.ok(err instanceof LimitExceededError);
      assert.equal(err.reason, Reason.ANSWER_TOO_LARGE_FOR_PROTOSOCKET);
      return true;
    });
    assert.deepEqual(overGrpc(), []);
  });

  test("under 'auto', a value protosocket cannot carry is set over gRPC", async () => {
    const { route, protosocket, overProtosocket, overGrpc } = setup();
    route.useAuto(() => assert.fail('no port to open'));
    route.useProtosocket(protosocket);
    await route.send('c', scalars.set('k', 'small', 1_000));
    await route.send('c', scalars.set('k', 'fits', 1_000));
    assert.deepEqual(overProtosocket, ['Set']);
    assert.deepEqual(overGrpc(), ['Set']);
  });
});
