// The client against sdk/spec.json, the catalogue of calls both SDKs are
// generated from: every call of the spec is a method, every public method is
// a call of the spec, each sends the spec's RPC, RPCS holds the catalogue's
// rows, and each call is retried as its RPC's `idempotent` says, both as a
// table and as attempts on the wire.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { CacheClient, Leaderboard } from '../../src/index.js';
import { RPCS } from '../../src/rpcs.gen.js';
import { IDEMPOTENT_METHODS } from '../../src/retry.js';
import { Status } from '../../src/status.js';
import { StatusError } from '../../src/transport/channel.js';
import { fakeFactory } from '../support/fake-channel.js';

interface SpecCall {
  rpc: string;
  python: string;
  js: string;
  /** The client method answering the object the call is a method of. */
  on?: string;
}

interface SpecRpc {
  rpc: string;
  service: string;
  idempotent: boolean;
  streaming: boolean;
  transports: string[];
}

const spec = JSON.parse(readFileSync(new URL('../../../spec.json', import.meta.url), 'utf8')) as {
  services: { name: string; proto: string | null }[];
  rpcs: SpecRpc[];
  calls: SpecCall[];
  adaptive: { methods: { js: string }[] };
};
const SPEC_RPCS = new Map(spec.rpcs.map((row) => [row.rpc, row]));
const retried = (call: SpecCall): boolean => SPEC_RPCS.get(call.rpc)!.idempotent;
/** A call's name, after its `on` where it has one: 'leaderboard.upsert'. */
const nameOf = (call: SpecCall): string => (call.on === undefined ? call.js : `${call.on}.${call.js}`);

// The class of the object each `on` method answers, and arguments that make one.
const ON_CLASSES: Readonly<Record<string, { prototype: object }>> = { leaderboard: Leaderboard };
const ON_ARGS: Readonly<Record<string, readonly unknown[]>> = { leaderboard: ['cache', 'board'] };
const classOf = (call: SpecCall): { prototype: object } => (call.on === undefined ? CacheClient : ON_CLASSES[call.on]!);

// Members of the client that are not calls of the protocol: its lifecycle
// and what it tells about itself. Everything else public must be in the spec.
// The lifecycle, and the readers of the in-flight limit (the spec's `adaptive.methods`).
// What carries get, set and delete (`transport`) is what it tells, too.
const NOT_CALLS = new Set(['close', 'connectedChannels', 'inFlightHighWaterMark', 'transport', ...spec.adaptive.methods.map((method) => method.js)]);

// Arguments that make each call valid, so that it reaches the wire.
const C = 'cache';
const ARGS: Readonly<Record<string, readonly unknown[]>> = {
  get: [C, 'k'],
  getString: [C, 'k'],
  getMany: [C, ['k']],
  set: [C, 'k', 'v'],
  setMany: [C, { k: 'v' }],
  setIf: [C, 'k', 'v', { absent: true }],
  setIfAbsent: [C, 'k', 'v'],
  delete: [C, 'k'],
  keysExist: [C, ['k']],
  increment: [C, 'k'],
  updateTtl: [C, 'k', 1000],
  getTtl: [C, 'k'],
  getType: [C, 'k'],
  getWithHash: [C, 'k'],
  setIfHash: [C, 'k', 'v', { unconditional: true }],
  dictionaryGetField: [C, 'd', 'f'],
  dictionaryGetFields: [C, 'd', ['f']],
  dictionaryFetch: [C, 'd'],
  dictionaryFetchStrings: [C, 'd'],
  dictionarySetField: [C, 'd', 'f', 'v'],
  dictionarySetFields: [C, 'd', { f: 'v' }],
  dictionaryIncrement: [C, 'd', 'f'],
  dictionaryRemoveFields: [C, 'd', ['f']],
  dictionaryLength: [C, 'd'],
  listPushFront: [C, 'l', 'v'],
  listPushBack: [C, 'l', 'v'],
  listConcatenateFront: [C, 'l', ['v']],
  listConcatenateBack: [C, 'l', ['v']],
  listFetch: [C, 'l'],
  listPopFront: [C, 'l'],
  listPopBack: [C, 'l'],
  listRemoveValue: [C, 'l', 'v'],
  listRetain: [C, 'l', { start: 1 }],
  listErase: [C, 'l', { start: 1, end: 3 }],
  listLength: [C, 'l'],
  setAddElements: [C, 's', ['e']],
  setRemoveElements: [C, 's', ['e']],
  setFetch: [C, 's'],
  setContainsElement: [C, 's', 'e'],
  setContainsElements: [C, 's', ['e']],
  setLength: [C, 's'],
  setPop: [C, 's'],
  setSample: [C, 's', 2],
  sortedSetPutElement: [C, 'z', 'v', 1],
  sortedSetPutElements: [C, 'z', [['v', 1]]],
  sortedSetFetchByRank: [C, 'z'],
  sortedSetFetchByScore: [C, 'z'],
  sortedSetGetScore: [C, 'z', 'v'],
  sortedSetGetScores: [C, 'z', ['v']],
  sortedSetGetRank: [C, 'z', 'v'],
  sortedSetIncrementScore: [C, 'z', 'v'],
  sortedSetRemoveElements: [C, 'z', ['v']],
  sortedSetLength: [C, 'z'],
  sortedSetLengthByScore: [C, 'z'],
  sortedSetUnionStore: [C, 'z', { a: 1 }],
  publish: [C, 't', 'v'],
  subscribe: [C, 't'],
  createCache: [C],
  deleteCache: [C],
  listCaches: [],
  flushCache: [C],
  ping: [],
  generateDisposableToken: ['superUser', 60_000],
  generateApiKey: ['allDataReadWrite'],
  refreshApiKey: ['r'],
  putWebhook: [C, 'h', 't', 'http://127.0.0.1:9/x'],
  deleteWebhook: [C, 'h'],
  listWebhooks: [C],
  getWebhookSecret: [C, 'h'],
  rotateWebhookSecret: [C, 'h'],
  createSigningKey: [60_000],
  listSigningKeys: [],
  revokeSigningKey: ['k'],
  'leaderboard.upsert': [[[7, 1.5]]],
  'leaderboard.fetchByRank': [0, 10],
  'leaderboard.fetchByScore': [],
  'leaderboard.getRank': [[7]],
  'leaderboard.getCompetitionRank': [[7]],
  'leaderboard.length': [],
  'leaderboard.removeElements': [[7]],
  'leaderboard.delete': [],
};

function publicMembers(type: { prototype: object } = CacheClient): string[] {
  return Object.getOwnPropertyNames(type.prototype).filter((name) => name !== 'constructor');
}

type AnyMethod = (...args: readonly unknown[]) => Promise<unknown>;

describe('sdk/spec.json agreement', () => {
  test('the spec is read whole', () => {
    assert.ok(spec.calls.length > 50, `only ${spec.calls.length} calls`);
    assert.equal(new Set(spec.calls.map(nameOf)).size, spec.calls.length, 'a JS name twice in the spec');
  });

  test("every call of the spec is a method of CacheClient, under the spec's JS name", () => {
    const missing = spec.calls.filter((call) => typeof (classOf(call).prototype as Record<string, unknown>)[call.js] !== 'function');
    assert.deepEqual(missing.map(nameOf), []);
  });

  test('every public member of CacheClient is a call of the spec (or the lifecycle)', () => {
    const inSpec = new Set(spec.calls.map(nameOf));
    const extra = publicMembers().filter((name) => !inSpec.has(name) && !NOT_CALLS.has(name) && !(name in ON_CLASSES));
    assert.deepEqual(extra, []);
    for (const [on, type] of Object.entries(ON_CLASSES)) {
      const extraOn = publicMembers(type).filter((name) => !inSpec.has(`${on}.${name}`));
      assert.deepEqual(extraOn, [], `${on} has members the spec lacks`);
    }
  });

  test("RPCS holds the catalogue's rows of the services of proto/", () => {
    const ofProto = new Set(spec.services.filter((service) => service.proto !== null).map((service) => service.name));
    const rows = spec.rpcs.filter((row) => ofProto.has(row.service));
    assert.deepEqual(Object.keys(RPCS).sort(), rows.map((row) => row.rpc).sort());
    for (const row of rows) {
      const rpc = RPCS[row.rpc as keyof typeof RPCS];
      assert.deepEqual(
        [rpc.method, rpc.path, rpc.idempotent, rpc.streaming, [...rpc.transports]],
        [row.rpc, `/${row.service}/${row.rpc}`, row.idempotent, row.streaming, row.transports],
        row.rpc,
      );
    }
  });

  test("the retry table is the catalogue's idempotent calls", () => {
    const idempotent = spec.rpcs.filter((row) => row.idempotent && row.rpc in RPCS).map((row) => row.rpc);
    assert.deepEqual([...IDEMPOTENT_METHODS].sort(), idempotent.sort());
  });

  test("each call sends the spec's RPC, maxAttempts times when the spec retries it and once when not", async () => {
    const MAX_ATTEMPTS = 3;
    const factory = fakeFactory(() => Promise.reject(new StatusError(Status.UNAVAILABLE, 'down')));
    const client = await CacheClient.create({
      endpoint: '127.0.0.1:1',
      channelFactory: factory,
      eagerConnectTimeoutMs: 0,
      retry: { maxAttempts: MAX_ATTEMPTS, initialBackoffMs: 1, maxBackoffMs: 1 },
      // The gRPC RPC of every call is what is counted: no Ping asking for protosocket.
      protosocketEndpoint: null,
    });
    try {
      for (const call of spec.calls) {
        const args = ARGS[nameOf(call)];
        assert.ok(args !== undefined, `no sample arguments for ${nameOf(call)}`);
        const channel = factory.channels[0]!;
        const before = channel.calls.length;
        const owner: unknown =
          call.on === undefined ? client : (client as unknown as Record<string, (...a: readonly unknown[]) => unknown>)[call.on]!(...ON_ARGS[call.on]!);
        const method = (owner as Record<string, AnyMethod>)[call.js]!;
        await assert.rejects(method.apply(owner, [...args]), (err: Error) => err.name === 'ConnectionError', nameOf(call));
        const sent = channel.calls.slice(before).map((sentCall) => sentCall.path);
        const expected = retried(call) ? MAX_ATTEMPTS : 1;
        assert.equal(sent.length, expected, `${nameOf(call)}: ${sent.length} attempts, spec says idempotent=${retried(call)}`);
        for (const path of sent) assert.ok(path.endsWith(`/${call.rpc}`), `${nameOf(call)} sent ${path}, spec says ${call.rpc}`);
      }
    } finally {
      client.close();
    }
  });
});
