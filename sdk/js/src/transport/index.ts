// Picks the ChannelFactory for the `transport` option. The grpc-js one is
// imported on first use: @grpc/grpc-js is an optional peer dependency
// (optional-dependency.ts), and the default transport does not need it.
import type { TransportName } from '../config.js';
import { importOptional } from '../optional-dependency.js';
import type { ChannelFactory } from './channel.js';
import { createHttp2Channel } from './http2-channel.js';

export async function channelFactoryFor(transport: TransportName): Promise<ChannelFactory> {
  if (transport === 'http2') return createHttp2Channel;
  const { createGrpcJsChannel } = await importOptional(
    '@grpc/grpc-js',
    "option `transport: 'grpc-js'`",
    () => import('./grpc-js-channel.js'),
    "leave `transport` at its default ('http2')",
  );
  return createGrpcJsChannel;
}
