package dev.cellar.bench.memory;

import dev.cellar.platform.MemoryAdvice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The latency of one dependent random memory access on this machine: a pointer chase through a
 * random cycle of cache lines in off-heap memory allocated the way Cellar allocates index tables,
 * once with huge pages (as the index gets them) and once with 4 KiB pages. A get that finds its key
 * makes two such accesses in sequence (index slot, then record), so this bounds its speed.
 */
@Command(
    name = "memory-latency",
    mixinStandardHelpOptions = true,
    description = "Nanoseconds per dependent random load, with huge pages and with 4 KiB pages.")
public final class MemoryLatencyBenchmark implements Callable<Integer> {
  private static final int LINE = 64;

  @Option(
      names = "--mib",
      defaultValue = "512",
      description = "size of the memory chased (default: ${DEFAULT-VALUE})")
  long mib;

  @Option(
      names = "--steps",
      defaultValue = "5000000",
      description = "loads per measurement (default: ${DEFAULT-VALUE})")
  int steps;

  @Override
  public Integer call() {
    long bytes = mib << 20;
    System.out.println("| pages | ns per dependent load |");
    System.out.println("|---|---:|");
    try (Arena arena = Arena.ofConfined()) {
      if (MemoryAdvice.available()) {
        System.out.printf(
            Locale.ROOT,
            "| 2 MiB (madvise HUGEPAGE, as index tables) | %.1f |%n",
            chase(MemoryAdvice.allocateTable(bytes, arena)));
      } else {
        System.out.println("| 2 MiB | (needs --enable-native-access) |");
      }
      System.out.printf(
          Locale.ROOT,
          "| 4 KiB (plain arena allocation) | %.1f |%n",
          chase(arena.allocate(bytes, LINE)));
    }
    return 0;
  }

  /** Links every cache line into one random cycle, then follows it; returns ns per step. */
  private double chase(MemorySegment memory) {
    int lines = (int) (memory.byteSize() / LINE);
    int[] order = new int[lines];
    for (int i = 0; i < lines; i++) {
      order[i] = i;
    }
    SplittableRandom random = new SplittableRandom(1);
    for (int i = lines - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int i = 0; i < lines; i++) {
      memory.set(
          ValueLayout.JAVA_LONG, (long) order[i] * LINE, (long) order[(i + 1) % lines] * LINE);
    }
    double best = Double.MAX_VALUE;
    long position = 0;
    for (int round = 0; round < 3; round++) {
      long start = System.nanoTime();
      for (int i = 0; i < steps; i++) {
        position = memory.get(ValueLayout.JAVA_LONG, position);
      }
      best = Math.min(best, (System.nanoTime() - start) / (double) steps);
    }
    if (position < 0) {
      System.out.println(position);
    }
    return best;
  }
}
