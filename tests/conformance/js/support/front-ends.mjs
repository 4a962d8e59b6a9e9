// Two front-ends over one shared store: each sees the other's writes, and
// the suite's clients really alternate between them.
//
// Runs only over a shared store (JIFFY_CONFORMANCE_STORE=redis-cluster).
// Were the suite to talk to one front-end only, every other case would still
// pass; these would not.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  CacheDelete,
  CacheGet,
  CacheSet,
  CreateCache,
  DeleteCache,
  ListCaches,
  MomentoErrorCode,
} from '@gomomento/sdk';

import { storeMode } from './shared-store.mjs';
import { assertIs, uniqueCacheName } from './suite.mjs';

// Enough calls that each front-end must get several of them.
const CALLS = 6;

/** The front-end's jiffy_requests_total, summed over RPCs and codes. */
async function requestsTotal({ host, metricsPort }) {
  const response = await fetch(`http://${host}:${metricsPort}/metrics`);
  assert.equal(response.status, 200);
  return (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('jiffy_requests_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

async function assertEachServesItsShare(frontEnds, calls) {
  const before = await Promise.all(frontEnds.map(requestsTotal));
  await calls();
  const after = await Promise.all(frontEnds.map(requestsTotal));
  const grown = after.map((count, i) => count - before[i]);
  const share = Math.floor(CALLS / frontEnds.length);
  assert.ok(
    grown.every((growth) => growth >= share),
    `${CALLS} calls spread as [${grown}] over ${frontEnds.length} front-ends`,
  );
}

export function registerFrontEndTests(suite) {
  const skip = storeMode() === 'embedded' && 'one front-end: the embedded store is not shared';

  describe('front-ends over a shared store', { skip }, () => {
    test('a write through one front-end is read through the other', async () => {
      const [one, other] = suite.clients;
      const name = uniqueCacheName('front-ends');
      assertIs(await one.createCache(name), CreateCache.Success);
      assertIs(await other.createCache(name), CreateCache.AlreadyExists);

      assertIs(await one.set(name, 'k', 'from-one'), CacheSet.Success);
      assert.equal(assertIs(await other.get(name, 'k'), CacheGet.Hit).valueString(), 'from-one');

      assertIs(await other.set(name, 'k', 'from-other'), CacheSet.Success);
      assert.equal(assertIs(await one.get(name, 'k'), CacheGet.Hit).valueString(), 'from-other');

      assertIs(await one.delete(name, 'k'), CacheDelete.Success);
      assertIs(await other.get(name, 'k'), CacheGet.Miss);

      assertIs(await other.deleteCache(name), DeleteCache.Success);
      const gone = assertIs(await one.get(name, 'k'), CacheGet.Error);
      assert.equal(gone.errorCode(), MomentoErrorCode.NOT_FOUND_ERROR);
    });

    for (const [label, client, frontEnds] of [
      ['client', () => suite.client, () => suite.frontEnds],
      ['smallLimitClient', () => suite.smallLimitClient, () => suite.smallLimitFrontEnds],
    ]) {
      test(`suite.${label} alternates between the front-ends`, async () => {
        await assertEachServesItsShare(frontEnds(), async () => {
          for (let i = 0; i < CALLS; i++) assertIs(await client().listCaches(), ListCaches.Success);
        });
      });
    }
  });
}
