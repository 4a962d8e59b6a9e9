// Starts and stops a jiffy-server child process on a free port.

import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const DEFAULT_SERVER_BIN = resolve(REPO_ROOT, 'target/release/jiffy-server');
const STARTUP_TIMEOUT_MS = 20_000;
const SHUTDOWN_TIMEOUT_MS = 10_000;
const LISTENING_LINE = /^listening on 127\.0\.0\.1:(\d+)$/;
const METRICS_LINE = /^metrics listening on 127\.0\.0\.1:(\d+)$/;
const HTTP_LINE = /^http listening on 127\.0\.0\.1:(\d+)$/;
const ADMIN_LINE = /^admin listening on 127\.0\.0\.1:(\d+)$/;
// Enough stderr to explain a failed start without holding a whole log.
const STDERR_TAIL_CHARS = 16_384;

export function serverBinary() {
  return process.env.JIFFY_SERVER_BIN ?? DEFAULT_SERVER_BIN;
}

/**
 * What `jiffy-server token create` prints for an admin of every cache,
 * valid for an hour, as a user would make it: `format` is `jiffy` (the
 * token) or `momento-v1` (a key for the official SDKs).
 */
export function createAdminToken(secretFile, format) {
  return execFileSync(serverBinary(), [
    'token',
    'create',
    '--auth-secret-file',
    secretFile,
    '--caches',
    'all',
    '--role',
    'admin',
    '--expires-in',
    '1h',
    '--format',
    format,
  ])
    .toString()
    .trim();
}

/**
 * With `--metrics-listen` among `extraArgs`, `metricsPort` is the port it got;
 * with `--http-listen`, `httpPort`; with `--admin-listen`, `adminPort`.
 * @returns {Promise<{host: string, port: number, metricsPort?: number, httpPort?: number, adminPort?: number, stop: () => Promise<number|null>, stderr: () => string}>}
 */
export async function startJiffyServer(extraArgs = []) {
  const binary = serverBinary();
  if (!existsSync(binary)) {
    throw new Error(`jiffy-server binary not found at ${binary}; build it or set JIFFY_SERVER_BIN`);
  }
  const child = spawn(binary, ['--listen', '127.0.0.1:0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const exited = once(child, 'exit');
  let metricsPort;
  let httpPort;
  let adminPort;

  const port = await new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => fail('did not print its port in time'), STARTUP_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout });
    let settled = false;
    function fail(why) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`jiffy-server ${why}; stderr:\n${stderrTail}`));
    }
    lines.on('line', (line) => {
      // The metrics line, when asked for, comes before the listening one.
      const metrics = METRICS_LINE.exec(line.trim());
      if (metrics) metricsPort = Number(metrics[1]);
      const http = HTTP_LINE.exec(line.trim());
      if (http) httpPort = Number(http[1]);
      const admin = ADMIN_LINE.exec(line.trim());
      if (admin) adminPort = Number(admin[1]);
      const match = LISTENING_LINE.exec(line.trim());
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    });
    child.on('error', (err) => fail(`failed to start: ${err.message}`));
    child.on('exit', (code) => fail(`exited early with ${code}`));
  });

  return {
    host: '127.0.0.1',
    port,
    metricsPort,
    httpPort,
    adminPort,
    stderr: () => stderrTail,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), SHUTDOWN_TIMEOUT_MS);
      const [code] = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
