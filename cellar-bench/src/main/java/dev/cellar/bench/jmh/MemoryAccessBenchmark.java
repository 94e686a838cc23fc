package dev.cellar.bench.jmh;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What reading and writing memory through FFM costs next to plain arrays and {@link ByteBuffer}s:
 * the same four loops over the same number of bytes, once per way of holding them.
 *
 * <p>Cellar keeps its index and its log off the heap, in {@link MemorySegment}s of shared arenas
 * and mapped files, and never uses {@code sun.misc.Unsafe}; an often quoted JMH table puts Unsafe's
 * off-heap access at 0.55x of on-heap access, which says nothing about FFM on JDK 25. Each loop
 * here is written once per holder in the same shape (an {@code int} counter over the elements, the
 * holder in a field of the state), so a difference between two rows is the access path: bounds
 * checks, the arena's liveness and thread checks, alignment checks, byte order, and whether C2
 * hoists and vectorises them.
 *
 * <p><b>Loops.</b> {@code sumLongs}: sequential read, sum of all longs. {@code fillLongs}:
 * sequential write of every long (value from a counter, so no pass writes what the last one did and
 * the loop cannot become a constant fill). {@code randomLongs}: the sum of all longs in the order
 * of a precomputed random permutation of their indices (independent loads, so the memory system
 * overlaps the misses). {@code sumBytes}: the byte-by-byte loop, sum of every byte. One operation
 * is one whole pass; sums are returned, which JMH consumes, so no read is dead.
 *
 * <p><b>Holders.</b> {@code array}: a {@code long[]} or {@code byte[]} of the size. {@code buffer}:
 * a heap or direct {@code ByteBuffer} in native order, absolute {@code getLong}/{@code putLong}.
 * {@code segment}: a {@code MemorySegment} with {@link ValueLayout#JAVA_LONG} (aligned) from a
 * confined, shared or global arena, over a {@code long[]} ({@link MemorySegment#ofArray(long[])}),
 * or mapped from a file into a shared arena as Cellar maps its log; {@code segmentUnaligned}: the
 * same with {@link ValueLayout#JAVA_LONG_UNALIGNED}, as Cellar's record descriptors read. A
 * holder's kind is a {@code @Param}, and JMH runs each parameter set in a fork of its own, so every
 * call site sees one implementation class, as it would in Cellar.
 *
 * <p>{@code cellar bench memory-access} runs this class and prints the table with each row's ratio
 * to the array; docs/benchmarks.md has the results.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {MemoryAccessBenchmark.HEAP_MIN, MemoryAccessBenchmark.HEAP_MAX})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class MemoryAccessBenchmark {
  // The 256 MiB arrays, a byte[] beside a long[] and the permutation, take 640 MiB of heap.
  static final String HEAP_MIN = "-Xms2g";
  static final String HEAP_MAX = "-Xmx2g";

  private static final ValueLayout.OfLong ALIGNED = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfLong UNALIGNED = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

  /**
   * A random permutation of 0..n-1, seeded so every fork reads in the same order.
   *
   * @param longs how many longs the holder has
   */
  static int[] permutation(int longs) {
    int[] order = new int[longs];
    for (int i = 0; i < longs; i++) {
      order[i] = i;
    }
    SplittableRandom random = new SplittableRandom(42);
    for (int i = longs - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int swap = order[i];
      order[i] = order[j];
      order[j] = swap;
    }
    return order;
  }

  /** A size in bytes, checked to be a whole number of longs that an int can index as bytes. */
  static int checkedSize(String size) {
    long bytes = Long.parseLong(size);
    if (bytes <= 0 || bytes % Long.BYTES != 0 || bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "size "
              + size
              + " must be a positive multiple of 8 below 2 GiB (ByteBuffers index by int)");
    }
    return (int) bytes;
  }

  /** The arrays: a long[] for the long loops and a byte[] of the same size for the byte loop. */
  @State(Scope.Thread)
  public static class Arrays {
    // Bytes: 16 KiB fits in L1 (32 KiB), 512 KiB in L2 (1 MiB), 256 MiB is 8 times an L3 of 32 MiB.
    @Param({"16384", "524288", "268435456"})
    String size;

    long[] longs;
    byte[] bytes;
    int[] order;
    long stamp;

    @Setup(Level.Trial)
    public void allocate() {
      int length = checkedSize(size);
      longs = new long[length / Long.BYTES];
      bytes = new byte[length];
      for (int i = 0; i < longs.length; i++) {
        longs[i] = i;
      }
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) i;
      }
      order = permutation(longs.length);
    }
  }

  /** One ByteBuffer in native order, for both the long loops and the byte loop. */
  @State(Scope.Thread)
  public static class Buffers {
    @Param({"16384", "524288", "268435456"})
    String size;

    @Param({"heap", "direct"})
    String kind;

    ByteBuffer buffer;
    int longs;
    int[] order;
    long stamp;

    @Setup(Level.Trial)
    public void allocate() {
      int length = checkedSize(size);
      buffer =
          switch (kind) {
            case "heap" -> ByteBuffer.allocate(length);
            case "direct" -> ByteBuffer.allocateDirect(length);
            default -> throw new IllegalArgumentException("kind " + kind + ": heap or direct");
          };
      buffer.order(ByteOrder.nativeOrder());
      longs = length / Long.BYTES;
      for (int i = 0; i < longs; i++) {
        buffer.putLong(i * Long.BYTES, i);
      }
      order = permutation(longs);
    }
  }

  /**
   * One segment for all the segment loops. Scope.Thread: JMH makes the state on the thread that
   * runs the benchmark, the only thread a confined arena lets in.
   */
  @State(Scope.Thread)
  public static class Segments {
    @Param({"16384", "524288", "268435456"})
    String size;

    @Param({"confined", "shared", "global", "ofArray", "mapped"})
    String kind;

    MemorySegment segment;
    int longs;
    int[] order;
    long stamp;
    private Arena arena;
    private Path file;

    @Setup(Level.Trial)
    public void allocate() throws IOException {
      int length = checkedSize(size);
      longs = length / Long.BYTES;
      segment =
          switch (kind) {
            case "confined" -> (arena = Arena.ofConfined()).allocate(length, Long.BYTES);
            case "shared" -> (arena = Arena.ofShared()).allocate(length, Long.BYTES);
            // Never freed: a global segment lives as long as the fork, one per trial.
            case "global" -> Arena.global().allocate(length, Long.BYTES);
            case "ofArray" -> MemorySegment.ofArray(new long[longs]);
            case "mapped" -> map(length);
            default ->
                throw new IllegalArgumentException(
                    "kind " + kind + ": confined, shared, global, ofArray or mapped");
          };
      for (int i = 0; i < longs; i++) {
        segment.setAtIndex(ALIGNED, i, i);
      }
      order = permutation(longs);
    }

    /** A fresh file of the size, mapped read-write into a shared arena as Cellar maps a segment. */
    private MemorySegment map(int length) throws IOException {
      file = Files.createTempFile("cellar-memory-access-", ".bin");
      arena = Arena.ofShared();
      try (FileChannel channel =
          FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        return channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
      }
    }

    @TearDown(Level.Trial)
    public void free() throws IOException {
      if (arena != null) {
        arena.close();
      }
      if (file != null) {
        Files.delete(file);
      }
    }
  }

  // ---- sequential read of longs

  @Benchmark
  public long sumLongs_array(Arrays s) {
    long[] longs = s.longs;
    long sum = 0;
    for (int i = 0; i < longs.length; i++) {
      sum += longs[i];
    }
    return sum;
  }

  @Benchmark
  public long sumLongs_buffer(Buffers s) {
    ByteBuffer buffer = s.buffer;
    int longs = s.longs;
    long sum = 0;
    for (int i = 0; i < longs; i++) {
      sum += buffer.getLong(i * Long.BYTES);
    }
    return sum;
  }

  @Benchmark
  public long sumLongs_segment(Segments s) {
    MemorySegment segment = s.segment;
    int longs = s.longs;
    long sum = 0;
    for (int i = 0; i < longs; i++) {
      sum += segment.getAtIndex(ALIGNED, i);
    }
    return sum;
  }

  @Benchmark
  public long sumLongs_segmentUnaligned(Segments s) {
    MemorySegment segment = s.segment;
    int longs = s.longs;
    long sum = 0;
    for (int i = 0; i < longs; i++) {
      sum += segment.getAtIndex(UNALIGNED, i);
    }
    return sum;
  }

  // ---- sequential write of longs

  @Benchmark
  public void fillLongs_array(Arrays s) {
    long[] longs = s.longs;
    long stamp = s.stamp++;
    for (int i = 0; i < longs.length; i++) {
      longs[i] = stamp + i;
    }
  }

  @Benchmark
  public void fillLongs_buffer(Buffers s) {
    ByteBuffer buffer = s.buffer;
    int longs = s.longs;
    long stamp = s.stamp++;
    for (int i = 0; i < longs; i++) {
      buffer.putLong(i * Long.BYTES, stamp + i);
    }
  }

  @Benchmark
  public void fillLongs_segment(Segments s) {
    MemorySegment segment = s.segment;
    int longs = s.longs;
    long stamp = s.stamp++;
    for (int i = 0; i < longs; i++) {
      segment.setAtIndex(ALIGNED, i, stamp + i);
    }
  }

  @Benchmark
  public void fillLongs_segmentUnaligned(Segments s) {
    MemorySegment segment = s.segment;
    int longs = s.longs;
    long stamp = s.stamp++;
    for (int i = 0; i < longs; i++) {
      segment.setAtIndex(UNALIGNED, i, stamp + i);
    }
  }

  // ---- random read of longs, in the order of a precomputed permutation

  @Benchmark
  public long randomLongs_array(Arrays s) {
    long[] longs = s.longs;
    int[] order = s.order;
    long sum = 0;
    for (int i = 0; i < order.length; i++) {
      sum += longs[order[i]];
    }
    return sum;
  }

  @Benchmark
  public long randomLongs_buffer(Buffers s) {
    ByteBuffer buffer = s.buffer;
    int[] order = s.order;
    long sum = 0;
    for (int i = 0; i < order.length; i++) {
      sum += buffer.getLong(order[i] * Long.BYTES);
    }
    return sum;
  }

  @Benchmark
  public long randomLongs_segment(Segments s) {
    MemorySegment segment = s.segment;
    int[] order = s.order;
    long sum = 0;
    for (int i = 0; i < order.length; i++) {
      sum += segment.getAtIndex(ALIGNED, order[i]);
    }
    return sum;
  }

  @Benchmark
  public long randomLongs_segmentUnaligned(Segments s) {
    MemorySegment segment = s.segment;
    int[] order = s.order;
    long sum = 0;
    for (int i = 0; i < order.length; i++) {
      sum += segment.getAtIndex(UNALIGNED, order[i]);
    }
    return sum;
  }

  // ---- byte by byte

  @Benchmark
  public int sumBytes_array(Arrays s) {
    byte[] bytes = s.bytes;
    int sum = 0;
    for (int i = 0; i < bytes.length; i++) {
      sum += bytes[i];
    }
    return sum;
  }

  @Benchmark
  public int sumBytes_buffer(Buffers s) {
    ByteBuffer buffer = s.buffer;
    int length = s.longs * Long.BYTES;
    int sum = 0;
    for (int i = 0; i < length; i++) {
      sum += buffer.get(i);
    }
    return sum;
  }

  @Benchmark
  public int sumBytes_segment(Segments s) {
    MemorySegment segment = s.segment;
    int length = s.longs * Long.BYTES;
    int sum = 0;
    for (int i = 0; i < length; i++) {
      sum += segment.get(BYTE, i);
    }
    return sum;
  }
}
