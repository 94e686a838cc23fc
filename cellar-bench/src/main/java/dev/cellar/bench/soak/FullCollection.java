package dev.cellar.bench.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Measures the server's live heap: {@code jcmd <pid> GC.class_histogram} has its JVM collect fully
 * and then count every object still reachable, and the histogram's {@code Total} line is their
 * size. The heap read at an arbitrary moment mostly measures how long ago the last young collection
 * was, and the old generation holds garbage until a full collection that the serial collector may
 * not run for hours: neither says whether the heap grows. Nor does the server's own heap figure
 * read just after a {@code GC.run}: by the time {@code jcmd} has exited and INFO has answered, the
 * load has allocated for the better part of a second (a first version of this harness read 8 to 18
 * MiB that way while the histogram counted 7 MiB). A full collection and count of a heap this small
 * take milliseconds, so one every half minute barely touches the load.
 */
final class FullCollection {
  private final Path jcmd;

  private FullCollection(Path jcmd) {
    this.jcmd = jcmd;
  }

  /**
   * The {@code jcmd} of the JDK this harness runs on (the launcher starts the server on the same
   * one).
   */
  static FullCollection ofThisJdk() {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    if (!Files.isExecutable(jcmd)) {
      throw new IllegalStateException(
          "no jcmd at " + jcmd + ": the soak needs a full JDK to read the server's live heap");
    }
    return new FullCollection(jcmd);
  }

  /**
   * Collects fully in process {@code pid} and returns the bytes of its live objects, or -1 if jcmd
   * failed, took over a minute or printed no total.
   */
  long liveHeapBytes(long pid) throws InterruptedException {
    Path output = null;
    try {
      // Through a file, not a pipe: a jcmd that hangs must not hang the reader past the time limit.
      output = Files.createTempFile("cellar-soak-histogram", ".txt");
      Process process =
          new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return -1;
      }
      return process.exitValue() == 0
          ? histogramTotal(Files.readString(output, StandardCharsets.UTF_8))
          : -1;
    } catch (IOException e) {
      return -1;
    } finally {
      if (output != null) {
        try {
          Files.deleteIfExists(output);
        } catch (IOException ignored) {
          // a temporary file left behind is harmless
        }
      }
    }
  }

  /**
   * The live bytes of a class histogram: its {@code Total} line's bytes, less the rows of the JVM's
   * filler objects ({@code jdk.internal.vm.FillerObject}, {@code FillerElement[]}), which are not
   * objects of the program but unused heap (the rest of a thread's allocation buffer) formatted to
   * keep the heap walkable; they came and went by a megabyte between readings. -1 when the text has
   * no total.
   */
  static long histogramTotal(String histogram) {
    long fillers = 0;
    for (String line : histogram.split("\n")) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length == 3 && fields[0].equals("Total")) {
        try {
          return Long.parseLong(fields[2]) - fillers;
        } catch (NumberFormatException e) {
          return -1;
        }
      }
      if (fields.length >= 4
          && fields[3].contains("jdk.internal.vm.Filler")
          && fields[2].matches("\\d+")) {
        fillers += Long.parseLong(fields[2]);
      }
    }
    return -1;
  }
}
