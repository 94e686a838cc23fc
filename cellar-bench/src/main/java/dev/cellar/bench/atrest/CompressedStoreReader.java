package dev.cellar.bench.atrest;

import dev.cellar.Cellar;
import dev.cellar.CellarOptions;
import dev.cellar.CellarStats;
import dev.cellar.Compression;
import dev.cellar.bench.server.MemoryCgroup;
import dev.cellar.bench.workload.JsonDocuments;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The reading side of the compressed-store part, in a JVM of its own: {@code CompressedStoreReader
 * DIR CODEC DOCUMENTS RAW_BYTES GETS SECONDS SEED}. It opens a store that {@link CompressedStores}
 * built, checks its first documents byte for byte, reads {@code GETS} uniform random keys and as
 * many keys again in {@code getAll} of {@link EngineStore#GET_BATCH} untimed (the JIT, and the page
 * cache's steady state under a memory limit), then the same counts timed, and prints one line,
 * {@code result name=value ...}, on standard output. Each of the four steps stops early after
 * {@code SECONDS}: a store read from disk at every miss may do a few hundred GETs a second, and its
 * rate is as well measured in that time as in a full count.
 *
 * <p>A JVM of its own for each store and each round, so that every store is read by a JVM whose JIT
 * has seen only its codec, whose heap is the same small fixed size, and which can be started inside
 * a memory cgroup ({@link MemoryCgroup}) with everything it holds counted there: heap, the off-heap
 * index, and the page cache of the segments it maps.
 *
 * <p>The measuring thread does all the reads: its CPU time ({@link ThreadMXBean}) is a row's cost,
 * system time included (a page fault's reading from disk, under the limit). The process's major
 * faults ({@code /proc/self/stat}) show how many reads went to the disk.
 */
public final class CompressedStoreReader {
  /** Documents compared byte for byte before the reads. */
  static final int VERIFIED = 32;

  private final Cellar db;
  private final byte[][] keys;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final long stepNanos;

  private CompressedStoreReader(Cellar db, int documents, long stepNanos) {
    this.db = db;
    this.stepNanos = stepNanos;
    this.keys = new byte[documents][];
    for (int n = 0; n < documents; n++) {
      keys[n] = EngineStore.key(n);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 7) {
      throw new IllegalArgumentException(
          "usage: CompressedStoreReader DIR CODEC DOCUMENTS RAW_BYTES GETS SECONDS SEED; got "
              + Arrays.toString(args));
    }
    Path dir = Path.of(args[0]);
    Compression codec = Compression.parse(args[1]);
    int documents = Integer.parseInt(args[2]);
    long raw = Long.parseLong(args[3]);
    int gets = Integer.parseInt(args[4]);
    long stepNanos = Long.parseLong(args[5]) * 1_000_000_000L;
    long seed = Long.parseLong(args[6]);
    CellarOptions options =
        CompressedStores.options(codec, documents, CompressedStores.segmentBytes(raw));
    try (Cellar db = Cellar.open(dir, options)) {
      CompressedStoreReader reader = new CompressedStoreReader(db, documents, stepNanos);
      reader.verify(seed);
      SplittableRandom random = new SplittableRandom(seed ^ 0x5eed);
      reader.get(random, gets);
      reader.getAll(random, gets);
      Step get = reader.timed(() -> reader.get(random, gets));
      Step getAll = reader.timed(() -> reader.getAll(random, gets));
      CellarStats stats = db.stats();
      System.out.println(
          String.format(
              Locale.ROOT,
              "result get_ops=%d get_wall_ns=%d get_cpu_ns=%d get_major_faults=%d"
                  + " getall_keys=%d getall_wall_ns=%d getall_cpu_ns=%d getall_major_faults=%d"
                  + " index_bytes=%d mapped_bytes=%d rss_bytes=%d",
              get.ops,
              get.wallNanos,
              get.cpuNanos,
              get.majorFaults,
              getAll.ops,
              getAll.wallNanos,
              getAll.cpuNanos,
              getAll.majorFaults,
              stats.indexBytes(),
              stats.mappedBytes(),
              residentBytes()));
    }
  }

  private record Step(long ops, long wallNanos, long cpuNanos, long majorFaults) {}

  private interface Reads {
    long run();
  }

  private Step timed(Reads reads) throws IOException {
    long faults0 = majorFaults();
    long cpu0 = threads.getCurrentThreadCpuTime();
    long wall0 = System.nanoTime();
    long ops = reads.run();
    long wall = System.nanoTime() - wall0;
    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
    return new Step(ops, wall, cpu, majorFaults() - faults0);
  }

  /** The first {@link #VERIFIED} documents, byte for byte: the store holds what was put. */
  private void verify(long seed) {
    JsonDocuments docs = new JsonDocuments(seed);
    for (int n = 0; n < Math.min(VERIFIED, keys.length); n++) {
      byte[] expected = docs.next();
      byte[] value = db.get(keys[n]);
      if (!Arrays.equals(expected, value)) {
        throw new IllegalStateException(
            "doc:"
                + n
                + " read "
                + (value == null ? "nothing" : value.length + " bytes")
                + " where its "
                + expected.length
                + " bytes were put");
      }
    }
  }

  /**
   * {@code count} GETs of uniform random keys, or fewer if the step's time runs out; each must find
   * a JSON document. Returns the GETs done.
   */
  private long get(SplittableRandom random, int count) {
    long deadline = System.nanoTime() + stepNanos;
    int i = 0;
    while (i < count && ((i & 63) != 0 || System.nanoTime() < deadline)) {
      int n = random.nextInt(keys.length);
      check(n, db.get(keys[n]));
      i++;
    }
    return i;
  }

  /** {@code count} keys read in {@code getAll} of {@link EngineStore#GET_BATCH} random keys. */
  private long getAll(SplittableRandom random, int count) {
    byte[][] batch = new byte[EngineStore.GET_BATCH][];
    int[] picks = new int[EngineStore.GET_BATCH];
    long read = 0;
    long deadline = System.nanoTime() + stepNanos;
    while (read + batch.length <= count && ((read & 1023) != 0 || System.nanoTime() < deadline)) {
      for (int i = 0; i < batch.length; i++) {
        picks[i] = random.nextInt(keys.length);
        batch[i] = keys[picks[i]];
      }
      byte[][] values = db.getAll(batch);
      for (int i = 0; i < batch.length; i++) {
        check(picks[i], values[i]);
      }
      read += batch.length;
    }
    return read;
  }

  private static void check(int n, byte[] value) {
    if (value == null || value.length < 2 || value[0] != '{') {
      throw new IllegalStateException(
          "doc:"
              + n
              + " read "
              + (value == null ? "nothing" : value.length + " bytes not starting with '{'")
              + ": every key holds a JSON document");
    }
  }

  /** Major page faults of this process: reads of the mapped log that went to the disk. */
  static long majorFaults() throws IOException {
    return statField(9);
  }

  /** Fields of {@code /proc/self/stat} after the command's closing parenthesis, from 0 (state). */
  private static long statField(int index) throws IOException {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[index]);
  }

  /** Resident set size, from {@code /proc/self/statm} (pages of 4 KiB). */
  private static long residentBytes() throws IOException {
    String[] statm = Files.readString(Path.of("/proc/self/statm")).strip().split(" ");
    return Long.parseLong(statm[1]) * 4096;
  }
}
