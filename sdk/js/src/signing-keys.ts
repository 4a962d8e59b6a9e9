// Signing keys and presigned URLs: request builders and answer readers for
// the signing-key calls (as caches.ts's), and createPresignedUrl.
//
// A signing key (CreateSigningKey) is a P-256 key pair the server makes; the
// client is handed its private half once, as a JSON Web Key, and signs URLs
// with it that the server's HTTP API serves with no other token: a get or a
// set of one key of one cache, until an expiry (docs/HTTP.md, docs/AUTH.md).
// The URL's `token` is a JWT (ES256, the key's id as `kid`) whose claims are
// `exp`, `cache`, `key`, `method` and, for a set, `ttl` in seconds.
import { createPrivateKey, sign } from 'node:crypto';
import { fromBinary } from '@bufbuild/protobuf';
import { encode, invalid, type Operation } from './collections/common.js';
import * as control from './gen/controlclient_pb.js';
import { RPCS } from './rpcs.gen.js';

/** The server's bound on a signing key's life: a year, in minutes. */
const MAX_TTL_MINUTES = 365 * 24 * 60;

/**
 * Signing key `keyId`, which signs URLs until `expiresAt`. `key` is its
 * JWK, private half included: answered by createSigningKey only (undefined
 * when listed), to pass to createPresignedUrl. `endpoint` is the server the
 * client spoke to.
 */
export interface SigningKey {
  readonly keyId: string;
  readonly endpoint: string;
  readonly expiresAt: Date;
  readonly key?: string;
}

const moment = (epochSeconds: bigint): Date => new Date(Number(epochSeconds) * 1000);

export function createSigningKey(ttlMs: number, endpoint: string): Operation<SigningKey> {
  const minutes = Math.ceil(ttlMs / 60_000);
  if (!Number.isFinite(minutes) || minutes < 1 || minutes > MAX_TTL_MINUTES) {
    throw invalid(`a signing key's \`ttlMs\` is from 1 minute to a year; got ${String(ttlMs)}`);
  }
  return {
    rpc: RPCS.CreateSigningKey,
    request: encode(control._CreateSigningKeyRequestSchema, { ttlMinutes: minutes }),
    read(answer) {
      const created = fromBinary(control._CreateSigningKeyResponseSchema, answer);
      return { keyId: keyIdOf(created.key), endpoint, expiresAt: moment(created.expiresAt), key: created.key };
    },
  };
}

/** The key's id is its JWK's `kid` (empty if the answer has no JWK). */
function keyIdOf(jwk: string): string {
  try {
    const { kid } = JSON.parse(jwk) as { kid?: unknown };
    return typeof kid === 'string' ? kid : '';
  } catch {
    return '';
  }
}

export function listSigningKeys(endpoint: string): Operation<SigningKey[]> {
  return {
    rpc: RPCS.ListSigningKeys,
    request: encode(control._ListSigningKeysRequestSchema, {}),
    read: (answer) =>
      fromBinary(control._ListSigningKeysResponseSchema, answer).signingKey.map((listed) => ({
        keyId: listed.keyId,
        endpoint,
        expiresAt: moment(listed.expiresAt),
      })),
  };
}

export function revokeSigningKey(keyId: string): Operation<void> {
  return {
    rpc: RPCS.RevokeSigningKey,
    request: encode(control._RevokeSigningKeyRequestSchema, { keyId }),
    read: () => undefined,
  };
}

/** What a presigned URL does: get `key` of `cache`, or set it to the request's body. */
export interface PresignedUrlOptions {
  /** The server's HTTP API, e.g. 'https://host:9005'. */
  baseUrl: string;
  cache: string;
  key: string;
  operation: 'get' | 'set';
  /** How long from now the URL is served. */
  expiresInMs: number;
  /** A set's item time to live, whole seconds in milliseconds; required for a set. */
  ttlMs?: number;
}

const base64Url = (data: string | Uint8Array): string => Buffer.from(data).toString('base64url');

/**
 * A URL of the server's HTTP API that gets, or sets to the request's body,
 * one key of one cache with no other token, until `expiresInMs` from now.
 * `signingKey` is what createSigningKey resolved to (or its `key`).
 */
export function createPresignedUrl(signingKey: SigningKey | string, options: PresignedUrlOptions): string {
  const text = typeof signingKey === 'string' ? signingKey : signingKey.key;
  if (!text) {
    throw invalid('this signing key has no private half: only createSigningKey answers it');
  }
  let jwk: { kid?: unknown; kty?: unknown; d?: unknown };
  try {
    jwk = JSON.parse(text) as typeof jwk;
  } catch {
    throw invalid('the signing key is not a JWK (JSON)');
  }
  if (jwk.kty !== 'EC' || typeof jwk.kid !== 'string' || typeof jwk.d !== 'string') {
    throw invalid('the signing key is not a P-256 JWK with `kid` and `d`');
  }
  const { baseUrl, cache, key, operation, expiresInMs, ttlMs } = options;
  if (operation !== 'get' && operation !== 'set') {
    throw invalid(`\`operation\` is 'get' or 'set'; got ${String(operation)}`);
  }
  if (!(expiresInMs > 0)) {
    throw invalid(`\`expiresInMs\` must be positive; got ${String(expiresInMs)}`);
  }
  const claims: Record<string, unknown> = {
    exp: Math.floor((Date.now() + expiresInMs) / 1000),
    cache,
    key,
    method: [operation],
  };
  if (operation === 'set') {
    if (ttlMs === undefined || ttlMs < 1000 || ttlMs % 1000 !== 0) {
      throw invalid(`a set's URL needs \`ttlMs\` of whole seconds; got ${String(ttlMs)}`);
    }
    claims.ttl = ttlMs / 1000;
  }
  const header = { alg: 'ES256', typ: 'JWT', kid: jwk.kid };
  const signed = `${base64Url(JSON.stringify(header))}.${base64Url(JSON.stringify(claims))}`;
  const privateKey = createPrivateKey({ key: jwk as never, format: 'jwk' });
  // ES256 is the raw r || s (IEEE P1363), not DER.
  const signature = sign('sha256', Buffer.from(signed), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const path = `${baseUrl.replace(/\/+$/, '')}/cache/${operation}/${encodeURIComponent(cache)}/${encodeURIComponent(key)}`;
  const token = `${signed}.${base64Url(signature)}`;
  return operation === 'set' ? `${path}?token=${token}&ttl_milliseconds=${String(ttlMs)}` : `${path}?token=${token}`;
}
