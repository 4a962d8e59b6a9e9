package jiffy.conformance.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import momento.sdk.exceptions.MomentoErrorCode;
import momento.sdk.exceptions.SdkException;

/** Assertions on the SDK's answers, whose errors are values of the response type. */
public final class Expect {
  private Expect() {}

  /** The answer is of the given kind (Hit, Miss, Success...); an error fails with its code. */
  public static <T> T is(Class<T> kind, Object response) {
    if (response instanceof SdkException error && !kind.isInstance(response)) {
      fail(
          "expected "
              + kind.getSimpleName()
              + ", got "
              + error.getErrorCode()
              + ": "
              + error.getMessage(),
          error);
    }
    return assertInstanceOf(kind, response);
  }

  /** The answer is an error with the given code. */
  public static SdkException error(MomentoErrorCode code, Object response) {
    SdkException error = assertInstanceOf(SdkException.class, response, "expected " + code);
    assertEquals(code, error.getErrorCode(), error.getMessage());
    return error;
  }

  /** Waits, polling every 10 ms, until {@code done} holds; fails after {@code limit}. */
  public static void within(Duration limit, String what, BooleanSupplier done)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      Thread.sleep(10);
    }
  }
}
