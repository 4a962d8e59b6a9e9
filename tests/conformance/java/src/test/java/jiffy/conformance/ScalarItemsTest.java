package jiffy.conformance;

import static jiffy.conformance.support.Expect.error;
import static jiffy.conformance.support.Expect.is;
import static jiffy.conformance.support.Expect.within;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import jiffy.conformance.support.CacheTest;
import momento.sdk.exceptions.MomentoErrorCode;
import momento.sdk.responses.cache.DeleteResponse;
import momento.sdk.responses.cache.GetBatchResponse;
import momento.sdk.responses.cache.GetResponse;
import momento.sdk.responses.cache.IncrementResponse;
import momento.sdk.responses.cache.SetBatchResponse;
import momento.sdk.responses.cache.SetIfNotExistsResponse;
import momento.sdk.responses.cache.SetResponse;
import momento.sdk.responses.cache.ttl.DecreaseTtlResponse;
import momento.sdk.responses.cache.ttl.IncreaseTtlResponse;
import momento.sdk.responses.cache.ttl.ItemGetTtlResponse;
import momento.sdk.responses.cache.ttl.UpdateTtlResponse;
import org.junit.jupiter.api.Test;

/** Items: set, get, delete, setIfNotExists, increment, TTLs and batches. */
class ScalarItemsTest extends CacheTest {
  @Test
  void setThenGetHits() {
    SetResponse.Success set = is(SetResponse.Success.class, client.set(cache, "k", "v").join());
    assertEquals("v", set.valueString());
    assertEquals("v", is(GetResponse.Hit.class, client.get(cache, "k").join()).valueString());
  }

  @Test
  void getOfAMissingKeyMisses() {
    is(GetResponse.Miss.class, client.get(cache, "never-set").join());
  }

  @Test
  void binaryKeysAndValuesRoundTrip() {
    byte[] key = {0, (byte) 0xff, 10, (byte) 0x80};
    byte[] value = {(byte) 0xc3, 0x28, 0, (byte) 0xfe};
    is(SetResponse.Success.class, client.set(cache, key, value).join());
    assertArrayEquals(
        value, is(GetResponse.Hit.class, client.get(cache, key).join()).valueByteArray());
  }

  @Test
  void anEmptyValueIsStoredAndAnEmptyKeyRefused() {
    // The server's documented limit: a key is at least one byte (INVALID_ARGUMENT).
    is(SetResponse.Success.class, client.set(cache, "k", "").join());
    assertEquals("", is(GetResponse.Hit.class, client.get(cache, "k").join()).valueString());
    error(MomentoErrorCode.BAD_REQUEST_ERROR, client.set(cache, "", "v").join());
  }

  @Test
  void deleteRemovesAndDeletingAMissingKeySucceeds() {
    client.set(cache, "k", "v").join();
    is(DeleteResponse.Success.class, client.delete(cache, "k").join());
    is(GetResponse.Miss.class, client.get(cache, "k").join());
    is(DeleteResponse.Success.class, client.delete(cache, "k").join());
  }

  @Test
  void anItemExpiresAfterItsTtl() throws InterruptedException {
    is(SetResponse.Success.class, client.set(cache, "k", "v", Duration.ofMillis(300)).join());
    is(GetResponse.Hit.class, client.get(cache, "k").join());
    within(
        Duration.ofSeconds(5),
        "the item to expire",
        () -> client.get(cache, "k").join() instanceof GetResponse.Miss);
  }

  @Test
  void setIfNotExistsStoresOnlyOnce() {
    SetIfNotExistsResponse.Stored stored =
        is(SetIfNotExistsResponse.Stored.class, client.setIfNotExists(cache, "k", "first").join());
    assertEquals("first", stored.valueString());
    is(SetIfNotExistsResponse.NotStored.class, client.setIfNotExists(cache, "k", "second").join());
    assertEquals("first", is(GetResponse.Hit.class, client.get(cache, "k").join()).valueString());
  }

  @Test
  void incrementCountsFromZeroAndStoresDecimalText() {
    assertEquals(
        1,
        is(IncrementResponse.Success.class, client.increment(cache, "n", 1).join()).valueNumber());
    assertEquals(
        42,
        is(IncrementResponse.Success.class, client.increment(cache, "n", 41).join()).valueNumber());
    assertEquals(
        40,
        is(IncrementResponse.Success.class, client.increment(cache, "n", -2).join()).valueNumber());
    assertEquals("40", is(GetResponse.Hit.class, client.get(cache, "n").join()).valueString());
  }

  @Test
  void incrementOfTextThatIsNoNumberFailsAndChangesNothing() {
    client.set(cache, "n", "not a number").join();
    assertInstanceOf(IncrementResponse.Error.class, client.increment(cache, "n", 1).join());
    assertEquals(
        "not a number", is(GetResponse.Hit.class, client.get(cache, "n").join()).valueString());
  }

  @Test
  void itemGetTtlGivesTheRemainingTimeOrMisses() {
    client.set(cache, "k", "v", Duration.ofSeconds(30)).join();
    assertRemainingTtl("k", 0, 30_000);
    is(ItemGetTtlResponse.Miss.class, client.itemGetTtl(cache, "missing").join());
  }

  @Test
  void updateTtlReplacesTheTtlOrMisses() {
    client.set(cache, "k", "v", Duration.ofSeconds(30)).join();
    is(UpdateTtlResponse.Set.class, client.updateTtl(cache, "k", Duration.ofSeconds(300)).join());
    assertRemainingTtl("k", 30_000, 300_000);
    is(
        UpdateTtlResponse.Miss.class,
        client.updateTtl(cache, "missing", Duration.ofSeconds(5)).join());
  }

  @Test
  void increaseTtlOnlyLengthens() {
    client.set(cache, "k", "v", Duration.ofSeconds(30)).join();
    is(
        IncreaseTtlResponse.NotSet.class,
        client.increaseTtl(cache, "k", Duration.ofSeconds(10)).join());
    is(
        IncreaseTtlResponse.Set.class,
        client.increaseTtl(cache, "k", Duration.ofSeconds(60)).join());
    is(
        IncreaseTtlResponse.Miss.class,
        client.increaseTtl(cache, "missing", Duration.ofSeconds(60)).join());
  }

  @Test
  void decreaseTtlOnlyShortens() {
    client.set(cache, "k", "v", Duration.ofSeconds(30)).join();
    is(
        DecreaseTtlResponse.NotSet.class,
        client.decreaseTtl(cache, "k", Duration.ofSeconds(60)).join());
    is(
        DecreaseTtlResponse.Set.class,
        client.decreaseTtl(cache, "k", Duration.ofSeconds(10)).join());
    is(
        DecreaseTtlResponse.Miss.class,
        client.decreaseTtl(cache, "missing", Duration.ofSeconds(10)).join());
  }

  @Test
  void setBatchThenGetBatch() {
    is(SetBatchResponse.Success.class, client.setBatch(cache, Map.of("a", "1", "b", "2")).join());
    GetBatchResponse.Success batch =
        is(GetBatchResponse.Success.class, client.getBatch(cache, List.of("a", "b", "c")).join());
    assertEquals(Map.of("a", "1", "b", "2"), batch.valueMap());
    is(GetResponse.Miss.class, batch.results().get("c"));
  }

  @Test
  void aMissingCacheIsNotFoundOnReadsAndWrites() {
    String missing = uniqueName("no-such-cache");
    error(MomentoErrorCode.NOT_FOUND_ERROR, client.get(missing, "k").join());
    error(MomentoErrorCode.NOT_FOUND_ERROR, client.set(missing, "k", "v").join());
  }

  @Test
  void aValueOverTheLimitIsRefusedAndTheOldOneKept() {
    client.set(cache, "k", "old").join();
    // One byte over the server's default --max-value-size, 5 MiB.
    byte[] tooLarge = new byte[5 * 1024 * 1024 + 1];
    error(
        MomentoErrorCode.LIMIT_EXCEEDED_ERROR,
        client.set(cache, "k".getBytes(StandardCharsets.UTF_8), tooLarge).join());
    assertEquals("old", is(GetResponse.Hit.class, client.get(cache, "k").join()).valueString());
  }

  @Test
  void setIfNotExistsStoresAgainOnceTheItemExpired() throws InterruptedException {
    is(
        SetIfNotExistsResponse.Stored.class,
        client.setIfNotExists(cache, "k", "first", Duration.ofMillis(300)).join());
    within(
        Duration.ofSeconds(5),
        "the item to expire",
        () -> client.get(cache, "k").join() instanceof GetResponse.Miss);
    is(SetIfNotExistsResponse.Stored.class, client.setIfNotExists(cache, "k", "second").join());
  }
}
