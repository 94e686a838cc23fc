package dev.cellar.server.net;

import dev.cellar.server.CellarServer;
import dev.cellar.server.config.ServerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

/**
 * A server in its own JVM that reports, on request, how many bytes its event loops have allocated:
 * {@code <dir> <transport>}; prints {@code PORT n}, then answers each {@code ALLOCATED} line on
 * stdin with {@code ALLOCATED bytes}, and stops at the end of stdin. For {@link
 * GarbageFreePathTest}, which must see the request path compiled as in production: in the test JVM,
 * coverage instrumentation by the fuzzers' agent changes what the JIT inlines.
 */
public final class AllocationProbeMain {
  public static void main(String[] args) throws Exception {
    ServerConfig config =
        new ServerConfig()
            .set("port", "0")
            .set("http-port", "0")
            .set("dir", args[0])
            .set("transport", args[1])
            .set("threads", "1")
            .set("appendfsync", "no");
    try (CellarServer server = CellarServer.start(config)) {
      System.out.println("PORT " + server.port());
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null; ) {
        if (line.equals("ALLOCATED")) {
          System.out.println("ALLOCATED " + loopAllocatedBytes());
          System.out.flush();
        }
      }
    }
  }

  /** Bytes allocated so far by the event loop threads, from the JVM's per-thread counters. */
  private static long loopAllocatedBytes() {
    long[] loops =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("cellar-loop-"))
            .mapToLong(Thread::threadId)
            .toArray();
    if (loops.length != 1) {
      throw new IllegalStateException("expected the one event loop thread, found " + loops.length);
    }
    com.sun.management.ThreadMXBean bean =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    return bean.getThreadAllocatedBytes(loops[0]);
  }
}
