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
 *
 * <p>Then the same chase with several independent chains advanced in turn ({@code --chains}): the
 * cost per load as more misses can be in flight at once. That is the ceiling of a batched read
 * ({@code getAll}), which overlaps its keys' misses: how far it goes is set by the core's miss
 * buffers and, with 4 KiB pages, by how many page walks the core (and, in a virtual machine, the
 * nested page tables) can have going at once.
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

  @Option(
      names = "--chains",
      split = ",",
      defaultValue = "1,2,4,8,16",
      description = "independent chains chased at once, one row each (default: ${DEFAULT-VALUE})")
  int[] chains;

  @Override
  public Integer call() {
    long bytes = mib << 20;
    StringBuilder header = new StringBuilder("| pages |");
    StringBuilder rule = new StringBuilder("|---|");
    for (int k : chains) {
      header.append(k == 1 ? " ns per dependent load |" : " ns per load, " + k + " chains |");
      rule.append("---:|");
    }
    System.out.println(header);
    System.out.println(rule);
    try (Arena arena = Arena.ofConfined()) {
      if (MemoryAdvice.available()) {
        printRow(
            "2 MiB (madvise HUGEPAGE, as index tables)", MemoryAdvice.allocateTable(bytes, arena));
      } else {
        System.out.println("| 2 MiB | (needs --enable-native-access) |");
      }
      printRow("4 KiB (plain arena allocation)", arena.allocate(bytes, LINE));
    }
    return 0;
  }

  private void printRow(String pages, MemorySegment memory) {
    int lines = link(memory);
    StringBuilder row = new StringBuilder("| " + pages + " |");
    for (int k : chains) {
      row.append(String.format(Locale.ROOT, " %.1f |", chase(memory, lines, k)));
    }
    System.out.println(row);
  }

  /** Links every cache line into one random cycle; returns the number of lines. */
  private static int link(MemorySegment memory) {
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
    return lines;
  }

  /**
   * Follows the cycle from {@code k} points spread along it, advancing each chain one step in turn:
   * the loads of one turn do not depend on each other. Returns ns per load.
   */
  private double chase(MemorySegment memory, int lines, int k) {
    long[] positions = new long[k];
    long at = 0;
    for (int j = 0; j < k; j++) {
      positions[j] = at;
      for (int step = 0; step < lines / k; step++) {
        at = memory.get(ValueLayout.JAVA_LONG, at);
      }
    }
    int turns = Math.max(1, steps / k);
    double best = Double.MAX_VALUE;
    for (int round = 0; round < 3; round++) {
      long start = System.nanoTime();
      for (int i = 0; i < turns; i++) {
        for (int j = 0; j < k; j++) {
          positions[j] = memory.get(ValueLayout.JAVA_LONG, positions[j]);
        }
      }
      best = Math.min(best, (System.nanoTime() - start) / ((double) turns * k));
    }
    long sum = 0;
    for (long p : positions) {
      sum += p;
    }
    if (sum < 0) {
      System.out.println(sum);
    }
    return best;
  }
}
