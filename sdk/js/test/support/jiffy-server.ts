// Starts a real jiffy-server child process on free ports for integration
// tests: `--listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0` (and with
// `{ protosocket: true }`, `--protosocket-listen 127.0.0.1:0`), then parses
// the lines it prints. `restart()` brings it back on the same ports.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const STARTUP_TIMEOUT_MS = 20_000;
const LISTENING = /^listening on ([\d.]+):(\d+)$/;
const METRICS_LISTENING = /^metrics listening on ([\d.]+):(\d+)$/;
const PROTOSOCKET_LISTENING = /^protosocket listening on ([\d.]+):(\d+)$/;

export function serverBinary(): string {
  return process.env.JIFFY_SERVER_BIN ?? resolve(REPO_ROOT, 'target/release/jiffy-server');
}

export interface RunningServer {
  host: string;
  port: number;
  /** host:port, the form JIFFY_ENDPOINT and the client options take. */
  endpoint: string;
  metricsPort: number;
  /** host:port of the protosocket port, when started with `{ protosocket: true }`. */
  protosocketEndpoint: string | undefined;
  /** Prometheus text from /metrics. */
  metrics(): Promise<string>;
  /** One gauge or counter value by exact name (no labels), or undefined. */
  metric(name: string): Promise<number | undefined>;
  stop(): Promise<void>;
  /** SIGKILL: the process dies at once, without draining its calls. */
  kill(): Promise<void>;
  /** Stops the process and starts a new one on the same data port. */
  restart(): Promise<void>;
}

interface Spawned {
  child: ChildProcess;
  port: number;
  metricsPort: number;
  protosocketPort: number;
}

export interface StartOptions {
  /** Also serve protosocket on a free port (`--protosocket-listen`). */
  protosocket?: boolean;
}

async function spawnServer(listen: string, extraArgs: readonly string[]): Promise<Spawned> {
  const binary = serverBinary();
  if (!existsSync(binary)) {
    throw new Error(`jiffy-server not found at ${binary}: run \`make build\` or set JIFFY_SERVER_BIN`);
  }
  const child = spawn(binary, ['--listen', listen, '--metrics-listen', '127.0.0.1:0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8192);
  });
  return new Promise<Spawned>((resolveSpawn, reject) => {
    let metricsPort = 0;
    let protosocketPort = 0;
    const timer = setTimeout(() => fail('did not print its port in time'), STARTUP_TIMEOUT_MS);
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`jiffy-server ${why}; stderr:\n${stderr}`));
    };
    child.on('error', (err) => fail(`failed to start: ${err.message}`));
    child.on('exit', (code) => fail(`exited early with ${code}`));
    createInterface({ input: child.stdout }).on('line', (raw) => {
      const line = raw.trim();
      const metrics = METRICS_LISTENING.exec(line);
      if (metrics) metricsPort = Number(metrics[2]);
      const protosocket = PROTOSOCKET_LISTENING.exec(line);
      if (protosocket) protosocketPort = Number(protosocket[2]);
      const data = LISTENING.exec(line);
      if (data) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.removeAllListeners('error');
        resolveSpawn({ child, port: Number(data[2]), metricsPort, protosocketPort });
      }
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export async function startServer(extraArgs: readonly string[] = [], options: StartOptions = {}): Promise<RunningServer> {
  const protosocketArgs = (port: number): string[] => (options.protosocket ? ['--protosocket-listen', `127.0.0.1:${port}`] : []);
  let current = await spawnServer('127.0.0.1:0', [...protosocketArgs(0), ...extraArgs]);
  const server: RunningServer = {
    host: '127.0.0.1',
    port: current.port,
    endpoint: `127.0.0.1:${current.port}`,
    metricsPort: current.metricsPort,
    protosocketEndpoint: options.protosocket ? `127.0.0.1:${current.protosocketPort}` : undefined,
    async metrics() {
      const response = await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`);
      return response.text();
    },
    async metric(name) {
      const text = await server.metrics();
      for (const line of text.split('\n')) {
        const [key, value] = line.split(' ');
        if (key === name && value !== undefined) return Number(value);
      }
      return undefined;
    },
    async stop() {
      await stopChild(current.child);
    },
    async kill() {
      const child = current.child;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
    async restart() {
      await stopChild(current.child);
      // The port was just freed; retry briefly in case the OS holds it.
      for (let attempt = 0; ; attempt += 1) {
        try {
          current = await spawnServer(server.endpoint, [...protosocketArgs(current.protosocketPort), ...extraArgs]);
          server.metricsPort = current.metricsPort;
          return;
        } catch (err) {
          if (attempt >= 20) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    },
  };
  return server;
}
