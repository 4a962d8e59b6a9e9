package jiffy.conformance.support;

import java.util.ArrayList;
import java.util.List;

/**
 * A jiffy-server speaking TLS on 127.0.0.1:443, the one port the SDK's TopicClient and its Momento
 * keys dial, with the run's own certificate. Only in a network namespace of the run's own (see
 * {@link InOwnNetworkNamespace}).
 */
public final class TlsServer {
  public static final String HOST = "127.0.0.1";
  public static final int PORT = 443;

  private TlsServer() {}

  public static JiffyServer start(String... extraArgs) throws Exception {
    TestCertificate certificate = TestCertificate.trusted();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--tls-cert", certificate.certificatePem().toString(),
                "--tls-key", certificate.keyPem().toString()));
    args.addAll(List.of(extraArgs));
    return JiffyServer.start(HOST + ":" + PORT, args.toArray(String[]::new));
  }
}
