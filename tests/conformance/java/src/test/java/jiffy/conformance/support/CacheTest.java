package jiffy.conformance.support;

import java.util.UUID;
import momento.sdk.CacheClient;
import momento.sdk.responses.cache.control.CacheCreateResponse;
import momento.sdk.responses.cache.control.CacheDeleteResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** A test on the shared server with a cache of its own, deleted after it. */
@ExtendWith(Servers.class)
public abstract class CacheTest {
  protected CacheClient client;
  protected String cache;

  @BeforeEach
  void createCache() {
    client = Servers.client();
    cache = uniqueName("java-cache");
    Expect.is(CacheCreateResponse.Success.class, client.createCache(cache).join());
  }

  @AfterEach
  void deleteCache() {
    Expect.is(CacheDeleteResponse.Success.class, client.deleteCache(cache).join());
  }

  public static String uniqueName(String prefix) {
    return prefix + "-" + UUID.randomUUID();
  }
}
