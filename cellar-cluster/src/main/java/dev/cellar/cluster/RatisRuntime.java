package dev.cellar.cluster;

/**
 * What the Ratis runtime needs set before its first class loads. Ratis ships its own copy of Netty
 * (relocated under {@code org.apache.ratis.thirdparty}), which by default allocates memory through
 * the JDK's internal memory access (module {@code jdk.unsupported}) when that module is present. A
 * cluster node runs without it (docs/cluster.md); where Ratis runs in a JVM that has it, this tells
 * Ratis's Netty to use the JDK's supported buffers all the same, as Cellar's own Netty does.
 *
 * <p>Ratis logs every election, log segment and connection attempt at INFO, thousands of lines in a
 * node's first minute; its loggers start at WARNING, unless the logging configuration names them.
 */
final class RatisRuntime {
  private static final String NO_UNSAFE = "org.apache.ratis.thirdparty.io.netty.noUnsafe";

  /** Held: java.util.logging keeps loggers only weakly, and a collected one forgets its level. */
  private static final java.util.logging.Logger RATIS_LOG =
      java.util.logging.Logger.getLogger("org.apache.ratis");

  static {
    if (System.getProperty(NO_UNSAFE) == null) {
      System.setProperty(NO_UNSAFE, "true");
    }
    if (RATIS_LOG.getLevel() == null) {
      RATIS_LOG.setLevel(java.util.logging.Level.WARNING);
    }
  }

  private RatisRuntime() {}

  /** Sets the properties (once, on first call); idempotent. */
  static void prepare() {
    // the static initializer did the work
  }
}
