package jiffy.conformance;

import static jiffy.conformance.support.Expect.error;
import static jiffy.conformance.support.Expect.is;
import static jiffy.conformance.support.Expect.within;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import jiffy.conformance.support.CacheTest;
import jiffy.conformance.support.InOwnNetworkNamespace;
import jiffy.conformance.support.JiffyServer;
import jiffy.conformance.support.LocalEndpoint;
import jiffy.conformance.support.Servers;
import jiffy.conformance.support.TlsServer;
import momento.sdk.CacheClient;
import momento.sdk.ISubscriptionCallbacks;
import momento.sdk.TopicClient;
import momento.sdk.config.TopicConfigurations;
import momento.sdk.exceptions.MomentoErrorCode;
import momento.sdk.exceptions.SdkException;
import momento.sdk.responses.cache.control.CacheCreateResponse;
import momento.sdk.responses.cache.control.CacheDeleteResponse;
import momento.sdk.responses.topic.TopicMessage;
import momento.sdk.responses.topic.TopicPublishResponse;
import momento.sdk.responses.topic.TopicSubscribeResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Topics through the official TopicClient. Version 1.21.0 dials port 443 over TLS whatever its
 * endpoint says, so these tests run only in a network namespace of their own (`mvn test -Pnetns`,
 * see netns/bin/java), against a jiffy-server on 127.0.0.1:443 with a certificate made for the run.
 */
@InOwnNetworkNamespace
class TopicTest {
  private static final Duration WAIT = Duration.ofSeconds(5);

  private static JiffyServer server;
  private static CacheClient caches;
  private static TopicClient topics;

  private String cache;

  @BeforeAll
  static void startTlsServer() throws Exception {
    server = TlsServer.start();
    caches = Servers.cacheClient(TlsServer.HOST, TlsServer.PORT, true);
    topics =
        TopicClient.builder(
                new LocalEndpoint(TlsServer.HOST, TlsServer.PORT, true),
                TopicConfigurations.Laptop.latest())
            .build();
  }

  @AfterAll
  static void stopTlsServer() throws Exception {
    // try-with-resources closes them in reverse order, skipping any startTlsServer did not make.
    try (AutoCloseable s = server;
        AutoCloseable c = caches;
        AutoCloseable t = topics) {}
  }

  @BeforeEach
  void createCache() {
    cache = CacheTest.uniqueName("java-topics");
    is(CacheCreateResponse.Success.class, caches.createCache(cache).join());
  }

  @AfterEach
  void deleteCache() {
    is(CacheDeleteResponse.Success.class, caches.deleteCache(cache).join());
  }

  /** What one subscription received. */
  private static final class Received implements ISubscriptionCallbacks {
    final List<TopicMessage> items = new CopyOnWriteArrayList<>();
    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    TopicSubscribeResponse.Subscription subscription;

    @Override
    public void onItem(TopicMessage message) {
      items.add(message);
    }

    @Override
    public void onCompleted() {}

    @Override
    public void onError(Throwable t) {
      errors.add(t);
    }

    List<String> texts() {
      return items.stream().map(item -> ((TopicMessage.Text) item).getValue()).toList();
    }
  }

  /** Subscribes; the SDK answers once the server's first heartbeat has arrived. */
  private Received subscribe(String cacheName, String topic) {
    Received received = new Received();
    received.subscription =
        is(
            TopicSubscribeResponse.Subscription.class,
            topics.subscribe(cacheName, topic, received).join());
    return received;
  }

  private void publish(String cacheName, String topic, String value) {
    is(TopicPublishResponse.Success.class, topics.publish(cacheName, topic, value).join());
  }

  @Test
  void textAndBinaryArriveInOrder() throws InterruptedException {
    Received got = subscribe(cache, "t");
    publish(cache, "t", "one");
    byte[] binary = {0, (byte) 0xff, 7};
    is(TopicPublishResponse.Success.class, topics.publish(cache, "t", binary).join());
    publish(cache, "t", "three");
    within(WAIT, "three items", () -> got.items.size() == 3);
    assertEquals("one", assertInstanceOf(TopicMessage.Text.class, got.items.get(0)).getValue());
    assertArrayEquals(
        binary, assertInstanceOf(TopicMessage.Binary.class, got.items.get(1)).getValue());
    assertEquals("three", assertInstanceOf(TopicMessage.Text.class, got.items.get(2)).getValue());
    assertEquals(List.of(), got.errors);
    got.subscription.unsubscribe();
  }

  @Test
  void twoSubscribersGetEveryMessage() throws InterruptedException {
    Received first = subscribe(cache, "t");
    Received second = subscribe(cache, "t");
    publish(cache, "t", "a");
    publish(cache, "t", "b");
    within(WAIT, "both subscribers", () -> first.items.size() == 2 && second.items.size() == 2);
    assertEquals(List.of("a", "b"), first.texts());
    assertEquals(List.of("a", "b"), second.texts());
    first.subscription.unsubscribe();
    second.subscription.unsubscribe();
  }

  @Test
  void aSubscriptionStartsAtTheNewestMessageOfItsTopic() throws InterruptedException {
    publish(cache, "t", "older");
    publish(cache, "t", "newest");
    Received got = subscribe(cache, "t");
    publish(cache, "other-topic", "elsewhere");
    publish(cache, "t", "after");
    within(WAIT, "two items", () -> got.items.size() == 2);
    assertEquals(List.of("newest", "after"), got.texts());
    got.subscription.unsubscribe();
  }

  @Test
  void topicsOfTwoCachesAreApart() throws InterruptedException {
    String other = CacheTest.uniqueName("java-topics-other");
    is(CacheCreateResponse.Success.class, caches.createCache(other).join());
    try {
      Received got = subscribe(cache, "t");
      publish(other, "t", "other cache");
      publish(cache, "t", "this cache");
      within(WAIT, "one item", () -> got.items.size() == 1);
      assertEquals(List.of("this cache"), got.texts());
      got.subscription.unsubscribe();
    } finally {
      is(CacheDeleteResponse.Success.class, caches.deleteCache(other).join());
    }
  }

  @Test
  void publishToAMissingCacheIsNotFound() {
    error(
        MomentoErrorCode.NOT_FOUND_ERROR,
        topics.publish(CacheTest.uniqueName("no-such-cache"), "t", "v").join());
  }

  @Test
  void subscribeToAMissingCacheIsNotFound() {
    Object answer;
    try {
      answer = topics.subscribe(CacheTest.uniqueName("no-such-cache"), "t", new Received()).join();
    } catch (CompletionException e) {
      answer = e.getCause();
    }
    SdkException refused = error(MomentoErrorCode.NOT_FOUND_ERROR, answer);
    assertInstanceOf(SdkException.class, refused);
  }
}
