package dev.cellar.platform;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cellar.io.BlockReads;
import dev.cellar.io.DirectReader;
import dev.cellar.io.PooledBlockReads;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each batch reader (io_uring, the pool, one after another) reads real files opened with O_DIRECT:
 * every block byte for byte, zero past the end of a file, a closed file's blocks left out and the
 * rest delivered, from four threads at once, and no batch larger than it takes.
 */
class BlockReadsTest {
  private static final int BLOCK = BlockReads.BLOCK_BYTES;

  @TempDir Path dir;

  private static BlockReads open(String kind) {
    return switch (kind) {
      case "uring" -> {
        BlockReads uring = UringBlockReads.open();
        assumeTrue(uring != null, "io_uring is not available here");
        yield uring;
      }
      case "pool" -> new PooledBlockReads(4);
      default -> BlockReads.serial();
    };
  }

  /** A file of {@code bytes} whose every byte is a function of its position and {@code seed}. */
  private Path file(String name, int bytes, int seed) throws Exception {
    byte[] content = new byte[bytes];
    new SplittableRandom(seed).nextBytes(content);
    Path path = dir.resolve(name);
    Files.write(path, content);
    return path;
  }

  private DirectFile direct(Path path) {
    try {
      return DirectFile.open(path);
    } catch (Exception e) {
      assumeTrue(false, "O_DIRECT is not available here: " + e.getMessage());
      return null;
    }
  }

  /** Reads {@code n} blocks and checks each against the file's bytes; returns the blocks seen. */
  private static int readAndCheck(
      BlockReads reads, DirectReader[] files, Path[] paths, long[] positions, int n)
      throws Exception {
    byte[][] contents = new byte[n][];
    for (int i = 0; i < n; i++) {
      contents[i] = Files.readAllBytes(paths[i]);
    }
    int[] seen = new int[1];
    reads.readAll(
        files,
        positions,
        n,
        (i, block) -> {
          assertEquals(BLOCK, block.byteSize());
          byte[] expected = new byte[BLOCK];
          int from = (int) positions[i];
          int length = Math.max(0, Math.min(BLOCK, contents[i].length - from));
          System.arraycopy(contents[i], from, expected, 0, length);
          assertArrayEquals(expected, block.toArray(ValueLayout.JAVA_BYTE), "block " + i);
          seen[0]++;
        });
    return seen[0];
  }

  @ParameterizedTest
  @ValueSource(strings = {"uring", "pool", "serial"})
  void readsEveryBlockOfABatchByteForByte(String kind) throws Exception {
    Path a = file("a", 1 << 20, 1);
    Path b = file("b", 3 * BLOCK + 1000, 2); // ends inside a block
    try (BlockReads reads = open(kind);
        DirectFile fa = direct(a);
        DirectFile fb = direct(b)) {
      SplittableRandom random = new SplittableRandom(3);
      for (int round = 0; round < 20; round++) {
        int n = 1 + random.nextInt(BlockReads.MAX_BATCH);
        DirectReader[] files = new DirectReader[n];
        Path[] paths = new Path[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
          boolean small = random.nextInt(4) == 0;
          files[i] = small ? fb : fa;
          paths[i] = small ? b : a;
          positions[i] = (long) random.nextInt(small ? 4 : 256) * BLOCK;
        }
        assertEquals(n, readAndCheck(reads, files, paths, positions, n));
      }
      assertThrows(
          IllegalArgumentException.class,
          () ->
              reads.readAll(
                  new DirectReader[BlockReads.MAX_BATCH + 1],
                  new long[BlockReads.MAX_BATCH + 1],
                  BlockReads.MAX_BATCH + 1,
                  (i, block) -> {}));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"uring", "pool", "serial"})
  void aClosedFilesBlocksAreLeftOutAndTheRestDelivered(String kind) throws Exception {
    Path a = file("a", 64 * BLOCK, 4);
    Path b = file("b", 64 * BLOCK, 5);
    try (BlockReads reads = open(kind);
        DirectFile fa = direct(a)) {
      DirectFile fb = direct(b);
      fb.close();
      int n = 10;
      DirectReader[] files = new DirectReader[n];
      Path[] paths = new Path[n];
      long[] positions = new long[n];
      for (int i = 0; i < n; i++) {
        files[i] = i % 2 == 0 ? fa : fb;
        paths[i] = i % 2 == 0 ? a : b;
        positions[i] = (long) i * BLOCK;
      }
      assertEquals(5, readAndCheck(reads, files, paths, positions, n));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"uring", "pool", "serial"})
  void fourThreadsReadAtOnce(String kind) throws Exception {
    Path a = file("a", 2 << 20, 6);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try (BlockReads reads = open(kind);
        DirectFile fa = direct(a)) {
      byte[] content = Files.readAllBytes(a);
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        results.add(
            threads.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(seed);
                  int blocks = 0;
                  for (int round = 0; round < 100; round++) {
                    int n = 1 + random.nextInt(32);
                    DirectReader[] files = new DirectReader[n];
                    long[] positions = new long[n];
                    for (int i = 0; i < n; i++) {
                      files[i] = fa;
                      positions[i] = (long) random.nextInt(512) * BLOCK;
                    }
                    int[] seen = new int[1];
                    reads.readAll(
                        files,
                        positions,
                        n,
                        (i, block) -> {
                          byte[] expected = new byte[BLOCK];
                          System.arraycopy(content, (int) positions[i], expected, 0, BLOCK);
                          assertArrayEquals(expected, block.toArray(ValueLayout.JAVA_BYTE));
                          seen[0]++;
                        });
                    assertEquals(n, seen[0]);
                    blocks += n;
                  }
                  return blocks;
                }));
      }
      for (Future<Integer> f : results) {
        assertTrue(f.get() > 0);
      }
    } finally {
      threads.shutdownNow();
    }
  }
}
