// The collection and hash calls without a server: bad arguments reject with
// InvalidArgumentError before anything is sent, and good ones are encoded
// as the protocol wants (collection TTL, slices, bounds, conditions).
import assert from 'node:assert/strict';
import { fromBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { after, before, describe, test } from 'node:test';
import * as scs from '../../src/gen/cacheclient_pb.js';
import { CacheClient, InvalidArgumentError } from '../../src/index.js';
import { fakeFactory } from '../support/fake-channel.js';

const C = 'cache';
const DEFAULT_TTL_MS = 42_000;

describe('collection calls without a server', () => {
  let client: CacheClient;
  const sent: { path: string; request: Uint8Array }[] = [];

  before(async () => {
    const factory = fakeFactory((path, request) => {
      sent.push({ path, request });
      return Promise.resolve(new Uint8Array());
    });
    client = await CacheClient.create({ endpoint: '127.0.0.1:1', channelFactory: factory, eagerConnectTimeoutMs: 0, defaultTtlMs: DEFAULT_TTL_MS });
  });

  after(() => client.close());

  /** The one request the call sent, decoded. */
  async function request<Desc extends DescMessage>(schema: Desc, call: () => Promise<unknown>): Promise<MessageShape<Desc>> {
    const before = sent.length;
    await call();
    assert.equal(sent.length, before + 1, 'one request');
    return fromBinary(schema, sent[sent.length - 1]!.request);
  }

  describe('bad arguments reject with InvalidArgumentError and send nothing', () => {
    const NAN = Number.NaN;
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      // names, keys, values
      ['empty dictionary name', () => client.dictionaryLength(C, ''), /dictionary name is empty/],
      ['number as a list name', () => client.listLength(C, 7 as unknown as string), /got 7 \(a number\)/],
      ['null element', () => client.setAddElements(C, 's', [null as unknown as string]), /got null/],
      ['elements not an array', () => client.setAddElements(C, 's', 'abc' as unknown as string[]), /are an array/],
      ['undefined field value', () => client.dictionarySetField(C, 'd', 'f', undefined as unknown as string), /got undefined/],
      // collection TTL
      ['TTL 0', () => client.setAddElements(C, 's', ['e'], { ttlMs: 0 }), /at least 1 ms/],
      ['TTL as a string', () => client.listPushBack(C, 'l', 'v', { ttlMs: '5' as unknown as number }), /number of milliseconds/],
      ['refreshTtl not a boolean', () => client.dictionarySetField(C, 'd', 'f', 'v', { refreshTtl: 'no' as unknown as boolean }), /refreshTtl/],
      // empty where the server refuses empty
      ['dictionaryGetFields of none', () => client.dictionaryGetFields(C, 'd', []), /at least one/],
      ['dictionarySetFields of none', () => client.dictionarySetFields(C, 'd', {}), /at least one/],
      ['dictionarySetFields of an empty Map', () => client.dictionarySetFields(C, 'd', new Map()), /at least one/],
      ['dictionarySetFields of a bad pair', () => client.dictionarySetFields(C, 'd', [['f']] as unknown as [string, string][]), /pair/],
      ['dictionaryRemoveFields of none', () => client.dictionaryRemoveFields(C, 'd', []), /at least one/],
      ['listConcatenateBack of none', () => client.listConcatenateBack(C, 'l', []), /at least one/],
      ['listConcatenateFront of none', () => client.listConcatenateFront(C, 'l', []), /at least one/],
      ['sortedSetPutElements of none', () => client.sortedSetPutElements(C, 'z', []), /at least one/],
      ['sortedSetUnionStore of no sources', () => client.sortedSetUnionStore(C, 'z', {}), /at least one/],
      ['sortedSetUnionStore sources as an array', () => client.sortedSetUnionStore(C, 'z', [['a', 1]] as unknown as Record<string, number>), /Record or a Map/],
      // integers
      ['dictionaryIncrement by 1.5', () => client.dictionaryIncrement(C, 'd', 'f', 1.5), /safe integer/],
      ['dictionaryIncrement past int64', () => client.dictionaryIncrement(C, 'd', 'f', 2n ** 63n), /signed 64-bit/],
      ['truncateBackToSize 0', () => client.listPushFront(C, 'l', 'v', { truncateBackToSize: 0 }), /truncateBackToSize/],
      ['truncateFrontToSize -1', () => client.listConcatenateBack(C, 'l', ['v'], { truncateFrontToSize: -1 }), /truncateFrontToSize/],
      ['truncateFrontToSize 2.5', () => client.listPushBack(C, 'l', 'v', { truncateFrontToSize: 2.5 }), /truncateFrontToSize/],
      ['listFetch start 0.5', () => client.listFetch(C, 'l', { start: 0.5 }), /`start`/],
      ['listFetch end past sint32', () => client.listFetch(C, 'l', { end: 2 ** 31 }), /`end`/],
      ['listRetain start as a string', () => client.listRetain(C, 'l', { start: '1' as unknown as number }), /`start`/],
      ['listErase negative start', () => client.listErase(C, 'l', { start: -1 }), />= 0/],
      ['listErase negative end', () => client.listErase(C, 'l', { start: 0, end: -1 }), />= 0/],
      ['listErase start 1.5', () => client.listErase(C, 'l', { start: 1.5 }), /`start`/],
      ['listErase slice not an object', () => client.listErase(C, 'l', 3 as unknown as { start: number }), /a slice is/],
      ['setPop count 0', () => client.setPop(C, 's', 0), /`count`/],
      ['setPop count 1.5', () => client.setPop(C, 's', 1.5), /`count`/],
      ['setSample limit -1', () => client.setSample(C, 's', -1), /`limit`/],
      ['setSample without a limit', () => client.setSample(C, 's', undefined as unknown as number), /`limit`/],
      // scores, bounds, order, aggregate
      ['score NaN', () => client.sortedSetPutElement(C, 'z', 'v', NAN), /`score`/],
      ['score Infinity', () => client.sortedSetPutElements(C, 'z', [['v', Infinity]]), /`score`/],
      ['score as a string', () => client.sortedSetPutElements(C, 'z', { v: '1' as unknown as number }), /`score`/],
      ['increment amount NaN', () => client.sortedSetIncrementScore(C, 'z', 'v', NAN), /`amount`/],
      ['increment amount -Infinity', () => client.sortedSetIncrementScore(C, 'z', 'v', -Infinity), /`amount`/],
      ['rank start 1.5', () => client.sortedSetFetchByRank(C, 'z', { start: 1.5 }), /`start`/],
      ['unknown order', () => client.sortedSetFetchByRank(C, 'z', { order: 'up' as unknown as 'ascending' }), /`order`/],
      ['unknown rank order', () => client.sortedSetGetRank(C, 'z', 'v', { order: 'desc' as unknown as 'descending' }), /`order`/],
      ['min score over max', () => client.sortedSetFetchByScore(C, 'z', { minScore: 2, maxScore: 1 }), /minScore/],
      ['min score NaN', () => client.sortedSetLengthByScore(C, 'z', { minScore: NAN }), /minScore/],
      ['count 0', () => client.sortedSetFetchByScore(C, 'z', { count: 0 }), /`count`/],
      ['offset -1', () => client.sortedSetFetchByScore(C, 'z', { offset: -1 }), /`offset`/],
      ['weight NaN', () => client.sortedSetUnionStore(C, 'z', { a: NAN }), /weight/],
      ['weight past float32', () => client.sortedSetUnionStore(C, 'z', new Map([['a', 1e39]])), /weight/],
      ['unknown aggregate', () => client.sortedSetUnionStore(C, 'z', { a: 1 }, { aggregate: 'avg' as unknown as 'sum' }), /`aggregate`/],
      ['empty source name', () => client.sortedSetUnionStore(C, 'z', { '': 1 }), /name is empty/],
      // hash calls
      ['setIfHash with no condition', () => client.setIfHash(C, 'k', 'v', {} as unknown as { unconditional: true }), /setIfHash condition/],
      ['setIfHash unconditional: false', () => client.setIfHash(C, 'k', 'v', { unconditional: false } as unknown as { unconditional: true }), /setIfHash condition/],
      ['setIfHash with a numeric hash', () => client.setIfHash(C, 'k', 'v', { presentAndHashEqual: 5 as unknown as string }), /got 5/],
    ];
    for (const [what, call, message] of cases) {
      test(what, async () => {
        const before = sent.length;
        await assert.rejects(call(), (err: unknown) => {
          assert.ok(err instanceof InvalidArgumentError, `${what}: ${String(err)}`);
          assert.equal(err.status, 'INVALID_ARGUMENT');
          assert.match(err.message, message);
          return true;
        });
        assert.equal(sent.length, before, `${what}: nothing sent`);
      });
    }
  });

  describe('requests', () => {
    test("collection TTL: the client's default and refresh by default; ttlMs and refreshTtl when given", async () => {
      const byDefault = await request(scs._DictionarySetRequestSchema, () => client.dictionarySetField(C, 'd', 'f', 'v'));
      assert.equal(byDefault.ttlMilliseconds, BigInt(DEFAULT_TTL_MS));
      assert.equal(byDefault.refreshTtl, true);
      const given = await request(scs._SetUnionRequestSchema, () => client.setAddElements(C, 's', ['e'], { ttlMs: 5_000, refreshTtl: false }));
      assert.equal(given.ttlMilliseconds, 5_000n);
      assert.equal(given.refreshTtl, false);
      const retain = await request(scs._ListRetainRequestSchema, () => client.listRetain(C, 'l', { start: 1, ttlMs: 7_000 }));
      assert.deepEqual([retain.ttlMilliseconds, retain.refreshTtl], [7_000n, true]);
    });

    test('dictionarySetFields takes a Map, a Record or pairs', async () => {
      for (const entries of [new Map([['a', '1'], ['b', '2']]), { a: '1', b: '2' }, [['a', '1'], ['b', '2']] as [string, string][]]) {
        const sentRequest = await request(scs._DictionarySetRequestSchema, () => client.dictionarySetFields(C, 'd', entries));
        assert.deepEqual(
          sentRequest.items.map((item) => [Buffer.from(item.field).toString(), Buffer.from(item.value).toString()]),
          [['a', '1'], ['b', '2']],
        );
      }
    });

    test('list slices: omitted ends are unbounded, given ones are sent as they are', async () => {
      const whole = await request(scs._ListFetchRequestSchema, () => client.listFetch(C, 'l'));
      assert.deepEqual([whole.startIndex.case, whole.endIndex.case], ['unboundedStart', 'unboundedEnd']);
      const tail = await request(scs._ListFetchRequestSchema, () => client.listFetch(C, 'l', { start: -3 }));
      assert.deepEqual([tail.startIndex, tail.endIndex.case], [{ case: 'inclusiveStart', value: -3 }, 'unboundedEnd']);
      const middle = await request(scs._ListRetainRequestSchema, () => client.listRetain(C, 'l', { start: 1, end: -1 }));
      assert.deepEqual([middle.startIndex.value, middle.endIndex], [1, { case: 'exclusiveEnd', value: -1 }]);
    });

    test('list truncation, and erase slices as ranges from the front', async () => {
      const front = await request(scs._ListPushFrontRequestSchema, () => client.listPushFront(C, 'l', 'v', { truncateBackToSize: 3 }));
      assert.equal(front.truncateBackToSize, 3);
      const back = await request(scs._ListConcatenateBackRequestSchema, () => client.listConcatenateBack(C, 'l', ['a', 'b']));
      assert.equal(back.truncateFrontToSize, 0, 'no truncation unless asked');
      const all = await request(scs._ListEraseRequestSchema, () => client.listErase(C, 'l'));
      assert.equal(all.erase.case, 'all');
      // As Python maps its slice: [start, end) is `end - start` values from
      // `start`; an open start is 0, an open end counts to the uint32 limit.
      const slices: [{ start?: number; end?: number }, [number, number]][] = [
        [{ start: 2, end: 5 }, [2, 3]],
        [{ end: 3 }, [0, 3]],
        [{ start: 4 }, [4, 2 ** 32 - 1]],
      ];
      for (const [slice, range] of slices) {
        const some = await request(scs._ListEraseRequestSchema, () => client.listErase(C, 'l', slice));
        assert.ok(some.erase.case === 'some');
        assert.deepEqual(some.erase.value.ranges.map((r) => [r.beginIndex, r.count]), [range], JSON.stringify(slice));
      }
    });

    test('an empty listErase slice sends no ListErase: it reads the length left instead', async () => {
      for (const slice of [{ start: 4, end: 2 }, { start: 3, end: 3 }, { end: 0 }]) {
        const before = sent.length;
        // The fake answers an empty message: a missing list, length 0.
        assert.equal(await client.listErase(C, 'l', slice), 0);
        assert.deepEqual(sent.slice(before).map((call) => call.path.split('/').pop()), ['ListLength'], JSON.stringify(slice));
      }
    });

    test('sorted set fetch by score: bounds, exclusivity, order, offset, count (all when omitted)', async () => {
      const open = await request(scs._SortedSetFetchRequestSchema, () => client.sortedSetFetchByScore(C, 'z'));
      assert.ok(open.range.case === 'byScore');
      assert.deepEqual([open.range.value.min.case, open.range.value.max.case], ['unboundedMin', 'unboundedMax']);
      assert.deepEqual([open.range.value.offset, open.range.value.count, open.withScores], [0, -1, true]);
      const closed = await request(scs._SortedSetFetchRequestSchema, () =>
        client.sortedSetFetchByScore(C, 'z', { minScore: 1, maxScore: 5, exclusiveMin: true, order: 'descending', offset: 2, count: 4 }),
      );
      assert.ok(closed.range.case === 'byScore');
      const { min, max, offset, count } = closed.range.value;
      assert.ok(min.case === 'minScore' && max.case === 'maxScore');
      assert.deepEqual([min.value.score, min.value.exclusive, max.value.score, max.value.exclusive], [1, true, 5, false]);
      assert.deepEqual([closed.order, offset, count], [scs._SortedSetFetchRequest_Order.DESCENDING, 2, 4]);
      const infinite = await request(scs._SortedSetFetchRequestSchema, () => client.sortedSetFetchByScore(C, 'z', { minScore: -Infinity }));
      assert.ok(infinite.range.case === 'byScore' && infinite.range.value.min.case === 'minScore');
      assert.equal(infinite.range.value.min.value.score, -Infinity);
    });

    test('sorted set by rank and length by score', async () => {
      const byRank = await request(scs._SortedSetFetchRequestSchema, () => client.sortedSetFetchByRank(C, 'z', { start: 1, end: -1 }));
      assert.ok(byRank.range.case === 'byIndex');
      assert.deepEqual([byRank.range.value.start.value, byRank.range.value.end.value], [1, -1]);
      // Ranks the wrong way round select nothing, as a Python slice: sent as [0:0], which the server takes.
      for (const [start, end] of [[3, 1], [2, 2], [-1, -1], [-1, -3]]) {
        const empty = await request(scs._SortedSetFetchRequestSchema, () => client.sortedSetFetchByRank(C, 'z', { start, end }));
        assert.ok(empty.range.case === 'byIndex');
        assert.deepEqual([empty.range.value.start.value, empty.range.value.end.value], [0, 0], `[${start}:${end}]`);
      }
      const mixed = await request(scs._SortedSetFetchRequestSchema, () => client.sortedSetFetchByRank(C, 'z', { start: -2, end: 5 }));
      assert.ok(mixed.range.case === 'byIndex');
      assert.deepEqual([mixed.range.value.start.value, mixed.range.value.end.value], [-2, 5]);
      const length = await request(scs._SortedSetLengthByScoreRequestSchema, () =>
        client.sortedSetLengthByScore(C, 'z', { minScore: 1, maxScore: 2, exclusiveMax: true }),
      );
      assert.deepEqual([length.min, length.max], [{ case: 'inclusiveMin', value: 1 }, { case: 'exclusiveMax', value: 2 }]);
      const rank = await request(scs._SortedSetGetRankRequestSchema, () => client.sortedSetGetRank(C, 'z', 'v', { order: 'descending' }));
      assert.equal(rank.order, scs._SortedSetGetRankRequest_Order.DESCENDING);
    });

    test('union store: sources and weights, aggregate, TTL', async () => {
      const union = await request(scs._SortedSetUnionStoreRequestSchema, () =>
        client.sortedSetUnionStore(C, 'dest', new Map<string | Uint8Array, number>([['a', 2], [Uint8Array.of(1), -0.5]]), { aggregate: 'max', ttlMs: 9_000 }),
      );
      assert.deepEqual(union.sources.map((s) => [Array.from(s.setName), s.weight]), [[[97], 2], [[1], -0.5]]);
      assert.deepEqual([union.aggregate, union.ttlMilliseconds], [scs._SortedSetUnionStoreRequest_AggregateFunction.MAX, 9_000n]);
      const byDefault = await request(scs._SortedSetUnionStoreRequestSchema, () => client.sortedSetUnionStore(C, 'dest', { a: 1 }));
      assert.deepEqual([byDefault.aggregate, byDefault.ttlMilliseconds], [scs._SortedSetUnionStoreRequest_AggregateFunction.SUM, BigInt(DEFAULT_TTL_MS)]);
    });

    test('setIfHash: each condition as its oneof case', async () => {
      const conditions = [
        [{ presentAndHashEqual: 'h' }, 'presentAndHashEqual'],
        [{ presentAndNotHashEqual: 'h' }, 'presentAndNotHashEqual'],
        [{ absentOrHashEqual: 'h' }, 'absentOrHashEqual'],
        [{ absentOrNotHashEqual: 'h' }, 'absentOrNotHashEqual'],
        [{ unconditional: true }, 'unconditional'],
      ] as const;
      for (const [condition, expected] of conditions) {
        const sentRequest = await request(scs._SetIfHashRequestSchema, () => client.setIfHash(C, 'k', 'v', condition));
        assert.equal(sentRequest.condition.case, expected);
        if (sentRequest.condition.case !== 'unconditional' && sentRequest.condition.case !== undefined) {
          assert.equal(Buffer.from(sentRequest.condition.value.hashToCheck).toString(), 'h');
        }
      }
    });

    test('an empty answer (a missing collection) reads as empty, and absent parts as undefined', async () => {
      assert.equal((await client.dictionaryFetch(C, 'd')).size, 0);
      assert.deepEqual(await client.dictionaryGetFields(C, 'd', ['a', 'b']), [undefined, undefined]);
      assert.deepEqual(await client.listFetch(C, 'l'), []);
      assert.equal(await client.listPopBack(C, 'l'), undefined);
      assert.deepEqual(await client.setContainsElements(C, 's', ['a', 'b']), [false, false]);
      assert.equal(await client.setContainsElement(C, 's', 'a'), false);
      assert.deepEqual(await client.sortedSetGetScores(C, 'z', ['a']), [undefined]);
      assert.equal(await client.sortedSetGetRank(C, 'z', 'a'), undefined);
      assert.equal(await client.sortedSetLength(C, 'z'), 0);
      assert.equal(await client.getWithHash(C, 'k'), undefined);
    });
  });
});
