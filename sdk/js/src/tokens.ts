// Token vending: permissions as plain values, request builders and answer
// readers for GenerateDisposableToken, GenerateApiToken and RefreshApiToken
// (docs/AUTH.md). The names follow the official SDKs': cache roles
// readWrite / readOnly / writeOnly, topic roles publishSubscribe /
// subscribeOnly / publishOnly; a permission without a cache reaches every
// cache, without a key (or topic) every item (or topic).
import { fromBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { type Bytes, describe, toBytes } from './codec.js';
import { encode, integerIn, invalid, type Operation, UINT32_MAX } from './collections/common.js';
import * as auth from './gen/auth_pb.js';
import * as pm from './gen/permissionmessages_pb.js';
import * as token from './gen/token_pb.js';
import { RPCS } from './rpcs.gen.js';

export type CacheRole = 'readWrite' | 'readOnly' | 'writeOnly';
export type TopicRole = 'publishSubscribe' | 'subscribeOnly' | 'publishOnly';

/** `role` on the items of `cache` (left out: every cache): all, or `key`, or the keys starting with `keyPrefix`. */
export interface CachePermission {
  role: CacheRole;
  cache?: string;
  key?: Bytes;
  keyPrefix?: Bytes;
}

/** `role` on the topics of `cache` (left out: every cache): all, or `topic`, or those starting with `topicPrefix`. */
export interface TopicPermission {
  role: TopicRole;
  cache?: string;
  topic?: string;
  topicPrefix?: string;
}

/**
 * What a minted token may do: 'superUser' (everything, the control plane
 * included), 'allDataReadWrite' (Momento's AllDataReadWrite: read-write on
 * every cache's items, publish-subscribe on every topic), or a list of cache
 * and topic permissions.
 */
export type Permissions = 'superUser' | 'allDataReadWrite' | readonly (CachePermission | TopicPermission)[];

/** A minted token (give it as `apiKey`), the endpoint the server names, and when it expires. */
export interface DisposableToken {
  token: string;
  endpoint: string;
  expiresAt: Date;
}

/** A minted api key, the refresh token that renews it, the endpoint, and until when it is valid (undefined: never expires). */
export interface ApiKey {
  apiKey: string;
  refreshToken: string;
  endpoint: string;
  validUntil: Date | undefined;
}

const CACHE_ROLES: Readonly<Record<CacheRole, pm.CacheRole>> = {
  readWrite: pm.CacheRole.CacheReadWrite,
  readOnly: pm.CacheRole.CacheReadOnly,
  writeOnly: pm.CacheRole.CacheWriteOnly,
};
const TOPIC_ROLES: Readonly<Record<TopicRole, pm.TopicRole>> = {
  publishSubscribe: pm.TopicRole.TopicReadWrite,
  subscribeOnly: pm.TopicRole.TopicReadOnly,
  publishOnly: pm.TopicRole.TopicWriteOnly,
};
/** A disposable token lives at most an hour, as on Momento. */
export const MAX_DISPOSABLE_TOKEN_MS = 3_600_000;

type PermissionInit = MessageInitShape<typeof pm.PermissionsTypeSchema>;
type CacheInit = MessageInitShape<typeof pm.PermissionsType_CachePermissionsSchema>;
type TopicInit = MessageInitShape<typeof pm.PermissionsType_TopicPermissionsSchema>;

function cacheSelector(cache: unknown): CacheInit['cache'] {
  if (cache === undefined) return { case: 'allCaches', value: {} };
  if (typeof cache !== 'string' || cache === '') throw invalid(`a permission's \`cache\` is a non-empty string; got ${describe(cache)}`);
  return { case: 'cacheSelector', value: { kind: { case: 'cacheName', value: cache } } };
}

function oneOf(what: string, exact: unknown, prefix: unknown): void {
  if (exact !== undefined && prefix !== undefined) throw invalid(`a permission names a ${what} or a ${what} prefix, not both`);
}

function permission(given: CachePermission | TopicPermission): PermissionInit {
  const role: unknown = (given as { role?: unknown } | null)?.role;
  if (typeof role === 'string' && Object.hasOwn(CACHE_ROLES, role)) {
    const p = given as CachePermission;
    oneOf('key', p.key, p.keyPrefix);
    let item: CacheInit['cacheItem'] = { case: 'allItems', value: {} };
    if (p.key !== undefined) item = { case: 'itemSelector', value: { kind: { case: 'key', value: toBytes(p.key) } } };
    else if (p.keyPrefix !== undefined) {
      item = { case: 'itemSelector', value: { kind: { case: 'keyPrefix', value: toBytes(p.keyPrefix) } } };
    }
    const value: CacheInit = { role: CACHE_ROLES[role as CacheRole], cache: cacheSelector(p.cache), cacheItem: item };
    return { kind: { case: 'cachePermissions', value } };
  }
  if (typeof role === 'string' && Object.hasOwn(TOPIC_ROLES, role)) {
    const p = given as TopicPermission;
    oneOf('topic', p.topic, p.topicPrefix);
    let topic: TopicInit['topic'] = { case: 'allTopics', value: {} };
    if (p.topic !== undefined) topic = { case: 'topicSelector', value: { kind: { case: 'topicName', value: p.topic } } };
    else if (p.topicPrefix !== undefined) {
      topic = { case: 'topicSelector', value: { kind: { case: 'topicNamePrefix', value: p.topicPrefix } } };
    }
    const value: TopicInit = { role: TOPIC_ROLES[role as TopicRole], cache: cacheSelector(p.cache), topic };
    return { kind: { case: 'topicPermissions', value } };
  }
  const roles = [...Object.keys(CACHE_ROLES), ...Object.keys(TOPIC_ROLES)].join(', ');
  throw invalid(`a permission's \`role\` is one of ${roles}; got ${describe(role)}`);
}

/** The wire form of `permissions`; InvalidArgumentError for what the server would refuse. */
export function permissionsMessage(permissions: Permissions): MessageInitShape<typeof pm.PermissionsSchema> {
  if (permissions === 'superUser') return { kind: { case: 'superUser', value: pm.SuperUserPermissions.SuperUser } };
  const listed: readonly (CachePermission | TopicPermission)[] =
    permissions === 'allDataReadWrite' ? [{ role: 'readWrite' }, { role: 'publishSubscribe' }] : permissions;
  if (!Array.isArray(listed)) {
    throw invalid(`permissions are 'superUser', 'allDataReadWrite' or an array of permissions; got ${describe(permissions)}`);
  }
  if (listed.length === 0) throw invalid('permissions: the array is empty');
  return { kind: { case: 'explicit', value: { permissions: listed.map(permission) } } };
}

/** `expiresInMs` as the whole seconds the protocol carries, from 1 s to `mostMs`. */
function wholeSeconds(expiresInMs: number, mostMs: number): number {
  if (typeof expiresInMs !== 'number' || expiresInMs % 1000 !== 0) {
    throw invalid(`\`expiresInMs\` is whole seconds (a multiple of 1000); got ${describe(expiresInMs)}`);
  }
  return integerIn(expiresInMs / 1000, 'expiresInMs / 1000', 1, mostMs / 1000);
}

function moment(epochSeconds: bigint): Date {
  return new Date(Number(epochSeconds) * 1000);
}

function readApiKey(answer: { apiKey: string; refreshToken: string; endpoint: string; validUntil: bigint }): ApiKey {
  const { apiKey, refreshToken, endpoint, validUntil } = answer;
  return { apiKey, refreshToken, endpoint, validUntil: validUntil === 0n ? undefined : moment(validUntil) };
}

/** The minting token travels inside the message, as the official SDKs send it. */
export function generateDisposableToken(
  ownToken: string,
  permissions: Permissions,
  expiresInMs: number,
  tokenId: string | undefined,
): Operation<DisposableToken> {
  const request = encode(token._GenerateDisposableTokenRequestSchema, {
    expires: { validForSeconds: wholeSeconds(expiresInMs, MAX_DISPOSABLE_TOKEN_MS) },
    authToken: ownToken,
    permissions: permissionsMessage(permissions),
    tokenId: tokenId ?? '',
  });
  return {
    rpc: RPCS.GenerateDisposableToken,
    request,
    read(answer) {
      const response = fromBinary(token._GenerateDisposableTokenResponseSchema, answer);
      return { token: response.apiKey, endpoint: response.endpoint, expiresAt: moment(response.validUntil) };
    },
  };
}

export function generateApiKey(ownToken: string, permissions: Permissions, expiresInMs: number | undefined): Operation<ApiKey> {
  const expiry: MessageInitShape<typeof auth._GenerateApiTokenRequestSchema>['expiry'] =
    expiresInMs === undefined
      ? { case: 'never', value: {} }
      : { case: 'expires', value: { validForSeconds: wholeSeconds(expiresInMs, UINT32_MAX * 1000) } };
  const request = encode(auth._GenerateApiTokenRequestSchema, {
    expiry,
    authToken: ownToken,
    permissions: permissionsMessage(permissions),
  });
  return {
    rpc: RPCS.GenerateApiToken,
    request,
    read: (answer) => readApiKey(fromBinary(auth._GenerateApiTokenResponseSchema, answer)),
  };
}

export function refreshApiKey(ownToken: string, refreshToken: string): Operation<ApiKey> {
  if (typeof refreshToken !== 'string' || refreshToken === '') {
    throw invalid(`\`refreshToken\` is a non-empty string; got ${describe(refreshToken)}`);
  }
  return {
    rpc: RPCS.RefreshApiToken,
    request: encode(auth._RefreshApiTokenRequestSchema, { apiKey: ownToken, refreshToken }),
    read: (answer) => readApiKey(fromBinary(auth._RefreshApiTokenResponseSchema, answer)),
  };
}
