// Which store the suite's front-ends use, and the Redis Cluster when it is that.
//
// JIFFY_CONFORMANCE_STORE unset (or `embedded`): one jiffy-server with its
// embedded store, as always. `redis-cluster`: a real 6-node Redis Cluster from
// tests/redis-cluster.sh and two jiffy-servers over it, so every case also
// checks that one front-end sees what another wrote.

import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { REPO_ROOT } from './jiffy-server.mjs';

export const STORE_VARIABLE = 'JIFFY_CONFORMANCE_STORE';
const CLUSTER_SCRIPT = resolve(REPO_ROOT, 'tests/redis-cluster.sh');
// Creating a cluster waits for the nodes to agree on slots: seconds, not minutes.
const CLUSTER_START_TIMEOUT_MS = 120_000;
const CLUSTER_STOP_TIMEOUT_MS = 60_000;
// Two is enough for "a write through one is read through the other".
const CLUSTER_FRONT_ENDS = 2;

const run = promisify(execFile);

/** @returns {'embedded' | 'redis-cluster'} */
export function storeMode() {
  const mode = process.env[STORE_VARIABLE] || 'embedded';
  if (mode !== 'embedded' && mode !== 'redis-cluster') {
    throw new Error(`${STORE_VARIABLE}=${mode}: expected \`embedded\` or \`redis-cluster\``);
  }
  return mode;
}

/**
 * The store every front-end of the run uses: its --store arguments, how many
 * front-ends share it, and how to stop it.
 * @returns {Promise<{args: string[], frontEnds: number, shared: boolean, stop: () => Promise<void>}>}
 */
export async function startStore() {
  if (storeMode() === 'embedded') {
    return { args: [], frontEnds: 1, shared: false, stop: async () => {} };
  }
  const cluster = await startRedisCluster();
  return {
    args: ['--store', `redis-cluster://${cluster.nodes}`],
    frontEnds: CLUSTER_FRONT_ENDS,
    shared: true,
    stop: cluster.stop,
  };
}

async function startRedisCluster() {
  const dir = await mkdtemp(join(tmpdir(), 'jiffy-conformance-redis-'));
  const script = (command, timeout) => run('bash', [CLUSTER_SCRIPT, command, dir], { timeout });
  try {
    const { stdout } = await script('start', CLUSTER_START_TIMEOUT_MS);
    // The script's contract: the node list is its last stdout line.
    const nodes = stdout.trim().split('\n').at(-1).trim();
    return {
      nodes,
      async stop() {
        await script('stop', CLUSTER_STOP_TIMEOUT_MS);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    // The nodes' logs stay in `dir` to explain the failure.
    await script('stop', CLUSTER_STOP_TIMEOUT_MS).catch(() => {});
    throw new Error(`${CLUSTER_SCRIPT} start ${dir} failed: ${error.message}\n${error.stderr ?? ''}`);
  }
}
