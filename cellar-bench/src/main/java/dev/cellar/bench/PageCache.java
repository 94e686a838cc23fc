package dev.cellar.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The kernel's page cache as the benchmarks read it: how many bytes of a store's segment files it
 * holds ({@code fincore}, from util-linux), and dropping one file from it ({@code dd
 * iflag=nocache}, which is {@code posix_fadvise(DONTNEED)}), so that a run starts cold without
 * root's {@code drop_caches}.
 */
public final class PageCache {
  private PageCache() {}

  /** The segment files ({@code seg-*.log}) directly inside {@code store}, by name. */
  public static List<Path> segmentFiles(Path store) throws IOException {
    try (Stream<Path> files = Files.list(store)) {
      return files
          .filter(f -> f.getFileName().toString().matches("seg-[0-9a-f]{16}\\.log"))
          .sorted()
          .toList();
    }
  }

  /** Bytes of the segment files of {@code store} in the page cache; -1 where it cannot tell. */
  public static long cachedSegmentBytes(Path store) throws IOException, InterruptedException {
    List<Path> files = segmentFiles(store);
    if (files.isEmpty()) {
      return 0;
    }
    List<String> command =
        new ArrayList<>(List.of("fincore", "--bytes", "--noheadings", "--raw", "--output", "RES"));
    files.forEach(f -> command.add(f.toString()));
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      return -1;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      return -1;
    }
    long total = 0;
    for (String line : out.split("\n")) {
      if (!line.isBlank()) {
        if (!line.trim().matches("\\d+")) {
          return -1;
        }
        total += Long.parseLong(line.trim());
      }
    }
    return total;
  }

  /** Drops the segment files of {@code store} from the page cache; false if it could not. */
  public static boolean dropSegments(Path store) throws IOException, InterruptedException {
    for (Path f : segmentFiles(store)) {
      Process p =
          new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0", "status=none")
              .redirectErrorStream(true)
              .start();
      p.getInputStream().readAllBytes();
      if (p.waitFor() != 0) {
        return false;
      }
    }
    return true;
  }
}
