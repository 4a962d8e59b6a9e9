// Picks the ChannelFactory for the `transport` option.
import type { TransportName } from '../config.js';
import type { ChannelFactory } from './channel.js';
import { createGrpcJsChannel } from './grpc-js-channel.js';
import { createHttp2Channel } from './http2-channel.js';

export function channelFactoryFor(transport: TransportName): ChannelFactory {
  return transport === 'http2' ? createHttp2Channel : createGrpcJsChannel;
}
