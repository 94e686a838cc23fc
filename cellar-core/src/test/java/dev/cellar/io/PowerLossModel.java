package dev.cellar.io;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * What a power loss can leave on disk, at any point of a {@link SimulatedFileIO}'s trace, in the
 * spirit of ALICE and BOB ("All File Systems Are Not Created Equal", OSDI 2014).
 *
 * <h2>The model</h2>
 *
 * Each file has a <em>durable</em> image (content and length as of its last fsync) and the writes
 * made since. At a cut:
 *
 * <ul>
 *   <li>Everything fsynced survives.
 *   <li>Every sector written since the file's last fsync independently holds its durable content or
 *       any version written to it since (the page cache may write a page back at any moment, so an
 *       intermediate version can be the last to reach the disk). Any subset, so any order, and
 *       writes torn at sector granularity.
 *   <li>The file's length is its durable length or any length it had since its last fsync.
 *   <li>Directory operations (create, rename, delete) since the last directory fsync survive as a
 *       prefix, in order, renames atomic: what a journaling file system that commits them in order
 *       (ext4, data=ordered) can leave. A file fsync is not taken to make its name durable (POSIX
 *       does not promise it; ext4 happens to), so a file whose creation was not followed by a
 *       directory fsync may vanish, and a deleted file whose deletion was not may come back.
 * </ul>
 *
 * <h2>Use</h2>
 *
 * {@link #advanceTo} applies the trace up to a cut (cuts must not go backwards: the model is built
 * incrementally, one pass per trace); {@link #crashImage} then draws one disk state, as a map from
 * path to content, under a {@link Choice}.
 */
public final class PowerLossModel {
  /** How the unsynced writes and directory operations at a cut are resolved. */
  public enum Choice {
    /** Only what was fsynced. */
    DROP_ALL,
    /** Everything, as if the power had stayed on. */
    KEEP_ALL,
    /**
     * Each sector a random version, a random length per file, a random prefix of directory
     * operations.
     */
    RANDOM,
    /**
     * Per file, the later unsynced sectors kept and the earlier dropped: holes before surviving
     * data.
     */
    ADVERSARIAL
  }

  private static final int SECTOR = DiskEvent.SECTOR;

  private final List<DiskEvent> trace;
  private final Map<Integer, FileState> files = new HashMap<>();
  private final Map<Path, Integer> durableNames = new TreeMap<>();
  private final List<DiskEvent> unsyncedDirectoryOps = new ArrayList<>();
  private int position;

  /** The model of a trace that started on an empty disk. */
  public PowerLossModel(List<DiskEvent> trace) {
    this(Map.of(), trace);
  }

  /**
   * The model of a trace that started on a disk holding {@code initial} (path to content), all of
   * it durable, with inodes numbered in path order ({@link SimulatedFileIO#recording}).
   */
  public PowerLossModel(Map<Path, byte[]> initial, List<DiskEvent> trace) {
    this.trace = trace;
    int inode = 0;
    for (Map.Entry<Path, byte[]> file : new TreeMap<>(initial).entrySet()) {
      FileState f = file(inode);
      byte[] content = file.getValue();
      for (long sector = 0; sector * SECTOR < content.length; sector++) {
        byte[] bytes = new byte[SECTOR];
        int start = (int) (sector * SECTOR);
        System.arraycopy(content, start, bytes, 0, Math.min(SECTOR, content.length - start));
        f.durable.put(sector, bytes);
      }
      f.size = f.durableSize = content.length;
      durableNames.put(file.getKey(), inode++);
    }
  }

  /** Applies the trace's events before index {@code cut}. */
  public void advanceTo(int cut) {
    if (cut < position) {
      throw new IllegalArgumentException(
          "cut " + cut + " is before the model's position " + position);
    }
    for (; position < cut; position++) {
      apply(trace.get(position));
    }
  }

  /** Whether anything at this cut is undecided (otherwise every choice gives the same image). */
  public boolean hasUnsyncedState() {
    if (!unsyncedDirectoryOps.isEmpty()) {
      return true;
    }
    for (FileState f : files.values()) {
      if (!f.pending.isEmpty() || !f.pendingSizes.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /** Sectors written since their file's last fsync, over all files. */
  public int unsyncedSectors() {
    return files.values().stream().mapToInt(f -> f.pending.size()).sum();
  }

  private void apply(DiskEvent event) {
    switch (event) {
      case DiskEvent.Write w ->
          file(w.inode())
              .pending
              .computeIfAbsent(w.sector(), s -> new ArrayList<>())
              .add(w.bytes());
      case DiskEvent.Resize r -> {
        FileState f = file(r.inode());
        f.size = r.size();
        f.pendingSizes.add(r.size());
      }
      case DiskEvent.Force f -> file(f.inode()).force();
      case DiskEvent.Create c -> {
        file(c.inode());
        unsyncedDirectoryOps.add(c);
      }
      case DiskEvent.Rename r -> unsyncedDirectoryOps.add(r);
      case DiskEvent.Delete d -> unsyncedDirectoryOps.add(d);
      case DiskEvent.SyncDirectory s -> {
        applyDirectoryOps(durableNames, unsyncedDirectoryOps.size());
        unsyncedDirectoryOps.clear();
      }
      case DiskEvent.Mark m -> {}
    }
  }

  private FileState file(int inode) {
    return files.computeIfAbsent(inode, i -> new FileState());
  }

  private void applyDirectoryOps(Map<Path, Integer> names, int count) {
    for (DiskEvent op : unsyncedDirectoryOps.subList(0, count)) {
      switch (op) {
        case DiskEvent.Create c -> names.put(c.name(), c.inode());
        case DiskEvent.Rename r -> {
          Integer inode = names.remove(r.source());
          if (inode != null) {
            names.put(r.target(), inode);
          }
        }
        case DiskEvent.Delete d -> names.remove(d.name());
        default -> throw new IllegalStateException("not a directory operation: " + op);
      }
    }
  }

  /** One disk state a power loss at the current cut can leave: path to file content. */
  public Map<Path, byte[]> crashImage(Choice choice, Random random) {
    Map<Path, Integer> names = new TreeMap<>(durableNames);
    int ops = unsyncedDirectoryOps.size();
    int kept =
        switch (choice) {
          case DROP_ALL -> 0;
          case KEEP_ALL, ADVERSARIAL -> ops;
          case RANDOM -> random.nextInt(ops + 1);
        };
    applyDirectoryOps(names, kept);
    Map<Path, byte[]> image = new TreeMap<>();
    names.forEach((path, inode) -> image.put(path, files.get(inode).crashContent(choice, random)));
    return image;
  }

  /** One file's durable image and what was done to it since. */
  private static final class FileState {
    final TreeMap<Long, byte[]> durable = new TreeMap<>();
    long durableSize;

    /** Versions of each sector written since the last fsync, oldest first. */
    final TreeMap<Long, List<byte[]>> pending = new TreeMap<>();

    /** Lengths the file had since the last fsync, in order. */
    final List<Long> pendingSizes = new ArrayList<>();

    long size;

    void force() {
      pending.forEach((sector, versions) -> durable.put(sector, versions.getLast()));
      pending.clear();
      pendingSizes.clear();
      durableSize = size;
      // Sectors past the end are gone for good once the length is durable.
      durable.tailMap((durableSize + SECTOR - 1) / SECTOR, true).clear();
    }

    byte[] crashContent(Choice choice, Random random) {
      long length =
          switch (choice) {
            case DROP_ALL -> durableSize;
            case KEEP_ALL, ADVERSARIAL -> size;
            case RANDOM -> {
              int i = random.nextInt(pendingSizes.size() + 1);
              yield i == pendingSizes.size() ? durableSize : pendingSizes.get(i);
            }
          };
      byte[] content = new byte[Math.toIntExact(length)];
      durable.forEach((sector, bytes) -> put(content, sector, bytes));
      long firstKept =
          choice == Choice.ADVERSARIAL && !pending.isEmpty() ? adversarialSplit(random) : 0;
      pending.forEach(
          (sector, versions) -> {
            byte[] chosen =
                switch (choice) {
                  case DROP_ALL -> null;
                  case KEEP_ALL -> versions.getLast();
                  case ADVERSARIAL -> sector >= firstKept ? versions.getLast() : null;
                  case RANDOM -> {
                    int i = random.nextInt(versions.size() + 1);
                    yield i == versions.size() ? null : versions.get(i);
                  }
                };
            if (chosen != null) {
              put(content, sector, chosen);
            } else if (!durable.containsKey(sector)) {
              put(content, sector, new byte[SECTOR]);
            }
          });
      return content;
    }

    /** A pending sector past the first: those before it are dropped, it and those after kept. */
    private long adversarialSplit(Random random) {
      List<Long> sectors = new ArrayList<>(pending.keySet());
      return sectors.size() == 1
          ? sectors.getFirst() + 1
          : sectors.get(1 + random.nextInt(sectors.size() - 1));
    }

    private static void put(byte[] content, long sector, byte[] bytes) {
      long start = sector * SECTOR;
      if (start < content.length) {
        System.arraycopy(
            bytes, 0, content, (int) start, (int) Math.min(SECTOR, content.length - start));
      }
    }
  }
}
