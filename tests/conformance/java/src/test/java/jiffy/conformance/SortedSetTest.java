package jiffy.conformance;

import static jiffy.conformance.support.Expect.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import jiffy.conformance.support.CacheTest;
import momento.sdk.responses.SortOrder;
import momento.sdk.responses.cache.sortedset.ScoredElement;
import momento.sdk.responses.cache.sortedset.SortedSetFetchResponse;
import momento.sdk.responses.cache.sortedset.SortedSetGetRankResponse;
import momento.sdk.responses.cache.sortedset.SortedSetGetScoreResponse;
import momento.sdk.responses.cache.sortedset.SortedSetGetScoresResponse;
import momento.sdk.responses.cache.sortedset.SortedSetIncrementScoreResponse;
import momento.sdk.responses.cache.sortedset.SortedSetPutElementResponse;
import momento.sdk.responses.cache.sortedset.SortedSetPutElementsResponse;
import momento.sdk.responses.cache.sortedset.SortedSetRemoveElementResponse;
import momento.sdk.responses.cache.sortedset.SortedSetRemoveElementsResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sorted sets: fetch by rank and by score, scores, ranks, increments, removals. */
class SortedSetTest extends CacheTest {
  private static final Map<String, Double> SCORES =
      Map.of("a", 1.0, "b", 2.0, "c", 3.0, "d", 4.0, "e", 5.0);

  private static List<String> values(Object response) {
    return is(SortedSetFetchResponse.Hit.class, response).elementsList().stream()
        .map(ScoredElement::getValue)
        .collect(Collectors.toList());
  }

  @BeforeEach
  void fill() {
    is(
        SortedSetPutElementsResponse.Success.class,
        client.sortedSetPutElements(cache, "z", SCORES).join());
  }

  @Test
  void fetchByRankAscendingHasEveryScore() {
    List<ScoredElement> all =
        is(SortedSetFetchResponse.Hit.class, client.sortedSetFetchByRank(cache, "z").join())
            .elementsList();
    assertEquals(
        List.of("a", "b", "c", "d", "e"), all.stream().map(ScoredElement::getValue).toList());
    assertEquals(
        List.of(1.0, 2.0, 3.0, 4.0, 5.0), all.stream().map(ScoredElement::getScore).toList());
  }

  @Test
  void fetchByRankTakesHalfOpenRangesInEitherOrder() {
    assertEquals(
        List.of("b", "c"),
        values(client.sortedSetFetchByRank(cache, "z", 1, 3, SortOrder.ASCENDING).join()));
    assertEquals(
        List.of("e", "d"),
        values(client.sortedSetFetchByRank(cache, "z", 0, 2, SortOrder.DESCENDING).join()));
    assertEquals(
        List.of("d", "e"),
        values(client.sortedSetFetchByRank(cache, "z", -2, null, SortOrder.ASCENDING).join()));
  }

  @Test
  void fetchByScoreWithBoundsOffsetAndCount() {
    assertEquals(
        List.of("b", "c", "d"),
        values(client.sortedSetFetchByScore(cache, "z", 2.0, 4.0, SortOrder.ASCENDING).join()));
    assertEquals(
        List.of("c", "b"),
        values(
            client.sortedSetFetchByScore(cache, "z", 1.5, 4.5, SortOrder.DESCENDING, 1, 2).join()));
    assertEquals(
        List.of("b", "c"),
        values(client.sortedSetFetchByScore(cache, "z", null, null, null, 1, 2).join()));
  }

  @Test
  void tiesAreOrderedByElementBytes() {
    client.sortedSetPutElements(cache, "t", Map.of("y", 1.0, "x", 1.0, "w", 0.5)).join();
    assertEquals(List.of("w", "x", "y"), values(client.sortedSetFetchByRank(cache, "t").join()));
  }

  @Test
  void aMissingSortedSetMisses() {
    is(SortedSetFetchResponse.Miss.class, client.sortedSetFetchByRank(cache, "none").join());
    is(SortedSetFetchResponse.Miss.class, client.sortedSetFetchByScore(cache, "none").join());
    is(SortedSetGetScoreResponse.Miss.class, client.sortedSetGetScore(cache, "none", "a").join());
    is(
        SortedSetGetScoresResponse.Miss.class,
        client.sortedSetGetScores(cache, "none", List.of("a")).join());
  }

  @Test
  void getScoreHitsOrMissesPerElement() {
    SortedSetGetScoreResponse.Hit hit =
        is(SortedSetGetScoreResponse.Hit.class, client.sortedSetGetScore(cache, "z", "c").join());
    assertEquals("c", hit.element());
    assertEquals(3.0, hit.score());
    assertEquals(
        "x",
        is(SortedSetGetScoreResponse.Miss.class, client.sortedSetGetScore(cache, "z", "x").join())
            .element());
    List<ScoredElement> scores =
        is(
                SortedSetGetScoresResponse.Hit.class,
                client.sortedSetGetScores(cache, "z", List.of("a", "x", "e")).join())
            .scoredElements();
    assertEquals(List.of(new ScoredElement("a", 1.0), new ScoredElement("e", 5.0)), scores);
  }

  @Test
  void getRankInEitherOrder() {
    assertEquals(
        1,
        is(
                SortedSetGetRankResponse.Hit.class,
                client.sortedSetGetRank(cache, "z", "b", SortOrder.ASCENDING).join())
            .rank());
    assertEquals(
        3,
        is(
                SortedSetGetRankResponse.Hit.class,
                client.sortedSetGetRank(cache, "z", "b", SortOrder.DESCENDING).join())
            .rank());
  }

  @Test
  void getRankOnASortedSetThatDoesNotExistMisses() {
    is(
        SortedSetGetRankResponse.Miss.class,
        client.sortedSetGetRank(cache, "none", "a", null).join());
  }

  @Test
  void incrementScoreAddsOrStartsFromZero() {
    assertEquals(
        3.5,
        is(
                SortedSetIncrementScoreResponse.Success.class,
                client.sortedSetIncrementScore(cache, "z", "c", 0.5).join())
            .score());
    assertEquals(
        -2.0,
        is(
                SortedSetIncrementScoreResponse.Success.class,
                client.sortedSetIncrementScore(cache, "z", "new", -2.0).join())
            .score());
    assertEquals(
        List.of("new", "a"),
        values(client.sortedSetFetchByRank(cache, "z", 0, 2, SortOrder.ASCENDING).join()));
  }

  @Test
  void putElementReplacesAScore() {
    is(
        SortedSetPutElementResponse.Success.class,
        client.sortedSetPutElement(cache, "z", "a", 9.0).join());
    assertEquals(
        List.of("b", "c", "d", "e", "a"), values(client.sortedSetFetchByRank(cache, "z").join()));
  }

  @Test
  void removingTheLastElementsRemovesTheSortedSet() {
    is(
        SortedSetRemoveElementResponse.Success.class,
        client.sortedSetRemoveElement(cache, "z", "a").join());
    assertEquals(
        List.of("b", "c", "d", "e"), values(client.sortedSetFetchByRank(cache, "z").join()));
    is(
        SortedSetRemoveElementsResponse.Success.class,
        client.sortedSetRemoveElements(cache, "z", List.of("b", "c", "d", "e", "x")).join());
    is(SortedSetFetchResponse.Miss.class, client.sortedSetFetchByRank(cache, "z").join());
  }
}
