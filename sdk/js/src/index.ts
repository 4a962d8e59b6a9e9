// Public surface of @jiffy/sdk.
export { SDK_NAME, SDK_VERSION } from './version.js';
export type { Channel, ChannelFactory, ChannelTarget, CallOptions } from './transport/channel.js';
export { StatusError } from './transport/channel.js';
