// Where the client connects and what it sends as `authorization`, from the
// options and the environment. The environment rules are the Python SDK's
// Endpoint.from_env(): sdk/spec.json (`endpoint_env`) holds them and the
// cases both SDKs' tests run. A variable set to '' counts as unset. In order:
//
// 1. JIFFY_ENDPOINT (or the `endpoint` option): a jiffy server; JIFFY_API_KEY
//    (or `apiKey`) is sent as `authorization` as it is. The MOMENTO_*
//    variables are then ignored: a Momento key is a secret for another
//    service and is never sent here. (This SDK used to decode a Momento key
//    even beside JIFFY_ENDPOINT and send calls to a mix of both.)
// 2. MOMENTO_API_KEY (or `apiKey` with no endpoint): the Momento service. A
//    v1 key (base64 JSON {api_key, endpoint}) carries its endpoint; any other
//    key is a v2 key and takes MOMENTO_ENDPOINT. Data goes to
//    cache.<endpoint>:443 and control to control.<endpoint>:443 over TLS,
//    with the bare key as `authorization` (docs/PROTOCOL.md, "Momento API keys").
// 3. Neither: create() throws naming JIFFY_ENDPOINT. This SDK used to fall
//    back to 127.0.0.1:8080; 8080 is a common port, and a deployed client
//    that forgot its variable reached whatever listened there instead of
//    saying what was missing.
//
// The forms of an endpoint: `host:port` and `[ipv6]:port` (plaintext), a bare
// `host` (plaintext on jiffy-server's default port, 8080), `http://host[:port]`
// (plaintext) and `https://host[:port]` (TLS with the system's roots, port 443
// unless given): the scheme is how an address in a variable says "TLS". A
// host, `localhost` included, is resolved when connecting, and both
// transports try every address it resolves to (node's autoSelectFamily,
// grpc-js's pick_first), so `localhost` reaches a server on 127.0.0.1 or ::1.
import { readFileSync } from 'node:fs';
import { DEFAULT_PORT, type CacheClientOptions } from './config.js';
import { InvalidArgumentError } from './errors.js';

export interface HostPort {
  host: string;
  port: number;
}

export interface Address extends HostPort {
  tls: boolean;
}

export interface Endpoints {
  data: HostPort;
  control: HostPort;
  tls: { ca?: Uint8Array; serverName?: string } | undefined;
  /** The `authorization` header value, when there is a key. */
  authorization: string | undefined;
}

const TLS_PORT = 443;
// host or [ipv6], then an optional :port; no path, no user info.
const HOST_PORT = /^(?:\[([^\]\s]+)\]|([^:/[\]\s@]+))(?::(\d{1,5}))?$/;
const SCHEME_TLS: ReadonlyMap<string, boolean> = new Map([
  ['http', false],
  ['https', true],
]);

/** Host, port and TLS of an endpoint in any of its forms; throws naming `source`. */
export function parseAddress(value: string, source: string): Address {
  const text = value.trim();
  const schemeEnd = text.indexOf('://');
  const tls = schemeEnd < 0 ? false : SCHEME_TLS.get(text.slice(0, schemeEnd).toLowerCase());
  const match = HOST_PORT.exec(schemeEnd < 0 ? text : text.slice(schemeEnd + 3));
  const port = match?.[3] !== undefined ? Number(match[3]) : tls ? TLS_PORT : DEFAULT_PORT;
  if (tls === undefined || match === null || port < 1 || port > 65535) {
    throw new InvalidArgumentError(
      `${source} must be host:port, host, http://host[:port] or https://host[:port] (e.g. 127.0.0.1:8080); got '${value}'`,
    );
  }
  return { host: match[1] ?? match[2]!, port, tls };
}

/**
 * Host and port of `protosocketEndpoint`: `host:port` or `[ipv6]:port`, the
 * port required (no default port: the protosocket port is the server's
 * second one), no scheme (TLS is the gRPC endpoint's).
 */
export function parseProtosocketEndpoint(value: string): HostPort {
  const match = HOST_PORT.exec(value.trim());
  const port = match?.[3] === undefined ? NaN : Number(match[3]);
  if (match === null || !(port >= 1 && port <= 65535)) {
    throw new InvalidArgumentError(
      `option \`protosocketEndpoint\` must be host:port, the server's --protosocket-listen address (e.g. 127.0.0.1:9004); got '${value}'`,
    );
  }
  return { host: match[1] ?? match[2]!, port };
}

/** Host and port of an endpoint option; throws naming the option. */
export function parseHostPort(value: string, option: string): HostPort {
  const { host, port } = parseAddress(value, `option \`${option}\``);
  return { host, port };
}

/**
 * The bare key and base endpoint of a Momento v1 key (base64 of JSON
 * {api_key, endpoint}), or undefined for any other key.
 */
export function decodeV1Key(apiKey: string): { apiKey: string; endpoint: string } | undefined {
  // Strict base64 first, as the Python SDK's decoder: node's is lenient and
  // would read a JWT's dots as noise.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(apiKey)) return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(apiKey, 'base64').toString('utf8')) as unknown;
    if (typeof decoded === 'object' && decoded !== null) {
      const { api_key: key, endpoint } = decoded as Record<string, unknown>;
      if (typeof key === 'string' && typeof endpoint === 'string') return { apiKey: key, endpoint };
    }
  } catch {
    // Not base64 JSON: a v2 key.
  }
  return undefined;
}

function tlsOption(
  tls: CacheClientOptions['tls'],
  defaultOn: boolean,
): { ca?: Uint8Array; serverName?: string } | undefined {
  if (tls === undefined) return defaultOn ? {} : undefined;
  if (tls === false) return undefined;
  if (tls === true) return {};
  const result: { ca?: Uint8Array; serverName?: string } = {};
  if (tls.caFile !== undefined) {
    try {
      result.ca = readFileSync(tls.caFile);
    } catch (err) {
      throw new InvalidArgumentError(`option \`tls.caFile\`: cannot read ${tls.caFile}: ${(err as Error).message}`);
    }
  }
  if (tls.serverName !== undefined) result.serverName = tls.serverName;
  return result;
}

export function resolveEndpoints(options: CacheClientOptions, env: NodeJS.ProcessEnv = process.env): Endpoints {
  const variable = (name: string): string | undefined => env[name] || undefined;
  const jiffyEndpoint = options.endpoint ?? variable('JIFFY_ENDPOINT');
  if (jiffyEndpoint !== undefined) {
    const source = options.endpoint !== undefined ? 'option `endpoint`' : 'JIFFY_ENDPOINT';
    const { host, port, tls } = parseAddress(jiffyEndpoint, source);
    const data = { host, port };
    return {
      data,
      control: options.controlEndpoint === undefined ? data : parseHostPort(options.controlEndpoint, 'controlEndpoint'),
      tls: tlsOption(options.tls, tls),
      authorization: options.apiKey !== undefined ? options.apiKey || undefined : variable('JIFFY_API_KEY'),
    };
  }
  const momentoKey = options.apiKey || variable('MOMENTO_API_KEY');
  if (momentoKey === undefined) {
    throw new InvalidArgumentError(
      'no endpoint: pass `endpoint`, or set JIFFY_ENDPOINT=host:port for a jiffy server (or MOMENTO_API_KEY for Momento)',
    );
  }
  const v1 = decodeV1Key(momentoKey);
  const base = v1?.endpoint ?? variable('MOMENTO_ENDPOINT');
  if (base === undefined) {
    throw new InvalidArgumentError('this Momento API key carries no endpoint (a v2 key): set MOMENTO_ENDPOINT');
  }
  return {
    data: { host: `cache.${base}`, port: TLS_PORT },
    control: parseHostPort(options.controlEndpoint ?? `control.${base}:${TLS_PORT}`, 'controlEndpoint'),
    tls: tlsOption(options.tls, true),
    authorization: v1?.apiKey ?? momentoKey,
  };
}
