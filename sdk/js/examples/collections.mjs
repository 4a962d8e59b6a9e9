// Collections from the TypeScript SDK: `node examples/collections.mjs` with
// JIFFY_ENDPOINT set to a running jiffy-server (host:port). Imports the
// built package. The README's "Collections" section shows these calls; a
// test (test/integration/examples.test.ts) runs this file and checks what
// it prints.
import { AlreadyExistsError, CacheClient, decodeUtf8 } from '@jiffy/sdk';

const client = await CacheClient.create({ endpoint: process.env.JIFFY_ENDPOINT ?? '127.0.0.1:8080' });
const cache = 'demo';
try {
  await client.createCache(cache).catch((err) => {
    if (!(err instanceof AlreadyExistsError)) throw err;
  });
  for (const key of ['user:1', 'recent', 'tags', 'scores']) await client.delete(cache, key);

  // Dictionaries: fields of one item.
  await client.dictionarySetFields(cache, 'user:1', { name: 'Ada', visits: '0' });
  await client.dictionaryIncrement(cache, 'user:1', 'visits', 2);
  console.log('dictionary', Object.fromEntries(await client.dictionaryFetchStrings(cache, 'user:1')));

  // Lists: keep the last three, fetch slices as Python does.
  for (const page of ['/', '/docs', '/pricing', '/blog']) {
    await client.listPushBack(cache, 'recent', page, { truncateFrontToSize: 3 });
  }
  console.log('list', decodeUtf8(await client.listFetch(cache, 'recent')), decodeUtf8(await client.listFetch(cache, 'recent', { start: -2 })));

  // Sets: distinct elements; refreshTtl: false keeps the TTL of the first write.
  await client.setAddElements(cache, 'tags', ['cache', 'grpc'], { ttlMs: 60_000 });
  await client.setAddElements(cache, 'tags', ['cache', 'rust'], { ttlMs: 600_000, refreshTtl: false });
  console.log('set', decodeUtf8(await client.setFetch(cache, 'tags')).sort(), await client.setContainsElement(cache, 'tags', 'rust'));

  // Sorted sets: a leaderboard.
  await client.sortedSetPutElements(cache, 'scores', [['ada', 31], ['bob', 12], ['cy', 27]]);
  await client.sortedSetIncrementScore(cache, 'scores', 'bob', 20);
  const top = await client.sortedSetFetchByRank(cache, 'scores', { end: 2, order: 'descending' });
  console.log('sorted set', top.map(({ value, score }) => `${Buffer.from(value)}=${score}`), await client.sortedSetGetRank(cache, 'scores', 'cy'));

  // A missing collection reads as empty.
  console.log('missing', await client.listLength(cache, 'nothing'), await client.dictionaryFetch(cache, 'nothing'));
} finally {
  client.close();
}
