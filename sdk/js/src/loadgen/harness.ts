// The measuring loop, independent of the client under test: a Driver says
// how to get and set; the harness decides when, times it, and counts.
//
// Closed loop: `concurrency` workers, each with one request in flight.
// Open loop (`rate` > 0): requests leave on a fixed schedule whatever the
// answers do, and each is timed from its intended send time (as wrk2
// does), so a stall shows up as latency instead of as fewer requests.
// Its warm-up runs in closed loop, and the schedule starts with the window
// once the warm-up calls have drained (see runLoad):
// a cold client (JIT, connections) falls behind an open schedule in its
// first second, and at 80% of its peak the backlog took longer than the
// 2 s warm-up to drain, so it used to be measured as a ~0.4 s tail.
// Only requests sent and completed inside the measured window are counted.
//
// hdr-histogram-js is an optional peer dependency of @jiffy/sdk (the client
// does not need it), imported when a run starts: loadHistograms().
import type * as hdr from 'hdr-histogram-js';
import { importOptional } from '../optional-dependency.js';
import type { LoadgenConfig } from './options.js';
import { keyName, operations } from './workloads.js';

/** One client under test. */
export interface Driver {
  sdk: string;
  sdkVersion: string;
  runtime: string;
  get(key: string): Promise<unknown>;
  set(key: string, value: Uint8Array): Promise<unknown>;
  // The collection workloads' operations (workloads.ts); a driver without
  // them refuses those workloads.
  dictionaryGet?(key: string, field: string): Promise<unknown>;
  dictionarySet?(key: string, field: string, value: Uint8Array): Promise<unknown>;
  listFetch?(key: string): Promise<unknown>;
  listPushBack?(key: string, value: Uint8Array, keep: number): Promise<unknown>;
  sortedSetTop?(key: string, count: number): Promise<unknown>;
  sortedSetPut?(key: string, member: string, score: number): Promise<unknown>;
  /** gRPC status name of a failure, e.g. 'UNAVAILABLE'. */
  errorName(err: unknown): string;
  /** TCP connections to the server now, if the driver knows better than /proc. */
  connections?(): number | undefined;
  /**
   * Channels and cap as actually configured, for the report; a driver that
   * took `--max-concurrent-requests auto` says 'auto' (the others are refused).
   */
  effective: { channels: number | undefined; maxConcurrentRequests: number | 'auto' | undefined };
  /** The client's in-flight cap now; the harness samples it into the report. */
  inFlightLimit?(): number;
  /** What carried get and set, for the report when `--transport` was auto. */
  transport?: string;
  /** True if the driver sends `--delay-ms` (the others are refused). */
  faultDelay?: boolean;
  close(): Promise<void> | void;
}

/**
 * Imports hdr-histogram-js; rejects with an InvalidArgumentError naming
 * `npm install hdr-histogram-js` when it is not installed.
 */
export function loadHistograms(): Promise<typeof hdr> {
  return importOptional('hdr-histogram-js', 'the load generator', () => import('hdr-histogram-js'));
}

/** Milliseconds between two samples of the client's in-flight limit (the report's in_flight_limit). */
export const LIMIT_SAMPLE_INTERVAL_MS = 100;

// Microseconds, 1 us to 60 s, 3 significant digits.
const newHistogram = (library: typeof hdr): hdr.Histogram =>
  library.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });

export interface RunResult {
  requests: number;
  elapsedS: number;
  errors: Record<string, number>;
  all: hdr.Histogram;
  byOp: { get: hdr.Histogram; set: hdr.Histogram };
  cpuPercent: number;
  /** [seconds since the load began, limit], when the driver can tell. */
  inFlightLimit: [number, number][] | undefined;
}

export interface ProgressSink {
  (line: string): void;
}

interface State {
  measuring: boolean;
  /** Open loop: the closed-loop warm-up is over and its workers stop. */
  warmupOver: boolean;
  /** When the measured window began; requests sent earlier are not counted. */
  windowStartNs: bigint;
  stopping: boolean;
  completed: number;
  errors: Record<string, number>;
  all: hdr.Histogram;
  get: hdr.Histogram;
  set: hdr.Histogram;
  intervalCount: number;
}

function makeOperation(driver: Driver, config: LoadgenConfig, state: State): (startedNs: bigint) => Promise<void> {
  const keys = Array.from({ length: config.keyspace }, (_unused, i) => keyName(config.workload, i));
  const { read, write } = operations(driver, config.workload);
  const value = new Uint8Array(config.valueSize).fill(120);
  return async (startedNs) => {
    const key = keys[Math.floor(Math.random() * keys.length)]!;
    const isGet = Math.random() < config.getRatio;
    let failed: unknown;
    try {
      await (isGet ? read(key) : write(key, value));
    } catch (err) {
      failed = err ?? 'UNKNOWN';
    }
    if (!state.measuring || startedNs < state.windowStartNs) return;
    const micros = Math.max(1, Number((process.hrtime.bigint() - startedNs) / 1000n));
    state.completed += 1;
    state.intervalCount += 1;
    state.all.recordValue(micros);
    (isGet ? state.get : state.set).recordValue(micros);
    if (failed !== undefined) {
      const name = driver.errorName(failed);
      state.errors[name] = (state.errors[name] ?? 0) + 1;
    }
  };
}

async function closedLoop(
  operation: (startedNs: bigint) => Promise<void>,
  concurrency: number,
  done: () => boolean,
): Promise<void> {
  const worker = async (): Promise<void> => {
    while (!done()) await operation(process.hrtime.bigint());
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function openLoop(operation: (startedNs: bigint) => Promise<void>, rate: number, state: State): Promise<void> {
  const pending = new Set<Promise<void>>();
  const startNs = process.hrtime.bigint();
  const intervalNs = 1e9 / rate;
  let sent = 0;
  while (!state.stopping) {
    const nowNs = process.hrtime.bigint();
    const due = Math.floor(Number(nowNs - startNs) / intervalNs) + 1;
    for (; sent < due; sent += 1) {
      const intendedNs = startNs + BigInt(Math.round(sent * intervalNs));
      const call = operation(intendedNs).finally(() => pending.delete(call));
      pending.add(call);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
}

export async function runLoad(driver: Driver, config: LoadgenConfig, progress?: ProgressSink): Promise<RunResult> {
  const library = await loadHistograms();
  const state: State = {
    measuring: false,
    warmupOver: false,
    windowStartNs: 0n,
    stopping: false,
    completed: 0,
    errors: {},
    all: newHistogram(library),
    get: newHistogram(library),
    set: newHistogram(library),
    intervalCount: 0,
  };
  const operation = makeOperation(driver, config, state);
  const open = config.rate > 0;
  // Closed loop throughout, or (open loop) only until the window opens.
  const closed = closedLoop(operation, config.concurrency, () => state.stopping || state.warmupOver);

  const sleep = (s: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, s * 1000));
  const readLimit = driver.inFlightLimit?.bind(driver);
  const limits: [number, number][] | undefined = readLimit === undefined ? undefined : [];
  let limitSampler: NodeJS.Timeout | undefined;
  if (readLimit !== undefined && limits !== undefined) {
    const began = performance.now();
    const sampleLimit = (): void => {
      limits.push([Math.round(performance.now() - began) / 1000, readLimit()]);
    };
    sampleLimit();
    limitSampler = setInterval(sampleLimit, LIMIT_SAMPLE_INTERVAL_MS);
  }
  let ticker: NodeJS.Timeout | undefined;
  if (progress !== undefined) {
    const totalS = config.warmupS + config.durationS;
    const began = Date.now();
    ticker = setInterval(() => {
      const elapsed = (Date.now() - began) / 1000;
      const phase = elapsed < config.warmupS ? 'warmup' : 'measure';
      const width = 30;
      const filled = Math.min(width, Math.round((elapsed / totalS) * width));
      progress(`[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${elapsed.toFixed(0)}/${totalS}s ${phase} ${state.intervalCount} req/s`);
      state.intervalCount = 0;
    }, 1000);
  }
  await sleep(config.warmupS);
  if (open) {
    // The warm-up's calls (up to `concurrency`, most queued behind the
    // client's in-flight cap) drain before the schedule starts: started on
    // top of them, its first calls timed their queue, a p99 of 30-90 ms at
    // 1,000/s with 1,000 warm-up workers (the number jiffy-tune passes).
    state.warmupOver = true;
    await closed;
  }
  state.windowStartNs = process.hrtime.bigint();
  state.measuring = true;
  const scheduled = open ? openLoop(operation, config.rate, state) : Promise.resolve();
  const cpuStart = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  await sleep(config.durationS);
  state.measuring = false;
  const elapsedS = Number(process.hrtime.bigint() - wallStart) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  state.stopping = true;
  if (ticker !== undefined) clearInterval(ticker);
  if (limitSampler !== undefined) clearInterval(limitSampler);
  await Promise.all([closed, scheduled]);
  return {
    requests: state.completed,
    elapsedS,
    errors: state.errors,
    all: state.all,
    byOp: { get: state.get, set: state.set },
    cpuPercent: ((cpu.user + cpu.system) / 1000 / (elapsedS * 1000)) * 100,
    inFlightLimit: limits,
  };
}
