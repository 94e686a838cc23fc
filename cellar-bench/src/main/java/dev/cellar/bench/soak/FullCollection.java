package dev.cellar.bench.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Asks the server's JVM for a full collection with {@code jcmd <pid> GC.run}, so that the heap
 * read right after is the live heap. The heap read at an arbitrary moment mostly measures how long
 * ago the last young collection was, and the old generation holds garbage until a full collection
 * that the serial collector may not run for hours: neither says whether the heap grows. A full
 * collection of a heap this small takes milliseconds, so one every half minute barely touches the
 * load.
 */
final class FullCollection {
  private final Path jcmd;

  private FullCollection(Path jcmd) {
    this.jcmd = jcmd;
  }

  /** The {@code jcmd} of the JDK this harness runs on (the launcher starts the server on the same one). */
  static FullCollection ofThisJdk() {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    if (!Files.isExecutable(jcmd)) {
      throw new IllegalStateException("no jcmd at " + jcmd + ": the soak needs a full JDK to read the server's live heap");
    }
    return new FullCollection(jcmd);
  }

  /** Runs a full collection in process {@code pid}; false if jcmd failed or took over a minute. */
  boolean run(long pid) throws InterruptedException {
    try {
      Process process = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.run")
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return false;
      }
      return process.exitValue() == 0;
    } catch (IOException e) {
      return false;
    }
  }
}
