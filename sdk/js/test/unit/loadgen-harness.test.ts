import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Driver, runLoad } from '../../src/loadgen/harness.js';
import { parseLoadgenArgs } from '../../src/loadgen/options.js';
import { LIST_KEEP, keyName, missingOperations, operations } from '../../src/loadgen/workloads.js';

/**
 * A driver whose calls each take `callMs`, counting how many are outstanding
 * at once, separately before and after `windowOpen()` is called.
 */
function countingDriver(callMs: number) {
  let outstanding = 0;
  let measuring = false;
  const most = { warmup: 0, window: 0 };
  const call = async (): Promise<void> => {
    outstanding += 1;
    const phase = measuring ? 'window' : 'warmup';
    most[phase] = Math.max(most[phase], outstanding);
    await new Promise((resolve) => setTimeout(resolve, callMs));
    outstanding -= 1;
  };
  const driver: Driver = {
    sdk: 'test',
    sdkVersion: '0',
    runtime: 'node',
    get: call,
    set: call,
    errorName: () => 'UNKNOWN',
    effective: { channels: 1, maxConcurrentRequests: undefined },
    close: () => undefined,
  };
  return { driver, most, windowOpen: () => (measuring = true) };
}

test('an open-loop warm-up runs closed loop, so no backlog builds before the window', async () => {
  // 20 ms calls at 1,000 rps keep ~20 outstanding on an open schedule;
  // a closed-loop warm-up with 2 workers never has more than 2.
  const { driver, most, windowOpen } = countingDriver(20);
  const config = parseLoadgenArgs(['--rate', '1000', '--concurrency', '2', '--warmup', '0.3', '--duration', '0.3']);
  const opening = setTimeout(windowOpen, 290);
  const result = await runLoad(driver, config);
  clearTimeout(opening);
  assert.ok(most.warmup <= 2, `warm-up had ${most.warmup} calls outstanding`);
  assert.ok(most.window > 2, `the open loop never ran (${most.window} outstanding at most)`);
  assert.ok(result.requests > 0);
});

test('an open-loop window opens once the warm-up calls have drained', async () => {
  // 200 warm-up workers keep 200 calls of 50 ms outstanding; started on top
  // of them (behind a client's cap, in real use), the schedule's first calls
  // would time their queue. So a call starts with none outstanding twice:
  // the very first, and the schedule's first.
  let outstanding = 0;
  let emptyStarts = 0;
  const call = async (): Promise<void> => {
    if (outstanding === 0) emptyStarts += 1;
    outstanding += 1;
    await new Promise((resolve) => setTimeout(resolve, 50));
    outstanding -= 1;
  };
  const { driver } = countingDriver(0);
  const config = parseLoadgenArgs(['--rate', '100', '--concurrency', '200', '--warmup', '0.2', '--duration', '0.2']);
  const result = await runLoad({ ...driver, get: call, set: call }, config);
  assert.equal(emptyStarts, 2, 'the schedule started while warm-up calls were outstanding');
  assert.ok(result.requests > 0);
});

test('requests sent before the window are not counted, even if they end inside it', async () => {
  // The first call (a warm-up call) takes 300 ms and ends inside the window;
  // every later call takes 5 ms.
  let calls = 0;
  const call = async (): Promise<void> => {
    calls += 1;
    await new Promise((resolve) => setTimeout(resolve, calls === 1 ? 300 : 5));
  };
  const { driver } = countingDriver(0);
  const config = parseLoadgenArgs(['--concurrency', '2', '--warmup', '0.1', '--duration', '0.5']);
  const result = await runLoad({ ...driver, get: call, set: call }, config);
  assert.ok(result.requests > 0);
  assert.ok(result.all.maxValue < 200_000, `a warm-up call was counted: max ${result.all.maxValue} us`);
});

test('a workload names the driver operations it needs, and its keys are its own', async () => {
  const { driver } = countingDriver(0);
  assert.deepEqual(missingOperations(driver, 'scalar'), []);
  assert.deepEqual(missingOperations(driver, 'dictionary'), ['dictionaryGet', 'dictionarySet']);
  assert.deepEqual(missingOperations(driver, 'sorted-set'), ['sortedSetTop', 'sortedSetPut']);
  assert.equal(keyName('scalar', 7), 'key-7');
  assert.equal(keyName('list', 7), 'key-list-7');

  const calls: string[] = [];
  const withList: Driver = {
    ...driver,
    listFetch: (key) => Promise.resolve(calls.push(`fetch ${key}`)),
    listPushBack: (key, _value, keep) => Promise.resolve(calls.push(`push ${key} keep ${keep}`)),
  };
  const { read, write } = operations(withList, 'list');
  await read('k');
  await write('k', new Uint8Array(1));
  assert.deepEqual(calls, ['fetch k', `push k keep ${LIST_KEEP}`]);
});
