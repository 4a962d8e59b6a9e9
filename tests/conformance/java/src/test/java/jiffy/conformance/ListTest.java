package jiffy.conformance;

import static jiffy.conformance.support.Expect.is;
import static jiffy.conformance.support.Expect.within;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import jiffy.conformance.support.CacheTest;
import momento.sdk.requests.CollectionTtl;
import momento.sdk.responses.cache.list.ListConcatenateBackResponse;
import momento.sdk.responses.cache.list.ListConcatenateFrontResponse;
import momento.sdk.responses.cache.list.ListFetchResponse;
import momento.sdk.responses.cache.list.ListLengthResponse;
import momento.sdk.responses.cache.list.ListPopBackResponse;
import momento.sdk.responses.cache.list.ListPopFrontResponse;
import momento.sdk.responses.cache.list.ListPushBackResponse;
import momento.sdk.responses.cache.list.ListPushFrontResponse;
import momento.sdk.responses.cache.list.ListRemoveValueResponse;
import momento.sdk.responses.cache.list.ListRetainResponse;
import org.junit.jupiter.api.Test;

/** Lists: push, concatenate, pop, fetch slices, retain, remove; a missing list misses. */
class ListTest extends CacheTest {
  private List<String> fetch(String list) {
    return is(ListFetchResponse.Hit.class, client.listFetch(cache, list).join()).valueListString();
  }

  @Test
  void pushesAnswerTheNewLength() {
    assertEquals(
        1,
        is(ListPushBackResponse.Success.class, client.listPushBack(cache, "l", "b").join())
            .getListLength());
    assertEquals(
        2,
        is(ListPushFrontResponse.Success.class, client.listPushFront(cache, "l", "a").join())
            .getListLength());
    assertEquals(
        3,
        is(ListPushBackResponse.Success.class, client.listPushBack(cache, "l", "c").join())
            .getListLength());
    assertEquals(List.of("a", "b", "c"), fetch("l"));
  }

  @Test
  void concatenationKeepsOrderAtEitherEnd() {
    assertEquals(
        2,
        is(
                ListConcatenateBackResponse.Success.class,
                client.listConcatenateBack(cache, "l", List.of("c", "d")).join())
            .getListLength());
    assertEquals(
        4,
        is(
                ListConcatenateFrontResponse.Success.class,
                client.listConcatenateFront(cache, "l", List.of("a", "b")).join())
            .getListLength());
    assertEquals(List.of("a", "b", "c", "d"), fetch("l"));
  }

  @Test
  void truncationToASizeDropsFromTheOtherEnd() {
    client.listConcatenateBack(cache, "l", List.of("a", "b", "c")).join();
    is(
        ListConcatenateBackResponse.Success.class,
        client.listConcatenateBack(cache, "l", List.of("d", "e"), 3).join());
    assertEquals(List.of("c", "d", "e"), fetch("l"));
    is(ListPushFrontResponse.Success.class, client.listPushFront(cache, "l", "z", 2).join());
    assertEquals(List.of("z", "c"), fetch("l"));
  }

  @Test
  void popsTakeFromEachEndAndMissWhenEmpty() {
    client.listConcatenateBack(cache, "l", List.of("a", "b")).join();
    assertEquals(
        "a",
        is(ListPopFrontResponse.Hit.class, client.listPopFront(cache, "l").join()).valueString());
    assertEquals(
        "b",
        is(ListPopBackResponse.Hit.class, client.listPopBack(cache, "l").join()).valueString());
    is(ListPopFrontResponse.Miss.class, client.listPopFront(cache, "l").join());
    is(ListPopBackResponse.Miss.class, client.listPopBack(cache, "l").join());
  }

  @Test
  void lengthHitsOrMisses() {
    client.listConcatenateBack(cache, "l", List.of("a", "b", "c")).join();
    assertEquals(
        3, is(ListLengthResponse.Hit.class, client.listLength(cache, "l").join()).getListLength());
    is(ListLengthResponse.Miss.class, client.listLength(cache, "none").join());
    is(ListFetchResponse.Miss.class, client.listFetch(cache, "none").join());
  }

  @Test
  void fetchTakesHalfOpenSlicesWithNegativeIndices() {
    client.listConcatenateBack(cache, "l", List.of("a", "b", "c", "d", "e")).join();
    assertEquals(
        List.of("b", "c"),
        is(ListFetchResponse.Hit.class, client.listFetch(cache, "l", 1, 3).join())
            .valueListString());
    assertEquals(
        List.of("d", "e"),
        is(ListFetchResponse.Hit.class, client.listFetch(cache, "l", -2, null).join())
            .valueListString());
    assertEquals(
        List.of("a", "b", "c", "d"),
        is(ListFetchResponse.Hit.class, client.listFetch(cache, "l", null, -1).join())
            .valueListString());
  }

  @Test
  void retainKeepsASliceUnderTheSdksZeroTtl() {
    // The SDK sends ttl_milliseconds = 0 with refresh_ttl = false: keep the list's own TTL.
    client.listConcatenateBack(cache, "l", List.of("a", "b", "c", "d")).join();
    is(ListRetainResponse.Success.class, client.listRetain(cache, "l", 1, 3).join());
    assertEquals(List.of("b", "c"), fetch("l"));
    is(ListRetainResponse.Success.class, client.listRetain(cache, "l", -1, null).join());
    assertEquals(List.of("c"), fetch("l"));
  }

  @Test
  void removeValueRemovesEveryCopy() {
    client.listConcatenateBack(cache, "l", List.of("a", "x", "b", "x")).join();
    is(ListRemoveValueResponse.Success.class, client.listRemoveValue(cache, "l", "x").join());
    assertEquals(List.of("a", "b"), fetch("l"));
    is(ListRemoveValueResponse.Success.class, client.listRemoveValue(cache, "none", "x").join());
  }

  @Test
  void aListExpiresWithItsCollectionTtl() throws InterruptedException {
    client.listPushBack(cache, "l", "a", null, CollectionTtl.of(Duration.ofMillis(300))).join();
    within(
        Duration.ofSeconds(5),
        "the list to expire",
        () -> client.listFetch(cache, "l").join() instanceof ListFetchResponse.Miss);
  }
}
