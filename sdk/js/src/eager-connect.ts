// Eager connection: connect every data channel before the first call, and
// when that fails, say why. The rules are the Python SDK's
// (_async_transport.py connect, _connect_diagnosis.py):
//
// - an unknown host, TLS spoken to a plaintext server (or the reverse) and an
//   untrusted certificate fail at once: waiting cannot cure them;
// - a refused connection is retried for REFUSED_GRACE_MS, so a server started
//   together with its client (a compose file, a test) gets that long to
//   listen, and a wrong port still fails within about a second;
// - only a server that never answers waits the whole `eagerConnectTimeoutMs`,
//   and only then does the message say "within N ms".
//
// A transport reports a failed connect as a StatusError whose text is the
// socket's (ECONNREFUSED, a TLS alert, or for grpc-js nothing at all), so the
// cause is found by a probe of our own with node:dns, node:net and node:tls:
// resolve the name, open a TCP connection, then ask which protocol the server
// speaks, TLS (a handshake) or plaintext HTTP/2 (the 24-byte connection
// preface and an empty SETTINGS frame, RFC 9113 section 3.4, to which any
// HTTP/2 server answers with a SETTINGS frame). Those few bytes are written
// here by hand: one frame header is all the probe reads, and node:http2 hides
// whether the peer ever answered.
import { lookup } from 'node:dns/promises';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { ConnectionError } from './errors.js';
import { Status } from './status.js';
import { StatusError } from './transport/channel.js';

/** How long a refused connection is retried before create() rejects. */
export const REFUSED_GRACE_MS = 1_000;
/** The most the look for a cause may take once a connect fails. */
const PROBE_TIMEOUT_MS = 1_000;
/** Pause between connect attempts while a failure is waited through. */
const RETRY_DELAY_MS = 100;

const PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  // SETTINGS with no settings: length 0, type 0x4, flags 0, stream 0.
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
]);
const FRAME_HEADER_BYTES = 9;
const SETTINGS_FRAME_TYPE = 0x4;
const REFUSED = 'connection refused';

/** Where the probe looks: the data endpoint and its TLS settings. */
export interface ProbeTarget {
  host: string;
  port: number;
  tls: { ca?: Uint8Array; serverName?: string } | undefined;
  /**
   * What the port speaks: gRPC's HTTP/2 (the default), or protosocket
   * (`protosocketEndpoint`), where no HTTP/2 check applies.
   */
  protocol?: 'http2' | 'protosocket';
}

/** What is wrong, in a few words, and what to change. */
export interface Finding {
  cause: string;
  advice: string;
}

/**
 * Calls `connect(deadline)` until it resolves, or rejects with a
 * ConnectionError naming the cause (see the rules at the top of this file);
 * refused connections are retried for `refusedGraceMs`.
 */
export async function connectEagerly(
  connect: (deadline: number) => Promise<void>,
  target: ProbeTarget,
  timeoutMs: number,
  refusedGraceMs = REFUSED_GRACE_MS,
): Promise<void> {
  const started = Date.now();
  const giveUpAt = started + timeoutMs;
  const where = hostPort(target);
  let diagnosed = false;
  let finding: Finding | undefined;
  let retryUntil = giveUpAt;
  for (;;) {
    try {
      await connect(giveUpAt);
      return;
    } catch (err) {
      if (!(err instanceof StatusError) || err.code !== Status.UNAVAILABLE) throw otherFailure(where, timeoutMs, err);
      if (!diagnosed) {
        diagnosed = true;
        finding = await diagnose(target, Math.min(PROBE_TIMEOUT_MS, Math.max(giveUpAt - Date.now(), 100)));
        if (finding !== undefined && finding.cause !== REFUSED) throw connectError(where, finding, err);
        // Refused: a starting server may yet listen. Nothing wrong seen: the
        // server answers now. Either way try again, for the grace or until
        // the timeout.
        if (finding !== undefined) retryUntil = Math.min(giveUpAt, started + refusedGraceMs);
      }
      const left = retryUntil - Date.now();
      if (left <= 0) throw finding === undefined ? timedOut(where, timeoutMs, err) : connectError(where, finding, err);
      await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_DELAY_MS, left)));
    }
  }
}

function timedOut(where: string, timeoutMs: number, cause: StatusError): ConnectionError {
  return new ConnectionError(
    `could not connect to ${where} within ${timeoutMs} ms: ${cause.message}; ` +
      'check `endpoint` (JIFFY_ENDPOINT) or raise `eagerConnectTimeoutMs`',
    { status: 'UNAVAILABLE', cause },
  );
}

/** A connect that ended otherwise than refused or failed: its deadline passed, or the client closed. */
function otherFailure(where: string, timeoutMs: number, err: unknown): ConnectionError {
  if (err instanceof StatusError && err.code === Status.DEADLINE_EXCEEDED) return timedOut(where, timeoutMs, err);
  return new ConnectionError(`cannot connect to ${where}: ${(err as Error).message}`, { status: 'UNAVAILABLE', cause: err });
}

function connectError(where: string, finding: Finding, cause: unknown): ConnectionError {
  return new ConnectionError(`cannot connect to ${where}: ${finding.cause}; ${finding.advice}`, {
    status: 'UNAVAILABLE',
    cause,
  });
}

function hostPort({ host, port }: { host: string; port: number }): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

/** What stops a connection to `target` now, or undefined when nothing does. */
export async function diagnose(target: ProbeTarget, timeoutMs: number): Promise<Finding | undefined> {
  const { host } = target;
  try {
    await lookup(host, { all: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') {
      return { cause: `unknown host '${host}'`, advice: 'check the host name in `endpoint` (JIFFY_ENDPOINT)' };
    }
    return { cause: `cannot resolve '${host}' (${code ?? (err as Error).message})`, advice: 'check the host name and DNS' };
  }
  const probe = new Probe(target, Date.now() + timeoutMs);
  const opened = await probe.open();
  if (!(opened instanceof net.Socket)) return opened;
  opened.destroy();
  return target.tls === undefined ? probe.checkPlaintext() : probe.checkTls();
}

class Probe {
  constructor(
    private readonly target: ProbeTarget,
    private readonly giveUpAt: number,
  ) {}

  private left(): number {
    return Math.max(50, this.giveUpAt - Date.now());
  }

  /** A TCP connection, or why there is none. */
  open(): Promise<net.Socket | Finding> {
    const { host, port } = this.target;
    return new Promise((resolve) => {
      const socket = net.connect({ host, port });
      socket.setTimeout(this.left(), () => {
        socket.destroy();
        resolve({ cause: 'TCP connect failed (no answer)', advice: 'check the host, the port and any firewall' });
      });
      socket.once('connect', () => {
        socket.setTimeout(0);
        resolve(socket);
      });
      socket.once('error', (err: NodeJS.ErrnoException) => {
        socket.destroy();
        if (err.code === 'ECONNREFUSED') {
          resolve({ cause: REFUSED, advice: 'check that the server is running and listens on that port' });
        } else {
          resolve({ cause: `TCP connect failed (${err.code ?? err.message})`, advice: 'check the host, the port and any firewall' });
        }
      });
    });
  }

  /** Whether the server answers the plaintext HTTP/2 preface with SETTINGS. */
  async answersHttp2(): Promise<boolean> {
    const opened = await this.open();
    if (!(opened instanceof net.Socket)) return false;
    return new Promise((resolve) => {
      let header = Buffer.alloc(0);
      const finish = (answer: boolean): void => {
        opened.destroy();
        resolve(answer);
      };
      // Half of what is left: a TLS server may sit silent on these bytes,
      // and the handshake after this needs time too.
      opened.setTimeout(this.left() / 2, () => finish(false));
      opened.on('data', (chunk: Buffer) => {
        header = Buffer.concat([header, chunk]);
        if (header.length >= FRAME_HEADER_BYTES) finish(header[3] === SETTINGS_FRAME_TYPE);
      });
      opened.once('error', () => finish(false));
      opened.once('end', () => finish(false));
      opened.write(PREFACE);
    });
  }

  /** A TLS handshake: undefined when it completes, else its error. */
  handshake(verify: boolean): Promise<Error | undefined> {
    const { host, port, tls: settings } = this.target;
    return new Promise((resolve) => {
      const socket = tls.connect({
        host,
        port,
        ALPNProtocols: ['h2'],
        rejectUnauthorized: verify,
        ca: verify && settings?.ca !== undefined ? Buffer.from(settings.ca) : undefined,
        servername: settings?.serverName ?? (net.isIP(host) === 0 ? host : undefined),
      });
      const finish = (error?: Error): void => {
        socket.destroy();
        resolve(error);
      };
      socket.setTimeout(this.left(), () => finish(new Error('no answer to the TLS handshake')));
      socket.once('secureConnect', () => finish());
      socket.once('error', (err: Error) => finish(err));
    });
  }

  async checkPlaintext(): Promise<Finding | undefined> {
    const protosocket = this.target.protocol === 'protosocket';
    if (!protosocket && (await this.answersHttp2())) return undefined;
    const where = hostPort(this.target);
    if ((await this.handshake(false)) === undefined) {
      if (protosocket) {
        return { cause: 'the server speaks TLS', advice: 'the protosocket port takes the gRPC endpoint\'s TLS: use https:// in `endpoint` (or the `tls` option)' };
      }
      return { cause: 'the server speaks TLS', advice: `use https://${where} (or the \`tls\` option)` };
    }
    if (protosocket) {
      // TCP connects, no TLS, and yet the protosocket connection closed unanswered.
      return {
        cause: 'the server closed the connection without answering protosocket',
        advice: "check that `protosocketEndpoint` is jiffy-server's --protosocket-listen address",
      };
    }
    return { cause: 'the server does not answer HTTP/2', advice: 'check that the endpoint is a jiffy-server' };
  }

  async checkTls(): Promise<Finding | undefined> {
    const where = hostPort(this.target);
    const failed = await this.handshake(false);
    if (failed !== undefined) {
      if (this.target.protocol !== 'protosocket' && (await this.answersHttp2())) {
        return { cause: 'the server speaks plaintext HTTP/2, not TLS', advice: `use http://${where} (and no \`tls\` option)` };
      }
      return { cause: `TLS handshake failed (${failed.message})`, advice: 'check the endpoint' };
    }
    const untrusted = await this.handshake(true);
    if (untrusted === undefined) return undefined;
    const code = (untrusted as NodeJS.ErrnoException).code ?? '';
    if (/CERT|SELF_SIGNED|VERIFY|ALTNAME|ISSUER/.test(code)) {
      return {
        cause: `the server's TLS certificate is not trusted (${untrusted.message})`,
        advice: 'pass the CA that signed it as `tls: { caFile }`',
      };
    }
    return { cause: `TLS handshake failed (${untrusted.message})`, advice: 'check the endpoint' };
  }
}
