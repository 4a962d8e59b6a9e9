// Public surface of @jiffy/sdk.
//
//   import { CacheClient, presets } from '@jiffy/sdk';
//   const client = await CacheClient.create({ ...presets.inRegion.latest(), endpoint: '127.0.0.1:8080' });
//   await client.set('demo', 'greeting', 'hello');
//   console.log(await client.getString('demo', 'greeting'));
export { CacheClient } from './cache-client.js';
export type { WriteOptions } from './cache-client.js';
export type { ItemType, SetIfCondition, TtlUpdate } from './scalars.js';
export type { Bytes } from './codec.js';
export { decodeUtf8 } from './codec.js';
export { BytesMap, BytesSet } from './bytes-collections.js';
export type { CollectionOptions, Slice } from './collections/common.js';
export type { DictionaryEntries } from './collections/dictionary.js';
export type { SetIfHashCondition, ValueWithHash } from './collections/hash.js';
export type { ListPushBackOptions, ListPushFrontOptions, ListRetainOptions } from './collections/list.js';
export type {
  SortedSetAggregate,
  SortedSetElement,
  SortedSetEntries,
  SortedSetOrder,
  SortedSetRankRange,
  SortedSetScoreBounds,
  SortedSetScoreRange,
  SortedSetUnionSources,
  SortedSetUnionStoreOptions,
} from './collections/sorted-set.js';
export { Leaderboard } from './leaderboard.js';
export type { ApiKey, CachePermission, CacheRole, DisposableToken, Permissions, TopicPermission, TopicRole } from './tokens.js';
export { createPresignedUrl } from './signing-keys.js';
export type { PresignedUrlOptions, SigningKey } from './signing-keys.js';
export { verifyWebhookSignature } from './webhooks.js';
export type { Webhook } from './webhooks.js';
export { LEADERBOARD_MAX_ELEMENTS } from './collections/leaderboard.js';
export type {
  LeaderboardElement,
  LeaderboardEntries,
  LeaderboardOrder,
  LeaderboardOrderOptions,
  LeaderboardScoreRange,
} from './collections/leaderboard.js';
export { positionAfter } from './topics/items.js';
export type { TopicDiscontinuity, TopicItem, TopicMessage, TopicPosition } from './topics/items.js';
export type { SubscribeCallbacks, TopicSubscription } from './topics/subscription.js';
export type { SubscribeOptions } from './topics/topics.js';
export type { InFlightLimitChange } from './adaptive-limit.js';
export { DEFAULTS, DEFAULT_TRANSPORT, resolveKnobs } from './config.js';
export type { CacheClientOptions, Knobs, ResolvedKnobs, RetryOptions, TransportName } from './config.js';
export * as presets from './presets.js';
export { presetByName } from './presets.js';
export type { MeasuredTransport, Preset } from './presets.js';
export {
  AlreadyExistsError,
  AuthenticationError,
  CacheError,
  CacheNotFoundError,
  ConnectionError,
  InvalidArgumentError,
  LimitExceededError,
  NotFoundError,
  PermissionError,
  ServerError,
  TimeoutError,
  WrongTypeError,
} from './errors.js';
export { SDK_NAME, SDK_VERSION } from './version.js';
export type { CallOptions, Channel, ChannelFactory, ChannelTarget, OpenStream, StreamListener } from './transport/channel.js';
export { StatusError } from './transport/channel.js';
