package jiffy.conformance;

import static jiffy.conformance.support.Expect.is;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import jiffy.conformance.support.CacheTest;
import momento.sdk.responses.cache.set.SetAddElementResponse;
import momento.sdk.responses.cache.set.SetAddElementsResponse;
import momento.sdk.responses.cache.set.SetFetchResponse;
import momento.sdk.responses.cache.set.SetRemoveElementResponse;
import momento.sdk.responses.cache.set.SetRemoveElementsResponse;
import org.junit.jupiter.api.Test;

/** Sets: add, fetch, remove; duplicates are one element; a missing set misses. */
class SetTest extends CacheTest {
  private Set<String> fetch(String set) {
    return is(SetFetchResponse.Hit.class, client.setFetch(cache, set).join()).valueSetString();
  }

  @Test
  void addedElementsAreFetchedOnce() {
    is(SetAddElementResponse.Success.class, client.setAddElement(cache, "s", "a").join());
    is(
        SetAddElementsResponse.Success.class,
        client.setAddElements(cache, "s", List.of("a", "b", "c", "b")).join());
    assertEquals(Set.of("a", "b", "c"), fetch("s"));
  }

  @Test
  void aMissingSetMisses() {
    is(SetFetchResponse.Miss.class, client.setFetch(cache, "none").join());
    is(SetRemoveElementResponse.Success.class, client.setRemoveElement(cache, "none", "a").join());
  }

  @Test
  void removingTheLastElementRemovesTheSet() {
    client.setAddElements(cache, "s", List.of("a", "b", "c")).join();
    is(SetRemoveElementResponse.Success.class, client.setRemoveElement(cache, "s", "a").join());
    assertEquals(Set.of("b", "c"), fetch("s"));
    is(
        SetRemoveElementsResponse.Success.class,
        client.setRemoveElements(cache, "s", List.of("b", "c")).join());
    is(SetFetchResponse.Miss.class, client.setFetch(cache, "s").join());
  }

  @Test
  void binaryElementsRoundTrip() {
    byte[] element = {0, (byte) 0xff, (byte) 0x80};
    is(SetAddElementResponse.Success.class, client.setAddElement(cache, "s", element).join());
    Set<byte[]> got =
        is(SetFetchResponse.Hit.class, client.setFetch(cache, "s").join()).valueSetByteArray();
    assertEquals(1, got.size());
    assertArrayEquals(element, got.iterator().next());
  }
}
