// What CacheClient.create does before the first call: resolve the options,
// build the channel pools and the protosocket connections, hand them to a
// Route, and unless `eagerConnectTimeoutMs` is 0 connect them (and under
// protosocketEndpoint 'auto' ask the server for its protosocket port), so
// that create() rejects with the cause rather than the first call.
import { newCallRunner } from './call-runner.js';
import { ChannelPool } from './channel-pool.js';
import { type CacheClientOptions, PROTOSOCKET_AUTO, resolveKnobs } from './config.js';
import { connectEagerly } from './eager-connect.js';
import { type HostPort, parseProtosocketEndpoint, resolveEndpoints } from './endpoints.js';
import { ProtosocketCalls } from './protosocket-calls.js';
import { Route } from './route.js';
import type { ChannelTarget } from './transport/channel.js';
import { channelFactoryFor } from './transport/index.js';
import type { ProtosocketTarget } from './transport/protosocket-connection.js';

/**
 * A connected Route for `options`. Rejects with a ConnectionError naming
 * the cause: at once for an unknown host or a TLS mismatch, after 1 s of
 * refused connections, after `eagerConnectTimeoutMs` when the server never
 * answers (eager-connect.ts).
 */
export async function openRoute(options: CacheClientOptions): Promise<Route> {
  const knobs = resolveKnobs(options);
  const endpoints = resolveEndpoints(options);
  const factory = options.channelFactory ?? (await channelFactoryFor(knobs.transport));
  const channelTarget = (host: string, port: number): ChannelTarget => ({
    host,
    port,
    tls: endpoints.tls,
    keepaliveTimeMs: knobs.keepaliveTimeMs,
    keepaliveTimeoutMs: knobs.keepaliveTimeoutMs,
    maxReceiveMessageBytes: knobs.maxReceiveMessageBytes,
  });
  const protosocketTarget = (at: HostPort): ProtosocketTarget => ({
    ...at,
    tls: endpoints.tls,
    token: endpoints.authorization,
    keepaliveTimeMs: knobs.keepaliveTimeMs,
    maxReceiveMessageBytes: knobs.maxReceiveMessageBytes,
  });
  const { data, control } = endpoints;
  const dataPool = new ChannelPool(factory, channelTarget(data.host, data.port), knobs.channels);
  // Control calls share the data channels when both go to one server, so
  // the client holds exactly `channels` connections.
  const sameServer = data.host === control.host && data.port === control.port;
  const controlPool = sameServer ? dataPool : new ChannelPool(factory, channelTarget(control.host, control.port), 1);
  const target = `${data.host}:${data.port}`;
  const runner = newCallRunner(knobs, target);
  const route = new Route({ knobs, runner, dataPool, controlPool, authorization: endpoints.authorization, target });

  const chosen = knobs.protosocketEndpoint;
  const auto = chosen === PROTOSOCKET_AUTO;
  const protosocketAt = chosen === null || auto ? undefined : parseProtosocketEndpoint(chosen);
  const protosocket = protosocketAt === undefined ? undefined : new ProtosocketCalls(protosocketTarget(protosocketAt), knobs.channels, runner);
  if (protosocket !== undefined) route.useProtosocket(protosocket);
  if (auto) {
    route.useAuto((port) => {
      const at = { host: data.host, port };
      const calls = new ProtosocketCalls(protosocketTarget(at), knobs.channels, runner);
      return { calls, probe: { ...at, tls: endpoints.tls, protocol: 'protosocket' } };
    });
  }

  if (knobs.eagerConnectTimeoutMs <= 0) {
    if (auto) route.decideLater();
    return route;
  }
  try {
    const timeoutMs = knobs.eagerConnectTimeoutMs;
    const giveUpAt = Date.now() + timeoutMs;
    await Promise.all([
      connectEagerly((deadline) => dataPool.connect(deadline), { ...data, tls: endpoints.tls }, timeoutMs),
      protosocket === undefined || protosocketAt === undefined
        ? undefined
        : connectEagerly((deadline) => protosocket.connect(deadline), { ...protosocketAt, tls: endpoints.tls, protocol: 'protosocket' }, timeoutMs),
    ]);
    if (auto) await route.decide(giveUpAt);
  } catch (err) {
    route.close();
    throw err;
  }
  return route;
}
