package jiffy.conformance.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import momento.sdk.CacheClient;
import momento.sdk.responses.cache.control.CacheCreateResponse;
import momento.sdk.responses.cache.control.CacheDeleteResponse;
import momento.sdk.responses.cache.ttl.ItemGetTtlResponse;
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

  /**
   * Asserts that the item's remaining TTL is more than {@code above} and at most {@code atMost}.
   */
  protected void assertRemainingTtl(String key, long above, long atMost) {
    long remaining =
        Expect.is(ItemGetTtlResponse.Hit.class, client.itemGetTtl(cache, key).join())
            .remainingTtlMillis();
    assertTrue(remaining > above && remaining <= atMost, "remaining TTL " + remaining + " ms");
  }

  public static String uniqueName(String prefix) {
    return prefix + "-" + UUID.randomUUID();
  }
}
