// Extra request headers on every call and stream of a transport: the
// fault-injection headers (`delay-ms`, the loadgen's --delay-ms) and the
// tests' request ids. One place, because the transports key their
// prebuilt per-call headers on the identity of the record the client
// passes, and a wrapper that merged anew on every call would defeat that.
import type { ChannelFactory } from './channel.js';

type Headers = Readonly<Record<string, string>>;

/**
 * `inner`'s channels, each call also sending what `extra()` returns at the
 * time of the call (nothing when it returns undefined). Return the same
 * record for the same headers: merged records are kept per record.
 */
export function withExtraHeaders(inner: ChannelFactory, extra: () => Headers | undefined): ChannelFactory {
  const merged = new WeakMap<Headers, WeakMap<Headers, Headers>>();
  const add = (metadata: Headers): Headers => {
    const more = extra();
    if (more === undefined) return metadata;
    let byMetadata = merged.get(more);
    if (byMetadata === undefined) merged.set(more, (byMetadata = new WeakMap()));
    let found = byMetadata.get(metadata);
    if (found === undefined) {
      found = Object.freeze({ ...metadata, ...more });
      byMetadata.set(metadata, found);
    }
    return found;
  };
  return (target) => {
    const channel = inner(target);
    return {
      connect: (deadline) => channel.connect(deadline),
      unary: (path, request, options) => channel.unary(path, request, { ...options, metadata: add(options.metadata) }),
      serverStream: (path, request, options) =>
        channel.serverStream(path, request, { ...options, metadata: add(options.metadata) }),
      openStream: (path, request, metadata, listener) => channel.openStream(path, request, add(metadata), listener),
      isConnected: () => channel.isConnected(),
      close: () => channel.close(),
    };
  };
}
