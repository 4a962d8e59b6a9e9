package jiffy.conformance.support;

import java.time.Duration;
import momento.sdk.CacheClient;
import momento.sdk.config.Configurations;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one plaintext jiffy-server the cache tests share (started on a free port at the first test
 * class that needs it, stopped after the last one with SIGTERM, expecting exit status 0) and the
 * official {@link CacheClient} pointed at it.
 */
public final class Servers implements BeforeAllCallback {
  /** The TTL the client gives items when a call names none. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(60);

  private static volatile Running plain;

  @Override
  public void beforeAll(ExtensionContext context) {
    plain =
        context
            .getRoot()
            .getStore(ExtensionContext.Namespace.GLOBAL)
            .getOrComputeIfAbsent(Running.class, key -> Running.plain(), Running.class);
  }

  public static CacheClient client() {
    return plain.client;
  }

  /** A server and a client on it; the root store closes it when the run ends. */
  static final class Running implements AutoCloseable {
    final JiffyServer server;
    final CacheClient client;

    Running(JiffyServer server, CacheClient client) {
      this.server = server;
      this.client = client;
    }

    static Running plain() {
      try {
        JiffyServer server = JiffyServer.start("127.0.0.1:0");
        return new Running(server, cacheClient("127.0.0.1", server.port(), false));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() throws Exception {
      client.close();
      server.close();
    }
  }

  /** The official client on {@code host:port}, with the SDK's laptop configuration. */
  public static CacheClient cacheClient(String host, int port, boolean secure) {
    return CacheClient.builder(
            new LocalEndpoint(host, port, secure), Configurations.Laptop.latest(), DEFAULT_TTL)
        .build();
  }
}
