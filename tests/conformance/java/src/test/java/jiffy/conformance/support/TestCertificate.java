package jiffy.conformance.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A self-signed certificate for 127.0.0.1, made with the JDK's own keytool, written as PEM for
 * jiffy-server's {@code --tls-cert} and {@code --tls-key}, and made this JVM's trust store: the
 * SDK's TLS channels trust the JVM's default trust store and nothing else. One per run, deleted
 * when the JVM exits.
 */
final class TestCertificate {
  private static final String ALIAS = "jiffy-test";
  // Guards nothing: the stores live in a temporary directory for one run.
  private static final char[] PASSWORD = "jiffy-test".toCharArray();

  private final Path dir;

  private TestCertificate(Path dir) {
    this.dir = dir;
  }

  Path certificatePem() {
    return dir.resolve("cert.pem");
  }

  Path keyPem() {
    return dir.resolve("key.pem");
  }

  private static TestCertificate trusted;

  /** The run's certificate, made at the first call; {@code javax.net.ssl.trustStore} names it. */
  static synchronized TestCertificate trusted() throws IOException, GeneralSecurityException {
    if (trusted == null) {
      trusted = makeAndTrust();
      Runtime.getRuntime().addShutdownHook(new Thread(trusted::delete));
    }
    return trusted;
  }

  private static TestCertificate makeAndTrust() throws IOException, GeneralSecurityException {
    TestCertificate made = new TestCertificate(Files.createTempDirectory("jiffy-tls-"));
    Path keyStore = made.dir.resolve("server.p12");
    keytool(
        "-genkeypair",
        "-alias",
        ALIAS,
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "SAN=ip:127.0.0.1,dns:localhost",
        "-validity",
        "2",
        "-storetype",
        "PKCS12",
        "-keystore",
        keyStore.toString(),
        "-storepass",
        new String(PASSWORD));

    KeyStore server = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keyStore)) {
      server.load(in, PASSWORD);
    }
    Certificate certificate = server.getCertificate(ALIAS);
    Key key = server.getKey(ALIAS, PASSWORD);
    writePem(made.certificatePem(), "CERTIFICATE", certificate.getEncoded());
    // PKCS#8, which is what Key.getEncoded gives for a private key.
    writePem(made.keyPem(), "PRIVATE KEY", key.getEncoded());

    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry(ALIAS, certificate);
    Path trustStore = made.dir.resolve("trust.p12");
    try (OutputStream out = Files.newOutputStream(trustStore)) {
      trust.store(out, PASSWORD);
    }
    System.setProperty("javax.net.ssl.trustStore", trustStore.toString());
    System.setProperty("javax.net.ssl.trustStorePassword", new String(PASSWORD));
    System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
    return made;
  }

  private static void keytool(String... args) throws IOException {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> command = Stream.concat(Stream.of(keytool.toString()), Stream.of(args)).toList();
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (process.waitFor() != 0) {
        throw new IOException("keytool failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static void writePem(Path path, String label, byte[] der) throws IOException {
    String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
    Files.writeString(
        path, "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n");
  }

  private void delete() {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
