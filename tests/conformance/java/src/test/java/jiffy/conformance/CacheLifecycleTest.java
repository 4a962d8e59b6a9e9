package jiffy.conformance;

import static jiffy.conformance.support.Expect.error;
import static jiffy.conformance.support.Expect.is;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jiffy.conformance.support.CacheTest;
import momento.sdk.exceptions.MomentoErrorCode;
import momento.sdk.responses.cache.GetResponse;
import momento.sdk.responses.cache.control.CacheCreateResponse;
import momento.sdk.responses.cache.control.CacheDeleteResponse;
import momento.sdk.responses.cache.control.CacheFlushResponse;
import momento.sdk.responses.cache.control.CacheInfo;
import momento.sdk.responses.cache.control.CacheListResponse;
import org.junit.jupiter.api.Test;

/** The control plane: create, list, flush and delete caches. */
class CacheLifecycleTest extends CacheTest {
  @Test
  void creatingACacheTwiceIsAlreadyExists() {
    error(MomentoErrorCode.ALREADY_EXISTS_ERROR, client.createCache(cache).join());
  }

  @Test
  void listCachesNamesTheCache() {
    CacheListResponse.Success list =
        is(CacheListResponse.Success.class, client.listCaches().join());
    assertTrue(list.getCaches().stream().map(CacheInfo::name).anyMatch(cache::equals));
  }

  @Test
  void flushEmptiesTheCacheAndKeepsIt() {
    client.set(cache, "k", "v").join();
    is(CacheFlushResponse.Success.class, client.flushCache(cache).join());
    is(GetResponse.Miss.class, client.get(cache, "k").join());
  }

  @Test
  void aDeletedCacheIsNotFound() {
    String other = uniqueName("java-deleted");
    is(CacheCreateResponse.Success.class, client.createCache(other).join());
    is(CacheDeleteResponse.Success.class, client.deleteCache(other).join());
    error(MomentoErrorCode.NOT_FOUND_ERROR, client.get(other, "k").join());
    error(MomentoErrorCode.NOT_FOUND_ERROR, client.deleteCache(other).join());
    error(MomentoErrorCode.NOT_FOUND_ERROR, client.flushCache(other).join());
  }

  @Test
  void collectionWritesToAMissingCacheAreNotFound() {
    String missing = uniqueName("no-such-cache");
    error(
        MomentoErrorCode.NOT_FOUND_ERROR, client.dictionarySetField(missing, "d", "f", "v").join());
    error(MomentoErrorCode.NOT_FOUND_ERROR, client.listPushBack(missing, "l", "v").join());
    error(MomentoErrorCode.NOT_FOUND_ERROR, client.setAddElement(missing, "s", "v").join());
    error(
        MomentoErrorCode.NOT_FOUND_ERROR,
        client.sortedSetPutElement(missing, "z", "v", 1.0).join());
  }
}
