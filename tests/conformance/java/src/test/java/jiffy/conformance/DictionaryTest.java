package jiffy.conformance;

import static jiffy.conformance.support.Expect.is;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import jiffy.conformance.support.CacheTest;
import momento.sdk.requests.CollectionTtl;
import momento.sdk.responses.cache.dictionary.DictionaryFetchResponse;
import momento.sdk.responses.cache.dictionary.DictionaryGetFieldResponse;
import momento.sdk.responses.cache.dictionary.DictionaryGetFieldsResponse;
import momento.sdk.responses.cache.dictionary.DictionaryIncrementResponse;
import momento.sdk.responses.cache.dictionary.DictionaryRemoveFieldResponse;
import momento.sdk.responses.cache.dictionary.DictionaryRemoveFieldsResponse;
import momento.sdk.responses.cache.dictionary.DictionarySetFieldResponse;
import momento.sdk.responses.cache.dictionary.DictionarySetFieldsResponse;
import org.junit.jupiter.api.Test;

/** Dictionaries: fields set, read, counted, removed; a missing dictionary misses. */
class DictionaryTest extends CacheTest {
  @Test
  void setFieldThenGetField() {
    is(
        DictionarySetFieldResponse.Success.class,
        client.dictionarySetField(cache, "d", "f", "v").join());
    DictionaryGetFieldResponse.Hit hit =
        is(DictionaryGetFieldResponse.Hit.class, client.dictionaryGetField(cache, "d", "f").join());
    assertEquals("f", hit.fieldString());
    assertEquals("v", hit.valueString());
  }

  @Test
  void aMissingFieldOrDictionaryMisses() {
    client.dictionarySetField(cache, "d", "f", "v").join();
    is(
        DictionaryGetFieldResponse.Miss.class,
        client.dictionaryGetField(cache, "d", "other").join());
    is(DictionaryGetFieldResponse.Miss.class, client.dictionaryGetField(cache, "none", "f").join());
    is(DictionaryFetchResponse.Miss.class, client.dictionaryFetch(cache, "none").join());
    is(
        DictionaryGetFieldsResponse.Miss.class,
        client.dictionaryGetFields(cache, "none", List.of("f")).join());
  }

  @Test
  void setFieldsThenFetch() {
    Map<String, String> fields = Map.of("a", "1", "b", "2", "c", "3");
    is(
        DictionarySetFieldsResponse.Success.class,
        client.dictionarySetFields(cache, "d", fields).join());
    client.dictionarySetField(cache, "d", "a", "changed").join();
    assertEquals(
        Map.of("a", "changed", "b", "2", "c", "3"),
        is(DictionaryFetchResponse.Hit.class, client.dictionaryFetch(cache, "d").join())
            .valueMap());
  }

  @Test
  void getFieldsAnswersEachFieldInOrder() {
    client.dictionarySetFields(cache, "d", Map.of("a", "1", "c", "3")).join();
    DictionaryGetFieldsResponse.Hit hit =
        is(
            DictionaryGetFieldsResponse.Hit.class,
            client.dictionaryGetFields(cache, "d", List.of("a", "b", "c")).join());
    List<DictionaryGetFieldResponse> each = hit.perFieldResponses();
    assertEquals(3, each.size());
    assertEquals("1", is(DictionaryGetFieldResponse.Hit.class, each.get(0)).valueString());
    assertEquals("b", is(DictionaryGetFieldResponse.Miss.class, each.get(1)).fieldString());
    assertEquals("3", is(DictionaryGetFieldResponse.Hit.class, each.get(2)).valueString());
    assertEquals(Map.of("a", "1", "c", "3"), hit.valueMap());
  }

  @Test
  void incrementCountsAField() {
    assertEquals(
        1,
        is(
                DictionaryIncrementResponse.Success.class,
                client.dictionaryIncrement(cache, "d", "n", 1).join())
            .value());
    assertEquals(
        6,
        is(
                DictionaryIncrementResponse.Success.class,
                client.dictionaryIncrement(cache, "d", "n", 5).join())
            .value());
    assertEquals(
        "6",
        is(DictionaryGetFieldResponse.Hit.class, client.dictionaryGetField(cache, "d", "n").join())
            .valueString());
  }

  @Test
  void incrementOfAFieldThatIsNoNumberFails() {
    client.dictionarySetField(cache, "d", "n", "text").join();
    assertInstanceOf(
        DictionaryIncrementResponse.Error.class,
        client.dictionaryIncrement(cache, "d", "n", 1).join());
    assertEquals(
        "text",
        is(DictionaryGetFieldResponse.Hit.class, client.dictionaryGetField(cache, "d", "n").join())
            .valueString());
  }

  @Test
  void removingTheLastFieldRemovesTheDictionary() {
    client.dictionarySetFields(cache, "d", Map.of("a", "1", "b", "2", "c", "3")).join();
    is(
        DictionaryRemoveFieldResponse.Success.class,
        client.dictionaryRemoveField(cache, "d", "a").join());
    assertEquals(
        Map.of("b", "2", "c", "3"),
        is(DictionaryFetchResponse.Hit.class, client.dictionaryFetch(cache, "d").join())
            .valueMap());
    is(
        DictionaryRemoveFieldsResponse.Success.class,
        client.dictionaryRemoveFields(cache, "d", List.of("b", "c", "absent")).join());
    is(DictionaryFetchResponse.Miss.class, client.dictionaryFetch(cache, "d").join());
  }

  @Test
  void aCollectionTtlWithRefreshIsApplied() {
    client
        .dictionarySetField(cache, "d", "f", "v", CollectionTtl.of(Duration.ofSeconds(20)))
        .join();
    assertRemainingTtl("d", 0, 20_000);
    client
        .dictionarySetField(cache, "d", "g", "w", CollectionTtl.of(Duration.ofSeconds(200)))
        .join();
    assertRemainingTtl("d", 20_000, 200_000);
  }

  @Test
  void binaryValuesRoundTrip() {
    byte[] value = {0, (byte) 0xff, (byte) 0x80, 10};
    is(
        DictionarySetFieldResponse.Success.class,
        client.dictionarySetField(cache, "d", "f", value).join());
    assertArrayEquals(
        value,
        is(DictionaryGetFieldResponse.Hit.class, client.dictionaryGetField(cache, "d", "f").join())
            .valueByteArray());
  }
}
