// The official JS SDK's own retry job (its `.github/workflows/retry-tests.yml`:
// `npm run integration-test-retry` in packages/client-sdk-nodejs), unchanged,
// against jiffy-server in momento-local's place: one server with
// `--enable-fault-injection` (the middleware's fault headers) and
// `--admin-listen` (its TestAdminClient's /block and /unblock).
//
// The upstream sources: $JIFFY_UPSTREAM_JS if set (a checkout of
// momentohq/client-sdk-javascript), else a clone of UPSTREAM_COMMIT made in
// target/upstream/ on the first run (outside this folder, whose `node --test`
// would run the SDK's own test files). The three packages the job builds (core,
// common-integration-tests, client-sdk-nodejs) are built once, as the
// job's scripts/build-package.sh does, lint left out.
//
//   node upstream-retry.mjs [extra jest arguments]

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

import { REPO_ROOT, startJiffyServer } from './support/jiffy-server.mjs';

const UPSTREAM_REPO = 'https://github.com/momentohq/client-sdk-javascript';
// The newest main when wired (after v1.118.0); its retry job has 58 tests.
const UPSTREAM_COMMIT = '30fa5d26bb1adbe8e0fe74c963d21f4f0f8f90fa';
const PACKAGES = ['core', 'common-integration-tests', 'client-sdk-nodejs'];

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
  }
}

function checkout() {
  if (process.env.JIFFY_UPSTREAM_JS) return resolve(process.env.JIFFY_UPSTREAM_JS);
  const dir = resolve(REPO_ROOT, 'target/upstream/client-sdk-javascript');
  if (!existsSync(resolve(dir, '.git'))) {
    mkdirSync(dir, { recursive: true });
    run('git', ['init', '--quiet', dir]);
    run('git', ['-C', dir, 'fetch', '--quiet', '--depth', '1', UPSTREAM_REPO, UPSTREAM_COMMIT]);
    run('git', ['-C', dir, 'checkout', '--quiet', 'FETCH_HEAD']);
  }
  return dir;
}

function build(root) {
  for (const name of PACKAGES) {
    const dir = resolve(root, 'packages', name);
    if (existsSync(resolve(dir, 'dist'))) continue;
    run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir });
    run('npm', ['run', 'build'], { cwd: dir });
  }
}

const root = checkout();
build(root);
const server = await startJiffyServer([
  '--enable-fault-injection',
  '--admin-listen',
  '127.0.0.1:0',
  // momento-local's cadence, which the subscription tests' timings assume:
  // their stream errors come after 3 messages (heartbeats, on a quiet
  // topic), within 3 s and before the 5 s deadline of a first Subscribe,
  // and the admin-port test waits for 5 heartbeats. Momento promises no
  // cadence; the server's default (5 s) would end those streams by the
  // deadline instead, as a lost connection.
  '--topic-heartbeat-interval',
  '1s',
]);
let status;
try {
  const jest = spawnSync(
    'npx',
    // As the job's `npm run integration-test-retry`; --forceExit as its
    // topic tests leave streams open that would keep jest from exiting.
    [
      'jest',
      'retry/',
      '--maxWorkers',
      '1',
      '--forceExit',
      ...process.argv.slice(2),
      '--',
      'useConsistentReads',
    ],
    {
      cwd: resolve(root, 'packages/client-sdk-nodejs'),
      stdio: 'inherit',
      env: {
        ...process.env,
        MOMENTO_HOSTNAME: server.host,
        MOMENTO_PORT: String(server.port),
        TEST_ADMIN_ENDPOINT: server.host,
        TEST_ADMIN_PORT: String(server.adminPort),
      },
    },
  );
  status = jest.status ?? 1;
} finally {
  const code = await server.stop();
  if (code !== 0) {
    console.error(`jiffy-server exited with ${code}; stderr:\n${server.stderr()}`);
    status = 1;
  }
}
process.exit(status);
