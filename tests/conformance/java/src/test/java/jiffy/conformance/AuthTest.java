package jiffy.conformance;

import static jiffy.conformance.support.Expect.error;
import static jiffy.conformance.support.Expect.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import jiffy.conformance.support.CacheTest;
import jiffy.conformance.support.InOwnNetworkNamespace;
import jiffy.conformance.support.JiffyServer;
import jiffy.conformance.support.Servers;
import jiffy.conformance.support.TlsServer;
import momento.sdk.CacheClient;
import momento.sdk.auth.StringCredentialProvider;
import momento.sdk.config.Configurations;
import momento.sdk.exceptions.MomentoErrorCode;
import momento.sdk.responses.cache.GetResponse;
import momento.sdk.responses.cache.SetResponse;
import momento.sdk.responses.cache.control.CacheCreateResponse;
import momento.sdk.responses.cache.control.CacheDeleteResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Auth on ({@code --auth-secret-file}), with the keys {@code jiffy-server token create --format
 * momento-v1} prints, read by the SDK's own {@link StringCredentialProvider} as a user's key is.
 * The SDK dials such a key's endpoints on port 443 over TLS; the suite overrides their host only
 * (127.0.0.1), so these tests share the topic tests' network namespace.
 */
@InOwnNetworkNamespace
class AuthTest {
  private static Path secretDir;
  private static Path secret;
  private static JiffyServer server;

  @BeforeAll
  static void startServerWithAuth() throws Exception {
    secretDir = Files.createTempDirectory("jiffy-secret-");
    secret = writeSecret(secretDir.resolve("secret"));
    server = TlsServer.start("--auth-secret-file", secret.toString());
  }

  @AfterAll
  static void stopServer() throws Exception {
    try (AutoCloseable s = server) {
      Files.deleteIfExists(secret);
      Files.deleteIfExists(secretDir);
    }
  }

  private static Path writeSecret(Path file) throws Exception {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Files.writeString(file, HexFormat.of().formatHex(bytes));
  }

  private static CacheClient clientWith(String momentoKey) {
    return CacheClient.builder(
            new StringCredentialProvider(momentoKey, TlsServer.HOST, TlsServer.HOST, null, null),
            Configurations.Laptop.latest(),
            Servers.DEFAULT_TTL)
        .build();
  }

  private static CacheClient clientWith(String caches, String role) throws Exception {
    return clientWith(JiffyServer.momentoKey(secret, caches, role));
  }

  @Test
  void anAdminKeyManagesCachesAndItems() throws Exception {
    String cache = CacheTest.uniqueName("java-auth");
    try (CacheClient admin = clientWith("all", "admin")) {
      is(CacheCreateResponse.Success.class, admin.createCache(cache).join());
      is(SetResponse.Success.class, admin.set(cache, "k", "v").join());
      assertEquals("v", is(GetResponse.Hit.class, admin.get(cache, "k").join()).valueString());
      is(CacheDeleteResponse.Success.class, admin.deleteCache(cache).join());
    }
  }

  @Test
  void aReadKeyReadsAndIsRefusedWritesAndCaches() throws Exception {
    String cache = CacheTest.uniqueName("java-auth");
    try (CacheClient admin = clientWith("all", "admin");
        CacheClient reader = clientWith("all", "read")) {
      is(CacheCreateResponse.Success.class, admin.createCache(cache).join());
      admin.set(cache, "k", "v").join();
      assertEquals("v", is(GetResponse.Hit.class, reader.get(cache, "k").join()).valueString());
      error(MomentoErrorCode.PERMISSION_ERROR, reader.set(cache, "k", "changed").join());
      error(MomentoErrorCode.PERMISSION_ERROR, reader.createCache(cache + "-more").join());
      assertEquals("v", is(GetResponse.Hit.class, admin.get(cache, "k").join()).valueString());
      is(CacheDeleteResponse.Success.class, admin.deleteCache(cache).join());
    }
  }

  @Test
  void aKeyForSomeCachesIsRefusedTheOthers() throws Exception {
    String team = CacheTest.uniqueName("team");
    String other = CacheTest.uniqueName("other");
    try (CacheClient admin = clientWith("all", "admin");
        CacheClient writer = clientWith("prefix:team-", "write")) {
      is(CacheCreateResponse.Success.class, admin.createCache(team).join());
      is(CacheCreateResponse.Success.class, admin.createCache(other).join());
      is(SetResponse.Success.class, writer.set(team, "k", "v").join());
      error(MomentoErrorCode.PERMISSION_ERROR, writer.set(other, "k", "v").join());
      error(MomentoErrorCode.PERMISSION_ERROR, writer.get(other, "k").join());
      is(GetResponse.Miss.class, admin.get(other, "k").join());
      is(CacheDeleteResponse.Success.class, admin.deleteCache(team).join());
      is(CacheDeleteResponse.Success.class, admin.deleteCache(other).join());
    }
  }

  @Test
  void aKeyOfAnotherSecretIsRefused() throws Exception {
    Path otherSecret = writeSecret(secretDir.resolve("other-secret"));
    try (CacheClient stranger = clientWith(JiffyServer.momentoKey(otherSecret, "all", "admin"))) {
      error(MomentoErrorCode.AUTHENTICATION_ERROR, stranger.get("any-cache", "k").join());
      error(MomentoErrorCode.AUTHENTICATION_ERROR, stranger.listCaches().join());
    } finally {
      Files.delete(otherSecret);
    }
  }
}
