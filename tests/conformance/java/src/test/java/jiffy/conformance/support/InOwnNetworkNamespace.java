package jiffy.conformance.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * Tests that need port 443, run only where the JVM has a network namespace of its own: {@code mvn
 * test -Pnetns} starts it through netns/bin/java, which sets the variable.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@EnabledIfEnvironmentVariable(
    named = "JIFFY_CONFORMANCE_OWN_NETNS",
    matches = "1",
    disabledReason = "needs port 443 in a network namespace of its own: mvn test -Pnetns")
public @interface InOwnNetworkNamespace {}
