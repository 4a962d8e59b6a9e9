// The server killed (SIGKILL) under load and restarted on the same port, on
// both transports. One client carries a steady load from 50 workers
// throughout. While the server is down every call must fail fast with
// ConnectionError; once it is back the same client object must succeed
// again; no call may outlive its deadline; and no Increment made while the
// server was down may reach the new server later (a hidden retry or replay
// of a non-idempotent call).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CacheClient, CacheError, CacheNotFoundError, ConnectionError } from '../../src/index.js';
import { startServer, type RunningServer } from '../support/jiffy-server.js';
import { TRANSPORTS } from '../support/transports.js';

const DEADLINE_MS = 3_000;
// Scheduling slack on a busy two-core machine; a hung call overshoots it by far.
const HANG_MARGIN_MS = 1_000;
// "Fast" while the server is down: well under the deadline.
const FAIL_FAST_MS = DEADLINE_MS / 2;
const WORKERS = 50;
const LOAD_BEFORE_KILL_MS = 1_000;
const DOWN_FOR_MS = 1_500;
const RECOVERY_LIMIT_MS = 5_000;
// Longer than the longest reconnect backoff of a channel (grpc-js: 2 s).
const LOAD_AFTER_RECOVERY_MS = 2_500;
const CACHE = 'faults';
const OPS = ['set', 'get', 'increment'] as const;
const INCREMENTS_ANSWERED = 'jiffy_request_duration_seconds_count{rpc="Increment",transport="grpc"}';

interface Outcome {
  op: (typeof OPS)[number];
  started: number;
  ended: number;
  error: CacheError | undefined;
}

const took = (o: Outcome): number => o.ended - o.started;

async function oneCall(client: CacheClient, op: Outcome['op'], worker: number): Promise<void> {
  if (op === 'set') await client.set(CACHE, `k${worker}`, 'v');
  else if (op === 'get') await client.get(CACHE, `k${worker}`);
  else await client.increment(CACHE, `n${worker}`);
}

async function work(client: CacheClient, worker: number, running: () => boolean, outcomes: Outcome[]): Promise<void> {
  for (let sent = 0; running(); sent += 1) {
    const op = OPS[sent % OPS.length]!;
    const started = performance.now();
    let error: CacheError | undefined;
    try {
      await oneCall(client, op, worker);
    } catch (err) {
      if (!(err instanceof CacheError)) throw err;
      error = err;
    }
    outcomes.push({ op, started, ended: performance.now(), error });
    // Failures come back at once; a short pause keeps 50 workers from
    // spinning the CPU the restarting server needs.
    if (error !== undefined) await sleep(10);
  }
}

/** The restarted server is empty: create the cache as soon as it answers. */
async function recreateCache(client: CacheClient): Promise<void> {
  const giveUpAt = performance.now() + RECOVERY_LIMIT_MS;
  for (;;) {
    try {
      await client.createCache(CACHE);
      return;
    } catch (err) {
      if (!(err instanceof ConnectionError) || performance.now() > giveUpAt) throw err;
      await sleep(50);
    }
  }
}

for (const transport of TRANSPORTS) {
  describe(`SIGKILL under load over ${transport}`, () => {
    let server: RunningServer;

    before(async () => {
      server = await startServer();
    });

    after(async () => {
      await server?.stop();
    });

    test('calls fail fast while down, the same client recovers, no Increment is replayed', async () => {
      // No in-flight cap: a call queued behind the cap while the server was
      // down is sent for the first time after the restart. That is right,
      // but it would blur the count of Increments below.
      const client = await CacheClient.create({
        endpoint: server.endpoint,
        transport,
        deadlineMs: DEADLINE_MS,
        maxConcurrentRequests: 0,
      });
      const outcomes: Outcome[] = [];
      let running = true;
      let [killed, restarting, restarted, recovered] = [0, 0, 0, 0];
      try {
        await client.createCache(CACHE);
        const workers = Array.from({ length: WORKERS }, (_, i) => work(client, i, () => running, outcomes));
        await sleep(LOAD_BEFORE_KILL_MS);
        await server.kill();
        killed = performance.now();
        await sleep(DOWN_FOR_MS);
        restarting = performance.now();
        await server.restart();
        restarted = performance.now();
        await recreateCache(client);
        recovered = performance.now();
        await sleep(LOAD_AFTER_RECOVERY_MS);
        running = false;
        await Promise.all(workers);
      } finally {
        client.close();
      }
      const incrementsOnNewServer = await server.metric(INCREMENTS_ANSWERED);

      const slowest = outcomes.reduce((a, b) => (took(b) > took(a) ? b : a));
      assert.ok(took(slowest) <= DEADLINE_MS + HANG_MARGIN_MS, `a call hung past its deadline: ${took(slowest)} ms`);

      const unexpected = outcomes.filter(
        (o) => o.error !== undefined && !(o.error instanceof ConnectionError) && !(o.error instanceof CacheNotFoundError),
      );
      assert.deepEqual(unexpected.slice(0, 3), [], 'errors other than ConnectionError');

      const whileDown = outcomes.filter((o) => o.started >= killed && o.ended <= restarting);
      assert.ok(whileDown.length >= WORKERS, 'the load did not keep going while the server was down');
      assert.ok(whileDown.every((o) => o.error instanceof ConnectionError));
      assert.ok(Math.max(...whileDown.map(took)) < FAIL_FAST_MS);

      // Recovered: the last failure came soon after the restart (a second
      // channel may still sit out its reconnect backoff after the first one
      // answers), and the load ran clean from then on.
      assert.ok(recovered - restarted < RECOVERY_LIMIT_MS);
      const lastFailure = Math.max(...outcomes.filter((o) => o.error !== undefined).map((o) => o.ended));
      assert.ok(lastFailure - restarted < RECOVERY_LIMIT_MS, `failures until ${lastFailure - restarted} ms after the restart`);
      assert.ok(outcomes.filter((o) => o.started > lastFailure).length >= WORKERS);

      // Every Increment the new server answered was sent after it started: no
      // call from the outage was retried or replayed into it.
      const answered = outcomes.filter(
        (o) => o.op === 'increment' && o.started >= restarting && !(o.error instanceof ConnectionError),
      );
      assert.equal(incrementsOnNewServer, answered.length);
      const downIncrementsThatSucceeded = outcomes.filter(
        (o) => o.op === 'increment' && o.started >= killed && o.started < restarting && o.error === undefined,
      );
      assert.deepEqual(downIncrementsThatSucceeded, []);
    });
  });
}
