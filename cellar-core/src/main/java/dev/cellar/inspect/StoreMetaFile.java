package dev.cellar.inspect;

import dev.cellar.IncompatibleFormatException;
import dev.cellar.store.StoreMetaDescriptor;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The store's identity file, {@code cellar.meta}, as the engine reads and validates it ({@code
 * StoreMetaDescriptor}; {@code docs/format/meta.md}), without the index hash seed it holds.
 *
 * @param shards index shard count, which every checkpoint must match
 */
public record StoreMetaFile(int major, int minor, int shards, Instant created) {
  public static final String FILE_NAME = StoreMetaDescriptor.FILE_NAME;

  /** Why the file cannot be used; the message names the file and the problem. */
  public static final class Unusable extends Exception {
    Unusable(String message) {
      super(message);
    }
  }

  /** Reads and checks {@code path} by the rules an open applies. */
  public static StoreMetaFile read(Path path) throws IOException, Unusable {
    String name = path.getFileName().toString();
    byte[] raw;
    try {
      raw = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      throw new Unusable(
          name + " is missing: not a Cellar store directory, or its identity file was lost");
    }
    MemorySegment s = MemorySegment.ofArray(raw);
    String problem;
    try {
      problem = StoreMetaDescriptor.validate(s, name);
    } catch (IncompatibleFormatException e) {
      throw new Unusable(e.getMessage());
    }
    if (problem != null) {
      throw new Unusable(problem);
    }
    return new StoreMetaFile(
        StoreMetaDescriptor.major(s),
        StoreMetaDescriptor.minor(s),
        StoreMetaDescriptor.shardCount(s),
        Instant.ofEpochMilli(StoreMetaDescriptor.createdAt(s)));
  }
}
