// Where the client connects and what it sends as `authorization`, from the
// options, the environment and the API key.
//
// | variable           | meaning                                            |
// |--------------------|----------------------------------------------------|
// | JIFFY_ENDPOINT     | data-plane host:port (control too, unless a key says otherwise) |
// | JIFFY_API_KEY      | token sent as `authorization`                      |
// | MOMENTO_API_KEY    | Momento API key, when JIFFY_API_KEY is not set     |
// | MOMENTO_ENDPOINT   | base endpoint that goes with a v2 (JWT) Momento key |
//
// Momento keys (docs/PROTOCOL.md, "Momento API keys"): a v1 key is base64 JSON
// {api_key, endpoint}; a v2 key is a JWT given with its endpoint. Either
// way data goes to cache.<endpoint>:443 and control to control.<endpoint>:443
// over TLS, with the bare key as `authorization`.
import { readFileSync } from 'node:fs';
import { DEFAULT_ENDPOINT, type CacheClientOptions } from './config.js';

export interface HostPort {
  host: string;
  port: number;
}

export interface Endpoints {
  data: HostPort;
  control: HostPort;
  tls: { ca?: Uint8Array; serverName?: string } | undefined;
  /** The `authorization` header value, when there is a key. */
  authorization: string | undefined;
}

const MOMENTO_PORT = 443;

/** Parses host:port ([v6]:port too); throws naming the option. */
export function parseHostPort(value: string, option: string): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value.trim());
  const port = match === null ? NaN : Number(match[3]);
  if (match === null || port < 1 || port > 65535) {
    throw new RangeError(`option \`${option}\` must be host:port (e.g. 127.0.0.1:8080); got '${value}'`);
  }
  return { host: match[1] ?? match[2]!, port };
}

/** The base endpoint and bare key of a Momento API key, or undefined for a plain token. */
export function parseMomentoKey(
  apiKey: string,
  env: NodeJS.ProcessEnv,
): { apiKey: string; endpoint: string } | undefined {
  if (/^[\w-]+\.[\w-]+\.[\w-]*$/.test(apiKey)) {
    // v2: a JWT; its endpoint comes separately.
    const endpoint = env.MOMENTO_ENDPOINT;
    return endpoint ? { apiKey, endpoint } : undefined;
  }
  try {
    const decoded = JSON.parse(Buffer.from(apiKey, 'base64').toString('utf8')) as unknown;
    if (typeof decoded === 'object' && decoded !== null) {
      const { api_key: key, endpoint } = decoded as Record<string, unknown>;
      if (typeof key === 'string' && typeof endpoint === 'string') return { apiKey: key, endpoint };
    }
  } catch {
    // Not base64 JSON: a plain token.
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
      throw new RangeError(`option \`tls.caFile\`: cannot read ${tls.caFile}: ${(err as Error).message}`);
    }
  }
  if (tls.serverName !== undefined) result.serverName = tls.serverName;
  return result;
}

export function resolveEndpoints(options: CacheClientOptions, env: NodeJS.ProcessEnv = process.env): Endpoints {
  const rawKey = options.apiKey ?? env.JIFFY_API_KEY ?? env.MOMENTO_API_KEY;
  const explicitData = options.endpoint ?? env.JIFFY_ENDPOINT;
  // A jiffy-server token is a JWT too: a JWT pairs with MOMENTO_ENDPOINT only
  // when it is meant for Momento, i.e. it came from MOMENTO_API_KEY, or from
  // the apiKey option with no jiffy endpoint beside it.
  const fromMomentoEnv = options.apiKey === undefined && env.JIFFY_API_KEY === undefined;
  const meantForMomento = fromMomentoEnv || (options.apiKey !== undefined && explicitData === undefined);
  const momento = rawKey ? parseMomentoKey(rawKey, meantForMomento ? env : {}) : undefined;
  if (momento !== undefined) {
    const data = explicitData ?? `cache.${momento.endpoint}:${MOMENTO_PORT}`;
    return {
      data: parseHostPort(data, 'endpoint'),
      control: parseHostPort(options.controlEndpoint ?? `control.${momento.endpoint}:${MOMENTO_PORT}`, 'controlEndpoint'),
      tls: tlsOption(options.tls, true),
      authorization: momento.apiKey,
    };
  }
  const data = explicitData ?? DEFAULT_ENDPOINT;
  return {
    data: parseHostPort(data, 'endpoint'),
    control: parseHostPort(options.controlEndpoint ?? data, 'controlEndpoint'),
    tls: tlsOption(options.tls, false),
    authorization: rawKey || undefined,
  };
}
