// Throwaway jiffy-servers for your own tests (`@jiffy/sdk/testing`):
// startTestServer() runs one on a free port of 127.0.0.1 and resolves once it
// listens.
//
//   import { startTestServer } from '@jiffy/sdk/testing';
//   const server = await startTestServer();
//   const client = await CacheClient.create({ endpoint: server.endpoint });
//   ...
//   client.close();
//   await server.stop();
//
// The binary is $JIFFY_SERVER_BIN when set, else `jiffy-server` on PATH,
// else the build of the jiffy checkout the tests run in
// (`target/release/jiffy-server` in the working directory or above), as in
// the Python SDK's jiffy.testing; without any the error says how to get one.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /**
   * More flags for the server, e.g. `['--max-memory', '64MiB']`; the
   * listening address is startTestServer's to choose.
   * @default []
   */
  args?: readonly string[];
  /**
   * The jiffy-server binary to run.
   * @default $JIFFY_SERVER_BIN, else `jiffy-server` on PATH, else the checkout's `target/release/jiffy-server`
   */
  binary?: string;
  /**
   * How long the server may take to say where it listens; it takes milliseconds.
   * @default 30000
   */
  startupTimeoutMs?: number;
}

/** A running throwaway server. */
export interface TestServer {
  /** `127.0.0.1:PORT`: the form CacheClient's `endpoint` and JIFFY_ENDPOINT take. */
  readonly endpoint: string;
  readonly host: string;
  readonly port: number;
  /** SIGTERM (SIGKILL after 10 s); resolves once the process has exited. Safe to call twice. */
  stop(): Promise<void>;
}

const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const LISTENING = /^listening on 127\.0\.0\.1:(\d+)$/;
const STDERR_KEPT = 8192;

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where a jiffy checkout's `cargo build --release` (`make build`) puts the server. */
const CHECKOUT_BUILD = join('target', 'release', 'jiffy-server');

/**
 * The jiffy-server to run: `env.JIFFY_SERVER_BIN`, else `jiffy-server` on
 * `env.PATH`, else `target/release/jiffy-server` in `cwd` or the nearest
 * directory above it that has one (a jiffy checkout's build).
 */
export function findServerBinary(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const configured = env.JIFFY_SERVER_BIN;
  if (configured) {
    if (!isExecutableFile(configured)) {
      throw new Error(`JIFFY_SERVER_BIN is '${configured}', which is not an executable file`);
    }
    return configured;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir || '.', 'jiffy-server');
    if (isExecutableFile(candidate)) return candidate;
  }
  for (let dir = cwd; ; dir = dirname(dir)) {
    const candidate = join(dir, CHECKOUT_BUILD);
    if (isExecutableFile(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new Error(
    `jiffy-server not found: JIFFY_SERVER_BIN is unset, jiffy-server is not on PATH, and there is no ` +
      `${CHECKOUT_BUILD} in ${cwd} or above. Build it in a jiffy checkout with ` +
      '`cargo build --release -p jiffy-server` (or `make build`), then run the tests inside the checkout ' +
      `or set JIFFY_SERVER_BIN to the path of its ${CHECKOUT_BUILD}`,
  );
}

/** Starts a jiffy-server on a free port of 127.0.0.1; resolves once it listens. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const binary = options.binary ?? findServerBinary();
  const args = ['--listen', '127.0.0.1:0', ...(options.args ?? [])];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  // A test run that ends without stop() must not leave the server behind.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const port = await new Promise<number>((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      process.removeListener('exit', killOnExit);
      child.kill('SIGKILL');
      const log = stderr.trim() ? `its log ends:\n${stderr.trim()}` : 'its log is empty';
      reject(new Error(`jiffy-server did not start: ${why}\n  ${[binary, ...args].join(' ')}\n${log}`));
    };
    const timeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const timer = setTimeout(() => fail(`printed no 'listening on' line within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (err) => fail(err.message));
    // 'close' comes after 'exit' and the end of stdout and stderr: the log is whole.
    child.once('close', (code, signal) => fail(`exited with ${code === null ? signal : `status ${code}`}`));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = LISTENING.exec(line.trim());
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('close');
        child.removeAllListeners('error');
        resolve(Number(match[1]));
      }
    });
  });

  // The server no longer keeps this process alive (a test runner waits for
  // that): without stop(), it goes at exit with the listener above.
  child.unref();
  (child.stdout as Socket).unref();
  (child.stderr as Socket).unref();
  const exited = once(child, 'exit');
  return {
    endpoint: `127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    async stop() {
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
