package jiffy.conformance.support;

import momento.sdk.auth.CredentialProvider;

/**
 * One jiffy-server for every endpoint the SDK derives (control, cache, token, storage), in
 * plaintext or TLS. The SDK's own {@code MomentoLocalProvider} is plaintext only.
 */
public final class LocalEndpoint extends CredentialProvider {
  private final String host;
  private final int port;
  private final boolean secure;

  public LocalEndpoint(String host, int port, boolean secure) {
    this.host = host;
    this.port = port;
    this.secure = secure;
  }

  @Override
  public String getAuthToken() {
    // Without --auth-secret-file the server reads no token.
    return "";
  }

  @Override
  public String getControlEndpoint() {
    return host;
  }

  @Override
  public String getCacheEndpoint() {
    return host;
  }

  @Override
  public String getStorageEndpoint() {
    return host;
  }

  @Override
  public String getTokenEndpoint() {
    return host;
  }

  @Override
  public boolean isEndpointSecure() {
    return secure;
  }

  @Override
  public int getPort() {
    return port;
  }
}
