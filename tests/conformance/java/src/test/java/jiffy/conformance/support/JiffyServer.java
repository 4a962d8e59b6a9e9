package jiffy.conformance.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A jiffy-server child process on a port of its own, stopped with SIGTERM. */
public final class JiffyServer implements AutoCloseable {
  private static final long STARTUP_TIMEOUT_SECONDS = 20;
  private static final long SHUTDOWN_TIMEOUT_SECONDS = 10;
  private static final Pattern LISTENING_LINE =
      Pattern.compile("^listening on 127\\.0\\.0\\.1:(\\d+)$");

  private final Process process;
  private final int port;
  private final Path log;

  private JiffyServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** The binary: {@code $JIFFY_SERVER_BIN}, else the repository's release build. */
  public static Path binary() {
    String fromEnv = System.getenv("JIFFY_SERVER_BIN");
    if (fromEnv != null && !fromEnv.isEmpty()) {
      return Path.of(fromEnv);
    }
    // The Maven project sits in tests/conformance/java, three levels below the root.
    return Path.of("../../../target/release/jiffy-server").toAbsolutePath().normalize();
  }

  /**
   * Starts the server listening on {@code listen} (port 0 picks a free one) with {@code extraArgs},
   * and waits for the line that names its port.
   */
  public static JiffyServer start(String listen, String... extraArgs) throws IOException {
    Path binary = binary();
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          "jiffy-server binary not found at " + binary + "; build it or set JIFFY_SERVER_BIN");
    }
    List<String> command = new ArrayList<>(List.of(binary.toString(), "--listen", listen));
    command.addAll(List.of(extraArgs));
    // Its log goes to a file: enough to explain a failed start, and no pipe to drain.
    Path log = Files.createTempFile("jiffy-server-", ".log");
    Process process =
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.to(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .start();
    CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> readPort(process));
    try {
      return new JiffyServer(process, port.get(STARTUP_TIMEOUT_SECONDS, TimeUnit.SECONDS), log);
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IllegalStateException(
          "jiffy-server did not print its port: " + e + "; its log:\n" + readAndDelete(log), e);
    }
  }

  private static int readPort(Process process) {
    try {
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = lines.readLine()) != null) {
        Matcher match = LISTENING_LINE.matcher(line.trim());
        if (match.matches()) {
          return Integer.parseInt(match.group(1));
        }
      }
      throw new IllegalStateException("exited with " + process.waitFor());
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A Momento v1 key signed with {@code secretFile}, as {@code jiffy-server token create --format
   * momento-v1} prints it for a user: {@code caches} and {@code role} as that command takes them.
   */
  public static String momentoKey(Path secretFile, String caches, String role)
      throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(
                binary().toString(),
                "token",
                "create",
                "--auth-secret-file",
                secretFile.toString(),
                "--caches",
                caches,
                "--role",
                role,
                "--expires-in",
                "1h",
                "--format",
                "momento-v1")
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IllegalStateException("token create failed: " + output);
    }
    return output.trim();
  }

  public int port() {
    return port;
  }

  /** Sends SIGTERM and returns the exit status (SIGKILL after a timeout: then not 0). */
  public int stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    return process.waitFor();
  }

  /** Stops the server; a shutdown that does not exit 0 is a failure. */
  @Override
  public void close() throws Exception {
    int status = stop();
    String logText = readAndDelete(log);
    if (status != 0) {
      throw new IllegalStateException(
          "jiffy-server exited with " + status + "; its log:\n" + logText);
    }
  }

  private static String readAndDelete(Path log) throws IOException {
    String text = Files.readString(log);
    Files.delete(log);
    return text;
  }
}
