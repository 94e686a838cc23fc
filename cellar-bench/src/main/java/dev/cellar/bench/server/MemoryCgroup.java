package dev.cellar.bench.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A memory cgroup with a limit, for one child JVM: everything the child holds is charged to it,
 * heap, off-heap index and the page cache of the files it reads, so a store larger than the limit
 * has to be read from disk again as the kernel reclaims the group's pages. cgroup v2 ({@code
 * memory.max}, swap off with {@code memory.swap.max}) when the unified hierarchy offers the memory
 * controller; else v1 ({@code memory.limit_in_bytes} under {@code /sys/fs/cgroup/memory}). Both
 * need root.
 *
 * <p>The child joins the group before it executes: {@link #command} wraps its command in {@code sh
 * -c 'echo $$ > cgroup.procs; exec ...'}, so its first page is already charged. One group per
 * child, made fresh and removed after ({@link #close}), so no charge carries over from one child to
 * the next.
 */
public final class MemoryCgroup implements AutoCloseable {
  public static final Path ROOT = Path.of("/sys/fs/cgroup");

  /** Which hierarchy, or why none can be used. */
  public record Support(String version, Path parent, String unavailable) {
    public boolean available() {
      return unavailable == null;
    }
  }

  private final Support support;
  private final Path dir;

  private MemoryCgroup(Support support, Path dir) {
    this.support = support;
    this.dir = dir;
  }

  /** Whether this process can make memory cgroups here, and of which version. */
  public static Support probe() {
    Path v2Controllers = ROOT.resolve("cgroup.controllers");
    Path v1 = ROOT.resolve("memory");
    String version;
    Path parent;
    try {
      if (Files.isRegularFile(v2Controllers)
          && List.of(Files.readString(v2Controllers).strip().split("\\s+")).contains("memory")) {
        version = "v2";
        parent = ROOT;
      } else if (Files.isRegularFile(v1.resolve("memory.limit_in_bytes"))) {
        version = "v1";
        parent = v1;
      } else {
        return new Support(
            null, null, "no memory controller: neither cgroup v2 with memory nor cgroup v1");
      }
    } catch (IOException e) {
      return new Support(null, null, "cannot read " + v2Controllers + ": " + e.getMessage());
    }
    if (!Files.isWritable(parent)) {
      return new Support(version, parent, parent + " is not writable (memory cgroups need root)");
    }
    return new Support(version, parent, null);
  }

  /**
   * {@link #probe}, confirmed by making and removing a group with the limit: a hierarchy may look
   * writable and still refuse (a read-only mount, a container's root cgroup that has processes of
   * its own and so cannot delegate the controller), which should skip the rows, not fail the run.
   */
  public static Support usable(String name, long limitBytes) {
    Support support = probe();
    if (!support.available()) {
      return support;
    }
    try (MemoryCgroup trial = create(support, name, limitBytes)) {
      return support;
    } catch (IOException | RuntimeException e) {
      return new Support(
          support.version(),
          support.parent(),
          "could not make a memory cgroup under " + support.parent() + ": " + e.getMessage());
    }
  }

  /** Makes the group {@code name} with a limit of {@code limitBytes}. */
  public static MemoryCgroup create(Support support, String name, long limitBytes)
      throws IOException {
    if (!support.available()) {
      throw new IllegalStateException("memory cgroup unavailable: " + support.unavailable());
    }
    Path dir = support.parent().resolve(name);
    boolean v2 = "v2".equals(support.version());
    if (v2) {
      enableMemoryController(support.parent());
    }
    Files.createDirectory(dir);
    MemoryCgroup group = new MemoryCgroup(support, dir);
    try {
      if (v2) {
        Files.writeString(dir.resolve("memory.max"), Long.toString(limitBytes));
        Path swap = dir.resolve("memory.swap.max");
        if (Files.exists(swap)) {
          Files.writeString(swap, "0");
        }
      } else {
        Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
      }
    } catch (IOException e) {
      group.close();
      throw new IOException("could not set a limit of " + limitBytes + " bytes on " + dir, e);
    }
    return group;
  }

  private static void enableMemoryController(Path parent) throws IOException {
    Path control = parent.resolve("cgroup.subtree_control");
    if (!Files.readString(control).contains("memory")) {
      Files.writeString(control, "+memory");
    }
  }

  public Path directory() {
    return dir;
  }

  /** {@code command}, run so that its process joins this group before it starts. */
  public List<String> command(List<String> command) {
    List<String> wrapped = new ArrayList<>();
    wrapped.add("sh");
    wrapped.add("-c");
    wrapped.add("echo $$ > \"$0\" && exec \"$@\"");
    wrapped.add(dir.resolve("cgroup.procs").toString());
    wrapped.addAll(command);
    return wrapped;
  }

  /**
   * What the group used, read after its child exits: the peak charge, how often the limit was hit
   * (v1) or reclaim was forced (v2), and the file and anonymous memory charged at the end.
   */
  public Map<String, Long> usage() throws IOException {
    Map<String, Long> out = new LinkedHashMap<>();
    Map<String, Long> stat = stat();
    if ("v2".equals(support.version())) {
      putIfPresent(out, "peak_bytes", dir.resolve("memory.peak"));
      out.put("file_bytes", stat.getOrDefault("file", -1L));
      out.put("anon_bytes", stat.getOrDefault("anon", -1L));
      Map<String, Long> events = keyed(dir.resolve("memory.events"));
      out.put("limit_events", events.getOrDefault("max", -1L));
    } else {
      putIfPresent(out, "peak_bytes", dir.resolve("memory.max_usage_in_bytes"));
      out.put("file_bytes", stat.getOrDefault("cache", -1L));
      out.put("anon_bytes", stat.getOrDefault("rss", -1L));
      putIfPresent(out, "limit_events", dir.resolve("memory.failcnt"));
    }
    return out;
  }

  private Map<String, Long> stat() throws IOException {
    return keyed(dir.resolve("memory.stat"));
  }

  private static Map<String, Long> keyed(Path file) throws IOException {
    Map<String, Long> out = new LinkedHashMap<>();
    if (!Files.exists(file)) {
      return out;
    }
    for (String line : Files.readAllLines(file)) {
      String[] kv = line.strip().split(" ");
      if (kv.length == 2) {
        try {
          out.put(kv[0], Long.parseLong(kv[1]));
        } catch (NumberFormatException e) {
          // not a counter
        }
      }
    }
    return out;
  }

  private static void putIfPresent(Map<String, Long> out, String name, Path file)
      throws IOException {
    if (Files.exists(file)) {
      out.put(name, Long.parseLong(Files.readString(file).strip()));
    }
  }

  /**
   * Removes the group; its child must have exited. The kernel may take a moment to let go of a
   * group whose last process just died, so the removal is retried for up to a few seconds.
   */
  @Override
  public void close() throws IOException {
    IOException last = null;
    for (int attempt = 0; attempt < 50; attempt++) {
      try {
        Files.deleteIfExists(dir);
        return;
      } catch (IOException e) {
        last = e;
        try {
          Thread.sleep(100);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    throw new IOException("could not remove the memory cgroup " + dir + "; rmdir it by hand", last);
  }
}
